// PlotAligner: keeps two stacked plots' data areas pixel-aligned on the x axis, as one figure
// with a shared x axis would be (Fig 16-9's waves over its heatmap in the window). The plots are
// separate widgets, so QCPMarginGroup cannot do it: after each replot the axis rects' left and
// right edges are compared (each plot laid out with its own margins first) and the minimum
// margins set so that both start and end together, and again when the plots are shown (a page
// rebuilt while hidden, by a theme change on another page, aligns when it comes back). Sharing
// the x range, the upper plot is zoomed and dragged through the lower one.
#pragma once

#include "figures/qcpinclude.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace pe {

class PlotAligner : public QObject
{
    Q_OBJECT
public:
    // The x range both share, when they do (the lower plot's, e.g. a transposed heatmap's
    // positions); nullopt while they show different things across.
    using SharedRange = std::function<std::optional<QCPRange>()>;

    PlotAligner(QCustomPlot *upper, QCustomPlot *lower, SharedRange sharedRange,
                QObject *parent = nullptr);

    // Aligns now; true when it changed a margin (a replot then follows).
    bool align();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QPointer<QCustomPlot> m_upper;
    QPointer<QCustomPlot> m_lower;
    SharedRange m_sharedRange;
};

} // namespace pe
