#include "state/figurestyle.h"

namespace pe {

FieldTable<FigureStyle> FigureStyle::fields()
{
    using S = FigureStyle;
    using namespace figurelimits;
    static const Field<S> table[] = {
        {.key = "showSelection",
         .flag = "show-selection",
         .label = "Include selection",
         .help = "Draw the selected cell, its dim's wave and the clicked token as the window "
                 "marks them (default: left out).",
         .kind = BoolKind<S>{&S::showSelection}},
        {.key = "fontScale",
         .flag = "font-scale",
         .label = "Font scale",
         .help = "Text size relative to the window's: 1.5 for slides.",
         .kind = RealKind<S>{&S::fontScale, {minFontScale, maxFontScale}}},
        {.key = "legend",
         .flag = "legend",
         .label = "Legend",
         .help = "Where the legend goes: auto (beside the plot, below when narrow), inside a "
                 "corner, outside-right, below or none.",
         .kind = choiceKind<&S::legend>(legendPlaceNames)},
        {.key = "colorbar",
         .flag = "colorbar",
         .label = "Colorbar",
         .help = "Figures of several heatmaps (phrases): one colorbar per row (default), one "
                 "per plot with its own range, or one shared by all plots.",
         .kind = choiceKind<&S::colorbar>(colorbarPlaceNames)},
        {.key = "xLabel",
         .flag = "xlabel",
         .label = "X axis title",
         .help = "Replaces the horizontal axis title (e.g. \"token position\").",
         .kind = TextKind<S>{&S::xLabel, 200}},
        {.key = "yLabel",
         .flag = "ylabel",
         .label = "Y axis title",
         .help = "Replaces the vertical axis title.",
         .kind = TextKind<S>{&S::yLabel, 200}},
    };
    return table;
}

} // namespace pe
