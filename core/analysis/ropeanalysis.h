// RoPE's analysis formulas behind the Schemes page: wavelengths, the RoFormer long-term decay and
// the rotation of one pair as the position advances. Plain float64 functions of the inverse
// frequencies (rope/ropefrequencies.h), callable from any thread.
#pragma once

#include <QtGlobal>

#include <span>
#include <vector>

namespace pe {

// 2π/θᵢ per pair, in tokens; NaN for a pair that never turns (θ = 0, proportional's tail).
std::vector<double> ropeWavelengths(std::span<const double> theta);

// RoFormer §3.4.3 with q = k = all ones: the attention score at relative distance `distance`
// over the score at 0, [(d − r) + 2 Σᵢ cos(distance·θᵢ)] / d, where r = 2·theta.size() dims
// rotate and the other d − r pass through unchanged.
double ropeRelativeScore(std::span<const double> theta, qint64 dims, double distance);

// The distances a decay curve over 0..last is evaluated at: every integer when there are at most
// maxSamples of them, else maxSamples evenly spread, rounded to integers, ending at `last`.
std::vector<double> decayDistances(qint64 last, qint64 maxSamples);

// ropeRelativeScore at each distance.
std::vector<double> ropeDecayCurve(std::span<const double> theta, qint64 dims,
                                   std::span<const double> distances);

// One point of a pair's rotation: the unit vector (cos pθ, sin pθ) at position p.
struct RotationPoint
{
    qint64 position = 0;
    double cos = 1.0;
    double sin = 0.0;
};

// The pair's vector at every position from `first` to `last` (inclusive).
std::vector<RotationPoint> ropeRotationTrail(double theta, qint64 first, qint64 last);

// The angle p·θ of the pair at `position`, reduced to [0, 2π).
double ropeRotationAngle(double theta, qint64 position);

} // namespace pe
