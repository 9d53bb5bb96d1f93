// FrameWriter: encodes an animation on a thread of its own, so that the GUI thread only draws
// frames. The VideoEncoder lives on that thread; frames are handed over as they are drawn and
// reported back through signals once written. Destroying the writer cancels what it has not
// finished (nothing is left at the path) and waits for the frame being encoded.
#pragma once

#include "media/videoencoder.h"

#include <QImage>
#include <QList>
#include <QObject>
#include <QThread>

#include <atomic>
#include <memory>

namespace pe {

class FrameWriter : public QObject
{
    Q_OBJECT
public:
    explicit FrameWriter(QObject *parent = nullptr);
    ~FrameWriter() override;
    FrameWriter(const FrameWriter &) = delete;
    FrameWriter &operator=(const FrameWriter &) = delete;

    // Starts the file (VideoEncoder::open); a failure arrives as finished(Failed, error).
    void open(const QString &path, const VideoSettings &settings, const QList<QImage> &palette);
    void addFrame(const QImage &frame);
    // Commits the file once every frame handed over is written: finished(Done) or (Failed).
    void finish();
    // Discards the file; finished(Cancelled) follows once nothing is left at the path.
    void cancel();
    // Frames handed over and not yet written: the drawing side waits while this is large.
    int pending() const { return m_handed - m_written; }
    bool isFinished() const { return m_finished; }

signals:
    void frameWritten(int written);
    // Once: after finish(), cancel() or the first failure.
    void finished(pe::VideoEncoder::Status status, const QString &error);

private:
    // Runs `work` on the writer's thread unless the writer has finished.
    template <class Work> void post(Work &&work);
    void report(VideoEncoder::Status status, const QString &error);

    QThread m_thread;
    QObject *m_worker = nullptr;                // lives on m_thread
    std::unique_ptr<VideoEncoder> m_encoder;    // used on m_thread only
    std::shared_ptr<std::atomic<bool>> m_stop = // set by cancel(): the thread skips what is left
        std::make_shared<std::atomic<bool>>(false);
    int m_handed = 0;
    int m_written = 0;
    bool m_finished = false;
};

} // namespace pe
