// TextVectorizer: Keras TextVectorization with its defaults (standardize =
// "lower_and_strip_punctuation", split = "whitespace", output_mode = "int"), byte for byte.
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <vector>

namespace pe {

// ASCII-only lower-casing (tf.strings.lower with its default encoding) and removal of
// !"#$%&()*+,-./:;<=>?@[\]^_`{|}~' ; every other byte, UTF-8 included, is kept as is.
QByteArray standardizeUtf8(const QByteArray &text);
// Runs of ASCII whitespace separate tokens (tf.strings.split without a separator).
QList<QByteArray> splitWhitespace(const QByteArray &text);
// standardize + split, for one phrase; tokens as QStrings.
QStringList tokenize(const QString &text);

class TextVectorizer
{
public:
    static constexpr qint64 paddingId = 0;
    static constexpr qint64 unknownId = 1;

    // maxTokens counts '' and '[UNK]'; sequenceLength is output_sequence_length.
    TextVectorizer(qint64 maxTokens, qint64 sequenceLength);

    // Builds the vocabulary: '' , '[UNK]', then tokens by count descending, ties broken by
    // token descending (byte order), cut to maxTokens entries.
    void adapt(const QStringList &texts);

    const QStringList &vocabulary() const { return m_vocabulary; }
    // Token ids, padded with 0 or truncated to sequenceLength; unknown tokens map to 1.
    std::vector<qint64> vectorize(const QString &text) const;

    qint64 maxTokens() const { return m_maxTokens; }
    qint64 sequenceLength() const { return m_sequenceLength; }

private:
    qint64 m_maxTokens;
    qint64 m_sequenceLength;
    QStringList m_vocabulary;
    QHash<QByteArray, qint64> m_ids;
};

} // namespace pe
