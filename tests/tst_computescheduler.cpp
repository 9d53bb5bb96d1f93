// ComputeScheduler: results arrive off the UI thread, bursts are merged and stale results
// dropped, matrices above the in-memory budget are sampled, backends that cannot start are
// refused with a message, and the box-filtered grid is the mean of the cells it covers. The
// Schemes page's views, the export's figure data and the columns of a newly plotted dim go
// through it too: on the chosen backend, newest wins, cancellable.
#include "compute/computescheduler.h"
#include "testutil.h"

#include "backends/cpubackend.h"
#include "schemes/tablescheme.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <new>

using namespace pe;

namespace {

// The CPU under another name, counting its calls: shows which backend a job ran on.
class TaggedBackend final : public Backend
{
public:
    explicit TaggedBackend(const QString &id) : m_id(id) {}
    QString id() const override { return m_id; }
    QString description() const override { return m_cpu.description(); }
    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error) override
    {
        ++encodes;
        return m_cpu.encode(spec, firstRow, rowCount, out, error);
    }
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error) override
    {
        ++samples;
        return m_cpu.sample(spec, window, width, height, out, error);
    }
    std::atomic<int> encodes{0};
    std::atomic<int> samples{0};

private:
    QString m_id;
    CpuBackend m_cpu;
};

double theta(qint64 i, qint64 dims)
{
    return std::pow(10000.0, -2.0 * double(i) / double(dims));
}

// A state on the CPU whose similarity view takes half a minute unless stopped: 2048 positions
// of 16,384 dims make a Gram matrix of 3.4e10 multiply-adds.
void makeSlowSimilarity(ExplorerState *state)
{
    state->setBackendChoice(BackendChoice::Cpu);
    QVERIFY(state->setSpec(test::sinusoidalSpec(64, 16384)));
    SchemeSettings s = state->schemeSettings();
    s.squarePositions = 2048;
    s.metric = SimilarityMetric::Dot;
    QVERIFY(state->setSchemeSettings(s));
}

} // namespace

class TestComputeScheduler : public QObject
{
    Q_OBJECT
private slots:
    // Issue 45: an allocation that fails in a job fails the job with a sentence, never the
    // window (the encoding and the model phrases' jobs run through this).
    void outOfMemoryFailsTheJob()
    {
        QString error;
        const JobStatus status =
            failingOnOutOfMemory(QStringLiteral("computing the test"), &error,
                                 []() -> JobStatus { throw std::bad_alloc(); });
        QCOMPARE(status, JobStatus::Failed);
        QCOMPARE(error, QStringLiteral("out of memory while computing the test"));
        QCOMPARE(failingOnOutOfMemory(QStringLiteral("x"), &error, [] { return JobStatus::Done; }),
                 JobStatus::Done);
    }

    // Issue 30: a model's files are read through the scheduler, on its worker. GPT-2's folder
    // (tests/data/models, written by transformers' save_pretrained): config.json says
    // n_positions 256 and n_embd 64, so its learned table is 256 x 64.
    void modelReadsGoThroughTheWorker()
    {
        ExplorerState state;
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY(scheduler.isIdle());
        const QString folder = QFINDTESTDATA("data/models/gpt2-tiny");
        QVERIFY(!folder.isEmpty());
        QSignalSpy spy(&scheduler, &ComputeScheduler::modelReadReady);
        const auto answer = [&](quint64 ticket) -> std::shared_ptr<const ModelRead> {
            if (!spy.wait(20000) && spy.isEmpty())
                return nullptr;
            const QList<QVariant> args = spy.takeFirst();
            if (args.at(0).toULongLong() != ticket)
                return nullptr;
            return args.at(1).value<std::shared_ptr<const ModelRead>>();
        };

        // A newer read of the same kind supersedes the older: only its ticket is answered.
        QTemporaryDir dir;
        ModelReadRequest open;
        open.source = dir.filePath(QStringLiteral("no-such-model"));
        const quint64 stale = scheduler.requestModelRead(open);
        open.source = folder;
        const quint64 ticket = scheduler.requestModelRead(open);
        QVERIFY(ticket != stale);
        const std::shared_ptr<const ModelRead> opened = answer(ticket);
        QVERIFY(opened);
        QVERIFY2(opened->opened, qPrintable(opened->error));
        const TableScheme *table = opened->opened->spec.get<TableScheme>();
        QVERIFY(table && table->table);
        QCOMPARE(table->table->positions(), 256);
        QCOMPARE(table->table->columns, 64);
        QVERIFY(opened->card && opened->card->config);
        QCOMPARE(opened->card->tableRows, 256);
        QTRY_VERIFY(scheduler.isIdle());
        QVERIFY(spy.isEmpty()); // the superseded read said nothing

        // The card of a table read another way, and a session's spec with its table read.
        ModelReadRequest card;
        card.kind = ModelReadRequest::Kind::Card;
        card.table = table->table;
        const std::shared_ptr<const ModelRead> carded = answer(scheduler.requestModelRead(card));
        QVERIFY(carded && carded->card);
        QCOMPARE(carded->card->tableColumns, 64);
        ModelReadRequest spec;
        spec.kind = ModelReadRequest::Kind::Spec;
        TableScheme named;
        named.source = folder;
        spec.spec.scheme = named;
        QVERIFY(spec.spec.readsFiles());
        const std::shared_ptr<const ModelRead> resolved = answer(scheduler.requestModelRead(spec));
        QVERIFY(resolved && resolved->resolved);
        const TableScheme *read = resolved->resolved->get<TableScheme>();
        QVERIFY(read && read->table);
        QCOMPARE(read->table->columns, 64);
        QCOMPARE(resolved->resolved->dims, 64);

        // A file that is not a model: the read answers with why, naming it.
        named.source = folder + QStringLiteral("/config.json/x");
        spec.spec.scheme = named;
        const std::shared_ptr<const ModelRead> failed = answer(scheduler.requestModelRead(spec));
        QVERIFY(failed && !failed->resolved);
        QVERIFY2(failed->error.contains(QStringLiteral("config.json")), qPrintable(failed->error));
    }

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
                const double ref =
                    test::referenceInterleaved(p, j, s.dims, s.get<SinusoidalScheme>()->base);
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
        PE_COMPARE_NEAR(result->value(p, j),
                        test::referenceInterleaved(p, j, 1024, huge.get<SinusoidalScheme>()->base),
                        1e-6);
        QVERIFY(!inMemoryProblem(huge).isEmpty()); // the export path still refuses it
    }

    void unavailableBackendIsReported()
    {
        // A GPU backend that cannot start, injected: the refusal path runs on every machine,
        // CI's llvmpipe (where the real one starts) included.
        const QString injected = QStringLiteral("no OpenGL 4.3 context (injected by the test)");
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Gpu);
        ComputeScheduler scheduler(&state);
        scheduler.setBackendMakerForTesting(
            [&](BackendChoice choice, QString *why) -> std::unique_ptr<Backend> {
                if (choice == BackendChoice::Gpu) {
                    *why = injected;
                    return nullptr;
                }
                return makeBackend(choice, why);
            });
        QSignalSpy failed(&scheduler, &ComputeScheduler::encodingFailed);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() > 0, 20000);
        const QString message = failed.first().at(0).toString();
        QCOMPARE(message, QStringLiteral("the gpu backend cannot start: ") + injected);
        QCOMPARE(scheduler.encodingError(), message);
        // Nothing was computed on another backend behind the user's back.
        QVERIFY(!scheduler.encoding());
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

    void schemeViewsRunOnTheChosenBackend()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        auto *cpu = new TaggedBackend(QStringLiteral("tagged-cpu"));
        auto *gpu = new TaggedBackend(QStringLiteral("tagged-gpu"));
        scheduler.setBackendForTesting(BackendChoice::Cpu, std::unique_ptr<Backend>(cpu));
        scheduler.setBackendForTesting(BackendChoice::Gpu, std::unique_ptr<Backend>(gpu));
        QVERIFY(state.setSpec(test::sinusoidalSpec(200, 64)));
        SchemeSettings settings = state.schemeSettings();
        settings.squarePositions = 96;
        QVERIFY(state.setSchemeSettings(settings));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QVERIFY(!scheduler.schemes());

        QSignalSpy ready(&scheduler, &ComputeScheduler::schemesReady);
        const int encodesBefore = cpu->encodes;
        QVERIFY(!scheduler.requestSchemes({FigureView::Similarity}));
        QVERIFY(!scheduler.isIdle());
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QCOMPARE(ready.count(), 1);
        const auto result = scheduler.schemes();
        QCOMPARE(result, ready.first().at(0).value<std::shared_ptr<const SchemeResult>>());
        QCOMPARE(result->backendId, QStringLiteral("tagged-cpu"));
        QVERIFY(cpu->encodes > encodesBefore); // the similarity rows came from the backend
        QCOMPARE(result->similarityA.size, 96);
        // Interleaved sin/cos: cos(PE(p), PE(q)) = Σᵢ cos((p − q)ωᵢ) / (d/2).
        for (auto [p, q] : {std::pair{0, 0}, std::pair{5, 40}, std::pair{90, 3}}) {
            double dot = 0;
            for (int i = 0; i < 32; ++i)
                dot += std::cos(double(p - q) * theta(i, 64));
            PE_COMPARE_NEAR(result->similarityA.at(p, q), dot / 32.0, 1e-5);
        }

        // Held: asking again computes nothing.
        QVERIFY(scheduler.requestSchemes({FigureView::Similarity}));
        QVERIFY(scheduler.isIdle());
        QCOMPARE(ready.count(), 1);
        // Another backend computes them again, on that backend.
        state.setBackendChoice(BackendChoice::Gpu);
        QVERIFY(!scheduler.requestSchemes({FigureView::Similarity}));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QCOMPARE(ready.count(), 2);
        QCOMPARE(scheduler.schemes()->backendId, QStringLiteral("tagged-gpu"));
        QVERIFY(gpu->encodes > 0);
    }

    void newestSchemeRequestWins()
    {
        ExplorerState state;
        makeSlowSimilarity(&state);
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QSignalSpy ready(&scheduler, &ComputeScheduler::schemesReady);
        QSignalSpy failed(&scheduler, &ComputeScheduler::schemesFailed);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!scheduler.requestSchemes({FigureView::Similarity}));
        QTest::qWait(300); // the slow job is running
        SchemeSettings small = state.schemeSettings();
        small.squarePositions = 16;
        QVERIFY(state.setSchemeSettings(small));
        QVERIFY(!scheduler.requestSchemes({FigureView::Similarity}));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 60000);
        // The superseded job stopped within a row of its Gram matrix: nothing near the half
        // minute it needs in full.
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(ready.count(), 1);
        const auto result = ready.first().at(0).value<std::shared_ptr<const SchemeResult>>();
        QCOMPARE(result->inputs.settings.squarePositions, 16);
        QCOMPARE(result->similarityA.size, 16);
        QCOMPARE(scheduler.schemes(), result);
    }

    void cancelStopsASchemeJob()
    {
        ExplorerState state;
        makeSlowSimilarity(&state);
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QSignalSpy ready(&scheduler, &ComputeScheduler::schemesReady);
        QSignalSpy cancelled(&scheduler, &ComputeScheduler::cancelled);
        QVERIFY(!scheduler.requestSchemes({FigureView::Similarity}));
        QTest::qWait(300);
        QElapsedTimer clock;
        clock.start();
        scheduler.cancel();
        QCOMPARE(cancelled.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QTest::qWait(50);
        QCOMPARE(ready.count(), 0);
        QVERIFY(!scheduler.schemes());
        // Asking again starts afresh.
        SchemeSettings small = state.schemeSettings();
        small.squarePositions = 8;
        QVERIFY(state.setSchemeSettings(small));
        QVERIFY(!scheduler.requestSchemes({FigureView::Similarity}));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 20000);
    }

    void exportDataIsMaterialisedOnTheWorker()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        auto *cpu = new TaggedBackend(QStringLiteral("tagged-cpu"));
        scheduler.setBackendForTesting(BackendChoice::Cpu, std::unique_ptr<Backend>(cpu));
        GridRequest small;
        small.rowPixels = 64;
        small.colPixels = 64;
        scheduler.requestGrid(small);
        QVERIFY(state.setSpec(test::sinusoidalSpec(4096, 512)));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle() && scheduler.encoding(), 20000);
        QVERIFY(scheduler.encoding()->isSampled()); // the window samples it
        QVERIFY(!scheduler.figureData({FigureView::Heatmap}).encoding);

        QSignalSpy ready(&scheduler, &ComputeScheduler::figureDataReady);
        const int encodesBefore = cpu->encodes;
        QVERIFY(!scheduler.requestFigureData({FigureView::Heatmap}));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QCOMPARE(ready.count(), 1);
        QVERIFY(cpu->encodes > encodesBefore);
        const FigureData data = scheduler.figureData({FigureView::Heatmap});
        QVERIFY(figureDataMatches(state, {FigureView::Heatmap}, data));
        QVERIFY(data.encoding->matrix);
        for (auto [p, j] : {std::pair{0, 0}, std::pair{4095, 511}, std::pair{1234, 77}})
            PE_COMPARE_NEAR(data.encoding->value(p, j), test::referenceInterleaved(p, j, 512, 1e4),
                            1e-6);
        QVERIFY(scheduler.requestFigureData({FigureView::Heatmap})); // held now

        // What the scheduler holds is reused: the phrases shown are the export's.
        QVERIFY(!scheduler.requestFigureData({FigureView::Phrases, FigureView::Spectrum}));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        const FigureData both = scheduler.figureData({FigureView::Phrases, FigureView::Spectrum});
        QCOMPARE(both.phrases, scheduler.phrases());
        QVERIFY(both.schemes);
        QVERIFY(schemeResultMatches(*both.schemes, {state.spec(), state.schemeSettings()},
                                    {FigureView::Spectrum}));
        // Letting go of it (the dialog closed) frees the matrix.
        scheduler.releaseFigureData();
        QVERIFY(!scheduler.figureData({FigureView::Heatmap}).encoding);
    }

    void newestFigureRequestWins()
    {
        ExplorerState state;
        makeSlowSimilarity(&state);
        ComputeScheduler scheduler(&state);
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QSignalSpy ready(&scheduler, &ComputeScheduler::figureDataReady);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!scheduler.requestFigureData({FigureView::Similarity}));
        QTest::qWait(300);
        SchemeSettings small = state.schemeSettings();
        small.squarePositions = 12;
        QVERIFY(state.setSchemeSettings(small));
        QVERIFY(!scheduler.requestFigureData({FigureView::Similarity}));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 60000);
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(ready.count(), 1);
        const FigureData data = ready.first().at(0).value<FigureData>();
        QCOMPARE(data.schemes->similarityA.size, 12);
        QVERIFY(figureDataMatches(state, {FigureView::Similarity}, data));
    }

    void newlyPlottedDimIsComputedOnTheWorker()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        ComputeScheduler scheduler(&state);
        GridRequest small;
        small.rowPixels = 64;
        small.colPixels = 64;
        scheduler.requestGrid(small);
        const qint64 positions = qint64(1) << 20;
        QVERIFY(state.setSpec(test::sinusoidalSpec(positions, 1024)));
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle() && scheduler.encoding(), 20000);
        const auto result = scheduler.encoding();
        QVERIFY(result->isSampled());
        QVERIFY(!state.plottedDims().contains(777));
        QVERIFY(!result->column(777).isValid());

        QSignalSpy columns(&scheduler, &ComputeScheduler::columnsReady);
        QVERIFY(state.setWaveDims({100, 777}));
        // Nothing was computed on this (the GUI) thread: the column comes from the worker.
        QVERIFY(!result->column(777).isValid());
        QVERIFY(!scheduler.isIdle());
        QTRY_VERIFY_WITH_TIMEOUT(scheduler.isIdle(), 20000);
        QCOMPARE(columns.count(), 1);
        QCOMPARE(columns.first().at(0).value<std::shared_ptr<const EncodingResult>>(), result);
        const ColumnView column = result->column(777);
        QVERIFY(column.isValid());
        QCOMPARE(column.rows, positions);
        for (qint64 p : {qint64(0), qint64(60), qint64(99'999), positions - 1})
            PE_COMPARE_NEAR(column.at(p), test::referenceInterleaved(p, 777, 1024, 1e4), 1e-6);
        // A dim already there needs no job.
        QVERIFY(state.setWaveDims({777}));
        QVERIFY(scheduler.isIdle());
    }
};

QTEST_GUILESS_MAIN(TestComputeScheduler)
#include "tst_computescheduler.moc"
