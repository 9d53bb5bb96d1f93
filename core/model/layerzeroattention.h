// Layer 0's attention probabilities from the embedding layer's output, as transformers' eager
// attention computes them in float32: input norm, query / key projections with their biases,
// per-head q/k norms, RoPE (pescope's rope tables), scaling, soft-capping, the causal (or
// sliding-window, or no) mask, softmax. Internal to core/model.
#pragma once

#include "model/layerzeroplan.h"
#include "model/layerzeroweights.h"

#include <span>

namespace pe {

// heads x tokens x tokens probabilities (row i: query i over keys j), row-major, into `out`.
// Without positions, the queries and keys are not rotated (NoPE; no attention factor either).
[[nodiscard]] bool layerZeroProbabilities(const LayerZeroPlan &plan,
                                          const LayerZeroWeights &weights, const RowMatrix &hidden,
                                          bool withPositions, std::vector<float> *out,
                                          QString *error);

// The steps, shared with the whole forward pass (forwardpass.h):
// Qwen3Attention / Gemma3Attention's q_norm / k_norm over each head's head_dim values.
void normHeads(NormKind kind, const std::vector<float> &weight, double eps, qint64 headDim,
               RowMatrix *m);
// apply_rotary_pos_emb on the queries and keys for positions 0 .. rows - 1 with the plan's RoPE.
[[nodiscard]] bool rotateQueryKey(const LayerZeroPlan &plan, RowMatrix *query, RowMatrix *key,
                                  QString *error);
// The same for position ids that need not be 0 .. rows - 1 nor whole (a position ablation:
// shifted, scaled); `sequenceLength` is the seq_len dynamic and longrope see.
[[nodiscard]] bool rotateQueryKeyAt(const LayerZeroPlan &plan, std::span<const double> positions,
                                    qint64 sequenceLength, RowMatrix *query, RowMatrix *key,
                                    QString *error);
// One head's scores, scaled, soft-capped, masked and softmaxed into `out` (tokens x tokens).
void headProbabilities(const LayerZeroPlan &plan, const RowMatrix &scores, float *out);

} // namespace pe
