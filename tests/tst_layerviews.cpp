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
#include "figures/fittedtext.h"
#include "figures/layerfigures.h"
#include "figures/qcpinclude.h"
#include "model/forwardpass.h"
#include "state/explorerstate.h"
#include "state/figureviews.h"
#include "state/lessonfile.h"
#include "views/modelphraseview.h"

#include "forwardreference.h"
#include "modelfilewriter.h"
#include "testutil.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
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

QJsonObject phraseCase(const QString &folder, int index)
{
    return phraseCases(folder).at(index).toObject();
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

// A copy of the model folder `name` in `dir` (config.json, tokenizer.json, model.safetensors);
// `editConfig` changes its config, and with `nanTensor` one value of that F32 tensor is NaN.
QString modelCopy(const QString &dir, const char *name,
                  const std::function<void(QJsonObject *)> &editConfig = {},
                  const QString &nanTensor = {})
{
    const QString from = layersFolder(name);
    QDir().mkpath(dir);
    for (const char *file : {"tokenizer.json", "model.safetensors"})
        QFile::copy(from + QLatin1Char('/') + QLatin1String(file),
                    dir + QLatin1Char('/') + QLatin1String(file));
    QFile config(from + QStringLiteral("/config.json"));
    if (!config.open(QIODevice::ReadOnly))
        return {};
    QJsonObject json = QJsonDocument::fromJson(config.readAll()).object();
    if (editConfig)
        editConfig(&json);
    QFile out(dir + QStringLiteral("/config.json"));
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QJsonDocument(json).toJson());
    out.close();
    if (nanTensor.isEmpty())
        return dir;
    // safetensors: an 8-byte little-endian header length, the JSON header, then the data.
    QFile weights(dir + QStringLiteral("/model.safetensors"));
    if (!weights.open(QIODevice::ReadWrite))
        return {};
    quint64 headerSize = 0;
    weights.read(reinterpret_cast<char *>(&headerSize), 8);
    const QJsonObject header = QJsonDocument::fromJson(weights.read(qint64(headerSize))).object();
    const qint64 begin = header.value(nanTensor)
                             .toObject()
                             .value(QLatin1String("data_offsets"))
                             .toArray()
                             .at(0)
                             .toInteger(-1);
    if (begin < 0)
        return {};
    const float nan = std::numeric_limits<float>::quiet_NaN();
    weights.seek(8 + qint64(headerSize) + begin);
    weights.write(reinterpret_cast<const char *>(&nan), sizeof nan);
    return dir;
}

// The texts of a laid-out plot's text elements (title and notices), and of its text items.
QStringList plotTexts(QCustomPlot *plot, bool shown)
{
    QStringList texts;
    QList<QCPLayoutElement *> elements = plot->plotLayout()->elements(true);
    for (QCPLayoutElement *element : elements) {
        if (const auto *fitted = dynamic_cast<FittedTextElement *>(element))
            texts.append(shown ? fitted->shownText() : fitted->text());
        else if (const auto *text = dynamic_cast<QCPTextElement *>(element))
            texts.append(text->text());
    }
    for (int i = 0; i < plot->itemCount(); ++i)
        if (const auto *item = dynamic_cast<QCPItemText *>(plot->item(i)))
            texts.append(item->text());
    return texts;
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
    void refusalsAreBadInput();
    void noticeIsReadWhole();
    void tokenizerFileOpensTheModel();
    void nanWeightsAreSaid();
    void probeMarksClippedLayers();
    void ablatedDataSaysItsShape();
    void sessionAblationIsDrawn();
    void gridFigureSkipsTheSessionsAblation();
    void layerOptionsRefusedByName();
    void exportedFiguresHaveNoClickHints();

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

// A view the model or phrase cannot give, a tensor missing: bad input, exit 2 with the whole
// sentence, through --view as through --what (issue 48's D2, D7).
void TestLayerViews::refusalsAreBadInput()
{
    const QString gpt2 = layersFolder("gpt2-tiny4");
    const QString llama = layersFolder("llama-tiny4");
    const QString out = m_dir.filePath(QStringLiteral("refused.png"));
    const QString npy = m_dir.filePath(QStringLiteral("refused.npy"));
    const auto run = [&](const QString &command, const QString &view, const QString &model,
                         const QString &text) {
        return runPescope({command, QStringLiteral("--view"), view, QStringLiteral("--model"),
                           model, QStringLiteral("--text"), text, QStringLiteral("--out"),
                           command == QLatin1String("export") ? out : npy});
    };
    for (const QString &command : {QStringLiteral("export"), QStringLiteral("data")}) {
        RunResult r =
            run(command, QStringLiteral("frequency-atlas"), gpt2, QStringLiteral("The cat"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no rotary positions: the frequency atlas is of RoPE models"),
                 r.err.constData());
        QVERIFY2(r.err.contains("--view frequency-atlas"), r.err.constData());
        r = run(command, QStringLiteral("position-probe"), llama, QStringLiteral("Hi"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--view position-probe"), r.err.constData());
    }
    QVERIFY(!QFile::exists(out) && !QFile::exists(npy));
    // --what says the same with the same code.
    RunResult what =
        runPescope({QStringLiteral("data"), QStringLiteral("--model"), gpt2,
                    QStringLiteral("--phrase"), QStringLiteral("The cat"), QStringLiteral("--what"),
                    QStringLiteral("frequency-atlas"), QStringLiteral("--out"), npy});
    QCOMPARE(what.exitCode, 2);
    // A config that claims 6 layers of a 4-layer file: the tensor missing is named, exit 2.
    const QString six =
        modelCopy(m_dir.filePath(QStringLiteral("six-layers")), "llama-tiny4",
                  [](QJsonObject *c) { c->insert(QStringLiteral("num_hidden_layers"), 6); });
    QVERIFY(!six.isEmpty());
    for (const QString &command : {QStringLiteral("export"), QStringLiteral("data")}) {
        const RunResult r = run(command, QStringLiteral("sinks"), six, QStringLiteral("The cat"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("layers.4"), r.err.constData());
    }
    what =
        runPescope({QStringLiteral("data"), QStringLiteral("--model"), six,
                    QStringLiteral("--phrase"), QStringLiteral("The cat"), QStringLiteral("--what"),
                    QStringLiteral("sinks"), QStringLiteral("--out"), npy});
    QCOMPARE(what.exitCode, 2);
}

// The window's atlas of a model without RoPE, and its probe of two tokens: the whole sentence
// in the figure, not elided to "R…" (D2).
void TestLayerViews::noticeIsReadWhole()
{
    FigureData data;
    QString error;
    FigureInputs inputs = FigureInputs::of(m_state);
    inputs.modelPhrases = {layersFolder("gpt2-tiny4"), {QStringLiteral("Hi")}};
    QVERIFY2(computeFigureData(inputs, layerViews, *m_backend, {}, &data, &error) ==
                 JobStatus::Done,
             qPrintable(error));
    const ForwardViewResult &r = *data.modelForward;
    QVERIFY(!r.atlasProblem.isEmpty() && !r.probeProblem.isEmpty());
    QCustomPlot plot;
    plot.resize(1280, 720);
    const LayerFigures figures(m_state, plotTheme(Theme::Light), true);
    for (const QString &problem : {r.atlasProblem, r.probeProblem}) {
        if (problem == r.atlasProblem)
            figures.buildFrequencyAtlas(&plot, r);
        else
            figures.buildPositionProbe(&plot, r);
        plot.replot();
        const QStringList shown = plotTexts(&plot, true);
        QVERIFY2(!shown.join(QString()).contains(QChar(0x2026)),
                 qPrintable(shown.join(QLatin1Char('|'))));
        QString all = shown.join(QLatin1Char(' '));
        all.replace(QLatin1Char('\n'), QLatin1Char(' '));
        QVERIFY2(all.contains(problem), qPrintable(all));
    }
}

// A tokenizer.json beside the weights opens its model for the layer views, as --what does (D8).
void TestLayerViews::tokenizerFileOpensTheModel()
{
    const QString folder = layersFolder("llama-tiny4");
    const QString byFile = m_dir.filePath(QStringLiteral("sinks-file.npy"));
    const QString byFolder = m_dir.filePath(QStringLiteral("sinks-folder.npy"));
    const QString tokenizer = folder + QStringLiteral("/tokenizer.json");
    for (const auto &[model, npy] : {std::pair{tokenizer, byFile}, std::pair{folder, byFolder}}) {
        const RunResult r =
            runPescope({QStringLiteral("data"), QStringLiteral("--view"), QStringLiteral("sinks"),
                        QStringLiteral("--model"), model, QStringLiteral("--text"),
                        QStringLiteral("The cat sat on the mat."), QStringLiteral("--out"), npy});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    QCOMPARE(readNpy(byFile).values, readNpy(byFolder).values);
}

// One NaN in layer 2's q_proj: every command warns, and the figures mark the cells (D9).
void TestLayerViews::nanWeightsAreSaid()
{
    const QString tensor = QStringLiteral("model.layers.2.self_attn.q_proj.weight");
    const QString model =
        modelCopy(m_dir.filePath(QStringLiteral("nan-weights")), "llama-tiny4", {}, tensor);
    QVERIFY(!model.isEmpty());
    const QStringList common{QStringLiteral("--model"), model, QStringLiteral("--text"),
                             QStringLiteral("The cat sat on the mat.")};
    RunResult r = runPescope(QStringList{QStringLiteral("data"), QStringLiteral("--view"),
                                         QStringLiteral("sinks"), QStringLiteral("--out"),
                                         m_dir.filePath(QStringLiteral("nan-sinks.npy"))} +
                             common);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("warning: ") && r.err.contains(tensor.toUtf8()), r.err.constData());
    r = runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--view"),
                               QStringLiteral("layer-attention"), QStringLiteral("--out"),
                               m_dir.filePath(QStringLiteral("nan-grid.png"))} +
                   common);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("warning: ") && r.err.contains(tensor.toUtf8()), r.err.constData());
    // The grid's tiles of layers 2 and 3 (every head) say NaN; the heading says why.
    FigureData data;
    QString error;
    FigureInputs inputs = FigureInputs::of(m_state);
    inputs.modelPhrases = {model, {QStringLiteral("The cat sat on the mat.")}};
    QVERIFY2(computeFigureData(inputs, {FigureView::LayerAttention}, *m_backend, {}, &data,
                               &error) == JobStatus::Done,
             qPrintable(error));
    const ForwardViewResult &f = *data.modelForward;
    QCustomPlot plot;
    plot.resize(1280, 720);
    LayerFigures(m_state, plotTheme(Theme::Light), true).buildAttentionGrid(&plot, f, -1, -1);
    const QStringList texts = plotTexts(&plot, false);
    // One NaN query row makes its head's tile NaN in layer 2, and every head's after it.
    const std::size_t each = std::size_t(f.phrase.tokens.size() * f.phrase.tokens.size());
    int notFinite = 0;
    for (std::size_t tile = 0; tile < std::size_t(f.layers * f.heads); ++tile)
        notFinite += std::any_of(f.attentions.values.begin() + std::ptrdiff_t(tile * each),
                                 f.attentions.values.begin() + std::ptrdiff_t((tile + 1) * each),
                                 [](float v) { return std::isnan(v); })
                         ? 1
                         : 0;
    QVERIFY(notFinite > int(f.heads)); // layer 3 entirely, and some of layer 2
    QCOMPARE(texts.count(QStringLiteral("NaN")), notFinite);
    QVERIFY2(texts.join(QLatin1Char(' ')).contains(tensor),
             qPrintable(texts.join(QLatin1Char('|'))));
}

// R² below -1 stays on the figure: drawn on the axis' floor, its value written (D11).
void TestLayerViews::probeMarksClippedLayers()
{
    ForwardViewResult r;
    r.architecture = QStringLiteral("llama");
    r.layers = 3;
    r.heads = 2;
    r.phrase.tokens.ids.assign(8, 0);
    r.probe.shape = {4};
    r.probe.values = {0.5f, -1.47f, -0.2f, 0.9f};
    QCustomPlot plot;
    plot.resize(1280, 720);
    LayerFigures(m_state, plotTheme(Theme::Light)).buildPositionProbe(&plot, r);
    QVERIFY2(plotTexts(&plot, false).contains(QStringLiteral("R² = −1.47, below the axis")),
             qPrintable(plotTexts(&plot, false).join(QLatin1Char('|'))));
    // Every point the curve draws is inside the axis.
    const QCPRange y = plot.axisRect()->axis(QCPAxis::atLeft)->range();
    for (int g = 0; g < plot.graphCount(); ++g)
        for (auto it = plot.graph(g)->data()->constBegin(); it != plot.graph(g)->data()->constEnd();
             ++it)
            QVERIFY2(y.contains(it->value), qPrintable(QString::number(it->value)));
}

// `data --view layer-attention` with an ablation writes with, ablated and their difference, and
// says that shape (D15).
void TestLayerViews::ablatedDataSaysItsShape()
{
    const QString npy = m_dir.filePath(QStringLiteral("scaled.npy"));
    const RunResult r = runPescope(
        {QStringLiteral("data"), QStringLiteral("--view"), QStringLiteral("layer-attention"),
         QStringLiteral("--model"), layersFolder("llama-tiny4"), QStringLiteral("--text"),
         QStringLiteral("The cat sat on the mat."), QStringLiteral("--scale"), QStringLiteral("4"),
         QStringLiteral("--attention-layer"), QStringLiteral("2"),
         QStringLiteral("--attention-head"), QStringLiteral("1"), QStringLiteral("--out"), npy});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const Array written = readNpy(npy);
    QCOMPARE(written.shape.size(), std::size_t(5));
    QCOMPARE(written.shape[0], qint64(3));
    QVERIFY2(r.err.contains("(3 x layers x heads x tokens x tokens float32: ") &&
                 r.err.contains("with positions, positions scaled by 1/4"),
             r.err.constData());
}

// --attention-layer -1 and --attention-head without a layer are refused as -5 is; the layer is
// layer-attention's alone; --phrase-file gives phrase A (D16).
// A session's ablation (the window's, saved) is what `pescope data --session` writes, unless the
// command line gives its own; before, the command line's empty one replaced it.
void TestLayerViews::sessionAblationIsDrawn()
{
    const QString session = m_dir.filePath(QStringLiteral("scaled-session.json"));
    QVERIFY(writeBytes(
        session, R"({"format_version": 2, "state": {"ablation": {"kind": "scale", "scale": 4}}})"));
    const auto run = [&](const QString &name, const QStringList &extra) {
        const QString npy = m_dir.filePath(name);
        QStringList args{QStringLiteral("data"),
                         QStringLiteral("--view"),
                         QStringLiteral("layer-attention"),
                         QStringLiteral("--model"),
                         layersFolder("llama-tiny4"),
                         QStringLiteral("--text"),
                         QStringLiteral("The cat sat on the mat."),
                         QStringLiteral("--attention-layer"),
                         QStringLiteral("2"),
                         QStringLiteral("--attention-head"),
                         QStringLiteral("1"),
                         QStringLiteral("--out"),
                         npy};
        const RunResult r = runPescope(args + extra);
        return r.exitCode == 0 ? readNpy(npy) : Array{};
    };
    const Array fromSession =
        run(QStringLiteral("session.npy"), {QStringLiteral("--session"), session});
    const Array fromOptions =
        run(QStringLiteral("options.npy"), {QStringLiteral("--scale"), QStringLiteral("4")});
    const Array overridden =
        run(QStringLiteral("overridden.npy"),
            {QStringLiteral("--session"), session, QStringLiteral("--shift"), QStringLiteral("3")});
    const Array shifted =
        run(QStringLiteral("shifted.npy"), {QStringLiteral("--shift"), QStringLiteral("3")});
    QCOMPARE(fromOptions.shape.size(), std::size_t(5)); // with, ablated, difference
    QCOMPARE(fromSession.shape, fromOptions.shape);
    QVERIFY(fromSession.values == fromOptions.values);
    QCOMPARE(overridden.shape, shifted.shape);
    QVERIFY(overridden.values == shifted.values);
}

// The grid of every layer draws no ablation: exported from a session that holds one, the figure
// is the plain grid, and the command says why the ablation is not drawn (the ablated pass, a
// second pass over every layer, is not run for it).
void TestLayerViews::gridFigureSkipsTheSessionsAblation()
{
    const QString session = m_dir.filePath(QStringLiteral("grid-session.json"));
    QVERIFY(writeBytes(
        session, R"({"format_version": 2, "state": {"ablation": {"kind": "shift", "shift": 3}}})"));
    const auto run = [&](const QString &name, const QStringList &extra) {
        return runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--view"),
                                      QStringLiteral("layer-attention"), QStringLiteral("--model"),
                                      layersFolder("llama-tiny4"), QStringLiteral("--text"),
                                      QStringLiteral("The cat sat on the mat."),
                                      QStringLiteral("--out"), m_dir.filePath(name)} +
                          extra);
    };
    const RunResult plain = run(QStringLiteral("grid-plain.png"), {});
    const RunResult fromSession =
        run(QStringLiteral("grid-session.png"), {QStringLiteral("--session"), session});
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(fromSession.exitCode, 0);
    QVERIFY2(
        fromSession.err.contains("note: the session's ablation (positions shifted by 3) is drawn "
                                 "on an enlarged head only"),
        fromSession.err.constData());
    QVERIFY(!plain.err.contains("ablation"));
    const QImage a(m_dir.filePath(QStringLiteral("grid-plain.png")));
    const QImage b(m_dir.filePath(QStringLiteral("grid-session.png")));
    QVERIFY(!a.isNull());
    QCOMPARE(a, b);
}

void TestLayerViews::layerOptionsRefusedByName()
{
    const QString folder = layersFolder("llama-tiny4");
    const QString out = m_dir.filePath(QStringLiteral("options.png"));
    const auto run = [&](const QString &view, const QStringList &more) {
        return runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--view"), view,
                                      QStringLiteral("--model"), folder, QStringLiteral("--out"),
                                      out} +
                          more);
    };
    const QStringList text{QStringLiteral("--text"), QStringLiteral("The cat sat on the mat.")};
    RunResult r =
        run(QStringLiteral("layer-attention"),
            text + QStringList{QStringLiteral("--attention-layer"), QStringLiteral("-1")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--attention-layer must be a layer number from 0 or all"),
             r.err.constData());
    r = run(QStringLiteral("layer-attention"),
            text + QStringList{QStringLiteral("--attention-head"), QStringLiteral("1")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--attention-head 1: give the layer"), r.err.constData());
    r = run(QStringLiteral("sinks"),
            text + QStringList{QStringLiteral("--attention-layer"), QStringLiteral("9")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--attention-layer applies to --view layer-attention"),
             r.err.constData());
    QVERIFY(!r.err.contains("give the head"));
    // The model view of layer 0 still takes a head alone.
    r = run(QStringLiteral("attention"),
            text + QStringList{QStringLiteral("--attention-head"), QStringLiteral("1")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // --phrase-file: the same numbers as --text with the file's text.
    const QString phraseFile = m_dir.filePath(QStringLiteral("phrase.txt"));
    QFile file(phraseFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("The cat sat on the mat.");
    file.close();
    const QString fromFile = m_dir.filePath(QStringLiteral("probe-file.npy"));
    const QString fromText = m_dir.filePath(QStringLiteral("probe-text.npy"));
    for (const auto &[given, npy] :
         {std::pair{QStringList{QStringLiteral("--phrase-file"), phraseFile}, fromFile},
          std::pair{text, fromText}}) {
        r = runPescope(QStringList{QStringLiteral("data"), QStringLiteral("--view"),
                                   QStringLiteral("position-probe"), QStringLiteral("--model"),
                                   folder, QStringLiteral("--out"), npy} +
                       given);
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    QCOMPARE(readNpy(fromFile).values, readNpy(fromText).values);
}

// The exported grid and enlarged head have no "click" hints; the window's keep them (D17).
void TestLayerViews::exportedFiguresHaveNoClickHints()
{
    FigureData data;
    QString error;
    FigureInputs inputs = FigureInputs::of(m_state);
    inputs.modelPhrases = {layersFolder("llama-tiny4"), {QStringLiteral("The cat sat.")}};
    QVERIFY2(computeFigureData(inputs, {FigureView::LayerAttention}, *m_backend, {}, &data,
                               &error) == JobStatus::Done,
             qPrintable(error));
    for (const int layer : {-1, 2}) {
        FigureOptions options;
        options.views = {FigureView::LayerAttention};
        options.choices.modelLayer = layer;
        options.choices.modelHead = layer < 0 ? -1 : 1;
        const QByteArray svg = FigureExporter(m_state, data, options).renderSvg(&error);
        QVERIFY2(!svg.isEmpty(), qPrintable(error));
        QVERIFY2(svg.contains("query rows x key columns"), "the heading's text is in the SVG");
        QVERIFY(!svg.contains("click one") && !svg.contains("shows the grid again"));
        QCustomPlot plot;
        plot.resize(1280, 720);
        LayerFigures(m_state, plotTheme(Theme::Light), true)
            .buildAttentionGrid(&plot, *data.modelForward, layer, options.choices.modelHead);
        const QString window = plotTexts(&plot, false).join(QLatin1Char(' '));
        QVERIFY2(window.contains(layer < 0 ? QStringLiteral("click one to enlarge it")
                                           : QStringLiteral("shows the grid again")),
                 qPrintable(window));
    }
}

QTEST_MAIN(TestLayerViews)
#include "tst_layerviews.moc"
