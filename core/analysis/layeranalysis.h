// What positions do, per layer and head (issue 48 item 2): numbers computed from the whole
// forward pass's plain arrays (forwardpass.h) without knowing the architecture. Every function
// reads float32 arrays, sums in float64 and returns a float32 array with its shape.
//
//   distance profile   mean attention at each relative offset i - j
//   head scores        previous-token, self, first-token and local-window shares, and whether
//                      the head is a sink head (Gu et al. 2024)
//   frequency atlas    each rotary pair's share of |q.k| per head (Barbero et al. 2024)
//   norms / top        hidden-state norms; the largest |activations| (Sun et al. 2024)
//   position probe     ridge regression hidden state -> position, k-fold cross-validated R^2
//
// docs/models.md says what each number means and cites the papers.
#pragma once

#include "fields/choicenames.h"
#include "model/layerzero.h"

#include <span>
#include <utility>
#include <vector>

namespace pe {

enum class LayerAnalysis {
    Distance,
    HeadScores,
    Sinks,
    FrequencyAtlas,
    Norms,
    TopActivations,
    Probe
};

inline constexpr ChoiceName layerAnalysisNames[] = {
    choice(LayerAnalysis::Distance, "distance", "attention by distance (layers x heads x offset)"),
    choice(LayerAnalysis::HeadScores, "head-scores",
           "head scores (layers x heads x previous, self, first, window, sink)"),
    choice(LayerAnalysis::Sinks, "sinks",
           "per layer the fraction of heads whose first-token share exceeds 0.3 (layers)"),
    choice(LayerAnalysis::FrequencyAtlas, "frequency-atlas",
           "each rotary pair's share of |q.k| (layers x heads x pairs)"),
    choice(LayerAnalysis::Norms, "norms", "hidden-state norms (layers + 1 x tokens)"),
    choice(LayerAnalysis::TopActivations, "top-activations",
           "the largest |activations| (layers + 1 x k x value, token, dim, ratio to median)"),
    choice(LayerAnalysis::Probe, "probe", "position probe R^2 (layers + 1)"),
};

namespace analysis {

// Gu et al. 2024's threshold: a head whose mean attention to the first token exceeds it is a
// sink head.
constexpr double sinkEpsilon = 0.3;
// Head scores' columns.
enum HeadScore : int {
    PreviousToken,
    SelfToken,
    FirstToken,
    LocalWindow,
    SinkHead,
    HeadScoreCount
};

// attentions {layers, heads, tokens, tokens} (row i: query i). Out {layers, heads, tokens}:
// [d] = mean over queries i >= d of A[i][i - d] (tokens - d queries).
LayerZeroArray distanceProfile(const LayerZeroArray &attentions);

// attentions {layers, heads, tokens, tokens}. Out {layers, heads, HeadScoreCount}:
// previous = mean over i >= 1 of A[i][i-1]; self = mean over i of A[i][i]; first = mean over i
// of A[i][0] (Gu et al.'s alpha_1: every query, the first included); window = mean over i of
// the sum of A[i][j] for i - window < j <= i; sink = 1 when first > epsilon, else 0 (the mean of
// this column over a layer's heads is Gu et al.'s per-layer sink rate).
LayerZeroArray headScores(const LayerZeroArray &attentions, qint64 window = 8,
                          double epsilon = sinkEpsilon);
// Per layer, the fraction of heads whose first-token share exceeds epsilon: {layers}.
LayerZeroArray sinkRate(const LayerZeroArray &headScores);

// The rotary pairs of a head: (c, c + n/2) for rotate_half, (2i, 2i + 1) interleaved, for the
// first `rotaryDims` of its values, in frequency order (pair p turns at inv_freq[p]).
std::vector<std::pair<qint64, qint64>> rotaryPairs(qint64 rotaryDims, bool interleaved);

// q_pair . k_pair for every pair: the contributions that sum to q . k over the rotary dims.
std::vector<double> pairContributions(std::span<const float> query, std::span<const float> key,
                                      const std::vector<std::pair<qint64, qint64>> &pairs);

// queries {layers, heads, tokens, headDim}, keys {layers, kvHeads, tokens, headDim} (after
// RoPE, as scored; query head h reads key head h / (heads / kvHeads)). Out {layers, heads,
// pairs (+1)}: per pair the mean over query-key pairs (j <= i when causal, every pair
// otherwise) of |q_pair . k_pair|, divided by the sum of those means over the head's columns, so
// a head's columns sum to 1. Values outside the pairs (partial rotary) are one last column.
LayerZeroArray frequencyAtlas(const LayerZeroArray &queries, const LayerZeroArray &keys,
                              const std::vector<std::pair<qint64, qint64>> &pairs, bool causal);

// hiddenStates {layers + 1, tokens, hidden}. Out {layers + 1, tokens}: each token's L2 norm.
LayerZeroArray hiddenNorms(const LayerZeroArray &hiddenStates);
// Out {layers + 1, k, 4}: per layer the k largest |activation| as (signed value, token, dim,
// |value| / median |activation| of that layer), largest first (ties: the lower token, dim).
LayerZeroArray topActivations(const LayerZeroArray &hiddenStates, qint64 k = 5);

// Ridge regression with an unpenalised intercept: the columns and y centred, then
// w = (X^T X + lambda I)^-1 X^T y; intercept = mean(y) - mean(X) w.
// x: y.size() rows x `columns`, row-major. Solved in float64 (Eigen's LDLT).
struct RidgeFit
{
    std::vector<double> weights;
    double intercept = 0;
};
RidgeFit ridgeFit(std::span<const double> x, qint64 columns, std::span<const double> y,
                  double lambda);
// Cross-validated R^2 of ridge(x -> y): row r is in fold r % folds; each fold predicted by the
// fit on the others; R^2 = 1 - sum (y - prediction)^2 / sum (y - mean y)^2 over every row.
double crossValidatedR2(std::span<const double> x, qint64 columns, std::span<const double> y,
                        double lambda, int folds);
// hiddenStates {layers + 1, tokens, hidden}: per layer the cross-validated R^2 of the token
// position (0 .. tokens - 1) from its hidden state. Out {layers + 1}. Needs tokens >= folds.
LayerZeroArray positionProbe(const LayerZeroArray &hiddenStates, double lambda = 1.0,
                             int folds = 5);

} // namespace analysis
} // namespace pe
