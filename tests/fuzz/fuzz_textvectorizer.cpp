// libFuzzer target: the phrase page's text path, Keras TextVectorization's standardize, split,
// adapt and vectorize (core/text/textvectorizer), on any bytes a user can paste. Beyond not
// crashing, each output must keep the contract: sequenceLength ids, each an index into the
// vocabulary, the vocabulary no longer than maxTokens and starting '' and '[UNK]', every known
// token mapped to its own entry and every other one to [UNK].
#include "fuzzinput.h"
#include "text/textvectorizer.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>

using pe::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    // The first two bytes pick the sizes; the rest is text, one phrase per line.
    const qint64 maxTokens = 1 + data[0] % 64;
    const qint64 sequenceLength = 1 + data[1] % 64;
    const QString text =
        QString::fromUtf8(reinterpret_cast<const char *>(data + 2), qsizetype(size - 2));
    const QStringList phrases = text.split(QLatin1Char('\n'));

    pe::TextVectorizer vectorizer(maxTokens, sequenceLength);
    vectorizer.adapt(phrases.mid(0, (phrases.size() + 1) / 2)); // adapt on half, use on all
    const QStringList &vocabulary = vectorizer.vocabulary();
    check(vocabulary.size() >= 2 && vocabulary[0].isEmpty() &&
          vocabulary[1] == QStringLiteral("[UNK]"));
    check(vocabulary.size() <= qMax<qint64>(2, maxTokens));
    for (const QString &phrase : phrases) {
        const std::vector<qint64> ids = vectorizer.vectorize(phrase);
        check(ids.size() == std::size_t(sequenceLength));
        const QStringList tokens = pe::tokenize(phrase);
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const qint64 id = ids[i];
            check(id >= 0 && id < vocabulary.size());
            if (qsizetype(i) >= tokens.size()) {
                check(id == pe::TextVectorizer::paddingId);
                continue;
            }
            const QString &token = tokens[qsizetype(i)];
            check(!token.isEmpty());
            if (id == pe::TextVectorizer::unknownId)
                check(vocabulary.indexOf(token, 2) < 0);
            else
                check(vocabulary[id] == token);
        }
    }
    return 0;
}
