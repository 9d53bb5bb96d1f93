#include "widgets/figureplot.h"

namespace pe {

FigurePlot::FigurePlot(QWidget *parent) : QCustomPlot(parent) {}

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
