#include "figures/figurebuilder.h"

#include "figures/colormapgradient.h"
#include "figures/fittedtext.h"
#include "figures/minmaxband.h"

#include "analysis/phraseanalysis.h"

#include "figures/qcpinclude.h"

#include <QFontMetrics>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>

namespace pe {

namespace {

// Room between a legend placed outside the plot and the page's edge.
constexpr int legendEdgeRoom = 4;

// Wave curves are decimated to a min/max envelope beyond this many points per curve.
constexpr qint64 maxCurvePoints = 16384;
// Waves of more positions than this per pixel are drawn as min-max bands.
constexpr int bandPositionsPerPixel = 8;

// Column `dim` against position, as plot data; a min/max envelope per bucket when long.
QSharedPointer<QCPGraphDataContainer> columnData(const ColumnView &column)
{
    auto data = QSharedPointer<QCPGraphDataContainer>::create();
    if (!column.isValid())
        return data;
    QVector<QCPGraphData> points;
    const qint64 rows = column.rows;
    if (rows <= maxCurvePoints) {
        points.reserve(rows);
        for (qint64 p = 0; p < rows; ++p)
            points.append(QCPGraphData(double(p), double(column.at(p))));
    } else {
        const qint64 bucket = (rows + maxCurvePoints / 2 - 1) / (maxCurvePoints / 2);
        points.reserve(maxCurvePoints + 2);
        for (qint64 b = 0; b < rows; b += bucket) {
            qint64 lo = b, hi = b;
            for (qint64 p = b; p < qMin(rows, b + bucket); ++p) {
                if (column.at(p) < column.at(lo))
                    lo = p;
                if (column.at(p) > column.at(hi))
                    hi = p;
            }
            for (qint64 p : {qMin(lo, hi), qMax(lo, hi)})
                points.append(QCPGraphData(double(p), double(column.at(p))));
        }
    }
    data->set(points, true);
    return data;
}

// matplotlib-style ticks: outward, no minor ticks, no grid (matshow).
void matshowAxis(QCPAxis *axis, bool labels)
{
    axis->setVisible(true);
    axis->setTickLabels(labels);
    axis->setTickLengthIn(0);
    axis->setTickLengthOut(4);
    axis->setSubTicks(false);
    axis->grid()->setVisible(false);
}

// A title whose lines are elided to the width its column gets (fittedtext.h): a long title
// never widens its column past the figure.
FittedTextElement *addTitle(QCustomPlot *plot, QCPLayoutGrid *grid, int row, int column,
                            const QString &text, double pointSizeDelta, bool bold)
{
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() + pointSizeDelta);
    font.setBold(bold);
    auto *title = new FittedTextElement(plot, text, font);
    grid->addElement(row, column, title);
    return title;
}

QCPColorScale *addColorScale(QCustomPlot *plot, QCPLayoutGrid *grid, int row, int column,
                             Colormap map, const ColorRange &range, const QString &label)
{
    auto *scale = new QCPColorScale(plot);
    grid->addElement(row, column, scale);
    scale->setType(QCPAxis::atRight);
    scale->setGradient(colormapGradient(map));
    scale->setDataRange(QCPRange(range.lower, range.upper));
    scale->setBarWidth(12);
    // A fixed width, so heatmaps in rows whose colorbars have different tick labels line up.
    scale->setMinimumSize(72, 0);
    scale->setMaximumSize(72, QWIDGETSIZE_MAX);
    scale->axis()->setLabel(label);
    scale->axis()->setSubTicks(false);
    return scale;
}

// A matshow cell plot: columns on the top axis, rows down the left axis, row 0 at the top.
// The first drawn row is matrix row `rowStart`; the `cols` drawn columns cover `colSpan` matrix
// columns evenly (more than `cols`: sampled, see sampledIndex). value(r, k) takes drawn indices.
QCPColorMap *addMatrixMap(QCPAxisRect *rect, qint64 rows, qint64 cols, Colormap map,
                          const ColorRange &range,
                          const std::function<float(qint64, qint64)> &value, qint64 rowStart = 0,
                          qint64 colSpan = 0)
{
    if (colSpan < cols)
        colSpan = cols;
    QCPAxis *top = rect->axis(QCPAxis::atTop);
    QCPAxis *left = rect->axis(QCPAxis::atLeft);
    QCPAxis *bottom = rect->axis(QCPAxis::atBottom);
    QCPAxis *right = rect->axis(QCPAxis::atRight);
    matshowAxis(top, true);
    matshowAxis(left, true);
    matshowAxis(bottom, false);
    matshowAxis(right, false);
    left->setRangeReversed(true);
    right->setRangeReversed(true);
    auto *colorMap = new QCPColorMap(top, left);
    colorMap->setInterpolate(false);
    colorMap->setGradient(colormapGradient(map));
    colorMap->setDataRange(QCPRange(range.lower, range.upper));
    // QCPColorMap needs two cells per axis to know a cell's size; a single row or column is
    // doubled with centres a quarter cell either side.
    const int keySize = int(qMax<qint64>(2, cols));
    const int valueSize = int(qMax<qint64>(2, rows));
    colorMap->data()->setSize(keySize, valueSize);
    const double cellWidth = double(colSpan) / double(cols);
    const double first = double(rowStart);
    colorMap->data()->setRange(
        cols == 1 ? QCPRange(-0.5 + 0.25 * cellWidth, -0.5 + 0.75 * cellWidth)
                  : QCPRange(-0.5 + 0.5 * cellWidth, -0.5 + (double(cols) - 0.5) * cellWidth),
        rows == 1 ? QCPRange(first - 0.25, first + 0.25)
                  : QCPRange(first, first + double(rows - 1)));
    for (int v = 0; v < valueSize; ++v)
        for (int k = 0; k < keySize; ++k)
            colorMap->data()->setCell(
                k, v, double(value(qMin<qint64>(v, rows - 1), qMin<qint64>(k, cols - 1))));
    for (QCPAxis *axis : {top, bottom})
        axis->setRange(-0.5, double(colSpan) - 0.5);
    for (QCPAxis *axis : {left, right})
        axis->setRange(first - 0.5, first + double(rows) - 0.5);
    return colorMap;
}

// The matrix index drawn cell k of `drawn` cells shows when they cover `span` indices: the one
// at the cell's centre (nearest-neighbour sampling; k itself when drawn == span).
qint64 sampledIndex(qint64 k, qint64 drawn, qint64 span)
{
    return qMin(span - 1, (2 * k + 1) * span / (2 * drawn));
}

// "Phrases 9–16 of 40 · tokens 257–512 of 1000 · every 2nd of 1024 dims": what a capped phrase
// figure leaves out; empty when it draws everything.
QString phraseWindowNote(const PhraseWindow &w, const PhraseSettings &s, bool phrases)
{
    QStringList parts;
    if (phrases && w.phrases() < s.phrases.size())
        parts.append(QStringLiteral("phrases %1–%2 of %3")
                         .arg(w.firstPhrase + 1)
                         .arg(w.endPhrase)
                         .arg(s.phrases.size()));
    if (w.tokens() < s.sequenceLength)
        parts.append(QStringLiteral("tokens %1–%2 of %3")
                         .arg(w.firstToken)
                         .arg(w.endToken - 1)
                         .arg(s.sequenceLength));
    if (w.dimStride > 1)
        parts.append(QStringLiteral("%1 of %2 dims (sampled)").arg(w.drawnDims()).arg(s.dims));
    if (parts.isEmpty())
        return {};
    QString text = parts.join(QStringLiteral(" · "));
    return text.left(1).toUpper() + text.mid(1);
}

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

QCPItemRect *addOutline(QCPAxisRect *rect, QCPAxis *keyAxis, QCPAxis *valueAxis, double k0,
                        double v0, double k1, double v1, const QPen &pen)
{
    auto *box = new QCPItemRect(rect->parentPlot());
    box->setClipAxisRect(rect);
    for (QCPItemPosition *pos : {box->topLeft, box->bottomRight})
        pos->setAxes(keyAxis, valueAxis);
    box->topLeft->setCoords(k0, v0);
    box->bottomRight->setCoords(k1, v1);
    box->setPen(pen);
    box->setBrush(Qt::NoBrush);
    return box;
}

QString shortText(const QString &text, int length)
{
    return text.size() <= length ? text : text.left(length - 1) + QStringLiteral("…");
}

// `text` broken at spaces into lines no wider than `width` pixels in `font` (a title must not
// run off a narrow panel, nor a legend entry off the page); a single word wider than that stays
// whole, and the text's own line breaks stay.
QString wrapText(const QString &text, const QFont &font, int width)
{
    const QFontMetrics metrics(font);
    QStringList lines;
    for (const QString &paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (const QString &word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (!line.isEmpty() && metrics.horizontalAdvance(candidate) > width) {
                lines.append(line);
                line = word;
            } else {
                line = candidate;
            }
        }
        if (!line.isEmpty())
            lines.append(line);
    }
    return lines.join(QLatin1Char('\n'));
}

// "Phrase 1 cut to its first 20 of 1,666 tokens": the phrases of the page that the sequence length
// truncated (Keras keeps the first output_sequence_length tokens); empty when none was.
QString truncationNote(const PhraseResult &result, const PhraseWindow &w)
{
    const std::vector<qint64> &counts = result.fixed.tokenCounts;
    const qint64 length = result.settings.sequenceLength;
    QStringList cut;
    qint64 more = 0;
    for (qint64 b = w.firstPhrase; b < w.endPhrase && b < qint64(counts.size()); ++b) {
        if (counts[std::size_t(b)] <= length)
            continue;
        if (cut.size() == 2) {
            ++more;
            continue;
        }
        cut.append(QStringLiteral("%1 cut to its first %2 of %3 tokens")
                       .arg(shortText(result.settings.title(int(b)), 24))
                       .arg(length)
                       .arg(QLocale(QLocale::English).toString(counts[std::size_t(b)])));
    }
    if (cut.isEmpty())
        return {};
    QString text = cut.join(QStringLiteral(" · "));
    if (more > 0)
        text += QStringLiteral(" · %1 more cut").arg(more);
    return text + QStringLiteral(" (sequence length %1)").arg(length);
}

// An element that keeps `element` at its minimum size, centred in the cell it gets: QCPLayoutGrid
// stretches elements to their cells, and a stretched legend draws a stretched frame.
QCPLayoutGrid *centred(QCustomPlot *plot, QCPLayoutElement *element, Qt::Orientation along)
{
    auto *grid = new QCPLayoutGrid;
    // QCPLegend strokes its frame on its outer rect, one pixel past its right and bottom
    // edges: at the page's edge (the last cell of the layout) that line was clipped.
    // Below the plot, that one pixel only: the panel is short on small pages.
    grid->setMargins(along == Qt::Vertical ? QMargins(0, 0, legendEdgeRoom, 0)
                                           : QMargins(0, 0, 0, 1));
    const QSize hint = element->minimumOuterSizeHint();
    element->setMaximumSize(hint);
    for (int i = 0; i < 3; ++i) {
        QCPLayoutElement *cell = i == 1 ? element : new QCPLayoutElement(plot);
        if (along == Qt::Vertical)
            grid->addElement(i, 0, cell);
        else
            grid->addElement(0, i, cell);
    }
    if (along == Qt::Vertical)
        grid->setRowStretchFactor(1, 0.01);
    else
        grid->setColumnStretchFactor(1, 0.01);
    return grid;
}

} // namespace

void placeLegend(QCustomPlot *plot, QCPAxisRect *rect, QCPLegend *legend,
                 std::optional<LegendPlace> requested)
{
    // The window: entries in a row under the plot, where they never hide the curves (inside,
    // at 1280 x 720 they covered the waves from p ≈ 170) and leave the x axis as wide as the
    // heatmap's below it.
    LegendPlace place = requested.value_or(LegendPlace::Below);
    if (place == LegendPlace::None || legend->itemCount() == 0) {
        legend->setVisible(false);
        return;
    }
    const int width = plot->viewport().width();
    if (place == LegendPlace::Auto)
        place = legend->minimumOuterSizeHint().width() <= 0.3 * width ? LegendPlace::OutsideRight
                                                                      : LegendPlace::Below;
    QCPLayoutInset *inset = rect->insetLayout();
    const auto corner = [&](Qt::Alignment alignment) {
        inset->setInsetAlignment(0, alignment);
        inset->setMargins(QMargins(12, 12, 12, 12));
    };
    switch (place) {
    case LegendPlace::UpperRight:
        corner(Qt::AlignRight | Qt::AlignTop);
        return;
    case LegendPlace::UpperLeft:
        corner(Qt::AlignLeft | Qt::AlignTop);
        return;
    case LegendPlace::LowerLeft:
        corner(Qt::AlignLeft | Qt::AlignBottom);
        return;
    case LegendPlace::LowerRight:
        corner(Qt::AlignRight | Qt::AlignBottom);
        return;
    default:
        break;
    }
    inset->take(legend);
    inset->simplify();
    // Beside or below `rect` in the grid that holds it (the plot's, or a figure's own grid of
    // several rects).
    auto *main = qobject_cast<QCPLayoutGrid *>(rect->layout());
    if (!main)
        main = plot->plotLayout();
    int row = 0, column = 0;
    for (int r = 0; r < main->rowCount(); ++r)
        for (int c = 0; c < main->columnCount(); ++c)
            if (main->element(r, c) == rect)
                row = r, column = c;
    if (place == LegendPlace::OutsideRight) {
        if (main->hasElement(row, column + 1))
            main->insertColumn(column + 1);
        main->addElement(row, column + 1, centred(plot, legend, Qt::Vertical));
        main->setColumnStretchFactor(column + 1, 0.01);
        return;
    }
    // Below: entries side by side, as many per row as the width holds.
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
    int itemWidth = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        itemWidth = qMax(itemWidth, legend->item(i)->minimumOuterSizeHint().width());
    const int perRow =
        qBound(1, (width - 40) / qMax(1, itemWidth + legend->columnSpacing()), legend->itemCount());
    legend->setWrap(perRow);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    if (main->hasElement(row + 1, column))
        main->insertRow(row + 1);
    main->addElement(row + 1, column, centred(plot, legend, Qt::Horizontal));
    main->setRowStretchFactor(row + 1, 0.01);
}

namespace {

// The width a laid-out legend may take: its axis rect's inside for a legend in a corner, the
// page for one beside or below the plot.
int legendRoom(QCustomPlot *plot, QCPLegend *legend)
{
    if (auto *inset = qobject_cast<QCPLayoutInset *>(legend->layout())) {
        const QMargins m = inset->margins();
        return inset->rect().width() - m.left() - m.right();
    }
    return plot->viewport().width() - 2 * legendEdgeRoom;
}

} // namespace

bool fitLegends(QCustomPlot *plot)
{
    bool changed = false;
    for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
        if (!legend->visible() || legend->itemCount() == 0)
            continue;
        const int room =
            legendRoom(plot, legend) - legend->margins().left() - legend->margins().right();
        for (int i = 0; i < legend->itemCount(); ++i) {
            auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
            // Through the base class: QCPPlottableLegendItem makes it protected.
            const QCPLayoutElement *element = item;
            if (!item || element->minimumOuterSizeHint().width() <= room)
                continue;
            QCPAbstractPlottable *plottable = item->plottable();
            const int text = QFontMetrics(item->font())
                                 .boundingRect(0, 0, 0, 0, Qt::TextDontClip, plottable->name())
                                 .width();
            const int rest = element->minimumOuterSizeHint().width() - text;
            plottable->setName(wrapText(plottable->name(), item->font(), qMax(1, room - rest)));
            changed = true;
        }
        if (changed) // centred() held it at its size before
            legend->setMaximumSize(legend->minimumOuterSizeHint());
        // QCPLayoutGrid rounds each row's and column's size, which can take a pixel more than
        // the page has: the frame of a legend outside the plot moves in by that much.
        const QRect page(QPoint(0, 0), plot->viewport().size());
        const QRect frame = legend->outerRect().adjusted(0, 0, 1, 1); // drawRect's extra pixel
        auto *holder = qobject_cast<QCPLayoutGrid *>(legend->layout());
        if (holder && !page.contains(frame)) {
            QMargins m = holder->margins();
            m.setRight(m.right() + qMax(0, frame.right() - page.right()));
            m.setBottom(m.bottom() + qMax(0, frame.bottom() - page.bottom()));
            holder->setMargins(m);
            changed = true;
        }
    }
    return changed;
}

QCPLegend *addFigureLegend(QCPAxisRect *rect)
{
    QCustomPlot *plot = rect->parentPlot();
    auto *legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignRight | Qt::AlignTop);
    legend->setFont(plot->font());
    legend->setLayer(QStringLiteral("legend"));
    legend->setVisible(true);
    plot->legend = legend;
    return legend;
}

FigureBuilder::FigureBuilder(const ExplorerState &state, const PlotTheme &theme)
    : m_state(state), m_theme(theme)
{}

QList<qint64> FigureBuilder::plottedDims() const
{
    QList<qint64> all = m_state.plottedDims();
    if (m_showSelection)
        return all;
    QList<qint64> dims;
    for (qint64 d : all)
        if (m_state.waveDims().contains(d))
            dims.append(d);
    return dims.isEmpty() ? all : dims;
}

QString FigureBuilder::tokenLabel(const PhraseResult &result, int phrase, qint64 token)
{
    const PhraseEmbedding &e = result.fixed;
    if (phrase < 0 || phrase >= int(e.ids.size()) || token < 0 ||
        token >= qint64(e.ids[std::size_t(phrase)].size()))
        return {};
    const qint64 id = e.ids[std::size_t(phrase)][std::size_t(token)];
    if (id == 0)
        return QStringLiteral("‹pad›");
    return id < e.vocabulary.size() ? e.vocabulary[id] : QStringLiteral("[UNK]");
}

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
    figure.positionAxis->setLabel(QStringLiteral("position p"));
    figure.dimAxis->setLabel(QStringLiteral("dimension i"));

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
            data->setCell(k, v, double(cells.value(grid, k, v)));
}

void FigureBuilder::buildWaves(QCustomPlot *plot, const EncodingResult &result) const
{
    resetFigure(plot, m_theme);
    auto *rect = new QCPAxisRect(plot, true);
    plot->plotLayout()->addElement(0, 0, rect);
    // Placed once its entries are in (placeLegend): its size decides where it fits.
    QCPLegend *legend = addFigureLegend(rect);

    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    x->setLabel(QStringLiteral("position p"));
    y->setLabel(QStringLiteral("PE(p, i)"));
    const EncodingSpec &spec = result.spec;
    if (spec.positions > 1)
        x->setRange(0, double(spec.positions - 1));
    else
        x->setRange(-0.5, 0.5);
    const ValueRange known = spec.valueRange();
    const bool scaleToKnown = spec.axes().scaleToValueRange;
    const double lo = scaleToKnown ? known.minimum : double(result.minimum);
    const double hi = scaleToKnown ? known.maximum : double(result.maximum);
    const double pad = (scaleToKnown ? 0.025 : 0.05) * qMax(1e-6, hi - lo);
    const double ylo = lo - pad, yhi = hi + pad;
    y->setRange(ylo, yhi);

    const QList<qint64> dims = plottedDims();
    auto colourOf = [&](qint64 dim) {
        const qsizetype i = dims.indexOf(dim);
        return i >= 0 ? m_theme.curve(int(i)) : m_theme.marker;
    };

    // Legend order as in Fig 16-9: markers, crosses, then the curves.
    for (int m = 0; m < m_state.markers().size(); ++m) {
        const qint64 p = m_state.markers()[m];
        if (p >= spec.positions)
            continue;
        auto *line = plot->addGraph(x, y);
        line->setPen(markerPen(m));
        line->addData(double(p), ylo);
        line->addData(double(p), yhi);
        line->setName(QStringLiteral("p = %1").arg(p));
        line->addToLegend(legend);
    }
    for (const CrossMarker &c : m_state.crosses()) {
        if (c.position >= spec.positions || c.dim >= spec.dims)
            continue;
        auto *cross = plot->addGraph(x, y);
        cross->setLineStyle(QCPGraph::lsNone);
        cross->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCross, QPen(colourOf(c.dim), 2), Qt::NoBrush, 11));
        cross->addData(double(c.position), double(result.value(c.position, c.dim)));
        cross->setName(QStringLiteral("p = %1").arg(c.position));
        cross->addToLegend(legend);
    }
    // Qt's raster engine strokes wide or antialiased pens along a dense zig-zag very slowly
    // (about 0.6 s for 1,024 points of a fast column); such curves are drawn 1 px, aliased,
    // which at several points per pixel looks the same. Sparse curves (Fig 16-9) stay smooth.
    const int widthPx = qMax(400, plot->viewport().width());
    const bool sparse = spec.positions * 3 <= widthPx;
    // Many positions a pixel: a line zig-zagging through all of them fills a solid block that
    // hides the other dims. Such a curve is drawn as its min-max band, translucent.
    const bool banded = spec.positions > qint64(bandPositionsPerPixel) * widthPx;
    for (int i = 0; i < dims.size(); ++i) {
        const ColumnView column = result.column(dims[i]);
        // Solid, sine and cosine alike, as the book draws i = 100 and i = 101 ("b-", "r-").
        QPen pen(m_theme.curve(i), sparse ? 1.6 : 1.0, Qt::SolidLine);
        pen.setCosmetic(!sparse);
        const QString name = spec.column(dims[i]).label;
        QCPGraph *curve = nullptr;
        if (banded && column.isValid()) {
            curve = addMinMaxBand(x, y,
                                  minMaxBand(
                                      column.rows, widthPx, [](qsizetype p) { return double(p); },
                                      [&column](qsizetype p) { return double(column.at(p)); }),
                                  pen, name);
        } else {
            curve = plot->addGraph(x, y);
            curve->setData(columnData(column));
            curve->setPen(pen);
            curve->setName(name);
        }
        curve->setAntialiased(sparse);
        curve->addToLegend(legend);
        if (m_state.markers().isEmpty())
            continue;
        auto *dots = plot->addGraph(x, y);
        dots->setLineStyle(QCPGraph::lsNone);
        dots->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, m_theme.curve(i), m_theme.curve(i), 7));
        for (qint64 p : m_state.markers())
            if (p < spec.positions)
                dots->addData(double(p),
                              double(column.isValid() ? column.at(p) : result.value(p, dims[i])));
    }
    const Selection sel = m_state.selection();
    if (m_showSelection && sel.position < spec.positions && sel.dim < spec.dims) {
        auto *ring = plot->addGraph(x, y);
        ring->setLineStyle(QCPGraph::lsNone);
        ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(m_theme.selection, 2),
                                              Qt::NoBrush, 14));
        ring->addData(double(sel.position), double(result.value(sel.position, sel.dim)));
    }
    placeLegend(plot, rect, legend, m_legend);
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    applyPlotTheme(plot, m_theme);
}

QPen FigureBuilder::markerPen(int index) const
{
    // Géron's notebook draws p = 22 "k--" and p = 60 "k--" with alpha 0.5: the first marker
    // stands out, the others are faded.
    QColor colour = m_theme.marker;
    if (index > 0)
        colour.setAlphaF(0.5);
    return QPen(colour, 1.5, Qt::DashLine);
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

QString FigureBuilder::shareReadout(const EncodingResult &result) const
{
    const Selection sel = m_state.selection();
    if (sel.position >= result.spec.positions || sel.dim >= result.spec.dims)
        return {};
    const QList<qint64> dims = m_state.plottedDims();
    QStringList dimNames;
    for (qint64 d : dims)
        dimNames.append(QString::number(d));
    QString text = QStringLiteral("Selected p = %1, i = %2 (value %3). ")
                       .arg(sel.position)
                       .arg(sel.dim)
                       .arg(double(result.value(sel.position, sel.dim)), 0, 'f', 4);
    if (!result.missingColumns(dims).isEmpty())
        return text + QStringLiteral("Computing the plotted dims…");
    const QList<qint64> shared =
        sharingPositions(result, sel.position, dims, m_state.shareTolerance());
    const QString where = QStringLiteral("in i = %1 (within ±%2)")
                              .arg(dimNames.join(QStringLiteral(", ")))
                              .arg(m_state.shareTolerance());
    if (shared.isEmpty())
        return text + QStringLiteral("No other position shares p = %1's values %2.")
                          .arg(sel.position)
                          .arg(where);
    QStringList list;
    for (qsizetype i = 0; i < shared.size() && i < 24; ++i)
        list.append(QString::number(shared[i]));
    if (shared.size() > 24)
        list.append(QStringLiteral("… (%1 in all)").arg(shared.size()));
    return text + QStringLiteral("Positions sharing p = %1's values %2: %3")
                      .arg(sel.position)
                      .arg(where, list.join(QStringLiteral(", ")));
}

QList<PhraseCell> FigureBuilder::buildPhraseGrid(QCustomPlot *plot,
                                                 const PhraseResult &result) const
{
    resetFigure(plot, m_theme);
    QList<PhraseCell> cells;
    const PhraseSettings &s = result.settings;
    // One page of phrases and tokens, the dims sampled: the cost is bounded by the figure.
    const PhraseWindow w = m_state.phrasePage().window(s);
    const int phrases = int(w.phrases());
    const qint64 length = s.sequenceLength;
    const qint64 dims = s.dims;
    const qint64 drawnDims = w.drawnDims();
    const EmbeddingMode modes[] = {EmbeddingMode::Random, EmbeddingMode::Fixed};
    const auto valueAt = [&](EmbeddingMode mode, qint64 b, qint64 r, qint64 k) {
        return result.embedding(mode).values[std::size_t((b * length + w.firstToken + r) * dims +
                                                         sampledIndex(k, drawnDims, dims))];
    };
    // The value range of one plot (phrase b; all phrases when b < 0), of one mode or both.
    const auto rangeOf = [&](std::optional<EmbeddingMode> mode, qint64 b) {
        float mn = std::numeric_limits<float>::infinity(), mx = -mn;
        for (EmbeddingMode m : modes) {
            if (mode && m != *mode)
                continue;
            for (qint64 p = b < 0 ? w.firstPhrase : b; p < (b < 0 ? w.endPhrase : b + 1); ++p)
                for (qint64 r = 0; r < w.tokens(); ++r)
                    for (qint64 k = 0; k < drawnDims; ++k) {
                        mn = qMin(mn, valueAt(m, p, r, k));
                        mx = qMax(mx, valueAt(m, p, r, k));
                    }
        }
        return colorRangeFor(mn, mx);
    };
    const ColorRange shared =
        m_colorbar == ColorbarPlace::Shared ? rangeOf(std::nullopt, -1) : ColorRange{0, 1};
    // Shared: the rows in a grid of their own, one bar beside all of them.
    auto *main = plot->plotLayout();
    QCPLayoutGrid *body = main;
    if (m_colorbar == ColorbarPlace::Shared) {
        body = new QCPLayoutGrid;
        main->addElement(0, 0, body);
        QCPColorScale *scale =
            addColorScale(plot, main, 0, 1, m_state.colormap(), shared, QString());
        scale->axis()->axisRect()->setMinimumMargins(QMargins(0, 0, 64, 0));
        main->setColumnStretchFactor(1, 0.01);
    }
    auto *group = new QCPMarginGroup(plot);
    // Each colour bar shares its row's top and bottom margins: as tall as the plots.
    const PhraseSelection sel = m_state.phraseSelection();
    const bool perPlot = m_colorbar == ColorbarPlace::PerPlot;
    int row = 0;
    for (EmbeddingMode mode : modes) {
        auto *rowGroup = new QCPMarginGroup(plot);
        const ColorRange rowRange =
            m_colorbar == ColorbarPlace::Shared ? shared : rangeOf(mode, -1);
        addTitle(plot, body, row++, 0,
                 mode == EmbeddingMode::Random
                     ? QStringLiteral("Random Embedding")
                     : QStringLiteral("Fixed Weight Embedding from Attention is All You Need"),
                 2.0, true);
        auto *sub = new QCPLayoutGrid;
        body->addElement(row++, 0, sub);
        // Reserve the same label room beside every bar: QCPColorScale sizes itself to its bar
        // plus its tick labels, so rows with narrower labels ("-1" vs "-0.05") got wider plots
        // and a bar further right, its labels cut at the figure's edge.
        const auto addBar = [&](int column, const ColorRange &range) {
            QCPColorScale *scale =
                addColorScale(plot, sub, 1, column, m_state.colormap(), range, QString());
            scale->setMarginGroup(QCP::msTop | QCP::msBottom, rowGroup);
            scale->axis()->axisRect()->setMinimumMargins(QMargins(0, 0, 64, 0));
            sub->setColumnStretchFactor(column, 0.01);
        };
        for (int c = 0; c < phrases; ++c) {
            const qint64 b = w.firstPhrase + c;
            const int column = perPlot ? 2 * c : c;
            const ColorRange range = perPlot ? rangeOf(mode, b) : rowRange;
            addTitle(plot, sub, 0, column, s.title(int(b)), 0.5, false);
            auto *rect = new QCPAxisRect(plot, true);
            sub->addElement(1, column, rect);
            rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
            rect->setMarginGroup(QCP::msTop | QCP::msBottom, rowGroup);
            QCPColorMap *map = addMatrixMap(
                rect, w.tokens(), drawnDims, m_state.colormap(), range,
                [&](qint64 r, qint64 k) { return valueAt(mode, b, r, k); }, w.firstToken, dims);
            // Tokens and dims are counted: no tick at 2.5. Before the first layout, a heatmap
            // is taken as half the figure's height less about ten lines of titles, tick labels
            // and the note, and its share of the width (a colour bar beside each row or plot).
            useIntegerTicks(rect->axis(QCPAxis::atLeft), 0.5, 10);
            useIntegerTicks(rect->axis(QCPAxis::atTop),
                            0.8 / double(perPlot ? 2 * phrases : phrases));
            cells.append({rect, map, int(b), mode});
            if (m_showSelection && sel.phrase == b && sel.mode == mode &&
                w.containsToken(sel.token))
                addOutline(rect, rect->axis(QCPAxis::atTop), rect->axis(QCPAxis::atLeft), -0.5,
                           double(sel.token) - 0.5, double(dims) - 0.5, double(sel.token) + 0.5,
                           QPen(m_theme.selection, 2));
            if (perPlot)
                addBar(column + 1, range);
        }
        if (m_colorbar == ColorbarPlace::PerRow)
            addBar(phrases, rowRange);
        sub->setRowStretchFactor(0, 0.01);
    }
    body->setRowStretchFactor(0, 0.01);
    body->setRowStretchFactor(2, 0.01);
    QStringList notes{phraseWindowNote(w, s, true), truncationNote(result, w)};
    notes.removeAll(QString());
    if (!notes.isEmpty()) {
        addTitle(plot, body, row, 0, notes.join(QLatin1Char('\n')), 0.0, false);
        body->setRowStretchFactor(row, 0.01);
    }
    applyPlotTheme(plot, m_theme);
    return cells;
}

QList<PhraseCell> FigureBuilder::buildPhraseDifference(QCustomPlot *plot,
                                                       const PhraseResult &result) const
{
    resetFigure(plot, m_theme);
    QList<PhraseCell> cells;
    const PhraseSettings &s = result.settings;
    const int a = m_state.compareA(), b = m_state.compareB();
    if (a >= s.phrases.size() || b >= s.phrases.size())
        return cells;
    const PhraseWindow w = m_state.phrasePage().window(s);
    const qint64 dims = s.dims;
    const qint64 drawnDims = w.drawnDims();
    auto *main = plot->plotLayout();
    // Two lines, each elided to the panel: one long line overran a narrow panel on both sides.
    addTitle(plot, main, 0, 0,
             QStringLiteral("Difference: %1 − %2\n(grey rows: padding in both)")
                 .arg(s.title(b), s.title(a)),
             1.5, true);
    auto *sub = new QCPLayoutGrid;
    main->addElement(1, 0, sub);
    main->setRowStretchFactor(0, 0.01);
    int column = 0;
    for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        const PhraseDifference difference =
            phraseDifference(result.embedding(mode), a, b, w.firstToken, w.tokens());
        const double extent = difference.extent;
        // Rows where both phrases are padding differ by exactly 0 and say nothing: they are
        // masked (the theme's grid colour) instead of a white block, glaring in the dark theme.
        const std::vector<qint64> &idsA = result.embedding(mode).ids[std::size_t(a)];
        const std::vector<qint64> &idsB = result.embedding(mode).ids[std::size_t(b)];
        const auto value = [&](qint64 r, qint64 k) {
            const std::size_t token = std::size_t(w.firstToken + r);
            if (token < idsA.size() && token < idsB.size() && idsA[token] == 0 && idsB[token] == 0)
                return std::numeric_limits<float>::quiet_NaN();
            return difference.at(w.firstToken + r, sampledIndex(k, drawnDims, dims));
        };
        addTitle(plot, sub, 0, column,
                 mode == EmbeddingMode::Random ? QStringLiteral("random") : QStringLiteral("fixed"),
                 0.5, false);
        auto *rect = new QCPAxisRect(plot, true);
        sub->addElement(1, column, rect);
        // Signed data: RdBu, centred on zero.
        QCPColorMap *map = addMatrixMap(rect, w.tokens(), drawnDims, Colormap::RdBu,
                                        {-extent, extent}, value, w.firstToken, dims);
        // Two heatmaps with their colour bars side by side under a title (see the grid).
        useIntegerTicks(rect->axis(QCPAxis::atLeft), 1.0, 6);
        useIntegerTicks(rect->axis(QCPAxis::atTop), 0.3);
        QCPColorGradient masked = map->gradient();
        masked.setNanHandling(QCPColorGradient::nhNanColor);
        masked.setNanColor(m_theme.grid);
        map->setGradient(masked);
        cells.append({rect, map, b, mode});
        addColorScale(plot, sub, 1, column + 1, Colormap::RdBu, {-extent, extent}, QString());
        sub->setColumnStretchFactor(column + 1, 0.01);
        column += 2;
    }
    sub->setRowStretchFactor(0, 0.01);
    if (const QString note = phraseWindowNote(w, s, false); !note.isEmpty()) {
        addTitle(plot, main, 2, 0, note, 0.0, false);
        main->setRowStretchFactor(2, 0.01);
    }
    applyPlotTheme(plot, m_theme);
    return cells;
}

int FigureBuilder::otherPhrase() const
{
    const int clicked = m_state.phraseSelection().phrase;
    return clicked == m_state.compareB() ? m_state.compareA() : m_state.compareB();
}

void FigureBuilder::buildTokenSimilarity(QCustomPlot *plot, const PhraseResult &result) const
{
    resetFigure(plot, m_theme);
    const PhraseSettings &s = result.settings;
    const PhraseSelection sel = m_state.phraseSelection();
    // The other phrase's tokens of the current token page.
    const PhraseWindow w = m_state.phrasePage().window(s);
    auto *main = plot->plotLayout();
    const bool valid =
        sel.phrase >= 0 && sel.phrase < s.phrases.size() && sel.token < s.sequenceLength;
    const int other = otherPhrase();
    // Two lines at most, each elided to the panel's width: wrapped word by word, the title took
    // five lines of a narrow panel and squashed the axis below it.
    const QString title =
        valid ? QStringLiteral("Cosine similarity to %1\nof “%2” (%3, token %4)")
                        .arg(shortText(s.title(other), 24),
                             shortText(tokenLabel(result, sel.phrase, sel.token), 24),
                             shortText(s.title(sel.phrase), 24))
                        .arg(sel.token) +
                    (w.tokens() < s.sequenceLength ? QStringLiteral(", tokens %1–%2 of %3")
                                                         .arg(w.firstToken)
                                                         .arg(w.endToken - 1)
                                                         .arg(s.sequenceLength)
                                                   : QString())
              : QStringLiteral("Click a token in the grid\nto compare it with another phrase");
    addTitle(plot, main, 0, 0, title, 1.5, true);
    auto *rect = new QCPAxisRect(plot, true);
    main->addElement(1, 0, rect);
    main->setRowStretchFactor(0, 0.01);
    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    y->setLabel(QStringLiteral("cosine similarity"));
    y->setRange(-1.05, 1.05);
    x->setRange(double(w.firstToken) - 0.7, double(w.endToken) - 0.3);
    int legendWidth = 0;
    if (valid) {
        auto *group = new QCPBarsGroup(plot);
        group->setSpacing(1);
        int colour = 0;
        // The legend stands beside the plot, one entry above the other: inside the plot it
        // covered the bars, and in a row of its own it took the height a short panel needs
        // for the axis.
        auto *legendColumn = new QCPLayoutGrid;
        main->addElement(1, 1, legendColumn);
        main->setColumnStretchFactor(1, 0.01);
        auto *legend = new QCPLegend;
        legend->setFont(plot->font()); // the figure's, scaled: QCPLegend starts in the app's
        // Plain elements as spacers (an empty QCPLayoutGrid has a maximum height of 0).
        legendColumn->addElement(0, 0, new QCPLayoutElement(plot));
        legendColumn->addElement(1, 0, legend);
        legendColumn->addElement(2, 0, new QCPLayoutElement(plot));
        legendColumn->setRowStretchFactor(1, 0.01);
        legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        legend->setLayer(QStringLiteral("legend"));
        plot->legend = legend;
        for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
            auto *bars = new QCPBars(x, y);
            bars->setBarsGroup(group);
            bars->setWidth(0.4);
            const QColor c = m_theme.curve(colour++ == 0 ? 4 : 0);
            bars->setPen(QPen(c.darker(120)));
            bars->setBrush(c);
            bars->setName(mode == EmbeddingMode::Random ? QStringLiteral("random")
                                                        : QStringLiteral("fixed"));
            const std::vector<double> cosines = tokenSimilarity(
                result.embedding(mode), sel.phrase, sel.token, other, w.firstToken, w.tokens());
            for (qint64 q = 0; q < qint64(cosines.size()); ++q)
                bars->addData(double(w.firstToken + q), cosines[std::size_t(q)]);
            bars->addToLegend(legend);
        }
        legend->setMaximumSize(legend->minimumOuterSizeHint());
        legendWidth = legend->minimumOuterSizeHint().width();
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // Thinned, not overlapped: labels rotated 60° need about their line height / sin 60° of
    // axis each; every step-th token is labelled so that they fit the plot's width.
    const double labelSpan =
        QFontMetricsF(x->tickLabelFont()).height() / std::sin(std::numbers::pi / 3) + 2;
    const double axisWidth =
        std::max(60.0, double(plot->viewport().width()) - 100.0 - double(legendWidth));
    const double perToken = axisWidth / double(std::max<qint64>(1, w.tokens()));
    const qint64 step = std::max<qint64>(1, qint64(std::ceil(labelSpan / perToken)));
    // Labels of 10 characters at most: rotated, their length is the axis' height.
    for (qint64 q = w.firstToken; q < w.endToken; q += step)
        ticker->addTick(double(q), shortText(tokenLabel(result, other, q), 10));
    x->setTicker(ticker);
    x->setTickLabelRotation(60);
    x->setSubTicks(false);
    x->grid()->setVisible(false);
    applyPlotTheme(plot, m_theme);
}

} // namespace pe
