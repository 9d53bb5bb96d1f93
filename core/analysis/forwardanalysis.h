// The layer analyses (layeranalysis.h) of one forward pass (forwardpass.h): which results each
// needs, and each computed from them. What `pescope data --what distance|...` and
// pescope.forward() share.
#pragma once

#include "analysis/layeranalysis.h"
#include "model/forwardpass.h"

#include <optional>

namespace pe {

struct LayerAnalysisOptions
{
    qint64 window = 8;  // head scores: the local window's tokens (the query's own included)
    qint64 topK = 5;    // top activations per layer
    double ridge = 1.0; // the probe's lambda
    int folds = 5;      // the probe's cross-validation folds (row r in fold r % folds)
};

// The forward results `what` reads (attentions, hidden states or queries and keys), no logits.
ForwardOptions forwardOptionsFor(LayerAnalysis what, bool withPositions);

// `what` from a pass's results (run with forwardOptionsFor(what) or more); nullopt with one
// sentence in *error when it cannot be computed (no rotary pairs for the atlas, fewer tokens
// than folds for the probe, the results it reads missing).
std::optional<LayerZeroArray> computeLayerAnalysis(const ForwardPass &pass,
                                                   const ForwardResult &result, LayerAnalysis what,
                                                   const LayerAnalysisOptions &options,
                                                   QString *error);

} // namespace pe
