// The Phrases page's ablation of the enlarged layer.head (issue 48 item 3): the layer-attention
// view with one layer enlarged and an ablation chosen draws three panels, with positions,
// ablated and their difference. Their cells against the core pass run here with and without the
// ablation (model/forwardpass.h), not against anything the figure computed; a value the model
// cannot take shows ForwardPass::ablationProblem's sentence in the view, a value that is no
// number says so; the page at 1280 x 720 (written to $PE_SCREENSHOT_DIR when set, to look at).
#include "compute/computescheduler.h"
#include "model/forwardpass.h"
#include "state/explorerstate.h"
#include "views/modelphraseview.h"

#include "figures/qcpinclude.h"
#include "forwardreference.h"
#include "testutil.h"

#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace pe;
using pe::test::layersFolder;

namespace {

// The colour maps of the plot, in the order they were added (the panels left to right).
QList<QCPColorMap *> colourMaps(QCustomPlot *plot)
{
    QList<QCPColorMap *> maps;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *map = qobject_cast<QCPColorMap *>(plot->plottable(i)))
            maps.append(map);
    return maps;
}

// The largest |map cell (j, i) - expected(i, j)| over n x n cells.
template <typename Expected>
double largestDifference(const QCPColorMap *map, qint64 n, const Expected &expected)
{
    double worst = 0;
    for (qint64 i = 0; i < n; ++i)
        for (qint64 j = 0; j < n; ++j) {
            const double d = std::abs(map->data()->cell(int(j), int(i)) - expected(i, j));
            worst = std::isnan(d) ? INFINITY : std::max(worst, d);
        }
    return worst;
}

} // namespace

class TestLayerAblation : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void panelsEqualTheCorePass_data();
    void panelsEqualTheCorePass();
    void hostileValuesShowTheMessage();
    void commandLine();

private:
    // Chooses `kind` (the ablation combo's index) with `value`, and waits for its result.
    void choose(int kind, const QString &value);
    std::unique_ptr<ExplorerState> m_state;
    std::unique_ptr<ComputeScheduler> m_scheduler;
    std::unique_ptr<ModelPhraseView> m_view;
};

void TestLayerAblation::init()
{
    m_state = std::make_unique<ExplorerState>();
    setPhraseModel(m_state.get(), layersFolder("llama-tiny4"));
    PhraseSource source = m_state->phraseSource();
    source.tokenizer = PhraseTokenizer::Model;
    m_state->setPhraseSource(source);
    m_scheduler = std::make_unique<ComputeScheduler>(m_state.get());
    m_view = std::make_unique<ModelPhraseView>(m_state.get(), m_scheduler.get());
    m_view->resize(1280, 720);
    m_view->show();
    QTRY_VERIFY_WITH_TIMEOUT(m_view->result() != nullptr, 30000);
    m_view->figureTabs()->setCurrentIndex(3);
    QCOMPARE(m_view->currentView(), FigureView::LayerAttention);
    QVERIFY(m_view->ablationChoice()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(m_view->forward() != nullptr, 60000);
    m_view->layerChoice()->setCurrentIndex(m_view->layerChoice()->findData(2));
    m_view->headChoice()->setCurrentIndex(m_view->headChoice()->findData(1));
}

void TestLayerAblation::cleanup()
{
    m_view.reset();
    m_scheduler.reset();
    m_state.reset();
}

void TestLayerAblation::choose(int kind, const QString &value)
{
    m_view->ablationChoice()->setCurrentIndex(kind);
    m_view->ablationValue()->setText(value);
    emit m_view->ablationValue()->editingFinished();
    QString error;
    const std::optional<ForwardAblation> wanted = m_view->ablation(&error);
    const ForwardAblation expected = wanted.value_or(ForwardAblation{});
    QTRY_VERIFY_WITH_TIMEOUT(m_view->forward() && m_view->forward()->inputs.ablation == expected,
                             60000);
    QTest::qWait(20); // the queued replot
}

void TestLayerAblation::panelsEqualTheCorePass_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("changes"); // RoPE's scores depend on i - j: a shift changes nothing
    QTest::addRow("removed") << 1 << QString() << true;
    QTest::addRow("shift 5") << 2 << QStringLiteral("5") << false;
    QTest::addRow("scale 2") << 3 << QStringLiteral("2") << true;
    QTest::addRow("theta 1000") << 4 << QStringLiteral("1000") << true;
    QTest::addRow("yarn rule") << 5
                               << QStringLiteral(R"({"rope_type":"yarn","factor":4,)"
                                                 R"("original_max_position_embeddings":64})")
                               << true;
}

void TestLayerAblation::panelsEqualTheCorePass()
{
    QFETCH(int, kind);
    QFETCH(QString, value);
    QFETCH(bool, changes);
    choose(kind, value);
    QVERIFY2(m_view->forward()->ablationProblem.isEmpty(),
             qPrintable(m_view->forward()->ablationProblem));
    QCustomPlot *plot = m_view->layerPlot(FigureView::LayerAttention);
    plot->replot();
    const QList<QCPColorMap *> maps = colourMaps(plot);
    QCOMPARE(maps.size(), 3);

    // The core pass, here, with and without the ablation, for the page's tokens.
    QString error;
    std::unique_ptr<ForwardPass> pass = ForwardPass::open(layersFolder("llama-tiny4"), &error);
    QVERIFY2(pass, qPrintable(error));
    std::vector<int> ids;
    for (const qint64 id : m_view->forward()->phrase.tokens.ids)
        ids.push_back(int(id));
    const qint64 n = qint64(ids.size()), heads = pass->heads();
    ForwardOptions plain;
    plain.hiddenStates = false;
    plain.logits = false;
    plain.attentionLayer = 2;
    ForwardOptions ablated = plain;
    const ForwardAblation &a = m_view->forward()->inputs.ablation;
    ablated.withPositions = !a.withoutPositions;
    ablated.positions = a.positions;
    std::optional<ForwardResult> with = pass->run(ids, plain, &error);
    QVERIFY2(with, qPrintable(error));
    std::optional<ForwardResult> without = pass->run(ids, ablated, &error);
    QVERIFY2(without, qPrintable(error));
    QCOMPARE(with->attentions.shape, (std::vector<qint64>{1, heads, n, n}));
    const auto at = [n](const ForwardResult &r, qint64 i, qint64 j) {
        return double(r.attentions.values[std::size_t((1 * n + i) * n + j)]); // head 1
    };
    const auto withAt = [&](qint64 i, qint64 j) { return at(*with, i, j); };
    const auto ablatedAt = [&](qint64 i, qint64 j) { return at(*without, i, j); };
    const auto differenceAt = [&](qint64 i, qint64 j) { return withAt(i, j) - ablatedAt(i, j); };
    QVERIFY(largestDifference(maps[0], n, withAt) < 1e-6);
    QVERIFY(largestDifference(maps[1], n, ablatedAt) < 1e-6);
    QVERIFY(largestDifference(maps[2], n, differenceAt) < 1e-6);
    // The ablation changes what the difference panel shows (a RoPE shift: rounding alone).
    double changed = 0;
    for (qint64 i = 0; i < n; ++i)
        for (qint64 j = 0; j < n; ++j)
            changed = std::max(changed, std::abs(differenceAt(i, j)));
    QVERIFY2(changes ? changed > 1e-4 : changed < 1e-5, qPrintable(QString::number(changed)));

    if (const QString dir = qEnvironmentVariable("PE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(m_view->grab().save(QDir(dir).filePath(
            QStringLiteral("ablation-%1.png").arg(QString::fromUtf8(QTest::currentDataTag())))));
}

// A negative shift, a scale that is not a number > 0, a rule transformers would not compute:
// the pass's own sentence in the note and the figure's title, one panel, no crash. Text that is
// no number: the view says so.
void TestLayerAblation::hostileValuesShowTheMessage()
{
    QString error;
    std::unique_ptr<ForwardPass> pass = ForwardPass::open(layersFolder("llama-tiny4"), &error);
    QVERIFY2(pass, qPrintable(error));
    const qint64 n = m_view->forward()->phrase.tokens.size();
    const struct
    {
        int kind;
        const char *value;
    } cases[] = {{2, "-3"},
                 {3, "0"},
                 {3, "nan"},
                 {4, "-1"},
                 {5, R"({"rope_type":"no-such-rule","factor":2})"},
                 {2, "1000000000000"}};
    for (const auto &c : cases) {
        choose(c.kind, QString::fromLatin1(c.value));
        const std::optional<ForwardAblation> chosen = m_view->ablation(&error);
        QVERIFY(chosen);
        const QString expected = pass->ablationProblem(chosen->positions, n);
        QVERIFY2(!expected.isEmpty(), c.value);
        QCOMPARE(m_view->forward()->ablationProblem, expected);
        QVERIFY2(m_view->forwardNote().contains(expected), qPrintable(m_view->forwardNote()));
        QCustomPlot *plot = m_view->layerPlot(FigureView::LayerAttention);
        plot->replot();
        QCOMPARE(colourMaps(plot).size(), 1);
    }
    if (const QString dir = qEnvironmentVariable("PE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(m_view->grab().save(QDir(dir).filePath(QStringLiteral("ablation-refused.png"))));
    m_view->ablationChoice()->setCurrentIndex(2);
    m_view->ablationValue()->setText(QStringLiteral("five"));
    emit m_view->ablationValue()->editingFinished();
    QTRY_VERIFY(m_view->forwardNote().contains(QLatin1String("needs a number (got five)")));
    m_view->ablationChoice()->setCurrentIndex(5);
    m_view->ablationValue()->setText(QStringLiteral("[1, 2]"));
    emit m_view->ablationValue()->editingFinished();
    QTRY_VERIFY(m_view->forwardNote().contains(QLatin1String("must be a JSON object")));
}

// `pescope export --view layer-attention ... --scale 2`: the figure; `pescope data --view` the
// three arrays stacked, against the core pass run here; a value the model cannot take and the
// other views refused with exit 2.
void TestLayerAblation::commandLine()
{
    cleanup(); // the window is not needed
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = layersFolder("llama-tiny4");
    const QString text = QStringLiteral("The cat sat on the mat.");
    const QStringList common{QStringLiteral("--view"),  QStringLiteral("layer-attention"),
                             QStringLiteral("--model"), folder,
                             QStringLiteral("--text"),  text};
    const QStringList head{QStringLiteral("--attention-layer"), QStringLiteral("2"),
                           QStringLiteral("--attention-head"), QStringLiteral("1")};
    const QString png = dir.filePath(QStringLiteral("l2h1.png"));
    pe::test::RunResult r = pe::test::runPescope(
        QStringList{QStringLiteral("export"), QStringLiteral("--out"), png,
                    QStringLiteral("--scale"), QStringLiteral("2"), QStringLiteral("--width"),
                    QStringLiteral("1280"), QStringLiteral("--height"), QStringLiteral("720")} +
        common + head);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(QImage(png).size(), QSize(1280, 720));

    const QString npy = dir.filePath(QStringLiteral("l.npy"));
    r = pe::test::runPescope(QStringList{QStringLiteral("data"), QStringLiteral("--out"), npy,
                                         QStringLiteral("--scale"), QStringLiteral("2")} +
                             common);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const pe::test::Array written = pe::test::readNpy(npy);
    QString error;
    std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::vector<int> ids{1, 444, 808, 328, 668, 344, 668, 1902, 713, 275}; // ref/phrases.json
    ForwardOptions plain;
    plain.hiddenStates = false;
    plain.logits = false;
    ForwardOptions scaled = plain;
    scaled.positions.scale = 2;
    const std::optional<ForwardResult> with = pass->run(ids, plain, &error);
    const std::optional<ForwardResult> ablated = pass->run(ids, scaled, &error);
    QVERIFY2(with && ablated, qPrintable(error));
    const qint64 n = qint64(ids.size());
    QCOMPARE(written.shape, (std::vector<qint64>{3, 4, 4, n, n}));
    const std::size_t size = with->attentions.values.size();
    for (std::size_t i = 0; i < size; ++i) {
        const float a = with->attentions.values[i], b = ablated->attentions.values[i];
        QCOMPARE(written.values[i], a);
        QCOMPARE(written.values[size + i], b);
        QCOMPARE(written.values[2 * size + i], a - b);
    }

    const QString expected = pass->ablationProblem(
        [] {
            PositionAblation a;
            a.ropeScaling = QJsonObject{{QStringLiteral("rope_type"), QStringLiteral("nope")}};
            return a;
        }(),
        n);
    QVERIFY(!expected.isEmpty());
    r = pe::test::runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--out"), png,
                                         QStringLiteral("--rope-scaling"),
                                         QStringLiteral(R"({"rope_type":"nope"})")} +
                             common + head);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
    r = pe::test::runPescope({QStringLiteral("export"), QStringLiteral("--out"), png,
                              QStringLiteral("--view"), QStringLiteral("sinks"),
                              QStringLiteral("--model"), folder, QStringLiteral("--text"), text,
                              QStringLiteral("--shift"), QStringLiteral("3")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("apply to --view layer-attention"), r.err.constData());
    r = pe::test::runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--out"), png,
                                         QStringLiteral("--theta"), QStringLiteral("1000")} +
                             common);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--attention-layer N"), r.err.constData());
}

QTEST_MAIN(TestLayerAblation)
#include "tst_layerablation.moc"
