// `verify`'s comparison (core/rope/ropeverify): each diagnosis triggered by a deliberately wrong
// table made by NumPy (tests/data/rope/mistakes.json), the tolerance's semantics, the first
// difference it reports, and candidates of the wrong shape.
#include "ropetestdata.h"
#include "testutil.h"

#include "rope/ropeverify.h"

#include <cmath>

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
        RopeVerifyOptions options;
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
        QCOMPARE(result.position, qint64(-1));

        options.tolerance = 3e-6;
        result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QCOMPARE(result.differing, qint64(2));
        QCOMPARE(result.position, qint64(17));
        QCOMPARE(result.column, qint64(21));
        QCOMPARE(result.pair, qint64(21 - 16)); // half layout: column 21 of 32 is pair 5
        QCOMPARE(result.referenceValue, original);
        QCOMPARE(result.candidateValue, original + 5e-6);
        // 5e-6 at an angle of 0.4 rad is beyond float32's reach, and no known mistake fits.
        QCOMPARE(result.mistake, RopeMistake::None);
        QVERIFY(result.diagnosis.isEmpty());
        const QStringList report = ropeVerifyReport(result, options);
        QVERIFY2(
            report.join(u'\n').contains(u"first difference at position 17, pair 5 (column 21)"_qs),
            qPrintable(report.join(u'\n')));
        QCOMPARE(report.size(), 2);

        // A NaN never agrees, whatever the tolerance.
        candidate = ropeTable(headDim, config, RopeTableKind::Cos, 3, true);
        candidate.values[4] = std::nan("");
        options.tolerance = 1e9;
        result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QCOMPARE(result.position, qint64(0));
        QCOMPARE(result.column, qint64(4));
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
        QCOMPARE(result.pair, qint64(theta.size() - 1));
        QCOMPARE(result.position, qint64(-1));
        PE_COMPARE_NEAR(result.maxRelError, 1e-8 / slowest, 1e-9);
        theta.back() = slowest * (1 + 5e-7);
        QVERIFY(verify(headDim, config, options, vectorTable(theta)).agrees);
        // A column vector is accepted too.
        RopeTable column{qint64(theta.size()), 1, theta};
        QVERIFY(verify(headDim, config, options, column).agrees);
    }

    // HF's own float32 inv_freq passes the default tolerance; below float32's precision it
    // differs, and the difference is recognised as float32 rounding.
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
        const RopeVerifyResult result = verify(headDim, config, options, candidate);
        QVERIFY(!result.agrees);
        QCOMPARE(result.mistake, RopeMistake::Float32Angles);
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
        QCOMPARE(result.position, qint64(5));
        QCOMPARE(result.column, qint64(10));
        QCOMPARE(result.pair, qint64(-1));
        // The interleaved layout instead of the half one.
        RopeConfig other = config;
        other.pairing = RopePairing::Interleaved;
        const RopeVerifyResult swapped = verify(
            headDim, config, options, ropeTable(headDim, other, RopeTableKind::CosSin, 50, true));
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

    void badInput_data()
    {
        QTest::addColumn<int>("what");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("columns");
        QTest::addColumn<int>("values");
        QTest::addColumn<QString>("message");
        const int cos = int(RopeQuantity::Cos), inv = int(RopeQuantity::InverseFrequencies),
                  att = int(RopeQuantity::AttentionFactor), cs = int(RopeQuantity::CosSin);
        QTest::addRow("cos, head dim wide") << cos << qint64(4) << qint64(64) << 256
                                            << u"expected positions x 32 (the rotary dims)"_qs;
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
