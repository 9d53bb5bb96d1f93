#include "widgets/plotaligner.h"

#include "figures/qcpinclude.h"

#include <QEvent>

#include <algorithm>

namespace pe {

PlotAligner::PlotAligner(QCustomPlot *upper, QCustomPlot *lower, SharedRange sharedRange,
                         QObject *parent)
    : QObject(parent), m_upper(upper), m_lower(lower), m_sharedRange(std::move(sharedRange))
{
    // Queued: a replot's own layout is final when afterReplot fires, and a second replot asked
    // from inside it would be dropped.
    for (QCustomPlot *plot : {upper, lower}) {
        connect(plot, &QCustomPlot::afterReplot, this, &PlotAligner::align, Qt::QueuedConnection);
        plot->installEventFilter(this);
    }
}

bool PlotAligner::eventFilter(QObject *watched, QEvent *event)
{
    // A plot rebuilt while hidden (its margins reset) replotted when align() could not measure
    // it: align once it is on screen again.
    if (event->type() == QEvent::Show)
        QMetaObject::invokeMethod(
            this, [this] { align(); }, Qt::QueuedConnection);
    return QObject::eventFilter(watched, event);
}

bool PlotAligner::align()
{
    if (!m_upper || !m_lower || m_upper->axisRectCount() == 0 || m_lower->axisRectCount() == 0 ||
        !m_upper->isVisible() || !m_lower->isVisible())
        return false;
    QCPAxisRect *rects[] = {m_upper->axisRect(), m_lower->axisRect()};
    QCustomPlot *plots[] = {m_upper, m_lower};
    // Each plot laid out with its own margins first (what its tick labels need now), so the
    // alignment follows labels that narrow as well as ones that widen.
    const auto relayout = [](QCustomPlot *plot) {
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                           QCPLayoutElement::upLayout})
            plot->plotLayout()->update(phase);
    };
    QMargins before[2];
    for (int i = 0; i < 2; ++i) {
        before[i] = rects[i]->minimumMargins();
        rects[i]->setMinimumMargins(QMargins());
        relayout(plots[i]);
    }
    // The data areas' natural edges in one coordinate system (the window's).
    int left[2], right[2];
    for (int i = 0; i < 2; ++i) {
        const QRect r = rects[i]->rect();
        left[i] = plots[i]->mapTo(plots[i]->window(), r.topLeft()).x();
        right[i] = plots[i]->mapTo(plots[i]->window(), r.topRight()).x();
    }
    // Both start where the one needing the wider tick labels starts, and end where the one with
    // the colour bar beside it ends.
    const int targetLeft = std::max(left[0], left[1]);
    const int targetRight = std::min(right[0], right[1]);
    bool changed = false;
    // sharex: the upper plot shows the lower one's x range (its zoom, its half-cell edges), and
    // is zoomed and dragged through it: its own drag would be undone at the next alignment.
    const std::optional<QCPRange> range = m_sharedRange ? m_sharedRange() : std::nullopt;
    rects[0]->setRangeDrag(range ? Qt::Orientations() : Qt::Horizontal);
    rects[0]->setRangeZoom(range ? Qt::Orientations() : Qt::Horizontal);
    if (range) {
        QCPAxis *x = rects[0]->axis(QCPAxis::atBottom);
        if (x->range() != *range) {
            x->setRange(*range);
            m_upper->replot(QCustomPlot::rpQueuedReplot);
            changed = true;
        }
    }
    for (int i = 0; i < 2; ++i) {
        const QMargins natural = rects[i]->margins();
        QMargins wanted = before[i];
        wanted.setLeft(natural.left() + targetLeft - left[i]);
        wanted.setRight(natural.right() + right[i] - targetRight);
        rects[i]->setMinimumMargins(wanted);
        relayout(plots[i]); // hit-testing uses the layout: keep it the drawn one
        if (wanted != before[i]) {
            plots[i]->replot(QCustomPlot::rpQueuedReplot);
            changed = true;
        }
    }
    return changed;
}

} // namespace pe
