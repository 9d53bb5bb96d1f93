#include "figures/figurestyle.h"

namespace pe {

FieldTable<FigureStyle> FigureStyle::fields()
{
    using S = FigureStyle;
    static const Field<S> table[] = {
        {.key = "showSelection",
         .flag = "show-selection",
         .label = "Include selection",
         .help = "Draw the selected cell, its dim's wave and the clicked token as the window "
                 "marks them (default: left out).",
         .kind = BoolKind<S>{&S::showSelection}},
    };
    return table;
}

} // namespace pe
