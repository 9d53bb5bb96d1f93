// The Phrases page's layer views (issue 48 item 4): layer-attention, distance-profiles,
// frequency-atlas, sinks, hidden-norms and position-probe of phrase A through the whole forward
// pass of the 4-layer models of tests/data/models-layers (see its README). Each view's numbers
// (the data export) against transformers' own arrays (ref/attn_N.npy, ref/hidden_N.npy) through
// float64 loops written here from the formulas the views' F1 gives, the frequency atlas against
// the same loop over the pass's queries and keys; each figure drawn at 1280 x 720, the grid's
// click target, the command line's PNG and .npy, and the window's tab running the pass on the
// scheduler's worker.
#include "analysis/layeranalysis.h"
#include "backends/backendfactory.h"
#include "compute/computescheduler.h"
#include "compute/figuredata.h"
#include "compute/viewdata.h"
#include "figures/figureexporter.h"
#include "figures/layerfigures.h"
#include "model/forwardpass.h"
#include "state/explorerstate.h"
#include "state/figureviews.h"
#include "state/lessonfile.h"
#include "views/modelphraseview.h"

#include "modelreference.h"
#include "testutil.h"

#include <QComboBox>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <Eigen/Dense>

#include <cmath>

using namespace pe;
using namespace pe::test;

namespace {

constexpr int probePhrase = 5; // "Position matters: ...", 43 to 47 tokens

QString layersFolder(const char *name)
{
    return QFINDTESTDATA(QStringLiteral("data/models-layers/") + QLatin1String(name));
}

QJsonObject phraseCase(const QString &folder, int index)
{
    return phraseCases(folder).at(index).toObject();
}

Array reference(const QString &folder, const QJsonObject &phrase, const char *key)
{
    return readNpy(folder + QStringLiteral("/ref/") + phrase.value(QLatin1String(key)).toString());
}

double largestDifference(const std::vector<float> &ours, const std::vector<double> &expected)
{
    if (ours.size() != expected.size())
        return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const double d = std::abs(double(ours[i]) - expected[i]);
        worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
    }
    return worst;
}

std::vector<double> widened(const std::vector<float> &values)
{
    return {values.begin(), values.end()};
}

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

const QList<FigureView> layerViews{FigureView::LayerAttention, FigureView::DistanceProfiles,
                                   FigureView::FrequencyAtlas, FigureView::Sinks,
                                   FigureView::HiddenNorms,    FigureView::PositionProbe};

// Profile[l][h][d] = mean over i >= d of A[l][h][i][i - d], in float64.
std::vector<double> distanceLoop(const Array &a)
{
    const qint64 layers = a.shape[0], heads = a.shape[1], n = a.shape[2];
    std::vector<double> out;
    for (qint64 lh = 0; lh < layers * heads; ++lh)
        for (qint64 d = 0; d < n; ++d) {
            double sum = 0;
            for (qint64 i = d; i < n; ++i)
                sum += double(a.values[std::size_t((lh * n + i) * n + i - d)]);
            out.push_back(sum / double(n - d));
        }
    return out;
}

// alpha_1 = mean over every query i of A[l][h][i][0] (Gu et al.).
std::vector<double> firstTokenLoop(const Array &a)
{
    const qint64 layers = a.shape[0], heads = a.shape[1], n = a.shape[2];
    std::vector<double> out;
    for (qint64 lh = 0; lh < layers * heads; ++lh) {
        double sum = 0;
        for (qint64 i = 0; i < n; ++i)
            sum += double(a.values[std::size_t((lh * n + i) * n)]);
        out.push_back(sum / double(n));
    }
    return out;
}

// Each token's L2 norm after each layer.
std::vector<double> normLoop(const Array &h)
{
    const qint64 rows = h.shape[0] * h.shape[1], hidden = h.shape[2];
    std::vector<double> out;
    for (qint64 r = 0; r < rows; ++r) {
        double sum = 0;
        for (qint64 d = 0; d < hidden; ++d) {
            const double v = h.values[std::size_t(r * hidden + d)];
            sum += v * v;
        }
        out.push_back(std::sqrt(sum));
    }
    return out;
}

// Ridge (lambda 1, unpenalised intercept) of the position on each layer's hidden states,
// 5-fold cross-validated (row r in fold r % 5), in the primal form with Eigen.
std::vector<double> probeLoop(const Array &h)
{
    const qint64 layers = h.shape[0], n = h.shape[1], hidden = h.shape[2];
    constexpr int folds = 5;
    std::vector<double> out;
    for (qint64 l = 0; l < layers; ++l) {
        Eigen::MatrixXd x(n, hidden);
        for (qint64 t = 0; t < n; ++t)
            for (qint64 d = 0; d < hidden; ++d)
                x(t, d) = h.values[std::size_t((l * n + t) * hidden + d)];
        Eigen::VectorXd predicted(n);
        for (int f = 0; f < folds; ++f) {
            std::vector<qint64> train;
            for (qint64 t = 0; t < n; ++t)
                if (t % folds != f)
                    train.push_back(t);
            Eigen::MatrixXd xt(qint64(train.size()), hidden);
            Eigen::VectorXd yt(qint64(train.size()));
            for (std::size_t k = 0; k < train.size(); ++k) {
                xt.row(qint64(k)) = x.row(train[k]);
                yt(qint64(k)) = double(train[k]);
            }
            const Eigen::RowVectorXd mx = xt.colwise().mean();
            const double my = yt.mean();
            const Eigen::MatrixXd xc = xt.rowwise() - mx;
            const Eigen::VectorXd w =
                (xc.transpose() * xc + Eigen::MatrixXd::Identity(hidden, hidden))
                    .ldlt()
                    .solve(xc.transpose() * (yt.array() - my).matrix());
            for (qint64 t = f; t < n; t += folds)
                predicted(t) = my + (x.row(t) - mx).dot(w);
        }
        double residual = 0, total = 0;
        const double mean = double(n - 1) / 2;
        for (qint64 t = 0; t < n; ++t) {
            residual += std::pow(double(t) - predicted(t), 2);
            total += std::pow(double(t) - mean, 2);
        }
        out.push_back(1 - residual / total);
    }
    return out;
}

// Barbero et al.'s share of |q.k| per rotary pair (rotate_half: (c, c + n/2)), the dims not
// rotated one last column, over the causal query-key pairs, from the pass's queries and keys.
std::vector<double> atlasLoop(const ForwardPass &pass, const ForwardResult &r)
{
    const qint64 layers = r.queries.shape[0], heads = r.queries.shape[1];
    const qint64 n = r.queries.shape[2], dim = r.queries.shape[3], kv = r.keys.shape[1];
    const qint64 half = pass.rotaryDims() / 2;
    const qint64 columns = half + (pass.rotaryDims() < dim ? 1 : 0);
    std::vector<double> out;
    for (qint64 l = 0; l < layers; ++l)
        for (qint64 h = 0; h < heads; ++h) {
            const qint64 k = h / (heads / kv);
            std::vector<double> sums(std::size_t(columns), 0.0);
            qint64 count = 0;
            for (qint64 i = 0; i < n; ++i)
                for (qint64 j = 0; j <= i; ++j) {
                    const float *q =
                        &r.queries.values[std::size_t(((l * heads + h) * n + i) * dim)];
                    const float *key = &r.keys.values[std::size_t(((l * kv + k) * n + j) * dim)];
                    for (qint64 p = 0; p < half; ++p)
                        sums[std::size_t(p)] +=
                            std::abs(double(q[p]) * key[p] + double(q[p + half]) * key[p + half]);
                    if (columns > half) {
                        double rest = 0;
                        for (qint64 d = 2 * half; d < dim; ++d)
                            rest += double(q[d]) * key[d];
                        sums.back() += std::abs(rest);
                    }
                    ++count;
                }
            double total = 0;
            for (const double s : sums)
                total += s / double(count);
            for (const double s : sums)
                out.push_back(s / double(count) / total);
        }
    return out;
}

} // namespace

class TestLayerViews : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void dataMatchesTransformers_data();
    void dataMatchesTransformers();
    void atlasMatchesItsFormula_data();
    void atlasMatchesItsFormula();
    void atlasRefusedWithoutRope();
    void figuresAt1280x720();
    void gridCellOfAClick();
    void commandLine_data();
    void commandLine();
    void attentionLayerOption();
    void windowRunsThePassInTheBackground();
    void cancelDropsThePass();
    void lessonStepWithALayerView();

private:
    // The layer views' numbers for phrase `index` of `folder`, computed as export computes them.
    bool compute(const QString &folder, int index, FigureData *data, QString *error);
    Array viewData(const FigureData &data, FigureView view, QString *error,
                   const ViewChoices &choices = {});
    QTemporaryDir m_dir;
    std::unique_ptr<Backend> m_backend;
    FigureState m_state{ExplorerValues::defaults()};
};

void TestLayerViews::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString why;
    m_backend = makeBackend(BackendChoice::Cpu, &why);
    QVERIFY2(m_backend, qPrintable(why));
}

bool TestLayerViews::compute(const QString &folder, int index, FigureData *data, QString *error)
{
    FigureInputs inputs = FigureInputs::of(m_state);
    inputs.modelPhrases = {folder,
                           {phraseCase(folder, index).value(QLatin1String("text")).toString()}};
    return computeFigureData(inputs, layerViews, *m_backend, {}, data, error) == JobStatus::Done;
}

Array TestLayerViews::viewData(const FigureData &data, FigureView view, QString *error,
                               const ViewChoices &choices)
{
    const QString path = m_dir.filePath(figureViewName(view) + QStringLiteral(".npy"));
    if (!writeViewData(m_state, data, view, path, error, choices))
        return {};
    return readNpy(path);
}

void TestLayerViews::dataMatchesTransformers_data()
{
    QTest::addColumn<QString>("model");
    for (const char *model : {"gpt2-tiny4", "llama-tiny4", "qwen3-tiny4", "neox-tiny4"})
        QTest::newRow(model) << QString::fromLatin1(model);
}

// Phrase 5 (43 to 47 tokens): the tokens are transformers', and every view's numbers are the
// formulas of its F1 over transformers' attentions and hidden states.
void TestLayerViews::dataMatchesTransformers()
{
    QFETCH(QString, model);
    const QString folder = layersFolder(qPrintable(model));
    const QJsonObject phrase = phraseCase(folder, probePhrase);
    FigureData data;
    QString error;
    QVERIFY2(compute(folder, probePhrase, &data, &error), qPrintable(error));
    const QJsonArray ids = phrase.value(QLatin1String("ids")).toArray();
    QCOMPARE(qint64(data.modelForward->phrase.tokens.ids.size()), qint64(ids.size()));
    for (qsizetype t = 0; t < ids.size(); ++t)
        QCOMPARE(data.modelForward->phrase.tokens.ids[std::size_t(t)], qint64(ids[t].toInt()));
    const Array attn = reference(folder, phrase, "attn");
    const Array hidden = reference(folder, phrase, "hidden");
    QCOMPARE(attn.shape.size(), std::size_t(4));

    const Array grid = viewData(data, FigureView::LayerAttention, &error);
    QCOMPARE(grid.shape, attn.shape);
    QVERIFY2(largestDifference(grid.values, widened(attn.values)) < 1e-5, "layer-attention");

    const Array distance = viewData(data, FigureView::DistanceProfiles, &error);
    QCOMPARE(distance.shape, (std::vector<qint64>{attn.shape[0], attn.shape[1], attn.shape[2]}));
    QVERIFY2(largestDifference(distance.values, distanceLoop(attn)) < 1e-5, "distance-profiles");

    const Array sinks = viewData(data, FigureView::Sinks, &error);
    QCOMPARE(sinks.shape, (std::vector<qint64>{attn.shape[0], attn.shape[1]}));
    QVERIFY2(largestDifference(sinks.values, firstTokenLoop(attn)) < 1e-5, "sinks");

    const Array norms = viewData(data, FigureView::HiddenNorms, &error);
    QCOMPARE(norms.shape, (std::vector<qint64>{hidden.shape[0], hidden.shape[1]}));
    const std::vector<double> expectedNorms = normLoop(hidden);
    for (std::size_t i = 0; i < expectedNorms.size(); ++i)
        QVERIFY2(std::abs(norms.values[i] - expectedNorms[i]) <= 1e-4 * expectedNorms[i] + 1e-6,
                 qPrintable(QStringLiteral("hidden-norms [%1]: %2 vs %3")
                                .arg(i)
                                .arg(norms.values[i])
                                .arg(expectedNorms[i])));

    // The probe's R^2 from hidden states that agree within 1e-4 relative: a looser bound.
    const Array probe = viewData(data, FigureView::PositionProbe, &error);
    QCOMPARE(probe.shape, (std::vector<qint64>{hidden.shape[0]}));
    QVERIFY2(largestDifference(probe.values, probeLoop(hidden)) < 2e-3, "position-probe");
}

void TestLayerViews::atlasMatchesItsFormula_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<qint64>("columns");
    QTest::newRow("llama-tiny4 (GQA)") << QStringLiteral("llama-tiny4") << qint64(8);
    QTest::newRow("qwen3-tiny4") << QStringLiteral("qwen3-tiny4") << qint64(8);
    // Partial rotary (a quarter of 16 dims): 2 pairs and the dims not rotated.
    QTest::newRow("neox-tiny4") << QStringLiteral("neox-tiny4") << qint64(3);
}

void TestLayerViews::atlasMatchesItsFormula()
{
    QFETCH(QString, model);
    QFETCH(qint64, columns);
    const QString folder = layersFolder(qPrintable(model));
    FigureData data;
    QString error;
    QVERIFY2(compute(folder, 0, &data, &error), qPrintable(error));
    const Array atlas = viewData(data, FigureView::FrequencyAtlas, &error);
    QVERIFY2(!atlas.shape.empty(), qPrintable(error));
    QCOMPARE(atlas.shape, (std::vector<qint64>{4, 4, columns}));
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    std::vector<int> ids;
    for (const qint64 id : data.modelForward->phrase.tokens.ids)
        ids.push_back(int(id));
    ForwardOptions options;
    options.queriesKeys = true;
    options.attentions = options.hiddenStates = options.logits = false;
    const std::optional<ForwardResult> run = pass->run(ids, options, &error);
    QVERIFY2(run, qPrintable(error));
    QVERIFY(largestDifference(atlas.values, atlasLoop(*pass, *run)) < 1e-5);
}

void TestLayerViews::atlasRefusedWithoutRope()
{
    FigureData data;
    QString error;
    QVERIFY2(compute(layersFolder("gpt2-tiny4"), 0, &data, &error), qPrintable(error));
    QVERIFY(viewData(data, FigureView::FrequencyAtlas, &error).shape.empty());
    QVERIFY2(error.contains(QLatin1String("no rotary positions")), qPrintable(error));
    // The figure says so rather than drawing empty axes.
    FigureOptions options;
    options.views = {FigureView::FrequencyAtlas};
    QVERIFY(!FigureExporter(m_state, data, options).renderImage(&error).isNull());
}

// Every view (and the grid's enlarged head) drawn at the window's smallest size: a figure with
// the colours of its cells, not a blank.
void TestLayerViews::figuresAt1280x720()
{
    FigureData data;
    QString error;
    QVERIFY2(compute(layersFolder("llama-tiny4"), probePhrase, &data, &error), qPrintable(error));
    for (const FigureView view : layerViews) {
        FigureOptions options;
        options.views = {view};
        options.width = 1280;
        options.height = 720;
        const QImage image = FigureExporter(m_state, data, options).renderImage(&error);
        QVERIFY2(!image.isNull(), qPrintable(figureViewName(view) + QStringLiteral(": ") + error));
        QCOMPARE(image.size(), QSize(1280, 720));
        QVERIFY2(distinctColours(image) > 20, qPrintable(figureViewName(view)));
    }
    FigureOptions enlarged;
    enlarged.views = {FigureView::LayerAttention};
    enlarged.choices.modelLayer = 2;
    enlarged.choices.modelHead = 1;
    QVERIFY(!FigureExporter(m_state, data, enlarged).renderImage(&error).isNull());
    enlarged.choices.modelLayer = 9; // the model has 4
    QVERIFY(FigureExporter(m_state, data, enlarged).renderImage(&error).isNull());
    QVERIFY2(error.contains(QLatin1String("4 layers")), qPrintable(error));
}

// The grid's tiles: side min(tokens, 48) cells and a one-cell gap, layer rows, head columns.
void TestLayerViews::gridCellOfAClick()
{
    ForwardViewResult r;
    r.layers = 4;
    r.heads = 3;
    r.phrase.tokens.ids.assign(10, 0); // tiles of 10 cells, pitch 11
    using Cell = std::optional<std::pair<int, int>>;
    QCOMPARE(LayerFigures::gridCell(r, 0, 0), (Cell{{0, 0}}));
    QCOMPARE(LayerFigures::gridCell(r, 9, 9), (Cell{{0, 0}}));
    QCOMPARE(LayerFigures::gridCell(r, 10, 3), Cell{}); // the gap
    QCOMPARE(LayerFigures::gridCell(r, 11, 34), (Cell{{3, 1}}));
    QCOMPARE(LayerFigures::gridCell(r, 30, 40), (Cell{{3, 2}}));
    QCOMPARE(LayerFigures::gridCell(r, 33, 0), Cell{}); // past the last head
    QCOMPARE(LayerFigures::gridCell(r, -1, 0), Cell{});
}

void TestLayerViews::commandLine_data()
{
    QTest::addColumn<QString>("view");
    for (const FigureView view : layerViews)
        QTest::newRow(qPrintable(figureViewName(view))) << figureViewName(view);
}

// `pescope export --view NAME --model M --text T` as PNG and .npy, and `pescope data --view`.
void TestLayerViews::commandLine()
{
    QFETCH(QString, view);
    const QString folder = layersFolder("qwen3-tiny4");
    const QString text = phraseCase(folder, probePhrase).value(QLatin1String("text")).toString();
    const QStringList common{QStringLiteral("--view"), view, QStringLiteral("--model"), folder,
                             QStringLiteral("--text"), text};
    const QString png = m_dir.filePath(view + QStringLiteral("-cli.png"));
    RunResult r = runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--out"), png,
                                         QStringLiteral("--width"), QStringLiteral("1280"),
                                         QStringLiteral("--height"), QStringLiteral("720")} +
                             common);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(QImage(png).size(), QSize(1280, 720));
    const QString npy = m_dir.filePath(view + QStringLiteral("-cli.npy"));
    r = runPescope(QStringList{QStringLiteral("data"), QStringLiteral("--out"), npy} + common);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    FigureData data;
    QString error;
    QVERIFY2(compute(folder, probePhrase, &data, &error), qPrintable(error));
    const std::optional<QList<FigureView>> views = parseFigureViews(view, &error);
    QVERIFY2(views && views->size() == 1, qPrintable(error));
    const Array expected = viewData(data, views->constFirst(), &error);
    const Array written = readNpy(npy);
    QCOMPARE(written.shape, expected.shape);
    QCOMPARE(written.values, expected.values);
}

// --attention-layer N --attention-head H enlarges one tile; without a head, or past the model's
// layers, it is refused (exit 2) naming the options.
void TestLayerViews::attentionLayerOption()
{
    const QString folder = layersFolder("llama-tiny4");
    const QString png = m_dir.filePath(QStringLiteral("l2h1.png"));
    const QStringList common{QStringLiteral("export"),
                             QStringLiteral("--view"),
                             QStringLiteral("layer-attention"),
                             QStringLiteral("--model"),
                             folder,
                             QStringLiteral("--text"),
                             QStringLiteral("The cat sat on the mat."),
                             QStringLiteral("--out"),
                             png};
    RunResult r =
        runPescope(common + QStringList{QStringLiteral("--attention-layer"), QStringLiteral("2"),
                                        QStringLiteral("--attention-head"), QStringLiteral("1")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!QImage(png).isNull());
    r = runPescope(common + QStringList{QStringLiteral("--attention-layer"), QStringLiteral("2")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--attention-head"), r.err.constData());
    r = runPescope(common + QStringList{QStringLiteral("--attention-layer"), QStringLiteral("4"),
                                        QStringLiteral("--attention-head"), QStringLiteral("0")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("layers 0 to 3"), r.err.constData());
    // The layer views draw phrase A only.
    r = runPescope(common + QStringList{QStringLiteral("--model-phrase"), QStringLiteral("B")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("draws phrase A"), r.err.constData());
    // Only the model views take it.
    r = runPescope({QStringLiteral("export"), QStringLiteral("--view"), QStringLiteral("heatmap"),
                    QStringLiteral("--attention-layer"), QStringLiteral("1"),
                    QStringLiteral("--out"), png});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--attention-layer"), r.err.constData());
}

// The window: the layer tab asks the scheduler for the pass (its worker, the progress bar's
// signal), draws it when it lands, and a click on a tile enlarges that layer and head.
void TestLayerViews::windowRunsThePassInTheBackground()
{
    ExplorerState state;
    const QString folder = layersFolder("llama-tiny4");
    setPhraseModel(&state, folder);
    PhraseSource source = state.phraseSource();
    source.tokenizer = PhraseTokenizer::Model;
    state.setPhraseSource(source);
    ComputeScheduler scheduler(&state);
    ModelPhraseView view(&state, &scheduler);
    view.resize(1280, 720);
    view.show();
    QSignalSpy ready(&scheduler, &ComputeScheduler::forwardReady);
    QSignalSpy progress(&scheduler, &ComputeScheduler::progressChanged);
    QTRY_VERIFY_WITH_TIMEOUT(view.result() != nullptr, 30000);
    // The tabs, made from the view list (issue 47), as they were laid out by hand: titles, order
    // and tooltips.
    const QString forwardTip = QStringLiteral("Phrase A through every layer of the model (runs "
                                              "when shown)");
    const QList<std::pair<QString, QString>> tabs = {
        {QStringLiteral("Positions in attention"), {}},
        {QStringLiteral("Embeddings"), {}},
        {QStringLiteral("Token similarity"), {}},
        {QStringLiteral("Attention, every layer"), forwardTip},
        {QStringLiteral("Attention by distance"), forwardTip},
        {QStringLiteral("RoPE frequency atlas"), forwardTip},
        {QStringLiteral("Attention sinks"), forwardTip},
        {QStringLiteral("Hidden-state norms"), forwardTip},
        {QStringLiteral("Position probe"), forwardTip}};
    QCOMPARE(view.figureTabs()->count(), int(tabs.size()));
    for (int i = 0; i < int(tabs.size()); ++i) {
        QCOMPARE(view.figureTabs()->tabText(i), tabs[i].first);
        QCOMPARE(view.figureTabs()->tabToolTip(i), tabs[i].second);
    }
    view.figureTabs()->setCurrentIndex(3);
    QCOMPARE(view.currentView(), FigureView::LayerAttention);
    QVERIFY(ready.wait(60000) || !ready.isEmpty());
    QTRY_VERIFY(view.forward() != nullptr);
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.constLast().at(0).toInt(), -1); // the bar hidden when it is done
    QCOMPARE(view.forward()->layers, qint64(4));
    QCustomPlot *plot = view.layerPlot(FigureView::LayerAttention);
    QTRY_VERIFY(plot->plottableCount() > 0);
    // A click in the tile of layer 2, head 1 (tiles of min(tokens, 48) cells and a gap).
    const double pitch = double(std::min<qint64>(48, view.forward()->phrase.tokens.size()) + 1);
    const QCPAxisRect *rect = plot->axisRect();
    const QPoint at(int(rect->axis(QCPAxis::atBottom)->coordToPixel(1 * pitch + 1)),
                    int(rect->axis(QCPAxis::atLeft)->coordToPixel(2 * pitch + 1)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    QCOMPARE(view.choices().modelLayer, 2);
    QCOMPARE(view.choices().modelHead, 1);
    // Switching views does not run the pass again: the result is held.
    view.figureTabs()->setCurrentIndex(4);
    view.figureTabs()->setCurrentIndex(3);
    QTest::qWait(50);
    QCOMPARE(ready.size(), 1);
}

// Cancel (the status bar's button, Esc) while the pass is asked for: no result arrives for it,
// and asking again runs it.
void TestLayerViews::cancelDropsThePass()
{
    ExplorerState state;
    setPhraseModel(&state, layersFolder("qwen3-tiny4"));
    ComputeScheduler scheduler(&state);
    QSignalSpy ready(&scheduler, &ComputeScheduler::forwardReady);
    QSignalSpy cancelled(&scheduler, &ComputeScheduler::cancelled);
    QVERIFY(!scheduler.requestForward());
    scheduler.cancel();
    QCOMPARE(cancelled.size(), 1);
    QTRY_VERIFY(scheduler.isIdle());
    QTest::qWait(100);
    QVERIFY(ready.isEmpty());
    QVERIFY(scheduler.forward() == nullptr);
    QVERIFY(!scheduler.requestForward());
    QVERIFY(ready.wait(60000));
    QVERIFY(scheduler.forward() != nullptr);
    QVERIFY(scheduler.requestForward()); // held: nothing runs again
}

// A lesson whose steps show layer views of the model: `pescope lesson list` finds nothing to
// refuse, and `pescope lesson export` draws them into a PDF.
void TestLayerViews::lessonStepWithALayerView()
{
    ExplorerState state;
    setPhraseModel(&state, layersFolder("qwen3-tiny4"));
    PhraseSource source = state.phraseSource();
    source.tokenizer = PhraseTokenizer::Model;
    state.setPhraseSource(source);
    Lesson lesson;
    lesson.title = QStringLiteral("Inside the model");
    for (const char *view : {"sinks", "layer-attention"}) {
        LessonStep step;
        step.title = QString::fromLatin1(view);
        step.view = QString::fromLatin1(view);
        step.state = state.toJson();
        lesson.steps.append(step);
    }
    const QString path = m_dir.filePath(QStringLiteral("inside.pescope-lesson.json"));
    QString error;
    QVERIFY2(saveLesson(lesson, path, &error), qPrintable(error));
    RunResult r = runPescope({QStringLiteral("lesson"), QStringLiteral("list"), path});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString pdf = m_dir.filePath(QStringLiteral("inside.pdf"));
    r = runPescope(
        {QStringLiteral("lesson"), QStringLiteral("export"), path, QStringLiteral("--out"), pdf});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(QFileInfo(pdf).size() > 1000);
}

QTEST_MAIN(TestLayerViews)
#include "tst_layerviews.moc"
