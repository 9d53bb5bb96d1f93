#include "model/forwardmath.h"
#include "model/torchmath.h"

#include "backends/parallel.h"

#include <Eigen/Core>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

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

// Which products. Default: the ordered kernel (the reference BLAS's order, about half
// OpenBLAS's speed: separate multiplies and adds) for each head's scores and weighted values and
// for the projections of small models, OpenBLAS for a projection whose weight matrix holds more
// than orderedWeightLimit values (2^18: GPT-2 small's 768 x 768 and up), where its speed matters
// and, with weights of ordinary scale, its rounding does not show; PE_FORWARD_BLAS=reference,
// openblas or eigen: that one for every product.
enum class Products { Default, Ordered, OpenBlas, Eigen };

Products products()
{
    static const Products chosen = [] {
        const QString name = qEnvironmentVariable("PE_FORWARD_BLAS");
        if (name == QLatin1String("reference"))
            return Products::Ordered;
        if (name == QLatin1String("openblas"))
            return Products::OpenBlas;
        if (name == QLatin1String("eigen"))
            return Products::Eigen;
        return Products::Default;
    }();
    return chosen;
}

constexpr qint64 orderedWeightLimit = qint64(1) << 18;
// A head's product runs ordered up to this many multiply-adds (128 tokens of 128 dims: 2^21).
// Above it, OpenBLAS: the ordered kernel runs at about half its speed, and at 1,024 tokens the
// heads' products of a Qwen3-0.6B-shaped model (16 heads of 128, 28 layers) made the pass slower
// than PyTorch's (docs/performance.md).
constexpr qint64 orderedHeadWorkLimit = qint64(1) << 22;

// Whether a product with `weightValues` values in its right-hand matrix runs ordered.
bool ordered(qint64 weightValues)
{
    const Products p = products();
    return p == Products::Ordered || (p == Products::Default && weightValues <= orderedWeightLimit);
}

// Whether one head's product of `work` multiply-adds runs ordered.
bool orderedHead(qint64 work)
{
    const Products p = products();
    return p == Products::Ordered || (p == Products::Default && work <= orderedHeadWorkLimit);
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
        // Not opened when every product runs ordered or on Eigen (products()).
        if (products() == Products::Ordered || products() == Products::Eigen)
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

#define PE_ORDERED_NS orderedBase
#define PE_ORDERED_TARGET [[gnu::flatten]]
#define PE_ORDERED_BYTES 16
#include "model/orderedproduct.inc"
#undef PE_ORDERED_NS
#undef PE_ORDERED_TARGET
#undef PE_ORDERED_BYTES

#if defined(__x86_64__) && defined(__GNUC__)
#define PE_ORDERED_NS kernels::avx2 // the namespace tst_cpukernels allows AVX in
#define PE_ORDERED_TARGET [[gnu::flatten, gnu::target("avx2")]]
#define PE_ORDERED_BYTES 32
#include "model/orderedproduct.inc"
#undef PE_ORDERED_NS
#undef PE_ORDERED_TARGET
#undef PE_ORDERED_BYTES

#define PE_ORDERED_NS kernels::avx512
#if defined(__clang__)
#define PE_ORDERED_TARGET [[gnu::flatten, gnu::target("avx512f"), clang::min_vector_width(512)]]
#else
#define PE_ORDERED_TARGET [[gnu::flatten, gnu::target("avx512f,prefer-vector-width=512")]]
#endif
#define PE_ORDERED_BYTES 64
#include "model/orderedproduct.inc"
#undef PE_ORDERED_NS
#undef PE_ORDERED_TARGET
#undef PE_ORDERED_BYTES
#define PE_HAVE_ORDERED_X86 1
#endif

namespace {

using Ordered = void (*)(const float *, qint64, const float *, qint64, const float *, float *,
                         qint64, qint64, qint64, qint64);

// The widest copy this CPU runs (forwardIsa(), which PE_FORWARD_ISA caps for the tests of the
// narrower copies); every copy gives the same bits (orderedproduct.inc).
Ordered orderedKernel()
{
#ifdef PE_HAVE_ORDERED_X86
    switch (forwardIsa()) {
    case ForwardIsa::Avx512:
        return kernels::avx512::orderedProduct;
    case ForwardIsa::Avx2:
        return kernels::avx2::orderedProduct;
    case ForwardIsa::Base:
        break;
    }
#endif
    return orderedBase::orderedProduct;
}

// b's rows (n x k) as a k x n row-major copy, for the ordered kernel's columns.
const float *transposedCopy(const MatrixView &b)
{
    thread_local std::vector<float> copy;
    copy.resize(std::size_t(b.rows * b.cols));
    for (qint64 r = 0; r < b.rows; ++r)
        for (qint64 p = 0; p < b.cols; ++p)
            copy[std::size_t(p * b.rows + r)] = b.data[r * b.stride + p];
    return copy.data();
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

namespace {

// out = init + a @ b^T (init: a row added first, or null), on the calling thread; `inOrder`: on
// the ordered kernel (ordered(), orderedHead()).
void transposedBlock(const MatrixView &a, const MatrixView &b, const float *init, float *out,
                     qint64 outStride, bool inOrder)
{
    if (a.rows == 0 || b.rows == 0)
        return;
    if (inOrder) {
        orderedKernel()(a.data, a.stride, transposedCopy(b), b.rows, init, out, outStride, a.rows,
                        b.rows, a.cols);
        return;
    }
    if (const Sgemm sgemm = openBlasSgemm()) {
        sgemm(blasRowMajor, blasNoTrans, blasTrans, blasSize(a.rows), blasSize(b.rows),
              blasSize(a.cols), 1.0f, a.data, blasSize(a.stride), b.data, blasSize(b.stride), 0.0f,
              out, blasSize(outStride));
    } else {
        Rows(out, a.rows, b.rows, Eigen::OuterStride<>(outStride)).noalias() =
            rowsOf(a) * rowsOf(b).transpose();
    }
    if (init)
        for (qint64 i = 0; i < a.rows; ++i)
            for (qint64 j = 0; j < b.rows; ++j)
                out[i * outStride + j] += init[j];
}

// out = init + a @ b on the calling thread.
void plainBlock(const MatrixView &a, const MatrixView &b, const float *init, float *out,
                qint64 outStride, bool inOrder)
{
    if (a.rows == 0 || b.cols == 0)
        return;
    if (inOrder) {
        orderedKernel()(a.data, a.stride, b.data, b.stride, init, out, outStride, a.rows, b.cols,
                        a.cols);
        return;
    }
    if (const Sgemm sgemm = openBlasSgemm()) {
        sgemm(blasRowMajor, blasNoTrans, blasNoTrans, blasSize(a.rows), blasSize(b.cols),
              blasSize(a.cols), 1.0f, a.data, blasSize(a.stride), b.data, blasSize(b.stride), 0.0f,
              out, blasSize(outStride));
    } else {
        Rows(out, a.rows, b.cols, Eigen::OuterStride<>(outStride)).noalias() =
            rowsOf(a) * rowsOf(b);
    }
    if (init)
        for (qint64 i = 0; i < a.rows; ++i)
            for (qint64 j = 0; j < b.cols; ++j)
                out[i * outStride + j] += init[j];
}

} // namespace

void productTransposedHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride)
{
    transposedBlock(a, b, nullptr, out, outStride, orderedHead(a.rows * b.rows * a.cols));
}

void productHere(const MatrixView &a, const MatrixView &b, float *out, qint64 outStride)
{
    plainBlock(a, b, nullptr, out, outStride, orderedHead(a.rows * b.cols * a.cols));
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
        transposedBlock({a.data + r * a.stride, rows, a.cols, a.stride},
                        {w.data + c * w.stride, cols, w.cols, w.stride}, nullptr,
                        out + r * outStride + c, outStride, ordered(w.rows * w.cols));
    });
}

namespace {

// a @ w (+ init first when not null), the same blocks.
void productFrom(const MatrixView &a, const MatrixView &w, const float *init, int threads,
                 float *out, qint64 outStride)
{
    overBlocks(a.rows, w.cols, threads, [&](qint64 r, qint64 rows, qint64 c, qint64 cols) {
        plainBlock({a.data + r * a.stride, rows, a.cols, a.stride},
                   {w.data + c, w.rows, cols, w.stride}, init ? init + c : nullptr,
                   out + r * outStride + c, outStride, ordered(w.rows * w.cols));
    });
}

} // namespace

void product(const MatrixView &a, const MatrixView &w, int threads, float *out, qint64 outStride)
{
    productFrom(a, w, nullptr, threads, out, outStride);
}

void linearProduct(const RowMatrix &x, const Projection &p, int threads, RowMatrix *y)
{
    const bool biased = p.bias.size() > 0;
    if (p.inputMajor) {
        // Conv1D: torch.addmm(bias, x, W) with W stored in x out reaches sgemm untransposed,
        // where the reference BLAS starts each sum from the bias (C := C + A B).
        y->resize(x.rows(), p.weight.cols());
        productFrom(view(x), view(p.weight), biased ? p.bias.data() : nullptr, threads, y->data(),
                    y->cols());
        return;
    }
    // nn.Linear: addmm(bias, x, W^T) reaches sgemm with W transposed, where the reference BLAS
    // sums the products first and adds the bias last (C := A^T B + C).
    y->resize(x.rows(), p.weight.rows());
    productTransposed(view(x), view(p.weight), threads, y->data(), y->cols());
    if (biased)
        y->rowwise() += p.bias.transpose();
}

} // namespace pe
