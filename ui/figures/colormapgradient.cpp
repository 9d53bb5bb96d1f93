#include "figures/colormapgradient.h"

#include "figures/qcpinclude.h"

namespace pe {

QCPColorGradient colormapGradient(Colormap map)
{
    const int size = colormapSize(map);
    // QCustomPlot puts level i at i * (1.0 / N); a stop at exactly that double gives the level
    // the entry's colour with no interpolation (k / N differs in the last bit when N is not a
    // power of two, and the blend then truncated a channel, as twilight's 510 showed).
    const double step = 1.0 / size;
    QMap<double, QColor> stops;
    for (int k = 0; k < size; ++k)
        stops.insert(k * step, QColor::fromRgb(colormapRgb(map, k)));
    stops.insert(1.0, QColor::fromRgb(colormapRgb(map, size - 1)));
    QCPColorGradient gradient;
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setColorStops(stops);
    gradient.setLevelCount(size + 1);
    gradient.setPeriodic(false);
    return gradient;
}

} // namespace pe
