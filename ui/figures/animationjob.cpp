#include "figures/animationjob.h"

#include "compute/computescheduler.h"
#include "compute/framewriter.h"

#include <QElapsedTimer>

#include <algorithm>

namespace pe {

namespace {

// Frames drawn ahead of the writer: at least 2, so that drawing and encoding overlap; up to 8
// while they fit in 64 MiB, so that a turn draws a batch and the writer's jitter is absorbed. A
// 4096 x 4096 frame is 64 MiB: such an animation keeps 2.
constexpr qint64 pendingBytes = qint64(64) << 20;
constexpr int minPending = 2;
constexpr int maxPending = 8;

int pendingLimit(const VideoSettings &settings)
{
    const qint64 frameBytes = qint64(settings.width) * settings.height * 4;
    return int(
        std::clamp<qint64>(pendingBytes / std::max<qint64>(frameBytes, 1), minPending, maxPending));
}

// How long one turn of the event loop draws frames before the window's events are handled: short
// enough that Cancel, repaints and the progress bar stay live, long enough that the turns between
// batches cost nothing next to the frames.
constexpr qint64 sliceMs = 40;

} // namespace

AnimationJob::AnimationJob(const ExplorerState &state, const FigureOptions &figure,
                           const FigureAnimation &animation, ComputeScheduler *scheduler,
                           QObject *parent)
    : QObject(parent), m_exporter(FigureState(state.savedValues()), figure, animation),
      m_scheduler(scheduler)
{
    m_turn.setSingleShot(true);
    m_turn.setInterval(0);
    connect(&m_turn, &QTimer::timeout, this, &AnimationJob::step);
    if (m_scheduler) {
        connect(m_scheduler, &ComputeScheduler::frameDataReady, this, &AnimationJob::onFrameData);
        connect(m_scheduler, &ComputeScheduler::frameDataFailed, this,
                &AnimationJob::onFrameFailed);
    }
}

AnimationJob::~AnimationJob()
{
    if (m_scheduler && m_ticket != 0)
        m_scheduler->cancelFrameData();
    m_writer.reset(); // waits for the frame being encoded; an unfinished file is discarded
}

bool AnimationJob::start(const QString &path, int fps, QString *error)
{
    if (m_running) {
        *error = tr("an export is already running");
        return false;
    }
    if (!m_scheduler) {
        *error = tr("nothing computes the frames (no compute scheduler)");
        return false;
    }
    const std::optional<VideoSettings> settings = m_exporter.videoSettings(path, fps, error);
    if (!settings)
        return false;
    if (const QString problem = VideoEncoder::check(path, *settings); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    // The media module first: without it, nothing is drawn for nothing.
    if (const QString problem = VideoEncoder::moduleProblem(); !problem.isEmpty()) {
        *error = tr("cannot write %1: %2").arg(path, problem);
        return false;
    }
    m_path = path;
    m_settings = *settings;
    m_paletteFrames = VideoEncoder::paletteFrames(m_settings);
    m_palette.clear();
    m_pendingLimit = pendingLimit(m_settings);
    m_next = 0;
    m_ticket = 0;
    m_failure.clear();
    m_finishing = false;
    m_cancelling = false;
    m_running = true;
    m_writer = std::make_unique<FrameWriter>();
    connect(m_writer.get(), &FrameWriter::frameWritten, this, [this](int written) {
        emit progress(written, m_settings.frames, false);
        schedule();
    });
    connect(m_writer.get(), &FrameWriter::finished, this, &AnimationJob::end);
    if (m_paletteFrames.isEmpty())
        m_writer->open(m_path, m_settings, {});
    emit progress(0, m_paletteFrames.isEmpty() ? m_settings.frames : int(m_paletteFrames.size()),
                  !m_paletteFrames.isEmpty());
    schedule();
    return true;
}

void AnimationJob::schedule()
{
    if (m_running && !m_cancelling)
        m_turn.start();
}

// Draws frames for one time slice, then leaves the rest to a later turn of the event loop;
// stops early when it has to wait for the scheduler's numbers or for the writer.
void AnimationJob::step()
{
    QElapsedTimer slice;
    slice.start();
    while (advance()) {
        if (slice.elapsed() >= sliceMs) {
            schedule();
            return;
        }
    }
}

// Draws the next frame when its numbers are here and the writer has room, and returns true; else
// asks the scheduler for the numbers, or waits for the writer, or finishes, and returns false (a
// signal calls step() again).
bool AnimationJob::advance()
{
    if (!m_running || m_cancelling || m_finishing || m_ticket != 0)
        return false;
    const bool palette = m_palette.size() < m_paletteFrames.size();
    if (!palette && m_writer->pending() >= m_pendingLimit)
        return false; // frameWritten() comes back here
    if (!palette && m_next == m_settings.frames) {
        m_finishing = true;
        m_writer->finish();
        return false;
    }
    const int frame = palette ? m_paletteFrames[m_palette.size()] : m_next;
    if (!palette) {
        if (const qsizetype kept = m_paletteFrames.indexOf(frame); kept >= 0) {
            drawn(m_palette[kept]);
            m_palette[kept] = QImage(); // freed once encoded
            return true;
        }
    }
    QString error;
    if (!m_exporter.apply(frame, &error)) {
        fail(error);
        return false;
    }
    if (!m_exporter.hasData()) {
        m_ticket = m_scheduler->requestFrameData(m_exporter.inputs(), m_exporter.figure().views,
                                                 m_exporter.data());
        return false; // onFrameData() comes back here
    }
    const QImage image = m_exporter.render(&error);
    if (image.isNull()) {
        fail(error);
        return false;
    }
    drawn(image);
    return true;
}

void AnimationJob::drawn(const QImage &image)
{
    if (m_palette.size() < m_paletteFrames.size()) {
        m_palette.append(image);
        emit progress(int(m_palette.size()), int(m_paletteFrames.size()), true);
        if (m_palette.size() == m_paletteFrames.size())
            m_writer->open(m_path, m_settings, m_palette);
    } else {
        m_writer->addFrame(image);
        ++m_next;
    }
}

void AnimationJob::onFrameData(quint64 ticket, const FigureData &data)
{
    if (ticket != m_ticket)
        return;
    m_ticket = 0;
    m_exporter.setData(data);
    schedule();
}

void AnimationJob::onFrameFailed(quint64 ticket, const QString &error)
{
    if (ticket != m_ticket)
        return;
    m_ticket = 0;
    fail(error);
}

void AnimationJob::cancel()
{
    if (!m_running || m_cancelling)
        return;
    m_cancelling = true;
    m_turn.stop();
    if (m_ticket != 0 && m_scheduler)
        m_scheduler->cancelFrameData();
    m_ticket = 0;
    m_writer->cancel(); // finished(Cancelled) once the file is gone
}

void AnimationJob::fail(const QString &error)
{
    m_failure = error;
    cancel();
}

void AnimationJob::end(VideoEncoder::Status status, const QString &error)
{
    if (!m_running)
        return;
    m_running = false;
    m_turn.stop();
    m_palette.clear();
    if (status == VideoEncoder::Status::Cancelled && !m_failure.isEmpty())
        emit finished(VideoEncoder::Status::Failed, m_failure);
    else
        emit finished(status, error);
}

} // namespace pe
