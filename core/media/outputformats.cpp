#include "outputformats.h"

#include <QFileInfo>
#include <QStringList>

#include <iterator>

namespace pe {

namespace {

// Animation rows, after the names: muxer, encoder, its label, pixels, the encoder's options,
// constant quality, a thread per core. MP4 is H.264 High profile, what PowerPoint, Keynote and
// browsers play: CRF 18 keeps thin lines and text crisp; veryfast costs little size on flat
// figures. WebM is VP9 at constant quality.
constexpr char vectors[] =
    "lines, markers and text stay vectors, heatmaps are embedded at full resolution";
constexpr char animated[] = "the figure animated, as pescope export --animate writes it";
constexpr OutputFormat formats[] = {
    {OutputKind::Figure, int(FigureFormat::Png), "png", "image/png", "PNG", "PNG image", "pixels"},
    {OutputKind::Figure, int(FigureFormat::Svg), "svg", "image/svg+xml", "SVG", "SVG drawing",
     vectors},
    {OutputKind::Figure, int(FigureFormat::Pdf), "pdf", "application/pdf", "PDF", "PDF document",
     vectors},
    {OutputKind::Animation, int(VideoFormat::Gif), "gif", "image/gif", "GIF", "GIF animation",
     animated, "gif", "gif", "GIF", VideoPixels::Palette},
    {OutputKind::Animation, int(VideoFormat::Mp4), "mp4", "video/mp4", "MP4", "MP4 video", animated,
     "mp4", "libx264", "H.264 (libx264)", VideoPixels::Yuv420,
     "preset=veryfast:profile=high:crf=18"},
    {OutputKind::Animation, int(VideoFormat::WebM), "webm", "video/webm", "WebM", "WebM video",
     animated, "webm", "libvpx-vp9", "VP9 (libvpx)", VideoPixels::Yuv420,
     "crf=30:deadline=good:cpu-used=5:row-mt=1", true, true},
};

const OutputFormat &find(OutputKind kind, int writer)
{
    for (const OutputFormat &f : formats)
        if (f.kind == kind && f.writer == writer)
            return f;
    return formats[0]; // unreachable: every enumerator has its row (tst_outputformats)
}

// "a, b or c" (or "a, b and c")
QString joined(const QStringList &items, const QString &last = QStringLiteral(" or "))
{
    if (items.size() < 2)
        return items.join(QString());
    return items.mid(0, items.size() - 1).join(QStringLiteral(", ")) + last + items.last();
}

} // namespace

std::span<const OutputFormat> outputFormats()
{
    return formats;
}

const OutputFormat *outputFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix();
    for (const OutputFormat &f : formats)
        if (suffix.compare(QLatin1String(f.extension), Qt::CaseInsensitive) == 0)
            return &f;
    return nullptr;
}

const OutputFormat &outputFormat(FigureFormat format)
{
    return find(OutputKind::Figure, int(format));
}

const OutputFormat &outputFormat(VideoFormat format)
{
    return find(OutputKind::Animation, int(format));
}

QString figureFormatName(FigureFormat format)
{
    return QString::fromLatin1(outputFormat(format).extension);
}

std::optional<FigureFormat> figureFormatForPath(const QString &path)
{
    const OutputFormat *f = outputFormatForPath(path);
    if (!f || f->kind != OutputKind::Figure)
        return std::nullopt;
    return FigureFormat(f->writer);
}

QString videoFormatName(VideoFormat format)
{
    return QString::fromLatin1(outputFormat(format).extension);
}

std::optional<VideoFormat> videoFormatForPath(const QString &path)
{
    const OutputFormat *f = outputFormatForPath(path);
    if (!f || f->kind != OutputKind::Animation)
        return std::nullopt;
    return VideoFormat(f->writer);
}

QString outputExtensionList(OutputKind kind, const QString &stem)
{
    QStringList items;
    for (const OutputFormat &f : formats)
        if (f.kind == kind)
            items.append(stem + QLatin1Char('.') + QLatin1String(f.extension));
    return joined(items);
}

QString outputLabelList(OutputKind kind)
{
    QStringList items;
    for (const OutputFormat &f : formats)
        if (f.kind == kind)
            items.append(QLatin1String(f.label));
    return joined(items);
}

QString outputFormatSummary()
{
    QStringList parts;
    QStringList labels;
    for (std::size_t i = 0; i < std::size(formats); ++i) {
        labels.append(QLatin1String(formats[i].label));
        const bool runEnds =
            i + 1 == std::size(formats) || qstrcmp(formats[i].summary, formats[i + 1].summary) != 0;
        if (runEnds) {
            parts.append(joined(labels, QStringLiteral(" and ")) + QStringLiteral(": ") +
                         QLatin1String(formats[i].summary));
            labels.clear();
        }
    }
    return parts.join(QStringLiteral("; "));
}

VideoPixels videoPixels(VideoFormat format)
{
    return outputFormat(format).pixels;
}

QString outputFileFilter(const OutputFormat &format)
{
    return QStringLiteral("%1 (*.%2)")
        .arg(QLatin1String(format.fileDialog), QLatin1String(format.extension));
}

QString outputFileFilter(OutputKind kind)
{
    QStringList filters;
    for (const OutputFormat &f : formats)
        if (f.kind == kind)
            filters.append(outputFileFilter(f));
    return filters.join(QStringLiteral(";;"));
}

} // namespace pe
