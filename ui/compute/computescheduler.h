// ComputeScheduler: turns ExplorerState changes into jobs on a worker thread. Bursts of edits
// are merged by a single-shot QTimer, every job carries a generation number and stale results
// are dropped (a superseded encode stops at its next chunk), failures arrive as signals.
#pragma once

#include "compute/computejobs.h"
#include "state/explorerstate.h"

#include <QObject>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <map>
#include <memory>

namespace pe {

class ComputeWorker;

class ComputeScheduler : public QObject
{
    Q_OBJECT
public:
    explicit ComputeScheduler(ExplorerState *state, QObject *parent = nullptr);
    ~ComputeScheduler() override;

    // Edits arriving while a job runs are merged for this long before the next dispatch; the
    // first edit after a quiet spell is dispatched at once (a zero-length timer).
    void setBurstInterval(int milliseconds) { m_burstMs = milliseconds; }

    std::shared_ptr<const EncodingResult> encoding() const { return m_encoding; }
    std::shared_ptr<const PhraseResult> phrases() const { return m_phrases; }
    // True when nothing is pending or running: every view has the latest result or error.
    bool isIdle() const;
    QString encodingError() const { return m_encodingError; }
    QString phrasesError() const { return m_phrasesError; }
    // The latest non-empty Backend::notice() (e.g. the GPU failed and the CPU took over).
    QString latestNotice() const { return m_notice; }
    // Tests: use `backend` for `choice` instead of makeBackend().
    void setBackendForTesting(BackendChoice choice, std::unique_ptr<Backend> backend);

public slots:
    // The heatmap's viewport; a grid for it follows through gridReady().
    void requestGrid(const pe::GridRequest &request);
    // Stops the running jobs; the views keep their last results.
    void cancel();

signals:
    void encodingReady(std::shared_ptr<const pe::EncodingResult> result);
    void gridReady(std::shared_ptr<const pe::HeatmapGrid> grid);
    void phrasesReady(std::shared_ptr<const pe::PhraseResult> result);
    void encodingFailed(const QString &message);
    void phrasesFailed(const QString &message);
    // 0..100 while a long encode runs, -1 when none does.
    void progressChanged(int percent);
    void busyChanged(bool busy);
    void cancelled();
    void idle();
    // A backend reported a notice the user should see (emitted once per distinct text).
    void backendNotice(const QString &notice);

private:
    void markEncodingDirty();
    void markPhrasesDirty();
    void schedule();
    void dispatch();
    void onEncodeFinished(quint64 generation, std::shared_ptr<const pe::EncodingResult> result,
                          const QString &error);
    void onGridFinished(quint64 generation, std::shared_ptr<const pe::HeatmapGrid> grid);
    void onPhrasesFinished(quint64 generation, std::shared_ptr<const pe::PhraseResult> result,
                           const QString &error);
    void onProgress(quint64 generation, int percent);
    void updateBusy();
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
    ComputeWorker *m_worker = nullptr;
    QTimer m_timer;
    int m_burstMs = 15;

    // The worker reads these to notice that its job went stale.
    std::shared_ptr<std::atomic<quint64>> m_wantedEncode;
    std::shared_ptr<std::atomic<quint64>> m_wantedGrid;
    QString m_notice;

    quint64 m_encodeGeneration = 0;
    quint64 m_gridGeneration = 0;
    quint64 m_phraseGeneration = 0;
    bool m_encodeDirty = true;
    bool m_gridDirty = false;
    bool m_phrasesDirty = true;
    int m_encodeInFlight = 0;
    int m_gridInFlight = 0;
    int m_phrasesInFlight = 0;
    bool m_busy = false;

    GridRequest m_gridRequest;
    GridRequest m_lastGridSent;
    std::shared_ptr<const EncodingResult> m_encoding;
    std::shared_ptr<const PhraseResult> m_phrases;
    QString m_encodingError;
    QString m_phrasesError;
    std::map<BackendChoice, BackendSlot> m_backends; // destroyed after the thread has stopped
};

} // namespace pe
