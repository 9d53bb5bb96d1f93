// ComputeScheduler: the one path by which the window computes. Every job (the encoding and its
// heatmap grids, the plotted columns of a sampled matrix, phrases, the Schemes page's views, the
// export dialog's figure data) runs on one worker thread on the backend the state chooses. Each
// kind of job is a lane where the newest request wins: a superseded job stops at its next check
// and its result is dropped; cancel() stops them all. Bursts of edits are merged by a
// single-shot QTimer; failures arrive as signals. An animated export's frames have a lane of
// their own, for parameters other than the window's (requestFrameData), and so do a model's
// files (requestModelRead): nothing in the window reads a model on the UI thread.
#pragma once

#include "backends/backendfactory.h"
#include "compute/computejobs.h"
#include "compute/figuredata.h"
#include "compute/modelread.h"
#include "compute/phrasemodeldata.h"
#include "compute/schemedata.h"
#include "state/explorerstate.h"

#include <QObject>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace pe {

class ComputeScheduler : public QObject
{
    Q_OBJECT
public:
    explicit ComputeScheduler(ExplorerState *state, QObject *parent = nullptr);
    ~ComputeScheduler() override;

    std::shared_ptr<const EncodingResult> encoding() const { return m_encoding; }
    std::shared_ptr<const PhraseResult> phrases() const { return m_phrases; }
    // The Schemes page's last result (the views last asked for); null before the first.
    std::shared_ptr<const SchemeResult> schemes() const { return m_schemes; }
    // The Model page's last learned-table result; null before the first.
    std::shared_ptr<const TableResult> table() const { return m_table; }
    // The Phrases page's model arrays (its tokenizer the model's own) for the state's phrase
    // model and compared phrases; null before the first. Computed whenever those change while
    // the tokenizer is the model's.
    std::shared_ptr<const PhraseModelResult> phraseModel() const { return m_phraseModel; }
    QString phraseModelError() const { return m_phraseModelError; }
    // The Phrases page's layer views: phrase A through the model's whole forward pass; null
    // before the first. Computed on request only (requestForward), as the pass is long.
    std::shared_ptr<const ForwardViewResult> forward() const { return m_forward; }
    // What `views` need for the state's current parameters, taken from the results held here
    // (the encoding when materialised, the phrases, the Schemes page's and the last figure
    // job's); the members that do not match are empty. Computes nothing.
    FigureData figureData(const QList<FigureView> &views) const;
    // True when nothing is pending or running: every view has the latest result or error.
    bool isIdle() const;
    QString encodingError() const { return m_encodingError; }
    QString phrasesError() const { return m_phrasesError; }
    // The latest non-empty Backend::notice() (e.g. the GPU failed and the CPU took over).
    QString latestNotice() const { return m_notice; }
    // Tests: use `backend` for `choice` instead of makeBackend().
    void setBackendForTesting(BackendChoice choice, std::unique_ptr<Backend> backend);
    // Tests: make the backends not yet made with `maker` instead of makeBackend(), e.g. one
    // that refuses to start, so the refusal path runs on machines whose GPU backend starts.
    using BackendMaker = std::function<std::unique_ptr<Backend>(BackendChoice, QString *why)>;
    void setBackendMakerForTesting(BackendMaker maker) { m_makeBackend = std::move(maker); }

    // The Schemes page's `views` for the state's current parameters on the chosen backend:
    // schemesReady() or schemesFailed() follows. Returns true, computing nothing, when schemes()
    // already holds them.
    bool requestSchemes(const QList<FigureView> &views);
    // The learned-table views (similarity, PCA, sinusoid fits) for the state's spec and selected
    // dim: tableReady() or tableFailed() follows. True, computing nothing, when table() holds
    // them.
    bool requestTable();
    // The layer views' forward pass for the state's phrase model and phrase A, and `ablation`'s
    // attention beside it: forwardReady() or forwardFailed() follows, with progressChanged()
    // while it runs (cancel() stops it between layers). True, computing nothing, when forward()
    // already holds it; a result for another ablation lends its arrays (only the ablation runs).
    bool requestForward(const ForwardAblation &ablation = {});
    // What an export of `views` needs for the state's current parameters (a materialised
    // encoding even where the window samples it): figureDataReady() or figureDataFailed()
    // follows. Returns true, computing nothing, when figureData(views) already holds it all.
    bool requestFigureData(const QList<FigureView> &views);
    // Stops the figure job and lets go of its results (a materialised matrix may be large): the
    // export dialog closed.
    void releaseFigureData();
    // An animation frame's numbers: what `views` need for `inputs` (a frame's parameters, not
    // the window's), reusing the members of `held` and of the results held here that match.
    // frameDataReady() or frameDataFailed() follows with the returned ticket; a newer request or
    // cancelFrameData() supersedes it (its job stops at its next check, its answer is dropped).
    quint64 requestFrameData(const pe::FigureInputs &inputs, const QList<pe::FigureView> &views,
                             const pe::FigureData &held);
    void cancelFrameData();
    // File > Check engine table: reads `request`'s file and compares it with Hugging Face's
    // numbers (core/rope/enginecheck.h) on the worker; engineCheckReady() or
    // engineCheckFailed() follows, unless a newer request has superseded it.
    void requestEngineCheck(const pe::EngineCheckRequest &request);
    // Reads a model's files on the worker (compute/modelread.h); modelReadReady() follows with
    // the returned ticket (unique across kinds), unless a newer request of the same kind or
    // cancel() supersedes it.
    quint64 requestModelRead(const pe::ModelReadRequest &request);

public slots:
    // The heatmap's viewport; a grid for it follows through gridReady().
    void requestGrid(const pe::GridRequest &request);
    // Stops every running job; the views keep their last results.
    void cancel();

signals:
    void encodingReady(std::shared_ptr<const pe::EncodingResult> result);
    void gridReady(std::shared_ptr<const pe::HeatmapGrid> grid);
    // The sampled encoding now holds the columns of the newly plotted dims.
    void columnsReady(std::shared_ptr<const pe::EncodingResult> result);
    void phrasesReady(std::shared_ptr<const pe::PhraseResult> result);
    void phraseModelReady(std::shared_ptr<const pe::PhraseModelResult> result);
    void phraseModelFailed(const QString &message);
    void schemesReady(std::shared_ptr<const pe::SchemeResult> result);
    void tableReady(std::shared_ptr<const pe::TableResult> result);
    void tableFailed(const QString &message);
    void forwardReady(std::shared_ptr<const pe::ForwardViewResult> result);
    void forwardFailed(const QString &message);
    void figureDataReady(const pe::FigureData &data);
    void encodingFailed(const QString &message);
    void phrasesFailed(const QString &message);
    void schemesFailed(const QString &message);
    void figureDataFailed(const QString &message);
    void frameDataReady(quint64 ticket, const pe::FigureData &data);
    void frameDataFailed(quint64 ticket, const QString &message);
    void engineCheckReady(std::shared_ptr<const pe::EngineCheck> check);
    void engineCheckFailed(const QString &message);
    void modelReadReady(quint64 ticket, std::shared_ptr<const pe::ModelRead> read);
    // 0..100 while a long encode runs, -1 when none does.
    void progressChanged(int percent);
    void cancelled();
    // A backend reported a notice the user should see (emitted once per distinct text).
    void backendNotice(const QString &notice);

private:
    // One kind of job. `wanted` is the generation the worker should be running: a job whose
    // generation differs has gone stale and stops at its next check.
    // Each lane registers itself in the scheduler's list where it is declared (below), so what
    // applies to every lane (cancel, idle, drop) reaches a new one with no list to keep.
    struct Lane
    {
        explicit Lane(std::vector<Lane *> *all) { all->push_back(this); }
        Lane(const Lane &) = delete;
        Lane &operator=(const Lane &) = delete;
        quint64 generation = 0; // of the newest job dispatched
        bool dirty = false;     // a request waits for dispatch
        int inFlight = 0;
        std::shared_ptr<std::atomic<quint64>> wanted = std::make_shared<std::atomic<quint64>>(0);
        // A new request: the running job is stale from now on.
        void request();
        // The generation of a job about to be dispatched.
        quint64 start();
        // Nothing pending, the running job stale; its result will be dropped.
        void drop();
        bool current(quint64 g) const { return g == generation && !dirty; }
        bool busy() const { return dirty || inFlight > 0; }
        CancelCheck staleness(quint64 g) const;
    };
    struct SchemeRequest
    {
        SchemeInputs inputs;
        QList<FigureView> views;
        BackendChoice backend = BackendChoice::Auto;
        bool operator==(const SchemeRequest &) const = default;
    };
    struct FigureRequest
    {
        FigureInputs inputs;
        QList<FigureView> views;
        bool operator==(const FigureRequest &) const = default;
    };
    struct FrameRequest
    {
        FigureInputs inputs;
        QList<FigureView> views;
        FigureData held;
    };

    void markEncodingDirty();
    void markPhrasesDirty();
    void markColumnsDirty();
    void markPhraseModelDirty();
    void dispatchPhraseModel();
    void schedule();
    void dispatch();
    // One per lane, each posting its job to the worker (dispatch() decides which are due).
    void dispatchEncode(Backend *backend);
    void dispatchGrid(Backend *backend);
    void dispatchColumns(Backend *backend);
    void dispatchPhrases(Backend *backend);
    void dispatchSchemes(Backend *backend);
    void dispatchTable();
    void dispatchForward();
    void failAll(const QString &error);
    void onEncodeFinished(quint64 generation, const std::shared_ptr<const EncodingResult> &result,
                          const QString &error);
    void onGridFinished(quint64 generation, const std::shared_ptr<const HeatmapGrid> &grid);
    void onColumnsFinished(quint64 generation,
                           const std::shared_ptr<const EncodingResult> &encoding, JobStatus status,
                           const QString &error);
    void onPhrasesFinished(quint64 generation, const std::shared_ptr<const PhraseResult> &result,
                           JobStatus status, const QString &error);
    void onPhraseModelFinished(quint64 generation,
                               const std::shared_ptr<const PhraseModelResult> &result,
                               JobStatus status, const QString &error);
    void onSchemesFinished(quint64 generation, const std::shared_ptr<const SchemeResult> &result,
                           JobStatus status, const QString &error);
    void onTableFinished(quint64 generation, const std::shared_ptr<const TableResult> &result,
                         JobStatus status, const QString &error);
    void onForwardFinished(quint64 generation,
                           const std::shared_ptr<const ForwardViewResult> &result, JobStatus status,
                           const QString &error);
    void onFigureFinished(quint64 generation, const FigureData &data, JobStatus status,
                          const QString &error);
    void onFrameFinished(quint64 generation, const FigureData &data, JobStatus status,
                         const QString &error);
    void dispatchFigureJobs(Backend *backend);
    using FigureFinished = void (ComputeScheduler::*)(quint64, const FigureData &, JobStatus,
                                                      const QString &);
    // computeFigureData for `inputs` from `held` on the worker; `finished` answers here.
    void postFigureJob(Lane &lane, const FigureInputs &inputs, const QList<FigureView> &views,
                       const FigureData &held, Backend *backend, FigureFinished finished);
    void onEngineCheckFinished(quint64 generation, const std::shared_ptr<const EngineCheck> &check,
                               const QString &error);
    void dispatchEngineCheck();
    // One lane per kind of model read; a read of one kind supersedes only that kind's.
    struct ModelReadSlot;
    ModelReadSlot &readSlot(ModelReadRequest::Kind kind);
    void dispatchModelReads();
    void onModelReadFinished(ModelReadRequest::Kind kind, quint64 generation, quint64 ticket,
                             const std::shared_ptr<const ModelRead> &read);
    bool schemesHeld(const SchemeRequest &request) const;
    FigureData heldData(const FigureInputs &inputs, const QList<FigureView> &views) const;
    // Runs `job` on the worker thread; it answers through reply().
    template <class Job> void post(Job &&job);
    // Runs `answer` on this object's (the GUI) thread.
    template <class Answer> void reply(Answer &&answer);
    void reportNotice(Backend *backend);
    // The backend for a choice, made on first use on this (the GUI) thread and kept until the
    // scheduler goes; nullptr with *error when it cannot start.
    Backend *backend(BackendChoice choice, QString *error);

    struct BackendSlot
    {
        std::unique_ptr<Backend> backend;
        QString error;
    };

    ExplorerState *m_state;
    QThread m_thread;
    QObject *m_worker = nullptr; // lives on m_thread; jobs are posted to it
    QTimer m_timer;
    static constexpr int burstMs = 15; // merges the edits that arrive while a job runs
    QString m_notice;

    std::vector<Lane *> m_lanes; // every lane below, in declaration order
    const std::vector<Lane *> &lanes() { return m_lanes; }
    std::vector<const Lane *> lanes() const { return {m_lanes.begin(), m_lanes.end()}; }
    Lane m_encode{&m_lanes}, m_grid{&m_lanes}, m_columns{&m_lanes}, m_phraseLane{&m_lanes},
        m_schemeLane{&m_lanes}, m_figureLane{&m_lanes}, m_tableLane{&m_lanes},
        m_frameLane{&m_lanes}, m_checkLane{&m_lanes}, m_phraseModelLane{&m_lanes},
        m_forwardLane{&m_lanes};
    EngineCheckRequest m_checkRequest;
    // Model reads: a lane, the waiting request and its ticket per kind.
    struct ModelReadSlot
    {
        explicit ModelReadSlot(std::vector<Lane *> *all) : lane(all) {}
        Lane lane;
        ModelReadRequest request;
        quint64 ticket = 0;
    };
    ModelReadSlot m_openRead{&m_lanes}, m_cardRead{&m_lanes}, m_specRead{&m_lanes};
    quint64 m_lastReadTicket = 0;

    GridRequest m_gridRequest;
    GridRequest m_lastGridSent;
    SchemeRequest m_schemeRequest;
    FigureRequest m_figureRequest;
    FrameRequest m_frameRequest;
    TableInputs m_tableRequest;
    std::shared_ptr<const TableResult> m_table;
    ForwardViewInputs m_forwardRequest;
    std::shared_ptr<const ForwardViewResult> m_forward;
    std::shared_ptr<const EncodingResult> m_encoding;
    std::shared_ptr<const PhraseResult> m_phrases;
    std::shared_ptr<const PhraseModelResult> m_phraseModel;
    QString m_phraseModelError;
    std::shared_ptr<const SchemeResult> m_schemes;
    BackendChoice m_schemesBackend = BackendChoice::Auto; // what computed m_schemes
    FigureData m_figureData;                              // the last figure job's
    QString m_encodingError;
    QString m_phrasesError;
    // Used by the worker thread only: recycles the encode's matrix buffers.
    std::unique_ptr<MatrixPool> m_pool;
    // Used by the worker thread only: the phrase model, opened once per model.
    std::unique_ptr<PhraseModelHolder> m_phraseModels;
    // Used by the worker thread only: the forward pass's model, opened once per model.
    std::unique_ptr<ForwardModelHolder> m_forwardModels;
    BackendMaker m_makeBackend = [](BackendChoice choice, QString *why) {
        return makeBackend(choice, why);
    };
    std::map<BackendChoice, BackendSlot> m_backends; // destroyed after the thread has stopped
};

} // namespace pe
