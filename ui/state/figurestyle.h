// FigureStyle: how an exported figure dresses its plots (interaction marks, font size, legend
// place, axis labels), one field table shared by the export dialog, sessions and `pescope export`.
#pragma once

#include "fields/choicenames.h"
#include "fields/field.h"

namespace pe {

// Where a plot's legend goes: matplotlib's inside corners, beside or below the plot, or none.
enum class LegendPlace {
    Auto,
    UpperRight,
    UpperLeft,
    LowerLeft,
    LowerRight,
    OutsideRight,
    Below,
    None
};
inline constexpr ChoiceName legendPlaceNames[] = {
    choice(LegendPlace::Auto, "auto", "Auto (outside right, or below when narrow)"),
    choice(LegendPlace::UpperRight, "upper-right", "Upper right"),
    choice(LegendPlace::UpperLeft, "upper-left", "Upper left"),
    choice(LegendPlace::LowerLeft, "lower-left", "Lower left"),
    choice(LegendPlace::LowerRight, "lower-right", "Lower right"),
    choice(LegendPlace::OutsideRight, "outside-right", "Outside right", "right"),
    choice(LegendPlace::Below, "below", "Below"),
    choice(LegendPlace::None, "none", "None"),
};

// How a figure of several heatmaps (the phrase grid) gives their colour scales: one bar per row
// (random / fixed, as the seed draws it), one per plot (each its own range), or one shared.
enum class ColorbarPlace { PerRow, PerPlot, Shared };
inline constexpr ChoiceName colorbarPlaceNames[] = {
    choice(ColorbarPlace::PerRow, "row", "One per row"),
    choice(ColorbarPlace::PerPlot, "plot", "One per plot"),
    choice(ColorbarPlace::Shared, "shared", "One shared"),
};

namespace figurelimits {
constexpr double minFontScale = 0.5;
constexpr double maxFontScale = 3.0;
} // namespace figurelimits

struct FigureStyle
{
    // The selected cell's outline, the ring on the waves, the selected dim's extra wave and the
    // clicked token's outline are the window's interaction marks: exports leave them out unless
    // asked, so a figure shows what its parameters say and not where the mouse last was.
    bool showSelection = false;
    // Text (ticks, labels, legend, titles) this many times the window's size.
    double fontScale = 1.0;
    // Auto puts the legend beside the plot, so it never hides the curves.
    LegendPlace legend = LegendPlace::Auto;
    ColorbarPlace colorbar = ColorbarPlace::PerRow;
    // Replace the horizontal / vertical axis titles when not empty.
    QString xLabel;
    QString yLabel;

    static FieldTable<FigureStyle> fields();
    bool operator==(const FigureStyle &) const = default;
};

} // namespace pe
