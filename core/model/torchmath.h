// A few of torch 1.13's float32 CPU kernels, reproduced bit for bit (AVX2 dispatch, 8 lanes,
// which is what Debian's python3-torch runs, also on AVX-512 CPUs): the forward pass uses them
// where transformers' eager forward does, because in random test models every last-bit
// difference grows layer by layer (docs/models.md, "Agreement"). Internal to core/model.
#pragma once

#include <QtGlobal>

namespace pe::torchmath {

// Vectorized<float>::exp(): SLEEF's expf, 1-ulp variant (Sleef_expf8_u10), whose result
// differs from the correctly rounded one for about 1 input in 10.
float exp(float d);

// x.sum() over n contiguous floats: cascade_sum's order (8-lane vectors, 4 at a time, the
// lanes added last, any tail first).
float sum(const float *x, qint64 n);

// softmax(row, dim=-1) in float32 (_vec_softmax_lastdim): max, exp(x - max), the 8-lane sum
// (lanes folded as a tree), times 1 / sum. Entries equal to -infinity give 0.
void softmax(float *row, qint64 n);

} // namespace pe::torchmath
