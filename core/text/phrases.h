// Phrase embeddings as seed 001 builds them: out[b, p] = word_table[id[b, p]] + position_table[p],
// with both tables learned ("random", seeded) or both sinusoidal ("fixed").
#pragma once

#include "backends/backend.h"
#include "fields/field.h"

#include <QStringList>

#include <optional>
#include <vector>

namespace pe {

enum class EmbeddingMode { Random, Fixed };

inline constexpr ChoiceName embeddingModeNames[] = {
    choice(EmbeddingMode::Random, "random", "Random (learned, seeded)"),
    choice(EmbeddingMode::Fixed, "fixed", "Fixed (sinusoidal)"),
};

namespace limits {
constexpr qint64 maxPhrases = 10000;
constexpr qint64 maxPhraseLength = qint64(1) << 20; // characters
} // namespace limits

struct PhraseSpec
{
    QStringList phrases;
    QStringList titles;         // optional labels per phrase for figures ("Tech Phrase")
    qint64 maxTokens = 200;     // Keras max_tokens; also the word table's row count
    qint64 sequenceLength = 20; // Keras output_sequence_length; the position table's row count
    qint64 dims = 50;
    EmbeddingMode mode = EmbeddingMode::Fixed;
    quint64 seed = 0;
    double base = 10000.0; // fixed mode's sinusoid base

    // phrases ("text"), titles, max_tokens, sequence length, dims, embedding, seed.
    static FieldTable<PhraseSpec> fields();
    // Empty when valid, else one sentence naming the problem (which phrase, which field).
    QString validate() const;
    // The given title of phrase `index`, else "Phrase N".
    QString title(int index) const;
    qint64 outputBytes() const;
    bool operator==(const PhraseSpec &) const = default;
};

struct PhraseEmbedding
{
    QStringList vocabulary;
    std::vector<std::vector<qint64>> ids; // phrases x sequenceLength
    // Each phrase's tokens before padding or truncation: more than sequenceLength means the
    // phrase was cut to its first sequenceLength tokens (as Keras does).
    std::vector<qint64> tokenCounts;
    std::vector<float> values; // phrases x sequenceLength x dims, C order
    qint64 sequenceLength = 0;
    qint64 dims = 0;
    qint64 phraseCount() const { return qint64(ids.size()); }
    // The dims floats of token `token` of phrase `phrase` (both in range).
    const float *vector(qint64 phrase, qint64 token) const
    {
        return values.data() + (phrase * sequenceLength + token) * dims;
    }
};

// The spec must be valid. Only the word-table rows that the phrases use are computed.
[[nodiscard]] bool embedPhrases(Backend &backend, const PhraseSpec &spec, PhraseEmbedding *result,
                                QString *error);

} // namespace pe
