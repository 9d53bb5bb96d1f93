// VideoEncoder: writes animations (GIF with a palette built from the frames, MP4 as H.264 in
// yuv420p, WebM as VP9) in-process through FFmpeg's libraries, into an AtomicFile: the file
// appears only when every frame is written, never after a failure or cancel.
#pragma once

#include "outputformats.h" // VideoFormat

#include <QImage>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace pe {

// YUV 4:2:0 formats (MP4, WebM) have colour planes half the size: their sides must be even.
inline bool videoNeedsEvenSides(VideoFormat format)
{
    return videoPixels(format) == VideoPixels::Yuv420;
}

// What an animation may ask for, checked by videoProblem() before any work.
namespace videolimits {
constexpr int minFrames = 2;
constexpr int maxFrames = 3600;
constexpr int minFps = 1;
constexpr int maxFps = 60;
constexpr int minSide = 16;
// 4096 keeps every format inside what common players decode (H.264 level 5.2, VP9 level 5).
constexpr int maxSide = 4096;
} // namespace videolimits

struct VideoSettings
{
    VideoFormat format = VideoFormat::Mp4;
    int width = 1280;
    int height = 720;
    int frames = 120;
    int fps = 30;
};

// Which setting is wrong, for messages that name the caller's option for it.
enum class VideoSetting { Frames, Fps, Width, Height };
struct VideoProblem
{
    VideoSetting setting = VideoSetting::Frames;
    QString message; // a fragment: "must be between 2 and 3600 (got 1)"
    explicit operator bool() const { return !message.isEmpty(); }
};
// Frames 2..3600, fps 1..60, sides 16..4096 and even for MP4 and WebM (yuv420p halves the
// colour resolution in both directions).
VideoProblem videoProblem(const VideoSettings &settings);

class VideoEncoder
{
public:
    // Frame `index` (0-based) as an image of the settings' size; a null image with *error
    // stops the encoding with that error.
    using FrameSource = std::function<QImage(int index, QString *error)>;
    // Called after each frame is encoded (and while a GIF's palette is sampled); false cancels.
    using Progress = std::function<bool(int done, int total)>;
    enum class Status { Done, Failed, Cancelled };

    // Empty when `path` and `settings` can make an animation: the settings in their limits,
    // a file (not a device or pipe: the MP4 and WebM muxers go back to fill in sizes) in a
    // writable folder; else one sentence naming the file and the problem.
    static QString check(const QString &path, const VideoSettings &settings);

    VideoEncoder();
    ~VideoEncoder(); // cancels unless finished
    VideoEncoder(const VideoEncoder &) = delete;
    VideoEncoder &operator=(const VideoEncoder &) = delete;

    // Checks the settings and the path (check()) and starts the file. `palette` is what a GIF's
    // palette is built from (some of its frames; ignored for the other formats).
    bool open(const QString &path, const VideoSettings &settings, const QList<QImage> &palette,
              QString *error);
    // One frame of the settings' size (any QImage format; converted as needed).
    bool addFrame(const QImage &frame, QString *error);
    // Flushes the codec, writes the trailer and commits the file; false with *error otherwise
    // (nothing is left at the path).
    bool finish(QString *error);
    // Discards everything; nothing new is left at the path.
    void cancel();
    int framesWritten() const;

    // The frames (indices, ascending) a GIF's palette is built from: up to 16 spread over the
    // animation, as many as fit in 256 MiB; none for MP4 and WebM. Kept once drawn, so the
    // encoding pass does not draw them again.
    static QList<int> paletteFrames(const VideoSettings &settings);
    // Empty when the media module (FFmpeg) loads; else why not, naming where it looked. Asked
    // before any frame is drawn.
    static QString moduleProblem();

    // The whole job: frames from `source`, the GIF palette's frames (paletteFrames()) first,
    // progress after each frame.
    static Status encode(const QString &path, const VideoSettings &settings,
                         const FrameSource &source, const Progress &progress, QString *error);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace pe
