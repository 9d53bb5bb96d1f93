#include "figures/enginecheckfigure.h"

#include "figures/colormapgradient.h"
#include "figures/schemefigures.h"

#include "figures/qcpinclude.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pe {

namespace {

QCPTextElement *textRow(QCustomPlot *plot, const QString &text, double sizeDelta, bool bold,
                        const QColor &color)
{
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() + sizeDelta);
    font.setBold(bold);
    auto *element = new QCPTextElement(plot, text, font);
    element->setTextFlags(Qt::AlignCenter | Qt::TextWordWrap);
    element->setTextColor(color);
    return element;
}

// Long report lines wrapped at about `width` characters (QCPTextElement does not wrap itself).
QString wrapped(const QString &text, int width)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '))) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    lines << line;
    return lines.join(QLatin1Char('\n'));
}

// The grid's cells as a colour map: pairs across, positions down (row 0 at the top, as the
// heatmap draws them), each row bin at the centre of the positions it covers.
QCPColorMap *addErrorMap(QCPAxisRect *rect, const RopeErrorGrid &grid,
                         const QCPColorGradient &gradient, QCPRange *range)
{
    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    auto *map = new QCPColorMap(x, y);
    map->setInterpolate(false);
    map->setTightBoundary(false);
    // QCPColorMap needs two cells per axis: a single pair or bin is drawn twice.
    const int keys = int(std::max<qint64>(grid.pairs, 2));
    const int values = int(std::max<qint64>(grid.rows, 2));
    const double k = double(grid.rowsPerBin);
    map->data()->setSize(keys, values);
    map->data()->setRange(QCPRange(0, keys - 1),
                          QCPRange((k - 1) / 2, (values - 1) * k + (k - 1) / 2));
    float largest = 0, smallest = std::numeric_limits<float>::infinity();
    for (const float e : grid.error) {
        const float v = std::isfinite(e) ? e : std::numeric_limits<float>::max();
        largest = std::max(largest, v);
        if (v > 0)
            smallest = std::min(smallest, v);
    }
    // A log scale spans at most 12 decades below the largest error; exact zeros sit at its floor.
    const double top = largest > 0 ? double(largest) : 1e-16;
    const double floor =
        std::max(std::isfinite(smallest) ? double(smallest) : top / 10, top * 1e-12);
    for (int key = 0; key < keys; ++key)
        for (int value = 0; value < values; ++value) {
            const double e = grid.at(std::min<qint64>(value, grid.rows - 1),
                                     std::min<qint64>(key, grid.pairs - 1));
            map->data()->setCell(key, value, std::clamp(std::isfinite(e) ? e : top, floor, top));
        }
    *range = floor < top ? QCPRange(floor, top) : QCPRange(top / 10, top);
    map->setGradient(gradient);
    map->setDataScaleType(QCPAxis::stLogarithmic);
    map->setDataRange(*range);
    x->setRange(-0.5, keys - 0.5);
    y->setRange(-0.5, values * k - 0.5);
    y->setRangeReversed(true);
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    x->setLabel(QStringLiteral("pair i"));
    y->setLabel(QStringLiteral("position p"));
    return map;
}

QString cellText(const RopeCell &cell)
{
    const QString where = cell.position >= 0 ? QStringLiteral("position %1, pair %2 (column %3)")
                                                   .arg(cell.position)
                                                   .arg(cell.pair)
                                                   .arg(cell.column)
                                             : QStringLiteral("pair %1").arg(cell.pair);
    return QStringLiteral("worst: %1: got %2, expected %3")
        .arg(where, QString::number(cell.candidate, 'g', 12),
             QString::number(cell.reference, 'g', 12));
}

} // namespace

EngineCheckFigure::EngineCheckFigure(const FigureState &state, const PlotTheme &theme)
    : m_state(state), m_theme(theme)
{}

qint64 EngineCheckFigure::boundary(const EngineCheck &check)
{
    // The context the rope type scales from, else the one the model is used at.
    const qint64 scaling = ropeScalingContext(check.config);
    const qint64 at = scaling > 0 ? scaling : check.config.maxPositionEmbeddings;
    const RopeErrorGrid &g = check.result.errors;
    return at > 0 && at < g.rows * g.rowsPerBin ? at : -1;
}

QString EngineCheckFigure::readout(const EngineCheck &check, double pair, double position)
{
    const RopeErrorGrid &g = check.result.errors;
    const qint64 i = qint64(std::lround(pair));
    const qint64 bin = qint64(std::floor((position + 0.5) / double(g.rowsPerBin)));
    if (g.error.empty() || i < 0 || i >= g.pairs || bin < 0 || bin >= g.rows)
        return {};
    const qint64 first = bin * g.rowsPerBin, last = first + g.rowsPerBin - 1;
    QString text = (g.rowsPerBin == 1 ? QStringLiteral("position %1").arg(first)
                                      : QStringLiteral("positions %1-%2").arg(first).arg(last)) +
                   QStringLiteral(", pair %1: largest |error| %2")
                       .arg(i)
                       .arg(QString::number(double(g.at(bin, i)), 'g', 3));
    const RopeCell &worst = check.result.worst;
    const bool worstHere = worst.pair == i && (worst.position < 0 ||
                                               (worst.position >= first && worst.position <= last));
    if (worstHere)
        text += QLatin1Char('\n') + cellText(worst);
    return text;
}

EngineCheckFigure::Handles EngineCheckFigure::build(QCustomPlot *plot,
                                                    const EngineCheck &check) const
{
    resetFigure(plot, m_theme);
    const RopeVerifyResult &r = check.result;
    QCPLayoutGrid *layout = plot->plotLayout();
    const QColor verdictColor = r.agrees ? m_theme.curve(2) : m_theme.curve(1);
    int row = 0;
    layout->addElement(row++, 0,
                       textRow(plot, QStringLiteral("Engine check: ") + check.candidateBrief, 1,
                               true, m_theme.foreground));
    layout->addElement(
        row++, 0,
        textRow(plot,
                wrapped(QStringLiteral("against Hugging Face for ") + check.request.reference, 130),
                -1, false, m_theme.foreground));
    layout->addElement(row++, 0,
                       textRow(plot, wrapped(check.verdict(), 110), 0, true, verdictColor));
    if (const QString diagnosis = check.diagnosis(); !diagnosis.isEmpty())
        layout->addElement(row++, 0,
                           textRow(plot, wrapped(diagnosis, 110), 0, false, verdictColor));
    for (int i = 0; i < row; ++i)
        layout->setRowStretchFactor(i, 0.01);
    Handles handles;
    const RopeErrorGrid &grid = r.errors;
    if (grid.error.empty()) {
        layout->addElement(row, 0,
                           textRow(plot,
                                   QStringLiteral("(no error per position to draw: %1)")
                                       .arg(r.pairs != 0 && r.mistake == RopeMistake::RotaryWidth
                                                ? QStringLiteral("the widths differ")
                                                : QStringLiteral("one value compared")),
                                   0, false, m_theme.foreground));
        applyPlotTheme(plot, m_theme);
        return handles;
    }
    auto *grid2 = new QCPLayoutGrid;
    layout->addElement(row, 0, grid2);
    handles.rect = new QCPAxisRect(plot, true);
    grid2->addElement(0, 0, handles.rect);
    QCPRange range;
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    handles.map = addErrorMap(handles.rect, grid, gradient, &range);
    QCPColorScale *scale = addScale(plot, grid2, 0, 1, gradient, range,
                                    QStringLiteral("|engine - Hugging Face| (log)"));
    scale->setDataScaleType(QCPAxis::stLogarithmic);
    scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    scale->axis()->setNumberFormat(QStringLiteral("eb"));
    scale->axis()->setNumberPrecision(0);
    handles.map->setColorScale(scale);

    QCPAxis *x = handles.rect->axis(QCPAxis::atBottom);
    QCPAxis *y = handles.rect->axis(QCPAxis::atLeft);
    if (const qint64 at = boundary(check); at >= 0) {
        auto *line = new QCPItemStraightLine(plot);
        line->setClipAxisRect(handles.rect);
        line->point1->setAxes(x, y);
        line->point2->setAxes(x, y);
        line->point1->setCoords(0, double(at) - 0.5);
        line->point2->setCoords(1, double(at) - 0.5);
        line->setPen(QPen(m_theme.foreground, 1.5, Qt::DashLine));
        auto *label = new QCPItemText(plot);
        label->setClipAxisRect(handles.rect);
        label->position->setAxes(x, y);
        label->position->setCoords(x->range().lower, double(at) - 0.5);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setColor(m_theme.foreground);
        label->setBrush(QBrush(m_theme.background));
        label->setText(QStringLiteral(" original context %1 ").arg(at));
    }
    if (r.worst.pair >= 0) {
        auto *ring = new QCPGraph(x, y);
        ring->setLineStyle(QCPGraph::lsNone);
        const double at = r.worst.position >= 0 ? double(r.worst.position) : y->range().center();
        ring->setData({double(r.worst.pair)}, {at});
        ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                              QPen(m_theme.foreground, 2), Qt::NoBrush, 14));
    }
    applyPlotTheme(plot, m_theme);
    return handles;
}

} // namespace pe
