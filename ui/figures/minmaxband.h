// MinMaxBand: a curve with more points than pixels, drawn as the band between each run of
// neighbouring points' smallest and largest value: the waves over many positions and the RoPE
// decay over many distances. A polyline through all of them would fill a solid block (and take
// Qt's raster engine seconds to stroke), hiding every other curve.
#pragma once

#include <QString>
#include <QVector>

#include <functional>

class QCPAxis;
class QCPGraph;
class QPen;

namespace pe {

struct MinMaxBand
{
    QVector<double> x;     // each run's centre, (x of its first + x of its last) / 2
    QVector<double> lower; // its smallest value
    QVector<double> upper; // its largest value
};

// Points i = 0 .. count - 1 at (x(i), y(i)), x increasing, in about `runs` runs of equal length.
MinMaxBand minMaxBand(qsizetype count, qsizetype runs, const std::function<double(qsizetype)> &x,
                      const std::function<double(qsizetype)> &y);

// The band as two graphs on `key` / `value`: the upper one, named `name` + " (min–max band)",
// filled translucent down to the lower one (unnamed, out of the legend). Returns the upper.
QCPGraph *addMinMaxBand(QCPAxis *key, QCPAxis *value, const MinMaxBand &band, const QPen &pen,
                        const QString &name);

} // namespace pe
