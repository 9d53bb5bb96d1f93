#include "figures/animationexporter.h"

#include "figures/figurebuilder.h"
#include "figures/figureexporter.h"
#include "figures/figurepainter.h"
#include "media/outputformats.h"

#include "figures/qcpinclude.h"

#include <cmath>

namespace pe {

namespace {

// The moving part of a waves figure: what the builder drew at the first marker (its dashed line
// and the dots on the curves), whatever other markers stand still.
bool isMoving(const QCPAbstractPlottable *plottable)
{
    return plottable->property(firstMarkerProperty).toBool();
}

void setLayersVisible(QCustomPlot *plot, std::initializer_list<const char *> names, bool visible)
{
    for (const char *name : names)
        if (QCPLayer *layer = plot->layer(QString::fromLatin1(name)))
            layer->setVisible(visible);
}

int dotsPerMeter(double dpi)
{
    return int(std::lround(dpi / 0.0254));
}

} // namespace

AnimationExporter::AnimationExporter(const FigureState &state, const FigureOptions &figure,
                                     const FigureAnimation &animation)
    : m_state(state), m_figure(figure), m_animation(animation)
{}

std::optional<VideoSettings> AnimationExporter::videoSettings(const QString &path, int fps,
                                                              QString *error) const
{
    const std::optional<VideoFormat> format = videoFormatForPath(path);
    if (!format) {
        *error = QStringLiteral("cannot tell the format of \"%1\": an animation's name ends in %2")
                     .arg(path, outputExtensionList(OutputKind::Animation));
        return std::nullopt;
    }
    VideoSettings settings;
    settings.format = *format;
    settings.width = int(m_figure.width);
    settings.height = int(m_figure.height);
    settings.frames = m_animation.frames();
    settings.fps = fps;
    return settings;
}

bool AnimationExporter::apply(int frame, QString *error)
{
    return m_animation.apply(m_state, frame, error);
}

bool AnimationExporter::hasData() const
{
    return figureDataMatches(drawnFigureInputs(m_state, m_figure.views, m_figure.choices),
                             m_figure.views, m_data);
}

bool AnimationExporter::prepare(int frame, Backend &backend, QString *error)
{
    if (!apply(frame, error))
        return false;
    // Kept members that still match are not computed again (a moving marker never is).
    return hasData() ||
           computeFigureData(m_state, m_figure.views, m_figure.choices, backend, &m_data, error);
}

QImage AnimationExporter::renderStill(int frame, Backend &backend, QString *error)
{
    if (!prepare(frame, backend, error))
        return {};
    return FigureExporter(m_state, m_data, m_figure).renderImage(error);
}

QImage AnimationExporter::renderFrame(int frame, Backend &backend, QString *error)
{
    if (!prepare(frame, backend, error))
        return {};
    return render(error);
}

// Paints the still part (everything but the moving marker, its dots and the legend) into a
// new image, or the moving part and the legend over `image`, with the painter
// set up as FigureExporter::renderImage sets it up.
QImage AnimationExporter::paint(QImage image, bool still, QString *error) const
{
    const double base = figureBaseDpi();
    image.setDotsPerMeterX(dotsPerMeter(base));
    image.setDotsPerMeterY(dotsPerMeter(base));
    FigurePaintHooks hooks;
    hooks.background = still;
    hooks.titleAndCaption = still;
    // FigureBuilder's axis rects put their axes and grids on the main layer under the curves
    // (only QCustomPlot's default rect uses the "axes" and "grid" layers): the still part has
    // them; the moving part is the marker's plottables and the legend, drawn on top.
    hooks.heatmapsAsColorMaps = true; // plottables, shown or hidden per part below
    hooks.beforePaint = [&](int, QCustomPlot *plot) {
        setLayersVisible(plot, {"legend"}, !still);
        setLayersVisible(plot, {"axes"}, still);
        if (!still) {
            plot->setBackground(QBrush(Qt::NoBrush));
            for (QCPAxisRect *rect : plot->axisRects()) {
                rect->setBackground(QBrush(Qt::NoBrush));
                // Moved to a hidden layer, not hidden themselves: hidden axes take no margin,
                // which would move the axis rect.
                for (QCPAxis *axis : rect->axes()) {
                    axis->setLayer(QStringLiteral("axes"));
                    axis->grid()->setLayer(QStringLiteral("axes"));
                }
            }
            for (int i = 0; i < plot->itemCount(); ++i)
                plot->item(i)->setVisible(false);
        }
        for (int i = 0; i < plot->plottableCount(); ++i)
            plot->plottable(i)->setVisible(isMoving(plot->plottable(i)) != still);
    };
    {
        QCPPainter painter(&image);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.scale(m_figure.dpi / base, m_figure.dpi / base);
        if (!paintFigure(&painter, FigureTarget::Raster, m_state, m_data, m_figure, error, hooks))
            return {};
    }
    image.setDotsPerMeterX(dotsPerMeter(m_figure.dpi));
    image.setDotsPerMeterY(dotsPerMeter(m_figure.dpi));
    return image;
}

QImage AnimationExporter::render(QString *error)
{
    if (m_still.isNull()) {
        m_markerOnly = m_animation.animatesPosition() &&
                       m_figure.views == QList<FigureView>{FigureView::Waves} &&
                       !m_state.markers().isEmpty();
        if (m_markerOnly) {
            QImage image(int(m_figure.width), int(m_figure.height), QImage::Format_RGB32);
            if (image.isNull()) {
                *error = QStringLiteral("not enough memory for a %1 x %2 image")
                             .arg(m_figure.width)
                             .arg(m_figure.height);
                return {};
            }
            m_still = paint(image, true, error);
            if (m_still.isNull())
                return {};
        }
    }
    if (!m_markerOnly)
        return FigureExporter(m_state, m_data, m_figure).renderImage(error);
    return paint(m_still.copy(), false, error);
}

VideoEncoder::Status AnimationExporter::write(const QString &path, int fps, Backend &backend,
                                              const VideoEncoder::Progress &progress,
                                              QString *error)
{
    const std::optional<VideoSettings> settings = videoSettings(path, fps, error);
    if (!settings)
        return VideoEncoder::Status::Failed;
    return VideoEncoder::encode(
        path, *settings,
        [this, &backend](int frame, QString *e) { return renderFrame(frame, backend, e); },
        progress, error);
}

} // namespace pe
