#include "text/textvectorizer.h"

#include <QHash>

#include <algorithm>

namespace pe {

namespace {

bool isKerasPunctuation(char c)
{
    static constexpr char punctuation[] = "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~'";
    return std::find(std::begin(punctuation), std::end(punctuation) - 1, c) !=
           std::end(punctuation) - 1;
}

bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

} // namespace

QByteArray standardizeUtf8(const QByteArray &text)
{
    QByteArray out;
    out.reserve(text.size());
    for (char c : text) {
        if (isKerasPunctuation(c))
            continue;
        out += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    }
    return out;
}

QList<QByteArray> splitWhitespace(const QByteArray &text)
{
    QList<QByteArray> tokens;
    qsizetype start = -1;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        const bool space = i == text.size() || isAsciiSpace(text[i]);
        if (space && start >= 0) {
            tokens += text.mid(start, i - start);
            start = -1;
        } else if (!space && start < 0) {
            start = i;
        }
    }
    return tokens;
}

QStringList tokenize(const QString &text)
{
    QStringList tokens;
    for (const QByteArray &token : splitWhitespace(standardizeUtf8(text.toUtf8())))
        tokens += QString::fromUtf8(token);
    return tokens;
}

TextVectorizer::TextVectorizer(qint64 maxTokens, qint64 sequenceLength)
    : m_maxTokens(maxTokens), m_sequenceLength(sequenceLength)
{}

void TextVectorizer::adapt(const QStringList &texts)
{
    QHash<QByteArray, qint64> counts;
    for (const QString &text : texts)
        for (const QByteArray &token : splitWhitespace(standardizeUtf8(text.toUtf8())))
            ++counts[token];

    std::vector<std::pair<QByteArray, qint64>> ranked(counts.constKeyValueBegin(),
                                                      counts.constKeyValueEnd());
    std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first > b.first;
    });

    m_vocabulary = {QString(), QStringLiteral("[UNK]")};
    m_ids.clear();
    for (const auto &[token, count] : ranked) {
        if (m_vocabulary.size() >= m_maxTokens)
            break;
        m_ids.insert(token, m_vocabulary.size());
        m_vocabulary += QString::fromUtf8(token);
    }
}

std::vector<qint64> TextVectorizer::vectorize(const QString &text) const
{
    std::vector<qint64> ids(std::size_t(m_sequenceLength), paddingId);
    const QList<QByteArray> tokens = splitWhitespace(standardizeUtf8(text.toUtf8()));
    const qsizetype n = std::min<qsizetype>(tokens.size(), qsizetype(m_sequenceLength));
    for (qsizetype i = 0; i < n; ++i)
        ids[std::size_t(i)] = m_ids.value(tokens[i], unknownId);
    return ids;
}

} // namespace pe
