#include "state/colormaps.h"

#include <algorithm>
#include <cmath>

namespace pe {

namespace {
#include "state/colormaptables.inc"

struct Table
{
    const double (*entries)[3];
    int size;
};

template <std::size_t N> constexpr Table tableOf(const double (&entries)[N][3])
{
    return {entries, int(N)};
}

// The forward table of a map (its reverse reads it backwards).
Table table(Colormap map)
{
    switch (Colormap(int(map) & ~1)) {
    case Colormap::Viridis:
        return tableOf(k_viridis);
    case Colormap::Plasma:
        return tableOf(k_plasma);
    case Colormap::Inferno:
        return tableOf(k_inferno);
    case Colormap::Magma:
        return tableOf(k_magma);
    case Colormap::Cividis:
        return tableOf(k_cividis);
    case Colormap::Gray:
        return tableOf(k_gray);
    case Colormap::Greys:
        return tableOf(k_greys);
    case Colormap::RdBu:
        return tableOf(k_rdbu);
    case Colormap::Coolwarm:
        return tableOf(k_coolwarm);
    case Colormap::Twilight:
        return tableOf(k_twilight);
    default:
        break;
    }
    return tableOf(k_viridis);
}
} // namespace

QList<Colormap> allColormaps()
{
    QList<Colormap> maps;
    for (const ChoiceName &n : colormapNames)
        maps.append(Colormap(n.value));
    return maps;
}

int colormapSize(Colormap map)
{
    return table(map).size;
}

bool colormapReversed(Colormap map)
{
    return (int(map) & 1) != 0;
}

Colormap reversedColormap(Colormap map)
{
    return Colormap(int(map) ^ 1);
}

bool colormapDiverging(Colormap map)
{
    const Colormap forward = Colormap(int(map) & ~1);
    return forward == Colormap::RdBu || forward == Colormap::Coolwarm;
}

void colormapEntry(Colormap map, int index, double rgb[3])
{
    const Table t = table(map);
    int i = qBound(0, index, t.size - 1);
    if (colormapReversed(map))
        i = t.size - 1 - i;
    rgb[0] = t.entries[i][0];
    rgb[1] = t.entries[i][1];
    rgb[2] = t.entries[i][2];
}

QRgb colormapRgb(Colormap map, int index)
{
    double rgb[3];
    colormapEntry(map, index, rgb);
    return qRgb(int(rgb[0] * 255.0), int(rgb[1] * 255.0), int(rgb[2] * 255.0));
}

int colormapIndex(double t, int size)
{
    if (std::isnan(t))
        return 0;
    const double scaled = t * size;
    if (scaled < 0.0)
        return 0;
    if (scaled >= size)
        return size - 1;
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
    return colormapRgb(map, colormapIndex(normalizeValue(value, vmin, vmax), colormapSize(map)));
}

QImage colormapStrip(Colormap map, int width, int height)
{
    QImage image(qMax(1, width), qMax(1, height), QImage::Format_RGB32);
    auto *first = reinterpret_cast<QRgb *>(image.scanLine(0));
    for (int x = 0; x < image.width(); ++x)
        first[x] = colormapColor(map, (x + 0.5) / image.width(), 0.0, 1.0);
    for (int y = 1; y < image.height(); ++y)
        std::copy(first, first + image.width(), reinterpret_cast<QRgb *>(image.scanLine(y)));
    return image;
}

ColorRange colorRangeFor(double vmin, double vmax)
{
    if (!(vmax > vmin))
        return {vmin, vmin + 1.0};
    return {vmin, vmax};
}

} // namespace pe
