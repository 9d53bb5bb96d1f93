// The norms of the embedding layer and layer 0 (LayerNorm, Llama's RMSNorm, Gemma's RMSNorm with
// 1 + weight), and rounding to the dtype a model runs in. Internal to core/model.
#pragma once

#include "formats/tensorinfo.h"
#include "model/layerzeroplan.h"
#include "model/layerzeroweights.h"

namespace pe {

// Normalizes `row` (n values) in place as `kind` does in transformers, with the weights (empty:
// none) and eps: torch.nn.LayerNorm (biased variance), LlamaRMSNorm (weight * normalized),
// GemmaRMSNorm (normalized * (1 + weight)). Statistics are accumulated in float64.
void applyNorm(NormKind kind, const NormWeights &weights, double eps, float *row, qint64 n);

// The value torch stores for `value` in a tensor of `dtype`: F16 and BF16 round to nearest even
// (torch's c10::Half / c10::BFloat16 conversions), F32 and F64 keep float32.
float roundToDType(float value, TensorDType dtype);

} // namespace pe
