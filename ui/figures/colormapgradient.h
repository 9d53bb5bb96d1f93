// The colormaps (state/colormaps.h) as QCustomPlot gradients: the figures' side of the tables,
// kept out of the state's library, which links no QCustomPlot.
#pragma once

#include "state/colormaps.h"

class QCPColorGradient;

namespace pe {

// A QCustomPlot gradient that reproduces colormapIndex() exactly inside QCPColorMap: N + 1 levels
// with stops at k/N, because QCPColorGradient looks up int(t * (levels - 1)).
QCPColorGradient colormapGradient(Colormap map);

} // namespace pe
