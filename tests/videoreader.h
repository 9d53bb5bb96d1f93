// Reads an animation back through libavformat / libavcodec for the tests: codec, pixel format,
// size, frame rate and every frame as an RGB image (converted with the colour space the file
// is tagged with). Independent of pescope's encoder: it only uses FFmpeg's demuxers and decoders.
#pragma once

#include <QImage>
#include <QList>
#include <QString>

#include <algorithm>
#include <cmath>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace pe::test {

struct DecodedVideo
{
    QString error; // empty when the file was read
    QString container, codec, pixelFormat;
    int width = 0, height = 0;
    double fps = 0; // av_guess_frame_rate: the stream's rate
    int frameCount = 0;
    QList<QImage> frames; // when asked for
    // yuv420p only: the luma plane as it is stored, stretched from the limited range (16..235)
    // to 0..255, without any colour conversion (Format_Grayscale8).
    QList<QImage> lumaFrames;
};

inline DecodedVideo readVideo(const QString &path, bool keepFrames = true)
{
    DecodedVideo v;
    AVFormatContext *format = nullptr;
    if (avformat_open_input(&format, path.toLocal8Bit().constData(), nullptr, nullptr) < 0) {
        v.error = QStringLiteral("cannot open ") + path;
        return v;
    }
    avformat_find_stream_info(format, nullptr);
    v.container = QString::fromUtf8(format->iformat->name);
    const int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (index < 0) {
        v.error = QStringLiteral("no video stream");
        avformat_close_input(&format);
        return v;
    }
    AVStream *stream = format->streams[index];
    const AVCodec *decoder = avcodec_find_decoder(stream->codecpar->codec_id);
    AVCodecContext *codec = avcodec_alloc_context3(decoder);
    avcodec_parameters_to_context(codec, stream->codecpar);
    if (avcodec_open2(codec, decoder, nullptr) < 0) {
        v.error = QStringLiteral("cannot open the decoder");
        avcodec_free_context(&codec);
        avformat_close_input(&format);
        return v;
    }
    v.codec = QString::fromUtf8(avcodec_get_name(stream->codecpar->codec_id));
    if (const char *name = av_get_pix_fmt_name(AVPixelFormat(stream->codecpar->format)))
        v.pixelFormat = QString::fromUtf8(name);
    v.width = stream->codecpar->width;
    v.height = stream->codecpar->height;
    const AVRational rate = av_guess_frame_rate(format, stream, nullptr);
    v.fps = rate.den ? av_q2d(rate) : 0;

    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    SwsContext *sws = nullptr;
    const auto take = [&] {
        while (avcodec_receive_frame(codec, frame) == 0) {
            ++v.frameCount;
            if (!keepFrames)
                continue;
            QImage image(frame->width, frame->height, QImage::Format_RGB32);
            sws = sws_getCachedContext(
                sws, frame->width, frame->height, AVPixelFormat(frame->format), frame->width,
                frame->height, AV_PIX_FMT_RGB32,
                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
            const int space = frame->colorspace == AVCOL_SPC_BT709 ? SWS_CS_ITU709 : SWS_CS_DEFAULT;
            const int *coefficients = sws_getCoefficients(space);
            sws_setColorspaceDetails(sws, coefficients,
                                     frame->color_range == AVCOL_RANGE_JPEG ? 1 : 0, coefficients,
                                     1, 0, 1 << 16, 1 << 16);
            uint8_t *planes[1] = {image.bits()};
            const int strides[1] = {int(image.bytesPerLine())};
            sws_scale(sws, frame->data, frame->linesize, 0, frame->height, planes, strides);
            v.frames.append(image);
            if (frame->format == AV_PIX_FMT_YUV420P) {
                QImage luma(frame->width, frame->height, QImage::Format_Grayscale8);
                const bool limited = frame->color_range != AVCOL_RANGE_JPEG;
                for (int y = 0; y < frame->height; ++y) {
                    const uint8_t *in = frame->data[0] + std::ptrdiff_t(y) * frame->linesize[0];
                    uchar *out = luma.scanLine(y);
                    for (int x = 0; x < frame->width; ++x)
                        out[x] = limited ? uchar(std::clamp(
                                               std::lround((in[x] - 16) * 255.0 / 219.0), 0L, 255L))
                                         : in[x];
                }
                v.lumaFrames.append(luma);
            }
        }
    };
    while (av_read_frame(format, packet) >= 0) {
        if (packet->stream_index == index && avcodec_send_packet(codec, packet) == 0)
            take();
        av_packet_unref(packet);
    }
    avcodec_send_packet(codec, nullptr);
    take();
    sws_freeContext(sws);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    avformat_close_input(&format);
    return v;
}

// Mean absolute difference per channel (0..255) over the whole image, and the largest mean
// difference over blocks of `block` x `block` pixels (what a misplaced line shows as). With
// `luma`, or when either image is grey (a luma plane), BT.709 luma is compared instead: yuv420p
// keeps luma at full resolution but halves the colour's, so a one-pixel coloured line keeps its
// brightness and smears its hue.
struct ImageDifference
{
    double mean = 0;
    double worstBlock = 0;
};

inline ImageDifference imageDifference(const QImage &a0, const QImage &b0, int block = 8,
                                       bool luma = false)
{
    const auto prepared = [](const QImage &image) {
        return image.format() == QImage::Format_Grayscale8
                   ? image
                   : image.convertToFormat(QImage::Format_RGB32);
    };
    const QImage a = prepared(a0), b = prepared(b0);
    luma =
        luma || a.format() == QImage::Format_Grayscale8 || b.format() == QImage::Format_Grayscale8;
    const auto lumaOf = [](const QImage &image, int x, int y) {
        if (image.format() == QImage::Format_Grayscale8)
            return double(image.constScanLine(y)[x]);
        const QRgb c = reinterpret_cast<const QRgb *>(image.constScanLine(y))[x];
        return 0.2126 * qRed(c) + 0.7152 * qGreen(c) + 0.0722 * qBlue(c);
    };
    ImageDifference d;
    if (a.size() != b.size()) {
        d.mean = d.worstBlock = 255;
        return d;
    }
    const int bw = (a.width() + block - 1) / block, bh = (a.height() + block - 1) / block;
    std::vector<double> sums(std::size_t(bw) * bh, 0.0);
    std::vector<int> counts(std::size_t(bw) * bh, 0);
    double total = 0;
    for (int y = 0; y < a.height(); ++y) {
        for (int x = 0; x < a.width(); ++x) {
            double e = 0;
            if (luma) {
                e = std::abs(lumaOf(a, x, y) - lumaOf(b, x, y));
            } else {
                const QRgb ca = reinterpret_cast<const QRgb *>(a.constScanLine(y))[x];
                const QRgb cb = reinterpret_cast<const QRgb *>(b.constScanLine(y))[x];
                e = (std::abs(qRed(ca) - qRed(cb)) + std::abs(qGreen(ca) - qGreen(cb)) +
                     std::abs(qBlue(ca) - qBlue(cb))) /
                    3.0;
            }
            total += e;
            const std::size_t k = std::size_t(y / block) * bw + std::size_t(x / block);
            sums[k] += e;
            ++counts[k];
        }
    }
    d.mean = total / (double(a.width()) * a.height());
    for (std::size_t k = 0; k < sums.size(); ++k)
        d.worstBlock = std::max(d.worstBlock, sums[k] / counts[k]);
    return d;
}

} // namespace pe::test
