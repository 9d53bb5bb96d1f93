#include "figures/figurebuilder.h"

#include "figures/fittedtext.h"
#include "figures/minmaxband.h"

#include "figures/qcpinclude.h"

#include <QStringList>

namespace pe {

namespace {

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

} // namespace

void FigureBuilder::buildWaves(QCustomPlot *plot, const EncodingResult &result) const
{
    resetFigure(plot, m_theme);
    auto *rect = new QCPAxisRect(plot, true);
    plot->plotLayout()->addElement(0, 0, rect);
    // Placed once its entries are in (placeLegend): its size decides where it fits.
    QCPLegend *legend = addFigureLegend(rect);

    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    const EncodingSpec &spec = result.spec;
    // The scheme's own names where its columns are not dimensions (ALiBi's and T5's are keys:
    // the curves are a bias or a bucket against the query position), as its legend says.
    const SchemeAxes axes = spec.axes();
    x->setLabel(axes.rows);
    y->setLabel(axes.columns == SchemeAxes().columns ? QStringLiteral("PE(p, i)") : axes.values);
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
    useSpacedTicks(y); // "1 0.5 0 -0.5 -1" overlapped on a short plot (150% zoom, issue 46.8)

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
        line->setProperty(firstMarkerProperty, m == 0);
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
        // The first marker's dots apart from the others', so that an animation of the first
        // marker can tell the moving dots from the still ones.
        auto addDots = [&](const QList<qint64> &positions, bool first) {
            auto *dots = plot->addGraph(x, y);
            dots->setLineStyle(QCPGraph::lsNone);
            dots->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssDisc, m_theme.curve(i), m_theme.curve(i), 7));
            dots->setProperty(firstMarkerProperty, first);
            for (qint64 p : positions)
                if (p < spec.positions)
                    dots->addData(double(p), double(column.isValid() ? column.at(p)
                                                                     : result.value(p, dims[i])));
        };
        const QList<qint64> &markers = m_state.markers();
        if (!markers.isEmpty())
            addDots(markers.mid(0, 1), true);
        if (markers.size() > 1)
            addDots(markers.mid(1), false);
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

} // namespace pe
