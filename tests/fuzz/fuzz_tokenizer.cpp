// libFuzzer target: reading a tokenizer.json (core/text) and encoding and decoding texts with
// it. The input is the file's text, then the texts to encode, each after a NUL byte. Beyond not
// crashing, a file is either refused with a message or gives encodings that keep the contract:
// one id, token, offset, type id and flag per token; offsets within the text, start <= end;
// every token the model made names an id it has; a refused text comes with a message.
#include "fuzzinput.h"
#include "text/tokenizer.h"

#include <QByteArray>
#include <QString>

#include <cstddef>
#include <cstdint>

using pe::fuzz::check;

namespace {

// A few thousand characters: enough for every component, and short enough that a pattern the
// fuzzer makes slow cannot outlast libFuzzer's timeout before the backtracking limit stops it.
constexpr qsizetype maxTextLength = 2000;

void checkEncoding(const pe::Tokenizer &tokenizer, const pe::TokenEncoding &e, qint64 length)
{
    const std::size_t n = e.ids.size();
    check(qsizetype(n) == e.tokens.size() && e.offsets.size() == n && e.typeIds.size() == n &&
          e.special.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto [start, end] = e.offsets[i];
        check(0 <= start && start <= end && end <= length);
        check(e.ids[i] >= 0);
        if (!e.special[i])
            check(!tokenizer.idToToken(e.ids[i]).isNull());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QList<QByteArray> fields =
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)).split('\0');
    QString error;
    const std::optional<pe::Tokenizer> tokenizer =
        pe::Tokenizer::fromJson(fields.constFirst(), QStringLiteral("fuzz.json"), &error);
    if (!tokenizer) {
        check(!error.isEmpty());
        return 0;
    }
    QStringList texts;
    for (qsizetype i = 1; i < fields.size(); ++i)
        texts.append(QString::fromUtf8(fields[i]).left(maxTextLength));
    for (const QString &text : texts) {
        const qint64 length = text.toUcs4().size();
        for (const bool special : {true, false}) {
            const std::optional<pe::TokenEncoding> e = tokenizer->encode(text, special, &error);
            if (!e) {
                check(!error.isEmpty());
                continue;
            }
            checkEncoding(*tokenizer, *e, length);
            (void)tokenizer->decode(e->ids, special);
        }
    }
    if (texts.size() >= 2) {
        const std::optional<pe::TokenEncoding> pair =
            tokenizer->encodePair(texts[0], texts[1], true, &error);
        check(pair.has_value() || !error.isEmpty());
    }
    (void)tokenizer->summary();
    return 0;
}
