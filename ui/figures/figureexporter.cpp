#include "figures/figureexporter.h"

#include "figures/figurecaption.h"
#include "figures/figurepainter.h"
#include "io/atomicfile.h"
#include "media/outputformats.h"
#include "media/pngencoder.h"

#include "figures/qcpinclude.h"

#include <QBuffer>
#include <QFontInfo>
#include <QHash>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>

#include <cmath>
#include <functional>
#include <memory>

namespace pe {

namespace {

// QSvgGenerator writes the font's family as Qt names it (font-family="Sans Serif", a fontconfig
// alias no SVG renderer knows): each becomes the family it resolves to here, then the CSS
// generic family, so a renderer without that font picks one of the same kind instead of any
// (rsvg's choice ran the legend's text into its line samples).
QString withGenericFamilies(const QString &svg)
{
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    QHash<QString, QString> resolved;
    QString out;
    qsizetype last = 0;
    for (const QRegularExpressionMatch &m : family.globalMatch(svg)) {
        const QString requested = m.captured(1);
        auto it = resolved.find(requested);
        if (it == resolved.end()) {
            const QFontInfo info{QFont(requested)};
            const QString name = info.family().remove(QLatin1Char('\''));
            const QString generic =
                info.fixedPitch() ? QStringLiteral("monospace")
                : name.contains(QLatin1String("Serif")) && !name.contains(QLatin1String("Sans"))
                    ? QStringLiteral("serif")
                    : QStringLiteral("sans-serif");
            it = resolved.insert(
                requested,
                QStringLiteral("font-family=\"'%1', %2\"").arg(name.toHtmlEscaped(), generic));
        }
        out += QStringView(svg).mid(last, m.capturedStart() - last);
        out += *it;
        last = m.capturedEnd();
    }
    out += QStringView(svg).mid(last);
    return out;
}

} // namespace

FigureExporter::FigureExporter(const FigureState &state, const FigureData &data,
                               const FigureOptions &options)
    : m_state(state), m_data(data), m_options(options)
{}

QString FigureExporter::check() const
{
    if (QString problem = m_options.validate(); !problem.isEmpty())
        return problem;
    for (FigureView view : m_options.views) {
        if (viewNeeds(view, ViewJob::Encoding) && (!m_data.encoding || !m_data.encoding->matrix))
            return QStringLiteral("the %1 view has no encoding to show").arg(figureViewName(view));
        if (viewNeeds(view, ViewJob::Phrases) && !m_data.phrases)
            return QStringLiteral("the %1 view has no phrases to show").arg(figureViewName(view));
        if (viewNeeds(view, ViewJob::Schemes) && !m_data.schemes)
            return QStringLiteral("the %1 view has nothing computed to show")
                .arg(figureViewName(view));
        if (viewNeeds(view, ViewJob::Table) && !m_data.table)
            return QStringLiteral("the %1 view has no learned table to show")
                .arg(figureViewName(view));
        if (viewNeeds(view, ViewJob::EngineCheck) && !m_data.engineCheck)
            return QStringLiteral("the verify view has no engine table checked");
        if (viewNeeds(view, ViewJob::ModelPhrases) &&
            (!m_data.modelPhrases || m_data.modelPhrases->phrases.empty()))
            return QStringLiteral("the %1 view has no model phrases to show")
                .arg(figureViewName(view));
        // A tokenizer without weights: the tokens view alone has something to draw.
        if (viewNeeds(view, ViewJob::ModelPhrases) && view != FigureView::ModelTokens)
            if (QString why = m_data.modelPhrases->arraysProblem(figureViewName(view));
                !why.isEmpty())
                return why;
        if (viewNeeds(view, ViewJob::ModelPhrases))
            if (QString why = viewNeedsProblem(
                    {view},
                    {.phrases = qsizetype(m_data.modelPhrases->phrases.size()), .model = true});
                !why.isEmpty())
                return why;
        if (viewNeeds(view, ViewJob::ModelPhrases) &&
            m_options.choices.modelHead >= m_data.modelPhrases->heads)
            return QStringLiteral("layer 0 of the model has %1 heads, not head %2")
                .arg(m_data.modelPhrases->heads)
                .arg(m_options.choices.modelHead);
        if (viewNeeds(view, ViewJob::ModelForward) && !m_data.modelForward)
            return QStringLiteral("the %1 view has no forward pass to show")
                .arg(figureViewName(view));
        if (view == FigureView::LayerAttention && m_options.choices.modelLayer >= 0 &&
            (m_options.choices.modelLayer >= m_data.modelForward->layers ||
             m_options.choices.modelHead >= m_data.modelForward->heads))
            return QStringLiteral("the model has %1 layers of %2 heads, not layer %3 head %4")
                .arg(m_data.modelForward->layers)
                .arg(m_data.modelForward->heads)
                .arg(m_options.choices.modelLayer)
                .arg(m_options.choices.modelHead);
        if (viewNeeds(view, ViewJob::Phrases))
            if (QString why =
                    viewNeedsProblem({view}, {.phrases = m_data.phrases->settings.phrases.size()});
                !why.isEmpty())
                return why;
    }
    return {};
}

QImage FigureExporter::renderImage(QString *error) const
{
    if (const QString problem = check(); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    QImage image(int(m_options.width), int(m_options.height), QImage::Format_RGB32);
    if (image.isNull()) {
        *error = QStringLiteral("not enough memory for a %1 x %2 image")
                     .arg(m_options.width)
                     .arg(m_options.height);
        return {};
    }
    // Text is laid out at the screen's DPI (as the window does) and the painter scales it to
    // the requested DPI; the file records the requested DPI.
    const double base = figureBaseDpi();
    const auto dotsPerMeter = [](double dpi) { return int(std::lround(dpi / 0.0254)); };
    image.setDotsPerMeterX(dotsPerMeter(base));
    image.setDotsPerMeterY(dotsPerMeter(base));
    {
        QCPPainter painter(&image);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.scale(m_options.dpi / base, m_options.dpi / base);
        if (!paintFigure(&painter, FigureTarget::Raster, m_state, m_data, m_options, error))
            return {};
    }
    image.setDotsPerMeterX(dotsPerMeter(m_options.dpi));
    image.setDotsPerMeterY(dotsPerMeter(m_options.dpi));
    return image;
}

QByteArray FigureExporter::renderVector(FigureFormat format, QString *error) const
{
    if (const QString problem = check(); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    const double base = figureBaseDpi();
    const auto [width, height] = figureLayoutSize(m_options);
    const QString title =
        m_options.title.isEmpty() ? figureViewsName(m_options.views) : m_options.title;
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    // The document's device on the buffer, and what its painter needs beyond the vector modes.
    std::unique_ptr<QPaintDevice> device;
    std::function<void(QCPPainter &)> setup;
    QString deviceName;
    if (format == FigureFormat::Svg) {
        // User units are the window's logical pixels; width and height (in mm) give the page
        // size width / dpi x height / dpi inches.
        auto generator = std::make_unique<QSvgGenerator>();
        generator->setOutputDevice(&buffer);
        generator->setResolution(int(std::lround(base)));
        generator->setSize(QSize(width, height));
        generator->setViewBox(QRect(0, 0, width, height));
        generator->setTitle(title);
        generator->setDescription(
            QStringLiteral("pescope " PE_VERSION ": ") +
            figureCaption(m_state, m_options.views, m_options.style.showSelection));
        device = std::move(generator);
        deviceName = QStringLiteral("SVG generator");
    } else {
        auto writer = std::make_unique<QPdfWriter>(&buffer);
        writer->setCreator(QStringLiteral("pescope " PE_VERSION));
        writer->setTitle(title);
        writer->setResolution(int(std::lround(base)));
        const QSizeF points(m_options.widthInches() * 72.0, m_options.heightInches() * 72.0);
        writer->setPageLayout(
            QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        // The page holds writer.width() device pixels; the figure is laid out in `width`.
        const double scaleX = double(writer->width()) / width;
        const double scaleY = double(writer->height()) / height;
        setup = [scaleX, scaleY](QCPPainter &painter) {
            painter.setRenderHint(QPainter::LosslessImageRendering, true);
            painter.scale(scaleX, scaleY);
        };
        device = std::move(writer);
        deviceName = QStringLiteral("PDF writer");
    }
    {
        QCPPainter painter;
        if (!painter.begin(device.get())) {
            *error = QStringLiteral("cannot start the %1").arg(deviceName);
            return {};
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setMode(QCPPainter::pmNonCosmetic);
        if (setup)
            setup(painter);
        if (!paintFigure(&painter, FigureTarget::Vector, m_state, m_data, m_options, error))
            return {};
        painter.end();
    }
    device.reset();
    return buffer.data();
}

QByteArray FigureExporter::renderSvg(QString *error) const
{
    QByteArray svg = renderVector(FigureFormat::Svg, error);
    if (svg.isEmpty())
        return {};
    // QSvgGenerator marks unsmoothed images image-rendering="optimizeSpeed" (SVG 1.1); browsers
    // want the CSS property as well.
    if (!m_options.interpolate)
        svg.replace("<image ", "<image style=\"image-rendering:pixelated\" ");
    // The exact physical size, which QSvgGenerator rounds from whole logical pixels.
    const QString size = QStringLiteral("width=\"%1mm\" height=\"%2mm\"")
                             .arg(m_options.widthInches() * 25.4, 0, 'f', 3)
                             .arg(m_options.heightInches() * 25.4, 0, 'f', 3);
    static const QRegularExpression sizeAttributes(
        QStringLiteral("width=\"[0-9.]+mm\" height=\"[0-9.]+mm\""));
    QString text = QString::fromUtf8(svg);
    text.replace(text.indexOf(sizeAttributes), sizeAttributes.match(text).capturedLength(), size);
    return withGenericFamilies(text).toUtf8();
}

QByteArray FigureExporter::renderPdf(QString *error) const
{
    return renderVector(FigureFormat::Pdf, error);
}

QByteArray FigureExporter::render(FigureFormat format, QString *error) const
{
    switch (format) {
    case FigureFormat::Png: {
        const QImage image = renderImage(error);
        if (image.isNull())
            return {};
        QList<PngText> texts{{QStringLiteral("Software"), QStringLiteral("pescope " PE_VERSION)}};
        if (!m_options.title.isEmpty())
            texts.append({QStringLiteral("Title"), m_options.title});
        return encodePng(image, texts, error);
    }
    case FigureFormat::Svg:
        return renderSvg(error);
    case FigureFormat::Pdf:
        return renderPdf(error);
    }
    return {};
}

bool FigureExporter::writeFile(const QString &path, QString *error) const
{
    const std::optional<FigureFormat> format = figureFormatForPath(path);
    if (!format) {
        *error = QStringLiteral("cannot tell the format of \"%1\": the name must end in %2")
                     .arg(path, outputExtensionList(OutputKind::Figure));
        return false;
    }
    const QByteArray bytes = render(*format, error);
    if (bytes.isEmpty())
        return false;
    return writeFileAtomically(path, bytes, error);
}

} // namespace pe
