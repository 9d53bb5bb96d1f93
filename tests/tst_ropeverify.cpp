// `verify`'s comparison (core/rope/ropeverify): the verdicts (exact, up to the rounding of the
// values, up to float32 angles as HF's own float32 forward computes them; --strict), every
// layout HF and the engines emit, each diagnosis triggered by a deliberately wrong table (made
// by NumPy in tests/data/rope/mistakes.json, or here from float64 / float32 transcriptions of
// transformers' formulas, never from pescope's own tables), the tolerance's semantics, the first
// difference it reports, and candidates of the wrong shape.
#include "ropetestdata.h"
#include "testutil.h"

#include "rope/ropeverify.h"

#include <QtCore/qfloat16.h>

#include <bit>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>

using namespace pe;
using namespace pe::test;

namespace {

QJsonObject mistakes()
{
    static const QJsonObject data = loadRopeData(QFINDTESTDATA("data/rope/mistakes.json"));
    return data;
}

std::optional<RopeMistake> mistakeNamed(const QString &name)
{
    static const std::pair<const char *, RopeMistake> names[] = {
        {"", RopeMistake::None},
        {"AttentionFactorDropped", RopeMistake::AttentionFactorDropped},
        {"AttentionFactorTwice", RopeMistake::AttentionFactorTwice},
        {"AttentionFactorFormula", RopeMistake::AttentionFactorFormula},
        {"ScalingIgnored", RopeMistake::ScalingIgnored},
        {"FactorOnBase", RopeMistake::FactorOnBase},
        {"PairingSwapped", RopeMistake::PairingSwapped},
        {"Float32Angles", RopeMistake::Float32Angles},
        {"Float32Values", RopeMistake::Float32Values},
        {"ScalingRuleSwapped", RopeMistake::ScalingRuleSwapped},
        {"LongropeFactorSet", RopeMistake::LongropeFactorSet},
        {"BaseChanged", RopeMistake::BaseChanged},
        {"RotaryWidth", RopeMistake::RotaryWidth},
        {"PositionsShifted", RopeMistake::PositionsShifted},
    };
    for (const auto &[text, mistake] : names)
        if (name == QLatin1String(text))
            return mistake;
    return std::nullopt;
}

RopeConfig configOf(const QJsonObject &record)
{
    QString error;
    const RopeConfig config = ropeConfigFromJson(
        record.value(QLatin1String("rope_parameters")).toObject(),
        record.value(QLatin1String("head_dim")).toInteger(),
        record.value(QLatin1String("max_position_embeddings")).toInteger(), &error);
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    return config;
}

// gpt-oss's YaRN on a 32-dim head: attention factor 0.1 ln 32 + 1 = 1.3466.
RopeConfig gptOss32(qint64 *headDim)
{
    *headDim = mistakes().value(QLatin1String("head_dim")).toInteger();
    return configOf(mistakes());
}

RopeVerifyResult verify(qint64 headDim, const RopeConfig &config, const RopeVerifyOptions &options,
                        const RopeTable &candidate)
{
    QString error;
    const auto result = ropeVerify(headDim, config, options, candidate, &error);
    if (!result)
        qWarning("ropeVerify refused: %s", qPrintable(error));
    return result.value_or(RopeVerifyResult{});
}

RopeTable vectorTable(const std::vector<double> &values)
{
    return {1, qint64(values.size()), values};
}

// --- Tables made here, from transcriptions of transformers' formulas ---------------------------

QJsonObject references()
{
    static const QJsonObject data = loadRopeData(QFINDTESTDATA("data/rope/references.json"));
    return data;
}

// A case of references.json (NumPy's float64 inv_freq and attention factor for real models).
QJsonObject referenceCase(const QString &name)
{
    for (const QJsonValue &item : references().value(QLatin1String("cases")).toArray())
        if (item.toObject().value(QLatin1String("name")).toString() == name)
            return item.toObject();
    qWarning("no reference case %s", qPrintable(name));
    return {};
}

std::vector<double> caseTheta(const QJsonObject &record)
{
    return jsonDoubles(record.value(QLatin1String("inv_freq")));
}

double caseScale(const QJsonObject &record)
{
    return record.value(QLatin1String("attention_factor")).toDouble();
}

qint64 caseHeadDim(const QJsonObject &record)
{
    return record.value(QLatin1String("head_dim")).toInteger();
}

enum class Form { Half, Interleaved, PerPair, Complex };
enum class Part { Cos, Sin, Both };

// A table as an engine writes it. float32: HF's float32 forward (LlamaRotaryEmbedding.forward in
// transformers 5, autocast off): freqs = float32(p) * float32(inv_freq) as one float32 product,
// cos in float32, times the attention factor in float32. Row r holds position r + shift.
struct Made
{
    std::vector<double> theta;
    double scale = 1.0;
    qint64 positions = 64;
    Form form = Form::Half;
    Part part = Part::Cos;
    bool float32 = false;
    qint64 shift = 0;
};

RopeTable make(const Made &m)
{
    const qint64 n = qint64(m.theta.size());
    const qint64 columns = m.form == Form::PerPair ? n : 2 * n;
    const bool adjacent = m.form == Form::Interleaved || m.form == Form::Complex;
    RopeTable t{m.positions, columns, {}};
    t.values.reserve(std::size_t(m.positions * columns));
    for (qint64 p = 0; p < m.positions; ++p)
        for (qint64 c = 0; c < columns; ++c) {
            const qint64 pair = m.form == Form::PerPair ? c : adjacent ? c / 2 : c % n;
            const bool cosine =
                m.part == Part::Both ? (adjacent ? c % 2 == 0 : c < n) : m.part == Part::Cos;
            const qint64 position = p + m.shift;
            if (m.float32) {
                const float angle = float(position) * float(m.theta[std::size_t(pair)]);
                const float value = cosine ? std::cos(angle) : std::sin(angle);
                t.values.push_back(double(value * float(m.scale)));
            } else {
                const double angle = double(position) * m.theta[std::size_t(pair)];
                t.values.push_back((cosine ? std::cos(angle) : std::sin(angle)) * m.scale);
            }
        }
    return t;
}

// The same as torch computes it in float32: 1.0 / (base ** (arange(0, dim, 2).float() / dim)).
std::vector<double> hfFloat32Theta(double base, qint64 dim)
{
    std::vector<double> out;
    for (qint64 i = 0; i < dim; i += 2) {
        const float exponent = float(i) / float(dim);
        out.push_back(double(1.0f / std::pow(float(base), exponent)));
    }
    return out;
}

std::vector<double> divided(std::vector<double> theta, double s)
{
    for (double &t : theta)
        t /= s;
    return theta;
}

// _compute_longrope_parameters: 1 / (ext_i * base^(2i / dim)).
std::vector<double> longropeTheta(double base, qint64 dim, const std::vector<double> &factors)
{
    std::vector<double> out = defaultTheta(base, dim);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] /= factors[i];
    return out;
}

// Llama 3.1 8B's rope_parameters.
RopeConfig llama31()
{
    RopeConfig c;
    c.ropeType = RopeType::Llama3;
    c.ropeTheta = 500000.0;
    c.factor = 8.0;
    c.lowFreqFactor = 1.0;
    c.highFreqFactor = 4.0;
    c.originalMaxPositionEmbeddings = 8192;
    c.maxPositionEmbeddings = 131072;
    c.pairing = RopePairing::Half;
    return c;
}

std::vector<double> llama31Theta()
{
    return llama3Theta(500000.0, 8.0, 1.0, 4.0, 8192.0, 128);
}

// bfloat16 rounding, nearest even: the upper half of a float32.
double toBf16(double x)
{
    const auto bits = std::bit_cast<quint32>(float(x));
    return double(std::bit_cast<float>((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u));
}

RopeTable rounded(RopeTable t, double (*round)(double))
{
    for (double &v : t.values)
        v = round(v);
    return t;
}

double toF32(double x)
{
    return double(float(x));
}

double toF16(double x)
{
    return double(float(qfloat16(float(x))));
}

// A table as ggml-cpu computes it (ggml_rope_cache_init and rope_yarn in ggml/src/ggml-cpu/ops.cpp,
// written here from their formulas, float32 throughout): pair i's angle at position p starts as
// float32(p) and is multiplied i times by theta_scale = powf(base, -2 / n_dims); it is divided by
// the pair's frequency factor (llama.cpp's rope_freqs: llama3, longrope) and scaled by freq_scale,
// YaRN blends the scaled and unscaled angles by its ramp; cosf / sinf times mscale. Row r holds
// position r + shift.
struct Ggml
{
    double base = 10000.0;
    qint64 dims = 128; // n_dims, the rotary dims
    qint64 pairs = 64;
    std::vector<double> factors; // frequency factors (divisors); empty: none
    double freqScale = 1.0;
    bool yarn = false; // ext_factor 1, ramp over [rampLow, rampHigh]
    double rampLow = 0, rampHigh = 0;
    double mscale = 1.0;
    qint64 positions = 4096;
    Form form = Form::Half;
    Part part = Part::Cos;
    qint64 shift = 0;
    // ggml-cuda: p * powf(theta_scale, i) instead of the recurrence; and the fast functions
    // -use_fast_math makes of cosf / sinf, powf and the division by a frequency factor: cosf /
    // sinf modelled as __cosf / __sinf work: the argument reduced in float32
    // (x * float32(1 / 2 pi)), then an error up to CUDA's documented 2^-21.41 in [-pi, pi]
    // (nearly all of it, its sign a deterministic pattern here); powf and the division at their
    // documented worst (fastPow, fastDivide).
    bool cudaPow = false;
    bool fastTrig = false;
};

// powf under -use_fast_math (see Ggml::fastTrig): CUDA's __powf, exp2(y * __log2f(x)), with
// __log2f at its documented 2^-22 absolute bound (for x in [0.5, 2]) and __exp2f 2 units off,
// both the same way (the result larger: with theta_scale's own rounding at base 10000 this is
// the direction that exceeded the bound before __powf had its term, 1.03x at Llama 2's 4096).
float fastPow(float x, float y)
{
    const auto log2x = float(std::log2(double(x)) + std::exp2(-22.0));
    const float e = y * log2x;
    const auto r = float(std::exp2(double(e)));
    return std::nextafter(std::nextafter(r, 2.0f), 2.0f);
}

// x / y under -use_fast_math: __fdividef, 2 units off (the result larger).
float fastDivide(float x, float y)
{
    return std::nextafter(std::nextafter(x / y, 1e30f), 1e30f);
}

// The fast functions' model (see Ggml::fastTrig): cos or sin of x.
float fastTrig(float x, bool cosine)
{
    const float turns = x * float(1.0 / (2.0 * std::numbers::pi));
    const float reduced = (turns - std::nearbyint(turns)) * float(2.0 * std::numbers::pi);
    const double exact = cosine ? std::cos(double(reduced)) : std::sin(double(reduced));
    const bool up = ((std::bit_cast<quint32>(x) >> (cosine ? 3 : 4)) & 1u) != 0;
    return float(exact + (up ? 0.99 : -0.99) * std::exp2(-21.41));
}

RopeTable ggmlTable(const Ggml &g)
{
    const qint64 n = g.pairs;
    const qint64 columns = g.form == Form::PerPair ? n : 2 * n;
    const bool adjacent = g.form == Form::Interleaved || g.form == Form::Complex;
    const float thetaScale = std::pow(float(g.base), -2.0f / float(g.dims));
    const auto count = std::size_t(n);
    std::vector<float> cosine(count), sine(count);
    RopeTable t{g.positions, columns, {}};
    t.values.reserve(std::size_t(g.positions * columns));
    for (qint64 p = 0; p < g.positions; ++p) {
        float theta = float(p + g.shift);
        for (qint64 i = 0; i < n; ++i) {
            const float ff = g.factors.empty() ? 1.0f : float(g.factors[std::size_t(i)]);
            const float extrapolated = g.fastTrig ? fastDivide(theta, ff) : theta / ff;
            const float interpolated = float(g.freqScale) * extrapolated;
            float angle = interpolated;
            if (g.yarn) {
                const float low = float(g.rampLow), high = float(g.rampHigh);
                const float y = (float(i) - low) / std::max(0.001f, high - low);
                const float mix = 1.0f - std::min(1.0f, std::max(0.0f, y));
                angle = interpolated * (1.0f - mix) + extrapolated * mix;
            }
            cosine[std::size_t(i)] =
                (g.fastTrig ? fastTrig(angle, true) : std::cos(angle)) * float(g.mscale);
            sine[std::size_t(i)] =
                (g.fastTrig ? fastTrig(angle, false) : std::sin(angle)) * float(g.mscale);
            const float power =
                g.fastTrig ? fastPow(thetaScale, float(i + 1)) : std::pow(thetaScale, float(i + 1));
            theta = g.cudaPow ? float(p + g.shift) * power : theta * thetaScale;
        }
        for (qint64 c = 0; c < columns; ++c) {
            const qint64 pair = g.form == Form::PerPair ? c : adjacent ? c / 2 : c % n;
            const bool cos =
                g.part == Part::Both ? (adjacent ? c % 2 == 0 : c < n) : g.part == Part::Cos;
            t.values.push_back(double(cos ? cosine[std::size_t(pair)] : sine[std::size_t(pair)]));
        }
    }
    return t;
}

// ggml's frequency factors that turn base^(-2i/dims) into `theta` (how llama.cpp's converter
// writes rope_freqs for llama3 and longrope): a zero frequency is an infinite factor.
std::vector<double> ggmlFactors(double base, qint64 dims, const std::vector<double> &theta)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < theta.size(); ++i)
        out.push_back(theta[i] == 0.0 ? std::numeric_limits<double>::infinity()
                                      : std::pow(base, -2.0 * double(i) / double(dims)) / theta[i]);
    return out;
}

// HF's YaRN correction range (beta_fast 32, beta_slow 1, truncated), in float64: ggml computes it
// itself in float32 (ggml_rope_yarn_corr_dims); after floor / ceil the configs here give the
// same integers either way.
std::pair<double, double> yarnRamp(double base, qint64 dim, double original)
{
    const auto correction = [&](double rotations) {
        return double(dim) * std::log(original / (rotations * 2 * std::numbers::pi)) /
               (2 * std::log(base));
    };
    return {std::max(std::floor(correction(32)), 0.0),
            std::min(std::ceil(correction(1)), double(dim - 1))};
}

// Qwen2.5-7B's YaRN x4 (original 32768) on base 1e6, ggml's way.
Ggml qwenYarnGgml()
{
    Ggml g;
    g.base = 1e6;
    g.freqScale = 0.25;
    g.yarn = true;
    std::tie(g.rampLow, g.rampHigh) = yarnRamp(1e6, 128, 32768.0);
    g.mscale = 0.1 * std::log(4.0) + 1.0;
    g.positions = 2048;
    return g;
}

// HF's dynamic NTK base: base * (s L / M - (s - 1))^(d / (d - 2)).
double dynamicBase(double base, double s, double length, double maxPositions, double d)
{
    return base * std::pow(s * length / maxPositions - (s - 1.0), d / (d - 2.0));
}

RopeConfig llama2()
{
    RopeConfig c;
    c.maxPositionEmbeddings = 4096;
    c.pairing = RopePairing::Half;
    return c;
}

QString reportOf(const RopeVerifyResult &result, const RopeVerifyOptions &options)
{
    return ropeVerifyReport(result, options).join(u'\n');
}

} // namespace

class TestRopeVerify : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(!mistakes().isEmpty()); }

    void diagnoses_data()
    {
        QTest::addColumn<QJsonObject>("record");
        for (const QJsonValue &item : mistakes().value(QLatin1String("tables")).toArray()) {
            const QJsonObject record = item.toObject();
            QTest::addRow("%s", qPrintable(record.value(QLatin1String("name")).toString()))
                << record;
        }
    }
    void diagnoses()
    {
        QFETCH(QJsonObject, record);
        qint64 headDim = 0;
        const RopeConfig config = gptOss32(&headDim);
        // Against the model's own (half) layout, and float64 exactness demanded: then a table
        // in the other layout, or one computed with float32 angles, differs and is diagnosed.
        RopeVerifyOptions options;
        options.layout = RopeLayout::Half;
        options.strict = true;
        const auto what = parseAs<RopeQuantity>(ropeQuantityNames,
                                                record.value(QLatin1String("what")).toString());
        QVERIFY(what);
        options.what = *what;
        const RopeTable candidate{record.value(QLatin1String("rows")).toInteger(),
                                  record.value(QLatin1String("columns")).toInteger(),
                                  jsonDoubles(record.value(QLatin1String("values")))};
        const auto expected = mistakeNamed(record.value(QLatin1String("mistake")).toString());
        QVERIFY(expected);

        const RopeVerifyResult result = verify(headDim, config, options, candidate);
        QCOMPARE(result.compared, qint64(candidate.values.size()));
        const QString report = ropeVerifyReport(result, options).join(u'\n');
        QVERIFY2(result.mistake == *expected, qPrintable(report));
        QCOMPARE(result.agrees, *expected == RopeMistake::None);
        QCOMPARE(result.diagnosis.isEmpty(), *expected == RopeMistake::None);
        // Without --strict, float32 angles agree, and say so.
        if (*expected == RopeMistake::Float32Angles) {
            options.strict = false;
            const RopeVerifyResult relaxed = verify(headDim, config, options, candidate);
            QVERIFY(relaxed.agrees);
            QCOMPARE(relaxed.agreement, RopeAgreement::RoundedAngles);
            QVERIFY2(ropeVerifyReport(relaxed, options)
                         .join(u'\n')
                         .contains(u"up to float32 rounding of the angles"_qs),
                     qPrintable(ropeVerifyReport(relaxed, options).join(u'\n')));
        }
        if (!result.agrees) {
            QVERIFY(result.differing > 0);
            QVERIFY(report.contains(u"diagnosis: "_qs + result.diagnosis));
            QVERIFY(report.contains(u"first difference at "_qs));
        }
    }

    // Other engines' attention factors on DeepSeek-style parameters.
    void attentionFormulas_data()
    {
        QTest::addColumn<QJsonObject>("record");
        for (const QJsonValue &item :
             mistakes().value(QLatin1String("attention_cases")).toArray()) {
            const QJsonObject record = item.toObject();
            QTest::addRow("%s", qPrintable(record.value(QLatin1String("name")).toString()))
                << record;
        }
    }
    void attentionFormulas()
    {
        QFETCH(QJsonObject, record);
        const qint64 headDim = record.value(QLatin1String("head_dim")).toInteger();
        RopeVerifyOptions options;
        options.what = RopeQuantity::AttentionFactor;
        const RopeVerifyResult result =
            verify(headDim, configOf(record), options,
                   vectorTable({record.value(QLatin1String("value")).toDouble()}));
        const auto expected = mistakeNamed(record.value(QLatin1String("mistake")).toString());
        QVERIFY(expected);
        QVERIFY2(result.mistake == *expected,
                 qPrintable(ropeVerifyReport(result, options).join(u'\n')));
        const QString name = record.value(QLatin1String("name")).toString();
        if (name.startsWith(u"mscale_all_dim"_qs))
            QVERIFY(result.diagnosis.startsWith(u"mscale_all_dim ignored"_qs));
        else if (name.startsWith(u"mscale"_qs))
            QVERIFY(result.diagnosis.startsWith(u"mscale / mscale_all_dim ignored"_qs));
        else if (name.endsWith(u"ignored"_qs))
            QVERIFY(result.diagnosis.contains(u"explicit attention_factor 1 ignored"_qs));
    }

    // Tables: absolute tolerance, and the first value beyond it in row-major order.
    void tableTolerance()
    {
        qint64 headDim = 0;
        const RopeConfig config = gptOss32(&headDim);
        RopeTable candidate = ropeTable(headDim, config, RopeTableKind::Cos, 40, true);
        const double original = candidate.at(17, 21);
        candidate.values[std::size_t(17 * candidate.columns + 21)] += 5e-6;
        candidate.values[std::size_t(30 * candidate.columns + 2)] -= 4e-6;
        RopeVerifyOptions options;
        options.tolerance = 1e-5;
        RopeVerifyResult result = verify(headDim, config, options, candidate);
        QVERIFY(result.agrees);
        PE_COMPARE_NEAR(result.maxAbsError, 5e-6, 1e-12);
        QCOMPARE(result.first.position, qint64(-1));

        options.tolerance = 2e-6;
        result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QCOMPARE(result.differing, qint64(2));
        QCOMPARE(result.first.position, qint64(17));
        QCOMPARE(result.first.column, qint64(21));
        QCOMPARE(result.first.pair, qint64(21 - 16)); // half layout: column 21 of 32 is pair 5
        QCOMPARE(result.first.reference, original);
        QCOMPARE(result.first.candidate, original + 5e-6);
        QCOMPARE(result.worst.position, qint64(17));
        // 5e-6 at an angle of 0.4 rad is beyond float32's reach, and no known mistake fits.
        QCOMPARE(result.agreement, RopeAgreement::Differs);
        QCOMPARE(result.mistake, RopeMistake::None);
        QCOMPARE(result.diagnosis, u"no known mistake explains this"_qs);
        const QStringList report = ropeVerifyReport(result, options);
        QVERIFY2(
            report.join(u'\n').contains(u"first difference at position 17, pair 5 (column 21)"_qs),
            qPrintable(report.join(u'\n')));
        QCOMPARE(report.size(), 4); // the worst cell against the allowance too
        QCOMPARE(report.last(), u"diagnosis: no known mistake explains this"_qs);

        // A NaN never agrees, whatever the tolerance.
        candidate = ropeTable(headDim, config, RopeTableKind::Cos, 3, true);
        candidate.values[4] = std::nan("");
        options.tolerance = 1e9;
        result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QCOMPARE(result.first.position, qint64(0));
        QCOMPARE(result.first.column, qint64(4));
        QVERIFY(std::isinf(result.maxAbsError));
    }

    // inv_freq: relative tolerance, so the slowest frequencies count as much as the fastest.
    void frequencyTolerance()
    {
        qint64 headDim = 0;
        const RopeConfig config = gptOss32(&headDim);
        std::vector<double> theta = ropeInverseFrequencies(headDim, config).inverseFrequencies;
        const double slowest = theta.back(); // 3e-7 rad per position
        QVERIFY(slowest < 1e-6);
        RopeVerifyOptions options;
        options.what = RopeQuantity::InverseFrequencies;
        theta.back() = slowest + 1e-8; // 3 % off: absolutely tiny, relatively not
        RopeVerifyResult result = verify(headDim, config, options, vectorTable(theta));
        QVERIFY(!result.agrees);
        QCOMPARE(result.first.pair, qint64(theta.size() - 1));
        QCOMPARE(result.first.position, qint64(-1));
        PE_COMPARE_NEAR(result.maxRelError, 1e-8 / slowest, 1e-9);
        theta.back() = slowest * (1 + 5e-7);
        QVERIFY(verify(headDim, config, options, vectorTable(theta)).agrees);
        // A column vector is accepted too.
        RopeTable column{qint64(theta.size()), 1, theta};
        QVERIFY(verify(headDim, config, options, column).agrees);
    }

    // HF's own float32 inv_freq passes the default tolerance; below float32's precision it
    // agrees up to float32 rounding, and with --strict it differs, recognised as float32.
    void float32FrequenciesBelowTheirPrecision()
    {
        qint64 headDim = 0;
        const RopeConfig config = gptOss32(&headDim);
        QJsonObject record;
        for (const QJsonValue &item : mistakes().value(QLatin1String("tables")).toArray())
            if (item.toObject().value(QLatin1String("name")).toString() ==
                u"inv_freq, hf's float32"_qs)
                record = item.toObject();
        QVERIFY(!record.isEmpty());
        const RopeTable candidate = vectorTable(jsonDoubles(record.value(QLatin1String("values"))));
        RopeVerifyOptions options;
        options.what = RopeQuantity::InverseFrequencies;
        QVERIFY(verify(headDim, config, options, candidate).agrees);
        options.tolerance = 1e-9;
        RopeVerifyResult result = verify(headDim, config, options, candidate);
        QVERIFY(result.agrees);
        QVERIFY(result.agreement == RopeAgreement::RoundedValues ||
                result.agreement == RopeAgreement::RoundedAngles);
        options.strict = true;
        result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QVERIFY(result.mistake == RopeMistake::Float32Angles ||
                result.mistake == RopeMistake::Float32Values);
        QVERIFY(result.diagnosis.contains(u"float32"_qs));
    }

    // The unscaled comparison: a table multiplied by the factor is named as such.
    void unscaledComparison()
    {
        qint64 headDim = 0;
        const RopeConfig config = gptOss32(&headDim);
        RopeVerifyOptions options;
        options.scaled = false;
        QVERIFY(verify(headDim, config, options,
                       ropeTable(headDim, config, RopeTableKind::Cos, 20, false))
                    .agrees);
        const RopeVerifyResult result = verify(
            headDim, config, options, ropeTable(headDim, config, RopeTableKind::Cos, 20, true));
        QVERIFY(!result.agrees);
        QCOMPARE(result.mistake, RopeMistake::AttentionFactorTwice);
        QVERIFY(result.diagnosis.contains(u"leaves out"_qs));
    }

    // pescope's cos-sin matrix, pass-through columns included, against the kernels' phases.
    void cosSinWithPassThrough()
    {
        RopeConfig config;
        config.partialRotaryFactor = 0.5;
        config.pairing = RopePairing::Half;
        const qint64 headDim = 12, positions = 300;
        const auto columns = ropeColumnPhases(headDim, config);
        RopeTable candidate{positions, headDim, {}};
        for (qint64 p = 0; p < positions; ++p)
            for (const auto &column : columns)
                candidate.values.push_back(
                    kernels::sinOfPhase(std::uint64_t(p) * column.step + column.offset));
        RopeVerifyOptions options;
        options.what = RopeQuantity::CosSin;
        QVERIFY(verify(headDim, config, options, candidate).agrees);
        // A wrong pass-through value is reported at its column, with no pair.
        candidate.values[std::size_t(5 * headDim + 10)] = 0.5;
        const RopeVerifyResult result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QCOMPARE(result.first.position, qint64(5));
        QCOMPARE(result.first.column, qint64(10));
        QCOMPARE(result.first.pair, qint64(-1));
        // The interleaved layout: detected, or named as the mistake against an explicit half.
        RopeConfig other = config;
        other.pairing = RopePairing::Interleaved;
        const RopeTable interleaved = ropeTable(headDim, other, RopeTableKind::CosSin, 50, true);
        RopeVerifyResult detected = verify(headDim, config, options, interleaved);
        QVERIFY(detected.agrees);
        QCOMPARE(detected.layout, RopeLayout::Interleaved);
        QVERIFY(detected.layoutDetected);
        options.layout = RopeLayout::Half;
        const RopeVerifyResult swapped = verify(headDim, config, options, interleaved);
        QCOMPARE(swapped.mistake, RopeMistake::PairingSwapped);
    }

    // Llama 3.1's scaling dropped, and a linear factor put on the base.
    void frequencyMistakes()
    {
        RopeConfig llama;
        llama.ropeType = RopeType::Llama3;
        llama.ropeTheta = 500000.0;
        llama.factor = 8.0;
        llama.originalMaxPositionEmbeddings = 8192;
        RopeConfig plain = llama;
        plain.ropeType = RopeType::Default;
        RopeVerifyOptions options;
        options.what = RopeQuantity::InverseFrequencies;
        RopeVerifyResult result =
            verify(128, llama, options,
                   vectorTable(ropeInverseFrequencies(128, plain).inverseFrequencies));
        QCOMPARE(result.mistake, RopeMistake::ScalingIgnored);
        QVERIFY(result.diagnosis.contains(u"\"llama3\""_qs));

        RopeConfig linear;
        linear.ropeType = RopeType::Linear;
        linear.factor = 4.0;
        plain = RopeConfig{};
        plain.ropeTheta = 40000.0;
        result = verify(64, linear, options,
                        vectorTable(ropeInverseFrequencies(64, plain).inverseFrequencies));
        QCOMPARE(result.mistake, RopeMistake::FactorOnBase);
        QVERIFY(result.diagnosis.contains(u"rope_theta x factor = 40000"_qs));
        // The NTK-aware base instead of linear interpolation.
        RopeConfig ntk = linear;
        ntk.ropeType = RopeType::Ntk;
        result = verify(64, linear, options,
                        vectorTable(ropeInverseFrequencies(64, ntk).inverseFrequencies));
        QCOMPARE(result.mistake, RopeMistake::FactorOnBase);
        QVERIFY(result.diagnosis.contains(u"NTK-aware"_qs));
    }

    // HF's own float32 forward (the numbers a user dumps from transformers) agrees, for every
    // model of references.json: exactly, or up to float32 angles, saying so; --strict then
    // differs, diagnosed as float32.
    void hfFloat32ForwardAgrees_data()
    {
        QTest::addColumn<QJsonObject>("record");
        for (const QJsonValue &item : references().value(QLatin1String("cases")).toArray()) {
            const QJsonObject record = item.toObject();
            QTest::addRow("%s", qPrintable(record.value(QLatin1String("name")).toString()))
                << record;
        }
    }
    void hfFloat32ForwardAgrees()
    {
        QFETCH(QJsonObject, record);
        const qint64 headDim = caseHeadDim(record);
        RopeConfig config = configOf(record);
        config.sequenceLength = record.value(QLatin1String("sequence_length")).toInteger();
        const qint64 rows = headDim >= 256 ? 512 : 2048;
        const RopeTable table =
            make({caseTheta(record), caseScale(record), rows, Form::Half, Part::Cos, true});
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        RopeVerifyResult result = verify(headDim, config, options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.layout, RopeLayout::Half);
        QCOMPARE(result.pairs, qint64(caseTheta(record).size()));
        QVERIFY(reportOf(result, options).contains(u"cos agrees with Hugging Face"_qs));
        options.strict = true;
        const RopeVerifyResult strict = verify(headDim, config, options, table);
        if (result.agreement == RopeAgreement::Exact) {
            QVERIFY(strict.agrees);
        } else {
            QVERIFY2(!strict.agrees, qPrintable(reportOf(strict, options)));
            QVERIFY(strict.mistake == RopeMistake::Float32Angles ||
                    strict.mistake == RopeMistake::Float32Values);
        }
    }

    // The case: llama-tiny's default RoPE (head_dim 16), HF's float32 forward over 4096
    // positions with inv_freq computed by torch in float32 (float32 pow), 11676 values of which
    // differ from the float64 table by more than 1e-6: it agrees, up to float32 angles.
    void hfFloat32DefaultForward()
    {
        RopeConfig config;
        config.pairing = RopePairing::Half;
        config.maxPositionEmbeddings = 2048;
        const RopeTable table =
            make({hfFloat32Theta(10000.0, 16), 1.0, 4096, Form::Half, Part::Cos, true});
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        const RopeVerifyResult result = verify(16, config, options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.agreement, RopeAgreement::RoundedAngles);
        QVERIFY(result.differing > 1000);
        QVERIFY(result.maxAbsError > 1e-5 && result.maxAbsError < 1e-3);
        QVERIFY(result.roundingAllowance >= result.maxAbsError);
        QVERIFY(reportOf(result, options).contains(u"up to float32 rounding of the angles"_qs));
    }

    // A float64 table (pescope's own, or NumPy's float64) is exact to 1e-12 at F64 precision.
    void float64TableIsExact()
    {
        const QJsonObject record = referenceCase(u"llama 3.1"_qs);
        const RopeTable table = make({caseTheta(record), 1.0, 4096});
        RopeVerifyOptions options;
        options.tolerance = 1e-12;
        options.strict = true;
        const RopeVerifyResult result = verify(128, llama31(), options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.agreement, RopeAgreement::Exact);
        QVERIFY(result.maxAbsError < 1e-12);
        QVERIFY(reportOf(result, options).contains(u"at F64 precision"_qs));
    }

    // The reference is rounded to the file's type before the tolerance applies: exact F32, F16
    // and BF16 tables agree exactly; float32 values in a float64 file agree up to float32
    // rounding (differ with --strict).
    void filePrecision_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("rounding");
        QTest::addColumn<int>("agreement");
        QTest::addRow("F32") << int(TensorDType::F32) << 0 << int(RopeAgreement::Exact);
        QTest::addRow("F16") << int(TensorDType::F16) << 1 << int(RopeAgreement::Exact);
        QTest::addRow("BF16") << int(TensorDType::BF16) << 2 << int(RopeAgreement::Exact);
        QTest::addRow("float32 values in F64")
            << int(TensorDType::F64) << 0 << int(RopeAgreement::RoundedValues);
    }
    void filePrecision()
    {
        QFETCH(int, dtype);
        QFETCH(int, rounding);
        QFETCH(int, agreement);
        double (*const rounders[])(double) = {toF32, toF16, toBf16};
        const RopeTable exact = make({llama31Theta(), 1.0, 512});
        const RopeTable table = rounded(exact, rounders[rounding]);
        RopeVerifyOptions options;
        options.precision = TensorDType(dtype);
        options.tolerance = 1e-12;
        RopeVerifyResult result = verify(128, llama31(), options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(int(result.agreement), agreement);
        options.strict = true;
        result = verify(128, llama31(), options, table);
        QCOMPARE(result.agrees, agreement == int(RopeAgreement::Exact));
        if (!result.agrees) {
            QCOMPARE(result.mistake, RopeMistake::Float32Values);
            QVERIFY(result.diagnosis.contains(u"float32 rounding of the values"_qs));
        }
    }

    // A BF16 dump of HF's float32 forward agrees (its rounding may fall either way).
    void bf16OfFloat32Forward()
    {
        const RopeTable table =
            rounded(make({llama31Theta(), 1.0, 1024, Form::Half, Part::Cos, true}), toBf16);
        RopeVerifyOptions options;
        options.precision = TensorDType::BF16;
        const RopeVerifyResult result = verify(128, llama31(), options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
    }

    // Correct tables computed the llama.cpp way (ggml-cpu's float32 recurrence) agree for every
    // rope type HF ships (the rule's frequencies as ggml's per-pair factors), in HF's half cos
    // layout and in ggml's own per-pair (cos, sin) cache; --strict still demands float64.
    void ggmlRecurrenceAgrees_data()
    {
        QTest::addColumn<QJsonObject>("record");
        QTest::addColumn<bool>("cache");
        for (const QJsonValue &item : references().value(QLatin1String("cases")).toArray()) {
            const QJsonObject record = item.toObject();
            const QString name = record.value(QLatin1String("name")).toString();
            QTest::addRow("%s", qPrintable(name)) << record << false;
            QTest::addRow("%s, ggml's cache", qPrintable(name)) << record << true;
        }
    }
    void ggmlRecurrenceAgrees()
    {
        QFETCH(QJsonObject, record);
        QFETCH(bool, cache);
        const qint64 headDim = caseHeadDim(record);
        RopeConfig config = configOf(record);
        config.sequenceLength = record.value(QLatin1String("sequence_length")).toInteger();
        const std::vector<double> theta = caseTheta(record);
        const double base = record.value(QLatin1String("rope_parameters"))
                                .toObject()
                                .value(QLatin1String("rope_theta"))
                                .toDouble();
        Ggml g;
        g.base = base;
        g.pairs = qint64(theta.size());
        g.dims = 2 * g.pairs;
        g.factors = ggmlFactors(base, g.dims, theta);
        g.mscale = caseScale(record);
        g.positions = headDim >= 256 ? 512 : 2048;
        if (cache) {
            g.form = Form::Interleaved;
            g.part = Part::Both;
        }
        const RopeTable table = ggmlTable(g);
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        options.what = cache ? RopeQuantity::CosSin : RopeQuantity::Cos;
        const RopeVerifyResult result = verify(headDim, config, options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.layout, cache ? RopeLayout::Interleaved : RopeLayout::Half);
        QVERIFY(result.worstRatio <= 1.0);
        options.strict = true;
        const RopeVerifyResult strict = verify(headDim, config, options, table);
        if (result.agreement != RopeAgreement::Exact) {
            QVERIFY2(!strict.agrees, qPrintable(reportOf(strict, options)));
            QCOMPARE(strict.mistake, RopeMistake::Float32Angles);
        }
    }

    // The configs, written from ggml's own parameters (freq_scale, YaRN's ramp, dynamic's
    // base), and Llama 2's 4096 positions: their error is beyond HF's float32 product and the
    // report says which computation it is consistent with.
    void ggmlPublishedConfigs()
    {
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        // Llama 2 7B, plain, 4096 positions.
        Ggml plain;
        RopeVerifyResult result = verify(128, llama2(), options, ggmlTable(plain));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.agreement, RopeAgreement::AccumulatedAngles);
        QVERIFY(result.maxAbsError > 2.5e-4); // beyond HF's float32 forward (2.3e-4)
        QVERIFY2(reportOf(result, options)
                     .contains(u"consistent with float32 angles accumulated by repeated "
                               "multiplication (theta *= theta_scale), as ggml does"_qs),
                 qPrintable(reportOf(result, options)));
        QVERIFY(reportOf(result, options).contains(u"nearest to the allowance: position "_qs));
        // Linear x2: freq_scale 0.5.
        RopeConfig linear = llama2();
        linear.ropeType = RopeType::Linear;
        linear.factor = 2.0;
        Ggml half = plain;
        half.freqScale = 0.5;
        result = verify(128, linear, options, ggmlTable(half));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        // Dynamic x2 at 8192 positions (HF's base grows beyond max_position_embeddings 4096).
        RopeConfig dynamic = llama2();
        dynamic.ropeType = RopeType::Dynamic;
        dynamic.factor = 2.0;
        dynamic.sequenceLength = 8192;
        Ggml grown = plain;
        grown.base = dynamicBase(10000.0, 2.0, 8192.0, 4096.0, 128.0);
        grown.positions = 2048;
        result = verify(128, dynamic, options, ggmlTable(grown));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        // Llama 3.1 8B: the llama3 rule as rope_freqs factors.
        Ggml llama3 = plain;
        llama3.base = 500000.0;
        llama3.factors = ggmlFactors(500000.0, 128, llama31Theta());
        result = verify(128, llama31(), options, ggmlTable(llama3));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        // Qwen2.5-7B YaRN x4: freq_scale 1/4, the ramp, mscale 0.1 ln 4 + 1.
        const RopeConfig qwen = configOf(referenceCase(u"qwen2.5 yarn x4"_qs));
        result = verify(128, qwen, options, ggmlTable(qwenYarnGgml()));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        // ggml's frequencies as a vector: theta_scale^i by repeated float32 multiplication.
        std::vector<double> recurrence;
        float theta = 1.0f;
        const float thetaScale = std::pow(10000.0f, -2.0f / 128.0f);
        for (int i = 0; i < 64; ++i, theta *= thetaScale)
            recurrence.push_back(double(theta));
        RopeVerifyOptions vector = options;
        vector.what = RopeQuantity::InverseFrequencies;
        result = verify(128, llama2(), vector, vectorTable(recurrence));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, vector)));
        QVERIFY(result.agreement == RopeAgreement::AccumulatedAngles ||
                result.agreement == RopeAgreement::RoundedAngles);
        vector.strict = true;
        QCOMPARE(verify(128, llama2(), vector, vectorTable(recurrence)).mistake,
                 RopeMistake::Float32Angles);
        // ggml-cuda: p * powf(theta_scale, i), within the same bound.
        Ggml cuda = plain;
        cuda.cudaPow = true;
        result = verify(128, llama2(), options, ggmlTable(cuda));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        // ... through the fast functions -use_fast_math makes of sinf / cosf, powf and the
        // division, each at its documented worst: agrees, and says so (their 2^-21.41 hides
        // within the default tolerance of 1e-6 where the angle is small: a tighter one shows it).
        cuda.fastTrig = true;
        options.tolerance = 1e-7;
        result = verify(128, llama2(), options, ggmlTable(cuda));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.agreement, RopeAgreement::ApproximateTrig);
        QVERIFY2(reportOf(result, options).contains(u"consistent with __sinf / __cosf"_qs),
                 qPrintable(reportOf(result, options)));
        QVERIFY(result.worstRatio <= 1.0);
        // Llama 3.1's rope_freqs divided by __fdividef, at 2048 positions.
        Ggml fastLlama3 = llama3;
        fastLlama3.cudaPow = true;
        fastLlama3.fastTrig = true;
        fastLlama3.positions = 2048;
        result = verify(128, llama31(), options, ggmlTable(fastLlama3));
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(result.agreement, RopeAgreement::ApproximateTrig);
        // A planted mistake is still named through that noise.
        cuda.shift = 1;
        result = verify(128, llama2(), options, ggmlTable(cuda));
        QCOMPARE(result.mistake, RopeMistake::PositionsShifted);
        QVERIFY2(result.diagnosis.contains(u"with fast approximate sine and cosine"_qs),
                 qPrintable(result.diagnosis));
    }

    // Known engine bugs planted in tables as noisy as ggml's: each named, as in a clean table
    // (the hypotheses are ranked against the same float32 error model).
    void ggmlBugZoo_data()
    {
        QTest::addColumn<int>("bug");
        QTest::addColumn<int>("mistake");
        QTest::addColumn<QString>("text");
        const auto row = [](const char *name, int bug, RopeMistake mistake, const QString &text) {
            QTest::addRow("%s", name) << bug << int(mistake) << text;
        };
        row("llama 3.1: scaling ignored", 0, RopeMistake::ScalingIgnored,
            u"rope_type \"llama3\" scaling ignored"_qs);
        row("qwen yarn: scaling ignored", 1, RopeMistake::ScalingIgnored,
            u"rope_type \"yarn\" scaling ignored"_qs);
        row("phi-3: scaling ignored", 2, RopeMistake::ScalingIgnored,
            u"rope_type \"longrope\" scaling ignored"_qs);
        row("llama 2: positions shifted by one", 3, RopeMistake::PositionsShifted,
            u"positions shifted by +1"_qs);
        row("qwen yarn: attention factor dropped", 4, RopeMistake::AttentionFactorDropped,
            u"attention factor dropped"_qs);
        row("qwen yarn: attention factor twice", 5, RopeMistake::AttentionFactorTwice,
            u"attention factor applied twice"_qs);
        row("llama 2: neox vs gpt-j pairing", 6, RopeMistake::PairingSwapped,
            u"half vs interleaved pairing swapped"_qs);
        row("llama 2: base 30000", 7, RopeMistake::BaseChanged,
            u"rope_theta 30000 (the config says 10000)"_qs);
        row("dynamic x2: base computed at 8192", 8, RopeMistake::BaseChanged,
            u"dynamic NTK's base computed at sequence length 8192"_qs);
        row("llama 3.1: config ignored", 9, RopeMistake::ConfigIgnored,
            u"the config ignored altogether"_qs);
        row("phi-3: short factors beyond the original context", 10, RopeMistake::LongropeFactorSet,
            u"matches short_factor"_qs);
        row("partial rotary width ignored", 11, RopeMistake::RotaryWidth,
            u"partial_rotary_factor 0.25 ignored"_qs);
        row("llama 3.1: scaling ignored and base 1e6", 12, RopeMistake::ScalingIgnored,
            u"two mistakes: rope_type \"llama3\" scaling ignored and another base: the table "
            "matches the default type's frequencies with rope_theta 1000000"_qs);
        // HF's float32 product at a base that is no round number: named as that real base
        // (30528, within ggml's recurrence noise of it, explains the table only under that
        // looser computation, which a product-made table does not claim).
        row("llama 2, product-made: a real base (30527.74)", 14, RopeMistake::BaseChanged,
            u"another base theta: the table matches rope_theta 30527.74 (the config says "
            "10000)"_qs);
        row("phi-3: long factors at exactly 4096 positions (>= for >)", 13,
            RopeMistake::LongropeFactorSet,
            u"matches long_factor, but at sequence length 4096 (<= original_max_position_"
            "embeddings 4096)"_qs);
    }
    void ggmlBugZoo()
    {
        QFETCH(int, bug);
        QFETCH(int, mistake);
        QFETCH(QString, text);
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        qint64 headDim = 128;
        RopeConfig config = llama2();
        Ggml g;
        const QJsonObject phi = referenceCase(u"phi-3-mini-128k longrope, seq_len 4097 (long)"_qs);
        std::optional<RopeTable> product; // a table made HF's way instead of ggml's
        switch (bug) {
        case 0: // Llama 3.1 without its rope_freqs
            config = llama31();
            g.base = 500000.0;
            g.positions = 2048;
            break;
        case 1: // Qwen YaRN as plain RoPE on base 1e6
        case 4: // ... with mscale 1
        case 5: // ... with mscale squared
            config = configOf(referenceCase(u"qwen2.5 yarn x4"_qs));
            g = qwenYarnGgml();
            if (bug == 1) {
                g.freqScale = 1.0;
                g.yarn = false;
            }
            g.mscale = bug == 5 ? g.mscale * g.mscale : bug == 4 ? 1.0 : g.mscale;
            break;
        case 2:  // Phi-3 beyond 4096 positions without its factors (or attention factor)
        case 10: // ... with the short factors
            config = configOf(phi);
            config.sequenceLength = 4200;
            headDim = 96;
            g.dims = 96;
            g.pairs = 48;
            g.positions = 4200;
            if (bug == 10) {
                g.factors = jsonDoubles(phi.value(QLatin1String("rope_parameters"))
                                            .toObject()
                                            .value(QLatin1String("short_factor")));
                g.mscale = caseScale(phi);
            }
            break;
        case 3:
            g.shift = 1;
            break;
        case 6: // GPT-J's pairing where the comparison asks for NeoX's
            g.form = Form::Interleaved;
            options.layout = RopeLayout::Half;
            break;
        case 7:
            g.base = 30000.0;
            break;
        case 8: // vLLM's old dynamic NTK: the base at max_position_embeddings x factor
            config.ropeType = RopeType::Dynamic;
            config.factor = 2.0;
            g.base = dynamicBase(10000.0, 2.0, 8192.0, 4096.0, 128.0);
            break;
        case 9: // Llama 3.1 computed with llama.cpp's defaults
            config = llama31();
            g.positions = 2048;
            break;
        case 12: // Llama 3.1 as Qwen's plain RoPE: base 1e6, no rope_freqs
            config = llama31();
            g.base = 1e6;
            g.positions = 2048;
            break;
        // An engine whose long / short switch is off by one: the long factors at n_ctx >=
        // original, where HF switches at seq_len > original_max_position_embeddings (as does
        // llama.cpp's get_rope_factors: n_ctx_per_seq > n_ctx_orig_yarn).
        case 13:
            config = configOf(phi);
            config.sequenceLength = 4096;
            headDim = 96;
            g.dims = 96;
            g.pairs = 48;
            g.positions = 4096;
            g.factors = jsonDoubles(phi.value(QLatin1String("rope_parameters"))
                                        .toObject()
                                        .value(QLatin1String("long_factor")));
            g.mscale = caseScale(phi);
            break;
        case 14: // vLLM's old dynamic base on a plain config (a base that is no round number),
                 // in a table made HF's way: float32 inv_freq times float32 positions
            product = make({hfFloat32Theta(dynamicBase(10000.0, 2.0, 8192.0, 4096.0, 128.0), 128),
                            1.0, g.positions, Form::Half, Part::Cos, true});
            break;
        case 11: // GPT-NeoX's 64-dim heads, 16 rotary dims: all 64 rotated
            headDim = 64;
            config.partialRotaryFactor = 0.25;
            g.dims = 64;
            g.pairs = 32;
            g.positions = 1024;
            break;
        default:
            QFAIL("no such bug");
        }
        if (config.sequenceLength == 0)
            config.sequenceLength = g.positions;
        const RopeVerifyResult result =
            verify(headDim, config, options, product ? *product : ggmlTable(g));
        QVERIFY2(!result.agrees, qPrintable(reportOf(result, options)));
        QVERIFY2(int(result.mistake) == mistake && result.diagnosis.contains(text),
                 qPrintable(reportOf(result, options)));
        // A product-made table is not said to be computed ggml's way.
        if (product)
            QVERIFY2(!result.diagnosis.contains(u"as ggml"_qs), qPrintable(result.diagnosis));
    }

    // The same bugs in tables made HF's (and vLLM's) way, float32 inv_freq times float32
    // positions: named under the product, never said to be ggml's recurrence.
    void productBugZoo_data()
    {
        QTest::addColumn<int>("bug");
        QTest::addColumn<int>("mistake");
        QTest::addColumn<QString>("text");
        const auto row = [](const char *name, int bug, RopeMistake mistake, const QString &text) {
            QTest::addRow("%s", name) << bug << int(mistake) << text;
        };
        row("llama 2: positions shifted by one", 0, RopeMistake::PositionsShifted,
            u"positions shifted by +1"_qs);
        row("llama 2: base 30000", 1, RopeMistake::BaseChanged,
            u"rope_theta 30000 (the config says 10000)"_qs);
        row("llama 3.1: scaling ignored", 2, RopeMistake::ScalingIgnored,
            u"rope_type \"llama3\" scaling ignored"_qs);
        row("llama 3.1: config ignored", 3, RopeMistake::ConfigIgnored,
            u"the config ignored altogether"_qs);
    }
    void productBugZoo()
    {
        QFETCH(int, bug);
        QFETCH(int, mistake);
        QFETCH(QString, text);
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        RopeConfig config = llama2();
        Made m{hfFloat32Theta(10000.0, 128), 1.0, 2048, Form::Half, Part::Cos, true};
        switch (bug) {
        case 0:
            m.shift = 1;
            break;
        case 1:
            m.theta = hfFloat32Theta(30000.0, 128);
            break;
        case 2:
            config = llama31();
            m.theta = hfFloat32Theta(500000.0, 128);
            break;
        case 3:
            config = llama31();
            break;
        default:
            QFAIL("no such bug");
        }
        config.sequenceLength = m.positions;
        const RopeVerifyResult result = verify(128, config, options, make(m));
        QVERIFY2(!result.agrees, qPrintable(reportOf(result, options)));
        QVERIFY2(int(result.mistake) == mistake && result.diagnosis.contains(text),
                 qPrintable(reportOf(result, options)));
        QVERIFY2(!result.diagnosis.contains(u"as ggml"_qs) &&
                     !result.diagnosis.contains(u"fast approximate"_qs),
                 qPrintable(result.diagnosis));
    }

    // Values rounded to float16 or bfloat16 and stored as float32 are named; the same values in
    // a float16 file agree at its precision.
    void halfPrecisionValuesNamed()
    {
        const RopeTable exact = make({defaultTheta(10000.0, 128), 1.0, 1024});
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        RopeVerifyResult result = verify(128, llama2(), options, rounded(exact, toF16));
        QCOMPARE(result.mistake, RopeMistake::HalfPrecisionValues);
        QVERIFY2(result.diagnosis.contains(u"rounded to float16 and stored as float32"_qs),
                 qPrintable(result.diagnosis));
        result = verify(128, llama2(), options, rounded(exact, toBf16));
        QCOMPARE(result.mistake, RopeMistake::HalfPrecisionValues);
        QVERIFY(result.diagnosis.contains(u"bfloat16"_qs));
        options.precision = TensorDType::F16;
        QVERIFY(verify(128, llama2(), options, rounded(exact, toF16)).agrees);
    }

    // The report measures a difference where it matters: relative to the pair's magnitude (no
    // blow-up at a zero crossing), the angle error of cos-sin pairs, and the worst cell against
    // the allowance with both values.
    void reportAtZeroCrossings()
    {
        RopeTable table = make({defaultTheta(10000.0, 128), 1.0, 512, Form::Half, Part::Both});
        // A cos near its zero crossing: p = 11, pair 0 (11 rad is 0.0044 from 7 pi / 2).
        const std::size_t cell = std::size_t(11 * 128 + 0);
        table.values[cell] += 1e-4;
        RopeVerifyOptions options;
        options.what = RopeQuantity::CosSin;
        const RopeVerifyResult result = verify(128, llama2(), options, table);
        QVERIFY(!result.agrees);
        PE_COMPARE_NEAR(result.maxRelError, 1e-4, 1e-9);
        PE_COMPARE_NEAR(result.maxAngleError, 1e-4, 1e-6);
        QCOMPARE(result.worstAllowed.position, qint64(11));
        QCOMPARE(result.worstAllowed.pair, qint64(0));
        QVERIFY(result.worstRatio > 1.0);
        const QString report = reportOf(result, options);
        QVERIFY2(report.contains(u"worst against the allowance"_qs) &&
                     report.contains(u"position 11, pair 0 (column 0)"_qs) &&
                     report.contains(u"max angle error 0.0001 rad"_qs),
                 qPrintable(report));
    }

    // Every layout HF and the engines emit, detected (complex from the shape, as the CLI says).
    void layouts_data()
    {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<int>("form");
        QTest::addColumn<int>("part");
        QTest::addColumn<int>("layout");
        QTest::addColumn<bool>("scaled");
        const int cos = int(Part::Cos), sin = int(Part::Sin), both = int(Part::Both);
        QTest::addRow("gpt-oss: one column per pair")
            << u"gpt-oss yarn"_qs << int(Form::PerPair) << cos << int(RopeLayout::PerPair) << true;
        QTest::addRow("gpt-oss sin, one column per pair")
            << u"gpt-oss yarn"_qs << int(Form::PerPair) << sin << int(RopeLayout::PerPair) << true;
        QTest::addRow("llama.cpp: interleaved cos") << u"llama 3.1"_qs << int(Form::Interleaved)
                                                    << cos << int(RopeLayout::Interleaved) << true;
        QTest::addRow("deepseek-v3: HF's half cos")
            << u"deepseek-v3 yarn"_qs << int(Form::Half) << cos << int(RopeLayout::Half) << true;
        QTest::addRow("llama 4: complex freqs_cis")
            << u"llama 3.1"_qs << int(Form::Complex) << both << int(RopeLayout::Complex) << true;
        QTest::addRow("cos-sin, half")
            << u"qwen2.5 yarn x4"_qs << int(Form::Half) << both << int(RopeLayout::Half) << true;
        QTest::addRow("cos-sin, interleaved") << u"qwen2.5 yarn x4"_qs << int(Form::Interleaved)
                                              << both << int(RopeLayout::Interleaved) << true;
        QTest::addRow("without the attention factor")
            << u"gpt-oss yarn"_qs << int(Form::Half) << cos << int(RopeLayout::Half) << false;
    }
    void layouts()
    {
        QFETCH(QString, reference);
        QFETCH(int, form);
        QFETCH(int, part);
        QFETCH(int, layout);
        QFETCH(bool, scaled);
        const QJsonObject record = referenceCase(reference);
        const std::vector<double> theta = caseTheta(record);
        const RopeTable table =
            make({theta, scaled ? caseScale(record) : 1.0, 300, Form(form), Part(part), true});
        RopeVerifyOptions options;
        options.what = Part(part) == Part::Both  ? RopeQuantity::CosSin
                       : Part(part) == Part::Sin ? RopeQuantity::Sin
                                                 : RopeQuantity::Cos;
        options.precision = TensorDType::F32;
        options.scaled = scaled;
        if (Form(form) == Form::Complex)
            options.layout = RopeLayout::Complex; // what the CLI sets for a trailing 2
        const RopeVerifyResult result =
            verify(caseHeadDim(record), configOf(record), options, table);
        QVERIFY2(result.agrees, qPrintable(reportOf(result, options)));
        QCOMPARE(int(result.layout), layout);
        QCOMPARE(result.layoutDetected, Form(form) != Form::Complex);
        QCOMPARE(result.pairs, qint64(theta.size()));
    }

    // Longrope's other factor set: short_factor beyond the original context, long within it.
    void longropeOtherFactorSet()
    {
        const QJsonObject record = referenceCase(u"phi-3-mini-128k longrope, init (short)"_qs);
        const QJsonObject parameters = record.value(QLatin1String("rope_parameters")).toObject();
        const std::vector<double> shortTheta = longropeTheta(
            10000.0, 96, jsonDoubles(parameters.value(QLatin1String("short_factor"))));
        const std::vector<double> longTheta =
            longropeTheta(10000.0, 96, jsonDoubles(parameters.value(QLatin1String("long_factor"))));
        const double scale = caseScale(record);
        RopeConfig config = configOf(record);
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        // 4200 positions > 4096: HF's forward uses long_factor; short is the mistake.
        config.sequenceLength = 4200;
        RopeVerifyResult result = verify(
            96, config, options, make({shortTheta, scale, 4200, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::LongropeFactorSet);
        QVERIFY2(result.diagnosis.contains(u"matches short_factor, but at sequence length 4200"_qs),
                 qPrintable(result.diagnosis));
        // ... and the right set agrees.
        QVERIFY(
            verify(96, config, options, make({longTheta, scale, 4200, Form::Half, Part::Cos, true}))
                .agrees);
        // 256 positions: short_factor; long is the mistake.
        config.sequenceLength = 256;
        result =
            verify(96, config, options, make({longTheta, scale, 256, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::LongropeFactorSet);
        QVERIFY(result.diagnosis.contains(u"matches long_factor"_qs));
        // inv_freq as the module holds it once loaded: short.
        config.sequenceLength = 0;
        options.what = RopeQuantity::InverseFrequencies;
        result = verify(96, config, options, vectorTable(longTheta));
        QCOMPARE(result.mistake, RopeMistake::LongropeFactorSet);
        QVERIFY(result.diagnosis.contains(u"seq_len None"_qs));
    }

    // Another scaling rule, named: linear or llama3 where the config says otherwise.
    void otherScalingRule()
    {
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        // Llama 3.1 computed with linear interpolation by its factor 8.
        RopeVerifyResult result = verify(128, llama31(), options,
                                         make({divided(defaultTheta(500000.0, 128), 8.0), 1.0, 512,
                                               Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::ScalingRuleSwapped);
        QVERIFY2(result.diagnosis.contains(u"rope_type \"linear\" with factor 8 (the config says "
                                           "\"llama3\")"_qs),
                 qPrintable(result.diagnosis));
        // Qwen2.5's yarn x4 computed with llama3's rule (factor 4 from 32768, low 1, high 4).
        const QJsonObject qwen = referenceCase(u"qwen2.5 yarn x4"_qs);
        result = verify(128, configOf(qwen), options,
                        make({llama3Theta(1e6, 4.0, 1.0, 4.0, 32768.0, 128), 1.0, 512, Form::Half,
                              Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::ScalingRuleSwapped);
        QVERIFY2(result.diagnosis.contains(u"\"llama3\""_qs), qPrintable(result.diagnosis));
        // Llama 3.1 computed with YaRN by its factor 8 from 8192, with YaRN's attention factor.
        result = verify(128, llama31(), options,
                        make({yarnTheta(500000.0, 128, 8.0, 8192.0), 0.1 * std::log(8.0) + 1.0, 512,
                              Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::ScalingRuleSwapped);
        QVERIFY2(result.diagnosis.contains(u"rope_type \"yarn\" with factor 8"_qs),
                 qPrintable(result.diagnosis));
        // Dynamic NTK at 10,000 positions computed as linear scaling.
        const QJsonObject dynamic = referenceCase(u"dynamic x2, seq_len 10000"_qs);
        RopeConfig config = configOf(dynamic);
        config.sequenceLength = 10000;
        result = verify(
            64, config, options,
            make({divided(defaultTheta(10000.0, 64), 2.0), 1.0, 512, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::ScalingRuleSwapped);
        QVERIFY2(result.diagnosis.contains(u"\"linear\""_qs), qPrintable(result.diagnosis));
    }

    // Positions shifted by k, found exactly.
    void positionsShifted_data()
    {
        QTest::addColumn<qint64>("shift");
        QTest::addColumn<QString>("text");
        QTest::addRow("+1") << qint64(1)
                            << u"positions shifted by +1: row p holds position p + 1"_qs;
        QTest::addRow("-3") << qint64(-3)
                            << u"positions shifted by -3: row p holds position p - 3"_qs;
        QTest::addRow("+37") << qint64(37) << u"positions shifted by +37"_qs;
    }
    void positionsShifted()
    {
        QFETCH(qint64, shift);
        QFETCH(QString, text);
        RopeConfig config;
        config.pairing = RopePairing::Half;
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        const RopeVerifyResult result = verify(
            128, config, options,
            make({defaultTheta(10000.0, 128), 1.0, 200, Form::Half, Part::Cos, true, shift}));
        QCOMPARE(result.mistake, RopeMistake::PositionsShifted);
        QVERIFY2(result.diagnosis.startsWith(text), qPrintable(result.diagnosis));
    }

    // Another base theta, fitted from the table and named.
    void anotherBase()
    {
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        // Llama 3.1's rule on HF's default base 10000.
        RopeVerifyResult result = verify(128, llama31(), options,
                                         make({llama3Theta(10000.0, 8.0, 1.0, 4.0, 8192.0, 128),
                                               1.0, 512, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::BaseChanged);
        QVERIFY2(result.diagnosis.contains(u"rope_theta 10000 (the config says 500000)"_qs),
                 qPrintable(result.diagnosis));
        // Qwen2.5 (base 1,000,000) with base 250,000: no default, fitted from the table.
        RopeConfig qwen;
        qwen.ropeTheta = 1e6;
        qwen.pairing = RopePairing::Half;
        result =
            verify(128, qwen, options,
                   make({defaultTheta(250000.0, 128), 1.0, 4096, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::BaseChanged);
        QVERIFY2(result.diagnosis.contains(u"rope_theta 250000 (the config says 1000000)"_qs),
                 qPrintable(result.diagnosis));
        // inv_freq: fitted from the ratio of the first two.
        options.what = RopeQuantity::InverseFrequencies;
        result = verify(128, qwen, options, vectorTable(defaultTheta(250000.0, 128)));
        QCOMPARE(result.mistake, RopeMistake::BaseChanged);
        QVERIFY(result.diagnosis.contains(u"rope_theta 250000"_qs));
    }

    // Another rotary width: partial_rotary_factor ignored (wider, or the exponent over the
    // whole head), or another head_dim.
    void anotherRotaryWidth()
    {
        RopeConfig neox; // GPT-NeoX: 64-dim heads, partial_rotary_factor 0.25 -> 16 rotary dims
        neox.partialRotaryFactor = 0.25;
        neox.pairing = RopePairing::Half;
        RopeVerifyOptions options;
        options.precision = TensorDType::F32;
        RopeVerifyResult result =
            verify(64, neox, options,
                   make({defaultTheta(10000.0, 64), 1.0, 128, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::RotaryWidth);
        QVERIFY2(result.diagnosis.contains(u"partial_rotary_factor 0.25 ignored"_qs),
                 qPrintable(result.diagnosis));
        QVERIFY(reportOf(result, options).contains(u"the candidate holds 32 pairs"_qs));
        // The right width, but exponents over the head: 1 / 10000^(2i/64) for i < 8.
        std::vector<double> head = defaultTheta(10000.0, 64);
        head.resize(8);
        result = verify(64, neox, options, make({head, 1.0, 128, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::RotaryWidth);
        QVERIFY(result.diagnosis.contains(u"over all 64 dims of the head"_qs));
        // Qwen3: head_dim 128 in the config; an engine using hidden_size / heads = 64.
        RopeConfig qwen3;
        qwen3.ropeTheta = 1e6;
        qwen3.pairing = RopePairing::Half;
        result = verify(128, qwen3, options,
                        make({defaultTheta(1e6, 64), 1.0, 128, Form::Half, Part::Cos, true}));
        QCOMPARE(result.mistake, RopeMistake::RotaryWidth);
        QVERIFY2(result.diagnosis.contains(u"head_dim 64"_qs), qPrintable(result.diagnosis));
    }

    // A difference no hypothesis explains says so plainly.
    void noKnownMistake()
    {
        RopeTable table = make({llama31Theta(), 1.0, 64});
        for (std::size_t i = 0; i < table.values.size(); i += 7)
            table.values[i] += 1e-3 * double(i % 5);
        const RopeVerifyResult result = verify(128, llama31(), {}, table);
        QVERIFY(!result.agrees);
        QCOMPARE(result.mistake, RopeMistake::None);
        QCOMPARE(result.diagnosis, u"no known mistake explains this"_qs);
    }

    // The figure's grid: the largest error per row bin and pair.
    void errorGrid()
    {
        RopeTable table = make({llama31Theta(), 1.0, 64});
        table.values[std::size_t(37 * 128 + 64 + 5)] += 0.25; // position 37, pair 5's second column
        RopeVerifyOptions options;
        options.errorGridRows = 16;
        const RopeVerifyResult result = verify(128, llama31(), options, table);
        const RopeErrorGrid &grid = result.errors;
        QCOMPARE(grid.rows, qint64(16));
        QCOMPARE(grid.rowsPerBin, qint64(4));
        QCOMPARE(grid.pairs, qint64(64));
        QCOMPARE(result.worst.position, qint64(37));
        QCOMPARE(result.worst.pair, qint64(5));
        PE_COMPARE_NEAR(double(grid.at(37 / 4, 5)), 0.25, 1e-6);
        for (qint64 r = 0; r < grid.rows; ++r)
            for (qint64 i = 0; i < grid.pairs; ++i)
                if (r != 37 / 4 || i != 5)
                    QVERIFY(grid.at(r, i) < 1e-12);
    }

    void frequencyErrorGrid()
    {
        const std::vector<double> reference = llama31Theta();
        std::vector<double> candidate = reference;
        candidate[3] *= 1.01;
        const RopeErrorGrid grid = ropeFrequencyErrorGrid(candidate, reference, 1000, 100);
        QCOMPARE(grid.rows, qint64(100));
        QCOMPARE(grid.rowsPerBin, qint64(10));
        // At position 999: |cos(999 * 1.01 t) - cos(999 t)| for t = theta_3, within the last bin.
        const double t = reference[3];
        double expected = 0;
        for (qint64 p = 990; p < 1000; ++p)
            expected = std::max({expected, std::abs(std::cos(p * 1.01 * t) - std::cos(p * t)),
                                 std::abs(std::sin(p * 1.01 * t) - std::sin(p * t))});
        PE_COMPARE_NEAR(double(grid.at(99, 3)), expected, 1e-6);
        QCOMPARE(grid.at(99, 2), 0.0f);
        QVERIFY(ropeFrequencyErrorGrid(candidate, {reference.data(), 10}, 10, 10).error.empty());
    }

    void badInput_data()
    {
        QTest::addColumn<int>("what");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("columns");
        QTest::addColumn<int>("values");
        QTest::addColumn<QString>("message");
        const int cos = int(RopeQuantity::Cos), inv = int(RopeQuantity::InverseFrequencies),
                  att = int(RopeQuantity::AttentionFactor), cs = int(RopeQuantity::CosSin);
        QTest::addRow("cos, head dim wide")
            << cos << qint64(4) << qint64(64) << 256
            << u"expected positions x 32 (the rotary dims, half or interleaved) or positions x 16 "
               "(one column per pair); the candidate is 4 x 64"_qs;
        QTest::addRow("cos, no rows")
            << cos << qint64(0) << qint64(32) << 0 << u"expected positions x 32"_qs;
        QTest::addRow("values do not fill") << cos << qint64(4) << qint64(32) << 100
                                            << u"the candidate's 100 values do not fill 4 x 32"_qs;
        QTest::addRow("inv_freq too long")
            << inv << qint64(1) << qint64(17) << 17 << u"inv_freq has 16 values"_qs;
        QTest::addRow("inv_freq as a table")
            << inv << qint64(2) << qint64(8) << 16 << u"inv_freq has 16 values"_qs;
        QTest::addRow("two attention factors")
            << att << qint64(1) << qint64(2) << 2 << u"the attention factor is one value"_qs;
        QTest::addRow("cos-sin, wrong width")
            << cs << qint64(3) << qint64(30) << 90 << u"expected positions x 32"_qs;
    }
    void badInput()
    {
        QFETCH(int, what);
        QFETCH(qint64, rows);
        QFETCH(qint64, columns);
        QFETCH(int, values);
        QFETCH(QString, message);
        qint64 headDim = 0;
        const RopeConfig config = gptOss32(&headDim);
        RopeVerifyOptions options;
        options.what = RopeQuantity(what);
        QString error;
        const RopeTable candidate{rows, columns, std::vector<double>(std::size_t(values), 0.5)};
        QVERIFY(!ropeVerify(headDim, config, options, candidate, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void badParameters()
    {
        RopeConfig config;
        config.ropeType = RopeType::Linear; // no factor
        QString error;
        QVERIFY(!ropeVerify(64, config, {}, RopeTable{1, 64, std::vector<double>(64)}, &error));
        QVERIFY(error.contains(u"factor is required"_qs));
        RopeVerifyOptions options;
        options.tolerance = -1;
        QVERIFY(!ropeVerify(64, RopeConfig{}, options, RopeTable{1, 64, std::vector<double>(64)},
                            &error));
        QVERIFY(error.contains(u"tolerance"_qs));
    }

    void names()
    {
        for (const ChoiceName &row : ropeQuantityNames)
            QCOMPARE(parseAs<RopeQuantity>(ropeQuantityNames, QString::fromUtf8(row.name)),
                     RopeQuantity(row.value));
        QCOMPARE(parseAs<RopeQuantity>(ropeQuantityNames, u"inv-freq"_qs),
                 RopeQuantity::InverseFrequencies);
        QVERIFY(!parseAs<RopeQuantity>(ropeQuantityNames, u"tan"_qs));
    }
};

QTEST_GUILESS_MAIN(TestRopeVerify)
#include "tst_ropeverify.moc"
