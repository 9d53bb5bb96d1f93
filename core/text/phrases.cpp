#include "text/phrases.h"

#include "text/textvectorizer.h"

#include <cmath>
#include <map>

namespace pe {

namespace {

// The position table draws from a different stream than the word table with the same seed.
constexpr quint64 positionSeedOffset = 0x9E3779B97F4A7C15ull;

EncodingSpec tableSpec(const PhraseSpec &spec, qint64 rows, quint64 seed)
{
    EncodingSpec table;
    if (spec.mode == EmbeddingMode::Fixed)
        table.scheme = SinusoidalScheme{spec.base, Layout::Interleaved};
    else
        table.scheme = LearnedScheme{seed};
    table.positions = rows;
    table.dims = spec.dims;
    return table;
}

} // namespace

FieldTable<PhraseSpec> PhraseSpec::fields()
{
    using S = PhraseSpec;
    static const Field<S> table[] = {
        {.key = "phrases",
         .flag = "text",
         .label = "Phrases",
         .help = "A phrase; repeat the option for more.",
         .kind = TextListKind<S>{&S::phrases, limits::maxPhrases, limits::maxPhraseLength}},
        {.key = "titles",
         .flag = "phrase-title",
         .label = "Titles",
         .help = "A phrase's title in figures; repeat in the order of the phrases.",
         .kind = TextListKind<S>{&S::titles, limits::maxPhrases, 200}},
        {.key = "maxTokens",
         .flag = "max-tokens",
         .label = "Max tokens",
         .help = "Keras max_tokens: the vocabulary size including '' and [UNK].",
         .kind = IntegerKind<S>{&S::maxTokens, {3, limits::maxPositions}}},
        {.key = "sequenceLength",
         .flag = "sequence-length",
         .label = "Sequence length",
         .help = "Keras output_sequence_length: tokens per phrase, padded or cut.",
         .kind = IntegerKind<S>{&S::sequenceLength, {1, limits::maxPositions}}},
        {.key = "dims",
         .flag = "phrase-dims",
         .label = "Dims",
         .help = "The embedding size.",
         .kind = IntegerKind<S>{&S::dims, {1, limits::maxDims}}},
        {.key = "embedding",
         .flag = "embedding",
         .label = "Embedding",
         .help = "Word and position tables: fixed (both sinusoidal) or random (both learned).",
         .kind = choiceKind<&S::mode>(embeddingModeNames)},
        {.key = "seed",
         .flag = "phrase-seed",
         .label = "Seed",
         .help = "Seed of the random tables.",
         .kind = SeedKind<S>{&S::seed}},
    };
    return table;
}

QString PhraseSpec::title(int index) const
{
    if (index >= 0 && index < titles.size() && !titles[index].trimmed().isEmpty())
        return titles[index];
    return QStringLiteral("Phrase %1").arg(index + 1);
}

QString PhraseSpec::validate() const
{
    if (const FieldProblem problem = rangeProblem(fields(), *this))
        return describe(fields(), problem, FieldNaming::Bare);
    if (phrases.isEmpty())
        return QStringLiteral("at least one phrase is needed");
    for (qsizetype i = 0; i < phrases.size(); ++i) {
        if (phrases[i].trimmed().isEmpty())
            return QStringLiteral("phrase %1 is empty").arg(i + 1);
        if (tokenize(phrases[i]).isEmpty())
            return QStringLiteral("phrase %1 (\"%2\") has no words once punctuation is removed")
                .arg(i + 1)
                .arg(phrases[i]);
    }
    if (maxTokens < 3 || maxTokens > limits::maxPositions)
        return QStringLiteral("max-tokens must be between 3 and %1 (got %2)")
            .arg(limits::maxPositions)
            .arg(maxTokens);
    if (sequenceLength < 1 || sequenceLength > limits::maxPositions)
        return QStringLiteral("sequence-length must be between 1 and %1 (got %2)")
            .arg(limits::maxPositions)
            .arg(sequenceLength);
    if (dims < 1 || dims > limits::maxDims)
        return QStringLiteral("dims must be between 1 and %1 (got %2)")
            .arg(limits::maxDims)
            .arg(dims);
    if (mode == EmbeddingMode::Fixed &&
        !(std::isfinite(base) && base > 1.0 && base <= limits::maxBase))
        return QStringLiteral(
                   "base must be a finite number greater than 1 and at most 1e12 (got %1)")
            .arg(base);
    // Output plus the position table, both held in memory.
    const double bytes = (double(phrases.size()) + 1.0) * double(sequenceLength) * double(dims) *
                         double(sizeof(float));
    if (bytes > double(limits::maxInMemoryBytes))
        return QStringLiteral("%1 phrases x %2 tokens x %3 dims need %4 of memory; the limit is %5")
            .arg(phrases.size())
            .arg(sequenceLength)
            .arg(dims)
            .arg(formatBytes(bytes), formatBytes(double(limits::maxInMemoryBytes)));
    return {};
}

qint64 PhraseSpec::outputBytes() const
{
    return qint64(phrases.size()) * sequenceLength * dims * qint64(sizeof(float));
}

bool embedPhrases(Backend &backend, const PhraseSpec &spec, PhraseEmbedding *result, QString *error)
{
    TextVectorizer vectorizer(spec.maxTokens, spec.sequenceLength);
    vectorizer.adapt(spec.phrases);
    result->vocabulary = vectorizer.vocabulary();
    result->ids.clear();
    result->tokenCounts.clear();
    for (const QString &phrase : spec.phrases) {
        result->ids.push_back(vectorizer.vectorize(phrase));
        result->tokenCounts.push_back(qint64(tokenize(phrase).size()));
    }

    const qint64 length = spec.sequenceLength;
    const qint64 dims = spec.dims;
    result->sequenceLength = length;
    result->dims = dims;
    std::vector<float> positionTable(std::size_t(length * dims));
    if (!backend.encode(tableSpec(spec, length, spec.seed + positionSeedOffset), 0, length,
                        positionTable.data(), error))
        return false;

    // Word-table rows, computed once per distinct id that occurs.
    const EncodingSpec words = tableSpec(spec, spec.maxTokens, spec.seed);
    std::map<qint64, std::vector<float>> wordRows;
    for (const auto &sequence : result->ids)
        for (qint64 id : sequence)
            if (!wordRows.count(id)) {
                std::vector<float> row(static_cast<std::size_t>(dims));
                if (!backend.encode(words, id, 1, row.data(), error))
                    return false;
                wordRows.emplace(id, std::move(row));
            }

    result->values.assign(std::size_t(spec.outputBytes() / qint64(sizeof(float))), 0.0f);
    float *out = result->values.data();
    for (const auto &sequence : result->ids)
        for (qint64 p = 0; p < length; ++p) {
            const std::vector<float> &word = wordRows.at(sequence[std::size_t(p)]);
            const float *position = positionTable.data() + p * dims;
            for (qint64 j = 0; j < dims; ++j)
                *out++ = word[std::size_t(j)] + position[j];
        }
    return true;
}

} // namespace pe
