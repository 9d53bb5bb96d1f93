#include "figures/colormapgradient.h"

#include "figures/qcpinclude.h"

#include <algorithm>
#include <cmath>

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
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(colormapNanColor());
    return gradient;
}

QColor colormapNanColor()
{
    return QColor::fromRgb(255, 0, 255);
}

qint64 nonFiniteCount(std::span<const float> values)
{
    return std::count_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
}

QString nonFiniteNote(qint64 count, qint64 total)
{
    if (count == 0)
        return {};
    return QStringLiteral("%1 of %2 values are NaN or infinite, drawn magenta: not data")
        .arg(count)
        .arg(total);
}

} // namespace pe
