// A few of torch 1.13's float32 CPU kernels, reproduced bit for bit (AVX2 dispatch, 8 lanes,
// which is what Debian's python3-torch runs, also on AVX-512 CPUs): the forward pass uses them
// where transformers' eager forward does, because in random test models every last-bit
// difference grows layer by layer (docs/models.md, "Agreement"). Internal to core/model.
#pragma once

#include <QtGlobal>

namespace pe {

// The widest instruction set the forward pass's own kernels use (the ordered product,
// forwardmath.cpp, and the rows below): AVX-512 where the CPU has it, else AVX2, else the
// baseline. PE_FORWARD_ISA=avx2 or sse2 caps it (the tests of the narrower copies).
enum class ForwardIsa { Base, Avx2, Avx512 };
ForwardIsa forwardIsa();

namespace torchmath {

// Vectorized<float>::exp(): SLEEF's expf, 1-ulp variant (Sleef_expf8_u10), whose result
// differs from the correctly rounded one for about 1 input in 10. Below -104: 0; above 100:
// infinity (SLEEF's limits).
float exp(float d);

// x.sum() over n contiguous floats: cascade_sum's order (8-lane vectors, 4 at a time, the
// lanes added last, any tail first).
float sum(const float *x, qint64 n);

// softmax(row, dim=-1) in float32 (_vec_softmax_lastdim): max, exp(x - max), the 8-lane sum
// (lanes folded as a tree), times 1 / sum. Entries equal to -infinity give 0. Vectorised
// (torchrows.inc) with the bits of scalarSoftmax, which rows holding a NaN take.
void softmax(float *row, qint64 n);
void scalarSoftmax(float *row, qint64 n);

// nn.functional.silu in place: x / (1 + exp(-x)), with exp above, vectorised.
void silu(float *x, qint64 n);

// tanh in place, evaluated in float64 and rounded once (not SLEEF's tanhf_u10, which torch runs:
// this agrees with it on 97% of inputs, glibc's tanhf on 87%; torchrows.inc).
void tanh(float *x, qint64 n);

// NewGELUActivation (GPT-2's gelu_new) in place: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715
// x^3))), each step in float32 as torch rounds it, tanh as above.
void geluTanh(float *x, qint64 n);

} // namespace torchmath
} // namespace pe
