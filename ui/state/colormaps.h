// Colormaps with matplotlib's published tables (viridis, plasma, inferno, magma, cividis, gray,
// Greys, RdBu, coolwarm, twilight; each also reversed, "_r") and matplotlib's lookup rule, so a
// cell's colour equals what matshow would draw.
#pragma once

#include "fields/choicenames.h"

#include <QImage>
#include <QRgb>
#include <QString>
#include <QStringList>

#include <optional>

namespace pe {

// Each map is followed by its reverse (the table read backwards, as matplotlib's "_r" maps).
enum class Colormap {
    Viridis,
    ViridisR,
    Plasma,
    PlasmaR,
    Inferno,
    InfernoR,
    Magma,
    MagmaR,
    Cividis,
    CividisR,
    Gray,
    GrayR,
    Greys,
    GreysR,
    RdBu,
    RdBuR,
    Coolwarm,
    CoolwarmR,
    Twilight,
    TwilightR,
};

inline constexpr ChoiceName colormapNames[] = {
    choice(Colormap::Viridis, "viridis", "viridis"),
    choice(Colormap::ViridisR, "viridis_r", "viridis, reversed"),
    choice(Colormap::Plasma, "plasma", "plasma"),
    choice(Colormap::PlasmaR, "plasma_r", "plasma, reversed"),
    choice(Colormap::Inferno, "inferno", "inferno"),
    choice(Colormap::InfernoR, "inferno_r", "inferno, reversed"),
    choice(Colormap::Magma, "magma", "magma"),
    choice(Colormap::MagmaR, "magma_r", "magma, reversed"),
    choice(Colormap::Cividis, "cividis", "cividis (colour-blind safe)"),
    choice(Colormap::CividisR, "cividis_r", "cividis, reversed"),
    choice(Colormap::Gray, "gray", "gray", "grey"),
    choice(Colormap::GrayR, "gray_r", "gray, reversed", "grey_r"),
    choice(Colormap::Greys, "Greys", "Greys (white to black)", "greys"),
    choice(Colormap::GreysR, "Greys_r", "Greys, reversed", "greys_r"),
    choice(Colormap::RdBu, "RdBu", "RdBu (signed)", "rdbu"),
    choice(Colormap::RdBuR, "RdBu_r", "RdBu, reversed (signed)", "rdbu_r"),
    choice(Colormap::Coolwarm, "coolwarm", "coolwarm (signed)"),
    choice(Colormap::CoolwarmR, "coolwarm_r", "coolwarm, reversed (signed)"),
    choice(Colormap::Twilight, "twilight", "twilight (cyclic, for phases)"),
    choice(Colormap::TwilightR, "twilight_r", "twilight, reversed (cyclic)"),
};
inline QString colormapName(Colormap map)
{
    return nameOf(colormapNames, map);
}
QList<Colormap> allColormaps();

// Entries in the map's table: 256, twilight 510 (matplotlib's N).
int colormapSize(Colormap map);
bool colormapReversed(Colormap map);
// The map read the other way round (viridis <-> viridis_r).
Colormap reversedColormap(Colormap map);
// Diverging maps (RdBu, coolwarm) are meant for signed data centred at 0.
bool colormapDiverging(Colormap map);

// The table entry as matplotlib publishes it, channels in [0, 1].
void colormapEntry(Colormap map, int index, double rgb[3]);
// The entry as 8-bit colour the way matplotlib renders images (channel * 255, truncated).
QRgb colormapRgb(Colormap map, int index);
// matplotlib's Colormap.__call__ index for a normalised value t = (v - vmin) / (vmax - vmin):
// floor(t * N), t == 1 maps to N - 1, values outside [0, 1] clamp to the end entries.
int colormapIndex(double t, int size = 256);
// Normalises like matplotlib's Normalize (vmin == vmax maps everything to 0).
double normalizeValue(double value, double vmin, double vmax);
QRgb colormapColor(Colormap map, double value, double vmin, double vmax);

// The map left (0) to right (1), for the window's chooser.
QImage colormapStrip(Colormap map, int width, int height);

// The data range to give a colour map and its scale (QCPColorMap/QCPColorScale) for [vmin, vmax]
// (widened when vmin == vmax, mapping everything to entry 0 as matplotlib does).
struct ColorRange
{
    double lower;
    double upper;
};
ColorRange colorRangeFor(double vmin, double vmax);

} // namespace pe
