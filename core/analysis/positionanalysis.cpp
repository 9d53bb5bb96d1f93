#include "analysis/positionanalysis.h"

#include <Eigen/Dense>
#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

namespace pe {

namespace {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

// The n x dims table as float64, centred on its mean position.
Matrix centred(const float *rows, qint64 n, qint64 dims)
{
    Matrix x(n, dims);
    for (qint64 p = 0; p < n; ++p)
        for (qint64 j = 0; j < dims; ++j)
            x(p, j) = double(rows[p * dims + j]);
    x.rowwise() -= x.colwise().mean();
    return x;
}

// Least squares a sin(w p) + b cos(w p) + c over the column; returns the fit at w.
SinusoidFit fitAt(const Vector &x, double w)
{
    const Eigen::Index n = x.size();
    Matrix basis(n, 3);
    for (Eigen::Index p = 0; p < n; ++p) {
        basis(p, 0) = std::sin(w * double(p));
        basis(p, 1) = std::cos(w * double(p));
        basis(p, 2) = 1.0;
    }
    const Vector coefficients = basis.colPivHouseholderQr().solve(x);
    const double total = (x.array() - x.mean()).square().sum();
    const double residual = (basis * coefficients - x).squaredNorm();
    SinusoidFit fit;
    fit.angularFrequency = w;
    fit.amplitude = std::hypot(coefficients(0), coefficients(1));
    fit.phase = std::atan2(coefficients(1), coefficients(0)); // a sin + b cos = A sin(wp + phase)
    fit.offset = coefficients(2);
    fit.rSquared = total > 0 ? 1.0 - residual / total : 1.0;
    return fit;
}

} // namespace

void positionCosineRows(const float *rows, qint64 n, qint64 stride, qint64 first, qint64 count,
                        float *out)
{
    std::vector<double> norms(static_cast<std::size_t>(n));
    for (qint64 q = 0; q < n; ++q) {
        double s = 0;
        for (qint64 j = 0; j < stride; ++j)
            s += double(rows[q * stride + j]) * double(rows[q * stride + j]);
        norms[std::size_t(q)] = std::sqrt(s);
    }
    for (qint64 r = 0; r < count; ++r) {
        const float *a = rows + (first + r) * stride;
        for (qint64 q = 0; q < n; ++q) {
            const float *b = rows + q * stride;
            double dot = 0;
            for (qint64 j = 0; j < stride; ++j)
                dot += double(a[j]) * double(b[j]);
            const double norm = norms[std::size_t(first + r)] * norms[std::size_t(q)];
            out[r * n + q] = norm > 0 ? float(dot / norm) : 0.0f;
        }
    }
}

PositionPca positionPca(const float *rows, qint64 n, qint64 dims, int components)
{
    PositionPca result;
    const int k = int(std::min<qint64>({qint64(components), n, dims}));
    result.components = k;
    if (k <= 0)
        return result;
    const Matrix x = centred(rows, n, dims);
    const double total = x.squaredNorm();
    // Subspace iteration on C = X^T X (never formed): V <- orth(X^T (X V)). A few extra vectors
    // speed convergence; Rayleigh-Ritz then gives the eigenpairs of the subspace.
    const int block = int(std::min<qint64>(dims, qint64(k) + 4));
    Matrix v = Matrix::Zero(dims, block);
    for (int c = 0; c < block; ++c) // a fixed start: deterministic results
        for (qint64 j = 0; j < dims; ++j)
            v(j, c) = std::cos(double(j + 1) * double(c + 1) * 0.7548776662) + (j == c ? 1 : 0);
    Vector previous = Vector::Zero(block);
    for (int iteration = 0; iteration < 500; ++iteration) {
        const Matrix w = x.transpose() * (x * v);
        Eigen::HouseholderQR<Matrix> qr(w);
        v = qr.householderQ() * Matrix::Identity(dims, block);
        const Matrix projected = (x * v).transpose() * (x * v);
        const Vector eigen = projected.selfadjointView<Eigen::Lower>().eigenvalues();
        if (iteration > 5 && (eigen - previous).norm() <= 1e-13 * std::max(1.0, eigen.norm()))
            break;
        previous = eigen;
    }
    const Matrix xv = x * v;
    Eigen::SelfAdjointEigenSolver<Matrix> ritz(xv.transpose() * xv);
    result.axes.resize(std::size_t(k * dims));
    result.scores.resize(std::size_t(n * k));
    result.explainedVariance.resize(std::size_t(k));
    for (int c = 0; c < k; ++c) {
        const int index = block - 1 - c; // eigenvalues ascend
        Vector axis = v * ritz.eigenvectors().col(index);
        Eigen::Index largest = 0;
        axis.cwiseAbs().maxCoeff(&largest);
        if (axis(largest) < 0)
            axis = -axis;
        const Vector scores = x * axis;
        for (qint64 j = 0; j < dims; ++j)
            result.axes[std::size_t(c * dims + j)] = axis(j);
        for (qint64 p = 0; p < n; ++p)
            result.scores[std::size_t(p * k + c)] = scores(p);
        result.explainedVariance[std::size_t(c)] =
            total > 0 ? ritz.eigenvalues()(index) / total : 0.0;
    }
    return result;
}

double SinusoidFit::at(double p) const
{
    return amplitude * std::sin(angularFrequency * p + phase) + offset;
}

double meanRSquared(const std::vector<SinusoidFit> &fits)
{
    if (fits.empty())
        return 0.0;
    double sum = 0;
    for (const SinusoidFit &fit : fits)
        sum += fit.rSquared;
    return sum / double(fits.size());
}

SinusoidFit fitSinusoid(const float *values, qint64 n, qint64 stride)
{
    Vector x(n);
    for (qint64 p = 0; p < n; ++p)
        x(p) = double(values[p * stride]);
    if (n < 4)
        return fitAt(x, std::numbers::pi / 2);
    // The periodogram of the centred column, zero-padded 8x for a fine grid of frequencies.
    const Eigen::Index padded = Eigen::Index(8) << int(std::ceil(std::log2(double(n))));
    std::vector<double> signal(std::size_t(padded), 0.0);
    const double mean = x.mean();
    for (qint64 p = 0; p < n; ++p)
        signal[std::size_t(p)] = x(p) - mean;
    Eigen::FFT<double> fft;
    std::vector<std::complex<double>> spectrum;
    fft.fwd(spectrum, signal);
    Eigen::Index peak = 1;
    for (Eigen::Index f = 1; f <= padded / 2; ++f)
        if (std::norm(spectrum[std::size_t(f)]) > std::norm(spectrum[std::size_t(peak)]))
            peak = f;
    const double step = 2.0 * std::numbers::pi / double(padded);
    // Golden-section search for the best R^2 within one grid step either side of the peak.
    double lo = std::max(step * (double(peak) - 1.0), 1e-9 * step);
    double hi = std::min(step * (double(peak) + 1.0), std::numbers::pi);
    constexpr double golden = 0.6180339887498949;
    double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    SinusoidFit fa = fitAt(x, a), fb = fitAt(x, b);
    for (int i = 0; i < 60 && hi - lo > 1e-12; ++i) {
        if (fa.rSquared >= fb.rSquared) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - golden * (hi - lo);
            fa = fitAt(x, a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + golden * (hi - lo);
            fb = fitAt(x, b);
        }
    }
    return fa.rSquared >= fb.rSquared ? fa : fb;
}

} // namespace pe
