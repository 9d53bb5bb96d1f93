#include "outputformats.h"

#include <QFileInfo>
#include <QStringList>

namespace pe {

namespace {

constexpr OutputFormat formats[] = {
    {OutputKind::Figure, int(FigureFormat::Png), "png", "image/png", "PNG", "PNG image"},
    {OutputKind::Figure, int(FigureFormat::Svg), "svg", "image/svg+xml", "SVG", "SVG drawing"},
    {OutputKind::Figure, int(FigureFormat::Pdf), "pdf", "application/pdf", "PDF", "PDF document"},
    {OutputKind::Animation, int(VideoFormat::Gif), "gif", "image/gif", "GIF", "GIF animation"},
    {OutputKind::Animation, int(VideoFormat::Mp4), "mp4", "video/mp4", "MP4", "MP4 video"},
    {OutputKind::Animation, int(VideoFormat::WebM), "webm", "video/webm", "WebM", "WebM video"},
};

const OutputFormat &find(OutputKind kind, int writer)
{
    for (const OutputFormat &f : formats)
        if (f.kind == kind && f.writer == writer)
            return f;
    return formats[0]; // unreachable: every enumerator has its row (tst_outputformats)
}

// "a, b or c"
QString joined(const QStringList &items)
{
    if (items.size() < 2)
        return items.join(QString());
    return items.mid(0, items.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") +
           items.last();
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
