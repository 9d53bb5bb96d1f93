#include "figures/colormaps.h"

#include "figures/qcpinclude.h"

#include <cmath>

namespace pe {

namespace {
#include "figures/colormaptables.inc"

const double (*table(Colormap map))[3]
{
    switch (map) {
    case Colormap::Viridis:
        return k_viridis;
    case Colormap::Gray:
        return k_gray;
    case Colormap::Magma:
        return k_magma;
    case Colormap::RdBu:
        return k_rdbu;
    }
    return k_viridis;
}
} // namespace

QList<Colormap> allColormaps()
{
    QList<Colormap> maps;
    for (const ChoiceName &n : colormapNames)
        maps.append(Colormap(n.value));
    return maps;
}

void colormapEntry(Colormap map, int index, double rgb[3])
{
    const double(*entries)[3] = table(map);
    const int i = qBound(0, index, colormapSize - 1);
    rgb[0] = entries[i][0];
    rgb[1] = entries[i][1];
    rgb[2] = entries[i][2];
}

QRgb colormapRgb(Colormap map, int index)
{
    double rgb[3];
    colormapEntry(map, index, rgb);
    return qRgb(int(rgb[0] * 255.0), int(rgb[1] * 255.0), int(rgb[2] * 255.0));
}

int colormapIndex(double t)
{
    if (std::isnan(t))
        return 0;
    const double scaled = t * colormapSize;
    if (scaled < 0.0)
        return 0;
    if (scaled >= colormapSize)
        return colormapSize - 1;
    return int(scaled);
}

double normalizeValue(double value, double vmin, double vmax)
{
    if (vmax == vmin)
        return 0.0;
    return (value - vmin) / (vmax - vmin);
}

QRgb colormapColor(Colormap map, double value, double vmin, double vmax)
{
    return colormapRgb(map, colormapIndex(normalizeValue(value, vmin, vmax)));
}

QCPColorGradient colormapGradient(Colormap map)
{
    QMap<double, QColor> stops;
    for (int k = 0; k < colormapSize; ++k)
        stops.insert(double(k) / colormapSize, QColor::fromRgb(colormapRgb(map, k)));
    stops.insert(1.0, QColor::fromRgb(colormapRgb(map, colormapSize - 1)));
    QCPColorGradient gradient;
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setColorStops(stops);
    gradient.setLevelCount(colormapSize + 1);
    gradient.setPeriodic(false);
    return gradient;
}

ColorRange colorRangeFor(double vmin, double vmax)
{
    if (!(vmax > vmin))
        return {vmin, vmin + 1.0};
    return {vmin, vmax};
}

} // namespace pe
