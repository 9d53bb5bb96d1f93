// The figure and animation formats pescope writes, in one table: extension, MIME type, writer,
// the names people see and, for an animation, how FFmpeg writes it. The export dialog's choices
// and tooltip, the play bar's tooltip, file dialogs' filters, `pescope export --out`'s checks and
// help, the Python module and the FFmpeg encoder (ffmpegcodec.cpp) all read it: a new animation
// format is its enumerator and its row; a new still, those and its case in FigureExporter.
#pragma once

#include <QString>

#include <optional>
#include <span>

namespace pe {

// Still figures, written by FigureExporter (ui/figures).
enum class FigureFormat { Png, Svg, Pdf };
// Animations, written by VideoEncoder (videoencoder.h).
enum class VideoFormat { Gif, Mp4, WebM };

enum class OutputKind { Figure, Animation };

// How an animation's frames are stored, which picks its colour path in ffmpegcodec.cpp.
enum class VideoPixels {
    None,    // a still's row
    Palette, // 8 bits per pixel, one palette for the whole animation built from sample frames
    Yuv420,  // BT.709 limited-range YUV 4:2:0, whose colour planes are half size: sides even
};

struct OutputFormat
{
    OutputKind kind;
    int writer;             // the FigureFormat or VideoFormat of the row, by kind
    const char *extension;  // "png": also the format's name (export dialog, sessions)
    const char *mime;       // "image/png"
    const char *label;      // "PNG"
    const char *fileDialog; // "PNG image": the name of its file dialog filter
    // What it keeps of the figure, for the export dialog's tooltip; rows in a run with the same
    // words share them ("SVG and PDF: lines, ...").
    const char *summary;
    // Animations only: FFmpeg's muxer and encoder by name, the encoder as messages name it when
    // this FFmpeg lacks it, and how it is set up (ffmpegcodec.cpp's configure()).
    const char *muxer = nullptr;        // "mp4"
    const char *encoder = nullptr;      // "libx264"
    const char *encoderLabel = nullptr; // "H.264 (libx264)"
    VideoPixels pixels = VideoPixels::None;
    // The encoder's own options, "key=value" joined by ':', as FFmpeg's -KEY VALUE would set them.
    const char *encoderOptions = "";
    bool constantQuality = false; // bit rate 0: the encoder's crf alone sets the quality
    bool threadPerCore = false;   // FFmpeg's default thread count runs libvpx on one thread
};

// Every format, figures first, in the order dialogs list them.
std::span<const OutputFormat> outputFormats();
// By extension, case-insensitive; null for anything else.
const OutputFormat *outputFormatForPath(const QString &path);
const OutputFormat &outputFormat(FigureFormat format);
const OutputFormat &outputFormat(VideoFormat format);

QString figureFormatName(FigureFormat format); // "png", "svg", "pdf"
std::optional<FigureFormat> figureFormatForPath(const QString &path);
QString videoFormatName(VideoFormat format); // "gif", "mp4", "webm"
std::optional<VideoFormat> videoFormatForPath(const QString &path);

// The extensions of a kind for messages and help: ".png, .svg or .pdf"; with a stem,
// "FIG.gif, FIG.mp4 or FIG.webm".
QString outputExtensionList(OutputKind kind, const QString &stem = {});
// The labels of a kind: "PNG, SVG or PDF".
QString outputLabelList(OutputKind kind);
// Every format with its summary, runs of the same summary together, for the export dialog's
// tooltip: "PNG: pixels; SVG and PDF: lines, ...; GIF, MP4 and WebM: the figure animated, ...".
QString outputFormatSummary();
// How an animation's frames are stored (None for a still).
VideoPixels videoPixels(VideoFormat format);
// A file dialog's filter for the formats of a kind: "PNG image (*.png);;SVG drawing (*.svg);;…".
QString outputFileFilter(OutputKind kind);
// A file dialog's filter for one format: "PNG image (*.png)".
QString outputFileFilter(const OutputFormat &format);

} // namespace pe
