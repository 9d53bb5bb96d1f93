// pe forwardmath: the forward pass's matrix products, cut into blocks of rows and columns.
// Known answers: the same products summed in float64 here; strided views (a head's columns), an
// output with a wider row stride, Conv1D's in x out layout; results bit for bit the same on any
// thread count; and on the default path, every value bit for bit the reference BLAS's sum
// (netlib sgemm's order, which the shared transformers references were computed with). Also
// torchmath: torch 1.13's exp, sum and softmax, against values torch 1.13 itself printed.
#include "model/forwardmath.h"
#include "model/torchmath.h"

#include <QTest>

#include <Eigen/Dense>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>

using namespace pe;

namespace {

RowMatrix randomMatrix(qint64 rows, qint64 cols, unsigned seed)
{
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    RowMatrix m(rows, cols);
    for (qint64 i = 0; i < m.size(); ++i)
        m.data()[i] = normal(generator);
    return m;
}

// The largest |ours - a @ b| over the largest |a @ b|, the product summed in float64.
double relativeError(const float *ours, qint64 outStride, const MatrixView &a,
                     const Eigen::MatrixXd &b)
{
    double worst = 0, scale = 0;
    for (qint64 i = 0; i < a.rows; ++i)
        for (qint64 j = 0; j < b.cols(); ++j) {
            double sum = 0;
            for (qint64 k = 0; k < a.cols; ++k)
                sum += double(a.data[i * a.stride + k]) * b(k, j);
            scale = std::max(scale, std::abs(sum));
            worst = std::max(worst, std::abs(double(ours[i * outStride + j]) - sum));
        }
    return worst / scale;
}

// Whether this run's products are the ordered kernel's: PE_FORWARD_BLAS=reference, or the
// default, which takes it for every product here (each weight matrix at most 2^18 values).
bool orderedPath()
{
    const QString blas = qEnvironmentVariable("PE_FORWARD_BLAS");
    return blas.isEmpty() || blas == QLatin1String("reference");
}

// init + a(i, 0) b(0, j) + a(i, 1) b(1, j) + ... in that order, each product and each sum
// rounded to float32: the products and sums are taken in float64 (exact for a product of two
// floats) and rounded explicitly, so no compiler can fuse them.
float referenceSum(const float *a, const float *b, qint64 bStride, qint64 k, float init)
{
    float acc = init;
    for (qint64 p = 0; p < k; ++p) {
        const auto product = float(double(a[p]) * double(b[p * bStride]));
        acc = float(double(acc) + double(product));
    }
    return acc;
}

std::vector<float> fromBits(std::initializer_list<std::uint32_t> bits)
{
    std::vector<float> out;
    for (const std::uint32_t b : bits)
        out.push_back(std::bit_cast<float>(b));
    return out;
}

} // namespace

class TestForwardMath : public QObject
{
    Q_OBJECT

private slots:
    void productsAgainstFloat64();
    void sameOnAnyThreadCount();
    void linearBothLayouts();
    void referenceBlasOrder_data();
    void referenceBlasOrder();
    void biasWhereTorchAddsIt();
    void torchExp();
    void torchSum();
    void torchSoftmax();
    void vectorRowsGiveTheScalarBits();
    void expLimits();
    void tanhIsCorrectlyRounded();
};

// 600 rows (split into row blocks) x 1,000 columns (column blocks, a short last one), the left
// matrix a strided view of a wider one, the output written with a row stride of 1,003 and
// nothing written between rows.
void TestForwardMath::productsAgainstFloat64()
{
    const RowMatrix wide = randomMatrix(600, 90, 1);
    const MatrixView a = columns(wide, 10, 70);
    const RowMatrix w = randomMatrix(1000, 70, 2); // out x in
    const qint64 stride = 1003;
    std::vector<float> out(std::size_t(600 * stride), 7.0f);
    productTransposed(a, view(w), 2, out.data(), stride);
    const Eigen::MatrixXd wt = w.cast<double>().transpose();
    QVERIFY(relativeError(out.data(), stride, a, wt) <= 1e-6);
    for (qint64 i = 0; i < 600; ++i)
        for (qint64 j = 1000; j < stride; ++j)
            QCOMPARE(out[std::size_t(i * stride + j)], 7.0f);

    const RowMatrix v = randomMatrix(70, 1000, 3); // in x out (Conv1D)
    product(a, view(v), 3, out.data(), stride);
    QVERIFY(relativeError(out.data(), stride, a, v.cast<double>()) <= 1e-6);

    // One head's scores and context on the calling thread: q_h @ k_h^T, then p @ v_h.
    const RowMatrix qk = randomMatrix(33, 64, 4);
    RowMatrix scores(33, 33);
    productTransposedHere(columns(qk, 0, 32), columns(qk, 32, 32), scores.data(), 33);
    const Eigen::MatrixXd k = qk.rightCols(32).cast<double>().transpose();
    QVERIFY(relativeError(scores.data(), 33, columns(qk, 0, 32), k) <= 1e-6);
    RowMatrix context(33, 16);
    productHere(view(scores), columns(qk, 8, 16), context.data(), 16);
    QVERIFY(relativeError(context.data(), 16, view(scores), qk.middleCols(8, 16).cast<double>()) <=
            1e-6);
}

void TestForwardMath::sameOnAnyThreadCount()
{
    const RowMatrix a = randomMatrix(1030, 64, 5);
    const RowMatrix w = randomMatrix(2500, 64, 6);
    RowMatrix one(1030, 2500), more(1030, 2500);
    productTransposed(view(a), view(w), 1, one.data(), 2500);
    for (const int threads : {2, 3, 7, 16}) {
        more.setZero();
        productTransposed(view(a), view(w), threads, more.data(), 2500);
        QVERIFY2(more == one, qPrintable(QString::number(threads)));
    }
}

// nn.Linear (out x in) and Conv1D (in x out, inputMajor) of the same map, with a bias.
void TestForwardMath::linearBothLayouts()
{
    const RowMatrix x = randomMatrix(130, 48, 7);
    Projection linear;
    linear.weight = randomMatrix(300, 48, 8);
    linear.bias = Eigen::VectorXf::LinSpaced(300, -1.0f, 1.0f);
    Projection conv = linear;
    conv.weight = linear.weight.transpose();
    conv.inputMajor = true;
    RowMatrix y1, y2;
    linearProduct(x, linear, 2, &y1);
    linearProduct(x, conv, 2, &y2);
    QCOMPARE(y1.rows(), qint64(130));
    QCOMPARE(y1.cols(), qint64(300));
    QCOMPARE(y2.cols(), qint64(300));
    const Eigen::MatrixXd expected =
        (x.cast<double>() * linear.weight.cast<double>().transpose()).rowwise() +
        linear.bias.cast<double>().transpose();
    const double scale = expected.cwiseAbs().maxCoeff();
    QVERIFY((y1.cast<double>() - expected).cwiseAbs().maxCoeff() <= 1e-6 * scale);
    QVERIFY((y2.cast<double>() - expected).cwiseAbs().maxCoeff() <= 1e-6 * scale);
}

void TestForwardMath::referenceBlasOrder_data()
{
    QTest::addColumn<qint64>("rows");
    QTest::addColumn<qint64>("inner");
    QTest::addColumn<qint64>("cols");
    QTest::newRow("one head's scores (tails in rows and columns)") << 19LL << 16LL << 19LL;
    QTest::newRow("a projection (row and column blocks)") << 530LL << 64LL << 300LL;
    QTest::newRow("a long sum") << 9LL << 3072LL << 70LL;
}

// Every value the reference BLAS's sum, bit for bit, for both layouts and for one head's
// products on the calling thread, whatever instruction set the kernel picked
// (PE_FORWARD_ISA: the ctest entries forwardmath_sse2 / _avx2 run the narrower copies).
void TestForwardMath::referenceBlasOrder()
{
    if (!orderedPath())
        QSKIP("PE_FORWARD_BLAS chooses another library's products");
    QFETCH(qint64, rows);
    QFETCH(qint64, inner);
    QFETCH(qint64, cols);
    const RowMatrix a = randomMatrix(rows, inner, 11);
    const RowMatrix w = randomMatrix(cols, inner, 12); // out x in
    const RowMatrix wt = w.transpose();                // in x out
    RowMatrix byRows(rows, cols), byColumns(rows, cols), here(rows, cols);
    productTransposed(view(a), view(w), 3, byRows.data(), cols);
    product(view(a), view(wt), 2, byColumns.data(), cols);
    productTransposedHere(view(a), view(w), here.data(), cols);
    // A head's product runs ordered up to 2^22 multiply-adds (forwardmath.cpp), OpenBLAS above.
    const bool hereOrdered = rows * cols * inner <= (qint64(1) << 22);
    for (qint64 i = 0; i < rows; ++i)
        for (qint64 j = 0; j < cols; ++j) {
            const float expected = referenceSum(a.row(i).data(), wt.data() + j, cols, inner, 0.0f);
            QCOMPARE(std::bit_cast<std::uint32_t>(byRows(i, j)),
                     std::bit_cast<std::uint32_t>(expected));
            QCOMPARE(std::bit_cast<std::uint32_t>(byColumns(i, j)),
                     std::bit_cast<std::uint32_t>(expected));
            if (hereOrdered)
                QCOMPARE(std::bit_cast<std::uint32_t>(here(i, j)),
                         std::bit_cast<std::uint32_t>(expected));
            else
                QVERIFY(std::abs(double(here(i, j)) - double(expected)) <=
                        1e-5 * (1.0 + std::abs(double(expected))));
        }
}

// torch.addmm(bias, x, W) with Conv1D's in x out W reaches sgemm untransposed: the reference
// BLAS starts each sum from the bias. nn.Linear's W^T reaches it transposed: the bias comes last.
void TestForwardMath::biasWhereTorchAddsIt()
{
    if (!orderedPath())
        QSKIP("PE_FORWARD_BLAS chooses another library's products");
    const RowMatrix x = randomMatrix(37, 40, 13);
    Projection linear;
    linear.weight = randomMatrix(45, 40, 14);
    linear.bias = Eigen::VectorXf::LinSpaced(45, -3.0f, 3.0f);
    Projection conv = linear;
    conv.weight = linear.weight.transpose();
    conv.inputMajor = true;
    RowMatrix y1, y2;
    linearProduct(x, linear, 2, &y1);
    linearProduct(x, conv, 2, &y2);
    const float *wt = conv.weight.data();
    qint64 differ = 0;
    for (qint64 i = 0; i < 37; ++i)
        for (qint64 j = 0; j < 45; ++j) {
            const float sum = referenceSum(x.row(i).data(), wt + j, 45, 40, 0.0f);
            const auto last = float(double(sum) + double(linear.bias[j]));
            const float first = referenceSum(x.row(i).data(), wt + j, 45, 40, linear.bias[j]);
            QCOMPARE(std::bit_cast<std::uint32_t>(y1(i, j)), std::bit_cast<std::uint32_t>(last));
            QCOMPARE(std::bit_cast<std::uint32_t>(y2(i, j)), std::bit_cast<std::uint32_t>(first));
            differ += last != first ? 1 : 0;
        }
    QVERIFY(differ > 0); // the two orders are told apart by these values
}

// Vectorized<float>::exp (SLEEF's expf, 1 ulp): torch 1.13 (Debian's python3-torch) printed
// these bits for these inputs; 7 of the 64 differ from the correctly rounded exp.
void TestForwardMath::torchExp()
{
    const std::vector<float> in = fromBits(
        {0xc1fb4bc7u, 0xc1f45726u, 0xc1ee00f7u, 0xc1e855feu, 0xc1e2c597u, 0xc1dca6b1u, 0xc1d5d33cu,
         0xc1cecb2au, 0xc1c83ecdu, 0xc1c26cb9u, 0xc1bce83fu, 0xc1b6fd56u, 0xc1b05622u, 0xc1a949e6u,
         0xc1a28cc7u, 0xc19c8a2eu, 0xc1970207u, 0xc19143aau, 0xc18ad047u, 0xc183cf7du, 0xc179d5d5u,
         0xc16d647eu, 0xc1622e39u, 0xc156f49fu, 0xc14a7c58u, 0xc13caf0bu, 0xc12eafe6u, 0xc121cfecu,
         0xc116581au, 0xc10b464du, 0xc0fe752cu, 0xc0e37596u, 0xc0c745b1u, 0xc0acb51eu, 0xc09515a4u,
         0xc07e094fu, 0xc04f625au, 0xc01ae570u, 0xbfc53e48u, 0xbf305d17u, 0x3d989964u, 0x3f44f9dfu,
         0x3fbd4e2au, 0x40117449u, 0x4049266cu, 0x40805ef3u, 0x4099a9d0u, 0x40b04d79u, 0x40c69411u,
         0x40df1d49u, 0x40fa74d7u, 0x410b4901u, 0x41185b30u, 0x4123f9d3u, 0x412f035du, 0x413adf55u,
         0x414833cbu, 0x41564caau, 0x4163c147u, 0x416fbfffu, 0x417aceedu, 0x41832852u, 0x41899f18u,
         0x4190a10cu});
    const std::vector<float> out = fromBits(
        {0x28cd5e05u, 0x2974f61bu, 0x2a0737ccu, 0x2a894ebdu, 0x2b09a1dbu, 0x2b93e5fau, 0x2c2d9408u,
         0x2cd104b1u, 0x2d6cf0ebu, 0x2df53db4u, 0x2e7464c5u, 0x2f00052cu, 0x2f93096du, 0x30316b0fu,
         0x30cdf711u, 0x315a4a6fu, 0x31d9ed62u, 0x325f6678u, 0x32fa2cb2u, 0x3396179cu, 0x3431a1a0u,
         0x34c14c56u, 0x3542c5f6u, 0x35c46b5bu, 0x36561b08u, 0x36fda5b0u, 0x379815d3u, 0x382a07b8u,
         0x38ae1773u, 0x392ddd7eu, 0x39b8903du, 0x3a568cf3u, 0x3b016cacu, 0x3b946d85u, 0x3c1b4540u,
         0x3c9ab774u, 0x3d205aceu, 0x3db610b6u, 0x3e5b509eu, 0x3f008accu, 0x3f89e6dau, 0x400a25b8u,
         0x408c6d2bu, 0x411b4ae9u, 0x41b96176u, 0x425cf048u, 0x42f38094u, 0x43770459u, 0x43f7c074u,
         0x44855665u, 0x451cacd0u, 0x45bc979eu, 0x465571f0u, 0x46dc9fdcu, 0x475be4c1u, 0x47e6b805u,
         0x4884b0fdu, 0x49201fd5u, 0x49b9a223u, 0x4a446e74u, 0x4ac409deu, 0x4b4934eau, 0x4be1b1afu,
         0x4c877b6du});
    qint64 notCorrectlyRounded = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        QCOMPARE(std::bit_cast<std::uint32_t>(torchmath::exp(in[i])),
                 std::bit_cast<std::uint32_t>(out[i]));
        notCorrectlyRounded += out[i] != float(std::exp(double(in[i]))) ? 1 : 0;
    }
    QCOMPARE(notCorrectlyRounded, qint64(7));
    QCOMPARE(torchmath::exp(-200.0f), 0.0f);
    QVERIFY(std::isinf(torchmath::exp(std::numeric_limits<float>::max())));
}

// x.sum(-1) in torch 1.13 of y_i = float32(sin(1.7 i) (1 + i mod 7)): the first 16, 64 and 100.
// For 16 values torch's order differs both from the float64 sum rounded and from a
// sequential float32 sum.
void TestForwardMath::torchSum()
{
    std::vector<float> y;
    for (int i = 0; i < 100; ++i)
        y.push_back(float(std::sin(1.7 * i) * (1 + i % 7)));
    QCOMPARE(std::bit_cast<std::uint32_t>(torchmath::sum(y.data(), 16)), 0x4023db41u);
    QCOMPARE(std::bit_cast<std::uint32_t>(torchmath::sum(y.data(), 64)), 0x3fa7b998u);
    QCOMPARE(std::bit_cast<std::uint32_t>(torchmath::sum(y.data(), 100)), 0x413bccacu);
    QVERIFY(std::bit_cast<std::uint32_t>(torchmath::sum(y.data(), 16)) != 0x4023db40u);
}

// torch.softmax over 19 scores whose last 6 are masked (torch: finfo.min; here -inf), as torch
// 1.13 printed it.
void TestForwardMath::torchSoftmax()
{
    std::vector<float> row = fromBits(
        {0x41100000u, 0xc0bfe333u, 0xbf813320u, 0x40eaedc8u, 0xc10c60a3u, 0x408b3118u, 0x403e8ca3u,
         0xc105133bu, 0x4101b133u, 0xc01efc61u, 0xc09974b7u, 0x410dfd8fu, 0xc0e0f6a4u});
    row.resize(19, -std::numeric_limits<float>::infinity());
    const std::vector<float> expected = fromBits(
        {0x3ecd5875u, 0x340432aau, 0x37975158u, 0x3d9c6a4fu, 0x32039a07u, 0x3b7b4135u, 0x3a7ec492u,
         0x324fb79du, 0x3e27f078u, 0x368a80e2u, 0x34dbac47u, 0x3eb51bdcu, 0x333c1981u, 0x00000000u,
         0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u});
    torchmath::softmax(row.data(), 19);
    for (std::size_t j = 0; j < row.size(); ++j)
        QCOMPARE(std::bit_cast<std::uint32_t>(row[j]), std::bit_cast<std::uint32_t>(expected[j]));
}

namespace {

// Deterministic values in [lo, hi) (a 64-bit LCG's top bits; no library distribution).
std::vector<float> spread(std::size_t n, float lo, float hi, std::uint64_t seed)
{
    std::vector<float> v(n);
    for (float &x : v) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x = lo + (hi - lo) * float(double(seed >> 40) / double(1ull << 24));
    }
    return v;
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

// softmax and silu run vectorised (torchrows.inc); each must give the scalar code's bits, on
// every instruction set (forwardmath_sse2 / _avx2 run the narrower copies): rows of every length
// to 70 and of 1,024, causal masks, ties, a row of -inf, +inf, a NaN, and exp's limits.
void TestForwardMath::vectorRowsGiveTheScalarBits()
{
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<std::vector<float>> rows;
    for (std::size_t n = 1; n <= 70; ++n)
        rows.push_back(spread(n, -30.0f, 30.0f, n));
    for (std::size_t masked : {0, 1, 7, 8, 9, 500, 1023}) {
        std::vector<float> row = spread(1024, -200.0f, 20.0f, 1000 + masked);
        std::fill(row.end() - std::ptrdiff_t(masked), row.end(), -inf);
        rows.push_back(row);
    }
    rows.push_back(std::vector<float>(33, 2.5f)); // ties
    rows.push_back(std::vector<float>(17, -inf)); // nothing seen: NaN as torch gives
    std::vector<float> special = spread(40, -5.0f, 5.0f, 7);
    special[3] = inf;
    rows.push_back(special);
    special[3] = std::numeric_limits<float>::quiet_NaN();
    rows.push_back(special);
    for (const std::vector<float> &row : rows) {
        std::vector<float> vector = row, scalar = row;
        torchmath::softmax(vector.data(), qint64(vector.size()));
        torchmath::scalarSoftmax(scalar.data(), qint64(scalar.size()));
        QVERIFY2(sameBits(vector, scalar), qPrintable(QString::number(row.size())));
    }
    std::vector<float> x = spread(4099, -120.0f, 120.0f, 99);
    x.insert(x.end(), {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 88.7f,
                       -88.7f, 103.9f, -103.9f, 1e30f, -1e30f});
    std::vector<float> silu = x;
    torchmath::silu(silu.data(), qint64(silu.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const float expected = x[i] / (1.0f + torchmath::exp(-x[i]));
        QVERIFY2(std::bit_cast<std::uint32_t>(silu[i]) == std::bit_cast<std::uint32_t>(expected),
                 qPrintable(QString::number(double(x[i]))));
    }
}

// SLEEF's limits, which torch's exp has: 0 below -104, infinity above 100 (the scalar code used
// to overflow an int for inputs past 2^31 / log2(e), about 1.5e9, and answered NaN there, so
// silu(-2e9) was NaN where torch gives -0).
void TestForwardMath::expLimits()
{
    const float inf = std::numeric_limits<float>::infinity();
    QCOMPARE(torchmath::exp(-104.5f), 0.0f);
    QVERIFY(torchmath::exp(-103.0f) > 0.0f);
    QCOMPARE(torchmath::exp(100.5f), inf);
    QCOMPARE(torchmath::exp(2e9f), inf);
    QCOMPARE(torchmath::exp(1e38f), inf);
    QCOMPARE(torchmath::exp(inf), inf);
    QCOMPARE(torchmath::exp(-inf), 0.0f);
    QVERIFY(std::isnan(torchmath::exp(std::numeric_limits<float>::quiet_NaN())));
    // Below the limit the value is finite where float32 holds it, infinite past FLT_MAX.
    QVERIFY(std::isfinite(torchmath::exp(88.7f)));
    QCOMPARE(torchmath::exp(88.8f), inf);
    std::vector<float> x{-2e9f, 2e9f};
    torchmath::silu(x.data(), 2);
    QCOMPARE(std::bit_cast<std::uint32_t>(x[0]), std::bit_cast<std::uint32_t>(-0.0f));
    QCOMPARE(x[1], 2e9f);
}

// torchmath::tanh (GPT-2's GELU) is float64's tanh rounded once, on every instruction set: the
// same bits as float(std::tanh(double)) on values across its range, signed zeros, denormals,
// infinities and NaN; the GELU's other steps are float32 as torch rounds them.
void TestForwardMath::tanhIsCorrectlyRounded()
{
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> x = spread(20000, -12.0f, 12.0f, 5);
    for (const std::vector<float> &more :
         {spread(5000, -0.07f, 0.07f, 6), spread(500, -1e-4f, 1e-4f, 8)})
        x.insert(x.end(), more.begin(), more.end());
    x.insert(x.end(), {0.0f, -0.0f, 1e-40f, -1e-40f, 0.0625f, -0.0625f, 9.0f, 10.0f, 11.0f, 1e30f,
                       inf, -inf, std::numeric_limits<float>::quiet_NaN()});
    std::vector<float> tanh = x, gelu = x;
    torchmath::tanh(tanh.data(), qint64(tanh.size()));
    torchmath::geluTanh(gelu.data(), qint64(gelu.size()));
    const auto c = float(std::sqrt(2.0 / std::numbers::pi));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const auto bits = [](float v) { return std::bit_cast<std::uint32_t>(v); };
        const std::uint32_t expected =
            std::isnan(x[i]) ? bits(x[i]) : bits(float(std::tanh(double(x[i]))));
        QVERIFY2(bits(tanh[i]) == expected, qPrintable(QString::number(double(x[i]), 'g', 9)));
        const float inner = c * (x[i] + 0.044715f * (x[i] * x[i] * x[i]));
        const float g = (0.5f * x[i]) * (1.0f + float(std::tanh(double(inner))));
        QVERIFY2(bits(gelu[i]) == bits(g) || (std::isnan(g) && std::isnan(gelu[i])),
                 qPrintable(QString::number(double(x[i]), 'g', 9)));
    }
}

QTEST_GUILESS_MAIN(TestForwardMath)
#include "tst_forwardmath.moc"
