// Every Hugging Face rope type (core/rope): inverse frequencies, attention factors and cos/sin
// rows against NumPy transcriptions of transformers v5 with real models' parameters
// (tests/data/rope/make_references.py), mrope, the kernels' column phases, hand-checkable facts,
// the parameter checks and warnings, and the rope_parameters JSON reader and writer.
#include "ropetestdata.h"
#include "testutil.h"

#include "rope/ropeconfig.h"
#include "rope/ropefields.h"
#include "rope/ropefrequencies.h"
#include "rope/roperules.h"
#include "rope/ropetables.h"
#include "schemes/ropescheme.h"

#include <QDir>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

using namespace pe;
using namespace pe::test;

Q_DECLARE_METATYPE(pe::RopeConfig)

namespace {

constexpr double pi = std::numbers::pi;

QJsonObject references()
{
    static const QJsonObject data = loadRopeData(QFINDTESTDATA("data/rope/references.json"));
    return data;
}

RopeConfig configOf(const QJsonObject &record, QString *error)
{
    RopeConfig config = ropeConfigFromJson(
        record.value(QLatin1String("rope_parameters")).toObject(),
        record.value(QLatin1String("head_dim")).toInteger(),
        record.value(QLatin1String("max_position_embeddings")).toInteger(), error);
    config.sequenceLength = record.value(QLatin1String("sequence_length")).toInteger();
    return config;
}

// Relative comparison of two frequency vectors (a zero reference must be matched exactly).
void compareFrequencies(const std::vector<double> &actual, const std::vector<double> &expected,
                        double relative)
{
    PE_COMPARE_ARRAY(actual, expected, {.relative = relative});
}

void compareTable(const RopeTable &table, const std::vector<double> &expected, double tolerance)
{
    QCOMPARE(table.values.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        PE_COMPARE_NEAR(table.values[i], expected[i], tolerance);
}

RopeConfig make(RopeType type, double theta = 10000.0)
{
    RopeConfig config;
    config.ropeType = type;
    config.ropeTheta = theta;
    return config;
}

RopeConfig llama31()
{
    RopeConfig config = make(RopeType::Llama3, 500000.0);
    config.factor = 8.0;
    config.originalMaxPositionEmbeddings = 8192;
    config.maxPositionEmbeddings = 131072;
    config.pairing = RopePairing::Half;
    return config;
}

RopeConfig yarn(double factor, qint64 original, double theta)
{
    RopeConfig config = make(RopeType::Yarn, theta);
    config.factor = factor;
    config.originalMaxPositionEmbeddings = original;
    config.pairing = RopePairing::Half;
    return config;
}

// A copy of `config` changed by `change`, for the rows of the parameter checks.
template <class Change> RopeConfig with(RopeConfig config, Change change)
{
    change(config);
    return config;
}

// longrope over 64 dims: 32 short factors 1, 32 long factors 2, factor 32 from 4,096.
RopeConfig phi3Like()
{
    RopeConfig config = make(RopeType::Longrope);
    config.originalMaxPositionEmbeddings = 4096;
    config.factor = 32.0;
    config.shortFactor.assign(32, 1.0);
    config.longFactor.assign(32, 2.0);
    return config;
}

} // namespace

class TestRopeTypes : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(!references().isEmpty()); }

    // --- NumPy references --------------------------------------------------------------------

    void referenceModels_data()
    {
        QTest::addColumn<QJsonObject>("record");
        for (const QJsonValue &item : references().value(QLatin1String("cases")).toArray()) {
            const QJsonObject record = item.toObject();
            QTest::addRow("%s", qPrintable(record.value(QLatin1String("name")).toString()))
                << record;
        }
    }
    void referenceModels()
    {
        QFETCH(QJsonObject, record);
        QString error;
        const RopeConfig config = configOf(record, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const qint64 headDim = record.value(QLatin1String("head_dim")).toInteger();
        const RopeFrequencies result = ropeInverseFrequencies(headDim, config);
        compareFrequencies(result.inverseFrequencies,
                           jsonDoubles(record.value(QLatin1String("inv_freq"))), 1e-14);
        const double attention = record.value(QLatin1String("attention_factor")).toDouble();
        PE_COMPARE_NEAR(result.attentionFactor, attention, 1e-15 * attention);

        // HF's forward at the recorded position ids, scaled by the attention factor.
        const std::vector<qint64> positions =
            jsonIntegers(record.value(QLatin1String("positions")));
        const RopeTable cos = ropeTableRows(headDim, config, RopeTableKind::Cos, positions, true);
        const RopeTable sin = ropeTableRows(headDim, config, RopeTableKind::Sin, positions, true);
        QCOMPARE(cos.columns, ropeTableColumns(headDim, config));
        QCOMPARE(cos.rows, qint64(positions.size()));
        // p * theta at p = 131071 carries theta's last bit 1e5 times over: 1e-10 is still a
        // ten-thousandth of what float32 angles would miss by.
        compareTable(cos, jsonDoubles(record.value(QLatin1String("cos"))), 1e-10);
        compareTable(sin, jsonDoubles(record.value(QLatin1String("sin"))), 1e-10);

        // ropeTable() is the same computation for ids 0..N-1.
        const RopeTable first = ropeTable(headDim, config, RopeTableKind::Sin, 4, true);
        const std::vector<qint64> ids = {0, 1, 2, 3};
        QVERIFY(first.values ==
                ropeTableRows(headDim, config, RopeTableKind::Sin, ids, true).values);
    }

    void referenceMrope_data()
    {
        QTest::addColumn<QJsonObject>("record");
        for (const QJsonValue &item : references().value(QLatin1String("mrope_cases")).toArray()) {
            const QJsonObject record = item.toObject();
            QTest::addRow("%s", qPrintable(record.value(QLatin1String("name")).toString()))
                << record;
        }
    }
    void referenceMrope()
    {
        QFETCH(QJsonObject, record);
        QString error;
        const RopeConfig config = configOf(record, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const qint64 headDim = record.value(QLatin1String("head_dim")).toInteger();
        std::vector<MropePositionIds> ids;
        for (const QJsonValue &triple : record.value(QLatin1String("position_ids_thw")).toArray()) {
            const QJsonArray t = triple.toArray();
            ids.push_back({t.at(0).toInteger(), t.at(1).toInteger(), t.at(2).toInteger()});
        }
        compareTable(ropeMropeTable(headDim, config, RopeTableKind::Cos, ids, true),
                     jsonDoubles(record.value(QLatin1String("cos"))), 1e-12);
        compareTable(ropeMropeTable(headDim, config, RopeTableKind::Sin, ids, true),
                     jsonDoubles(record.value(QLatin1String("sin"))), 1e-12);
    }

    // Qwen2.5-VL: pairs 0-15 temporal, 16-39 height, 40-63 width. Qwen3-VL interleaves
    // T H W T H W ..., with 3 x 20 pairs of H and W: every section keeps its count.
    void mropeAxes()
    {
        RopeConfig config = make(RopeType::Default, 1e6);
        config.mropeSection = {16, 24, 24};
        auto axes = ropeMropeAxes(128, config);
        QCOMPARE(axes.size(), std::size_t(64));
        for (int i = 0; i < 64; ++i)
            QCOMPARE(axes[std::size_t(i)], i < 16   ? MropeAxis::Temporal
                                           : i < 40 ? MropeAxis::Height
                                                    : MropeAxis::Width);
        config.mropeSection = {24, 20, 20};
        config.mropeInterleaved = true;
        axes = ropeMropeAxes(128, config);
        const std::vector<MropeAxis> start = {MropeAxis::Temporal, MropeAxis::Height,
                                              MropeAxis::Width, MropeAxis::Temporal};
        QVERIFY(std::equal(start.begin(), start.end(), axes.begin()));
        QCOMPARE(qint64(std::count(axes.begin(), axes.end(), MropeAxis::Height)), qint64(20));
        QCOMPARE(qint64(std::count(axes.begin(), axes.end(), MropeAxis::Width)), qint64(20));
        QCOMPARE(axes[58], MropeAxis::Height); // 58 % 3 == 1, 58 < 60
        QCOMPARE(axes[61], MropeAxis::Temporal);
        QCOMPARE(axes[62], MropeAxis::Temporal);
        // Unequal sections: 16 height pairs (i % 3 == 1, i < 48); width reaches past the head
        // (i % 3 == 2, i < 72): every such pair, 21 of them.
        config.mropeSection = {24, 16, 24};
        axes = ropeMropeAxes(128, config);
        QCOMPARE(qint64(std::count(axes.begin(), axes.end(), MropeAxis::Height)), qint64(16));
        QCOMPARE(qint64(std::count(axes.begin(), axes.end(), MropeAxis::Width)), qint64(21));
        QCOMPARE(axes[49], MropeAxis::Temporal);
        config.mropeSection.clear(); // plain RoPE: everything temporal
        axes = ropeMropeAxes(128, config);
        QCOMPARE(qint64(std::count(axes.begin(), axes.end(), MropeAxis::Temporal)), qint64(64));
    }

    // Text tokens have t = h = w = p: their rows are plain RoPE's.
    void mropeTextTokensArePlainRope()
    {
        for (bool interleaved : {false, true}) {
            RopeConfig config = make(RopeType::Default, 1e6);
            config.pairing = RopePairing::Half;
            config.mropeSection =
                interleaved ? QList<qint64>{24, 20, 20} : QList<qint64>{16, 24, 24};
            config.mropeInterleaved = interleaved;
            std::vector<MropePositionIds> ids;
            for (qint64 p = 0; p < 50; ++p)
                ids.push_back({p, p, p});
            QVERIFY(ropeMropeTable(128, config, RopeTableKind::CosSin, ids, true).values ==
                    ropeTable(128, config, RopeTableKind::CosSin, 50, true).values);
        }
    }

    // --- Hand-checkable facts ----------------------------------------------------------------

    // Qwen 2.5 with YaRN: dim(32) = 128 ln(32768 / 64 pi) / (2 ln 1e6) = 23.59 and dim(1) =
    // 39.65, so the ramp runs from 23 to 40: pairs 0..23 keep their frequency, 40..63 are / 4.
    void yarnCorrectionRangeByHand()
    {
        RopeConfig config = yarn(4.0, 32768, 1e6);
        RopeYarnRange range = ropeYarnCorrectionRange(128, config);
        QCOMPARE(range.low, 23.0);
        QCOMPARE(range.high, 40.0);
        const auto theta = ropeInverseFrequencies(128, config).inverseFrequencies;
        for (int i = 0; i < 64; ++i) {
            const double original = std::pow(1e6, -2.0 * i / 128);
            if (i <= 23)
                PE_COMPARE_NEAR(theta[std::size_t(i)] / original, 1.0, 1e-15);
            else if (i >= 40)
                PE_COMPARE_NEAR(theta[std::size_t(i)] / (original / 4.0), 1.0, 1e-15);
        }
        // truncate false (gpt-oss) keeps the fractional bounds.
        config.truncate = false;
        range = ropeYarnCorrectionRange(128, config);
        PE_COMPARE_NEAR(range.low, 128 * std::log(32768 / (64 * pi)) / (2 * std::log(1e6)), 1e-13);
        PE_COMPARE_NEAR(range.high, 128 * std::log(32768 / (2 * pi)) / (2 * std::log(1e6)), 1e-13);
        // beta 0 means HF's `or` default (32 / 1).
        config.betaFast = 0.0;
        config.betaSlow = 0.0;
        const RopeYarnRange defaults = ropeYarnCorrectionRange(128, config);
        QCOMPARE(defaults.low, range.low);
        QCOMPARE(defaults.high, range.high);
    }

    // DeepSeek-V3: mscale = mscale_all_dim = 1 makes the cos/sin factor 1 (their ratio); the
    // softmax scale carries get_mscale(40)^2 instead. Without them: 0.1 ln 40 + 1.
    void yarnAttentionFactors()
    {
        RopeConfig config = yarn(40.0, 4096, 10000.0);
        config.maxPositionEmbeddings = 163840;
        PE_COMPARE_NEAR(ropeInverseFrequencies(64, config).attentionFactor,
                        0.1 * std::log(40.0) + 1.0, 1e-15);
        config.mscale = 1.0;
        config.mscaleAllDim = 1.0;
        QCOMPARE(ropeInverseFrequencies(64, config).attentionFactor, 1.0);
        config.mscaleAllDim = 0.0; // falsy: HF falls back to get_mscale(factor)
        PE_COMPARE_NEAR(ropeInverseFrequencies(64, config).attentionFactor,
                        0.1 * std::log(40.0) + 1.0, 1e-15);
        config.attentionFactor = 0.5; // an explicit value wins
        QCOMPARE(ropeInverseFrequencies(64, config).attentionFactor, 0.5);
        // v5's get_mscale: 1 for factor <= 1 (v4.45 gave 0.1 ln s + 1 < 1 there).
        QCOMPARE(ropeYarnGetMscale(0.5), 1.0);
        QCOMPARE(ropeYarnGetMscale(1.0, 3.0), 1.0);
        PE_COMPARE_NEAR(ropeYarnGetMscale(40.0, 0.707), 0.0707 * std::log(40.0) + 1.0, 1e-15);
        // factor None: max_position_embeddings / original = 40.
        config = yarn(1.0, 4096, 10000.0);
        config.factor.reset();
        config.maxPositionEmbeddings = 163840;
        QCOMPARE(ropeEffectiveFactor(config).value(), 40.0);
        PE_COMPARE_NEAR(ropeInverseFrequencies(64, config).attentionFactor,
                        0.1 * std::log(40.0) + 1.0, 1e-15);
    }

    // Phi-3-mini-128k: no factor in its config, so s = 131072 / 4096 = 32 and the attention
    // factor is sqrt(1 + ln 32 / ln 4096) = sqrt(17 / 12): 1.190238118171692 in its GGUF
    // (float32). The short factors apply up to 4096 positions, the long ones beyond.
    void longropeFactorsAndAttention()
    {
        RopeConfig config = make(RopeType::Longrope);
        config.originalMaxPositionEmbeddings = 4096;
        config.maxPositionEmbeddings = 131072;
        config.shortFactor.assign(48, 2.0);
        config.longFactor.assign(48, 8.0);
        const RopeFrequencies shortResult = ropeInverseFrequencies(96, config);
        PE_COMPARE_NEAR(shortResult.attentionFactor, std::sqrt(17.0 / 12.0), 1e-15);
        PE_COMPARE_NEAR(float(shortResult.attentionFactor), 1.190238118171692, 1e-15);
        for (qint64 length : {qint64(0), qint64(4096)}) {
            config.sequenceLength = length;
            const auto theta = ropeInverseFrequencies(96, config).inverseFrequencies;
            PE_COMPARE_NEAR(theta[5] / (std::pow(10000.0, -10.0 / 96) / 2.0), 1.0, 1e-15);
        }
        config.sequenceLength = 4097;
        const auto theta = ropeInverseFrequencies(96, config).inverseFrequencies;
        PE_COMPARE_NEAR(theta[5] / (std::pow(10000.0, -10.0 / 96) / 8.0), 1.0, 1e-15);
        // A single factor broadcasts over every frequency, as torch does.
        config.longFactor = {4.0};
        PE_COMPARE_NEAR(ropeInverseFrequencies(96, config).inverseFrequencies[47] /
                            (std::pow(10000.0, -94.0 / 96) / 4.0),
                        1.0, 1e-15);
        // An explicit factor or attention_factor wins over the inferred ones.
        config.factor = 4.0;
        PE_COMPARE_NEAR(ropeInverseFrequencies(96, config).attentionFactor,
                        std::sqrt(1.0 + std::log(4.0) / std::log(4096.0)), 1e-15);
        config.attentionFactor = 1.0;
        QCOMPARE(ropeInverseFrequencies(96, config).attentionFactor, 1.0);
    }

    // Gemma 4's global layers: head 512, partial 0.25: int(0.25 * 512 // 2) = 64 angles with
    // exponents over the head dim (2i / 512, not 2i / 128), then 192 zero frequencies; the
    // table spans the whole head.
    void gemma4Proportional()
    {
        RopeConfig config = make(RopeType::Proportional, 1e6);
        config.partialRotaryFactor = 0.25;
        const auto theta = ropeInverseFrequencies(512, config).inverseFrequencies;
        QCOMPARE(theta.size(), std::size_t(256));
        for (int i = 0; i < 64; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / std::pow(1e6, -2.0 * i / 512), 1.0, 1e-15);
        QVERIFY(std::all_of(theta.begin() + 64, theta.end(), [](double t) { return t == 0.0; }));
        QCOMPARE(ropeTableColumns(512, config), qint64(512));
        QCOMPARE(ropeRotaryDims(512, config), qint64(512));
        // Half layout: columns 64..255 and 320..511 never turn.
        config.pairing = RopePairing::Half;
        const RopeTable cos = ropeTable(512, config, RopeTableKind::Cos, 100, true);
        for (qint64 p = 0; p < 100; ++p)
            for (qint64 c : {qint64(64), qint64(200), qint64(255), qint64(320), qint64(511)})
                QCOMPARE(cos.at(p, c), 1.0);
        // An explicit factor divides every frequency.
        config.factor = 2.0;
        PE_COMPARE_NEAR(ropeInverseFrequencies(512, config).inverseFrequencies[1] /
                            (std::pow(1e6, -2.0 / 512) / 2.0),
                        1.0, 1e-15);
    }

    // d = 128, base 500,000: wavelengths below 2048 keep their frequency, those above 8192 are
    // divided by 8; 2 pi 500000^(2i/128) is 1956 at i = 28, 2402 at 29, 6695 at 34, 8219 at 35.
    void llama31Regions()
    {
        const auto theta = ropeInverseFrequencies(128, llama31()).inverseFrequencies;
        int kept = 0, divided = 0, blended = 0;
        for (int i = 0; i < 64; ++i) {
            const double original = 1.0 / std::pow(500000.0, 2.0 * i / 128);
            const double wavelen = 2 * pi / original;
            if (wavelen < 2048.0) {
                QCOMPARE(theta[std::size_t(i)], original);
                ++kept;
            } else if (wavelen > 8192.0) {
                PE_COMPARE_NEAR(theta[std::size_t(i)] / (original / 8.0), 1.0, 1e-15);
                ++divided;
            } else {
                QVERIFY(theta[std::size_t(i)] < original && theta[std::size_t(i)] > original / 8);
                ++blended;
            }
        }
        QCOMPARE(kept, 29);
        QCOMPARE(blended, 6);
        QCOMPARE(divided, 29);
    }

    // llama.cpp's rope_freqs.weight: per-pair divisors of base^(-2i/d), d the rotated dims.
    void frequenciesFromFactors()
    {
        RopeConfig config = make(RopeType::Default, 500000.0);
        config.partialRotaryFactor = 0.5; // head 128, 64 rotated dims: d = 64, not 128
        const std::vector<double> factors{1.0, 2.5, 8.0, 0.0, -1.0};
        const std::vector<double> theta = ropeFrequenciesFromFactors(128, config, factors);
        QCOMPARE(theta.size(), factors.size());
        for (std::size_t i = 0; i < 3; ++i)
            PE_COMPARE_NEAR(theta[i], std::pow(500000.0, -2.0 * double(i) / 64.0) / factors[i],
                            1e-15 * theta[i]);
        QVERIFY(std::isnan(theta[3]));
        QVERIFY(std::isnan(theta[4]));
    }

    // The factors llama.cpp's converter writes for Llama 3.1 (convert_hf_to_gguf.py, LlamaModel
    // generate_extra_tensors, transcribed in float64 here) give back HF's llama3 inv_freq.
    void llama31FactorsGiveHfFrequencies()
    {
        const double base = 500000.0, factor = 8.0, low = 1.0, high = 4.0, old = 8192.0;
        std::vector<double> factors;
        for (int i = 0; i < 64; ++i) {
            const double freq = 1.0 / std::pow(base, 2.0 * i / 128.0);
            const double wavelen = 2 * pi / freq;
            if (wavelen < old / high) {
                factors.push_back(1.0);
            } else if (wavelen > old / low) {
                factors.push_back(factor);
            } else {
                const double smooth = (old / wavelen - low) / (high - low);
                factors.push_back(1.0 / ((1 - smooth) / factor + smooth));
            }
        }
        RopeConfig config = make(RopeType::Default, base);
        const std::vector<double> fromFactors = ropeFrequenciesFromFactors(128, config, factors);
        compareFrequencies(fromFactors, ropeInverseFrequencies(128, llama31()).inverseFrequencies,
                           1e-14);
    }

    // NTK-aware: base' = base * s^(d / (d - 2)), chosen so the slowest pair is exactly 1/s of
    // the original one while pair 0 stays at 1.
    void ntkStretchesTheBase()
    {
        RopeConfig config = make(RopeType::Ntk);
        config.factor = 4.0;
        const auto theta = ropeInverseFrequencies(128, config).inverseFrequencies;
        QCOMPARE(theta[0], 1.0);
        PE_COMPARE_NEAR(theta.back() / (std::pow(10000.0, -126.0 / 128) / 4.0), 1.0, 1e-12);
    }

    // v5's dynamic scales from max_position_embeddings: nothing changes up to it, and at
    // seq_len L the base becomes base * (s L / L0 - (s - 1))^(d / (d - 2)).
    void dynamicFollowsSequenceLength()
    {
        RopeConfig config = make(RopeType::Dynamic);
        config.factor = 2.0;
        config.maxPositionEmbeddings = 4096;
        config.originalMaxPositionEmbeddings = 1000; // not read by dynamic
        for (qint64 length : {qint64(0), qint64(100), qint64(4096)}) {
            config.sequenceLength = length;
            const auto theta = ropeInverseFrequencies(64, config).inverseFrequencies;
            for (int i = 0; i < 32; ++i)
                PE_COMPARE_NEAR(theta[std::size_t(i)] / std::pow(10000.0, -2.0 * i / 64), 1.0,
                                1e-15);
        }
        config.sequenceLength = 8192; // base * 3^(64 / 62)
        const double base = 10000.0 * std::pow(3.0, 64.0 / 62.0);
        const auto theta = ropeInverseFrequencies(64, config).inverseFrequencies;
        for (int i = 0; i < 32; ++i)
            PE_COMPARE_NEAR(theta[std::size_t(i)] / std::pow(base, -2.0 * i / 64), 1.0, 1e-14);
    }

    // HF's arange(0, dim, 2) with an odd dim: ceil(dim / 2) frequencies with exponents 2i / dim.
    void oddRotaryDims()
    {
        RopeConfig config = make(RopeType::Default);
        config.partialRotaryFactor = 0.5;
        QCOMPARE(ropeRotaryDims(10, config), qint64(5));
        const auto theta = ropeInverseFrequencies(10, config).inverseFrequencies;
        QCOMPARE(theta.size(), std::size_t(3));
        PE_COMPARE_NEAR(theta[2] / std::pow(10000.0, -4.0 / 5.0), 1.0, 1e-15);
        QCOMPARE(ropeTableColumns(10, config), qint64(6));
        QVERIFY(ropeConfigProblem(7, make(RopeType::Default)).isEmpty());
    }

    // p = 1, d = 4, theta = (1, 0.01): interleaved [cos 1, sin 1, cos .01, sin .01];
    // half [cos 1, cos .01, sin 1, sin .01]; HF's cos table [cos 1, cos .01, cos 1, cos .01].
    void pairingConventions()
    {
        RopeConfig config;
        config.pairing = RopePairing::Interleaved;
        RopeTable m = ropeTable(4, config, RopeTableKind::CosSin, 2, true);
        const double interleaved[] = {std::cos(1.0), std::sin(1.0), std::cos(0.01), std::sin(0.01)};
        for (int j = 0; j < 4; ++j) {
            QCOMPARE(m.at(0, j), j % 2 == 0 ? 1.0 : 0.0);
            PE_COMPARE_NEAR(m.at(1, j), interleaved[j], 1e-15);
        }
        config.pairing = RopePairing::Half;
        m = ropeTable(4, config, RopeTableKind::CosSin, 2, true);
        const double half[] = {std::cos(1.0), std::cos(0.01), std::sin(1.0), std::sin(0.01)};
        for (int j = 0; j < 4; ++j)
            PE_COMPARE_NEAR(m.at(1, j), half[j], 1e-15);
        m = ropeTable(4, config, RopeTableKind::Cos, 2, true);
        const double cosHalf[] = {std::cos(1.0), std::cos(0.01), std::cos(1.0), std::cos(0.01)};
        for (int j = 0; j < 4; ++j)
            PE_COMPARE_NEAR(m.at(1, j), cosHalf[j], 1e-15);
        config.pairing = RopePairing::Interleaved;
        m = ropeTable(4, config, RopeTableKind::Sin, 2, true);
        const double sinInterleaved[] = {std::sin(1.0), std::sin(1.0), std::sin(0.01),
                                         std::sin(0.01)};
        for (int j = 0; j < 4; ++j)
            PE_COMPARE_NEAR(m.at(1, j), sinInterleaved[j], 1e-15);
        QCOMPARE(ropePairingForRopeInterleave(true), RopePairing::Interleaved);
        QCOMPARE(ropePairingForRopeInterleave(false), RopePairing::Half);
    }

    // The kernels' exact phases give the float64 table to float32 precision at any position,
    // and the pass-through block of a partial rotary head holds the identity rotation.
    void columnPhasesMatchTables_data()
    {
        QTest::addColumn<RopeConfig>("config");
        QTest::addColumn<int>("headDim");
        RopeConfig partial;
        partial.partialRotaryFactor = 0.5;
        QTest::addRow("default, interleaved, partial 0.5") << partial << 12;
        partial.pairing = RopePairing::Half;
        QTest::addRow("default, half, partial 0.5") << partial << 12;
        QTest::addRow("llama 3.1") << llama31() << 128;
        QTest::addRow("gpt-oss yarn") << [] {
            RopeConfig c = yarn(32.0, 4096, 150000.0);
            c.truncate = false;
            return c;
        }() << 64;
        QTest::addRow("gemma 4 proportional") << [] {
            RopeConfig c = make(RopeType::Proportional, 1e6);
            c.partialRotaryFactor = 0.25;
            return c;
        }() << 512;
    }
    void columnPhasesMatchTables()
    {
        QFETCH(RopeConfig, config);
        QFETCH(int, headDim);
        const qint64 width = ropeTableColumns(headDim, config);
        for (RopeTableKind kind : {RopeTableKind::CosSin, RopeTableKind::Cos, RopeTableKind::Sin}) {
            const auto columns = ropeColumnPhases(headDim, config, kind);
            QCOMPARE(qint64(columns.size()), std::max<qint64>(headDim, width));
            std::vector<qint64> positions;
            for (qint64 p = 0; p < 64; ++p)
                positions.push_back(p);
            for (qint64 p = (qint64(1) << 20) - 64; p < (qint64(1) << 20); ++p)
                positions.push_back(p);
            const RopeTable table = ropeTableRows(headDim, config, kind, positions, false);
            double worst = 0;
            for (std::size_t r = 0; r < positions.size(); ++r) {
                for (qint64 c = 0; c < qint64(columns.size()); ++c) {
                    const auto &column = columns[std::size_t(c)];
                    const double value = kernels::sinOfPhase(
                        std::uint64_t(positions[r]) * column.step + column.offset);
                    double expected;
                    if (c < width) {
                        expected = table.at(qint64(r), c);
                    } else { // pass-through: identity rotation
                        const qint64 k = c - width;
                        const bool cosSlot = kind == RopeTableKind::Cos ||
                                             (kind == RopeTableKind::CosSin &&
                                              (config.pairing == RopePairing::Interleaved
                                                   ? k % 2 == 0
                                                   : k < (headDim - width) / 2));
                        expected = cosSlot ? 1.0 : 0.0;
                        QCOMPARE(value, expected);
                    }
                    worst = std::max(worst, std::abs(value - expected));
                }
            }
            PE_COMPARE_NEAR(worst, 0.0, 1e-6);
        }
    }

    // RoFormer's point: <R(m) q, R(n) k> depends only on m - n.
    void relativePositionProperty()
    {
        RopeConfig config = yarn(4.0, 512, 10000.0);
        const int d = 64;
        const RopeTable table = ropeTable(d, config, RopeTableKind::CosSin, 3000, false);
        std::mt19937 gen(7);
        std::normal_distribution<double> normal;
        std::vector<double> q(d), k(d);
        for (int j = 0; j < d; ++j) {
            q[std::size_t(j)] = normal(gen);
            k[std::size_t(j)] = normal(gen);
        }
        const auto rotate = [&](const std::vector<double> &x, qint64 p) {
            std::vector<double> y(x.size());
            for (int i = 0; i < d / 2; ++i) {
                const double c = table.at(p, i), s = table.at(p, i + d / 2);
                const double a = x[std::size_t(i)], b = x[std::size_t(i + d / 2)];
                y[std::size_t(i)] = a * c - b * s;
                y[std::size_t(i + d / 2)] = a * s + b * c;
            }
            return y;
        };
        const auto score = [&](qint64 m, qint64 n) {
            const auto rq = rotate(q, m), rk = rotate(k, n);
            double sum = 0;
            for (int j = 0; j < d; ++j)
                sum += rq[std::size_t(j)] * rk[std::size_t(j)];
            return sum;
        };
        for (qint64 delta : {qint64(0), qint64(1), qint64(-7), qint64(999)})
            for (qint64 m : {qint64(1000), qint64(1999), qint64(2800)})
                PE_COMPARE_NEAR(score(m, m - delta), score(1000 + delta, 1000), 1e-9);
    }

    // --- Parameter checks --------------------------------------------------------------------

    void problems_data()
    {
        QTest::addColumn<int>("headDim");
        QTest::addColumn<RopeConfig>("config");
        QTest::addColumn<QString>("message");
        const RopeConfig base;
        const RopeConfig y = yarn(4.0, 4096, 10000.0);
        const RopeConfig longrope = phi3Like();

        QTest::addRow("head dim 0") << 0 << base << u"head dim must be between 1 and"_qs;
        QTest::addRow("theta 0") << 64 << with(base, [](auto &c) { c.ropeTheta = 0; })
                                 << u"rope_theta must be"_qs;
        QTest::addRow("partial 0") << 64 << with(base, [](auto &c) { c.partialRotaryFactor = 0; })
                                   << u"partial_rotary_factor must be"_qs;
        QTest::addRow("partial 1.5")
            << 64 << with(base, [](auto &c) { c.partialRotaryFactor = 1.5; })
            << u"partial_rotary_factor must be"_qs;
        QTest::addRow("no rotated dims")
            << 3 << with(base, [](auto &c) { c.partialRotaryFactor = 0.3; })
            << u"leaves no rotated dims: int(3 x 0.3) = 0"_qs;
        QTest::addRow("negative sequence length")
            << 64 << with(base, [](auto &c) { c.sequenceLength = -1; }) << u"sequence length"_qs;
        QTest::addRow("linear without factor")
            << 64 << make(RopeType::Linear) << u"factor is required by rope_type \"linear\""_qs;
        QTest::addRow("factor 0") << 64
                                  << with(make(RopeType::Linear), [](auto &c) { c.factor = 0.0; })
                                  << u"factor must be greater than 0 and at most 1e+12 (got 0)"_qs;
        QTest::addRow("factor negative")
            << 64 << with(y, [](auto &c) { c.factor = -2.0; }) << u"factor must be"_qs;
        QTest::addRow("factor nan")
            << 64 << with(make(RopeType::Ntk), [](auto &c) { c.factor = std::nan(""); })
            << u"factor must be"_qs;
        QTest::addRow("yarn without original")
            << 64 << with(y, [](auto &c) { c.originalMaxPositionEmbeddings = 0; })
            << u"original_max_position_embeddings is required by rope_type \"yarn\""_qs;
        QTest::addRow("llama3 original negative")
            << 128 << with(llama31(), [](auto &c) { c.originalMaxPositionEmbeddings = -5; })
            << u"original_max_position_embeddings must be between"_qs;
        QTest::addRow("yarn factor null, no max_position_embeddings")
            << 64 << with(y, [](auto &c) { c.factor.reset(); }) << u"factor is not given"_qs;
        QTest::addRow("dynamic without max_position_embeddings")
            << 64 << with(make(RopeType::Dynamic), [](auto &c) { c.factor = 2.0; })
            << u"max_position_embeddings is required by rope_type \"dynamic\""_qs;
        QTest::addRow("ntk at 2 dims")
            << 2 << with(make(RopeType::Ntk), [](auto &c) { c.factor = 2.0; })
            << u"divides by zero at 2 rotary dims"_qs;
        // DESIGN.md's base limit (> 1, <= 1e12) holds for a model's rope_theta as for --base;
        // it also keeps yarn's correction range from dividing by ln(1) = 0.
        QTest::addRow("yarn theta 1")
            << 64 << with(y, [](auto &c) { c.ropeTheta = 1.0; })
            << u"rope_theta must be greater than 1 and at most 1e+12 (got 1)"_qs;
        QTest::addRow("theta 0.5")
            << 64 << with(base, [](auto &c) { c.ropeTheta = 0.5; })
            << u"rope_theta must be greater than 1 and at most 1e+12 (got 0.5)"_qs;
        QTest::addRow("yarn beta_fast negative")
            << 64 << with(y, [](auto &c) { c.betaFast = -1.0; })
            << u"beta_fast must be between 0 and 1e+12 (got -1)"_qs;
        QTest::addRow("yarn beta_slow infinite")
            << 64 << with(y, [](auto &c) { c.betaSlow = INFINITY; }) << u"beta_slow must be"_qs;
        QTest::addRow("yarn odd 5 dims") << 5 << y << u"even number of rotary dims"_qs;
        QTest::addRow("yarn 1 dim") << 1 << y << u"at least 2 rotary dims"_qs;
        QTest::addRow("short_factor length") << 48 << longrope << u"short_factor has 32 values"_qs;
        QTest::addRow("long_factor length, long sequence") << 64 << with(longrope, [](auto &c) {
            c.longFactor.assign(5, 2.0);
            c.sequenceLength = 5000;
        }) << u"long_factor has 5 values"_qs;
        QTest::addRow("short_factor zero")
            << 64 << with(longrope, [](auto &c) { c.shortFactor[3] = 0.0; })
            << u"short_factor must hold numbers between -1e+12 and 1e+12, and not 0 (got 0)"_qs;
        QTest::addRow("short_factor empty")
            << 64 << with(longrope, [](auto &c) { c.shortFactor.clear(); })
            << u"short_factor is empty"_qs;
        QTest::addRow("longrope original 1")
            << 64 << with(longrope, [](auto &c) { c.originalMaxPositionEmbeddings = 1; })
            << u"ln(1) = 0"_qs;
        QTest::addRow("llama3 low 0")
            << 128 << with(llama31(), [](auto &c) { c.lowFreqFactor = 0; })
            << u"low_freq_factor must be between -1e+12 and 1e+12, and not 0 (got 0)"_qs;
        QTest::addRow("llama3 high 0")
            << 128 << with(llama31(), [](auto &c) { c.highFreqFactor = 0; })
            << u"high_freq_factor must be between -1e+12 and 1e+12, and not 0 (got 0)"_qs;
        QTest::addRow("max_position_embeddings negative, default type")
            << 64 << with(base, [](auto &c) { c.maxPositionEmbeddings = -1; })
            << u"max_position_embeddings must be between 0 and"_qs;
        QTest::addRow("mrope 2 entries") << 128 << with(base, [](auto &c) {
            c.mropeSection = {32, 32};
        }) << u"mrope_section must have 3 entries"_qs;
        QTest::addRow("mrope sum") << 128 << with(base, [](auto &c) {
            c.mropeSection = {16, 24, 20};
        }) << u"mrope_section [16, 24, 20] covers 60 pairs, but the head rotates 64"_qs;
        QTest::addRow("mrope negative") << 128 << with(base, [](auto &c) {
            c.mropeSection = {16, -24, 72};
        }) << u"mrope_section must hold whole numbers between 0 and 32768 (got -24)"_qs;
    }
    void problems()
    {
        QFETCH(int, headDim);
        QFETCH(RopeConfig, config);
        QFETCH(QString, message);
        const QString problem = ropeConfigProblem(headDim, config);
        QVERIFY2(problem.contains(message), qPrintable(problem));
        QVERIFY(ropeInverseFrequencies(headDim, config).inverseFrequencies.empty());
        QVERIFY(ropeTable(headDim, config, RopeTableKind::Cos, 3, true).values.empty());
        QVERIFY(ropeColumnPhases(headDim, config).empty());
    }

    // Where HF computes and only logs a warning, pescope computes and reports the warning.
    void acceptedWhereHfOnlyWarns()
    {
        RopeConfig config = yarn(4.0, 4096, 10000.0);
        config.betaFast = 1.0;
        config.betaSlow = 32.0;
        QVERIFY(ropeConfigProblem(64, config).isEmpty());
        QVERIFY(ropeConfigWarnings(64, config)
                    .join(u'\n')
                    .contains(u"beta_fast field must be greater than beta_slow"_qs));

        config = llama31();
        config.highFreqFactor = 1.0; // == low: no medium band
        QVERIFY(ropeConfigProblem(128, config).isEmpty());
        QVERIFY(ropeConfigWarnings(128, config).join(u'\n').contains(u"high_freq_factor"_qs));
        const auto theta = ropeInverseFrequencies(128, config).inverseFrequencies;
        for (int i = 0; i < 64; ++i) {
            const double original = 1.0 / std::pow(500000.0, 2.0 * i / 128);
            const bool longWave = 2 * pi / original > 8192.0;
            QCOMPARE(theta[std::size_t(i)], longWave ? original / 8.0 : original);
        }

        config = make(RopeType::Linear);
        config.factor = 0.5;
        QVERIFY(ropeConfigProblem(64, config).isEmpty());
        QVERIFY(ropeConfigWarnings(64, config)
                    .join(u'\n')
                    .contains(u"factor field must be a float or int >= 1, got 0.5"_qs));

        // longrope: a list of the wrong length only matters once it is used.
        config = make(RopeType::Longrope);
        config.factor = 32.0;
        config.originalMaxPositionEmbeddings = 4096;
        config.shortFactor.assign(32, 1.0);
        config.longFactor.assign(7, 1.0);
        QVERIFY(ropeConfigProblem(64, config).isEmpty());
        QVERIFY(ropeConfigWarnings(64, config)
                    .join(u'\n')
                    .contains(u"long_factor field must have length 32, got 7"_qs));

        // yarn's factor disagreeing with max_position_embeddings / original.
        config = yarn(8.0, 4096, 10000.0);
        config.maxPositionEmbeddings = 131072;
        QVERIFY(ropeConfigWarnings(64, config).join(u'\n').contains(u"implicit factor"_qs));
        config.factor = 32.0;
        QVERIFY(ropeConfigWarnings(64, config).isEmpty());
    }

    // The field table (command line, sessions, forms), ropeConfigProblem() and the
    // rope_parameters reader apply one set of bounds (issue 30: the table once wanted
    // low_freq_factor > 0 where the checks took any number but 0, and beta_fast's message said
    // "greater than 0" while 0 was accepted). The rules are transformers 5's:
    // _compute_llama3_parameters divides the original context by low_freq_factor and
    // high_freq_factor (0 fails, a negative one is computed with); _compute_yarn_parameters reads
    // `.get("beta_fast") or 32` and `.get("beta_slow") or 1` and takes log(original / (beta 2 pi))
    // (0 is the default, a negative one fails); longrope divides by its factors.
    void tableAndChecksAgree_data()
    {
        QTest::addColumn<RopeConfig>("config");
        QTest::addColumn<int>("headDim");
        QTest::addColumn<QString>("refusedKey"); // empty: accepted
        const RopeConfig y = yarn(4.0, 4096, 10000.0);
        const RopeConfig longrope = phi3Like();
        QTest::addRow("llama3 low_freq_factor 0")
            << with(llama31(), [](auto &c) { c.lowFreqFactor = 0; }) << 128
            << u"low_freq_factor"_qs;
        QTest::addRow("llama3 low_freq_factor -1")
            << with(llama31(), [](auto &c) { c.lowFreqFactor = -1; }) << 128 << QString();
        QTest::addRow("llama3 high_freq_factor 0")
            << with(llama31(), [](auto &c) { c.highFreqFactor = 0; }) << 128
            << u"high_freq_factor"_qs;
        QTest::addRow("yarn beta_fast 0")
            << with(y, [](auto &c) { c.betaFast = 0; }) << 64 << QString();
        QTest::addRow("yarn beta_fast -1")
            << with(y, [](auto &c) { c.betaFast = -1; }) << 64 << u"beta_fast"_qs;
        QTest::addRow("yarn beta_slow -0.5")
            << with(y, [](auto &c) { c.betaSlow = -0.5; }) << 64 << u"beta_slow"_qs;
        QTest::addRow("longrope short_factor 0")
            << with(longrope, [](auto &c) { c.shortFactor[5] = 0; }) << 64 << u"short_factor"_qs;
        QTest::addRow("longrope long_factor negative")
            << with(longrope, [](auto &c) { c.longFactor[5] = -2; }) << 64 << QString();
        QTest::addRow("yarn attention_factor negative (HF warns)")
            << with(y, [](auto &c) { c.attentionFactor = -1.0; }) << 64 << QString();
        QTest::addRow("factor 0") << with(y, [](auto &c) { c.factor = 0.0; }) << 64 << u"factor"_qs;
    }
    void tableAndChecksAgree()
    {
        QFETCH(RopeConfig, config);
        QFETCH(int, headDim);
        QFETCH(QString, refusedKey);
        RopeScheme scheme;
        static_cast<RopeConfig &>(scheme) = config;
        const FieldProblem table = rangeProblem(RopeScheme::fields(), scheme);
        const QString problem = ropeConfigProblem(headDim, config);
        QString error;
        ropeConfigFromJson(ropeConfigToJson(config), headDim, config.maxPositionEmbeddings, &error);
        if (refusedKey.isEmpty()) {
            QVERIFY2(table.isEmpty(), qPrintable(table.key + u' ' + table.message));
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QVERIFY2(error.isEmpty(), qPrintable(error));
            return;
        }
        QCOMPARE(table.key, refusedKey);
        QCOMPARE(problem, refusedKey + u' ' + table.message);
        QCOMPARE(error, u"rope_parameters: "_qs + problem);
    }

    // The values accepted above compute as transformers 5 does.
    void acceptedValuesComputeAsHf()
    {
        // A negative low_freq_factor makes low_freq_wavelen negative: every wavelength is longer,
        // so every frequency is divided by the factor.
        RopeConfig config = llama31();
        config.lowFreqFactor = -1.0;
        compareFrequencies(ropeInverseFrequencies(128, config).inverseFrequencies,
                           llama3Theta(500000.0, 8.0, -1.0, 4.0, 8192.0, 128), 1e-12);
        // beta_fast 0 and beta_slow 0 are HF's 32 and 1.
        config = yarn(4.0, 4096, 10000.0);
        config.betaFast = 0.0;
        config.betaSlow = 0.0;
        compareFrequencies(ropeInverseFrequencies(64, config).inverseFrequencies,
                           yarnTheta(10000.0, 64, 4.0, 4096.0), 1e-12);
    }

    // --- rope_parameters JSON ----------------------------------------------------------------

    void jsonErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<qint64>("maxPositions");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown type")
            << QByteArray(R"({"rope_type": "xpos", "rope_theta": 10000})") << qint64(4096)
            << u"rope_parameters: rope_type \"xpos\" is not a rope type pescope knows"_qs;
        QTest::addRow("type not a string") << QByteArray(R"({"rope_type": 3})") << qint64(4096)
                                           << u"rope_type must be a string (got a number)"_qs;
        QTest::addRow("factor a string")
            << QByteArray(R"({"rope_type": "linear", "factor": "4"})") << qint64(4096)
            << u"rope_parameters: factor must be a number (got a string)"_qs;
        QTest::addRow("theta an array")
            << QByteArray(R"({"rope_type": "default", "rope_theta": [1]})") << qint64(4096)
            << u"rope_theta must be a number (got an array)"_qs;
        QTest::addRow("truncate a number")
            << QByteArray(R"({"rope_type": "yarn", "factor": 4, "truncate": 0,
                              "original_max_position_embeddings": 4096})")
            << qint64(16384) << u"truncate must be true or false (got a number)"_qs;
        QTest::addRow("original fractional")
            << QByteArray(R"({"rope_type": "yarn", "factor": 4,
                              "original_max_position_embeddings": 4096.5})")
            << qint64(16384) << u"original_max_position_embeddings must be a whole number"_qs;
        QTest::addRow("short_factor not an array")
            << QByteArray(R"({"rope_type": "longrope", "short_factor": 1, "long_factor": [1],
                              "original_max_position_embeddings": 4096})")
            << qint64(131072) << u"short_factor must be an array of numbers (got a number)"_qs;
        QTest::addRow("long_factor item")
            << QByteArray(R"({"rope_type": "longrope", "short_factor": [1], "long_factor": [1, "x"],
                              "original_max_position_embeddings": 4096})")
            << qint64(131072) << u"long_factor[1] must be a number (got a string)"_qs;
        QTest::addRow("mrope_section fractional")
            << QByteArray(R"({"rope_type": "default", "mrope_section": [16, 24.5, 23.5]})")
            << qint64(4096) << u"mrope_section[1] must be a whole number"_qs;
        QTest::addRow("llama3 without low_freq_factor")
            << QByteArray(R"({"rope_type": "llama3", "rope_theta": 500000, "factor": 8,
                              "high_freq_factor": 4, "original_max_position_embeddings": 8192})")
            << qint64(131072) << u"low_freq_factor is required by rope_type \"llama3\""_qs;
        QTest::addRow("llama3 without rope_theta")
            << QByteArray(
                   R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 1,
                              "high_freq_factor": 4, "original_max_position_embeddings": 8192})")
            << qint64(131072) << u"rope_theta is required by rope_type \"llama3\""_qs;
        QTest::addRow("proportional without rope_theta")
            << QByteArray(R"({"rope_type": "proportional", "partial_rotary_factor": 0.25})")
            << qint64(4096) << u"rope_theta is required by rope_type \"proportional\""_qs;
        QTest::addRow("yarn without factor")
            << QByteArray(R"({"rope_type": "yarn", "original_max_position_embeddings": 4096})")
            << qint64(16384) << u"factor is required by rope_type \"yarn\""_qs;
        QTest::addRow("yarn without original nor max_position_embeddings")
            << QByteArray(R"({"rope_type": "yarn", "factor": 4})") << qint64(0)
            << u"original_max_position_embeddings is required by rope_type \"yarn\""_qs;
        QTest::addRow("longrope without long_factor")
            << QByteArray(R"({"type": "longrope", "short_factor": [1],
                              "original_max_position_embeddings": 4096})")
            << qint64(131072) << u"long_factor is required by rope_type \"longrope\""_qs;
        QTest::addRow("linear factor null")
            << QByteArray(R"({"rope_type": "linear", "factor": null})") << qint64(4096)
            << u"rope_parameters: factor must not be null"_qs;
        QTest::addRow("rope_theta null")
            << QByteArray(R"({"rope_type": "default", "rope_theta": null})") << qint64(4096)
            << u"rope_theta must not be null"_qs;
        QTest::addRow("short_factor null")
            << QByteArray(R"({"rope_type": "longrope", "short_factor": null, "long_factor": [1],
                              "original_max_position_embeddings": 4096})")
            << qint64(131072) << u"short_factor must not be null"_qs;
        QTest::addRow("dynamic without max_position_embeddings")
            << QByteArray(R"({"rope_type": "dynamic", "factor": 2})") << qint64(0)
            << u"max_position_embeddings is required by rope_type \"dynamic\""_qs;
        QTest::addRow("rope_interleave a string")
            << QByteArray(R"({"rope_type": "default", "rope_interleave": "yes"})") << qint64(4096)
            << u"rope_interleave must be true or false (got a string)"_qs;
        // Issue 35: whole-number keys that no integer type holds are refused, never cast.
        for (const char *huge : {"3.3e56", "-3.3e56", "9223372036854775808", "2.5"}) {
            QTest::addRow("original_max_position_embeddings %s", huge)
                << QByteArray(
                       R"({"rope_type": "llama3", "rope_theta": 500000, "factor": 8, "low_freq_factor": 1,
                                  "high_freq_factor": 4, "original_max_position_embeddings": )") +
                       huge + "}"
                << qint64(8192) << u"original_max_position_embeddings must be a whole number"_qs;
        }
        QTest::addRow("valid keys, bad values")
            << QByteArray(R"({"rope_type": "default", "partial_rotary_factor": 2})") << qint64(4096)
            << u"rope_parameters: partial_rotary_factor must be greater than 0 and at most 1"_qs;
    }
    void jsonErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(qint64, maxPositions);
        QFETCH(QString, message);
        QJsonParseError parse;
        const QJsonObject object = QJsonDocument::fromJson(json, &parse).object();
        QCOMPARE(parse.error, QJsonParseError::NoError);
        QString error;
        const RopeConfig config = ropeConfigFromJson(object, 64, maxPositions, &error);
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(config == RopeConfig{});
    }

    void jsonLegacyKeysAndDefaults()
    {
        QString error;
        // Qwen2-VL's published rope_scaling: type "mrope" is HF's default type with sections.
        RopeConfig config = ropeConfigFromJson(
            QJsonDocument::fromJson(R"({"type": "mrope", "mrope_section": [16, 24, 24],
                                        "rope_theta": 1000000.0})")
                .object(),
            128, 32768, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(config.ropeType, RopeType::Default);
        QVERIFY(config.mropeSection == (QList<qint64>{16, 24, 24}));
        QCOMPARE(config.pairing, RopePairing::Half);
        QCOMPARE(config.ropeTheta, 1e6);
        // rope_type wins over type; pescope's old spelling of dynamic.
        config =
            ropeConfigFromJson(QJsonDocument::fromJson(
                                   R"({"rope_type": "dynamic-ntk", "type": "linear", "factor": 2})")
                                   .object(),
                               64, 4096, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(config.ropeType, RopeType::Dynamic);
        // Nothing at all: the default type with default_theta 10000.
        config = ropeConfigFromJson(QJsonObject{}, 64, 0, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(config.ropeType, RopeType::Default);
        QCOMPARE(config.ropeTheta, 10000.0);
        // standardize_rope_params: original_max_position_embeddings defaults to
        // max_position_embeddings; "su" is Phi-3's early name of longrope.
        config = ropeConfigFromJson(QJsonDocument::fromJson(R"({"type": "su", "short_factor": [1.0],
                                        "long_factor": [2.0], "unknown_key": 1})")
                                        .object(),
                                    64, 4096, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(config.ropeType, RopeType::Longrope);
        QCOMPARE(config.originalMaxPositionEmbeddings, qint64(4096));
        // DeepSeek's pairing flag; yarn's null factor left to inference.
        config =
            ropeConfigFromJson(QJsonDocument::fromJson(
                                   R"({"rope_type": "yarn", "factor": null, "rope_interleave": true,
                                        "original_max_position_embeddings": 4096,
                                        "beta_fast": null})")
                                   .object(),
                               64, 163840, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!config.factor);
        QCOMPARE(config.betaFast, 32.0);
        QCOMPARE(config.pairing, RopePairing::Interleaved);
        QCOMPARE(ropeEffectiveFactor(config).value(), 40.0);
        QVERIFY(config.truncate);
        // HF tests `if truncate:` on .get("truncate", True): an explicit null is false.
        config = ropeConfigFromJson(
            QJsonDocument::fromJson(R"({"rope_type": "yarn", "factor": 32, "truncate": null,
                                        "original_max_position_embeddings": 4096})")
                .object(),
            64, 131072, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!config.truncate);
    }

    void jsonRoundTrip_data()
    {
        QTest::addColumn<RopeConfig>("config");
        QTest::addColumn<int>("headDim");
        RopeConfig everything = yarn(40.0, 4096, 10000.0);
        everything.maxPositionEmbeddings = 163840;
        everything.partialRotaryFactor = 0.5;
        everything.attentionFactor = 1.25;
        everything.betaFast = 16.0;
        everything.betaSlow = 2.0;
        everything.mscale = 1.0;
        everything.mscaleAllDim = 0.707;
        everything.truncate = false;
        everything.lowFreqFactor = 2.0;
        everything.highFreqFactor = 8.0;
        everything.shortFactor = {1.0, 2.0};
        everything.longFactor = {3.0};
        everything.mropeSection = {8, 12, 12};
        everything.mropeInterleaved = true;
        everything.pairing = RopePairing::Interleaved;
        QTest::addRow("every field") << everything << 128;
        RopeConfig inferred = everything;
        inferred.factor.reset();
        QTest::addRow("yarn, factor inferred") << inferred << 128;
        for (const QJsonValue &item : references().value(QLatin1String("cases")).toArray()) {
            const QJsonObject record = item.toObject();
            QString error;
            RopeConfig config = configOf(record, &error);
            config.sequenceLength = 0;
            QTest::addRow("%s", qPrintable(record.value(QLatin1String("name")).toString()))
                << config << int(record.value(QLatin1String("head_dim")).toInteger());
        }
    }
    // The readers name a field's Hugging Face key through ropeHfKeyOf(): the keys transformers 5
    // reads (modeling_rope_utils.py: standardize_rope_params, the _compute_<type>_parameters and
    // _validate_<type>_rope_parameters), and DeepSeek's rope_interleave for the pairing. The two
    // choices (rope_type, pairing) are found by their enum member, each its own row.
    void hfKeysOfMembers()
    {
        const auto key = [](auto member) { return QString(ropeHfKeyOf(member)); };
        QCOMPARE(key(&RopeConfig::ropeTheta), QStringLiteral("rope_theta"));
        QCOMPARE(key(&RopeConfig::ropeType), QStringLiteral("rope_type"));
        QCOMPARE(key(&RopeConfig::pairing), QStringLiteral("rope_interleave"));
        QCOMPARE(key(&RopeConfig::partialRotaryFactor), QStringLiteral("partial_rotary_factor"));
        QCOMPARE(key(&RopeConfig::factor), QStringLiteral("factor"));
        QCOMPARE(key(&RopeConfig::originalMaxPositionEmbeddings),
                 QStringLiteral("original_max_position_embeddings"));
        QCOMPARE(key(&RopeConfig::maxPositionEmbeddings),
                 QStringLiteral("max_position_embeddings"));
        QCOMPARE(key(&RopeConfig::attentionFactor), QStringLiteral("attention_factor"));
        QCOMPARE(key(&RopeConfig::betaFast), QStringLiteral("beta_fast"));
        QCOMPARE(key(&RopeConfig::betaSlow), QStringLiteral("beta_slow"));
        QCOMPARE(key(&RopeConfig::mscale), QStringLiteral("mscale"));
        QCOMPARE(key(&RopeConfig::mscaleAllDim), QStringLiteral("mscale_all_dim"));
        QCOMPARE(key(&RopeConfig::truncate), QStringLiteral("truncate"));
        QCOMPARE(key(&RopeConfig::shortFactor), QStringLiteral("short_factor"));
        QCOMPARE(key(&RopeConfig::longFactor), QStringLiteral("long_factor"));
        QCOMPARE(key(&RopeConfig::lowFreqFactor), QStringLiteral("low_freq_factor"));
        QCOMPARE(key(&RopeConfig::highFreqFactor), QStringLiteral("high_freq_factor"));
        QCOMPARE(key(&RopeConfig::mropeSection), QStringLiteral("mrope_section"));
        QCOMPARE(key(&RopeConfig::mropeInterleaved), QStringLiteral("mrope_interleaved"));
        // standardize_rope_params: rope_parameters.get("type", "default") before rope_type.
        QCOMPARE(QString(ropeLegacyKeyOf(&RopeConfig::ropeType)), QStringLiteral("type"));
        QVERIFY(ropeLegacyKeyOf(&RopeConfig::factor).isEmpty());
        // Sessions keep the pairing under the field's own key, not HF's.
        QCOMPARE(QString::fromUtf8(ropeFieldOf(&RopeConfig::pairing).field.key),
                 QStringLiteral("pairing"));
    }

    void jsonRoundTrip()
    {
        QFETCH(RopeConfig, config);
        QFETCH(int, headDim);
        QString error;
        const QJsonObject json = ropeConfigToJson(config);
        const RopeConfig back =
            ropeConfigFromJson(json, headDim, config.maxPositionEmbeddings, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(back == config, QJsonDocument(json).toJson().constData());
    }

    void names()
    {
        for (const ChoiceName &row : ropeTypeNames) {
            QCOMPARE(parseRopeType(QString::fromUtf8(row.name)), RopeType(row.value));
            QVERIFY(!labelOf(ropeTypeNames, RopeType(row.value)).isEmpty());
        }
        for (const ChoiceName &row : ropePairingNames)
            QCOMPARE(parseAs<RopePairing>(ropePairingNames, QString::fromUtf8(row.name)),
                     RopePairing(row.value));
        QCOMPARE(ropeTypeName(RopeType::Dynamic), u"dynamic"_qs);
        QCOMPARE(parseRopeType(u"dynamic-ntk"_qs), RopeType::Dynamic);
        QCOMPARE(parseRopeType(u"dynamic_ntk"_qs), RopeType::Dynamic);
        QCOMPARE(parseRopeType(u"none"_qs), RopeType::Default);
        QCOMPARE(parseRopeType(u"mrope"_qs), RopeType::Default);
        QCOMPARE(parseRopeType(u"su"_qs), RopeType::Longrope);
        QCOMPARE(parseAs<RopePairing>(ropePairingNames, u"neox"_qs), RopePairing::Half);
        QCOMPARE(parseAs<RopePairing>(ropePairingNames, u"gptj"_qs), RopePairing::Interleaved);
        QVERIFY(!parseRopeType(u"Yarn"_qs));
        QVERIFY(!parseAs<RopePairing>(ropePairingNames, u"split"_qs));
        QCOMPARE(std::size(ropeTypeNames), std::size_t(8));
    }

    // Every rope type has its row of rules (help and θᵢ written out), in ropeTypeNames' order;
    // the RoPE scheme's formula names the rule in use with its numbers (F1 reads it).
    void everyTypeHasItsRuleAndHelp()
    {
        QCOMPARE(ropeTypeRules().size(), std::size(ropeTypeNames));
        QSet<QString> formulas;
        for (std::size_t i = 0; i < std::size(ropeTypeNames); ++i) {
            const RopeType type = RopeType(ropeTypeNames[i].value);
            QCOMPARE(ropeTypeRules()[i].type, type);
            const QString help = QString::fromUtf8(ropeTypeRule(type).help);
            QVERIFY2(!help.isEmpty(), ropeTypeNames[i].name);
            RopeScheme rope;
            rope.ropeType = type;
            rope.ropeTheta = 500000.0;
            rope.fillNeeded();
            const MatrixShape shape{64, 128};
            QVERIFY2(!rope.problem(shape), qPrintable(rope.problem(shape).message));
            const QString formula = rope.formula(shape);
            QVERIFY2(formula.contains(help), qPrintable(formula));
            QVERIFY2(formula.contains(u"500000"_qs), qPrintable(formula)); // the base as written
            QVERIFY2(formula.contains(u"θ"_qs), qPrintable(formula));
            formulas.insert(formula);
        }
        QCOMPARE(formulas.size(), qsizetype(std::size(ropeTypeNames))); // one rule each
    }

    // YaRN's beta_fast / beta_slow: HF's `.get("beta_fast") or 32` and `or 1`, so 0 (absent,
    // null) means 32 and 1, in the frequencies, the warnings, the formula and the fields' help
    // (--help, tooltips) alike.
    void yarnBetaDefaultsAreHfs()
    {
        RopeConfig config = yarn(4.0, 32768, 1e6);
        config.betaFast = 0.0;
        config.betaSlow = 0.0;
        QCOMPARE(ropeYarnBetaFast(config), 32.0);
        QCOMPARE(ropeYarnBetaSlow(config), 1.0);
        const RopeConfig defaults = RopeConfig{};
        QCOMPARE(defaults.betaFast, 32.0);
        QCOMPARE(defaults.betaSlow, 1.0);
        const QString rule = ropeScalingRule(config, 128);
        QVERIFY2(rule.contains(u"β<sub>fast</sub> = 32 "_qs), qPrintable(rule));
        QVERIFY2(rule.contains(u"β<sub>slow</sub> = 1)"_qs), qPrintable(rule));
        // The warning for beta_fast < beta_slow compares the values HF computes with.
        config.betaFast = 0.5;
        const QString warnings = ropeConfigWarnings(128, config).join(u'\n');
        QVERIFY2(warnings.contains(u"defaults to 32 if None"_qs), qPrintable(warnings));
        config.betaFast = 0.0;
        config.betaSlow = 40.0; // 32 (the default) < 40
        QVERIFY(ropeConfigWarnings(128, config).join(u'\n').contains(u"beta_fast"_qs));
        config.betaSlow = 0.0;
        QVERIFY(!ropeConfigWarnings(128, config).join(u'\n').contains(u"beta_fast"_qs));
        QStringList helps;
        for (const RopeField<RopeConfig> &row : ropeFields<RopeConfig>())
            if (qstrcmp(row.field.key, "beta_fast") == 0 ||
                qstrcmp(row.field.key, "beta_slow") == 0)
                helps << QString::fromUtf8(row.field.help);
        QCOMPARE(helps.size(), 2);
        QVERIFY2(helps[0].endsWith(u" ramp to interpolation starts (0: 32)."_qs),
                 qPrintable(helps[0]));
        QVERIFY2(helps[1].endsWith(u" ramp ends (0: 1)."_qs), qPrintable(helps[1]));
    }

    // The checked-in references are what the script makes: re-run it and compare. Numbers may
    // differ in the last bit where NumPy's vectorised pow differs between CPUs.
    void referencesAreUpToDate()
    {
        const QString python = pythonWithNumpy();
        if (python.isEmpty())
            PE_SKIP_MISSING("no python3 with NumPy to re-run tests/data/rope/make_references.py");
        const QString script = QFINDTESTDATA("data/rope/make_references.py");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcess process;
        process.start(python, {script, dir.path()});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        for (const char *name : {"references.json", "mistakes.json"}) {
            const QJsonObject made = loadRopeData(QDir(dir.path()).filePath(QLatin1String(name)));
            const QJsonObject checkedIn = loadRopeData(
                QFINDTESTDATA(QString(QStringLiteral("data/rope/") + QLatin1String(name))));
            QString where;
            QVERIFY2(sameJson(made, checkedIn, QLatin1String(name), &where), qPrintable(where));
        }
    }

private:
    // Equal up to how NumPy's results differ between CPUs (its SIMD paths): float64 to 1e-14
    // relative; cos and sin of angles p·θ up to ~10^5 rad by about p·θ·eps absolute (3e-11
    // seen) whatever the value's size; tables computed in float32 ("hf's float32 forward") by
    // a few float32 ulps (1e-6 of values up to ~1.4). A change to the script moves them far more.
    static bool sameJson(const QJsonValue &a, const QJsonValue &b, const QString &path,
                         QString *where, double absolute = 0.0)
    {
        *where = path;
        if (a.type() != b.type())
            return false;
        if (a.isDouble()) {
            const double x = a.toDouble(), y = b.toDouble();
            const bool trig = path.contains(u".cos[") || path.contains(u".sin[") ||
                              path.contains(u".values["); // mistakes.json: cos / sin tables
            return std::abs(x - y) <= 1e-14 * std::max(std::abs(x), std::abs(y)) ||
                   std::abs(x - y) <= std::max(absolute, trig ? 1e-10 : 0.0);
        }
        if (a.isArray()) {
            const QJsonArray x = a.toArray(), y = b.toArray();
            if (x.size() != y.size())
                return false;
            for (qsizetype i = 0; i < x.size(); ++i)
                if (!sameJson(x.at(i), y.at(i), path + u'[' + QString::number(i) + u']', where,
                              absolute))
                    return false;
            return true;
        }
        if (a.isObject()) {
            const QJsonObject x = a.toObject(), y = b.toObject();
            if (x.keys() != y.keys())
                return false;
            const double inner = x.value(u"name").toString().contains(u"float32") ? 1e-6 : absolute;
            for (const QString &key : x.keys())
                if (!sameJson(x.value(key), y.value(key), path + u'.' + key, where, inner))
                    return false;
            return true;
        }
        return a == b;
    }
};

QTEST_GUILESS_MAIN(TestRopeTypes)
#include "tst_ropetypes.moc"
