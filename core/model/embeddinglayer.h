// The embedding layer's output for a phrase's token ids, as transformers' hidden_states[0]:
// the rows of the phrase read from the mapped token table, then what the plan says (position
// table, token type, LayerNorm, Gemma's scale). Internal to core/model.
#pragma once

#include "model/layerzeroplan.h"
#include "model/layerzeroweights.h"

#include <span>

namespace pe {

// The table row of each token's position (RoBERTa: padding_idx plus the running count of
// non-padding tokens, padding tokens at padding_idx; OPT: p + 2; others: p), each `shift` rows
// further (position ids that start at `shift`: transformers' position_ids argument).
std::vector<qint64> positionRows(const LayerZeroPlan &plan, std::span<const int> ids,
                                 qint64 shift = 0);

// The dtype the embedding stage rounds to: the plan's (config.json's dtype), else the token
// table's stored type.
TensorDType embeddingDType(const LayerZeroPlan &plan, const LayerZeroWeights &weights);

// hidden_states[0] (ids.size() x hidden_size); without positions, the same without the position
// table (models whose positions are not added at the input give the same either way). The ids
// must be checked by the caller (in range, at most the positions the table holds, `shift`
// included: the position table's rows are positionRows(plan, ids, shift)).
[[nodiscard]] bool embeddingOutput(const LayerZeroPlan &plan, const LayerZeroWeights &weights,
                                   ModelTensors &tensors, std::span<const int> ids,
                                   bool withPositions, RowMatrix *out, QString *error,
                                   qint64 shift = 0);

} // namespace pe
