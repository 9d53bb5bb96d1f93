// RoPE: inverse frequencies of every Hugging Face rope_type against formulas re-derived here in
// plain float64 scalar code, the cos/sin table (pairings, partial rotary), the relative-position
// property, presets and bad input.
#include "testutil.h"

#include "cpubackend.h"
#include "rope.h"
#include "ropepresets.h"
#include "schemes/ropescheme.h"
#include "schemes/sinusoidalscheme.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

using namespace pe;

namespace {

constexpr double pi = std::numbers::pi;

// --- Independent float64 references, one scalar loop per HF function. ---------------------

// _compute_default_rope_parameters: 1 / base^(2i / dim) for i < dim / 2.
double refDefault(double base, int dim, int i)
{
    return 1.0 / std::pow(base, (2.0 * i) / dim);
}

// _compute_llama3_parameters, written from the Llama 3.1 reference (apply_scaling in Meta's
// llama-models): keep short wavelengths, divide long ones by the factor, blend in between.
double refLlama3(double base, int dim, int i, double factor, double low, double high, double old)
{
    const double freq = refDefault(base, dim, i);
    const double wavelen = 2 * pi / freq;
    if (wavelen < old / high)
        return freq;
    if (wavelen > old / low)
        return freq / factor;
    const double smooth = (old / wavelen - low) / (high - low);
    return (1 - smooth) * freq / factor + smooth * freq;
}

// _compute_yarn_parameters (truncate = True unless told): ramp between pair indices
// floor(dim(beta_fast)) and ceil(dim(beta_slow)), dim(r) = d ln(L / (2 pi r)) / (2 ln base).
double refYarn(double base, int dim, int i, double factor, double original, double betaFast,
               double betaSlow, bool truncate = true)
{
    double low = dim * std::log(original / (betaFast * 2 * pi)) / (2 * std::log(base));
    double high = dim * std::log(original / (betaSlow * 2 * pi)) / (2 * std::log(base));
    if (truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    if (low < 0)
        low = 0;
    if (high > dim - 1)
        high = dim - 1;
    if (low == high)
        high += 0.001;
    double ramp = (i - low) / (high - low);
    if (ramp < 0)
        ramp = 0;
    if (ramp > 1)
        ramp = 1;
    const double keep = 1 - ramp; // inv_freq_extrapolation_factor
    const double freq = refDefault(base, dim, i);
    return freq / factor * (1 - keep) + freq * keep;
}

RopeParameters scaled(RopeScaling scaling, double factor, qint64 original = 0)
{
    RopeParameters rope;
    rope.scaling = scaling;
    rope.factor = factor;
    rope.originalContext = original;
    return rope;
}

EncodingSpec ropeSpec(qint64 positions, qint64 dims, double base, RopeParameters rope = {})
{
    rope.ropeTheta = base;
    EncodingSpec spec;
    spec.scheme = RopeScheme{rope};
    spec.positions = positions;
    spec.dims = dims;
    return spec;
}

std::vector<float> encode(const EncodingSpec &spec)
{
    const QString problem = spec.validate();
    if (!problem.isEmpty())
        qFatal("invalid spec: %s", qPrintable(problem));
    std::vector<float> out(std::size_t(spec.positions * spec.dims));
    CpuBackend backend(2);
    QString error;
    if (!backend.encode(spec, 0, spec.positions, out.data(), &error))
        qFatal("encode failed: %s", qPrintable(error));
    return out;
}

} // namespace

class TestRope : public QObject
{
    Q_OBJECT

private slots:
    void defaultFrequencies_data()
    {
        QTest::addColumn<double>("base");
        QTest::addColumn<int>("dims");
        QTest::addRow("Llama 2, 128") << 10000.0 << 128;
        QTest::addRow("Llama 3, 128") << 500000.0 << 128;
        QTest::addRow("Qwen 2.5, 128") << 1000000.0 << 128;
        QTest::addRow("RoFormer, 64") << 10000.0 << 64;
        QTest::addRow("tiny, 2") << 10000.0 << 2;
    }
    void defaultFrequencies()
    {
        QFETCH(double, base);
        QFETCH(int, dims);
        const auto theta = ropeInverseFrequencies(base, dims, {}).inverseFrequencies;
        QCOMPARE(int(theta.size()), dims / 2);
        QCOMPARE(theta.front(), 1.0);
        for (int i = 0; i < dims / 2; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / refDefault(base, dims, i), 1.0, 1e-14);
        // The slowest pair: base^(-(d - 2) / d).
        PE_COMPARE_NEAR(theta.back() / std::pow(base, -double(dims - 2) / dims), 1.0, 1e-14);
    }

    void linearDividesByFactor()
    {
        const auto theta = ropeInverseFrequencies(10000.0, 64, scaled(RopeScaling::Linear, 4.0))
                               .inverseFrequencies;
        for (int i = 0; i < 32; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / (refDefault(10000.0, 64, i) / 4.0), 1.0, 1e-14);
    }

    // NTK-aware: base' = base * s^(d / (d - 2)), so the slowest pair is exactly 1/s of the
    // original one (that is what the exponent is chosen for) while pair 0 stays at 1.
    void ntkAwareStretchesTheBase()
    {
        const int d = 128;
        const double s = 4.0;
        const auto theta =
            ropeInverseFrequencies(10000.0, d, scaled(RopeScaling::Ntk, s)).inverseFrequencies;
        const double base = 10000.0 * std::pow(s, double(d) / (d - 2));
        for (int i = 0; i < d / 2; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / refDefault(base, d, i), 1.0, 1e-13);
        QCOMPARE(theta[0], 1.0);
        PE_COMPARE_NEAR(theta.back() / (refDefault(10000.0, d, d / 2 - 1) / s), 1.0, 1e-12);
    }

    void dynamicNtkDependsOnCurrentLength()
    {
        const int d = 64;
        RopeParameters rope = scaled(RopeScaling::DynamicNtk, 2.0, 4096);
        // Up to the original context nothing changes (HF: seq_len <= max_position_embeddings).
        for (qint64 length : {qint64(0), qint64(100), qint64(4096)}) {
            rope.currentLength = length;
            const auto theta = ropeInverseFrequencies(10000.0, d, rope).inverseFrequencies;
            for (int i = 0; i < d / 2; ++i)
                PE_COMPARE_NEAR(theta[std::size_t(i)] / refDefault(10000.0, d, i), 1.0, 1e-14);
        }
        // At twice the context: base * (2 * 2 - 1)^(d / (d - 2)).
        rope.currentLength = 8192;
        const auto theta = ropeInverseFrequencies(10000.0, d, rope).inverseFrequencies;
        const double base = 10000.0 * std::pow(3.0, double(d) / (d - 2));
        for (int i = 0; i < d / 2; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / refDefault(base, d, i), 1.0, 1e-13);
        // 10,000 positions: s * 10000 / 4096 - (s - 1).
        rope.currentLength = 10000;
        const double base2 = 10000.0 * std::pow(2.0 * 10000.0 / 4096.0 - 1.0, double(d) / (d - 2));
        const auto theta2 = ropeInverseFrequencies(10000.0, d, rope).inverseFrequencies;
        PE_COMPARE_NEAR(theta2[5] / refDefault(base2, d, 5), 1.0, 1e-13);
    }

    // Llama 3.1: factor 8, low_freq_factor 1, high_freq_factor 4, original context 8192.
    void llama31Frequencies_data()
    {
        QTest::addColumn<double>("base");
        QTest::addColumn<int>("dims");
        QTest::addRow("Llama 3.1, 128") << 500000.0 << 128;
        QTest::addRow("64") << 500000.0 << 64;
        QTest::addRow("96") << 500000.0 << 96;
        QTest::addRow("base 10000, 128") << 10000.0 << 128;
        QTest::addRow("32") << 500000.0 << 32;
    }
    void llama31Frequencies()
    {
        QFETCH(double, base);
        QFETCH(int, dims);
        RopeParameters rope = scaled(RopeScaling::Llama3, 8.0, 8192);
        const auto result = ropeInverseFrequencies(base, dims, rope);
        QCOMPARE(result.attentionFactor, 1.0);
        QCOMPARE(int(result.inverseFrequencies.size()), dims / 2);
        for (int i = 0; i < dims / 2; ++i)
            PE_COMPARE_NEAR(result.inverseFrequencies[std::size_t(i)] /
                                refLlama3(base, dims, i, 8.0, 1.0, 4.0, 8192.0),
                            1.0, 1e-14);
    }

    // Hand-checkable Llama 3.1 facts at d = 128, base 500,000: wavelengths below 2048 keep their
    // frequency, those above 8192 are divided by 8.
    void llama31Regions()
    {
        const auto theta =
            ropeInverseFrequencies(500000.0, 128, scaled(RopeScaling::Llama3, 8.0, 8192))
                .inverseFrequencies;
        int kept = 0, divided = 0, blended = 0;
        for (int i = 0; i < 64; ++i) {
            const double original = refDefault(500000.0, 128, i);
            const double wavelen = 2 * pi / original;
            if (wavelen < 2048.0) {
                QCOMPARE(theta[std::size_t(i)], original);
                ++kept;
            } else if (wavelen > 8192.0) {
                PE_COMPARE_NEAR(theta[std::size_t(i)] / (original / 8.0), 1.0, 1e-15);
                ++divided;
            } else {
                QVERIFY(theta[std::size_t(i)] < original);
                QVERIFY(theta[std::size_t(i)] > original / 8.0);
                ++blended;
            }
        }
        // 2 pi 500000^(2i/128) is 1956 at i = 28, 2402 at 29, 6695 at 34 and 8219 at 35.
        QCOMPARE(kept, 29);
        QCOMPARE(blended, 6);
        QCOMPARE(divided, 29);
    }

    void yarnFrequencies_data()
    {
        QTest::addColumn<double>("base");
        QTest::addColumn<int>("dims");
        QTest::addColumn<double>("factor");
        QTest::addColumn<double>("original");
        QTest::addColumn<double>("betaFast");
        QTest::addColumn<double>("betaSlow");
        QTest::addColumn<bool>("truncate");
        QTest::addRow("Qwen 2.5, 128") << 1e6 << 128 << 4.0 << 32768.0 << 32.0 << 1.0 << true;
        QTest::addRow("Qwen 2.5, 64") << 1e6 << 64 << 4.0 << 32768.0 << 32.0 << 1.0 << true;
        QTest::addRow("Llama 2 x16, 128") << 1e4 << 128 << 16.0 << 4096.0 << 32.0 << 1.0 << true;
        QTest::addRow("Llama 2 x8, 80") << 1e4 << 80 << 8.0 << 4096.0 << 32.0 << 1.0 << true;
        QTest::addRow("betas 16/2, 96") << 5e5 << 96 << 4.0 << 8192.0 << 16.0 << 2.0 << true;
        QTest::addRow("no truncation") << 1.5e5 << 64 << 32.0 << 4096.0 << 32.0 << 1.0 << false;
        QTest::addRow("equal betas") << 1e4 << 32 << 2.0 << 2048.0 << 4.0 << 4.0 << false;
        QTest::addRow("tiny context") << 1e4 << 16 << 2.0 << 16.0 << 32.0 << 1.0 << true;
    }
    void yarnFrequencies()
    {
        QFETCH(double, base);
        QFETCH(int, dims);
        QFETCH(double, factor);
        QFETCH(double, original);
        QFETCH(double, betaFast);
        QFETCH(double, betaSlow);
        QFETCH(bool, truncate);
        RopeParameters rope = scaled(RopeScaling::Yarn, factor, qint64(original));
        rope.betaFast = betaFast;
        rope.betaSlow = betaSlow;
        rope.yarnTruncate = truncate;
        const auto result = ropeInverseFrequencies(base, dims, rope);
        PE_COMPARE_NEAR(result.attentionFactor, 0.1 * std::log(factor) + 1.0, 1e-15);
        for (int i = 0; i < dims / 2; ++i)
            PE_COMPARE_NEAR(
                result.inverseFrequencies[std::size_t(i)] /
                    refYarn(base, dims, i, factor, original, betaFast, betaSlow, truncate),
                1.0, 1e-13);
    }

    // Qwen 2.5 with YaRN by hand: dim(32) = 128 ln(32768 / 64 pi) / (2 ln 1e6) = 23.59,
    // dim(1) = 39.65, so pairs 0..23 keep their frequency and pairs 40..63 are divided by 4.
    void yarnQwenRegionsByHand()
    {
        RopeParameters rope = scaled(RopeScaling::Yarn, 4.0, 32768);
        const YarnCorrectionRange range = ropeYarnCorrectionRange(1e6, 128, rope);
        QCOMPARE(range.low, 23.0);
        QCOMPARE(range.high, 40.0);
        const auto result = ropeInverseFrequencies(1e6, 128, rope);
        for (int i = 0; i < 64; ++i) {
            const double original = refDefault(1e6, 128, i);
            if (i <= 23)
                QCOMPARE(result.inverseFrequencies[std::size_t(i)], original);
            else if (i >= 40)
                PE_COMPARE_NEAR(result.inverseFrequencies[std::size_t(i)] / (original / 4.0), 1.0,
                                1e-15);
        }
        // Halfway through the ramp (i = 31.5 would be half): i = 30 keeps 10/17 of extrapolation.
        const double keep = 1.0 - (30.0 - 23.0) / 17.0;
        PE_COMPARE_NEAR(result.inverseFrequencies[30] / refDefault(1e6, 128, 30),
                        keep + (1.0 - keep) / 4.0, 1e-14);
        PE_COMPARE_NEAR(result.attentionFactor, 1.1386294361119890, 1e-15); // 0.1 ln 4 + 1
        // Without truncation the range is the real-valued one.
        rope.yarnTruncate = false;
        const YarnCorrectionRange exact = ropeYarnCorrectionRange(1e6, 128, rope);
        PE_COMPARE_NEAR(exact.low, 128 * std::log(32768 / (64 * pi)) / (2 * std::log(1e6)), 1e-12);
        PE_COMPARE_NEAR(exact.high, 128 * std::log(32768 / (2 * pi)) / (2 * std::log(1e6)), 1e-12);
    }

    void yarnAttentionFactorIsOneWithoutExtension()
    {
        QCOMPARE(ropeYarnAttentionFactor(1.0), 1.0);
        QCOMPARE(ropeYarnAttentionFactor(0.5), 1.0);
        PE_COMPARE_NEAR(ropeYarnAttentionFactor(32.0), 0.1 * std::log(32.0) + 1.0, 1e-15);
    }

    // Partial rotary factor: HF's dim = int(head_dim * factor) sets both the number of pairs and
    // the exponent's denominator.
    void partialRotaryFactor()
    {
        RopeParameters rope;
        rope.partialRotaryFactor = 0.25; // GPT-NeoX / Pythia
        QCOMPARE(ropeRotaryDims(128, 0.25), 32);
        QCOMPARE(ropeRotaryDims(80, 0.4), 32);
        QCOMPARE(ropeRotaryDims(10, 0.5), 5); // odd: refused below
        const auto theta = ropeInverseFrequencies(10000.0, 128, rope).inverseFrequencies;
        QCOMPARE(int(theta.size()), 16);
        for (int i = 0; i < 16; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / refDefault(10000.0, 32, i), 1.0, 1e-14);
    }

    // The table: pair i's cos and sin of p theta_i in the documented columns, within 1e-6 of
    // float64 at positions up to 2^20 (the design's precision target).
    void tableMatchesFloat64_data()
    {
        QTest::addColumn<int>("pairing");
        QTest::addColumn<int>("scaling");
        QTest::addRow("interleaved, none")
            << int(RopePairing::Interleaved) << int(RopeScaling::None);
        QTest::addRow("half, none") << int(RopePairing::Half) << int(RopeScaling::None);
        QTest::addRow("half, llama3") << int(RopePairing::Half) << int(RopeScaling::Llama3);
        QTest::addRow("interleaved, yarn")
            << int(RopePairing::Interleaved) << int(RopeScaling::Yarn);
        QTest::addRow("half, linear 0.25 (theta > 1)")
            << int(RopePairing::Half) << int(RopeScaling::Linear);
    }
    void tableMatchesFloat64()
    {
        QFETCH(int, pairing);
        QFETCH(int, scaling);
        const int d = 16;
        RopeParameters rope;
        rope.pairing = RopePairing(pairing);
        rope.scaling = RopeScaling(scaling);
        if (rope.scaling == RopeScaling::Llama3)
            rope = [&] {
                auto r = scaled(RopeScaling::Llama3, 8.0, 64);
                r.pairing = rope.pairing;
                return r;
            }();
        if (rope.scaling == RopeScaling::Yarn)
            rope = [&] {
                auto r = scaled(RopeScaling::Yarn, 4.0, 256);
                r.pairing = rope.pairing;
                return r;
            }();
        if (rope.scaling == RopeScaling::Linear)
            rope = [&] {
                auto r = scaled(RopeScaling::Linear, 0.25);
                r.pairing = rope.pairing;
                return r;
            }();
        const double base = 10000.0;
        std::vector<double> theta(d / 2);
        for (int i = 0; i < d / 2; ++i) {
            switch (rope.scaling) {
            case RopeScaling::Llama3:
                theta[std::size_t(i)] = refLlama3(base, d, i, 8.0, 1.0, 4.0, 64.0);
                break;
            case RopeScaling::Yarn:
                theta[std::size_t(i)] = refYarn(base, d, i, 4.0, 256.0, 32.0, 1.0);
                break;
            case RopeScaling::Linear:
                theta[std::size_t(i)] = refDefault(base, d, i) / 0.25;
                break;
            default:
                theta[std::size_t(i)] = refDefault(base, d, i);
            }
        }
        // Rows 0..511 and a block near 2^20.
        for (qint64 first : {qint64(0), (qint64(1) << 20) - 512}) {
            EncodingSpec spec = ropeSpec(first + 512, d, base, rope);
            std::vector<float> rows(std::size_t(512 * d));
            CpuBackend backend(2);
            QString error;
            QVERIFY(backend.encode(spec, first, 512, rows.data(), &error));
            double worst = 0;
            for (qint64 r = 0; r < 512; ++r) {
                const qint64 p = first + r;
                for (int i = 0; i < d / 2; ++i) {
                    const int cosColumn = rope.pairing == RopePairing::Interleaved ? 2 * i : i;
                    const int sinColumn =
                        rope.pairing == RopePairing::Interleaved ? 2 * i + 1 : i + d / 2;
                    const double angle = double(p) * theta[std::size_t(i)];
                    worst = std::max(
                        worst, std::abs(rows[std::size_t(r * d + cosColumn)] - std::cos(angle)));
                    worst = std::max(
                        worst, std::abs(rows[std::size_t(r * d + sinColumn)] - std::sin(angle)));
                }
            }
            PE_COMPARE_NEAR(worst, 0.0, 1e-6);
        }
    }

    // The documented column conventions at p = 1, d = 4, theta = (1, 0.01):
    // interleaved [cos 1, sin 1, cos .01, sin .01]; half [cos 1, cos .01, sin 1, sin .01].
    void pairingConventions()
    {
        RopeParameters rope;
        rope.pairing = RopePairing::Interleaved;
        auto m = encode(ropeSpec(2, 4, 10000.0, rope));
        const double interleaved[] = {std::cos(1.0), std::sin(1.0), std::cos(0.01), std::sin(0.01)};
        for (int j = 0; j < 4; ++j) {
            PE_COMPARE_NEAR(m[std::size_t(j)], j % 2 == 0 ? 1.0 : 0.0, 0.0); // p = 0: identity
            PE_COMPARE_NEAR(m[std::size_t(4 + j)], interleaved[j], 1e-7);
        }
        rope.pairing = RopePairing::Half;
        m = encode(ropeSpec(2, 4, 10000.0, rope));
        const double half[] = {std::cos(1.0), std::cos(0.01), std::sin(1.0), std::sin(0.01)};
        for (int j = 0; j < 4; ++j) {
            PE_COMPARE_NEAR(m[std::size_t(j)], j < 2 ? 1.0 : 0.0, 0.0);
            PE_COMPARE_NEAR(m[std::size_t(4 + j)], half[j], 1e-7);
        }
    }

    // Columns beyond int(d * factor) hold the identity rotation: cos slots 1, sin slots 0.
    void partialRotaryTable()
    {
        RopeParameters rope;
        rope.partialRotaryFactor = 0.5;
        for (RopePairing pairing : {RopePairing::Interleaved, RopePairing::Half}) {
            rope.pairing = pairing;
            const auto m = encode(ropeSpec(50, 12, 10000.0, rope)); // 6 rotary dims, 6 passed
            for (qint64 p = 0; p < 50; ++p) {
                for (int i = 0; i < 3; ++i) {
                    const double angle = double(p) * refDefault(10000.0, 6, i);
                    const int c = pairing == RopePairing::Interleaved ? 2 * i : i;
                    const int s = pairing == RopePairing::Interleaved ? 2 * i + 1 : i + 3;
                    PE_COMPARE_NEAR(m[std::size_t(p * 12 + c)], std::cos(angle), 1e-6);
                    PE_COMPARE_NEAR(m[std::size_t(p * 12 + s)], std::sin(angle), 1e-6);
                }
                for (int k = 0; k < 6; ++k) {
                    const bool cosSlot = pairing == RopePairing::Interleaved ? k % 2 == 0 : k < 3;
                    QCOMPARE(m[std::size_t(p * 12 + 6 + k)], cosSlot ? 1.0f : 0.0f);
                }
            }
        }
    }

    // RoFormer's point: <R(m) q, R(n) k> depends only on m - n. Rotate random q and k with the
    // produced cos/sin table and compare scores at shifted positions, and with the closed form.
    void relativePositionProperty_data()
    {
        QTest::addColumn<int>("pairing");
        QTest::addColumn<int>("scaling");
        QTest::addRow("interleaved") << int(RopePairing::Interleaved) << int(RopeScaling::None);
        QTest::addRow("half") << int(RopePairing::Half) << int(RopeScaling::None);
        QTest::addRow("half, llama3") << int(RopePairing::Half) << int(RopeScaling::Llama3);
        QTest::addRow("half, yarn") << int(RopePairing::Half) << int(RopeScaling::Yarn);
    }
    void relativePositionProperty()
    {
        QFETCH(int, pairing);
        QFETCH(int, scaling);
        const int d = 64;
        const qint64 n = 3000;
        RopeParameters rope;
        if (RopeScaling(scaling) == RopeScaling::Llama3)
            rope = scaled(RopeScaling::Llama3, 8.0, 512);
        if (RopeScaling(scaling) == RopeScaling::Yarn)
            rope = scaled(RopeScaling::Yarn, 4.0, 512);
        rope.pairing = RopePairing(pairing);
        const EncodingSpec spec = ropeSpec(n, d, 10000.0, rope);
        const auto table = encode(spec);
        const auto theta = ropeInverseFrequencies(spec).inverseFrequencies;

        std::mt19937 gen(7);
        std::normal_distribution<double> normal;
        std::vector<double> q(d), k(d);
        for (int j = 0; j < d; ++j) {
            q[std::size_t(j)] = normal(gen);
            k[std::size_t(j)] = normal(gen);
        }
        const auto column = [&](int i, bool second) {
            if (rope.pairing == RopePairing::Interleaved)
                return 2 * i + (second ? 1 : 0);
            return i + (second ? d / 2 : 0);
        };
        // x' = (x_a cos - x_b sin, x_a sin + x_b cos) on each pair (a, b), cos/sin from the table.
        const auto rotate = [&](const std::vector<double> &x, qint64 p) {
            std::vector<double> y(x.size());
            for (int i = 0; i < d / 2; ++i) {
                const double c = table[std::size_t(p * d + column(i, false))];
                const double s = table[std::size_t(p * d + column(i, true))];
                const double a = x[std::size_t(column(i, false))];
                const double b = x[std::size_t(column(i, true))];
                y[std::size_t(column(i, false))] = a * c - b * s;
                y[std::size_t(column(i, true))] = a * s + b * c;
            }
            return y;
        };
        const auto score = [&](qint64 m, qint64 nn) {
            const auto rq = rotate(q, m);
            const auto rk = rotate(k, nn);
            double sum = 0;
            for (int j = 0; j < d; ++j)
                sum += rq[std::size_t(j)] * rk[std::size_t(j)];
            return sum;
        };
        // Closed form, Re[(q_a + i q_b)(k_a - i k_b) e^(i (m - n) theta)] summed over pairs:
        // (q_a k_a + q_b k_b) cos((m - n) theta) + (q_a k_b - q_b k_a) sin((m - n) theta).
        const auto closedForm = [&](qint64 delta) {
            double sum = 0;
            for (int i = 0; i < d / 2; ++i) {
                const double qa = q[std::size_t(column(i, false))],
                             qb = q[std::size_t(column(i, true))];
                const double ka = k[std::size_t(column(i, false))],
                             kb = k[std::size_t(column(i, true))];
                const double angle = double(delta) * theta[std::size_t(i)];
                sum +=
                    (qa * ka + qb * kb) * std::cos(angle) + (qa * kb - qb * ka) * std::sin(angle);
            }
            return sum;
        };
        for (qint64 delta :
             {qint64(0), qint64(1), qint64(-1), qint64(7), qint64(-100), qint64(999)}) {
            const double expected = closedForm(delta);
            for (qint64 m : {qint64(1000), qint64(1500), qint64(1999), qint64(2800)}) {
                const qint64 other = m - delta;
                PE_COMPARE_NEAR(score(m, other), expected, 1e-4);
            }
        }
    }

    void presets()
    {
        const auto all = ropePresets();
        QCOMPARE(all.size(), 5);
        const auto llama2 = findRopePreset(u"llama2"_qs);
        QVERIFY(llama2);
        QCOMPARE(llama2->base, 10000.0);
        QCOMPARE(findRopePreset(u"llama3"_qs)->base, 500000.0);
        QCOMPARE(findRopePreset(u"qwen2.5"_qs)->base, 1000000.0);
        const auto llama31 = findRopePreset(u"llama3.1"_qs);
        QVERIFY(llama31);
        QCOMPARE(llama31->base, 500000.0);
        QCOMPARE(llama31->rope.scaling, RopeScaling::Llama3);
        QCOMPARE(llama31->rope.factor, 8.0);
        QCOMPARE(llama31->rope.lowFreqFactor, 1.0);
        QCOMPARE(llama31->rope.highFreqFactor, 4.0);
        QCOMPARE(llama31->rope.originalContext, 8192);
        QCOMPARE(llama31->rope.pairing, RopePairing::Half);
        const auto qwen = findRopePreset(u"qwen2.5-yarn"_qs);
        QVERIFY(qwen);
        QCOMPARE(qwen->base, 1000000.0);
        QCOMPARE(qwen->rope.scaling, RopeScaling::Yarn);
        QCOMPARE(qwen->rope.factor, 4.0);
        QCOMPARE(qwen->rope.originalContext, 32768);
        QCOMPARE(qwen->rope.betaFast, 32.0);
        QCOMPARE(qwen->rope.betaSlow, 1.0);
        QVERIFY(!findRopePreset(u"gpt5"_qs));
        for (const RopePreset &preset : all) {
            const EncodingSpec spec =
                ropeSpec(preset.context, preset.headDim, preset.rope.ropeTheta, preset.rope);
            QVERIFY2(spec.validate().isEmpty(), qPrintable(preset.id));
        }
    }

    void specEqualityCoversRopeFields()
    {
        const EncodingSpec a = ropeSpec(10, 8, 10000.0, scaled(RopeScaling::Yarn, 4.0, 100));
        EncodingSpec b = a;
        QVERIFY(a == b);
        std::get<RopeScheme>(b.scheme).betaSlow = 2.0;
        QVERIFY(!(a == b));
        b = a;
        std::get<RopeScheme>(b.scheme).pairing = RopePairing::Half;
        QVERIFY(!(a == b));
        QVERIFY(choiceNameList(schemeNames).contains(u"rope"_qs));
        for (RopeScaling s : {RopeScaling::None, RopeScaling::Linear, RopeScaling::Ntk,
                              RopeScaling::DynamicNtk, RopeScaling::Yarn, RopeScaling::Llama3})
            QCOMPARE(parseAs<RopeScaling>(ropeScalingNames, nameOf(ropeScalingNames, s)), s);
        QCOMPARE(parseAs<RopePairing>(ropePairingNames, u"half"_qs), RopePairing::Half);
        QVERIFY(!parseAs<RopePairing>(ropePairingNames, u"split"_qs));
    }

    // columnPhases() is what every backend consumes: it must route RoPE here.
    void columnPhasesRoutesRope()
    {
        const EncodingSpec spec = ropeSpec(10, 8, 10000.0);
        const auto columns = std::get<PhaseColumnsPlan>(spec.plan()).columns;
        const auto direct = ropeColumnPhases(spec.dims, std::get<RopeScheme>(spec.scheme).parameters(spec.shape()));
        QCOMPARE(columns.size(), direct.size());
        for (std::size_t j = 0; j < columns.size(); ++j) {
            QCOMPARE(columns[j].step, direct[j].step);
            QCOMPARE(columns[j].offset, direct[j].offset);
        }
        QCOMPARE(columns[0].offset, kernels::quarterTurn); // cos first
        QCOMPARE(columns[1].offset, std::uint64_t(0));
        QCOMPARE(columns[0].step, turnsStep(1.0));
    }

    void badInput_data()
    {
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<int>("scaling");
        QTest::addColumn<double>("factor");
        QTest::addColumn<qint64>("original");
        QTest::addColumn<double>("partial");
        QTest::addColumn<QString>("message");
        const int none = int(RopeScaling::None), yarn = int(RopeScaling::Yarn),
                  llama3 = int(RopeScaling::Llama3), linear = int(RopeScaling::Linear),
                  ntk = int(RopeScaling::Ntk), dynamic = int(RopeScaling::DynamicNtk);
        QTest::addRow("odd dims") << qint64(7) << none << 1.0 << qint64(0) << 1.0
                                  << u"dims must be even"_qs;
        QTest::addRow("factor 0") << qint64(8) << linear << 0.0 << qint64(0) << 1.0
                                  << u"factor must be"_qs;
        QTest::addRow("factor negative")
            << qint64(8) << yarn << -2.0 << qint64(100) << 1.0 << u"factor must be"_qs;
        QTest::addRow("factor nan")
            << qint64(8) << ntk << std::nan("") << qint64(0) << 1.0 << u"factor must be"_qs;
        QTest::addRow("original 0, yarn")
            << qint64(8) << yarn << 4.0 << qint64(0) << 1.0 << u"original context must be"_qs;
        QTest::addRow("original negative, llama3")
            << qint64(8) << llama3 << 8.0 << qint64(-5) << 1.0 << u"original context must be"_qs;
        QTest::addRow("original 0, dynamic")
            << qint64(8) << dynamic << 2.0 << qint64(0) << 1.0 << u"original context must be"_qs;
        QTest::addRow("ntk at 2 dims")
            << qint64(2) << ntk << 2.0 << qint64(0) << 1.0 << u"at least 4 rotary dims"_qs;
        QTest::addRow("partial 0")
            << qint64(8) << none << 1.0 << qint64(0) << 0.0 << u"partial rotary factor must be"_qs;
        QTest::addRow("partial above 1")
            << qint64(8) << none << 1.0 << qint64(0) << 1.5 << u"partial rotary factor must be"_qs;
        QTest::addRow("partial gives odd")
            << qint64(10) << none << 1.0 << qint64(0) << 0.5 << u"rotary dims"_qs;
    }
    void badInput()
    {
        QFETCH(qint64, dims);
        QFETCH(int, scaling);
        QFETCH(double, factor);
        QFETCH(qint64, original);
        QFETCH(double, partial);
        QFETCH(QString, message);
        RopeParameters rope = scaled(RopeScaling(scaling), factor, original);
        rope.partialRotaryFactor = partial;
        const QString problem = ropeSpec(10, dims, 10000.0, rope).validate();
        QVERIFY2(problem.contains(message), qPrintable(problem));
    }

    void badLlama3AndYarnParameters()
    {
        RopeParameters rope = scaled(RopeScaling::Llama3, 8.0, 8192);
        rope.highFreqFactor = 1.0;
        QVERIFY(ropeProblem(128, rope).contains(u"high freq factor"_qs));
        rope.highFreqFactor = 4.0;
        rope.lowFreqFactor = 0.0;
        QVERIFY(ropeProblem(128, rope).contains(u"low freq factor"_qs));
        rope = scaled(RopeScaling::Yarn, 4.0, 8192);
        rope.betaFast = 0.5;
        QVERIFY(ropeProblem(128, rope).contains(u"beta fast"_qs));
        rope.betaFast = 32.0;
        rope.betaSlow = -1.0;
        QVERIFY(ropeProblem(128, rope).contains(u"beta slow"_qs));
        rope = scaled(RopeScaling::DynamicNtk, 2.0, 100);
        rope.currentLength = -1;
        QVERIFY(ropeProblem(128, rope).contains(u"current length"_qs));
        // A valid base is still required.
        QVERIFY(ropeSpec(10, 8, 1.0).validate().contains(u"base"_qs));
    }
};

QTEST_GUILESS_MAIN(TestRope)
#include "tst_rope.moc"
