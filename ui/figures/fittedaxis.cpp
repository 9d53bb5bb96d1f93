#include "figures/fittedaxis.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace pe {

double FittedAxis::labelGap(const QString &a, const QString &b) const
{
    const QFontMetricsF metrics(tickLabelFont());
    if (orientation() == Qt::Vertical) {
        // A power drawn as 10 with a raised exponent (number format "eb") is one line high too:
        // QCustomPlot draws the exponent in a smaller font from the line's top.
        return metrics.height() * 1.1;
    }
    return (metrics.horizontalAdvance(a) + metrics.horizontalAdvance(b)) / 2.0 +
           metrics.averageCharWidth();
}

void FittedAxis::fitTicks()
{
    setupTickVectors();
    const qsizetype n = mTickVector.size();
    if (n < 2 || !mTickLabels || mTickVectorLabels.size() != n)
        return;
    // The smallest stride whose every pair of kept neighbours is far enough apart.
    qsizetype stride = 1;
    const auto apart = [&](qsizetype k) {
        for (qsizetype i = 0; i + k < n; i += k) {
            const double distance =
                std::abs(coordToPixel(mTickVector[i + k]) - coordToPixel(mTickVector[i]));
            if (distance < labelGap(mTickVectorLabels[i], mTickVectorLabels[i + k]))
                return false;
        }
        return true;
    };
    while (stride < n && !apart(stride))
        ++stride;
    if (stride == 1)
        return;
    QVector<double> ticks;
    QVector<QString> labels;
    for (qsizetype i = 0; i < n; i += stride) {
        ticks.append(mTickVector[i]);
        labels.append(mTickVectorLabels[i]);
    }
    mTickVector = ticks;
    mTickVectorLabels = labels;
}

QString FittedAxis::shownLabel() const
{
    const QCPAxisRect *rect = axisRect();
    const int length = orientation() == Qt::Vertical ? rect->height() : rect->width();
    if (length <= 0)
        return mLabel;
    const QFontMetricsF metrics(labelFont());
    const auto fits = [&](const QString &label) {
        const QStringList lines = label.split(QLatin1Char('\n'));
        return std::all_of(lines.begin(), lines.end(), [&](const QString &line) {
            return metrics.horizontalAdvance(line) <= length;
        });
    };
    QString chosen = mLabel;
    for (const QString &shorter : m_shorter) {
        if (fits(chosen))
            return chosen;
        chosen = shorter;
    }
    QStringList lines = chosen.split(QLatin1Char('\n'));
    for (QString &line : lines)
        line = metrics.elidedText(line, Qt::ElideRight, length);
    return lines.join(QLatin1Char('\n'));
}

void FittedAxis::draw(QCPPainter *painter)
{
    const QString full = mLabel;
    mLabel = shownLabel();
    QCPAxis::draw(painter);
    mLabel = full;
}

FittedAxisRect::FittedAxisRect(QCustomPlot *plot) : QCPAxisRect(plot, false)
{
    QCPAxis *x = addAxis(QCPAxis::atBottom, new FittedAxis(this, QCPAxis::atBottom));
    QCPAxis *y = addAxis(QCPAxis::atLeft, new FittedAxis(this, QCPAxis::atLeft));
    QCPAxis *x2 = addAxis(QCPAxis::atTop, new FittedAxis(this, QCPAxis::atTop));
    QCPAxis *y2 = addAxis(QCPAxis::atRight, new FittedAxis(this, QCPAxis::atRight));
    setRangeDragAxes(x, y);
    setRangeZoomAxes(x, y);
    x2->setVisible(false);
    y2->setVisible(false);
    x->grid()->setVisible(true);
    y->grid()->setVisible(true);
    for (QCPAxis *hidden : {x2, y2}) {
        hidden->grid()->setVisible(false);
        hidden->grid()->setZeroLinePen(Qt::NoPen);
    }
}

void FittedAxisRect::update(UpdatePhase phase)
{
    QCPAxisRect::update(phase);
    if (phase != upLayout)
        return;
    for (QCPAxis *axis : axes())
        if (auto *fitted = dynamic_cast<FittedAxis *>(axis); fitted && fitted->visible())
            fitted->fitTicks();
}

} // namespace pe
