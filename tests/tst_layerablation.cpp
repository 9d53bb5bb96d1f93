// The Phrases page's ablation of the enlarged layer.head (issue 48 item 3): the layer-attention
// view with one layer enlarged and an ablation chosen draws three panels, with positions,
// ablated and their difference. Their cells against the core pass run here with and without the
// ablation (model/forwardpass.h), not against anything the figure computed. The ablation is the
// state's (LayerAblation), edited through its form (AblationControls): a scaling rule built in
// the form is the PositionAblation the command line's --rope-scaling JSON gives; a value out of
// range is refused beside its field and runs no pass; one the model cannot take shows
// ForwardPass::ablationProblem's sentence; undo restores the previous ablation. The page at
// 1280 x 720 (written to $PE_SCREENSHOT_DIR when set, to look at).
#include "compute/computescheduler.h"
#include "model/forwardpass.h"
#include "rope/ropeconfig.h"
#include "state/explorerstate.h"
#include "views/ablationcontrols.h"
#include "views/modelphraseview.h"
#include "widgets/fieldform.h"

#include "figures/qcpinclude.h"
#include "forwardreference.h"
#include "testutil.h"
#include "windowtestutil.h"

#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QJsonDocument>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
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

// One edit of the ablation form, as a user makes it: "key=text" (a choice by its name).
using Edits = QStringList;

// The rule the command line's --rope-scaling JSON gives, read by core's reader as the pass reads
// it (ablatedRope: the layer's rope_theta and partial factor, the model's context).
RopeConfig parsedRule(QJsonObject json, qint64 headDim, qint64 context)
{
    json.insert(QStringLiteral("rope_theta"), 10000.0);
    QString error;
    RopeConfig config = ropeConfigFromJson(json, headDim, context, &error);
    if (!error.isEmpty())
        qWarning() << error;
    return config;
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
    void formRefusesValuesByName();
    void modelRefusalShowsThePassSentence();
    void undoRestoresThePreviousAblation();
    void commandLine();
    void gridAblationSaysToEnlargeAHead();
    void noteKeepsItsPlace();
    void choicesShownWhereTheyAct();

private:
    // Makes `edits` in the ablation form and waits for the pass they ask for.
    void edit(const Edits &edits);
    void waitForTheStatesPass();
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
    QVERIFY(m_view->ablationControls()->isVisible());
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

void TestLayerAblation::edit(const Edits &edits)
{
    AblationControls *controls = m_view->ablationControls();
    for (const QString &e : edits) {
        const QString key = e.section(QLatin1Char('='), 0, 0);
        const QString text = e.section(QLatin1Char('='), 1);
        QWidget *editor = controls->editor(key);
        QVERIFY2(editor && editor->isVisible(), qPrintable(key));
        if (auto *combo = qobject_cast<QComboBox *>(editor)) {
            const int index = combo->findData(text);
            QVERIFY2(index >= 0, qPrintable(text));
            combo->setCurrentIndex(index);
            emit combo->activated(index);
        } else {
            pe::test::typeInto(editor, text);
        }
    }
}

void TestLayerAblation::waitForTheStatesPass()
{
    const ForwardAblation expected = forwardAblationOf(m_state->layerAblation());
    QCOMPARE(m_view->ablation(), expected);
    QTRY_VERIFY_WITH_TIMEOUT(m_view->forward() && m_view->forward()->inputs.ablation == expected,
                             60000);
    QTest::qWait(20); // the queued replot
}

void TestLayerAblation::panelsEqualTheCorePass_data()
{
    QTest::addColumn<Edits>("edits");
    // Rules: the --rope-scaling JSON the form's rule must equal; empty for the other kinds.
    QTest::addColumn<QString>("json");
    QTest::addColumn<bool>("changes"); // RoPE's scores depend on i - j: a shift changes nothing
    QTest::addRow("removed") << Edits{QStringLiteral("kind=removed")} << QString() << true;
    QTest::addRow("shift 5") << Edits{QStringLiteral("kind=shift"), QStringLiteral("shift=5")}
                             << QString() << false;
    QTest::addRow("scale 2") << Edits{QStringLiteral("kind=scale"), QStringLiteral("scale=2")}
                             << QString() << true;
    QTest::addRow("theta 1000") << Edits{QStringLiteral("kind=theta"),
                                         QStringLiteral("rope_theta=1000")}
                                << QString() << true;
    QTest::addRow("yarn rule")
        << Edits{QStringLiteral("kind=rope-scaling"), QStringLiteral("rope_type=yarn"),
                 QStringLiteral("factor=4"), QStringLiteral("original_max_position_embeddings=64")}
        << QStringLiteral(
               R"({"rope_type":"yarn","factor":4,"original_max_position_embeddings":64})")
        << true;
    QTest::addRow("llama3 rule")
        << Edits{QStringLiteral("kind=rope-scaling"),
                 QStringLiteral("rope_type=llama3"),
                 QStringLiteral("factor=8"),
                 QStringLiteral("original_max_position_embeddings=16"),
                 QStringLiteral("low_freq_factor=1"),
                 QStringLiteral("high_freq_factor=2")}
        << QStringLiteral(
               R"({"rope_type":"llama3","factor":8,"original_max_position_embeddings":16,)"
               R"("low_freq_factor":1,"high_freq_factor":2})")
        << true;
}

void TestLayerAblation::panelsEqualTheCorePass()
{
    QFETCH(Edits, edits);
    QFETCH(QString, json);
    QFETCH(bool, changes);
    edit(edits);
    QCOMPARE(m_view->ablationControls()->message(), QString());
    waitForTheStatesPass();
    QVERIFY2(m_view->forward()->ablationProblem.isEmpty(),
             qPrintable(m_view->forward()->ablationProblem));
    QCustomPlot *plot = m_view->layerPlot(FigureView::LayerAttention);
    plot->replot();
    const QList<QCPColorMap *> maps = colourMaps(plot);
    QCOMPARE(maps.size(), 3);

    QString error;
    std::unique_ptr<ForwardPass> pass = ForwardPass::open(layersFolder("llama-tiny4"), &error);
    QVERIFY2(pass, qPrintable(error));
    // A rule: the pass is run here with the command line's JSON, not with the form's, after
    // checking that core reads both as the same rule.
    ForwardAblation a = m_view->forward()->inputs.ablation;
    if (!json.isEmpty()) {
        const QJsonObject cli = QJsonDocument::fromJson(json.toUtf8()).object();
        QVERIFY(!cli.isEmpty());
        const qint64 context = 2048;
        QVERIFY(parsedRule(a.positions.ropeScaling, pass->rotaryDims(), context) ==
                parsedRule(cli, pass->rotaryDims(), context));
        QCOMPARE(a.positions.ropeScaling, cli);
        a.positions.ropeScaling = cli;
    }
    // The core pass, here, with and without the ablation, for the page's tokens.
    std::vector<int> ids;
    for (const qint64 id : m_view->forward()->phrase.tokens.ids)
        ids.push_back(int(id));
    const qint64 n = qint64(ids.size()), heads = pass->heads();
    ForwardOptions plain;
    plain.hiddenStates = false;
    plain.logits = false;
    plain.attentionLayer = 2;
    ForwardOptions ablated = plain;
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
    // File > Export draws what the page shows: the state's ablation is the figure's input, so
    // the pass held for the page is the one the export takes.
    QCOMPARE(m_scheduler->figureData({FigureView::LayerAttention}).modelForward, m_view->forward());

    if (const QString dir = qEnvironmentVariable("PE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(m_view->grab().save(QDir(dir).filePath(
            QStringLiteral("ablation-%1.png").arg(QString::fromUtf8(QTest::currentDataTag())))));
}

// A negative shift, a scale that is not a number > 0, text that is no number, a rule whose
// factor is left empty: refused beside the field, named by its label; the state keeps its
// ablation and no pass runs for the refused value.
void TestLayerAblation::formRefusesValuesByName()
{
    edit({QStringLiteral("kind=shift"), QStringLiteral("shift=3")});
    waitForTheStatesPass();
    const LayerAblation good = m_state->layerAblation();
    const struct
    {
        const char *kind;
        const char *key;
        const char *value;
        const char *message;
    } cases[] = {{"shift", "shift", "-3", "Shift k must be between 0 and 2147483648 (got -3)"},
                 {"shift", "shift", "five", "Shift k must be"},
                 {"scale", "scale", "0", "Scale s must be greater than 0"},
                 {"scale", "scale", "nan", "Scale s must be"},
                 {"theta", "rope_theta", "-1", "rope_theta B must be greater than 0"},
                 {"rope-scaling", "factor", "-2", "Factor s must be greater than 0"}};
    for (const auto &c : cases) {
        edit({QStringLiteral("kind=%1").arg(QLatin1String(c.kind))});
        const LayerAblation before = m_state->layerAblation();
        edit({QStringLiteral("%1=%2").arg(QLatin1String(c.key), QLatin1String(c.value))});
        const QString shown = m_view->ablationControls()->message(QLatin1String(c.key));
        QVERIFY2(shown.startsWith(QLatin1String(c.message)),
                 qPrintable(QLatin1String(c.value) + QLatin1Char(' ') + shown));
        QVERIFY(m_state->layerAblation() == before);
        // The pass the page asks for is still the state's: the refused value asked for none.
        QCOMPARE(m_view->ablation(), forwardAblationOf(before));
    }
    // A llama3 rule needs its factor: the field left empty is refused by name.
    edit({QStringLiteral("kind=rope-scaling"), QStringLiteral("rope_type=llama3")});
    edit({QStringLiteral("factor=")});
    QVERIFY2(m_view->ablationControls()
                 ->message(QStringLiteral("factor"))
                 .contains(QLatin1String("required by rope_type llama3")),
             qPrintable(m_view->ablationControls()->message(QStringLiteral("factor"))));
    QVERIFY(m_state->layerAblation().rule.factor.has_value());
    QVERIFY(m_state->setLayerAblation(good));
    waitForTheStatesPass();
    QCOMPARE(m_view->forward()->ablationProblem, QString());
}

// A value in range the model cannot take (positions past what is computed for its tokens): the
// pass's own sentence in the note and the figure's title, one panel, no crash.
void TestLayerAblation::modelRefusalShowsThePassSentence()
{
    QString error;
    std::unique_ptr<ForwardPass> pass = ForwardPass::open(layersFolder("llama-tiny4"), &error);
    QVERIFY2(pass, qPrintable(error));
    const qint64 n = m_view->forward()->phrase.tokens.size();
    LayerAblation ablation;
    ablation.kind = AblationKind::Shift;
    ablation.shift = ropeMaxContext;
    QVERIFY2(m_state->setLayerAblation(ablation, &error), qPrintable(error));
    waitForTheStatesPass();
    const QString expected = pass->ablationProblem(ablation.positions(), n);
    QVERIFY(!expected.isEmpty());
    QCOMPARE(m_view->forward()->ablationProblem, expected);
    QVERIFY2(m_view->forwardNote().contains(expected), qPrintable(m_view->forwardNote()));
    QCustomPlot *plot = m_view->layerPlot(FigureView::LayerAttention);
    plot->replot();
    QCOMPARE(colourMaps(plot).size(), 1);
    if (const QString dir = qEnvironmentVariable("PE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(m_view->grab().save(QDir(dir).filePath(QStringLiteral("ablation-refused.png"))));
}

// Each accepted edit is one undo step: undo gives the previous ablation back, to the state, the
// form and the pass; redo the new one.
void TestLayerAblation::undoRestoresThePreviousAblation()
{
    QUndoStack undo;
    m_state->setUndoStack(&undo);
    edit({QStringLiteral("kind=scale"), QStringLiteral("scale=3")});
    waitForTheStatesPass();
    const LayerAblation scaled = m_state->layerAblation();
    QCOMPARE(scaled.kind, AblationKind::Scale);
    QCOMPARE(scaled.scale, 3.0);
    edit({QStringLiteral("kind=rope-scaling"), QStringLiteral("rope_type=linear"),
          QStringLiteral("factor=5")});
    waitForTheStatesPass();
    const LayerAblation rule = m_state->layerAblation();
    QCOMPARE(rule.rule.ropeType, RopeType::Linear);
    QVERIFY(undo.count() >= 4);
    QCOMPARE(undo.text(undo.index() - 1), QStringLiteral("Set Factor s (ablation) to 5"));
    undo.undo(); // factor
    undo.undo(); // rope_type
    undo.undo(); // kind
    QVERIFY(m_state->layerAblation() == scaled);
    QCOMPARE(qobject_cast<QLineEdit *>(m_view->ablationControls()->editor(QStringLiteral("scale")))
                 ->text(),
             QStringLiteral("3"));
    waitForTheStatesPass();
    QCOMPARE(m_view->forward()->inputs.ablation.positions.scale, 3.0);
    undo.redo();
    undo.redo();
    undo.redo();
    QVERIFY(m_state->layerAblation() == rule);
    m_state->setUndoStack(nullptr);
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

// An ablation with every layer's grid on screen: the grid compares nothing, and the note says
// how to see the ablation (issue 48 D12: a full pass, then the plain grid without a word).
void TestLayerAblation::gridAblationSaysToEnlargeAHead()
{
    m_view->layerChoice()->setCurrentIndex(m_view->layerChoice()->findData(-1));
    LayerAblation ablation;
    ablation.kind = AblationKind::Scale;
    ablation.scale = 4;
    QVERIFY(m_state->setLayerAblation(ablation));
    waitForTheStatesPass();
    QVERIFY2(m_view->forwardNote().contains(QStringLiteral("pick a Layer and a Head")),
             qPrintable(m_view->forwardNote()));
    // A layer chosen: the hint goes, the enlarged head draws the ablation.
    m_view->layerChoice()->setCurrentIndex(m_view->layerChoice()->findData(2));
    QVERIFY2(!m_view->forwardNote().contains(QStringLiteral("pick a Layer")),
             qPrintable(m_view->forwardNote()));
    if (const QString dir = qEnvironmentVariable("PE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QTest::qWait(50);
        QVERIFY(m_view->grab().save(QDir(dir).filePath(QStringLiteral("ablation-l2h1.png"))));
    }
}

// The note's messages (timing, "Running…", the hint, refusals) take a fixed place: the tabs do
// not move and the page does not ask to be wider (issue 48 D10: a one-word column of 4-8 lines).
void TestLayerAblation::noteKeepsItsPlace()
{
    m_view->resize(900, 720);
    LayerAblation ablation;
    ablation.kind = AblationKind::Scale;
    ablation.scale = 4;
    QVERIFY(m_state->setLayerAblation(ablation));
    waitForTheStatesPass();
    QVERIFY(m_view->forwardNote().size() < 30); // "4 layers in 3 ms"
    const int tabsAt = m_view->figureTabs()->mapTo(m_view.get(), QPoint(0, 0)).y();
    const int widthAsked = m_view->minimumSizeHint().width();
    // The grid of every layer: the note's long hint.
    m_view->layerChoice()->setCurrentIndex(m_view->layerChoice()->findData(-1));
    QVERIFY(m_view->forwardNote().size() > 80);
    QTest::qWait(20);
    QCOMPARE(m_view->figureTabs()->mapTo(m_view.get(), QPoint(0, 0)).y(), tabsAt);
    QCOMPARE(m_view->minimumSizeHint().width(), widthAsked);
    QCOMPARE(m_view->width(), 900);
}

// Head shows its items whole; Head and Layer appear only on the tabs they change (issue 48 D14).
void TestLayerAblation::choicesShownWhereTheyAct()
{
    QComboBox *head = m_view->headChoice();
    QComboBox *layer = m_view->layerChoice();
    for (int i = 0; i < head->count(); ++i)
        QVERIFY2(head->width() >= head->fontMetrics().horizontalAdvance(head->itemText(i)) + 16,
                 qPrintable(head->itemText(i)));
    QVERIFY(head->isVisible() && layer->isVisible());
    const QList<FigureView> views = ModelPhraseView::tabViews();
    for (int i = 0; i < int(views.size()); ++i) {
        m_view->figureTabs()->setCurrentIndex(i);
        const bool grid = views[i] == FigureView::LayerAttention;
        QCOMPARE(layer->isVisible(), grid);
        QCOMPARE(head->isVisible(), grid || views[i] == FigureView::ModelAttention);
    }
}

QTEST_MAIN(TestLayerAblation)
#include "tst_layerablation.moc"
