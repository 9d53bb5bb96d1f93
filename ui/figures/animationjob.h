// AnimationJob: the window's animated export (File > Export figure as GIF, MP4 or WebM). Each
// frame's numbers are computed by the ComputeScheduler; frames are drawn on the GUI thread (the
// figures are QCustomPlot widgets, and Qt creates and uses widgets on that thread only), as many
// per turn of the event loop as the writer has room for and a slice of about 40 ms allows, so
// the window stays live, and encoded by a FrameWriter on its own thread. The frames, their order
// and a GIF's palette are those of `pescope export --animate` (AnimationExporter,
// VideoEncoder::paletteFrames), so the file is the same. Cancel, or destroying the job, stops it
// and leaves no file.
#pragma once

#include "figures/animationexporter.h"
#include "media/videoencoder.h"
#include "state/explorerstate.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <memory>

namespace pe {

class ComputeScheduler;
class FrameWriter;

class AnimationJob : public QObject
{
    Q_OBJECT
public:
    // Works on a copy of `state`'s saved values (not a Motion bar preview's frame): the window's
    // views do not move while it runs.
    AnimationJob(const ExplorerState &state, const FigureOptions &figure,
                 const FigureAnimation &animation, ComputeScheduler *scheduler,
                 QObject *parent = nullptr);
    ~AnimationJob() override;

    // Starts writing `path` at `fps`; false with *error, nothing started, when the name, the
    // settings or the folder are refused or the media module is missing.
    bool start(const QString &path, int fps, QString *error);
    // Stops drawing at once; finished(Cancelled) follows when nothing is left at the path.
    void cancel();
    bool isRunning() const { return m_running; }
    int frames() const { return m_exporter.animation().frames(); }

signals:
    // Frames written so far of `total`; `palette` while a GIF's palette frames are drawn.
    void progress(int written, int total, bool palette);
    // Once per start(): Done (the file is complete), Failed with the reason, or Cancelled.
    void finished(pe::VideoEncoder::Status status, const QString &error);

private:
    void step();
    bool advance();
    void schedule();
    void onFrameData(quint64 ticket, const FigureData &data);
    void onFrameFailed(quint64 ticket, const QString &error);
    void drawn(const QImage &image);
    void fail(const QString &error);
    void end(VideoEncoder::Status status, const QString &error);

    AnimationExporter m_exporter;
    QPointer<ComputeScheduler> m_scheduler;
    std::unique_ptr<FrameWriter> m_writer;
    QTimer m_turn; // the next batch of frames, on the next turn of the event loop
    QString m_path;
    VideoSettings m_settings;
    QList<int> m_paletteFrames; // a GIF's: drawn first, kept for the encoding pass
    QList<QImage> m_palette;
    int m_next = 0;         // the next frame to hand to the writer
    int m_pendingLimit = 2; // frames handed to the writer and not yet written, at most
    quint64 m_ticket = 0;   // the scheduler's answer awaited, 0 when none
    QString m_failure;      // why a failed job stopped (reported once the file is gone)
    bool m_running = false;
    bool m_finishing = false; // every frame handed over; the writer commits the file
    bool m_cancelling = false;
};

} // namespace pe
