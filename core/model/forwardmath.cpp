#include "model/forwardmath.h"

#include "backends/parallel.h"

#include <Eigen/Core>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <functional>

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

// OpenBLAS is opened on the first product, not linked. Its Debian build (libopenblas0-pthread)
// starts a pool of threads as it loads, one per core, each taking a buffer: every pescope process
// would carry them, and one whose buffer could not be had under a memory limit spins until exit,
// where the process then waits for it forever (pescope tokens under RLIMIT_DATA hung so).
// OPENBLAS_NUM_THREADS=1, set before it loads, starts no pool: pescope's own threads call it, each
// on its own block. Without OpenBLAS the products run on Eigen (the same results within float32
// rounding, slower: pe_core is built for baseline x86-64).
enum BlasOrder { blasRowMajor = 101 };
enum BlasTranspose { blasNoTrans = 111, blasTrans = 112 };
using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                       float, float *, int);

Sgemm openBlasSgemm()
{
    static const Sgemm sgemm = []() -> Sgemm {
        // Called first from the thread that hands out the blocks (overBlocks), before its
        // workers start; a static's initialisation runs once.
        // PE_FORWARD_BLAS=eigen: Eigen's products, as without OpenBLAS (the test of that path).
        if (qEnvironmentVariable("PE_FORWARD_BLAS") == QLatin1String("eigen"))
            return nullptr;
        setenv("OPENBLAS_NUM_THREADS", "1", 0); // NOLINT(concurrency-mt-unsafe): see above
        void *library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!library)
            return nullptr;
        // Loaded before us (by NumPy in the Python module): its pool exists; keep it idle.
        if (auto setThreads =
                reinterpret_cast<void (*)(int)>(dlsym(library, "openblas_set_num_threads")))
            setThreads(1);
        return reinterpret_cast<Sgemm>(dlsym(library, "cblas_sgemm"));
    }();
    return sgemm;
}

int blasSize(qint64 n)
{
    return static_cast<int>(n);
}

using ConstRows =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
               Eigen::OuterStride<>>;
using Rows = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
                        Eigen::OuterStride<>>;

ConstRows rowsOf(const MatrixView &m)
{
    return {m.data, m.rows, m.cols, Eigen::OuterStride<>(m.stride)};
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
    if (a.rows == 0 || b.rows == 0)
        return;
    if (const Sgemm sgemm = openBlasSgemm()) {
        sgemm(blasRowMajor, blasNoTrans, blasTrans, blasSize(a.rows), blasSize(b.rows),
              blasSize(a.cols), 1.0f, a.data, blasSize(a.stride), b.data, blasSize(b.stride), 0.0f,
              out, blasSize(outStride));
        return;
    }
    Rows(out, a.rows, b.rows, Eigen::OuterStride<>(outStride)).noalias() =
        rowsOf(a) * rowsOf(b).transpose();
}

void productHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride)
{
    if (a.rows == 0 || b.cols == 0)
        return;
    if (const Sgemm sgemm = openBlasSgemm()) {
        sgemm(blasRowMajor, blasNoTrans, blasNoTrans, blasSize(a.rows), blasSize(b.cols),
              blasSize(a.cols), 1.0f, a.data, blasSize(a.stride), b.data, blasSize(b.stride), 0.0f,
              out, blasSize(outStride));
        return;
    }
    Rows(out, a.rows, b.cols, Eigen::OuterStride<>(outStride)).noalias() = rowsOf(a) * rowsOf(b);
}

namespace {

// body(firstRow, rowCount, firstColumn, columnCount) for each block of a rows x columns output.
void overBlocks(qint64 rows, qint64 columns, int threads,
                const std::function<void(qint64, qint64, qint64, qint64)> &body)
{
    openBlasSgemm(); // loaded here, before the workers start (see openBlasSgemm)
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
