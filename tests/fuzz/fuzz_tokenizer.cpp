// libFuzzer target: reading a tokenizer.json (core/text) and encoding and decoding texts with
// it. The input is the file's text, then the texts to encode, each after a NUL byte. Beyond not
// crashing, a file is either refused with a message or gives encodings that keep the contract:
// one id, token, offset, type id and flag per token; offsets within the text, start <= end;
// every token the model made names an id it has; a refused text comes with a message. A file
// that reads is read again grown past 64 KiB by a member at its end (its vocabulary and merges
// then go through simdjson, outside Qt's document): the same tokenizer, the same encodings.
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

// `json` (an object: it read) with a member of 66,000 bytes before its last '}'; no byte offset
// before it moves.
QByteArray grown(const QByteArray &json)
{
    const qsizetype close = json.lastIndexOf('}');
    return json.first(close) + ", \"\\u0001pescope fuzz filler\": \"" + QByteArray(66000, 'x') +
           "\"" + json.sliced(close);
}

bool sameEncoding(const std::optional<pe::TokenEncoding> &a,
                  const std::optional<pe::TokenEncoding> &b)
{
    if (!a || !b)
        return !a && !b;
    return a->ids == b->ids && a->tokens == b->tokens && a->offsets == b->offsets;
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
    const std::optional<pe::Tokenizer> large =
        pe::Tokenizer::fromJson(grown(fields.constFirst()), QStringLiteral("fuzz.json"), &error);
    check(large.has_value() || error.contains(QLatin1StringView("duplicate key")));
    if (large) {
        check(large->vocabularySize() == tokenizer->vocabularySize());
        for (const QString &text : texts) {
            QString a;
            QString b;
            check(sameEncoding(tokenizer->encode(text, true, &a), large->encode(text, true, &b)));
            check(a == b);
        }
    }
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
