// ComputeScheduler: results arrive off the UI thread, bursts are merged and stale results
// dropped, matrices above the in-memory budget are sampled, backends that cannot start are
// refused with a message, and the box-filtered grid is the mean of the cells it covers.
#include "compute/computescheduler.h"
#include "testutil.h"

#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace pe;

class TestComputeScheduler : public QObject
{
    Q_OBJECT
private slots:
    void resultMatchesFormula()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        QSignalSpy ready(&scheduler, &ComputeScheduler::encodingReady);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle() && ready.count() > 0, 20000);
        const auto result = scheduler.encoding();
        QCOMPARE(result->spec, state.spec());
        QCOMPARE(result->backendId, QStringLiteral("cpu"));
        const EncodingSpec &s = result->spec;
        double lo = 1e9, hi = -1e9;
        for (qint64 p = 0; p < s.positions; ++p)
            for (qint64 j = 0; j < s.dims; ++j) {
                const double ref = test::referenceInterleaved(p, j, s.dims, s.get<SinusoidalScheme>()->base);
                PE_COMPARE_NEAR(result->value(p, j), ref, 1e-6);
                lo = std::min(lo, ref);
                hi = std::max(hi, ref);
            }
        PE_COMPARE_NEAR(result->minimum, lo, 1e-6);
        PE_COMPARE_NEAR(result->maximum, hi, 1e-6);
    }

    void burstsAreMergedAndStaleResultsDropped()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        QSignalSpy ready(&scheduler, &ComputeScheduler::encodingReady);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        ready.clear();
        EncodingSpec s = state.spec();
        for (qint64 dims = 10; dims < 60; ++dims) {
            s.dims = dims;
            QVERIFY(state.setSpec(s));
        }
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        // Edits made in one go are one job; whatever arrives, only the last spec is shown.
        QCOMPARE(ready.count(), 1);
        const auto last = ready.last().at(0).value<std::shared_ptr<const EncodingResult>>();
        QCOMPARE(last->spec.dims, 59);
    }

    void supersededLongJobIsDropped()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QSignalSpy ready(&scheduler, &ComputeScheduler::encodingReady);
        EncodingSpec big = state.spec();
        big.positions = 1 << 16;
        big.dims = 1024; // 256 MiB: takes long enough to be superseded while running
        // A viewport as large as the matrix keeps it on the materialised (slow) path.
        GridRequest screen;
        screen.rowPixels = big.positions;
        screen.colPixels = big.dims;
        scheduler.requestGrid(screen);
        QVERIFY(state.setSpec(big));
        QTest::qWait(30);
        EncodingSpec small = state.spec();
        small.positions = 12;
        small.dims = 6;
        QVERIFY(state.setSpec(small));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 60000);
        for (const QList<QVariant> &args : ready)
            QCOMPARE(args.at(0).value<std::shared_ptr<const EncodingResult>>()->spec, small);
        QCOMPARE(scheduler.encoding()->spec, small);
    }

    void overBudgetIsSampled()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QSignalSpy failed(&scheduler, &ComputeScheduler::encodingFailed);
        EncodingSpec huge = state.spec();
        huge.positions = limits::maxPositions;
        huge.dims = 1024;
        QVERIFY(state.setSpec(huge)); // 64 GiB: never materialised, sampled per viewport
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 60000);
        QCOMPARE(failed.count(), 0);
        const auto result = scheduler.encoding();
        QCOMPARE(result->spec, huge);
        QVERIFY(result->isSampled());
        QVERIFY(result->grid.sampled);
        QVERIFY(result->grid.rows <= 512 && result->grid.cols <= 512);
        // One cell, computed alone, exactly.
        const qint64 p = limits::maxPositions - 3, j = 1001;
        PE_COMPARE_NEAR(result->value(p, j), test::referenceInterleaved(p, j, 1024, huge.get<SinusoidalScheme>()->base),
                        1e-6);
        QVERIFY(!inMemoryProblem(huge).isEmpty()); // the export path still refuses it
    }

    void unavailableBackendIsReported()
    {
        QString why;
        if (makeBackend(BackendChoice::Gpu, &why))
            QSKIP("a GPU backend starts here; the refusal path needs a machine without one");
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Gpu);
        ComputeScheduler scheduler(&state);
        QSignalSpy failed(&scheduler, &ComputeScheduler::encodingFailed);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() > 0, 20000);
        QVERIFY2(failed.first().at(0).toString().contains(QLatin1String("gpu")),
                 qPrintable(failed.first().at(0).toString()));
    }

    void phrasesArrive()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle() && scheduler.phrases(), 20000);
        const auto r = scheduler.phrases();
        QCOMPARE(r->settings, state.phraseSettings());
        QCOMPARE(qsizetype(r->fixed.ids.size()), state.phraseSettings().phrases.size());
        QCOMPARE(r->random.values.size(), r->fixed.values.size());
    }

    void gridIsTheBoxMean()
    {
        Matrix m;
        m.rows = 6;
        m.cols = 4;
        m.data.reset(new float[24]);
        for (int i = 0; i < 24; ++i)
            m.data[i] = float(i);
        // 6 x 4 into 3 x 2: each pixel is the mean of a 2 x 2 block.
        const HeatmapGrid g = sampleGrid(m, {0, 6, 0, 4}, 3, 2);
        QCOMPARE(g.rows, 3);
        QCOMPARE(g.cols, 2);
        QCOMPARE(g.at(0, 0), (0.0f + 1 + 4 + 5) / 4);
        QCOMPARE(g.at(2, 1), (18.0f + 19 + 22 + 23) / 4);
        // A window smaller than the pixels is copied cell for cell.
        const HeatmapGrid w = sampleGrid(m, {1, 3, 2, 4}, 100, 100);
        QVERIFY(w.isFullResolution());
        QCOMPARE(w.at(1, 0), m.at(2, 2));
    }

    void sharingPositionsOfFigure16_9()
    {
        // Fig 16-9: p = 22 and p = 60 (38 apart) share their values in i = 100 and 101.
        Matrix m;
        m.rows = 201;
        m.cols = 512;
        m.data.reset(new float[std::size_t(m.rows * m.cols)]);
        for (qint64 p = 0; p < m.rows; ++p)
            for (qint64 j = 0; j < m.cols; ++j)
                m.data[std::size_t(p * m.cols + j)] =
                    float(test::referenceInterleaved(p, j, 512, 10000.0));
        const QList<qint64> shared = sharingPositions(m, 22, {100, 101}, 0.01);
        QVERIFY2(shared.contains(60), qPrintable(QString::number(shared.size())));
        QVERIFY(!shared.contains(35));
        QVERIFY(!shared.contains(22));
    }
};

QTEST_GUILESS_MAIN(TestComputeScheduler)
#include "tst_computescheduler.moc"
