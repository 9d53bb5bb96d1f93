// FigureStyle: how an exported figure dresses its plots (whether the window's interaction marks
// appear), one field table shared by the export dialog, sessions and `pescope export`.
#pragma once

#include "fields/field.h"

namespace pe {

struct FigureStyle
{
    // The selected cell's outline, the ring on the waves, the selected dim's extra wave and the
    // clicked token's outline are the window's interaction marks: exports leave them out unless
    // asked, so a figure shows what its parameters say and not where the mouse last was.
    bool showSelection = false;

    static FieldTable<FigureStyle> fields();
    bool operator==(const FigureStyle &) const = default;
};

} // namespace pe
