#include "figures/animationjob.h"

#include "compute/computescheduler.h"
#include "compute/framewriter.h"

namespace pe {

namespace {

// Frames drawn ahead of the writer: enough to keep both threads busy, few enough that a 4096 x
// 4096 animation does not pile up in memory.
constexpr int maxPending = 2;

// Every parameter the figure shows, as a saved session holds it (the values a Motion bar
// preview hides, not its frame).
FigureState savedValues(const ExplorerState &state)
{
    ExplorerValues values = ExplorerValues::defaults();
    values.applyJson(state.toJson());
    return FigureState(std::move(values));
}

} // namespace

AnimationJob::AnimationJob(const ExplorerState &state, const FigureOptions &figure,
                           const FigureAnimation &animation, ComputeScheduler *scheduler,
                           QObject *parent)
    : QObject(parent), m_exporter(savedValues(state), figure, animation), m_scheduler(scheduler)
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

// Draws the next frame when its numbers are here and the writer keeps up; else asks the
// scheduler for them, or waits for the writer.
void AnimationJob::step()
{
    if (!m_running || m_cancelling || m_finishing || m_ticket != 0)
        return;
    const bool palette = m_palette.size() < m_paletteFrames.size();
    if (!palette && m_writer->pending() >= maxPending)
        return; // frameWritten() comes back here
    if (!palette && m_next == m_settings.frames) {
        m_finishing = true;
        m_writer->finish();
        return;
    }
    const int frame = palette ? m_paletteFrames[m_palette.size()] : m_next;
    if (!palette) {
        if (const qsizetype kept = m_paletteFrames.indexOf(frame); kept >= 0) {
            drawn(m_palette[kept]);
            m_palette[kept] = QImage(); // freed once encoded
            return;
        }
    }
    QString error;
    if (!m_exporter.apply(frame, &error))
        return fail(error);
    if (!m_exporter.hasData()) {
        m_ticket = m_scheduler->requestFrameData(m_exporter.inputs(), m_exporter.figure().views,
                                                 m_exporter.data());
        return; // onFrameData() comes back here
    }
    const QImage image = m_exporter.render(&error);
    if (image.isNull())
        return fail(error);
    drawn(image);
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
    schedule();
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
