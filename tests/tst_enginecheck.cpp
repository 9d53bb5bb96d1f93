// The engine-check figure (issue 26): an engine's RoPE table against Hugging Face drawn as the
// error per position and pair on a log scale, the original context marked, the worst cell ringed
// and read out on hover with both values; in the window (File > Check engine table, a table
// dropped while a rotary layer is shown, computed by the ComputeScheduler) and from
// `pescope export --view verify`. The tables are made here from float64 formulas.
#include "modelfilewriter.h"
#include "ropetestdata.h"
#include "testutil.h"
#include "windowtestutil.h"

#include "compute/computescheduler.h"
#include "dialogs/enginecheckdialog.h"
#include "figures/enginecheckfigure.h"
#include "figures/figureexporter.h"
#include "figures/qcpinclude.h"
#include "views/enginecheckactions.h"
#include "views/fileactions.h"

#include <QAction>
#include <QApplication>
#include <QDropEvent>
#include <QImage>
#include <QMessageBox>
#include <QMimeData>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>

#include <cmath>
#include <numbers>

using namespace pe;
using namespace pe::test;

namespace {

// YaRN on a 16-dim head from a 16-token context to 32 ("yarn: tiny context" of
// tests/data/rope/references.json): the original context lies inside a 64-row table.
RopeConfig tinyYarn()
{
    RopeConfig c;
    c.ropeType = RopeType::Yarn;
    c.factor = 2.0;
    c.originalMaxPositionEmbeddings = 16;
    c.maxPositionEmbeddings = 32;
    c.pairing = RopePairing::Half;
    return c;
}

// _compute_yarn_parameters for that config (dim 16, base 10000), and its attention factor.
std::vector<double> tinyYarnTheta()
{
    return yarnTheta(10000.0, 16, 2.0, 16.0);
}

constexpr double tinyYarnScale = 1.0693147180559945; // 0.1 ln 2 + 1

// HF's cos table (half layout) for 64 positions, float32, with position 37's pair 5 off by 0.25.
std::vector<float> brokenTable()
{
    const std::vector<double> theta = tinyYarnTheta();
    std::vector<float> values;
    for (int p = 0; p < 64; ++p)
        for (int c = 0; c < 16; ++c)
            values.push_back(float(std::cos(p * theta[std::size_t(c % 8)]) * tinyYarnScale));
    values[std::size_t(37 * 16 + 5)] += 0.25f;
    return values;
}

EncodingSpec ropeSpec(const RopeConfig &config, qint64 positions, qint64 dims)
{
    RopeScheme scheme;
    static_cast<RopeConfig &>(scheme) = config;
    EncodingSpec spec;
    spec.scheme = scheme;
    spec.positions = positions;
    spec.dims = dims;
    return spec;
}

} // namespace

class TestEngineCheck : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString &name) const { return m_dir.filePath(name); }
    // A dump in its own folder (no config.json beside it: an engine's table, not a model).
    QString writeTable(const QString &name, const std::vector<float> &values) const
    {
        const QString file = path(name);
        writeBytes(file, npyBytes("<f4", {qint64(values.size()) / 16, 16}, f32Bytes(values)));
        return file;
    }
    EngineCheck checkOf(const QString &file) const
    {
        EngineCheckRequest request;
        request.headDim = 16;
        request.config = tinyYarn();
        request.reference = QStringLiteral("tiny yarn");
        request.against = file;
        request.errorGridRows = 2048;
        QString error;
        const std::optional<EngineCheck> check = runEngineCheck(request, &error);
        if (!check)
            qWarning("%s", qPrintable(error));
        return check.value_or(EngineCheck{});
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // The figure's pieces: the context line at the original context, the readout of a cell and
    // of the worst one with both values.
    void readoutAndBoundary()
    {
        const EngineCheck check = checkOf(writeTable(QStringLiteral("broken.npy"), brokenTable()));
        QVERIFY(!check.result.agrees);
        QCOMPARE(check.result.worst.position, qint64(37));
        QCOMPARE(check.result.worst.pair, qint64(5));
        QCOMPARE(EngineCheckFigure::boundary(check), qint64(16));
        const QString worst = EngineCheckFigure::readout(check, 5.2, 36.8);
        QVERIFY2(worst.startsWith(QStringLiteral("position 37, pair 5: largest |error| 0.25")),
                 qPrintable(worst));
        const double expected = std::cos(37 * tinyYarnTheta()[5]) * tinyYarnScale;
        QVERIFY2(worst.contains(QStringLiteral("worst: position 37, pair 5 (column 5): got %1, "
                                               "expected %2")
                                    .arg(QString::number(double(float(expected) + 0.25f), 'g', 12),
                                         QString::number(expected, 'g', 12))),
                 qPrintable(worst));
        const QString other = EngineCheckFigure::readout(check, 2, 10);
        QVERIFY(other.startsWith(QStringLiteral("position 10, pair 2: largest |error| ")));
        QVERIFY(!other.contains(QStringLiteral("worst")));
        QVERIFY(EngineCheckFigure::readout(check, 9, 10).isEmpty()); // beyond the pairs
    }

    // A GGUF's longrope factor tensors (Phi-3's rope_factors_long / rope_factors_short): the set
    // llama.cpp uses at the context (long beyond the original one) is read when none is named, a
    // named long set is compared beyond the original context, and the wrong set is named.
    void ggufLongropeFactors()
    {
        const std::vector<float> shortSet{1.0f, 1.25f, 1.5f, 2.0f}, longSet{1.0f, 2.0f, 4.0f, 8.0f};
        GgufBuilder builder;
        builder.addString("general.architecture", "phi3");
        builder.addTensor("rope_factors_long.weight", {4}, 0 /* F32 */, f32Bytes(longSet));
        builder.addTensor("rope_factors_short.weight", {4}, 0 /* F32 */, f32Bytes(shortSet));
        const QString file = path(QStringLiteral("phi3.gguf"));
        writeBytes(file, builder.build());
        EngineCheckRequest request;
        request.headDim = 8;
        request.config.ropeType = RopeType::Longrope;
        request.config.shortFactor = {1.0, 1.25, 1.5, 2.0};
        request.config.longFactor = {1.0, 2.0, 4.0, 8.0};
        request.config.originalMaxPositionEmbeddings = 4096;
        request.config.maxPositionEmbeddings = 131072;
        request.config.pairing = RopePairing::Half;
        request.against = file;
        QString error;
        // Unnamed, no length: the short set (HF's module as loaded, llama.cpp's short context).
        std::optional<EngineCheck> check = runEngineCheck(request, &error);
        QVERIFY2(check, qPrintable(error));
        QVERIFY2(check->result.agrees, qPrintable(check->lines.join(u'\n')));
        QVERIFY(check->candidate.startsWith(QStringLiteral("rope_factors_short.weight")));
        // Unnamed at 8192 positions: the long set.
        request.sequenceLength = 8192;
        check = runEngineCheck(request, &error);
        QVERIFY2(check && check->result.agrees, qPrintable(error));
        QVERIFY(check->candidate.startsWith(QStringLiteral("rope_factors_long.weight")));
        // The long set named: compared beyond the original context, and says so.
        request.sequenceLength.reset();
        request.against = file + QStringLiteral(":rope_factors_long.weight");
        check = runEngineCheck(request, &error);
        QVERIFY2(check && check->result.agrees, qPrintable(error));
        QVERIFY2(check->lines.join(u'\n').contains(QStringLiteral("rope_factors_long: llama.cpp's "
                                                                  "set beyond the original")),
                 qPrintable(check->lines.join(u'\n')));
        // The short set where the long one applies: the other factor set.
        request.against = file + QStringLiteral(":rope_factors_short.weight");
        request.sequenceLength = 8192;
        check = runEngineCheck(request, &error);
        QVERIFY2(check, qPrintable(error));
        QCOMPARE(check->result.mistake, RopeMistake::LongropeFactorSet);
        // A factor set is frequencies: another --what is refused, naming the tensor.
        request.what = RopeQuantity::Cos;
        QVERIFY(!runEngineCheck(request, &error));
        QCOMPARE(error, QStringLiteral("--what must be inv-freq for a GGUF file's "
                                       "rope_factors_short.weight (got cos)"));
    }

    // A GGUF's rope_freqs (llama.cpp's per-pair divisors) of all ones where llama3 scales:
    // the figure's grid is the rotation error those frequencies cause over the context, zero in
    // the pairs llama3 keeps, growing with the position in the ones it divides by 8.
    void frequencyFigure()
    {
        GgufBuilder builder;
        builder.addString("general.architecture", "llama");
        builder.addTensor("rope_freqs.weight", {64}, 0 /* F32 */,
                          f32Bytes(std::vector<float>(64, 1.0f)));
        const QString file = path(QStringLiteral("rope_freqs.gguf"));
        writeBytes(file, builder.build());
        EngineCheckRequest request;
        request.headDim = 128;
        request.config.ropeType = RopeType::Llama3;
        request.config.ropeTheta = 500000.0;
        request.config.factor = 8.0;
        request.config.originalMaxPositionEmbeddings = 8192;
        request.config.maxPositionEmbeddings = 131072;
        request.against = file;
        request.errorGridRows = 1024;
        QString error;
        const std::optional<EngineCheck> check = runEngineCheck(request, &error);
        QVERIFY2(check, qPrintable(error));
        QCOMPARE(check->result.mistake, RopeMistake::ScalingIgnored);
        const RopeErrorGrid &grid = check->result.errors;
        QCOMPARE(grid.pairs, qint64(64));
        QCOMPARE(grid.rows, qint64(1024));
        QCOMPARE(grid.rowsPerBin, qint64(128));
        // Pair 0 (wavelength 2 pi < 8192 / 4) is llama3's own: no error anywhere.
        for (qint64 r = 0; r < grid.rows; ++r)
            QCOMPARE(grid.at(r, 0), 0.0f);
        // Pair 63 (theta / 8 in HF) at the last positions: |cos p t - cos p t / 8| for
        // t = 500000^(-126/128) nears its largest, well above 0.1.
        QVERIFY(grid.at(grid.rows - 1, 63) > 0.1f);
        QCOMPARE(EngineCheckFigure::boundary(*check), qint64(8192));
    }

    // Built into a plot: a log-scaled map of the grid, the context line and the verdict.
    void figureBuilds()
    {
        const EngineCheck check = checkOf(writeTable(QStringLiteral("broken.npy"), brokenTable()));
        ExplorerState state;
        QCustomPlot plot;
        plot.resize(900, 700);
        const auto handles = EngineCheckFigure(state, plotTheme(state.theme())).build(&plot, check);
        QVERIFY(handles.map && handles.rect);
        QCOMPARE(handles.map->dataScaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(handles.map->data()->keySize(), 8);
        QCOMPARE(handles.map->data()->valueSize(), 64);
        PE_COMPARE_NEAR(handles.map->data()->cell(5, 37), 0.25, 1e-6);
        QCOMPARE(handles.map->dataRange().upper, double(check.result.errors.at(37, 5)));
        bool line = false;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto *straight = qobject_cast<QCPItemStraightLine *>(plot.item(i)))
                line = straight->point1->coords().y() == 15.5;
        QVERIFY(line);
        bool verdict = false;
        for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
            if (auto *text = qobject_cast<QCPTextElement *>(plot.plotLayout()->elementAt(i)))
                verdict = verdict || text->text().startsWith(QStringLiteral("cos differs"));
        QVERIFY(verdict);
    }

    // File > Check engine table: computed by the scheduler, drawn in the dialog, the worst cell
    // read out on hover, exported as SVG; the window's encoding is left alone.
    void dialogFromTheMenu()
    {
        auto window = openWindow();
        QVERIFY(window->findChild<QAction *>(QStringLiteral("checkEngineTableAction")));
        QString error;
        QVERIFY(window->state()->setSpec(ropeSpec(tinyYarn(), 64, 16), &error));
        QSignalSpy computed(window->scheduler(), &ComputeScheduler::engineCheckReady);
        EngineCheckDialog *dialog =
            EngineCheckActions::of(window.get())
                ->checkEngineTable(writeTable(QStringLiteral("menu.npy"), brokenTable()));
        QVERIFY(dialog);
        QSignalSpy finished(dialog, &EngineCheckDialog::checkFinished);
        QVERIFY(finished.count() > 0 || finished.wait(30000));
        QCOMPARE(computed.count(), 1);
        QVERIFY(dialog->result());
        QVERIFY(dialog->isVisible());
        QVERIFY(dialog->findChild<QPlainTextEdit *>(QStringLiteral("engineCheckReport"))
                    ->toPlainText()
                    .contains(QStringLiteral("diagnosis: no known mistake explains this")));
        // Hover over the ringed cell: both values.
        QCustomPlot *plot = dialog->plot();
        QTRY_VERIFY(plot->axisRectCount() == 1 && plot->axisRect()->rect().width() > 50);
        QCPAxisRect *rect = plot->axisRect();
        const QPoint at(int(rect->axis(QCPAxis::atBottom)->coordToPixel(1.0)),
                        int(rect->axis(QCPAxis::atLeft)->coordToPixel(50.0)));
        const auto pointAt = [plot](const QPoint &point) {
            QMouseEvent move(QEvent::MouseMove, QPointF(point), plot->mapToGlobal(QPointF(point)),
                             Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QCoreApplication::sendEvent(plot, &move);
        };
        pointAt(at);
        QVERIFY2(dialog->readoutText().startsWith(QStringLiteral("position 50, pair 1")),
                 qPrintable(dialog->readoutText()));
        const QPoint worst(int(rect->axis(QCPAxis::atBottom)->coordToPixel(5.0)),
                           int(rect->axis(QCPAxis::atLeft)->coordToPixel(37.0)));
        pointAt(worst);
        QVERIFY2(dialog->readoutText().contains(QStringLiteral("worst: position 37, pair 5")),
                 qPrintable(dialog->readoutText()));
        const QString svg = path(QStringLiteral("check.svg"));
        QVERIFY2(dialog->exportFigure(svg, &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("<svg"));
        QVERIFY(window->state()->spec().get<RopeScheme>());
    }

    // A table dropped while a rotary layer is shown is checked, not opened as a model; with no
    // rotary layer the menu says what to open first.
    void dropAndRefusal()
    {
        auto window = openWindow();
        QString error;
        // The refusal's message box, closed as a user would.
        QString shown;
        QTimer closer;
        connect(&closer, &QTimer::timeout, this, [&] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                shown = box->text();
                box->close();
            }
        });
        closer.start(50);
        QVERIFY(!EngineCheckActions::of(window.get())
                     ->checkEngineTable(writeTable(QStringLiteral("early.npy"), brokenTable())));
        closer.stop();
        QVERIFY2(shown.contains(QStringLiteral("no rotary encoding")), qPrintable(shown));
        QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("no rotary")));
        QVERIFY(window->state()->setSpec(ropeSpec(tinyYarn(), 64, 16), &error));
        std::vector<float> good = brokenTable();
        good[std::size_t(37 * 16 + 5)] -= 0.25f;
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(writeTable(QStringLiteral("dropped.npy"), good))});
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(window.get(), &enter); // a drop follows an accepted enter
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(window.get(), &drop);
        QVERIFY(drop.isAccepted());
        auto *dialog = window->findChild<EngineCheckDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->result() != nullptr, 30000);
        QVERIFY(dialog->result()->result.agrees);
        QVERIFY(window->state()->spec().get<RopeScheme>()); // still the rotary layer
    }

    // `pescope export --view verify`: the same figure as PNG, SVG and PDF; refusals.
    void exportCommand()
    {
        const QString config = path(QStringLiteral("config.json"));
        writeBytes(config, R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
            "num_hidden_layers": 1, "max_position_embeddings": 32, "rope_theta": 10000.0,
            "rope_scaling": {"rope_type": "yarn", "factor": 2.0,
            "original_max_position_embeddings": 16}})");
        const QString table = writeTable(QStringLiteral("export.npy"), brokenTable());
        for (const char *suffix : {"png", "svg", "pdf"}) {
            const QString out = path(QStringLiteral("err.") + QLatin1String(suffix));
            const RunResult run =
                runPescope({QStringLiteral("export"), QStringLiteral("--view"),
                            QStringLiteral("verify"), QStringLiteral("--config"), config,
                            QStringLiteral("--against"), table, QStringLiteral("--out"), out});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QVERIFY2(run.err.contains("cos differs from Hugging Face"), run.err.constData());
            QVERIFY(QFileInfo(out).size() > 1000);
        }
        QImage image(path(QStringLiteral("err.png")));
        QCOMPARE(image.size(), QSize(1200, 800));
        RunResult run = runPescope({QStringLiteral("export"), QStringLiteral("--view"),
                                    QStringLiteral("verify"), QStringLiteral("--config"), config,
                                    QStringLiteral("--out"), path(QStringLiteral("x.png"))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--against is required"), run.err.constData());
        run = runPescope({QStringLiteral("export"), QStringLiteral("--view"),
                          QStringLiteral("heatmap"), QStringLiteral("--against"), table,
                          QStringLiteral("--out"), path(QStringLiteral("y.png"))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--against does not apply"), run.err.constData());
    }
};

QTEST_MAIN(TestEngineCheck)
#include "tst_enginecheck.moc"
