#include "figures/figurepainter.h"

#include "backends/parallel.h"
#include "figures/colormapgradient.h"
#include "figures/figurebuilder.h"
#include "figures/figurecaption.h"
#include "figures/viewfigures.h"

#include "figures/qcpinclude.h"

#include <QApplication>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

// A QCustomPlot that lays itself out on request, so the exporter knows the axis rects' sizes
// (and the heatmap's pixel budget) before it draws.
class ExportPlot : public QCustomPlot
{
public:
    void layoutAt(int width, int height)
    {
        setViewport(QRect(0, 0, width, height));
        updateLayout();
    }
};

// Draws a colour map's cells as one image at full resolution (or more: an integer number of
// image pixels per cell), in place of QCPColorMap's own vector path, which rasterises the map to
// three times the plot's size and so loses cells of large matrices and blurs small ones.
class EmbeddedColorMap : public QCPLayerable
{
public:
    EmbeddedColorMap(QCPColorMap *map, bool interpolate, double deviceScale)
        : QCPLayerable(map->parentPlot(), map->layer()->name()), m_map(map),
          m_interpolate(interpolate), m_deviceScale(deviceScale)
    {
        // First on the map's layer: the overlay lines and dots drawn after the map stay on top.
        moveToLayer(map->layer(), true);
    }

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override
    {
        painter->setAntialiasing(false);
    }

    QRect clipRect() const override { return m_map->keyAxis()->axisRect()->rect(); }

    void draw(QCPPainter *painter) override
    {
        QCPColorMapData *data = m_map->data();
        const int nk = data->keySize();
        const int nv = data->valueSize();
        if (nk < 1 || nv < 1)
            return;
        QCPAxis *keyAxis = m_map->keyAxis();
        QCPAxis *valueAxis = m_map->valueAxis();
        const QCPRange kr = data->keyRange();
        const QCPRange vr = data->valueRange();
        // Cells are centred on the data range's ends, as QCPColorMap draws them.
        const double kHalf = nk > 1 ? 0.5 * (kr.upper - kr.lower) / (nk - 1) : 0.5;
        const double vHalf = nv > 1 ? 0.5 * (vr.upper - vr.lower) / (nv - 1) : 0.5;
        double x0 = keyAxis->coordToPixel(kr.lower - kHalf);
        double x1 = keyAxis->coordToPixel(kr.upper + kHalf);
        double y0 = valueAxis->coordToPixel(vr.lower - vHalf);
        double y1 = valueAxis->coordToPixel(vr.upper + vHalf);

        // Image column k is key cell k, image row v is value cell v; mirrored below so that
        // the target rectangle is normalised.
        QImage image(nk, nv, QImage::Format_RGB32);
        QCPColorGradient gradient = m_map->gradient();
        const bool logarithmic = m_map->dataScaleType() == QCPAxis::stLogarithmic;
        std::vector<double> row(std::size_t(nk), 0.0);
        for (int v = 0; v < nv; ++v) {
            for (int k = 0; k < nk; ++k)
                row[std::size_t(k)] = data->cell(k, v);
            gradient.colorize(row.data(), m_map->dataRange(),
                              reinterpret_cast<QRgb *>(image.scanLine(v)), nk, 1, logarithmic);
        }
        const bool mirrorX = x1 < x0;
        const bool mirrorY = y1 < y0;
        if (mirrorX)
            std::swap(x0, x1);
        if (mirrorY)
            std::swap(y0, y1);
        if (mirrorX || mirrorY)
            image = image.mirrored(mirrorX, mirrorY);
        const QRectF target(QPointF(x0, y0), QPointF(x1, y1));

        if (!m_interpolate) {
            // Viewers smooth images they enlarge (PDF readers ignore /Interpolate false); with
            // at least one image pixel per device pixel, smoothing cannot blur across cells.
            const auto factor = [&](double pixels, int cells) {
                return qBound(1, int(std::ceil(pixels * m_deviceScale / cells)), 64);
            };
            int fx = factor(target.width(), nk);
            int fy = factor(target.height(), nv);
            while ((fx > 1 || fy > 1) && qint64(nk) * fx * qint64(nv) * fy > (qint64(1) << 25)) {
                fx = qMax(1, fx / 2);
                fy = qMax(1, fy / 2);
            }
            if (fx > 1 || fy > 1)
                image =
                    image.scaled(nk * fx, nv * fy, Qt::IgnoreAspectRatio, Qt::FastTransformation);
        }

        // Crop to the axis rect by hand (not every vector engine honours the clip region), but
        // not the pixel the map's edge may overhang the rect's whole-pixel bounds by.
        const QRectF clip = QRectF(clipRect()).adjusted(-1, -1, 1, 1).intersected(target);
        if (clip.isEmpty())
            return;
        const double sx = image.width() / target.width();
        const double sy = image.height() / target.height();
        const QRectF source((clip.left() - target.left()) * sx, (clip.top() - target.top()) * sy,
                            clip.width() * sx, clip.height() * sy);
        painter->save();
        painter->setRenderHint(QPainter::SmoothPixmapTransform, m_interpolate);
        painter->setRenderHint(QPainter::LosslessImageRendering, true);
        painter->drawImage(clip, image, source);
        painter->restore();
    }

private:
    QCPColorMap *m_map;
    bool m_interpolate;
    double m_deviceScale;
};

// A raster export's heatmap: draws the sampled grid as QCPColorMap::draw would (same cell
// geometry, colours, mirroring and smoothing, so the same pixels) straight from the grid, instead
// of copying each of its ~10^6 cells into the map's data as doubles first, which took longer
// than colouring and drawing them.
class RasterGridMap : public QCPLayerable
{
public:
    // QCPColorMap enlarges maps of 100 cells or fewer per axis before drawing them unsmoothed;
    // those are small enough to leave to it.
    static bool drawsLike(const HeatmapGridCells &cells, bool interpolate)
    {
        return interpolate || (cells.keySize > 100 && cells.valueSize > 100);
    }

    RasterGridMap(QCPColorMap *map, HeatmapGrid grid, const HeatmapGridCells &cells)
        : QCPLayerable(map->parentPlot(), map->layer()->name()), m_map(map),
          m_grid(std::move(grid)), m_cells(cells)
    {
        // Drawn where the (hidden) map was, in its layer's order: what followed the map (the
        // overlays) is moved behind this, which the constructor appended to the layer's end.
        QCPLayer *layer = map->layer();
        const QList<QCPLayerable *> children = layer->children();
        for (qsizetype i = children.indexOf(map) + 1; i < children.size(); ++i)
            if (children[i] != this)
                children[i]->setLayer(layer);
    }

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override
    {
        applyAntialiasingHint(painter, m_map->antialiased(), QCP::aePlottables);
    }

    QRect clipRect() const override
    {
        return m_map->keyAxis()->axisRect()->rect() & m_map->valueAxis()->axisRect()->rect();
    }

    void draw(QCPPainter *painter) override
    {
        QCPAxis *keyAxis = m_map->keyAxis();
        QCPAxis *valueAxis = m_map->valueAxis();
        const bool keyHorizontal = keyAxis->orientation() == Qt::Horizontal;
        const int keySize = m_cells.keySize;
        const int valueSize = m_cells.valueSize;
        // Image lines run along the horizontal axis, the last line holding the first cells.
        const int lines = keyHorizontal ? valueSize : keySize;
        const int along = keyHorizontal ? keySize : valueSize;
        QImage image(along, lines, QImage::Format_ARGB32_Premultiplied);
        if (image.isNull())
            return;
        const QCPRange dataRange = m_map->dataRange();
        const bool logarithmic = m_map->dataScaleType() == QCPAxis::stLogarithmic;
        parallelFor(0, lines, hardwareThreads(), 64, [&](qint64 begin, qint64 end) {
            QCPColorGradient gradient = m_map->gradient(); // one each: it fills a table lazily
            std::vector<double> row(std::size_t(along), 0.0);
            for (qint64 line = begin; line < end; ++line) {
                for (int a = 0; a < along; ++a)
                    row[std::size_t(a)] =
                        colormapCell(double(keyHorizontal ? m_cells.value(m_grid, a, int(line))
                                                          : m_cells.value(m_grid, int(line), a)));
                gradient.colorize(row.data(), dataRange,
                                  reinterpret_cast<QRgb *>(image.scanLine(int(lines - 1 - line))),
                                  along, 1, logarithmic);
            }
        });

        QRectF imageRect = QRectF(m_map->coordsToPixels(m_cells.keyLower, m_cells.valueLower),
                                  m_map->coordsToPixels(m_cells.keyUpper, m_cells.valueUpper))
                               .normalized();
        const double halfWidth =
            0.5 * imageRect.width() / double((keyHorizontal ? keySize : valueSize) - 1);
        const double halfHeight =
            0.5 * imageRect.height() / double((keyHorizontal ? valueSize : keySize) - 1);
        imageRect.adjust(-halfWidth, -halfHeight, halfWidth, halfHeight);
        const bool mirrorX = (keyHorizontal ? keyAxis : valueAxis)->rangeReversed();
        const bool mirrorY =
            (valueAxis->orientation() == Qt::Vertical ? valueAxis : keyAxis)->rangeReversed();
        painter->save();
        painter->setRenderHint(QPainter::SmoothPixmapTransform, m_map->interpolate());
        painter->drawImage(imageRect, image.mirrored(mirrorX, mirrorY));
        painter->restore();
    }

private:
    QCPColorMap *m_map;
    HeatmapGrid m_grid;
    HeatmapGridCells m_cells;
};

QFont titleFont(const QFont &base)
{
    QFont font = base;
    font.setPointSizeF(base.pointSizeF() + 4.0);
    font.setBold(true);
    return font;
}

// The style's axis titles, and room for the tick labels that overhang their axis rect: half a
// label's height above and below a vertical axis (the top "1" of the waves was cut), half the
// last label's width right of a horizontal one. QCustomPlot only reserves the labels' depth.
void dressPlot(QCustomPlot *plot, const FigureStyle &style)
{
    for (QCPAxisRect *rect : plot->axisRects()) {
        QMargins room = rect->minimumMargins();
        for (QCPAxis *axis : rect->axes()) {
            if (!axis->visible())
                continue;
            const bool horizontal = axis->orientation() == Qt::Horizontal;
            if (!axis->label().isEmpty()) {
                if (horizontal && !style.xLabel.isEmpty())
                    axis->setLabel(style.xLabel);
                if (!horizontal && !style.yLabel.isEmpty())
                    axis->setLabel(style.yLabel);
            }
            if (!axis->tickLabels())
                continue;
            const QFontMetrics metrics(axis->tickLabelFont());
            if (horizontal) {
                const QCPRange r = axis->range();
                const int half = qMax(metrics.horizontalAdvance(QString::number(r.upper, 'g', 6)),
                                      metrics.horizontalAdvance(QString::number(r.lower, 'g', 6))) /
                                     2 +
                                 2;
                room.setRight(qMax(room.right(), half));
            } else {
                const int half = metrics.height() / 2 + 2;
                room.setTop(qMax(room.top(), half));
                room.setBottom(qMax(room.bottom(), half));
            }
        }
        rect->setMinimumMargins(room);
    }
}

// Draws the title above and the caption below the panels (when the hooks ask for them) and
// returns the band they leave between them: its top and bottom.
std::pair<double, double> paintTitleAndCaption(QCPPainter *painter, const FigureState &state,
                                               const FigureOptions &options,
                                               const FigurePaintHooks &hooks,
                                               const PlotTheme &theme, const QFont &font, int width,
                                               int height)
{
    const double margin = 8.0;
    double top = 0.0;
    double bottom = height;
    if (!options.title.isEmpty()) {
        const QFont f = titleFont(font);
        const QFontMetricsF metrics(f);
        const QRectF band(margin, 0, width - 2 * margin,
                          metrics.boundingRect(QRectF(0, 0, width - 2 * margin, height),
                                               Qt::TextWordWrap | Qt::AlignCenter, options.title)
                                  .height() +
                              metrics.height() * 0.8);
        painter->setFont(f);
        painter->setPen(theme.foreground);
        if (hooks.titleAndCaption)
            painter->drawText(band, Qt::TextWordWrap | Qt::AlignCenter, options.title);
        top = band.bottom();
    }
    if (options.caption || !options.captionText.isEmpty()) {
        const QString text = options.captionText.isEmpty()
                                 ? figureCaption(state, options.views, options.style.showSelection)
                                 : options.captionText;
        const QFontMetricsF metrics(font);
        const double textHeight = metrics
                                      .boundingRect(QRectF(0, 0, width - 2 * margin, height),
                                                    Qt::TextWordWrap | Qt::AlignCenter, text)
                                      .height();
        const QRectF band(margin, height - textHeight - metrics.height() * 0.8, width - 2 * margin,
                          textHeight + metrics.height() * 0.4);
        painter->setFont(font);
        painter->setPen(theme.foreground);
        if (hooks.titleAndCaption)
            painter->drawText(band, Qt::TextWordWrap | Qt::AlignCenter, text);
        bottom = band.top();
    }
    return {top, bottom};
}

// Stacked panels with one axis rect each share their left and right edges, so positions line
// up across them (Fig 16-9's waves over its heatmap). `bands`: each panel's top and bottom.
void alignPanelEdges(const std::vector<std::unique_ptr<ExportPlot>> &plots,
                     const std::vector<std::pair<int, int>> &bands, int width)
{
    int left = 0, right = width;
    for (const auto &plot : plots)
        if (plot->axisRectCount() == 1) {
            left = qMax(left, plot->axisRect()->rect().left());
            right = qMin(right, plot->axisRect()->rect().right());
        }
    for (std::size_t i = 0; i < plots.size(); ++i) {
        ExportPlot &plot = *plots[i];
        if (plot.axisRectCount() != 1)
            continue;
        QCPAxisRect *rect = plot.axisRect();
        const QMargins m = rect->margins();
        const QMargins keep = rect->minimumMargins();
        rect->setMinimumMargins(QMargins(m.left() + left - rect->rect().left(), keep.top(),
                                         m.right() + rect->rect().right() - right, keep.bottom()));
        plot.layoutAt(width, bands[i].second - bands[i].first);
    }
}

// Fills a laid-out heatmap with its cells at the resolution the target needs: a raster one
// value per device pixel, a vector file at most figurelimits::maxEmbeddedCells cells (and
// hooks.maxEmbeddedSide a side).
void fillHeatmap(FigureBuilder &builder, const HeatmapFigure &heatmap, FigureTarget target,
                 const FigureState &state, const EncodingResult &result,
                 const FigureOptions &options, const FigurePaintHooks &hooks, double deviceScale)
{
    const CellWindow window = fullWindow(result.spec, state.heatmapDimLimit());
    qint64 rowPixels = window.rows(), colPixels = window.cols();
    if (target == FigureTarget::Raster) {
        // As the window does: one value per device pixel, each the mean of its cells.
        const QSize area = heatmap.rect->rect().size();
        const qint64 wide = qint64(std::ceil(area.width() * deviceScale));
        const qint64 high = qint64(std::ceil(area.height() * deviceScale));
        rowPixels = state.transposed() ? wide : high;
        colPixels = state.transposed() ? high : wide;
    } else {
        const double cells = double(window.rows()) * double(window.cols());
        if (cells > double(figurelimits::maxEmbeddedCells)) {
            const double shrink = std::sqrt(double(figurelimits::maxEmbeddedCells) / cells);
            rowPixels = qMax<qint64>(1, qint64(window.rows() * shrink));
            colPixels = qMax<qint64>(1, qint64(window.cols() * shrink));
        }
        if (hooks.maxEmbeddedSide > 0) {
            rowPixels = std::min(rowPixels, hooks.maxEmbeddedSide);
            colPixels = std::min(colPixels, hooks.maxEmbeddedSide);
        }
    }
    HeatmapGrid grid = sampleGrid(*result.matrix, window, rowPixels, colPixels);
    const HeatmapGridCells cells = heatmapGridCells(grid, state.transposed());
    if (target == FigureTarget::Raster && !hooks.heatmapsAsColorMaps &&
        RasterGridMap::drawsLike(cells, options.interpolate)) {
        new RasterGridMap(heatmap.map, std::move(grid), cells);
        heatmap.map->setVisible(false);
    } else {
        builder.setHeatmapGrid(heatmap, grid);
    }
}

// Every colour map interpolated as asked; in a vector file, each drawn as one embedded image.
void prepareColorMaps(QCustomPlot *plot, FigureTarget target, const FigureOptions &options,
                      double deviceScale)
{
    for (int p = 0; p < plot->plottableCount(); ++p) {
        auto *map = qobject_cast<QCPColorMap *>(plot->plottable(p));
        if (!map)
            continue;
        map->setInterpolate(options.interpolate);
        if (target == FigureTarget::Vector && map->keyAxis()->orientation() == Qt::Horizontal) {
            // The axis rect fills its background on its own layer; moved below the map's
            // layer, it cannot cover the image drawn first on that layer.
            map->keyAxis()->axisRect()->setLayer(QStringLiteral("background"));
            new EmbeddedColorMap(map, options.interpolate, deviceScale);
            map->setVisible(false);
        }
    }
}

// An SVG's or PDF's text is drawn in the reader's fonts (a browser's for an SVG), often wider
// than the ones Qt measured: each legend entry keeps room after its text, 15% of it, so that a
// wider text does not run into the next entry's line sample (issue 46.8). A legend in rows is
// wrapped again to the page's width with the wider entries.
void padLegendsForOtherFonts(QCustomPlot *plot, int width)
{
    for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
        int widest = 0;
        for (int i = 0; i < legend->itemCount(); ++i) {
            auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
            if (!item)
                continue;
            const int text =
                QFontMetrics(item->font())
                    .boundingRect(0, 0, 0, 0, Qt::TextDontClip, item->plottable()->name())
                    .width();
            QMargins margins = item->margins();
            margins.setRight(margins.right() + std::max(4, int(std::ceil(0.15 * text))));
            item->setMargins(margins);
            const QCPLayoutElement *element = item; // QCPPlottableLegendItem hides it
            widest = std::max(widest, element->minimumOuterSizeHint().width());
        }
        if (legend->fillOrder() == QCPLayoutGrid::foColumnsFirst && legend->wrap() > 1) {
            const int perRow = std::clamp(
                (width - 40) / std::max(1, widest + legend->columnSpacing()), 1, legend->wrap());
            legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
            legend->setWrap(perRow);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        }
        // A legend beside or below the plot is held at its size (figurebuilder's centred()).
        if (legend->maximumSize().width() < QWIDGETSIZE_MAX)
            legend->setMaximumSize(legend->minimumOuterSizeHint());
    }
}

} // namespace

std::pair<int, int> figureLayoutSize(const FigureOptions &options)
{
    const double deviceScale = options.dpi / figureBaseDpi();
    return {int(std::lround(options.width / deviceScale)),
            int(std::lround(options.height / deviceScale))};
}

bool paintFigure(QCPPainter *painter, FigureTarget target, const FigureState &state,
                 const FigureData &data, const FigureOptions &options, QString *error,
                 const FigurePaintHooks &hooks)
{
    const double deviceScale = options.dpi / figureBaseDpi();
    const auto [width, height] = figureLayoutSize(options);
    const PlotTheme theme = options.printTheme ? printPlotTheme() : plotTheme(state.theme());
    FigureBuilder builder(state, theme);
    builder.setShowSelection(options.style.showSelection);
    builder.setLegendPlace(options.style.legend);
    builder.setColorbarPlace(options.style.colorbar);

    if (hooks.background)
        painter->fillRect(QRectF(0, 0, width, height), theme.background);

    QFont font = QApplication::font("QCustomPlot");
    font.setPointSizeF(font.pointSizeF() * options.style.fontScale);
    const auto [top, bottom] =
        paintTitleAndCaption(painter, state, options, hooks, theme, font, width, height);
    if (bottom - top < 60.0) {
        *error = QStringLiteral("the title and caption leave no room for the figure at %1 x %2 "
                                "pixels")
                     .arg(options.width)
                     .arg(options.height);
        return false;
    }

    const int panels = int(options.views.size());
    std::vector<std::unique_ptr<ExportPlot>> plots;
    std::vector<HeatmapFigure> heatmaps;
    std::vector<std::pair<int, int>> bands;
    for (int i = 0; i < panels; ++i) {
        const int y0 = int(std::lround(top + (bottom - top) * i / panels));
        const int y1 = int(std::lround(top + (bottom - top) * (i + 1) / panels));
        bands.emplace_back(y0, y1);
        auto &plot = plots.emplace_back(std::make_unique<ExportPlot>());
        plot->setFont(font);
        plot->setViewport(QRect(0, 0, width, y1 - y0)); // the builders size legends by it
        const FigureView view = options.views[i];
        heatmaps.push_back(viewFigure(view).build(
            {view, plot.get(), builder, state, theme, data, options, false}));
        dressPlot(plot.get(), options.style);
        if (target == FigureTarget::Vector)
            padLegendsForOtherFonts(plot.get(), width);
        plot->layoutAt(width, y1 - y0);
    }
    if (panels > 1)
        alignPanelEdges(plots, bands, width);

    for (int i = 0; i < panels; ++i) {
        ExportPlot &plot = *plots[std::size_t(i)];
        const auto [y0, y1] = bands[std::size_t(i)];
        // Large fonts on small pages: legend entries wider than their room take two lines.
        if (fitLegends(&plot))
            plot.layoutAt(width, y1 - y0);
        if (const HeatmapFigure &heatmap = heatmaps[std::size_t(i)]; heatmap.map)
            fillHeatmap(builder, heatmap, target, state, *data.encoding, options, hooks,
                        deviceScale);
        prepareColorMaps(&plot, target, options, deviceScale);
        if (hooks.beforePaint)
            hooks.beforePaint(i, &plot);
        painter->save();
        painter->translate(0, y0);
        plot.toPainter(painter, width, y1 - y0);
        painter->restore();
    }
    return true;
}

} // namespace pe
