// `pescope data --model M --phrase TEXT --what attention|ANALYSIS --shift K | --scale S |
// --theta B | --rope-scaling JSON | --no-positions [--compare]` through the executable: the pass
// with its positions ablated in every layer (tst_forwardablation checks its numbers against the
// NumPy port), --compare's three arrays (with, ablated, with - ablated), and the refusals: exit
// 2 with one line naming the option, no file left behind.
#include "formats/npyfile.h"
#include "forwardreference.h"
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <initializer_list>

using namespace pe::test;

class TestPhraseAblation : public QObject
{
    Q_OBJECT

private slots:
    void compareStacksWithAblatedDifference_data();
    void compareStacksWithAblatedDifference();
    void analysisCompare();
    void refusals_data();
    void refusals();

private:
    Array run(const QString &folder, const QStringList &extra);
    QString m_text;
    QTemporaryDir m_dir;
};

namespace {

QStringList strings(std::initializer_list<const char *> items)
{
    QStringList out;
    for (const char *item : items)
        out.append(QString::fromUtf8(item));
    return out;
}

std::vector<float> part(const Array &a, qint64 index)
{
    const auto each = qsizetype(a.values.size() / std::size_t(a.shape.at(0)));
    return {a.values.begin() + index * each, a.values.begin() + (index + 1) * each};
}

} // namespace

Array TestPhraseAblation::run(const QString &folder, const QStringList &extra)
{
    const QString text =
        phraseCases(folder).at(0).toObject().value(QLatin1String("text")).toString();
    return runPhraseData(m_dir.filePath(QStringLiteral("out.npy")), folder, text, extra);
}

void TestPhraseAblation::compareStacksWithAblatedDifference_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QStringList>("ablation");
    QTest::addColumn<bool>("changes");
    const QString llama = layersFolder("llama-tiny4");
    const QString gpt2 = layersFolder("gpt2-tiny4");
    QTest::newRow("llama scale 2") << llama << strings({"--scale", "2"}) << true;
    QTest::newRow("llama theta 100") << llama << strings({"--theta", "100"}) << true;
    QTest::newRow("llama yarn") << llama
                                << strings(
                                       {"--rope-scaling", R"({"rope_type": "yarn", "factor": 4})"})
                                << true;
    // RoPE depends on i - j: a shift changes the attention by rounding only.
    QTest::newRow("llama shift 5") << llama << strings({"--shift", "5"}) << false;
    QTest::newRow("gpt2 shift 5") << gpt2 << strings({"--shift", "5"}) << true;
    QTest::newRow("gpt2 no positions") << gpt2 << strings({"--no-positions"}) << true;
}

// --compare at layer 2: with positions (the plain --layer 2 array, bit for bit), ablated (the
// same run without --compare), and their difference.
void TestPhraseAblation::compareStacksWithAblatedDifference()
{
    QFETCH(QString, folder);
    QFETCH(QStringList, ablation);
    QFETCH(bool, changes);
    const QStringList layer2 = strings({"--what", "attention", "--layer", "2"});
    const Array plain = run(folder, layer2);
    const Array ablated = run(folder, layer2 + ablation);
    const Array compared = run(folder, layer2 + ablation + strings({"--compare"}));
    QCOMPARE(plain.shape.size(), std::size_t(3));
    std::vector<qint64> shape = plain.shape;
    shape.insert(shape.begin(), 3);
    QCOMPARE(compared.shape, shape);
    QVERIFY(part(compared, 0) == plain.values);
    QVERIFY(part(compared, 1) == ablated.values);
    const std::vector<float> difference = part(compared, 2);
    double largest = 0;
    for (std::size_t i = 0; i < difference.size(); ++i) {
        QCOMPARE(difference[i], plain.values[i] - ablated.values[i]);
        largest = std::max(largest, double(std::abs(difference[i])));
    }
    QVERIFY2(changes ? largest > 1e-3 : largest < 1e-5, qPrintable(QString::number(largest)));
}

// A layer analysis compared: {3, layers, heads} sinks of GPT-2 shifted by 20.
void TestPhraseAblation::analysisCompare()
{
    const QString folder = layersFolder("gpt2-tiny4");
    const Array plain = run(folder, strings({"--what", "head-scores"}));
    const Array compared =
        run(folder, strings({"--what", "head-scores", "--shift", "20", "--compare"}));
    std::vector<qint64> shape = plain.shape;
    shape.insert(shape.begin(), 3);
    QCOMPARE(compared.shape, shape);
    QVERIFY(part(compared, 0) == plain.values);
    QVERIFY(part(compared, 1) != plain.values);
}

void TestPhraseAblation::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    const QString out = m_dir.filePath(QStringLiteral("refused.npy"));
    const auto phrase = [&](const char *model) {
        return QStringList{
            QStringLiteral("data"),      QStringLiteral("--model"), layersFolder(model),
            QStringLiteral("--phrase"),  QStringLiteral("a cat"),   QStringLiteral("--what"),
            QStringLiteral("attention"), QStringLiteral("--out"),   out};
    };
    const QStringList llama = phrase("llama-tiny4"), gpt2 = phrase("gpt2-tiny4");
    const auto add = [](const char *name, const QStringList &args, const char *expected) {
        QTest::newRow(name) << args << QString::fromUtf8(expected);
    };
    add("negative shift", llama + strings({"--shift", "-1"}), "--shift must be between 0");
    add("shift not a number", llama + strings({"--shift", "x"}), "--shift must be a whole");
    add("scale 0", llama + strings({"--scale", "0"}), "--scale must be a number > 0");
    add("negative scale", llama + strings({"--scale", "-2"}), "--scale must be a number > 0");
    add("NaN scale", llama + strings({"--scale", "nan"}), "--scale must be a finite number");
    add("theta 0", llama + strings({"--theta", "0"}), "--theta must be a number > 0");
    add("negative theta", llama + strings({"--theta", "-1e4"}), "--theta must be a number > 0");
    add("NaN theta", llama + strings({"--theta", "nan"}), "--theta must be a finite number");
    add("unknown rule", llama + strings({"--rope-scaling", R"({"rope_type": "warp"})"}),
        "--rope-scaling {\"rope_type\": \"warp\"}: rope scaling");
    add("rule not JSON", llama + strings({"--rope-scaling", "linear"}),
        "--rope-scaling must be a JSON object");
    add("rule without its factor",
        llama + strings({"--rope-scaling", R"({"rope_type": "linear"})"}), "factor");
    add("scale of a learned table", gpt2 + strings({"--scale", "2"}),
        "--scale 2: position scale 2: scaling positions is not defined for a learned position "
        "table");
    add("shift past the table", gpt2 + strings({"--shift", "255"}),
        "--shift 255: position shift 255");
    add("theta without RoPE", gpt2 + strings({"--theta", "1000"}), "has no RoPE layer");
    add("compare alone", llama + strings({"--compare"}), "--compare needs what to compare");
    add("removed and shifted", llama + strings({"--no-positions", "--shift", "2"}),
        "--no-positions removes the positions");
    add("embeddings shifted",
        QStringList{QStringLiteral("data"), QStringLiteral("--model"), layersFolder("gpt2-tiny4"),
                    QStringLiteral("--phrase"), QStringLiteral("a cat"), QStringLiteral("--out"),
                    out, QStringLiteral("--shift"), QStringLiteral("2")},
        "--shift does not apply to --what embeddings");
    add("shift without a phrase",
        QStringList{QStringLiteral("data"), QStringLiteral("--shift"), QStringLiteral("2"),
                    QStringLiteral("--out"), out},
        "--shift does not apply to a spec without --phrase");
}

void TestPhraseAblation::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const RunResult r = runPescope(args);
    QCOMPARE(r.exitCode, 2);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.startsWith(QLatin1String("pescope data: ")) && err.count(QLatin1Char('\n')) == 1,
             qPrintable(err));
    QVERIFY2(err.contains(expected), qPrintable(err));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("refused.npy"))));
}

QTEST_GUILESS_MAIN(TestPhraseAblation)
#include "tst_phraseablation.moc"
