// The colormaps (state/colormaps.h) as QCustomPlot gradients: the figures' side of the tables,
// kept out of the state's library, which links no QCustomPlot.
#pragma once

#include "state/colormaps.h"

#include <QColor>
#include <QString>

#include <cmath>
#include <limits>
#include <span>

class QCPColorGradient;

namespace pe {

// A QCustomPlot gradient that reproduces colormapIndex() exactly inside QCPColorMap: N + 1 levels
// with stops at k/N, because QCPColorGradient looks up int(t * (levels - 1)).
// NaN cells take colormapNanColor() (nhNanColor), never a colour of the map: QCustomPlot's
// default (nhNone) would turn a NaN into some ordinary level, drawn as if it were data.
QCPColorGradient colormapGradient(Colormap map);

// The colour of a cell that holds no number: pure magenta (#ff00ff), which no colormap here
// contains, as matplotlib's set_bad() marks masked cells.
QColor colormapNanColor();

// A value as a colour map cell: an infinity becomes NaN, so that it takes the NaN colour too
// (QCustomPlot would clamp it to an end of the map, drawing it as the largest or smallest value).
inline double colormapCell(double value)
{
    return std::isfinite(value) ? value : std::numeric_limits<double>::quiet_NaN();
}

// How many of `values` are NaN or infinite.
qint64 nonFiniteCount(std::span<const float> values);

// The note a figure's title carries when some of its cells are not numbers, or an empty string:
// "3 of 64 values are NaN or infinite (drawn magenta): the model's weights or settings produce
// no numbers there".
QString nonFiniteNote(qint64 count, qint64 total);

} // namespace pe
