#include "model/forwardmath.h"

#include "backends/parallel.h"

#include <cblas.h>

#include <algorithm>
#include <functional>
#include <mutex>

namespace pe {

namespace {

// Output columns per sgemm: a function of the product's width only, never of the thread count,
// so that results do not depend on it; about 16 blocks, so that up to 16 threads have work, each
// at least 128 wide, as OpenBLAS packs the left matrix again for every block.
qint64 columnBlock(qint64 total)
{
    const qint64 sixteenth = (total + 15) / 16;
    return std::max<qint64>(128, (sixteenth + 63) / 64 * 64);
}

// OpenBLAS's own threads off, once: pescope's threads call it, each on its own block.
void singleThreadedBlas()
{
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
}

blasint blasSize(qint64 n)
{
    return static_cast<blasint>(n);
}

} // namespace

MatrixView view(const RowMatrix &m)
{
    return {m.data(), m.rows(), m.cols(), m.cols()};
}

MatrixView columns(const RowMatrix &m, qint64 first, qint64 count)
{
    return {m.data() + first, m.rows(), count, m.cols()};
}

void productTransposedHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride)
{
    singleThreadedBlas();
    if (a.rows == 0 || b.rows == 0)
        return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blasSize(a.rows), blasSize(b.rows),
                blasSize(a.cols), 1.0f, a.data, blasSize(a.stride), b.data, blasSize(b.stride),
                0.0f, out, blasSize(outStride));
}

void productHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride)
{
    singleThreadedBlas();
    if (a.rows == 0 || b.cols == 0)
        return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasSize(a.rows), blasSize(b.cols),
                blasSize(a.cols), 1.0f, a.data, blasSize(a.stride), b.data, blasSize(b.stride),
                0.0f, out, blasSize(outStride));
}

namespace {

// body(first, count) for the output columns [0, total) in blocks of columnBlock(total).
void overColumnBlocks(qint64 total, int threads, const std::function<void(qint64, qint64)> &body)
{
    const qint64 width = columnBlock(total);
    const qint64 blocks = (total + width - 1) / width;
    parallelFor(0, blocks, threads, 1, [&](qint64 lo, qint64 hi) {
        for (qint64 b = lo; b < hi; ++b)
            body(b * width, std::min(width, total - b * width));
    });
}

} // namespace

void productTransposed(const MatrixView &a, const MatrixView &w, int threads, float *out,
                       qint64 outStride)
{
    overColumnBlocks(w.rows, threads, [&](qint64 first, qint64 count) {
        productTransposedHere(a, {w.data + first * w.stride, count, w.cols, w.stride},
                              out + first, outStride);
    });
}

void product(const MatrixView &a, const MatrixView &w, int threads, float *out, qint64 outStride)
{
    overColumnBlocks(w.cols, threads, [&](qint64 first, qint64 count) {
        productHere(a, {w.data + first, w.rows, count, w.stride}, out + first, outStride);
    });
}

void linearProduct(const RowMatrix &x, const Projection &p, int threads, RowMatrix *y)
{
    if (p.inputMajor) {
        y->resize(x.rows(), p.weight.cols());
        product(view(x), view(p.weight), threads, y->data(), y->cols());
    } else {
        y->resize(x.rows(), p.weight.rows());
        productTransposed(view(x), view(p.weight), threads, y->data(), y->cols());
    }
    if (p.bias.size() > 0)
        y->rowwise() += p.bias.transpose();
}

} // namespace pe
