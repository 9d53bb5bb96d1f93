// pe::PositionAblation: the whole forward pass with its positions shifted, scaled, or turned
// with another rope_theta or rule, in every layer. Known answers: the NumPy float64 port of
// tests/data/models-forward/make_forward_refs.py run the same way (its ABLATIONS: position_ids
// from 5, rope_scaling linear 2, rope_theta 1000, llama3), within tst_forwardpass' tolerances;
// what changes nothing gives the plain pass bit for bit; what is not defined is refused by name.
#include "model/forwardpass.h"

#include "forwardreference.h"
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <limits>

using namespace pe;
using namespace pe::test;

namespace {

QJsonObject jsonOf(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

PositionAblation shifted(qint64 k)
{
    PositionAblation a;
    a.shift = k;
    return a;
}

PositionAblation scaled(double s)
{
    PositionAblation a;
    a.scale = s;
    return a;
}

PositionAblation theta(double base)
{
    PositionAblation a;
    a.ropeTheta = base;
    return a;
}

PositionAblation rule(const char *json)
{
    PositionAblation a;
    a.ropeScaling = jsonOf(json);
    return a;
}

std::optional<ForwardResult> runWith(ForwardPass &pass, const std::vector<int> &ids,
                                     const PositionAblation &ablation, QString *error)
{
    ForwardOptions options;
    options.positions = ablation;
    options.threads = 2;
    return pass.run(ids, options, error);
}

} // namespace

Q_DECLARE_METATYPE(pe::PositionAblation)

class TestForwardAblation : public QObject
{
    Q_OBJECT

private slots:
    void matchesPort_data();
    void matchesPort();
    void changingNothingIsThePlainPass_data();
    void changingNothingIsThePlainPass();
    void hostileValuesRefused_data();
    void hostileValuesRefused();
    void oneLayerMatchesWholePass();
};

void TestForwardAblation::matchesPort_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("reference");
    QTest::addColumn<PositionAblation>("ablation");
    QTest::addColumn<bool>("changes");
    // RoPE's scores depend on i - j only: position ids from 5 change the attention by rounding
    // alone (the reference says so too); a learned table's rows 7 .. 18 change it.
    QTest::newRow("mistral shift 5") << "mistral-tiny"
                                     << "shift5" << shifted(5) << false;
    QTest::newRow("mistral scale 2") << "mistral-tiny"
                                     << "scale2" << scaled(2) << true;
    // The same reference: positions p / 2 are what rope_type linear with factor 2 turns by.
    QTest::newRow("mistral rope linear 2")
        << "mistral-tiny"
        << "scale2" << rule(R"({"rope_type": "linear", "factor": 2})") << true;
    QTest::newRow("mistral theta 1000") << "mistral-tiny"
                                        << "theta1000" << theta(1000) << true;
    QTest::newRow("mistral llama3")
        << "mistral-tiny"
        << "llama3" << rule(R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 1,
                    "high_freq_factor": 4, "original_max_position_embeddings": 128})")
        << true;
    // dynamic NTK reads seq_len = max(position_ids) + 1 = 1012 > 512: the base grows, and the
    // shifted attention changes.
    PositionAblation dynamic = rule(R"({"rope_type": "dynamic", "factor": 2})");
    dynamic.shift = 1000;
    QTest::newRow("mistral dynamic, shift 1000") << "mistral-tiny"
                                                 << "dynamic_shift1000" << dynamic << true;
    QTest::newRow("opt shift 5 (learned table)") << "opt-tiny"
                                                 << "shift5" << shifted(5) << true;
    // gpt2-tiny: the port's GPT-2 (Conv1D, gelu_new), plain (checking the port itself) and with
    // wpe's rows 5 .. 16.
    QTest::newRow("gpt2 plain") << "gpt2-tiny"
                                << "" << PositionAblation{} << false;
    QTest::newRow("gpt2 shift 5 (learned table)") << "gpt2-tiny"
                                                  << "shift5" << shifted(5) << true;
}

// Every layer's attention within 1e-5, every hidden state within 1e-4 relative of the port.
void TestForwardAblation::matchesPort()
{
    QFETCH(QString, model);
    QFETCH(QString, reference);
    QFETCH(PositionAblation, ablation);
    QFETCH(bool, changes);
    const QString folder = forwardFolder(model);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::vector<int> ids = refIds(folder);
    QVERIFY(!ids.empty());
    const std::optional<ForwardResult> result = runWith(*pass, ids, ablation, &error);
    QVERIFY2(result, qPrintable(error));
    const QString suffix = reference.isEmpty() ? QString() : QLatin1Char('_') + reference;
    const Array attn = readNpy(folder + QStringLiteral("/ref/attn%1.npy").arg(suffix));
    const Array hidden = readNpy(folder + QStringLiteral("/ref/hidden%1.npy").arg(suffix));
    const qint64 tokens = qint64(ids.size());
    const Difference a = compare(result->attentions.values, attn.values, tokens);
    const Difference h = compare(result->hiddenStates.values, hidden.values, pass->hiddenSize());
    qInfo("%s %s: attention %.3g abs, hidden %.3g rel", qPrintable(model), qPrintable(reference),
          a.absolute, h.relative);
    QVERIFY2(a.absolute <= 1e-5, qPrintable(QString::number(a.absolute)));
    QVERIFY2(h.relative <= 1e-4, qPrintable(QString::number(h.relative)));
    // Whether the ablation changed the attention: the plain pass's reference against its own.
    const Array plain = readNpy(folder + QStringLiteral("/ref/attn.npy"));
    const double change = compare(plain.values, attn.values, tokens).absolute;
    QVERIFY2(changes ? change > 1e-3 : change < 1e-6, qPrintable(QString::number(change)));
}

void TestForwardAblation::changingNothingIsThePlainPass_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<PositionAblation>("ablation");
    const QString mistral = forwardFolder(QStringLiteral("mistral-tiny"));
    const QString llama = QFINDTESTDATA(QStringLiteral("data/models-layers/llama-tiny4"));
    const QString gpt2 = QFINDTESTDATA(QStringLiteral("data/models-layers/gpt2-tiny4"));
    QTest::newRow("mistral shift 0") << mistral << shifted(0);
    QTest::newRow("mistral scale 1") << mistral << scaled(1);
    QTest::newRow("mistral its own theta") << mistral << theta(10000);
    QTest::newRow("mistral default rule, its own theta")
        << mistral << rule(R"({"rope_type": "default"})");
    // llama-tiny4 has llama3 scaling: its own rope_theta keeps it (only the base is replaced).
    QTest::newRow("llama its own theta") << llama << theta(500000);
    QTest::newRow("gpt2 shift 0") << gpt2 << shifted(0);
}

// Shift 0, scale 1, the model's own base: the plain pass, every value bit for bit.
void TestForwardAblation::changingNothingIsThePlainPass()
{
    QFETCH(QString, folder);
    QFETCH(PositionAblation, ablation);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::vector<int> ids = {5, 17, 3, 42, 8, 8, 61, 0, 23};
    const std::optional<ForwardResult> plain = runWith(*pass, ids, {}, &error);
    QVERIFY2(plain, qPrintable(error));
    const std::optional<ForwardResult> same = runWith(*pass, ids, ablation, &error);
    QVERIFY2(same, qPrintable(error));
    QVERIFY(plain->attentions.values == same->attentions.values);
    QVERIFY(plain->hiddenStates.values == same->hiddenStates.values);
    QVERIFY(plain->logits.values == same->logits.values);
}

void TestForwardAblation::hostileValuesRefused_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<PositionAblation>("ablation");
    QTest::addColumn<bool>("withPositions");
    QTest::addColumn<QString>("named");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("negative shift") << "mistral-tiny" << shifted(-1) << true << "shift -1";
    QTest::newRow("huge shift") << "mistral-tiny" << shifted(qint64(1) << 40) << true << "shift";
    QTest::newRow("scale 0") << "mistral-tiny" << scaled(0) << true << "scale 0";
    QTest::newRow("negative scale") << "mistral-tiny" << scaled(-2) << true << "scale -2";
    QTest::newRow("NaN scale") << "mistral-tiny" << scaled(nan) << true << "scale nan";
    QTest::newRow("infinite scale") << "mistral-tiny" << scaled(inf) << true << "scale inf";
    QTest::newRow("theta 0") << "mistral-tiny" << theta(0) << true << "rope_theta 0";
    QTest::newRow("negative theta") << "mistral-tiny" << theta(-5) << true << "rope_theta -5";
    QTest::newRow("NaN theta") << "mistral-tiny" << theta(nan) << true << "rope_theta nan";
    QTest::newRow("unknown rule") << "mistral-tiny" << rule(R"({"rope_type": "warp"})") << true
                                  << "warp";
    QTest::newRow("linear without factor")
        << "mistral-tiny" << rule(R"({"rope_type": "linear"})") << true << "factor";
    QTest::newRow("rule with factor 0")
        << "mistral-tiny" << rule(R"({"rope_type": "linear", "factor": 0})") << true << "factor";
    // 12 tokens from row 2 of a 66-row table: rows 55 to 66 do not all exist.
    QTest::newRow("shift past the learned table")
        << "opt-tiny" << shifted(53) << true << "embed_positions";
    QTest::newRow("scale of a learned table") << "opt-tiny" << scaled(2) << true << "learned";
    // 12 tokens of a 32-row wpe: shift 20 reaches row 31, shift 21 row 32.
    QTest::newRow("shift past GPT-2's wpe") << "gpt2-tiny" << shifted(21) << true << "wpe";
    QTest::newRow("theta without RoPE") << "opt-tiny" << theta(1000) << true << "no RoPE layer";
    QTest::newRow("rule without RoPE")
        << "bert-tiny" << rule(R"({"rope_type": "linear", "factor": 2})") << true
        << "no RoPE layer";
    QTest::newRow("removed and shifted") << "mistral-tiny" << shifted(3) << false << "removed";
}

// Refused before any work, with one sentence naming the value.
void TestForwardAblation::hostileValuesRefused()
{
    QFETCH(QString, model);
    QFETCH(PositionAblation, ablation);
    QFETCH(bool, withPositions);
    QFETCH(QString, named);
    const QString folder = forwardFolder(model);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::vector<int> ids = refIds(folder);
    QVERIFY(!ids.empty());
    qint64 progressCalls = 0;
    ForwardOptions options;
    options.positions = ablation;
    options.withPositions = withPositions;
    options.progress = [&](qint64, qint64) { ++progressCalls; };
    QVERIFY(!pass->run(ids, options, &error));
    QVERIFY2(error.contains(named, Qt::CaseInsensitive), qPrintable(error));
    QCOMPARE(progressCalls, 0);
    if (withPositions)
        QCOMPARE(pass->ablationProblem(ablation, qint64(ids.size())), error);
}

// The last shift a learned table holds is accepted; one layer's attention (what the command
// line asks for) is that layer of the whole pass.
void TestForwardAblation::oneLayerMatchesWholePass()
{
    const QString folder = forwardFolder(QStringLiteral("opt-tiny"));
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::vector<int> ids = refIds(folder);
    QVERIFY(runWith(*pass, ids, shifted(52), &error));
    const std::unique_ptr<ForwardPass> gpt2 =
        ForwardPass::open(forwardFolder(QStringLiteral("gpt2-tiny")), &error);
    QVERIFY2(gpt2, qPrintable(error));
    QVERIFY2(runWith(*gpt2, ids, shifted(20), &error), qPrintable(error));

    const QString mistral = forwardFolder(QStringLiteral("mistral-tiny"));
    const std::unique_ptr<ForwardPass> rope = ForwardPass::open(mistral, &error);
    QVERIFY2(rope, qPrintable(error));
    const std::optional<ForwardResult> whole = runWith(*rope, ids, shifted(5), &error);
    QVERIFY2(whole, qPrintable(error));
    ForwardOptions options;
    options.positions = shifted(5);
    options.attentionLayer = 2;
    options.hiddenStates = false;
    options.logits = false;
    options.threads = 2;
    const std::optional<ForwardResult> one = rope->run(ids, options, &error);
    QVERIFY2(one, qPrintable(error));
    const std::size_t each = one->attentions.values.size();
    const std::vector<float> last(whole->attentions.values.end() - qsizetype(each),
                                  whole->attentions.values.end());
    QVERIFY(last == one->attentions.values);
}

QTEST_GUILESS_MAIN(TestForwardAblation)
#include "tst_forwardablation.moc"
