// The FFmpeg side of VideoEncoder, built as the media module (libpe_media.so) that pescope
// loads the first time it writes an animation: FFmpeg's libraries and the ~140 shared
// libraries they pull in (codecs, X11, VA-API, ...) then cost nothing to every other command,
// whose start-up they dominated (issue 12 item 8). VideoEncoder checks the path and settings
// before it asks for a codec; this file only encodes.
#include "media/videocodec.h"

#include "io/atomicfile.h"

#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

namespace pe {

namespace {

// FFmpeg 7 made the write callback's buffer const.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using WriteBuffer = const uint8_t *;
#else
using WriteBuffer = uint8_t *;
#endif

QString avErrorText(int code)
{
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return QString::fromUtf8(text);
}

// QImage's RGB32 is 0xffRRGGBB in native byte order: FFmpeg's RGB32 names the same layout.
constexpr AVPixelFormat imageFormat = AV_PIX_FMT_RGB32;

} // namespace

class FfmpegCodec final : public VideoCodec
{
public:
    VideoSettings settings;
    const OutputFormat *row = nullptr; // settings.format's: muxer, encoder, pixels, options
    std::unique_ptr<AtomicFile> file;
    QString ioError; // the file's own message when a write or seek failed
    qint64 position = 0, size = 0;

    AVIOContext *io = nullptr;
    AVFormatContext *format = nullptr;
    AVCodecContext *codec = nullptr;
    AVStream *stream = nullptr;
    SwsContext *sws = nullptr;
    AVFrame *frame = nullptr;
    AVPacket *packet = nullptr;
    AVFilterGraph *graph = nullptr; // GIF: paletteuse
    AVFilterContext *source = nullptr, *paletteSource = nullptr, *sink = nullptr;
    int frames = 0;
    bool isOpen = false;
    bool headerWritten = false; // and no trailer yet

    ~FfmpegCodec() override { release(); }

    void release()
    {
        if (sws)
            sws_freeContext(sws);
        sws = nullptr;
        av_frame_free(&frame);
        av_packet_free(&packet);
        avfilter_graph_free(&graph);
        source = paletteSource = sink = nullptr;
        avcodec_free_context(&codec);
        if (format && headerWritten && qstrcmp(row->muxer, "gif") == 0) {
            // FFmpeg 5.1's GIF muxer frees the packet it holds back only in its trailer (it has
            // no deinit), so an abandoned GIF leaked it (LeakSanitizer, tst_videoencoder's
            // cancel and disk-full cases). The trailer goes to the file being discarded.
            av_write_trailer(format);
        }
        headerWritten = false;
        if (format)
            avformat_free_context(format);
        format = nullptr;
        stream = nullptr;
        if (io) {
            av_freep(&io->buffer);
            avio_context_free(&io);
        }
        isOpen = false;
    }

    // The first failure is the cause; a muxer that goes on writing after it only meets a
    // closed file.
    int ioFailed(const QString &error)
    {
        if (ioError.isEmpty())
            ioError = error;
        return AVERROR(EIO);
    }

    static int writePacket(void *opaque, WriteBuffer buffer, int size)
    {
        auto *d = static_cast<FfmpegCodec *>(opaque);
        QString error;
        if (!d->file->write(reinterpret_cast<const char *>(buffer), size, &error))
            return d->ioFailed(error);
        d->position += size;
        d->size = std::max(d->size, d->position);
        return size;
    }

    static int64_t seek(void *opaque, int64_t offset, int whence)
    {
        auto *d = static_cast<FfmpegCodec *>(opaque);
        if (whence & AVSEEK_SIZE)
            return d->size;
        whence &= ~AVSEEK_FORCE;
        qint64 target = offset;
        if (whence == SEEK_CUR)
            target = d->position + offset;
        else if (whence == SEEK_END)
            target = d->size + offset;
        else if (whence != SEEK_SET)
            return AVERROR(EINVAL);
        QString error;
        if (!d->file->seek(target, &error))
            return d->ioFailed(error);
        d->position = target;
        return target;
    }

    bool fail(const QString &what, int code, QString *error)
    {
        // A failed write says why in the file's words; the codec's errors come from FFmpeg.
        *error = !ioError.isEmpty()
                     ? ioError
                     : QStringLiteral("cannot write %1: %2 (%3)")
                           .arg(file ? file->path() : QString(), what, avErrorText(code));
        cancel();
        return false;
    }

    void cancel() override
    {
        release();
        if (file)
            file->cancel();
    }

    bool writePackets(QString *error)
    {
        for (;;) {
            const int rc = avcodec_receive_packet(codec, packet);
            if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
                return true;
            if (rc < 0)
                return fail(QStringLiteral("the encoder failed"), rc, error);
            av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
            packet->stream_index = stream->index;
            const int w = av_interleaved_write_frame(format, packet);
            if (w < 0)
                return fail(QStringLiteral("the muxer failed"), w, error);
        }
    }

    bool encode(AVFrame *f, QString *error)
    {
        const int rc = avcodec_send_frame(codec, f);
        if (rc < 0 && rc != AVERROR_EOF)
            return fail(QStringLiteral("the encoder refused a frame"), rc, error);
        return writePackets(error);
    }

    // Frames the palette filter has ready, into the GIF encoder.
    bool drainFilter(QString *error)
    {
        for (;;) {
            AVFrame *out = av_frame_alloc();
            const int rc = av_buffersink_get_frame(sink, out);
            if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) {
                av_frame_free(&out);
                return true;
            }
            if (rc < 0) {
                av_frame_free(&out);
                return fail(QStringLiteral("the palette filter failed"), rc, error);
            }
            const bool ok = encode(out, error);
            av_frame_free(&out);
            if (!ok)
                return false;
        }
    }

    // A new frame of image's pixels in FFmpeg's RGB32, owned by the caller.
    static AVFrame *frameOf(const QImage &image, int64_t pts)
    {
        AVFrame *f = av_frame_alloc();
        if (!f)
            return nullptr;
        f->format = imageFormat;
        f->width = image.width();
        f->height = image.height();
        f->pts = pts;
        f->sample_aspect_ratio = {1, 1};
        if (av_frame_get_buffer(f, 0) < 0) {
            av_frame_free(&f);
            return nullptr;
        }
        av_image_copy_plane(f->data[0], f->linesize[0], image.constBits(),
                            int(image.bytesPerLine()), image.width() * 4, image.height());
        return f;
    }

    bool makeFilter(AVFilterContext **ctx, const char *filter, const char *name,
                    const QString &args, QString *error)
    {
        const int rc = avfilter_graph_create_filter(ctx, avfilter_get_by_name(filter), name,
                                                    args.isEmpty() ? nullptr : qPrintable(args),
                                                    nullptr, graph);
        if (rc < 0)
            return fail(
                QStringLiteral("cannot set up FFmpeg's %1 filter").arg(QLatin1String(filter)), rc,
                error);
        return true;
    }

    QString bufferArgs(int width, int height) const
    {
        return QStringLiteral("video_size=%1x%2:pix_fmt=%3:time_base=1/%4:pixel_aspect=1/1")
            .arg(width)
            .arg(height)
            .arg(int(imageFormat))
            .arg(settings.fps);
    }

    // libavfilter's palettegen over the sample frames: 256 colours chosen for what the
    // animation shows (a colormap's ramp, the curves' colours), so no banding.
    AVFrame *buildPalette(const QList<QImage> &samples, QString *error)
    {
        graph = avfilter_graph_alloc();
        AVFilterContext *in = nullptr, *gen = nullptr, *out = nullptr;
        if (!graph ||
            !makeFilter(&in, "buffer", "in", bufferArgs(settings.width, settings.height), error) ||
            !makeFilter(&gen, "palettegen", "palettegen", QStringLiteral("stats_mode=full"),
                        error) ||
            !makeFilter(&out, "buffersink", "out", {}, error))
            return nullptr;
        int rc = avfilter_link(in, 0, gen, 0);
        if (rc >= 0)
            rc = avfilter_link(gen, 0, out, 0);
        if (rc >= 0)
            rc = avfilter_graph_config(graph, nullptr);
        if (rc < 0) {
            fail(QStringLiteral("cannot set up the palette filter"), rc, error);
            return nullptr;
        }
        int64_t pts = 0;
        for (const QImage &sample : samples) {
            const QImage image = sample.convertToFormat(QImage::Format_RGB32);
            AVFrame *f = frameOf(image, pts++);
            rc = f ? av_buffersrc_add_frame(in, f) : AVERROR(ENOMEM);
            av_frame_free(&f);
            if (rc < 0) {
                fail(QStringLiteral("the palette filter refused a frame"), rc, error);
                return nullptr;
            }
        }
        rc = av_buffersrc_add_frame(in, nullptr);
        AVFrame *palette = av_frame_alloc();
        if (rc >= 0)
            rc = av_buffersink_get_frame(out, palette);
        avfilter_graph_free(&graph);
        if (rc < 0) {
            av_frame_free(&palette);
            fail(QStringLiteral("cannot build the palette"), rc, error);
            return nullptr;
        }
        return palette;
    }

    // frames + palette -> paletteuse -> PAL8 frames for the GIF encoder. Error diffusion
    // (Sierra) keeps gradients smooth; diff_mode=rectangle re-dithers only what changed, so
    // still parts of the figure do not shimmer from frame to frame.
    bool buildPaletteUse(AVFrame *palette, QString *error)
    {
        graph = avfilter_graph_alloc();
        AVFilterContext *use = nullptr;
        if (!graph ||
            !makeFilter(&source, "buffer", "in", bufferArgs(settings.width, settings.height),
                        error) ||
            !makeFilter(&paletteSource, "buffer", "palette",
                        bufferArgs(palette->width, palette->height), error) ||
            !makeFilter(&use, "paletteuse", "paletteuse",
                        QStringLiteral("dither=sierra2_4a:diff_mode=rectangle"), error) ||
            !makeFilter(&sink, "buffersink", "out", {}, error))
            return false;
        int rc = avfilter_link(source, 0, use, 0);
        if (rc >= 0)
            rc = avfilter_link(paletteSource, 0, use, 1);
        if (rc >= 0)
            rc = avfilter_link(use, 0, sink, 0);
        if (rc >= 0)
            rc = avfilter_graph_config(graph, nullptr);
        if (rc < 0)
            return fail(QStringLiteral("cannot set up the palette filter"), rc, error);
        palette->pts = 0;
        rc = av_buffersrc_add_frame(paletteSource, palette);
        if (rc >= 0)
            rc = av_buffersrc_add_frame(paletteSource, nullptr);
        if (rc < 0)
            return fail(QStringLiteral("the palette filter refused the palette"), rc, error);
        return true;
    }

    bool open(const QString &path, const VideoSettings &wanted, const QList<QImage> &palette,
              QString *error) override
    {
        cancel();
        settings = wanted;
        row = &outputFormat(settings.format);
        ioError.clear();
        position = size = 0;
        frames = 0;
        if (av_log_get_level() == AV_LOG_INFO)
            av_log_set_level(AV_LOG_ERROR); // x264's banner and statistics are not for our users
        file = std::make_unique<AtomicFile>(path);
        if (!file->open(error))
            return false;

        const char *muxer = row->muxer;
        const int rc = avformat_alloc_output_context2(&format, nullptr, muxer, nullptr);
        if (rc < 0 || !format)
            return fail(QStringLiteral("this FFmpeg has no %1 muxer").arg(QLatin1String(muxer)), rc,
                        error);
        if (!openEncoder(path, error) || !startFile(muxer, error))
            return false;
        packet = av_packet_alloc();
        const bool converts =
            usesPalette() ? openPaletteUse(palette, error) : openColourConversion(error);
        if (!converts)
            return false;
        isOpen = true;
        return true;
    }

    bool usesPalette() const { return row->pixels == VideoPixels::Palette; }

    // The format's encoder with pescope's settings, and the stream it writes.
    bool openEncoder(const QString &path, QString *error)
    {
        const AVCodec *encoder = avcodec_find_encoder_by_name(row->encoder);
        if (!encoder) {
            *error = QStringLiteral("cannot write %1: this FFmpeg has no %2 encoder")
                         .arg(path, QLatin1String(row->encoderLabel));
            cancel();
            return false;
        }
        codec = avcodec_alloc_context3(encoder);
        AVCodecContext *c = codec;
        configure(c);
        if (format->oformat->flags & AVFMT_GLOBALHEADER)
            c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        const int rc = avcodec_open2(c, encoder, nullptr);
        if (rc < 0)
            return fail(
                QStringLiteral("cannot start the %1 encoder").arg(QLatin1String(encoder->name)), rc,
                error);
        stream = avformat_new_stream(format, nullptr);
        if (!stream)
            return fail(QStringLiteral("cannot add a stream"), AVERROR(ENOMEM), error);
        avcodec_parameters_from_context(stream->codecpar, c);
        stream->time_base = c->time_base;
        stream->avg_frame_rate = c->framerate;
        stream->r_frame_rate = c->framerate;
        return true;
    }

    // Size, rate, pixel format and colours of the frames, and the encoder's quality options.
    void configure(AVCodecContext *c) const
    {
        c->width = settings.width;
        c->height = settings.height;
        c->time_base = {1, settings.fps};
        c->framerate = {settings.fps, 1};
        c->sample_aspect_ratio = {1, 1};
        c->thread_count = row->threadPerCore ? std::max(1, QThread::idealThreadCount()) : 0;
        if (row->constantQuality)
            c->bit_rate = 0;
        setEncoderOptions(c->priv_data, QLatin1String(row->encoderOptions));
        if (usesPalette()) {
            c->pix_fmt = AV_PIX_FMT_PAL8;
            return;
        }
        c->pix_fmt = AV_PIX_FMT_YUV420P;
        // BT.709, limited range, as players assume for HD and as the conversion below writes.
        c->color_primaries = AVCOL_PRI_BT709;
        c->color_trc = AVCOL_TRC_BT709;
        c->colorspace = AVCOL_SPC_BT709;
        c->color_range = AVCOL_RANGE_MPEG;
        c->gop_size = std::min(settings.fps * 2, 250);
    }

    // "key=value:key=value" from the format's row, each set as given; an option this FFmpeg's
    // encoder does not know is left out, as FFmpeg builds differ in what they offer.
    static void setEncoderOptions(void *options, const QString &list)
    {
        for (const QString &pair : list.split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
            const qsizetype equals = pair.indexOf(QLatin1Char('='));
            av_opt_set(options, pair.left(equals).toLatin1().constData(),
                       pair.mid(equals + 1).toLatin1().constData(), 0);
        }
    }

    // The muxer writes through the atomic file (writePacket, seek); then the header.
    bool startFile(const char *muxer, QString *error)
    {
        constexpr int ioBufferSize = 1 << 16;
        auto *buffer = static_cast<unsigned char *>(av_malloc(ioBufferSize));
        io = buffer ? avio_alloc_context(buffer, ioBufferSize, 1, this, nullptr,
                                         &FfmpegCodec::writePacket, &FfmpegCodec::seek)
                    : nullptr;
        if (!io) {
            av_free(buffer);
            return fail(QStringLiteral("out of memory"), AVERROR(ENOMEM), error);
        }
        format->pb = io;
        format->flags |= AVFMT_FLAG_CUSTOM_IO;
        const int rc = avformat_write_header(format, nullptr);
        if (rc < 0)
            return fail(QStringLiteral("cannot start the %1 file").arg(QLatin1String(muxer)), rc,
                        error);
        headerWritten = true;
        return true;
    }

    // GIF: one palette for the whole animation, from the sample frames, and its paletteuse filter.
    bool openPaletteUse(const QList<QImage> &palette, QString *error)
    {
        AVFrame *pal = buildPalette(palette, error);
        if (!pal)
            return false;
        const bool ok = buildPaletteUse(pal, error);
        av_frame_free(&pal);
        return ok;
    }

    // MP4 and WebM: RGB32 images to BT.709 YUV 4:2:0 frames.
    bool openColourConversion(QString *error)
    {
        sws = sws_getContext(settings.width, settings.height, imageFormat, settings.width,
                             settings.height, AV_PIX_FMT_YUV420P,
                             SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nullptr, nullptr,
                             nullptr);
        frame = av_frame_alloc();
        if (!sws || !frame)
            return fail(QStringLiteral("cannot set up the colour conversion"), AVERROR(ENOMEM),
                        error);
        const int *bt709 = sws_getCoefficients(SWS_CS_ITU709);
        sws_setColorspaceDetails(sws, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
        frame->format = AV_PIX_FMT_YUV420P;
        frame->width = settings.width;
        frame->height = settings.height;
        const int rc = av_frame_get_buffer(frame, 0);
        if (rc < 0)
            return fail(QStringLiteral("out of memory"), rc, error);
        return true;
    }

    bool addFrame(const QImage &input, QString *error) override
    {
        if (!isOpen) {
            *error = QStringLiteral("the animation is not open");
            return false;
        }
        if (input.width() != settings.width || input.height() != settings.height)
            return fail(QStringLiteral("frame %1 is %2 x %3 pixels, not %4 x %5")
                            .arg(frames)
                            .arg(input.width())
                            .arg(input.height())
                            .arg(settings.width)
                            .arg(settings.height),
                        AVERROR(EINVAL), error);
        const QImage image =
            input.format() == QImage::Format_RGB32 || input.format() == QImage::Format_ARGB32
                ? input
                : input.convertToFormat(QImage::Format_RGB32);
        const int64_t pts = frames;
        if (usesPalette()) {
            AVFrame *f = FfmpegCodec::frameOf(image, pts);
            const int rc = f ? av_buffersrc_add_frame(source, f) : AVERROR(ENOMEM);
            av_frame_free(&f);
            if (rc < 0)
                return fail(QStringLiteral("the palette filter refused a frame"), rc, error);
            if (!drainFilter(error))
                return false;
        } else {
            const int rc = av_frame_make_writable(frame);
            if (rc < 0)
                return fail(QStringLiteral("out of memory"), rc, error);
            const uint8_t *planes[1] = {image.constBits()};
            const int strides[1] = {int(image.bytesPerLine())};
            sws_scale(sws, planes, strides, 0, image.height(), frame->data, frame->linesize);
            frame->pts = pts;
            if (!encode(frame, error))
                return false;
        }
        ++frames;
        return true;
    }

    bool finish(QString *error) override
    {
        if (!isOpen) {
            *error = QStringLiteral("the animation is not open");
            return false;
        }
        if (usesPalette()) {
            const int rc = av_buffersrc_add_frame(source, nullptr);
            if (rc < 0)
                return fail(QStringLiteral("the palette filter failed"), rc, error);
            if (!drainFilter(error))
                return false;
        }
        if (!encode(nullptr, error))
            return false;
        int rc = av_write_trailer(format);
        headerWritten = false;
        if (rc < 0)
            return fail(QStringLiteral("cannot finish the file"), rc, error);
        avio_flush(io);
        if (io->error < 0)
            return fail(QStringLiteral("cannot finish the file"), io->error, error);
        release();
        return file->commit(error);
    }

    int framesWritten() const override { return frames; }
};

} // namespace pe

// The module's entry points, looked up by name (pe::videoCodecFactoryName, videoCodecAbiName).
extern "C" Q_DECL_EXPORT pe::VideoCodec *pe_create_video_codec()
{
    return new pe::FfmpegCodec;
}

extern "C" Q_DECL_EXPORT int pe_video_codec_abi()
{
    return pe::videoCodecAbi;
}
