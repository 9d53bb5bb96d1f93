// Wheel turns on a plot (issue 32, the monkey test's seed 4): QCustomPlot replots once per wheel
// event, so a burst of turns over a slow plot kept the window busy for half a minute.
// WheelCoalescer merges a burst into one event: one replot, and the same zoom QCustomPlot gives
// the events one by one (a second plot without it is the reference).
#include "figures/qcpinclude.h"
#include "tolerance.h"
#include "widgets/wheelcoalescer.h"

#include <QTest>
#include <QWheelEvent>

#include <cmath>
#include <memory>

using namespace pe;

class TestPlotWheel : public QObject
{
    Q_OBJECT

private slots:
    void aBurstOfTurnsIsOneReplotAndTheSameZoom();
    void turnsElsewhereAreZoomsOfTheirOwn();
};

namespace {

std::unique_ptr<QCustomPlot> makePlot()
{
    auto plot = std::make_unique<QCustomPlot>();
    plot->resize(400, 300);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->xAxis->setRange(0, 1000);
    plot->yAxis->setRange(-1, 1);
    plot->show();
    return plot;
}

// Posts `count` wheel events of one notch (120) at `at`, as the X server delivers a burst.
void postTurns(QCustomPlot *plot, QPointF at, int count, int notch = -120)
{
    for (int i = 0; i < count; ++i)
        QCoreApplication::postEvent(
            plot, new QWheelEvent(at, plot->mapToGlobal(at), QPoint(), QPoint(0, notch),
                                  Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false));
}

} // namespace

void TestPlotWheel::aBurstOfTurnsIsOneReplotAndTheSameZoom()
{
    const auto merged = makePlot();
    const auto reference = makePlot();
    WheelCoalescer::install(merged.get());
    QVERIFY(QTest::qWaitForWindowExposed(merged.get()));
    QVERIFY(QTest::qWaitForWindowExposed(reference.get()));
    merged->replot();
    reference->replot();
    const QPointF at = merged->axisRect()->center();
    int mergedReplots = 0, referenceReplots = 0;
    connect(merged.get(), &QCustomPlot::afterReplot, this, [&] { ++mergedReplots; });
    connect(reference.get(), &QCustomPlot::afterReplot, this, [&] { ++referenceReplots; });

    // QCPAxisRect::wheelEvent: each notch scales the range by rangeZoomFactor (0.85) to the
    // power -delta/120 about the coordinate under the pointer.
    const double centre = merged->xAxis->pixelToCoord(at.x());
    const QCPRange before = merged->xAxis->range();
    postTurns(merged.get(), at, 6);
    postTurns(reference.get(), at, 6);
    QTRY_COMPARE(referenceReplots, 6);
    QTRY_COMPARE(mergedReplots, 1);
    QTest::qWait(50);
    QCOMPARE(mergedReplots, 1);
    const double factor = std::pow(0.85, -6.0);
    const QCPRange got = merged->xAxis->range();
    const double tolerance = 1e-9 * before.size() * factor;
    PE_COMPARE_CLOSER_THAN(got.lower, centre + (before.lower - centre) * factor, tolerance);
    PE_COMPARE_CLOSER_THAN(got.upper, centre + (before.upper - centre) * factor, tolerance);
    // One by one, the same six notches give the same zoom.
    PE_COMPARE_CLOSER_THAN(reference->xAxis->range().size(), got.size(), tolerance);
}

void TestPlotWheel::turnsElsewhereAreZoomsOfTheirOwn()
{
    // Turns at two places are two zooms, each about its own place: two replots, and the sizes
    // multiply (0.85^5 for five notches in).
    const auto merged = makePlot();
    WheelCoalescer::install(merged.get());
    QVERIFY(QTest::qWaitForWindowExposed(merged.get()));
    merged->replot();
    int replots = 0;
    connect(merged.get(), &QCustomPlot::afterReplot, this, [&] { ++replots; });
    const QRect rect = merged->axisRect()->rect();
    postTurns(merged.get(), QPointF(rect.left() + rect.width() * 0.2, rect.center().y()), 3, 120);
    postTurns(merged.get(), QPointF(rect.left() + rect.width() * 0.8, rect.center().y()), 2, 120);
    QTRY_COMPARE(replots, 2);
    QTest::qWait(50);
    QCOMPARE(replots, 2);
    PE_COMPARE_CLOSER_THAN(merged->xAxis->range().size(), 1000.0 * std::pow(0.85, 5.0), 1e-6);
}

QTEST_MAIN(TestPlotWheel)
#include "tst_plotwheel.moc"
