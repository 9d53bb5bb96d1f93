// The window's zoom (View > Zoom in / out / Actual size, Ctrl+= / Ctrl+- / Ctrl+0; issue 38): the
// main window's font scaled, for a projector in a lecture hall, and the figures in the window
// rebuilt in it. A view state, never an undo step; exports keep the application's font, so that
// they still equal the command line's.
#pragma once

#include <functional>

class QWidget;

namespace pe {

// The zoom levels, smallest first; 1 is the desktop's font.
inline constexpr double zoomLevels[] = {0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0};

// Calls `rebuild` whenever `view`'s font changes (a zoom): figures take their fonts when they are
// built.
void rebuildOnFontChange(QWidget *view, std::function<void()> rebuild);

} // namespace pe
