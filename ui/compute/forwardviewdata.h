// ForwardViewData: the numbers of the Phrases page's layer views (issue 48 item 4): phrase A
// through the open model's tokenizer and its whole forward pass (model/forwardpass.h), every
// layer's attention, and the layer analyses of analysis/layeranalysis.h computed from that one
// pass: attention by distance, head scores (sinks), the RoPE frequency atlas, hidden-state norms
// and their largest activations, and the position probe. One job: the ComputeScheduler runs it
// on its worker with progress and cancel; `pescope export` and lessons through
// computeFigureData. The model's files are opened once per model (ForwardModelHolder).
#pragma once

#include "compute/computejobs.h" // JobStatus, CancelCheck
#include "compute/phrasemodeldata.h"
#include "state/layerablation.h"
#include "state/viewlist.h"

#include "analysis/layeranalysis.h"
#include "model/forwardpass.h"

#include <QMetaType>
#include <QString>

#include <functional>
#include <memory>

namespace pe {

// What the layer views' pass does to the positions besides the model's own (issue 48 item 3):
// nothing, remove them, or a PositionAblation. The attention of every layer is then computed a
// second time so, and the enlarged layer.head is drawn with / ablated / difference.
struct ForwardAblation
{
    bool withoutPositions = false;
    PositionAblation positions; // with withoutPositions false
    bool any() const { return withoutPositions || !positions.changesNothing(); }
    bool operator==(const ForwardAblation &other) const;
    // "without positions", "shifted by 5", ... (empty: !any()).
    QString text() const;
};

// What the state's ablation (the window's form, a session, a lesson step) asks of the pass.
ForwardAblation forwardAblationOf(const LayerAblation &ablation);

// The part of `ablation` that `views` drawn with `choices` show: only layer-attention's enlarged
// head (a layer and a head chosen) compares one; the grid of every layer and the other layer views
// draw none, so for them the ablated pass is not run (the page, lessons, `pescope export`'s
// figures; the data keep the whole ablation).
ForwardAblation drawnAblation(const ForwardAblation &ablation, const QList<FigureView> &views,
                              const ViewChoices &choices);

struct ForwardViewInputs
{
    QString model;  // the model folder (PhraseSource::model)
    QString phrase; // phrase A
    ForwardAblation ablation;
    bool operator==(const ForwardViewInputs &) const = default;
};

// The layer views' inputs of the model phrase views': the model and phrase A, and `ablation`.
ForwardViewInputs forwardViewInputs(const PhraseModelInputs &inputs,
                                    const ForwardAblation &ablation = {});

struct ForwardViewResult
{
    ForwardViewInputs inputs;
    QString folder;
    QString architecture;
    ModelPhrase phrase; // its tokens (capped at limits::maxModelPhraseTokens); no arrays
    qint64 layers = 0;
    qint64 heads = 0;
    qint64 kvHeads = 0;
    qint64 rotaryDims = 0;
    qint64 window = 8;         // the head scores' local window
    LayerZeroArray attentions; // {layers, heads, tokens, tokens}
    LayerZeroArray distance;   // {layers, heads, tokens}
    LayerZeroArray headScores; // {layers, heads, HeadScoreCount}
    LayerZeroArray sinkRate;   // {layers}
    LayerZeroArray atlas;      // {layers, heads, pairs (+1)}; empty with atlasProblem
    QString atlasProblem;      // why there is no atlas (no rotary positions)
    LayerZeroArray norms;      // {layers + 1, tokens}
    LayerZeroArray top;        // {layers + 1, k, 4}
    LayerZeroArray probe;      // {layers + 1}; empty with probeProblem
    QString probeProblem;      // why there is no probe (too few tokens)
    QStringList warnings;      // the pass's: weights that are not finite
    double totalMs = 0;
    // With inputs.ablation.any(): every layer's attention so ablated ({layers, heads, tokens,
    // tokens}), or empty with the sentence ForwardPass::ablationProblem (or the pass) gave.
    LayerZeroArray ablatedAttentions;
    QString ablationProblem;
};

// One model opened between jobs, kept while the inputs name it. Not thread-safe: one thread uses
// it.
class ForwardModelHolder
{
public:
    ForwardModelHolder();
    ~ForwardModelHolder();
    ForwardModelHolder(const ForwardModelHolder &) = delete;
    ForwardModelHolder &operator=(const ForwardModelHolder &) = delete;
    // The tokenizer and the pass of `source`, opened now or before; false with *error.
    bool open(const QString &source, PhraseModel **tokenizer, ForwardPass **pass, QString *error);

private:
    QString m_source;
    std::unique_ptr<PhraseModel> m_tokenizer;
    std::unique_ptr<ForwardPass> m_pass;
    QString m_error;
};

// 0 .. 100 as the pass goes through the layers.
using ForwardProgress = std::function<void(int percent)>;

// Failed with *error for no model or phrase, a model that cannot be opened (or has no weights),
// a phrase that cannot be encoded; Cancelled when `cancel` says stop (checked between layers).
// The atlas of a model without rotary positions, and the probe of a phrase shorter than its
// folds, are left empty with the reason in the result. An ablation the model cannot take leaves
// the ablated attention empty with the reason, the rest computed. `previous` (a result for the
// same model and phrase, another ablation) lends its arrays: only the ablated pass runs.
JobStatus computeForwardViewData(const ForwardViewInputs &inputs, ForwardModelHolder &models,
                                 const CancelCheck &cancel, const ForwardProgress &progress,
                                 ForwardViewResult *result, QString *error,
                                 const ForwardViewResult *previous = nullptr);

} // namespace pe

Q_DECLARE_METATYPE(std::shared_ptr<const pe::ForwardViewResult>)
