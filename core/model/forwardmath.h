// The forward pass's matrix products: pescope's ordered kernel (the reference BLAS's order of
// summation, which the shared transformers references were computed with) for each head's
// products up to 2^22 multiply-adds (128 tokens of 128 dims) and for small weight matrices,
// OpenBLAS (cblas_sgemm, dlopen of libopenblas.so.0: AVX2 / AVX-512 kernels with fused
// multiply-adds, picked for the CPU it runs on) for large ones; PE_FORWARD_BLAS=reference |
// openblas | eigen forces one. Internal to core/model.
//
// Threads are pescope's own: each product's output is cut into fixed blocks of rows and columns
// (their count and edges depend on the shape, never on the thread count) and each block is one
// single-threaded product, so every value comes out bit for bit the same on 1 or 16 threads;
// OpenBLAS's own threading is kept off.
#pragma once

#include "model/layerzeroweights.h"

namespace pe {

// A row-major matrix view: `rows` x `cols` values, a row `stride` values after the last.
struct MatrixView
{
    const float *data = nullptr;
    qint64 rows = 0;
    qint64 cols = 0;
    qint64 stride = 0;
};

// View of a whole RowMatrix, or of its columns [first, first + count).
MatrixView view(const RowMatrix &m);
MatrixView columns(const RowMatrix &m, qint64 first, qint64 count);

// out (a.rows x w.rows, row stride outStride) = a @ w^T: nn.Linear's product with w stored as
// out_features x in_features. The output in fixed blocks spread over `threads`.
void productTransposed(const MatrixView &a, const MatrixView &w, int threads, float *out,
                       qint64 outStride);

// out (a.rows x w.cols) = a @ w: Conv1D's product with w stored as in x out. The same blocks.
void product(const MatrixView &a, const MatrixView &w, int threads, float *out, qint64 outStride);

// The same on the calling thread only (one head's scores: q @ k^T).
void productTransposedHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride);

// out = a @ b on the calling thread only (one head's probabilities times its values).
void productHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride);

// nn.Linear: y = x @ W^T + b (Conv1D, p.inputMajor: y = x @ W + b).
void linearProduct(const RowMatrix &x, const Projection &p, int threads, RowMatrix *y);

} // namespace pe
