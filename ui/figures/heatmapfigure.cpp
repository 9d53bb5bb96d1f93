#include "figures/figurebuilder.h"

#include "figures/colormapgradient.h"
#include "figures/figureparts.h"

#include "figures/qcpinclude.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace pe {

namespace {

QCPItemStraightLine *addLine(QCPAxisRect *rect, QCPAxis *keyAxis, QCPAxis *valueAxis, double k1,
                             double v1, double k2, double v2, const QPen &pen)
{
    auto *line = new QCPItemStraightLine(rect->parentPlot());
    line->setClipAxisRect(rect);
    for (QCPItemPosition *pos : {line->point1, line->point2})
        pos->setAxes(keyAxis, valueAxis);
    line->point1->setCoords(k1, v1);
    line->point2->setCoords(k2, v2);
    line->setPen(pen);
    return line;
}

} // namespace

HeatmapRanges FigureBuilder::fullHeatmapRanges(const EncodingSpec &spec) const
{
    const CellWindow full = fullWindow(spec, m_state.heatmapDimLimit());
    return {-0.5, double(full.rows()) - 0.5, -0.5, double(full.cols()) - 0.5};
}

HeatmapFigure FigureBuilder::buildHeatmap(QCustomPlot *plot, const EncodingResult &result,
                                          const HeatmapGrid &grid,
                                          const std::optional<HeatmapRanges> &ranges) const
{
    resetFigure(plot, m_theme);
    const bool transposed = m_state.transposed();
    auto *rect = new QCPAxisRect(plot, true);
    plot->plotLayout()->addElement(0, 0, rect);
    QCPAxis *bottom = rect->axis(QCPAxis::atBottom);
    QCPAxis *top = rect->axis(QCPAxis::atTop);
    QCPAxis *left = rect->axis(QCPAxis::atLeft);
    QCPAxis *right = rect->axis(QCPAxis::atRight);
    // matshow labels columns along the top; Fig 16-9 (transposed) has positions at the bottom.
    QCPAxis *keyAxis = transposed ? bottom : top;
    QCPAxis *keyMirror = transposed ? top : bottom;
    matshowAxis(keyAxis, true);
    matshowAxis(keyMirror, false);
    matshowAxis(left, true);
    matshowAxis(right, false);
    // origin "upper" (matshow): row 0 at the top; "lower": at the bottom, as Fig 16-9 in the book.
    const bool rowZeroTop = m_state.viewOptions().origin == Origin::Upper;
    left->setRangeReversed(rowZeroTop);
    right->setRangeReversed(rowZeroTop);
    QObject::connect(keyAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), keyMirror,
                     qOverload<const QCPRange &>(&QCPAxis::setRange));
    QObject::connect(left, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), right,
                     qOverload<const QCPRange &>(&QCPAxis::setRange));

    HeatmapFigure figure;
    figure.rect = rect;
    figure.positionAxis = transposed ? keyAxis : left;
    figure.dimAxis = transposed ? left : keyAxis;
    // The scheme's own names: ALiBi's and T5's columns are key positions, not dimensions.
    const SchemeAxes axes = result.spec.axes();
    figure.positionAxis->setLabel(axes.rows);
    figure.dimAxis->setLabel(axes.columns);

    const ColorRange range = colorRangeFor(result.minimum, result.maximum);
    figure.map = new QCPColorMap(keyAxis, left);
    figure.map->setInterpolate(false);
    figure.map->setTightBoundary(false);
    figure.map->setGradient(colormapGradient(m_state.colormap()));
    figure.map->setDataRange(QCPRange(range.lower, range.upper));
    setHeatmapGrid(figure, grid);

    figure.scale = addColorScale(plot, plot->plotLayout(), 0, 1, m_state.colormap(), range,
                                 result.spec.axes().values);
    auto *group = new QCPMarginGroup(plot);
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    figure.scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);

    const HeatmapRanges r = ranges.value_or(fullHeatmapRanges(result.spec));
    figure.positionAxis->setRange(r.positionLower, r.positionUpper);
    figure.dimAxis->setRange(r.dimLower, r.dimUpper);

    // Overlays, as Fig 16-9 draws them: a line along each wave dim in its curve's colour,
    // dashed lines at the marker positions (the later ones faded), dots where they cross.
    auto coords = [&](double position, double dim) {
        return transposed ? std::pair{position, dim} : std::pair{dim, position};
    };
    const QList<qint64> dims = plottedDims();
    const qint64 visibleDims = fullWindow(result.spec, m_state.heatmapDimLimit()).cols();
    const QList<double> rows = overlayRows(dims, visibleDims);
    for (int i = 0; i < dims.size(); ++i) {
        if (dims[i] >= visibleDims)
            continue;
        const auto [k1, v1] = coords(0.0, rows[i]);
        const auto [k2, v2] = coords(1.0, rows[i]);
        addLine(rect, keyAxis, left, k1, v1, k2, v2, QPen(m_theme.curve(i), 1.5));
    }
    for (int m = 0; m < m_state.markers().size(); ++m) {
        const qint64 p = m_state.markers()[m];
        if (p >= result.spec.positions)
            continue;
        const auto [k1, v1] = coords(double(p), 0.0);
        const auto [k2, v2] = coords(double(p), 1.0);
        addLine(rect, keyAxis, left, k1, v1, k2, v2, markerPen(m));
    }
    for (int i = 0; i < dims.size(); ++i) {
        if (dims[i] >= visibleDims || m_state.markers().isEmpty())
            continue;
        auto *dots = new QCPGraph(keyAxis, left);
        dots->setLineStyle(QCPGraph::lsNone);
        dots->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, m_theme.curve(i), m_theme.curve(i), 7));
        for (qint64 p : m_state.markers())
            if (p < result.spec.positions) {
                const auto [k, v] = coords(double(p), rows[i]);
                dots->addData(k, v);
            }
    }
    const Selection sel = m_state.selection();
    if (m_showSelection && sel.position < result.spec.positions && sel.dim < visibleDims) {
        const auto [k0, v0] = coords(double(sel.position) - 0.5, double(sel.dim) - 0.5);
        const auto [k1, v1] = coords(double(sel.position) + 0.5, double(sel.dim) + 0.5);
        addOutline(rect, keyAxis, left, k0, v0, k1, v1, QPen(m_theme.selection, 2));
    }

    rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    rect->setRangeDragAxes(keyAxis, left);
    rect->setRangeZoomAxes(keyAxis, left);
    applyPlotTheme(plot, m_theme);
    for (QCPAxis *axis : rect->axes())
        axis->grid()->setVisible(false);
    return figure;
}

HeatmapGridCells heatmapGridCells(const HeatmapGrid &grid, bool transposed)
{
    const qint64 keyCells = transposed ? grid.rows : grid.cols;
    const qint64 valueCells = transposed ? grid.cols : grid.rows;
    const double keySpan = double(transposed ? grid.window.rows() : grid.window.cols());
    const double valueSpan = double(transposed ? grid.window.cols() : grid.window.rows());
    const double keyStart = double(transposed ? grid.window.row0 : grid.window.col0) - 0.5;
    const double valueStart = double(transposed ? grid.window.col0 : grid.window.row0) - 0.5;
    // Centre of grid cell k of n cells spanning `span` matrix cells from `start`; a single grid
    // cell is doubled (see addMatrixMap) with centres at a quarter and three quarters.
    auto centres = [](double start, double span, qint64 n) {
        if (n == 1)
            return std::pair(start + span * 0.25, start + span * 0.75);
        const double w = span / double(n);
        return std::pair(start + 0.5 * w, start + (double(n) - 0.5) * w);
    };
    HeatmapGridCells cells;
    cells.keyCells = keyCells;
    cells.valueCells = valueCells;
    cells.keySize = int(qMax<qint64>(2, keyCells));
    cells.valueSize = int(qMax<qint64>(2, valueCells));
    std::tie(cells.keyLower, cells.keyUpper) = centres(keyStart, keySpan, keyCells);
    std::tie(cells.valueLower, cells.valueUpper) = centres(valueStart, valueSpan, valueCells);
    cells.transposed = transposed;
    return cells;
}

void FigureBuilder::setHeatmapGrid(const HeatmapFigure &figure, const HeatmapGrid &grid) const
{
    const HeatmapGridCells cells = heatmapGridCells(grid, m_state.transposed());
    QCPColorMapData *data = figure.map->data();
    data->setSize(cells.keySize, cells.valueSize);
    data->setRange(QCPRange(cells.keyLower, cells.keyUpper),
                   QCPRange(cells.valueLower, cells.valueUpper));
    for (int v = 0; v < cells.valueSize; ++v)
        for (int k = 0; k < cells.keySize; ++k)
            data->setCell(k, v, colormapCell(double(cells.value(grid, k, v))));
}

QList<double> overlayRows(const QList<qint64> &dims, qint64 rowCount)
{
    // Adjacent dims (Fig 16-9's i = 100 and i = 101) would hide each other's line on the heatmap:
    // the notebook raises the second by two rows ("cheat = 2"), and so does pescope, for each
    // plotted dim within two rows of an earlier one; lowered instead where raising would leave
    // the rows shown, and checked again against every earlier line after each move.
    QList<double> rows;
    const double last = double(rowCount - 1);
    for (qint64 dim : dims) {
        double row = double(dim);
        for (int attempt = 0; attempt < 8; ++attempt) {
            const auto clash = std::find_if(rows.cbegin(), rows.cend(),
                                            [&](double e) { return std::abs(row - e) < 2.0; });
            if (clash == rows.cend())
                break;
            row = *clash + 2.0 <= last ? *clash + 2.0 : *clash - 2.0;
            if (row < 0) {
                row = double(dim); // no room either way: drawn on its own row
                break;
            }
        }
        rows.append(row);
    }
    return rows;
}

} // namespace pe
