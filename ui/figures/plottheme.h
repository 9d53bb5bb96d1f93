// Plot colours for the light and dark themes, chosen for each (the dark theme's curves are
// lightened so they stay readable on a dark background, not simply inverted), and the matching
// application palette.
#pragma once

#include "state/explorervalues.h"

#include <QColor>
#include <QFont>
#include <QList>
#include <QPalette>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPColorScale;
class QCPLegend;

namespace pe {

struct PlotTheme
{
    QColor background;
    QColor foreground; // axes, ticks, labels
    QColor grid;
    QColor subGrid;
    QColor zeroLine;
    QColor marker;    // dashed position markers
    QColor selection; // selected cell / token outline
    QColor legendBackground;
    QList<QColor> curves; // first two match Fig 16-9's blue and red
    QColor curve(int index) const { return curves[index % curves.size()]; }
};

PlotTheme plotTheme(Theme theme);
// The print theme: black text and axes on white, light grey grid, the light curve colours.
PlotTheme printPlotTheme();
QPalette applicationPalette(Theme theme);

// Styles everything already in the plot (axes of every axis rect, legend, colour scales).
void applyPlotTheme(QCustomPlot *plot, const PlotTheme &theme);
// Empties a plot for a figure builder: no layout, items, plottables, legend or margin groups.
void resetFigure(QCustomPlot *plot, const PlotTheme &theme);
void styleAxis(QCPAxis *axis, const PlotTheme &theme);
void styleColorScale(QCPColorScale *scale, const PlotTheme &theme);

} // namespace pe
