#include "model/torchmath.h"

#include <QByteArray>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>

namespace pe {

#define PE_TORCH_NS torchmath::base
#define PE_TORCH_TARGET [[gnu::flatten]]
#define PE_TORCH_BYTES 16
#include "model/torchrows.inc"
#undef PE_TORCH_NS
#undef PE_TORCH_TARGET
#undef PE_TORCH_BYTES

#if defined(__x86_64__) && defined(__GNUC__)
#define PE_TORCH_NS kernels::avx2 // the namespace tst_cpukernels allows AVX in
#define PE_TORCH_TARGET [[gnu::flatten, gnu::target("avx2")]]
#define PE_TORCH_BYTES 32
#include "model/torchrows.inc"
#undef PE_TORCH_NS
#undef PE_TORCH_TARGET
#undef PE_TORCH_BYTES

#define PE_TORCH_NS kernels::avx512
#if defined(__clang__)
#define PE_TORCH_TARGET [[gnu::flatten, gnu::target("avx512f"), clang::min_vector_width(512)]]
#else
#define PE_TORCH_TARGET [[gnu::flatten, gnu::target("avx512f,prefer-vector-width=512")]]
#endif
#define PE_TORCH_BYTES 64
#include "model/torchrows.inc"
#undef PE_TORCH_NS
#undef PE_TORCH_TARGET
#undef PE_TORCH_BYTES
#define PE_HAVE_TORCH_X86 1
#endif

ForwardIsa forwardIsa()
{
    static const ForwardIsa isa = [] {
#if defined(__x86_64__) && defined(__GNUC__)
        const QByteArray cap = qgetenv("PE_FORWARD_ISA");
        __builtin_cpu_init();
        if ((cap.isEmpty() || cap == "avx512") && __builtin_cpu_supports("avx512f"))
            return ForwardIsa::Avx512;
        if (cap != "sse2" && __builtin_cpu_supports("avx2"))
            return ForwardIsa::Avx2;
#endif
        return ForwardIsa::Base;
    }();
    return isa;
}

namespace torchmath {

namespace {

// fmaf as SLEEF's AVX2 build computes it (one rounding): exact in double for float inputs up to
// the final rounding, without needing FMA instructions on baseline x86-64.
float fused(float a, float b, float c)
{
    return float(double(a) * double(b) + double(c));
}

float twoTo(int e)
{
    return std::ldexp(1.0f, e);
}

constexpr int lanes = 8; // Vectorized<float>::size() on AVX2
constexpr int ilp = 4;   // row_sum's ilp_factor
constexpr int levels = 4;

// multi_row_sum + row_sum (ATen/native/cpu/SumKernel.cpp) over `count` vectors of W lanes.
template <int W> std::array<float, W> rowSum(const float *x, qint64 count)
{
    const qint64 size = count / ilp;
    const int ceilLog2 = size <= 2 ? 1 : int(std::bit_width(std::uint64_t(size - 1)));
    const int power = std::max(4, ceilLog2 / levels);
    const qint64 step = qint64(1) << power, mask = step - 1;
    std::array<std::array<std::array<float, W>, ilp>, levels> acc{};
    const auto addRow = [&](qint64 row) {
        for (int k = 0; k < ilp; ++k)
            for (int l = 0; l < W; ++l)
                acc[0][k][l] = acc[0][k][l] + x[(row * ilp + k) * W + l];
    };
    qint64 i = 0;
    while (i + step <= size) {
        for (qint64 j = 0; j < step; ++j, ++i)
            addRow(i);
        for (int j = 1; j < levels; ++j) {
            for (int k = 0; k < ilp; ++k)
                for (int l = 0; l < W; ++l) {
                    acc[j][k][l] = acc[j][k][l] + acc[j - 1][k][l];
                    acc[j - 1][k][l] = 0.0f;
                }
            if ((i & (mask << (j * power))) != 0)
                break;
        }
    }
    for (; i < size; ++i)
        addRow(i);
    for (int j = 1; j < levels; ++j)
        for (int k = 0; k < ilp; ++k)
            for (int l = 0; l < W; ++l)
                acc[0][k][l] = acc[0][k][l] + acc[j][k][l];
    std::array<float, W> out = acc[0][0];
    for (qint64 r = size * ilp; r < count; ++r)
        for (int l = 0; l < W; ++l)
            out[l] = out[l] + x[r * W + l];
    for (int k = 1; k < ilp; ++k)
        for (int l = 0; l < W; ++l)
            out[l] = out[l] + acc[0][k][l];
    return out;
}

// vec_reduce_all's AVX2 fold: 128-bit halves, then 64-bit, then neighbours.
float fold(std::array<float, lanes> v)
{
    for (const int distance : {4, 2, 1}) {
        std::array<float, lanes> next{};
        for (int l = 0; l < lanes; ++l)
            next[std::size_t(l)] = v[std::size_t(l)] + v[std::size_t(l ^ distance)];
        v = next;
    }
    return v[0];
}

// vec::reduce_all with +: one 8-lane accumulator over the row, a short tail into its first
// lanes, then the fold; fewer than 8 values are added in order.
float reduceSum(const float *x, qint64 n)
{
    if (n < lanes) {
        float s = n > 0 ? x[0] : 0.0f;
        for (qint64 i = 1; i < n; ++i)
            s = s + x[i];
        return s;
    }
    std::array<float, lanes> acc{};
    std::copy(x, x + lanes, acc.begin());
    qint64 d = lanes;
    for (; d < n - n % lanes; d += lanes)
        for (int l = 0; l < lanes; ++l)
            acc[std::size_t(l)] = acc[std::size_t(l)] + x[d + l];
    for (qint64 l = 0; l < n - d; ++l)
        acc[std::size_t(l)] = acc[std::size_t(l)] + x[d + l];
    return fold(acc);
}

} // namespace

float exp(float d)
{
    if (std::isnan(d))
        return d;
    if (d < -104.0f)
        return 0.0f;
    if (d > 100.0f) // SLEEF's limit: beyond it the integer steps below would overflow
        return std::numeric_limits<float>::infinity();
    const auto q =
        int(std::nearbyint(d * 1.442695040888963407359924681001892137426645954152985934f));
    const auto qf = float(q);
    float s = fused(qf, -0.693145751953125f, d);
    s = fused(qf, -1.428606765330187045e-06f, s);
    float u = 0.000198527617612853646278381f;
    u = fused(u, s, 0.00139304355252534151077271f);
    u = fused(u, s, 0.00833336077630519866943359f);
    u = fused(u, s, 0.0416664853692054748535156f);
    u = fused(u, s, 0.166666671633720397949219f);
    u = fused(u, s, 0.5f);
    u = 1.0f + fused(s * s, u, s);
    const int half = q >> 1;
    u = u * twoTo(half);
    return u * twoTo(q - half);
}

float sum(const float *x, qint64 n)
{
    if (n < lanes) // scalar_inner_sum: the same cascade over single values
        return rowSum<1>(x, n)[0];
    const qint64 vectors = n / lanes;
    const std::array<float, lanes> partial = rowSum<lanes>(x, vectors);
    float total = 0.0f;
    for (qint64 k = vectors * lanes; k < n; ++k)
        total = total + x[k];
    for (const float p : partial)
        total = total + p;
    return total;
}

namespace {

struct RowKernels
{
    bool (*softmax)(float *, qint64);
    void (*silu)(float *, qint64);
    void (*tanh)(float *, qint64);
    void (*geluTanh)(float *, qint64, float);
};

#define PE_ROW_KERNELS(ns)                                                                         \
    {                                                                                              \
        ns::torchSoftmaxRow, ns::torchSilu, ns::torchTanh, ns::torchGeluTanh                       \
    }

const RowKernels &rowKernels()
{
    static const RowKernels kernels = []() -> RowKernels {
#ifdef PE_HAVE_TORCH_X86
        switch (forwardIsa()) {
        case ForwardIsa::Avx512:
            return PE_ROW_KERNELS(kernels::avx512);
        case ForwardIsa::Avx2:
            return PE_ROW_KERNELS(kernels::avx2);
        case ForwardIsa::Base:
            break;
        }
#endif
        return PE_ROW_KERNELS(base);
    }();
    return kernels;
}

} // namespace

void scalarSoftmax(float *row, qint64 n)
{
    if (n <= 0)
        return;
    const float maximum = *std::max_element(row, row + n);
    for (qint64 j = 0; j < n; ++j)
        row[j] = std::isinf(row[j]) && row[j] < 0 ? 0.0f : exp(row[j] - maximum);
    const float inverse = 1.0f / reduceSum(row, n);
    for (qint64 j = 0; j < n; ++j)
        row[j] = row[j] * inverse;
}

void softmax(float *row, qint64 n)
{
    if (!rowKernels().softmax(row, n))
        scalarSoftmax(row, n);
}

void silu(float *x, qint64 n)
{
    rowKernels().silu(x, n);
}

void tanh(float *x, qint64 n)
{
    rowKernels().tanh(x, n);
}

void geluTanh(float *x, qint64 n)
{
    rowKernels().geluTanh(x, n, float(std::sqrt(2.0 / std::numbers::pi)));
}

} // namespace torchmath
} // namespace pe
