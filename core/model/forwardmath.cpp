#include "model/forwardmath.h"

#include "backends/parallel.h"

#include <cblas.h>

#include <algorithm>
#include <functional>
#include <mutex>

namespace pe {

namespace {

// Blocks of the output: functions of the product's shape only, never of the thread count, so
// that results do not depend on it. About 16 blocks, so that up to 16 threads have work; rows
// (tokens) split too once there are many, because each block packs its share of both matrices
// again (256 x 256 blocks repack each input value 1/256 as often as they use it).
qint64 rowBlock(qint64 rows)
{
    return rows >= 512 ? 256 : std::max<qint64>(rows, 1);
}

qint64 columnBlock(qint64 rows, qint64 columns)
{
    const qint64 rowBlocks = (rows + rowBlock(rows) - 1) / rowBlock(rows);
    const qint64 share = (columns * rowBlocks + 15) / 16;
    return std::max<qint64>(128, (share + 63) / 64 * 64);
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

// body(firstRow, rowCount, firstColumn, columnCount) for each block of a rows x columns output.
void overBlocks(qint64 rows, qint64 columns, int threads,
                const std::function<void(qint64, qint64, qint64, qint64)> &body)
{
    const qint64 height = rowBlock(rows), width = columnBlock(rows, columns);
    const qint64 down = (rows + height - 1) / height, across = (columns + width - 1) / width;
    parallelFor(0, down * across, threads, 1, [&](qint64 lo, qint64 hi) {
        for (qint64 b = lo; b < hi; ++b) {
            const qint64 r = (b / across) * height, c = (b % across) * width;
            body(r, std::min(height, rows - r), c, std::min(width, columns - c));
        }
    });
}

} // namespace

void productTransposed(const MatrixView &a, const MatrixView &w, int threads, float *out,
                       qint64 outStride)
{
    overBlocks(a.rows, w.rows, threads, [&](qint64 r, qint64 rows, qint64 c, qint64 cols) {
        productTransposedHere({a.data + r * a.stride, rows, a.cols, a.stride},
                              {w.data + c * w.stride, cols, w.cols, w.stride},
                              out + r * outStride + c, outStride);
    });
}

void product(const MatrixView &a, const MatrixView &w, int threads, float *out, qint64 outStride)
{
    overBlocks(a.rows, w.cols, threads, [&](qint64 r, qint64 rows, qint64 c, qint64 cols) {
        productHere({a.data + r * a.stride, rows, a.cols, a.stride},
                    {w.data + c, w.rows, cols, w.stride}, out + r * outStride + c, outStride);
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
