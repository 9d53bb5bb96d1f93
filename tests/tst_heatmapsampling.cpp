// The heatmap's sampled path (issue 5 §3): a matrix larger than the heatmap's screen area is
// drawn from Backend::sample per viewport. A zoomed-out 1,048,576 x 8,192 view shows the float64
// box mean (no moiré), pan and zoom produce new sampled grids, hover and waves read exact values,
// and a backend's notice (GPU fallback) is shown in the status bar.
#include "backends/cpubackend.h"
#include "compute/computescheduler.h"
#include "figures/qcpinclude.h"
#include "state/colormaps.h"
#include "testutil.h"
#include "views/backendnotice.h"
#include "views/heatmapview.h"
#include "views/wavesview.h"

#include <QMainWindow>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QWheelEvent>

#include <cmath>

using namespace pe;

namespace {

constexpr qint64 bigPositions = qint64(1) << 20;
constexpr qint64 bigDims = 8192;

EncodingSpec bigSpec()
{
    return test::sinusoidalSpec(bigPositions, bigDims);
}

// Weight of cell c in footprint [lo, hi): the covered fraction of [c, c + 1).
double coverage(qint64 c, double lo, double hi)
{
    return std::max(0.0, std::min(hi, double(c + 1)) - std::max(lo, double(c)));
}

// Float64 box mean of the interleaved matrix over rows [r0, r1) x dims [c0, c1), fractional
// edges weighted by coverage: what a pixel of a sampled grid must show.
double boxMean(const EncodingSpec &s, double r0, double r1, double c0, double c1)
{
    double sum = 0.0;
    for (qint64 p = qint64(std::floor(r0)); double(p) < r1; ++p) {
        const double wp = coverage(p, r0, r1);
        if (wp <= 0.0)
            continue;
        for (qint64 j = qint64(std::floor(c0)); double(j) < c1; ++j) {
            const double wj = coverage(j, c0, c1);
            if (wj > 0.0)
                sum += wp * wj * test::referenceInterleaved(p, j, s.dims, 10000.0);
        }
    }
    return sum / ((r1 - r0) * (c1 - c0));
}

// Pixel (y, x) of the grid against its float64 box mean.
void verifyGridPixel(const EncodingSpec &s, const HeatmapGrid &g, qint64 y, qint64 x)
{
    const double rh = double(g.window.rows()) / double(g.rows);
    const double cw = double(g.window.cols()) / double(g.cols);
    const double r0 = double(g.window.row0) + double(y) * rh;
    const double c0 = double(g.window.col0) + double(x) * cw;
    const double expected = boxMean(s, r0, r0 + rh, c0, c0 + cw);
    PE_COMPARE_NEAR(g.at(y, x), expected, 2e-5);
}

// A backend that computes on the CPU but reports what a GPU fallback would.
class NoticeBackend final : public Backend
{
public:
    QString id() const override { return QStringLiteral("cpu"); }
    QString description() const override { return m_cpu.description(); }
    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error) override
    {
        return m_cpu.encode(spec, firstRow, rowCount, out, error);
    }
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error) override
    {
        return m_cpu.sample(spec, window, width, height, out, error);
    }
    QString notice() const override
    {
        return QStringLiteral("the GPU failed (test: context lost); the CPU took over");
    }

private:
    CpuBackend m_cpu;
};

struct Explorer
{
    ExplorerState state;
    ComputeScheduler scheduler{&state};
    HeatmapView view{&state, &scheduler};
};

// Waits until the scheduler is idle and the view shows a sampled grid for its current window.
bool settle(Explorer &e)
{
    return QTest::qWaitFor(
        [&] {
            return e.scheduler.isIdle() && e.view.grid() && e.view.grid()->sampled &&
                   e.view.result() && e.view.result()->spec == e.state.spec();
        },
        60000);
}

} // namespace

class TestHeatmapSampling : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (QGuiApplication::platformName() == QLatin1String("minimal"))
            PE_SKIP_MISSING("needs a display or the offscreen platform to render widgets");
    }

    void smallMatrixStaysMaterialised()
    {
        Explorer e;
        e.state.setBackendChoice(BackendChoice::Cpu);
        e.view.resize(900, 700);
        e.view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&e.view));
        QTRY_VERIFY_WITH_TIMEOUT(e.scheduler.isIdle() && e.view.result(), 20000);
        // 200 x 128 cells fit the screen area: the exact, pixel-identical materialised path.
        QVERIFY(e.view.result()->matrix);
        QVERIFY(!e.view.grid()->sampled);
    }

    // Positions and dims are counted: no tick between two of them. 16 dims made QCustomPlot's
    // own ticker step by 2.5 ("2.5 7.5 12.5", seen at 150% zoom, issue 46.8).
    void ticksAreWholeNumbers()
    {
        Explorer e;
        e.state.setBackendChoice(BackendChoice::Cpu);
        QVERIFY(e.state.setSpec(test::sinusoidalSpec(12, 16)));
        e.view.resize(600, 400);
        e.view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&e.view));
        QTRY_VERIFY_WITH_TIMEOUT(e.scheduler.isIdle() && e.view.result() &&
                                     e.view.result()->spec == e.state.spec(),
                                 20000);
        e.view.plot()->replot();
        int axes = 0;
        for (QCPAxisRect *rect : e.view.plot()->axisRects())
            for (QCPAxis *axis : rect->axes()) {
                if (!axis->visible() || !axis->tickLabels())
                    continue;
                ++axes;
                QVERIFY(axis->tickVector().size() >= 2);
                for (double tick : axis->tickVector())
                    QVERIFY2(tick == std::floor(tick),
                             qPrintable(
                                 QStringLiteral("%1: a tick at %2").arg(axis->label()).arg(tick)));
            }
        QCOMPARE(axes, 2);
    }

    void zoomedOutViewDoesNotAlias()
    {
        Explorer e;
        e.state.setBackendChoice(BackendChoice::Cpu);
        QVERIFY(e.state.setSpec(bigSpec()));
        e.view.resize(900, 700);
        e.view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&e.view));
        QVERIFY(settle(e));
        const auto result = e.view.result();
        QVERIFY(result->isSampled());
        const HeatmapGrid &g = *e.view.grid();
        QCOMPARE(g.window, (CellWindow{0, bigPositions, 0, bigDims}));
        QVERIFY2(g.rows < 2000 && g.cols < 2000, "the grid is screen-sized, not matrix-sized");
        // Each pixel is the box mean over ~1,000 positions: the fast columns on the left
        // average to ~0 where point sampling would give arbitrary values in [-1, 1].
        for (qint64 y : {qint64(0), g.rows / 3, g.rows - 1})
            for (qint64 x : {qint64(0), qint64(1), g.cols / 2, g.cols - 1})
                verifyGridPixel(result->spec, g, y, x);
        for (qint64 y = 0; y < g.rows; y += 37)
            PE_COMPARE_CLOSER_THAN(g.at(y, 2), 0.0, 0.05); // else column 2 is aliased

        // On screen: the fast-column band is one flat colour (colormap at ~0), no moiré.
        e.view.plot()->replot();
        const QImage image = e.view.plot()->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const double dpr = e.view.plot()->devicePixelRatioF();
        const QRgb expected = colormapColor(e.state.colormap(), 0.0, -1.0, 1.0) & 0xffffff;
        int checked = 0;
        for (qint64 p = 1000; p < bigPositions - 1000; p += bigPositions / 23) {
            const QPoint at = e.view.cellCentre(p, 300);
            const QRgb got = image.pixel(QPoint(int(at.x() * dpr), int(at.y() * dpr))) & 0xffffff;
            const int distance = std::abs(qRed(got) - qRed(expected)) +
                                 std::abs(qGreen(got) - qGreen(expected)) +
                                 std::abs(qBlue(got) - qBlue(expected));
            QVERIFY2(distance <= 12, qPrintable(QStringLiteral("p = %1: #%2, expected #%3")
                                                    .arg(p)
                                                    .arg(got, 6, 16, QLatin1Char('0'))
                                                    .arg(expected, 6, 16, QLatin1Char('0'))));
            ++checked;
        }
        QVERIFY(checked >= 20);
    }

    void panAndZoomProduceNewSampledGrids()
    {
        Explorer e;
        e.state.setBackendChoice(BackendChoice::Cpu);
        QVERIFY(e.state.setSpec(bigSpec()));
        e.view.resize(900, 700);
        e.view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&e.view));
        QVERIFY(settle(e));
        QSignalSpy grids(&e.scheduler, &ComputeScheduler::gridReady);

        // Zoom in with the mouse wheel, several notches in a burst.
        QCustomPlot *plot = e.view.plot();
        const QPointF centre = plot->rect().center();
        for (int i = 0; i < 6; ++i) {
            QWheelEvent wheel(centre, plot->mapToGlobal(centre), QPoint(), QPoint(0, 120),
                              Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(plot, &wheel);
        }
        QTRY_VERIFY_WITH_TIMEOUT(grids.count() > 0, 20000);
        QVERIFY(settle(e));
        const HeatmapGrid zoomed = *e.view.grid();
        QVERIFY(zoomed.sampled);
        QVERIFY2(zoomed.window.rows() < bigPositions / 2,
                 qPrintable(QStringLiteral("window %1 rows").arg(zoomed.window.rows())));
        for (qint64 y : {qint64(0), zoomed.rows / 2})
            for (qint64 x : {qint64(0), zoomed.cols / 2})
                verifyGridPixel(e.state.spec(), zoomed, y, x);

        // Pan by dragging.
        grids.clear();
        const QPointF from = centre, to = centre + QPointF(-150, -120);
        QMouseEvent press(QEvent::MouseButtonPress, from, plot->mapToGlobal(from), Qt::LeftButton,
                          Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &press);
        for (int step = 1; step <= 10; ++step) {
            const QPointF at = from + (to - from) * (step / 10.0);
            QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton,
                             Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(plot, &move);
        }
        QMouseEvent release(QEvent::MouseButtonRelease, to, plot->mapToGlobal(to), Qt::LeftButton,
                            Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &release);
        QTRY_VERIFY_WITH_TIMEOUT(grids.count() > 0, 20000);
        QVERIFY(settle(e));
        const HeatmapGrid panned = *e.view.grid();
        QVERIFY(panned.sampled);
        QVERIFY(!(panned.window == zoomed.window));
        verifyGridPixel(e.state.spec(), panned, panned.rows / 3, panned.cols / 3);

        // Zoomed to single cells: every pixel is one cell's exact value.
        grids.clear();
        const qint64 p0 = 777'777, d0 = 4000;
        QVERIFY(!e.state.transposed()); // positions down the left axis, dims along the top
        QCPAxisRect *rect = plot->axisRect(0);
        rect->axis(QCPAxis::atLeft)->setRange(double(p0) - 0.5, double(p0) + 9.5);
        rect->axis(QCPAxis::atTop)->setRange(double(d0) - 0.5, double(d0) + 11.5);
        plot->replot();
        QTRY_VERIFY_WITH_TIMEOUT(grids.count() > 0, 20000);
        QVERIFY(settle(e));
        const HeatmapGrid cells = *e.view.grid();
        QVERIFY(cells.isFullResolution());
        for (qint64 y = 0; y < cells.rows; ++y)
            for (qint64 x = 0; x < cells.cols; ++x)
                PE_COMPARE_NEAR(cells.at(y, x),
                                test::referenceInterleaved(cells.window.row0 + y,
                                                           cells.window.col0 + x, bigDims, 10000.0),
                                1e-6);
    }

    void hoverAndWavesReadExactValues()
    {
        Explorer e;
        e.state.setBackendChoice(BackendChoice::Cpu);
        QVERIFY(e.state.setSpec(bigSpec()));
        WavesView waves(&e.state, &e.scheduler);
        waves.resize(900, 400);
        waves.show();
        e.view.resize(900, 700);
        e.view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&e.view));
        QVERIFY(settle(e));

        // Hover anywhere in the zoomed-out view: the readout is that one cell's exact value.
        QCustomPlot *plot = e.view.plot();
        const QPointF at = plot->rect().center() + QPointF(37, 21);
        const std::optional<Selection> cell = e.view.cellAt(at);
        QVERIFY(cell);
        QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QApplication::sendEvent(plot, &move);
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("p = (\\d+), i = (\\d+), value = (-?[0-9.]+)"))
                .match(e.view.readout());
        QVERIFY2(m.hasMatch(), qPrintable(e.view.readout()));
        QCOMPARE(m.captured(1).toLongLong(), cell->position);
        QCOMPARE(m.captured(2).toLongLong(), cell->dim);
        PE_COMPARE_NEAR(m.captured(3).toDouble(),
                        test::referenceInterleaved(cell->position, cell->dim, bigDims, 10000.0),
                        1.5e-6);

        // Waves: only the plotted columns exist, each exact at every position.
        const auto result = e.view.result();
        QVERIFY(!result->matrix);
        for (qint64 d : e.state.plottedDims()) {
            const ColumnView c = result->column(d);
            QVERIFY(c.isValid());
            QCOMPARE(c.rows, bigPositions);
            for (qint64 p : {qint64(0), qint64(22), qint64(60), qint64(123'456), bigPositions - 1})
                PE_COMPARE_NEAR(c.at(p), test::referenceInterleaved(p, d, bigDims, 10000.0), 1e-6);
        }
        QTRY_VERIFY_WITH_TIMEOUT(waves.plot()->graphCount() > 0, 20000);
        // One named curve per plotted dim: at this many positions a pixel, its min-max band
        // (the band's lower edge is a second, unnamed graph).
        int curves = 0;
        for (int i = 0; i < waves.plot()->graphCount(); ++i)
            if (waves.plot()->graph(i)->data()->size() > 100 &&
                waves.plot()->graph(i)->name().endsWith(u"(min–max band)"))
                ++curves;
        QCOMPARE(curves, int(e.state.plottedDims().size()));
    }

    void backendNoticeIsShown()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        scheduler.setBackendForTesting(BackendChoice::Cpu, std::make_unique<NoticeBackend>());
        QMainWindow window;
        auto *indicator = BackendNoticeIndicator::install(&window, &scheduler);
        // Hidden until a notice arrives (notices are queued to this thread, so none has yet;
        // checked before the event loop runs, as the small encode may land while it does).
        QVERIFY(indicator->isHidden());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle() && scheduler.encoding(), 20000);
        QTRY_VERIFY(indicator->isVisible());
        QVERIFY(indicator->toolTip().contains(QLatin1String("the CPU took over")));
        QVERIFY(window.statusBar()->currentMessage().contains(QLatin1String("GPU failed")));
        QCOMPARE(scheduler.encoding()->notice, indicator->notice());
        QCOMPARE(scheduler.encoding()->backendId, QStringLiteral("cpu"));
    }
};

QTEST_MAIN(TestHeatmapSampling)
#include "tst_heatmapsampling.moc"
