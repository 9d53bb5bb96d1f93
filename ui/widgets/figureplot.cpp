#include "widgets/figureplot.h"

#include "figures/fittedtext.h"

namespace pe {

FigurePlot::FigurePlot(QWidget *parent) : QCustomPlot(parent)
{
    // Ticks spaced by the laid-out axes (IntegerTicker, SpacedTicker) follow a new figure's or
    // a resized plot's lengths: QCustomPlot places ticks before it lays a figure out.
    relayTicksAfterLayout(this);
}

QSize FigurePlot::minimumSizeHint() const
{
    return smallest;
}

QSize FigurePlot::sizeHint() const
{
    // QCustomPlot's hint is its layout's minimum: a figure's wish, kept where it is modest.
    return QCustomPlot::sizeHint().boundedTo(largestHint).expandedTo(smallest);
}

} // namespace pe
