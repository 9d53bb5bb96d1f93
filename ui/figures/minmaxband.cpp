#include "figures/minmaxband.h"

#include "figures/qcpinclude.h"

#include <algorithm>

namespace pe {

MinMaxBand minMaxBand(qsizetype count, qsizetype runs, const std::function<double(qsizetype)> &x,
                      const std::function<double(qsizetype)> &y)
{
    MinMaxBand band;
    if (count < 1)
        return band;
    const qsizetype run = std::max<qsizetype>(1, (count + runs - 1) / std::max<qsizetype>(1, runs));
    for (qsizetype start = 0; start < count; start += run) {
        const qsizetype end = std::min(count, start + run);
        double least = y(start), most = least;
        for (qsizetype i = start + 1; i < end; ++i) {
            const double v = y(i);
            least = std::min(least, v);
            most = std::max(most, v);
        }
        band.x.append(0.5 * (x(start) + x(end - 1)));
        band.lower.append(least);
        band.upper.append(most);
    }
    return band;
}

QCPGraph *addMinMaxBand(QCPAxis *key, QCPAxis *value, const MinMaxBand &band, const QPen &pen,
                        const QString &name)
{
    auto *lower = new QCPGraph(key, value);
    lower->setData(band.x, band.lower, true);
    lower->setPen(pen);
    auto *upper = new QCPGraph(key, value);
    upper->setData(band.x, band.upper, true);
    upper->setPen(pen);
    upper->setName(name + QStringLiteral(" (min–max band)"));
    QColor fill = pen.color();
    fill.setAlpha(64);
    upper->setBrush(fill);
    upper->setChannelFillGraph(lower);
    // An antialiased fill of a band denser than the pixels (after zooming out) took Qt's
    // raster engine seconds per replot at scale factor 2; aliased it takes a third of that and
    // looks the same at several points a pixel.
    upper->setAntialiasedFill(false);
    return upper;
}

} // namespace pe
