// `pescope context` (issue 49): core/rope/contextreport against float64 computations written here
// - the published configs' frequencies from transformers' rules (ropetestdata.h), Liu et al.'s
// critical dimension in closed form, B(m) = Σ cos(mθ) summed directly, bfloat16 rounding done on
// float32 bits and float16 with Qt's qfloat16 - Men et al.'s Figure 1 against the
// paper's fit, and the command line's verdicts and refusals.
#include "ropetestdata.h"
#include "testutil.h"

#include "formats/modelconfig.h"
#include "model/modelspec.h"
#include "rope/contextreport.h"
#include "schemes/ropescheme.h"

#include <QFloat16>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>

using namespace pe;

namespace {

constexpr double twoPi = 2.0 * std::numbers::pi;

QString fixture(const char *name)
{
    return QStringLiteral(PE_SOURCE_DIR "/tests/data/configs/") + QString::fromUtf8(name);
}

ModelConfig configFromText(const QByteArray &json)
{
    QString error;
    std::optional<ModelConfig> config = parseHfConfigText(json, QStringLiteral("inline"), &error);
    if (!config)
        qFatal("%s", qPrintable(error));
    return *config;
}

ModelConfig configFromFile(const char *name)
{
    QString error;
    std::optional<ModelConfig> config = readHfConfig(fixture(name), &error);
    if (!config)
        qFatal("%s", qPrintable(error));
    return *config;
}

ContextReport reportFor(const ModelConfig &config, int layer, qint64 context = 0,
                        ContextDtype dtype = ContextDtype::Float32)
{
    QString error;
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(config, layer, &error);
    if (!spec)
        qFatal("%s", qPrintable(error));
    ContextRequest request;
    request.config = *spec->spec.get<RopeScheme>();
    request.headDim = spec->spec.dims;
    request.context = context > 0 ? context : config.maxPositionEmbeddings;
    request.dtype = dtype;
    if (spec->layer >= 0 &&
        config.layers[std::size_t(spec->layer)].attention != AttentionKind::Full)
        request.window = config.layers[std::size_t(spec->layer)].window;
    const std::optional<ContextReport> report = contextReport(request, &error);
    if (!report)
        qFatal("%s", qPrintable(error));
    return *report;
}

// B(m) summed directly: the first m in 1..end with Σ cos(m θᵢ) < 0, else 0.
qint64 directFirstNegative(const std::vector<double> &theta, qint64 end)
{
    for (qint64 m = 1; m <= end; ++m) {
        double sum = 0;
        for (double t : theta)
            sum += std::cos(double(m) * t);
        if (sum < 0)
            return m;
    }
    return 0;
}

// Whether B(m) < 0 for some m in 1..end, looked for from `end` down (where a base just below
// the bound fails).
bool directAnyNegative(const std::vector<double> &theta, qint64 end)
{
    for (qint64 m = end; m >= 1; --m) {
        double sum = 0;
        for (double t : theta)
            sum += std::cos(double(m) * t);
        if (sum < 0)
            return true;
    }
    return false;
}

// float32 -> bfloat16, round to nearest even on the bits (what torch's cast does), back to float.
float bf16(float x)
{
    auto bits = std::bit_cast<quint32>(x);
    bits += 0x7FFFU + ((bits >> 16) & 1U);
    bits &= 0xFFFF0000U;
    return std::bit_cast<float>(bits);
}

// x rounded to float16 by Qt's qfloat16 (round to nearest, ties to even), as a float: the
// test's own rounding, not pescope's (Clang 14 has no _Float16 on x86-64).
float half(float x)
{
    return float(qfloat16(x));
}

// The first p whose angle equals that of p + 1, angles formed in bfloat16 / float16 from the
// float32 inv_freq: round(round(p) · round(θ)).
qint64 directCollision(double theta, ContextDtype dtype, qint64 end)
{
    const auto theta32 = static_cast<float>(theta);
    const auto angle = [&](qint64 p) -> double {
        if (dtype == ContextDtype::BFloat16)
            return double(bf16(bf16(float(p)) * bf16(theta32)));
        return double(half(half(float(p)) * half(theta32)));
    };
    for (qint64 p = 0; p < end; ++p)
        if (angle(p) == angle(p + 1))
            return p;
    return -1;
}

// What every report must agree on with the float64 references: `expected` the scaled θ, the
// unscaled ones the default rule's, `training` the context the rule scales from.
void checkReport(const ContextReport &r, const std::vector<double> &expected, double base,
                 qint64 training)
{
    const std::vector<double> plain = test::defaultTheta(base, r.rotaryDims);
    QCOMPARE(r.pairs.size(), expected.size());
    QCOMPARE(r.trainingContext, training);
    // Liu et al. 2023: d_extra = 2 ⌈(d/2) log_base(T_train / 2π)⌉; pairs from d_extra / 2 on
    // never complete a turn in training.
    const auto critical = qint64(std::ceil(double(r.rotaryDims) / 2.0 *
                                           std::log(double(training) / twoPi) / std::log(base)));
    const qint64 last = r.context - 1;
    for (std::size_t k = 0; k < expected.size(); ++k) {
        const ContextPair &p = r.pairs[k];
        QVERIFY2(std::abs(p.scaled - expected[k]) <= 1e-12 * expected[k],
                 qPrintable(QString::number(k)));
        QVERIFY(std::abs(p.unscaled - plain[k]) <= 1e-12 * plain[k]);
        QVERIFY(std::abs(p.wavelength - twoPi / expected[k]) <= 1e-9 * p.wavelength);
        QVERIFY(std::abs(p.turnsTraining - double(training) * plain[k] / twoPi) <= 1e-9);
        QVERIFY(std::abs(p.turnsClaimed - double(r.context) * expected[k] / twoPi) <= 1e-9);
        QCOMPARE(p.beyondCritical, qint64(k) >= critical);
        volatile float position = float(last);
        volatile float theta32 = float(expected[k]);
        const float angle = position * theta32;
        QVERIFY(std::abs(p.float32Error - std::abs(double(angle) - double(last) * expected[k])) <=
                1e-15 * double(last));
    }
    // B(m) directly, to the first negative or the scan's end; beyond 2^24 cosines, every m of
    // the last 4,096 before it and every 7th before those (the suite's time).
    const qint64 end = r.bound.firstNegative > 0 ? r.bound.firstNegative : r.bound.scanEnd;
    if (double(end) * double(expected.size()) <= 16777216.0) {
        QCOMPARE(r.bound.firstNegative, directFirstNegative(expected, end));
    } else {
        const auto b = [&](qint64 m) {
            double sum = 0;
            for (double t : expected)
                sum += std::cos(double(m) * t);
            return sum;
        };
        if (r.bound.firstNegative > 0)
            QVERIFY(b(r.bound.firstNegative) < 0);
        for (qint64 m = 1; m < end; m += m < end - 4096 ? 7 : 1)
            QVERIFY2(b(m) >= 0, qPrintable(QString::number(m)));
    }
    // The smallest grid base: B >= 0 up to the limit at it, and not at the grid's base below.
    if (r.bound.minimumBase > 0) {
        const double b = r.bound.minimumBase;
        QCOMPARE(directFirstNegative(test::defaultTheta(b, r.rotaryDims), r.bound.distanceLimit),
                 qint64(0));
        const double below = b / std::exp2(0.01);
        QVERIFY(directAnyNegative(test::defaultTheta(below, r.rotaryDims), r.bound.distanceLimit));
    }
    // The decay: [(d − r) + 2 Σ cos(nθ)] / d at the sampled distances.
    QVERIFY(!r.decay.distances.empty());
    QCOMPARE(r.decay.distances.back(), double(last));
    for (std::size_t k = 0; k < r.decay.distances.size(); k += 37) {
        double sum = 0;
        for (double t : expected)
            sum += std::cos(r.decay.distances[k] * t);
        const double score = (double(r.headDim - r.rotaryDims) + 2.0 * sum) / double(r.headDim);
        QVERIFY(std::abs(r.decay.scaled[k] - score) <= 1e-12);
    }
}

void checkTreatments(const ContextReport &r, const std::vector<PairTreatment> &expected)
{
    QCOMPARE(r.pairs.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k)
        QVERIFY2(r.pairs[k].treatment == expected[k],
                 qPrintable(QStringLiteral("pair %1: %2").arg(k).arg(int(r.pairs[k].treatment))));
}

// llama3's bands from the wavelengths: λ < L0 / high unchanged, λ > L0 / low interpolated.
std::vector<PairTreatment> llama3Bands(double base, qint64 dim, double original, double low,
                                       double high)
{
    std::vector<PairTreatment> out;
    for (double t : test::defaultTheta(base, dim)) {
        const double wavelength = twoPi / t;
        out.push_back(wavelength < original / high  ? PairTreatment::Unchanged
                      : wavelength > original / low ? PairTreatment::Interpolated
                                                    : PairTreatment::Blended);
    }
    return out;
}

// YaRN's ramp: pairs up to ⌊low⌋ kept, from ⌈high⌉ on divided by the factor.
std::vector<PairTreatment> yarnRamp(double base, qint64 dim, double original)
{
    const auto correction = [&](double rotations) {
        return double(dim) * std::log(original / (rotations * twoPi)) / (2 * std::log(base));
    };
    const double low = std::max(std::floor(correction(32)), 0.0);
    const double high = std::min(std::ceil(correction(1)), double(dim - 1));
    std::vector<PairTreatment> out;
    for (qint64 i = 0; i < dim / 2; ++i)
        out.push_back(double(i) <= low    ? PairTreatment::Unchanged
                      : double(i) >= high ? PairTreatment::Interpolated
                                          : PairTreatment::Blended);
    return out;
}

QByteArray qwenYarn()
{
    QFile file(fixture("qwen2.5-7b-instruct.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("qwen2.5 fixture");
    QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    // The model card's long-context setting (Qwen2.5-7B-Instruct, "Processing Long Texts").
    json.insert(QStringLiteral("rope_scaling"),
                QJsonObject{{QStringLiteral("factor"), 4.0},
                            {QStringLiteral("original_max_position_embeddings"), 32768},
                            {QStringLiteral("type"), QStringLiteral("yarn")}});
    return QJsonDocument(json).toJson();
}

} // namespace

class TestContextReport : public QObject
{
    Q_OBJECT

private slots:
    void dtypeRounding()
    {
        // Position ids: bfloat16 keeps every integer to 256, float16 to 2,048, float32 to 2^24.
        for (qint64 p = 0; p <= 256; ++p)
            QCOMPARE(roundToDtype(double(p), ContextDtype::BFloat16), double(p));
        QCOMPARE(roundToDtype(257.0, ContextDtype::BFloat16), 256.0);
        QCOMPARE(roundToDtype(2049.0, ContextDtype::Float16), 2048.0);
        QCOMPARE(roundToDtype(16777217.0, ContextDtype::Float32), 16777216.0);
        QCOMPARE(roundToDtype(65520.0, ContextDtype::Float16), qInf());
        // Against the bit-level casts, over a spread of magnitudes (subnormals included).
        for (int k = -3000; k <= 3000; ++k) {
            const auto x = static_cast<float>(std::exp(double(k) / 100.0) * (k % 2 ? -1 : 1));
            QCOMPARE(roundToDtype(double(x), ContextDtype::BFloat16), double(bf16(x)));
            if (std::abs(x) < 65504.0F)
                QCOMPARE(roundToDtype(double(x), ContextDtype::Float16), double(half(x)));
        }
    }

    void llama2()
    {
        const ContextReport r =
            reportFor(configFromFile("llama-2-7b.json"), -1, 0, ContextDtype::BFloat16);
        checkReport(r, test::defaultTheta(10000.0, 128), 10000.0, 4096);
        checkTreatments(r, std::vector<PairTreatment>(64, PairTreatment::Unchanged));
        QCOMPARE(r.exactPositions, qint64(256));
        QCOMPARE(r.precisionScanEnd, qint64(257));
        for (const ContextPair &p : r.pairs)
            QCOMPARE(p.firstCollision, directCollision(p.scaled, ContextDtype::BFloat16, 257));
        QVERIFY(r.verdict.join(u'\n').contains(u"pairs 46–63 never complete a turn"));
    }

    void llama3()
    {
        const ModelConfig config = configFromText(R"({"model_type": "llama",
            "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
            "max_position_embeddings": 8192, "rope_theta": 500000.0})");
        const ContextReport r = reportFor(config, -1, 0, ContextDtype::Float16);
        checkReport(r, test::defaultTheta(500000.0, 128), 500000.0, 8192);
        for (const ContextPair &p : r.pairs)
            QCOMPARE(p.firstCollision, directCollision(p.scaled, ContextDtype::Float16, 2049));
    }

    void llama31()
    {
        const ContextReport r = reportFor(configFromFile("llama-3.1-8b.json"), -1);
        checkReport(r, test::llama3Theta(500000.0, 8.0, 1.0, 4.0, 8192.0, 128), 500000.0, 8192);
        checkTreatments(r, llama3Bands(500000.0, 128, 8192.0, 1.0, 4.0));
        // The bands in numbers: λ = 2π·500000^(i/64) < 2048 for i <= 28, > 8192 from 35.
        QVERIFY(r.verdict.join(u'\n').contains(
            u"pairs 0–28 unchanged, 29–34 blended, 35–63 interpolated"));
        QCOMPARE(r.attentionFactor, 1.0);
        // float32 holds every position id of 131,072: no angle collision in the context.
        for (const ContextPair &p : r.pairs)
            QCOMPARE(p.firstCollision, qint64(-1));
    }

    void mistral()
    {
        // Mistral-7B-v0.3: rope_theta 1e6, 32,768 positions, head 128, no scaling.
        const ModelConfig config = configFromText(R"({"model_type": "mistral",
            "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
            "max_position_embeddings": 32768, "rope_theta": 1000000.0, "sliding_window": null})");
        const ContextReport r = reportFor(config, -1);
        checkReport(r, test::defaultTheta(1e6, 128), 1e6, 32768);
    }

    void qwen25Yarn()
    {
        const ContextReport r = reportFor(configFromText(qwenYarn()), -1, 131072);
        checkReport(r, test::yarnTheta(1e6, 128, 4.0, 32768.0), 1e6, 32768);
        checkTreatments(r, yarnRamp(1e6, 128, 32768.0));
        QVERIFY(std::abs(r.attentionFactor - (0.1 * std::log(4.0) + 1.0)) <= 1e-15);
    }

    void phi3Longrope()
    {
        const ModelConfig config = configFromFile("phi-3-mini-128k-instruct.json");
        const ContextReport r = reportFor(config, -1);
        // The long factors from the published config (via the fixture), for 131,072 > 4,096.
        QFile file(fixture("phi-3-mini-128k-instruct.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject published = QJsonDocument::fromJson(file.readAll()).object();
        const std::vector<double> factors =
            test::jsonDoubles(published[u"rope_scaling"_qs].toObject()[u"long_factor"_qs]);
        QCOMPARE(factors.size(), std::size_t(48));
        std::vector<double> expected;
        std::vector<PairTreatment> rule;
        const std::vector<double> plain = test::defaultTheta(10000.0, 96);
        for (std::size_t i = 0; i < factors.size(); ++i) {
            expected.push_back(plain[i] / factors[i]);
            rule.push_back(factors[i] >= 32.0 ? PairTreatment::Interpolated
                           : factors[i] > 1.0 ? PairTreatment::Blended
                                              : PairTreatment::Unchanged);
        }
        checkReport(r, expected, 10000.0, 4096);
        checkTreatments(r, rule);
        // attention factor sqrt(1 + ln(s) / ln(L0)), s = 131072 / 4096.
        QVERIFY(std::abs(r.attentionFactor - std::sqrt(1.0 + std::log(32.0) / std::log(4096.0))) <=
                1e-15);
        // Its 262,144-token sliding window is longer than the context: no window.
        QCOMPARE(r.window, qint64(0));
    }

    void gemma3LocalGlobal()
    {
        const ModelConfig config = configFromFile("gemma-3-4b-it.json");
        // Layer 0 is local (sliding 1,024, θ 10,000), layer 5 global (θ 1e6, linear x8).
        const ContextReport local = reportFor(config, 0);
        QCOMPARE(local.window, qint64(1024));
        QCOMPARE(local.bound.distanceLimit, qint64(1024));
        checkReport(local, test::defaultTheta(10000.0, 256), 10000.0, 131072);
        const ContextReport global = reportFor(config, 5);
        std::vector<double> linear = test::defaultTheta(1e6, 256);
        for (double &t : linear)
            t /= 8.0;
        // linear names no original context: max_position_embeddings / factor.
        checkReport(global, linear, 1e6, 131072 / 8);
        checkTreatments(global, std::vector<PairTreatment>(128, PairTreatment::Interpolated));
    }

    void deepseekV3()
    {
        const ContextReport r = reportFor(configFromFile("deepseek-v3.json"), -1);
        QCOMPARE(r.rotaryDims, qint64(64)); // qk_rope_head_dim
        checkReport(r, test::yarnTheta(10000.0, 64, 40.0, 4096.0), 10000.0, 4096);
        checkTreatments(r, yarnRamp(10000.0, 64, 4096.0));
        // mscale = mscale_all_dim = 1: get_mscale ratio 1; the softmax scale carries
        // get_mscale(40, 1)^2 = (0.1 ln 40 + 1)^2.
        QCOMPARE(r.attentionFactor, 1.0);
        const double m = 0.1 * std::log(40.0) + 1.0;
        QVERIFY(std::abs(r.softmaxScaleFactor - m * m) <= 1e-15);
    }

    // Men et al. 2024, Figure 1: head size 128, contexts 1K to 1M. The paper's fit is
    // y = 0.0424 x^1.628; a least-squares fit of log(base) on log(context) through these values
    // must give an exponent within 0.02 of it, the fitted line within 10% of the paper's at the
    // middle (32K), and every point within a factor of 1.6 of the paper's line (the bound jumps
    // between grid bases: B >= 0 is not monotone in the base).
    void paperFigure1()
    {
        std::vector<qint64> contexts;
        for (int k = 10; k <= 20; ++k)
            contexts.push_back(qint64(1) << k);
        const std::vector<double> bases = ropeMinimumBases(128, contexts);
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        const auto n = double(contexts.size());
        for (std::size_t k = 0; k < contexts.size(); ++k) {
            QVERIFY(bases[k] > 0);
            const double paper = 0.0424 * std::pow(double(contexts[k]), 1.628);
            QVERIFY2(bases[k] / paper < 1.6 && paper / bases[k] < 1.6,
                     qPrintable(QStringLiteral("%1: %2 against the fit's %3")
                                    .arg(contexts[k])
                                    .arg(bases[k])
                                    .arg(paper)));
            const double x = std::log(double(contexts[k]));
            const double y = std::log(bases[k]);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        const double intercept = (sy - slope * sx) / n;
        QStringList values;
        for (std::size_t k = 0; k < contexts.size(); ++k)
            values << QStringLiteral("%1: %2").arg(contexts[k]).arg(bases[k], 0, 'g', 6);
        qInfo("Figure 1: %s; fit y = %.4f x^%.4f", qPrintable(values.join(u", ")),
              std::exp(intercept), slope);
        QVERIFY2(std::abs(slope - 1.628) <= 0.02, qPrintable(QString::number(slope)));
        const double middle = std::exp(intercept) * std::pow(32768.0, slope);
        const double paperMiddle = 0.0424 * std::pow(32768.0, 1.628);
        QVERIFY2(std::abs(middle / paperMiddle - 1.0) <= 0.1, qPrintable(QString::number(middle)));
        // Exact: each value up to 64K holds B >= 0 by a direct sum, the grid base below fails.
        for (std::size_t k = 0; k < 7; ++k) {
            QCOMPARE(directFirstNegative(test::defaultTheta(bases[k], 128), contexts[k]),
                     qint64(0));
            QVERIFY(directAnyNegative(test::defaultTheta(bases[k] / std::exp2(0.01), 128),
                                      contexts[k]));
        }
        // The single search agrees with the walk over all contexts.
        QCOMPARE(ropeMinimumBase(128, 4096), bases[2]);
    }

    void commandLine()
    {
        test::RunResult run =
            test::runPescope({u"context"_qs, u"--config"_qs, fixture("llama-3.1-8b.json"),
                              u"--dtype"_qs, u"bfloat16"_qs});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        const QString text = QString::fromUtf8(run.out);
        QVERIFY(text.contains(u"rope_theta 500,000 with llama3 x8 from 8,192"));
        QVERIFY(text.contains(u"131,072 claimed"));
        QVERIFY(text.contains(u"position ids in bfloat16 are exact up to 256 only"));

        run = test::runPescope(
            {u"context"_qs, u"--config"_qs, fixture("gemma-3-4b-it.json"), u"--json"_qs});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        const QJsonArray reports = json[u"reports"_qs].toArray();
        QCOMPARE(reports.size(), 2); // local and global
        QCOMPARE(reports[0][u"sliding_window"_qs].toInteger(), 1024);
        QCOMPARE(reports[1][u"pairs"_qs].toArray().size(), 128);
        QCOMPARE(reports[1][u"pairs"_qs][0][u"rule"_qs].toString(), u"interpolated"_qs);
        QVERIFY(!reports[1][u"verdict"_qs].toArray().isEmpty());

        // Llama 4 Scout: chunked attention of 8,192 in its rotary layers, NoPE every fourth.
        run = test::runPescope(
            {u"context"_qs, u"--config"_qs, fixture("llama-4-scout-17b-16e.json"), u"--json"_qs});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray scout = QJsonDocument::fromJson(run.out).object()[u"reports"_qs].toArray();
        QCOMPARE(scout.size(), 1);
        QCOMPARE(scout[0][u"attention_chunk"_qs].toInteger(), 8192);
        QCOMPARE(scout[0][u"base_bound"_qs][u"distance_limit"_qs].toInteger(), 8192);
        QVERIFY(scout[0][u"notes"_qs].toArray().toVariantList().last().toString().startsWith(
            u"layers 3, 7, 11"_qs));
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QStringList>("more");
        QTest::addColumn<QString>("message");
        const QByteArray llama = R"({"model_type": "llama", "hidden_size": 4096,
            "num_attention_heads": 32, "num_hidden_layers": 2, "max_position_embeddings": 8192,)";
        QTest::addRow("factor 0")
            << llama +
                   R"("rope_theta": 500000, "rope_scaling": {"rope_type": "linear", "factor": 0}})"
            << QStringList{} << u"factor"_qs;
        QTest::addRow("negative base")
            << llama + R"("rope_theta": -10000})" << QStringList{} << u"rope_theta"_qs;
        QTest::addRow("context 2^62")
            << llama + R"("rope_theta": 10000})"
            << QStringList{u"--context"_qs, u"4611686018427387904"_qs} << u"--context"_qs;
        QTest::addRow("head size 1")
            << QByteArray(R"({"model_type": "llama", "hidden_size": 32, "num_attention_heads": 32,
                "num_hidden_layers": 2, "max_position_embeddings": 8192, "rope_theta": 10000})")
            << QStringList{} << u"head size of 1"_qs;
        QTest::addRow("bad dtype") << llama + R"("rope_theta": 10000})"
                                   << QStringList{u"--dtype"_qs, u"float8"_qs} << u"--dtype"_qs;
    }

    void refusals()
    {
        QFETCH(QByteArray, config);
        QFETCH(QStringList, more);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(u"config.json"_qs);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config);
        file.close();
        const test::RunResult run =
            test::runPescope(QStringList{u"context"_qs, u"--config"_qs, path} + more);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);
    }

    void noRope_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QByteArray>("message");
        QFile gpt2(fixture("gpt2.json"));
        QVERIFY(gpt2.open(QIODevice::ReadOnly));
        // GPT-2: a learned table, a hard end at its 1,024 rows.
        QTest::addRow("learned") << gpt2.readAll()
                                 << QByteArray("learned position table of 1,024 rows, a hard end");
        QTest::addRow("alibi") << QByteArray(R"({"model_type": "bloom", "hidden_size": 1024,
            "n_head": 16, "n_layer": 2, "architectures": ["BloomForCausalLM"]})")
                               << QByteArray("ALiBi, a linear bias per head with no trained end");
        QTest::addRow("t5") << QByteArray(R"({"model_type": "t5", "d_model": 512, "num_heads": 8,
            "num_layers": 2, "relative_attention_max_distance": 128})")
                            << QByteArray("T5's relative buckets");
    }
    void noRope()
    {
        QFETCH(QByteArray, config);
        QFETCH(QByteArray, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(u"config.json"_qs);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config);
        file.close();
        const test::RunResult run = test::runPescope({u"context"_qs, u"--config"_qs, path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);
    }

    // A GGUF file's metadata is a config too (the fuzz corpus's llama.gguf: θ 500,000, yarn x4
    // from 1,024, 8 rotary dims, 4,096 positions).
    void gguf()
    {
        const test::RunResult run = test::runPescope(
            {u"context"_qs, u"--model"_qs,
             QStringLiteral(PE_SOURCE_DIR "/tests/fuzz/corpus/gguf/llama.gguf"), u"--json"_qs});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject report =
            QJsonDocument::fromJson(run.out).object()[u"reports"_qs].toArray()[0].toObject();
        QCOMPARE(report[u"context"_qs].toInteger(), 4096);
        QCOMPARE(report[u"training_context"_qs].toInteger(), 1024);
        const QJsonArray pairs = report[u"pairs"_qs].toArray();
        QCOMPARE(pairs.size(), 4);
        const std::vector<double> expected = test::yarnTheta(500000.0, 8, 4.0, 1024.0);
        for (qsizetype k = 0; k < pairs.size(); ++k)
            QVERIFY(std::abs(pairs[k][u"inv_freq_scaled"_qs].toDouble() -
                             expected[std::size_t(k)]) <= 1e-12 * expected[std::size_t(k)]);
    }
};

QTEST_GUILESS_MAIN(TestContextReport)
#include "tst_contextreport.moc"
