// PhraseModelData: the Phrases page's numbers when its tokenizer is the open model's own. The
// compared phrases go through the model's tokenizer (with its special tokens, capped at
// limits::maxModelPhraseTokens), then its embedding layer and layer 0, each with and without
// the model's positions: the embedding output, the cosine of every token pair of phrases A and B
// and of the two phrases as wholes (their mean token vectors), and layer 0's attention per head.
// One job: the ComputeScheduler runs it on its worker, `pescope export` on its own thread. The
// model's files are opened once per model (PhraseModelHolder), not once per keystroke.
#pragma once

#include "compute/computejobs.h" // JobStatus, CancelCheck
#include "state/figurestate.h"

#include "model/phrasemodel.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <array>
#include <memory>
#include <vector>

namespace pe {

namespace limits {
// The tokens the window computes and draws for one phrase; a longer phrase is cut to them (and
// to what the model takes), with a notice. The command line refuses such a phrase instead.
constexpr qint64 maxModelPhraseTokens = 256;
} // namespace limits

struct PhraseModelInputs
{
    QString model;       // the model folder (PhraseSource::model)
    QStringList phrases; // A and B, the compared phrases
    bool operator==(const PhraseModelInputs &) const = default;
};

// Arrays with and without the model's positions, in that order.
enum class Positions { With, Without };
template <class T> using ByPositions = std::array<T, 2>;
inline constexpr std::size_t at(Positions p)
{
    return std::size_t(p);
}

// rows x cols values, row-major.
struct ValueGrid
{
    qint64 rows = 0;
    qint64 cols = 0;
    std::vector<float> values;
    float at(qint64 row, qint64 col) const { return values[std::size_t(row * cols + col)]; }
};

struct ModelPhrase
{
    QString text;
    TokenEncoding tokens;                   // the first `cap` tokens
    qint64 allTokens = 0;                   // how many the tokenizer gave
    QString normalizedText;                 // the text after the tokenizer's normalizer
    ByPositions<LayerZeroArray> embeddings; // {tokens, hidden}
    ByPositions<LayerZeroArray> attention;  // {heads, tokens, tokens}
    SpaceMarks marks = SpaceMarks::None;    // the tokenizer's space marker
    bool capped() const { return allTokens > tokens.size(); }
    // Token t as people read it ("␣the" for GPT-2's "Ġthe"; displayToken()).
    QString shownToken(qint64 t) const
    {
        return displayToken(tokens.tokens.value(qsizetype(t)), marks);
    }
};

struct PhraseModelResult
{
    PhraseModelInputs inputs;
    QString folder;       // where the files were read
    QString architecture; // "LlamaForCausalLM"
    QString positionsText;
    // "truncation", "padding": the tokenizer.json's settings the tokens are made without.
    QStringList unappliedTokenizerSettings;
    LayerPositionKind positionKind = LayerPositionKind::None;
    qint64 heads = 0;
    qint64 hidden = 0;
    qint64 cap = 0;                   // tokens computed per phrase at most
    std::vector<ModelPhrase> phrases; // as inputs.phrases
    // cos(A token i, B token j), A's tokens x B's; empty with fewer than two phrases.
    ByPositions<ValueGrid> tokenCosine;
    // cos of the phrases' mean token vectors.
    ByPositions<double> phraseCosine{0.0, 0.0};
    double totalMs = 0;
    // Why the phrases have tokens but no embeddings, attention or cosines: a tokenizer opened
    // without weights (PhraseModel::weightsNote()), or a token id outside the model's rows;
    // empty when they were computed.
    QString noArrays;
    bool hasArrays() const { return noArrays.isEmpty(); }
    // Empty when `view` (its name) can be drawn from this result; else why not, naming the view:
    // only the tokens view draws a result without arrays.
    QString arraysProblem(const QString &view) const;
    // "phrase A: 300 tokens, the first 256 shown" for each capped phrase; empty when none is.
    QString capNotice() const;
};

// One opened model between jobs: opened when the inputs first name it, kept while they do. Not
// thread-safe: one thread (the scheduler's worker) uses it.
class PhraseModelHolder
{
public:
    // The model at `source`, opened now or before; null with *error when it cannot be.
    PhraseModel *open(const QString &source, QString *error);

private:
    QString m_source;
    std::unique_ptr<PhraseModel> m_model;
    QString m_error;
};

// The model just opened (a folder or file, made absolute; or a cached repo id) becomes the Phrases
// page's: its tokenizer and layer 0 are used when the page's tokenizer is the model's.
void setPhraseModel(ExplorerState *state, const QString &source);
// How the state keeps a model's source: a folder or file made absolute, a repo id as it is.
QString phraseModelPath(const QString &source);

// What the state asks for: its phrase model and the compared phrases A and B.
PhraseModelInputs phraseModelInputs(const FigureState &state);

// Empty when the state's inputs can be computed; else why not (no model chosen).
QString phraseModelProblem(const PhraseModelInputs &inputs);

// Failed with *error for a model that cannot be opened or a phrase that cannot be encoded;
// Cancelled when `cancel` says stop (checked between phrases and arrays). A tokenizer without
// weights, or a phrase with an id outside the model's rows, is Done with the tokens alone and
// result->noArrays saying why.
JobStatus computePhraseModelData(const PhraseModelInputs &inputs, PhraseModelHolder &models,
                                 const CancelCheck &cancel, PhraseModelResult *result,
                                 QString *error);

} // namespace pe

Q_DECLARE_METATYPE(std::shared_ptr<const pe::PhraseModelResult>)
