#include "analysis/ropeanalysis.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace pe {

std::vector<double> ropeWavelengths(std::span<const double> theta)
{
    std::vector<double> out;
    out.reserve(theta.size());
    for (double t : theta)
        out.push_back(t > 0 ? 2.0 * std::numbers::pi / t
                            : std::numeric_limits<double>::quiet_NaN());
    return out;
}

double ropeRelativeScore(std::span<const double> theta, qint64 dims, double distance)
{
    double sum = 0.0;
    for (double t : theta)
        sum += std::cos(distance * t);
    const double rotary = 2.0 * double(theta.size());
    return ((double(dims) - rotary) + 2.0 * sum) / double(dims);
}

std::vector<double> decayDistances(qint64 last, qint64 maxSamples)
{
    std::vector<double> out;
    if (last < 0 || maxSamples < 1)
        return out;
    const qint64 samples = std::min(last + 1, maxSamples);
    out.resize(std::size_t(samples));
    for (qint64 k = 0; k < samples; ++k)
        out[std::size_t(k)] = samples == last + 1 || samples == 1
                                  ? double(k)
                                  : std::round(double(k) * double(last) / double(samples - 1));
    return out;
}

std::vector<double> ropeDecayCurve(std::span<const double> theta, qint64 dims,
                                   std::span<const double> distances)
{
    std::vector<double> out;
    out.reserve(distances.size());
    for (double distance : distances)
        out.push_back(ropeRelativeScore(theta, dims, distance));
    return out;
}

std::vector<RotationPoint> ropeRotationTrail(double theta, qint64 first, qint64 last)
{
    std::vector<RotationPoint> out;
    for (qint64 p = first; p <= last; ++p)
        out.push_back({p, std::cos(double(p) * theta), std::sin(double(p) * theta)});
    return out;
}

double ropeRotationAngle(double theta, qint64 position)
{
    const double angle = std::fmod(double(position) * theta, 2.0 * std::numbers::pi);
    return angle < 0 ? angle + 2.0 * std::numbers::pi : angle;
}

} // namespace pe
