#include "figures/figureparts.h"

#include "figures/colormapgradient.h"
#include "figures/fittedtext.h"

#include "figures/qcpinclude.h"

#include <algorithm>

namespace pe {

void matshowAxis(QCPAxis *axis, bool labels)
{
    axis->setVisible(true);
    axis->setTickLabels(labels);
    axis->setTickLengthIn(0);
    axis->setTickLengthOut(4);
    axis->setSubTicks(false);
    axis->grid()->setVisible(false);
    // A matrix's axes count rows and columns: whole-number ticks only.
    axis->setTicker(QSharedPointer<WholeStepTicker>::create());
}

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
    useSpacedTicks(scale->axis()); // labels a line apart on a short bar
    return scale;
}

QCPColorMap *addMatrixMap(QCPAxisRect *rect, qint64 rows, qint64 cols, Colormap map,
                          const ColorRange &range,
                          const std::function<float(qint64, qint64)> &value, qint64 rowStart,
                          qint64 colSpan)
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

QCPColorMap *addCellMap(QCPAxisRect *rect, qint64 rows, qint64 cols,
                        const QCPColorGradient &gradient, const QCPRange &range,
                        const std::function<double(qint64, qint64)> &cell)
{
    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);
    auto *map = new QCPColorMap(x, y);
    map->setInterpolate(false);
    map->setTightBoundary(false);
    // QCPColorMap needs two cells per axis: a single row or column is doubled.
    const int keySize = int(std::max<qint64>(2, cols));
    const int valueSize = int(std::max<qint64>(2, rows));
    map->data()->setSize(keySize, valueSize);
    map->data()->setRange(QCPRange(0, keySize - 1), QCPRange(0, valueSize - 1));
    for (int r = 0; r < valueSize; ++r)
        for (int c = 0; c < keySize; ++c)
            map->data()->setCell(
                c, r, cell(std::min<qint64>(r, rows - 1), std::min<qint64>(c, cols - 1)));
    map->setGradient(gradient);
    map->setDataRange(range);
    x->setRange(-0.5, double(cols) - 0.5);
    y->setRange(-0.5, double(rows) - 0.5);
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    return map;
}

qint64 sampledIndex(qint64 k, qint64 drawn, qint64 span)
{
    return qMin(span - 1, (2 * k + 1) * span / (2 * drawn));
}

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

} // namespace pe
