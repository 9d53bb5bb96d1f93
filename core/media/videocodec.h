// VideoCodec: what VideoEncoder asks of the media module (core/media/ffmpegcodec.cpp, built as
// libpe_media.so with FFmpeg), loaded with QLibrary the first time an animation is written so
// that no other command pays for loading FFmpeg's libraries. VideoEncoder checks the path and
// the settings before it opens a codec.
#pragma once

#include "media/videoencoder.h"

#include <QImage>
#include <QList>
#include <QString>

#include <memory>

namespace pe {

class VideoCodec
{
public:
    virtual ~VideoCodec() = default;
    // Starts the file at `path` (checked) for `settings`; a GIF's palette from `palette`.
    virtual bool open(const QString &path, const VideoSettings &settings,
                      const QList<QImage> &palette, QString *error) = 0;
    virtual bool addFrame(const QImage &frame, QString *error) = 0;
    // Flushes, writes the trailer and commits the file; nothing is left at the path otherwise.
    virtual bool finish(QString *error) = 0;
    // Discards everything written so far.
    virtual void cancel() = 0;
    virtual int framesWritten() const = 0;
};

// The module's entry points: extern "C" VideoCodec *pe_create_video_codec(), and
// extern "C" int pe_video_codec_abi() returning videoCodecAbi. A module of another version of
// this interface (another build's) is refused rather than called.
inline constexpr char videoCodecFactoryName[] = "pe_create_video_codec";
inline constexpr char videoCodecAbiName[] = "pe_video_codec_abi";
// Bump when VideoCodec or VideoSettings change.
inline constexpr int videoCodecAbi = 1;

// A codec from the media module, loaded once per process: $PE_MEDIA_MODULE when set, else
// libpe_media.so beside the executable (the build tree), in ../lib/pescope (an install), or in
// the build tree this was built in (test executables). Null with *error naming where it looked.
std::unique_ptr<VideoCodec> createVideoCodec(QString *error);

} // namespace pe
