#include "rope.h"

#include "schemes/sinusoidalscheme.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pe {

namespace {

constexpr qint64 maxContext = limits::maxRopeContext;

bool usesOriginalContext(RopeScaling scaling)
{
    return scaling == RopeScaling::DynamicNtk || scaling == RopeScaling::Yarn ||
           scaling == RopeScaling::Llama3;
}

bool positiveFinite(double x)
{
    return std::isfinite(x) && x > 0.0;
}

} // namespace

qint64 ropeRotaryDims(qint64 dims, double partialRotaryFactor)
{
    // Python's int() truncates toward zero, as std::trunc does.
    return qint64(std::trunc(double(dims) * partialRotaryFactor));
}

QString ropeProblem(qint64 dims, const RopeParameters &rope)
{
    if (dims % 2 != 0)
        return QStringLiteral("dims must be even for rope: each rotation turns a pair of columns "
                              "(got %1)")
            .arg(dims);
    if (!(positiveFinite(rope.partialRotaryFactor) && rope.partialRotaryFactor <= 1.0))
        return QStringLiteral("partial rotary factor must be greater than 0 and at most 1 (got %1)")
            .arg(rope.partialRotaryFactor);
    const qint64 rotary = ropeRotaryDims(dims, rope.partialRotaryFactor);
    if (rotary < 2 || rotary % 2 != 0)
        return QStringLiteral("partial rotary factor %1 gives int(%2 x %1) = %3 rotary dims; rope "
                              "needs an even number, at least 2")
            .arg(rope.partialRotaryFactor)
            .arg(dims)
            .arg(rotary);
    if (rope.scaling == RopeScaling::None)
        return {};
    if (!positiveFinite(rope.factor))
        return QStringLiteral("factor must be a finite number greater than 0 (got %1)")
            .arg(rope.factor);
    if ((rope.scaling == RopeScaling::Ntk || rope.scaling == RopeScaling::DynamicNtk) && rotary < 4)
        return QStringLiteral("%1 scaling needs at least 4 rotary dims: its exponent r / (r - 2) "
                              "divides by zero at r = %2")
            .arg(nameOf(ropeScalingNames, rope.scaling))
            .arg(rotary);
    if (usesOriginalContext(rope.scaling) &&
        (rope.originalContext < 1 || rope.originalContext > maxContext))
        return QStringLiteral("original context must be between 1 and %1 (got %2)")
            .arg(maxContext)
            .arg(rope.originalContext);
    if (rope.scaling == RopeScaling::DynamicNtk &&
        (rope.currentLength < 0 || rope.currentLength > maxContext))
        return QStringLiteral("current length must be between 0 (the original context) and %1 "
                              "(got %2)")
            .arg(maxContext)
            .arg(rope.currentLength);
    if (rope.scaling == RopeScaling::Llama3) {
        if (!positiveFinite(rope.lowFreqFactor))
            return QStringLiteral("low freq factor must be a finite number greater than 0 (got %1)")
                .arg(rope.lowFreqFactor);
        if (!(std::isfinite(rope.highFreqFactor) && rope.highFreqFactor > rope.lowFreqFactor))
            return QStringLiteral("high freq factor must be greater than low freq factor %1 "
                                  "(got %2)")
                .arg(rope.lowFreqFactor)
                .arg(rope.highFreqFactor);
    }
    if (rope.scaling == RopeScaling::Yarn) {
        if (!positiveFinite(rope.betaFast))
            return QStringLiteral("beta fast must be a finite number greater than 0 (got %1)")
                .arg(rope.betaFast);
        if (!positiveFinite(rope.betaSlow))
            return QStringLiteral("beta slow must be a finite number greater than 0 (got %1)")
                .arg(rope.betaSlow);
        // HF only warns here; a reversed range would blend the wrong ends of the spectrum.
        if (rope.betaFast < rope.betaSlow)
            return QStringLiteral("beta fast (%1) must be at least beta slow (%2)")
                .arg(rope.betaFast)
                .arg(rope.betaSlow);
    }
    return {};
}

std::vector<double> ropeDefaultInverseFrequencies(double base, qint64 rotaryDims)
{
    // 1 / base^(arange(0, dim, 2) / dim), in float64 (HF uses float32).
    std::vector<double> theta(std::size_t(std::max<qint64>(rotaryDims / 2, 0)));
    for (std::size_t i = 0; i < theta.size(); ++i)
        theta[i] = 1.0 / std::pow(base, double(2 * i) / double(rotaryDims));
    return theta;
}

double ropeNtkBase(double base, qint64 rotaryDims, double factor)
{
    const double r = double(rotaryDims);
    return base * std::pow(factor, r / (r - 2.0));
}

double ropeDynamicNtkBase(double base, qint64 rotaryDims, double factor, qint64 originalContext,
                          qint64 currentLength)
{
    // seq_len = seq_len if seq_len > max_position_embeddings else max_position_embeddings
    const double seqLen = double(std::max(currentLength, originalContext));
    const double r = double(rotaryDims);
    return base *
           std::pow(factor * seqLen / double(originalContext) - (factor - 1.0), r / (r - 2.0));
}

YarnCorrectionRange ropeYarnCorrectionRange(double base, qint64 rotaryDims,
                                            const RopeParameters &rope)
{
    const double r = double(rotaryDims);
    // find_correction_dim: the pair index whose wavelength fits `rotations` times in L0.
    const auto correctionDim = [&](double rotations) {
        return r * std::log(double(rope.originalContext) / (rotations * 2.0 * std::numbers::pi)) /
               (2.0 * std::log(base));
    };
    double low = correctionDim(rope.betaFast);
    double high = correctionDim(rope.betaSlow);
    // HF's `truncate` (default True; gpt-oss sets it False): floor/ceil to whole pair indices.
    if (rope.yarnTruncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    // max(low, 0), min(high, dim - 1): note HF clamps to dim - 1, not dim / 2 - 1.
    return {std::max(low, 0.0), std::min(high, r - 1.0)};
}

double ropeYarnAttentionFactor(double factor)
{
    return factor <= 1.0 ? 1.0 : 0.1 * std::log(factor) + 1.0;
}

RopeFrequencies ropeInverseFrequencies(qint64 dims, const RopeParameters &rope)
{
    const double base = rope.ropeTheta;
    const qint64 rotary = ropeRotaryDims(dims, rope.partialRotaryFactor);
    const double s = rope.factor;
    RopeFrequencies result;
    switch (rope.scaling) {
    case RopeScaling::None: // _compute_default_rope_parameters
        result.inverseFrequencies = ropeDefaultInverseFrequencies(base, rotary);
        break;
    case RopeScaling::Linear: // _compute_linear_scaling_rope_parameters: inv_freq /= factor
        // Position interpolation divides positions by s; since the angle is theta * p, dividing
        // theta instead is the same (HF's own note).
        result.inverseFrequencies = ropeDefaultInverseFrequencies(base, rotary);
        for (double &theta : result.inverseFrequencies)
            theta /= s;
        break;
    case RopeScaling::Ntk: // _compute_ntk_parameters (HF 4.45; "NTK-aware" static scaling)
        result.inverseFrequencies =
            ropeDefaultInverseFrequencies(ropeNtkBase(base, rotary, s), rotary);
        break;
    case RopeScaling::DynamicNtk: // _compute_dynamic_ntk_parameters
        result.inverseFrequencies = ropeDefaultInverseFrequencies(
            ropeDynamicNtkBase(base, rotary, s, rope.originalContext, rope.currentLength), rotary);
        break;
    case RopeScaling::Yarn: { // _compute_yarn_parameters
        result.attentionFactor = ropeYarnAttentionFactor(s);
        const YarnCorrectionRange range = ropeYarnCorrectionRange(base, rotary, rope);
        double low = range.low;
        double high = range.high;
        if (low == high)
            high += 0.001; // linear_ramp_factor: "Prevent singularity"
        const std::vector<double> extrapolation = ropeDefaultInverseFrequencies(base, rotary);
        result.inverseFrequencies.resize(extrapolation.size());
        for (std::size_t i = 0; i < extrapolation.size(); ++i) {
            const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
            const double extrapolationFactor = 1.0 - ramp;
            const double interpolation = extrapolation[i] / s; // 1 / (factor * pos_freqs)
            result.inverseFrequencies[i] = interpolation * (1.0 - extrapolationFactor) +
                                           extrapolation[i] * extrapolationFactor;
        }
        break;
    }
    case RopeScaling::Llama3: { // _compute_llama3_parameters
        const double oldContext = double(rope.originalContext);
        const double lowFreqWavelen = oldContext / rope.lowFreqFactor;
        const double highFreqWavelen = oldContext / rope.highFreqFactor;
        result.inverseFrequencies = ropeDefaultInverseFrequencies(base, rotary);
        for (double &theta : result.inverseFrequencies) {
            const double wavelen = 2.0 * std::numbers::pi / theta;
            // Long wavelengths (low frequencies) are interpolated, short ones kept.
            const double llama = wavelen > lowFreqWavelen ? theta / s : theta;
            const double smooth = (oldContext / wavelen - rope.lowFreqFactor) /
                                  (rope.highFreqFactor - rope.lowFreqFactor);
            const double smoothed = (1.0 - smooth) * llama / s + smooth * llama;
            const bool medium = !(wavelen < highFreqWavelen) && !(wavelen > lowFreqWavelen);
            theta = medium ? smoothed : llama;
        }
        break;
    }
    }
    return result;
}

std::vector<kernels::ColumnPhase> ropeColumnPhases(qint64 dims, const RopeParameters &rope)
{
    const qint64 d = dims;
    const qint64 rotary = ropeRotaryDims(d, rope.partialRotaryFactor);
    const qint64 half = rotary / 2;
    const std::vector<double> theta = ropeInverseFrequencies(dims, rope).inverseFrequencies;
    const bool interleaved = rope.pairing == RopePairing::Interleaved;

    std::vector<kernels::ColumnPhase> columns(std::size_t(d), kernels::ColumnPhase{});
    for (qint64 j = 0; j < d; ++j) {
        bool cosine = false;
        if (j < rotary) {
            const qint64 pair = interleaved ? j / 2 : (j < half ? j : j - half);
            cosine = interleaved ? j % 2 == 0 : j < half;
            columns[std::size_t(j)].step = turnsStep(theta[std::size_t(pair)]);
        } else {
            // Pass-through block: theta = 0 (step 0), cos(0) = 1 in cos slots, sin(0) = 0.
            const qint64 k = j - rotary;
            cosine = interleaved ? k % 2 == 0 : k < (d - rotary) / 2;
        }
        columns[std::size_t(j)].offset = cosine ? kernels::quarterTurn : 0;
    }
    return columns;
}

} // namespace pe
