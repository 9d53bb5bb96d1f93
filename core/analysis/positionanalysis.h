// Analyses of a learned position table (positions x dims, row-major): how similar positions are,
// its principal components, and how close each dimension is to a sinusoid — the questions people
// ask of GPT-2's wpe ("the helix") when comparing it with the formula.
#pragma once

#include <QtGlobal>

#include <vector>

namespace pe {

// Rows [first, first + count) of the n x n cosine similarity of positions: out[r * n + q] =
// cos(row first + r, row q); 0 where either row is all zeros. `rows` points at position 0,
// `stride` floats apart.
void positionCosineRows(const float *rows, qint64 n, qint64 stride, qint64 first, qint64 count,
                        float *out);

struct PositionPca
{
    int components = 0;
    std::vector<double> scores;            // n x components: each position in PC coordinates
    std::vector<double> axes;              // components x dims: unit principal directions
    std::vector<double> explainedVariance; // per component, a fraction of the total variance
};

// The first `components` principal components of the n positions (rows centred on their mean),
// by subspace iteration on the covariance, in float64. Each axis' sign makes its largest
// loading positive, so results are reproducible.
PositionPca positionPca(const float *rows, qint64 n, qint64 dims, int components);

// x_p ~ amplitude sin(angularFrequency p + phase) + offset, least squares over p < n.
struct SinusoidFit
{
    double angularFrequency = 0; // radians per position, in (0, pi]
    double phase = 0;            // radians, in (-pi, pi]
    double amplitude = 0;
    double offset = 0;
    double rSquared = 0; // 1 - residual / total sum of squares; 1 for a constant column

    // The fitted curve at position p.
    double at(double p) const;
};

// The mean R² of the fits (0 for none): how sinusoidal the table is as a whole.
double meanRSquared(const std::vector<SinusoidFit> &fits);

// The best-fitting sinusoid of one column (`values` at p * stride): the periodogram's peak of
// the centred column (zero-padded FFT), refined by golden-section search on R^2.
SinusoidFit fitSinusoid(const float *values, qint64 n, qint64 stride);

} // namespace pe
