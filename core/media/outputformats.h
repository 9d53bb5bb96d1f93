// The figure and animation formats pescope writes, in one table: extension, MIME type, writer and
// the names people see. The export dialog's choices, file dialogs' filters, `pescope export
// --out`'s checks and help, and the Python module all read it; a new format is one row here and
// its writer.
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

struct OutputFormat
{
    OutputKind kind;
    int writer;             // the FigureFormat or VideoFormat of the row, by kind
    const char *extension;  // "png": also the format's name (export dialog, sessions)
    const char *mime;       // "image/png"
    const char *label;      // "PNG"
    const char *fileDialog; // "PNG image": the name of its file dialog filter
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
// A file dialog's filter for the formats of a kind: "PNG image (*.png);;SVG drawing (*.svg);;…".
QString outputFileFilter(OutputKind kind);
// A file dialog's filter for one format: "PNG image (*.png)".
QString outputFileFilter(const OutputFormat &format);

} // namespace pe
