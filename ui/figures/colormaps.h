// Colormaps with matplotlib's published 256-entry tables (viridis, gray, magma, RdBu) and
// matplotlib's lookup rule, so a cell's colour equals what matshow would draw.
#pragma once

#include "fields/choicenames.h"

#include <QRgb>
#include <QString>
#include <QStringList>

#include <optional>

class QCPColorGradient;

namespace pe {

enum class Colormap { Viridis, Gray, Magma, RdBu };

inline constexpr ChoiceName colormapNames[] = {
    choice(Colormap::Viridis, "viridis", "viridis"),
    choice(Colormap::Gray, "gray", "gray", "grey"),
    choice(Colormap::Magma, "magma", "magma"),
    choice(Colormap::RdBu, "RdBu", "RdBu (signed)", "rdbu"),
};
inline QString colormapName(Colormap map)
{
    return nameOf(colormapNames, map);
}
QList<Colormap> allColormaps();

constexpr int colormapSize = 256;

// The table entry as matplotlib publishes it, channels in [0, 1].
void colormapEntry(Colormap map, int index, double rgb[3]);
// The entry as 8-bit colour the way matplotlib renders images (channel * 255, truncated).
QRgb colormapRgb(Colormap map, int index);
// matplotlib's Colormap.__call__ index for a normalised value t = (v - vmin) / (vmax - vmin):
// floor(t * 256), t == 1 maps to 255, values outside [0, 1] clamp to the end entries.
int colormapIndex(double t);
// Normalises like matplotlib's Normalize (vmin == vmax maps everything to 0).
double normalizeValue(double value, double vmin, double vmax);
QRgb colormapColor(Colormap map, double value, double vmin, double vmax);

// A QCustomPlot gradient that reproduces colormapIndex() exactly inside QCPColorMap: 257 levels
// with stops at k/256, because QCPColorGradient looks up int(t * (levels - 1)).
QCPColorGradient colormapGradient(Colormap map);
// The data range to give QCPColorMap/QCPColorScale for [vmin, vmax] (widened when vmin == vmax,
// mapping everything to entry 0 as matplotlib does).
struct ColorRange
{
    double lower;
    double upper;
};
ColorRange colorRangeFor(double vmin, double vmax);

} // namespace pe
