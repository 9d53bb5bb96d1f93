#include "media/videoencoder.h"

#include "io/atomicfile.h"
#include "media/videocodec.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLibrary>
#include <QMutex>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace pe {

namespace {

// A GIF palette is built from at most this many frames, and only while they fit in this memory.
constexpr int paletteSamples = 16;
constexpr qint64 paletteSampleBytes = qint64(256) << 20;

using CodecFactory = VideoCodec *(*)();

// Hands frames to an encoder on its own thread, at most two waiting: encode() draws the next
// frame while the last is encoded.
class FrameQueue
{
public:
    explicit FrameQueue(VideoEncoder &encoder) : m_encoder(encoder), m_worker([this] { run(); }) {}
    ~FrameQueue() { stop(); }
    FrameQueue(const FrameQueue &) = delete;
    FrameQueue &operator=(const FrameQueue &) = delete;

    // False with *error when an earlier frame failed to encode.
    bool push(QImage frame, QString *error)
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_frames.size() < 2 || m_failed; });
        if (m_failed) {
            *error = m_error;
            return false;
        }
        m_frames.push_back(std::move(frame));
        m_changed.notify_all();
        return true;
    }
    // Waits until every frame is encoded; false with *error when one failed.
    bool drain(QString *error)
    {
        stop();
        if (m_failed)
            *error = m_error;
        return !m_failed;
    }
    // Ends the worker after the frames handed over (at once after a failure).
    void stop()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_closed = true;
        }
        m_changed.notify_all();
        if (m_worker.joinable())
            m_worker.join();
    }

private:
    void run()
    {
        for (;;) {
            QImage frame;
            {
                std::unique_lock lock(m_mutex);
                m_changed.wait(lock, [this] { return !m_frames.empty() || m_closed; });
                if (m_frames.empty() || m_failed)
                    return;
                frame = std::move(m_frames.front());
                m_frames.pop_front();
            }
            m_changed.notify_all();
            QString error;
            if (!m_encoder.addFrame(frame, &error)) {
                const std::lock_guard lock(m_mutex);
                m_failed = true;
                m_error = error;
                m_frames.clear();
                m_changed.notify_all();
                return;
            }
        }
    }

    VideoEncoder &m_encoder;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<QImage> m_frames;
    bool m_closed = false;
    bool m_failed = false;
    QString m_error;
    std::thread m_worker; // last: started once the members above exist
};

// Where libpe_media.so may be, in order (see createVideoCodec).
QStringList mediaModuleCandidates()
{
    const QString name = QStringLiteral("libpe_media.so");
    QStringList paths;
    if (const QString explicitPath = qEnvironmentVariable("PE_MEDIA_MODULE");
        !explicitPath.isEmpty())
        return {explicitPath};
    const QString appDir =
        QCoreApplication::instance() ? QCoreApplication::applicationDirPath() : QString();
    if (!appDir.isEmpty()) {
        paths.append(QDir(appDir).filePath(name));
        paths.append(QDir(appDir).filePath(QStringLiteral(PE_MEDIA_INSTALL_RELATIVE "/") + name));
    }
    paths.append(QStringLiteral(PE_MEDIA_BUILD_DIR "/") + name);
    return paths;
}

} // namespace

VideoProblem videoProblem(const VideoSettings &s)
{
    using namespace videolimits;
    if (s.frames < minFrames || s.frames > maxFrames)
        return {VideoSetting::Frames, QStringLiteral("must be between %1 and %2 (got %3)")
                                          .arg(minFrames)
                                          .arg(maxFrames)
                                          .arg(s.frames)};
    if (s.fps < minFps || s.fps > maxFps)
        return {VideoSetting::Fps, QStringLiteral("must be between %1 and %2 (got %3)")
                                       .arg(minFps)
                                       .arg(maxFps)
                                       .arg(s.fps)};
    const bool even = videoNeedsEvenSides(s.format);
    for (const auto &[setting, side] :
         {std::pair{VideoSetting::Width, s.width}, std::pair{VideoSetting::Height, s.height}}) {
        if (side < minSide || side > maxSide)
            return {setting, QStringLiteral("must be between %1 and %2 pixels for an animation "
                                            "(got %3)")
                                 .arg(minSide)
                                 .arg(maxSide)
                                 .arg(side)};
        if (even && side % 2 != 0)
            return {setting, QStringLiteral("must be even for %1 (yuv420p halves the colour "
                                            "resolution; got %2)")
                                 .arg(videoFormatName(s.format).toUpper())
                                 .arg(side)};
    }
    return {};
}

std::unique_ptr<VideoCodec> createVideoCodec(QString *error)
{
    // Found once; a library QLibrary loaded stays loaded for the process (never unloaded: the
    // module's AtomicFile has a signal handler installed). A failure is not remembered, so a
    // module installed later is found by the next animation.
    static QMutex mutex;
    static CodecFactory factory = nullptr;
    const QMutexLocker lock(&mutex);
    if (!factory) {
        QStringList tried;
        for (const QString &path : mediaModuleCandidates()) {
            if (!QFileInfo::exists(path)) {
                tried.append(path);
                continue;
            }
            QLibrary library(path);
            const auto abi = reinterpret_cast<int (*)()>(library.resolve(videoCodecAbiName));
            if (!abi) {
                tried.append(path + QStringLiteral(" (") + library.errorString() +
                             QLatin1Char(')'));
                continue;
            }
            if (abi() != videoCodecAbi) {
                tried.append(path + QStringLiteral(" (interface %1, this pescope needs %2)")
                                        .arg(abi())
                                        .arg(videoCodecAbi));
                continue;
            }
            factory = reinterpret_cast<CodecFactory>(library.resolve(videoCodecFactoryName));
            if (factory)
                break;
            tried.append(path + QStringLiteral(" (") + library.errorString() + QLatin1Char(')'));
        }
        if (!factory) {
            *error = QStringLiteral("animations need pescope's media module (libpe_media.so, "
                                    "FFmpeg), which was not found or could not be loaded: %1")
                         .arg(tried.join(QStringLiteral("; ")));
            return nullptr;
        }
    }
    return std::unique_ptr<VideoCodec>(factory());
}

struct VideoEncoder::Private
{
    std::unique_ptr<VideoCodec> codec;
};

QString VideoEncoder::check(const QString &path, const VideoSettings &settings)
{
    if (const VideoProblem problem = videoProblem(settings))
        return QStringLiteral("cannot write %1: %2 %3")
            .arg(path,
                 problem.setting == VideoSetting::Frames  ? QStringLiteral("the frame count")
                 : problem.setting == VideoSetting::Fps   ? QStringLiteral("the frame rate")
                 : problem.setting == VideoSetting::Width ? QStringLiteral("the width")
                                                          : QStringLiteral("the height"),
                 problem.message);
    if (AtomicFile::writesInPlace(path))
        return QStringLiteral("cannot write %1: an animation is written to a file, not to a "
                              "device or pipe (the muxer goes back to fill in sizes, and a "
                              "failed animation must leave nothing behind)")
            .arg(path);
    return outputPathProblem(path);
}

VideoEncoder::VideoEncoder() : d(std::make_unique<Private>()) {}

VideoEncoder::~VideoEncoder()
{
    cancel();
}

int VideoEncoder::framesWritten() const
{
    return d->codec ? d->codec->framesWritten() : 0;
}

void VideoEncoder::cancel()
{
    if (d->codec)
        d->codec->cancel();
}

bool VideoEncoder::open(const QString &path, const VideoSettings &settings,
                        const QList<QImage> &palette, QString *error)
{
    cancel();
    d->codec.reset(); // framesWritten() is 0 until this animation writes
    if (const QString problem = check(path, settings); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (videoPixels(settings.format) == VideoPixels::Palette && palette.isEmpty()) {
        *error = QStringLiteral("cannot write %1: a %2 needs frames to build its palette from")
                     .arg(path, QLatin1String(outputFormat(settings.format).label));
        return false;
    }
    d->codec = createVideoCodec(error);
    if (!d->codec) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, *error);
        return false;
    }
    return d->codec->open(path, settings, palette, error);
}

bool VideoEncoder::addFrame(const QImage &frame, QString *error)
{
    if (!d->codec) {
        *error = QStringLiteral("the animation is not open");
        return false;
    }
    return d->codec->addFrame(frame, error);
}

bool VideoEncoder::finish(QString *error)
{
    if (!d->codec) {
        *error = QStringLiteral("the animation is not open");
        return false;
    }
    return d->codec->finish(error);
}

QList<int> VideoEncoder::paletteFrames(const VideoSettings &settings)
{
    QList<int> indices;
    if (videoPixels(settings.format) != VideoPixels::Palette || settings.frames < 1)
        return indices;
    const qint64 frameBytes = qint64(settings.width) * settings.height * 4;
    const int count = int(std::clamp<qint64>(paletteSampleBytes / std::max<qint64>(1, frameBytes),
                                             std::min(2, settings.frames),
                                             std::min(paletteSamples, settings.frames)));
    for (int k = 0; k < count; ++k) {
        const int index = count > 1 ? int(qint64(k) * (settings.frames - 1) / (count - 1)) : 0;
        if (indices.isEmpty() || indices.last() != index)
            indices.append(index);
    }
    return indices;
}

QString VideoEncoder::moduleProblem()
{
    QString error;
    return createVideoCodec(&error) ? QString() : error;
}

VideoEncoder::Status VideoEncoder::encode(const QString &path, const VideoSettings &settings,
                                          const FrameSource &source, const Progress &progress,
                                          QString *error)
{
    if (const QString problem = check(path, settings); !problem.isEmpty()) {
        *error = problem;
        return Status::Failed;
    }
    // The media module first: without it, nothing is rendered for nothing.
    if (const QString problem = moduleProblem(); !problem.isEmpty()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, problem);
        return Status::Failed;
    }
    // GIF: the palette's frames, kept for the encoding pass.
    const QList<int> sampleIndex = paletteFrames(settings);
    QList<QImage> samples;
    for (int index : sampleIndex) {
        if (progress && !progress(0, settings.frames))
            return Status::Cancelled;
        QImage image = source(index, error);
        if (image.isNull())
            return Status::Failed;
        samples.append(image);
    }
    VideoEncoder encoder;
    if (!encoder.open(path, settings, samples, error))
        return Status::Failed;
    // Frame k+1 is drawn (on this thread: the source may draw widgets) while frame k is encoded
    // on a worker; the encoder gets the same frames in the same order, so the same file.
    FrameQueue queue(encoder);
    for (int i = 0; i < settings.frames; ++i) {
        QImage image;
        if (const qsizetype cached = sampleIndex.indexOf(i); cached >= 0) {
            image = samples[cached];
            samples[cached] = QImage(); // frees it once encoded
        } else {
            image = source(i, error);
        }
        if (image.isNull() || !queue.push(std::move(image), error)) {
            queue.stop();
            encoder.cancel();
            return Status::Failed;
        }
        if (progress && !progress(i + 1, settings.frames)) {
            queue.stop();
            encoder.cancel();
            return Status::Cancelled;
        }
    }
    if (!queue.drain(error)) {
        encoder.cancel();
        return Status::Failed;
    }
    return encoder.finish(error) ? Status::Done : Status::Failed;
}

} // namespace pe
