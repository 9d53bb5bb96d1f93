#include "ropefrequencies.h"

#include "ropefields.h"
#include "ropetables.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace pe {

namespace {

constexpr double pi = std::numbers::pi;

bool finite(double x)
{
    return std::isfinite(x);
}

QString number(double x)
{
    return QString::number(x, 'g', QLocale::FloatingPointShortest);
}

QString typeName(RopeType type)
{
    return QLatin1Char('"') + ropeTypeName(type) + QLatin1Char('"');
}

// 1 / base^(arange(0, dim, 2) / dim): HF's default frequencies (each model's
// compute_default_rope_parameters, and the first line of linear, dynamic and llama3).
std::vector<double> defaultFrequencies(double base, qint64 dim)
{
    std::vector<double> inv(std::size_t((dim + 1) / 2));
    for (std::size_t k = 0; k < inv.size(); ++k)
        inv[k] = 1.0 / std::pow(base, double(2 * k) / double(dim));
    return inv;
}

double yarnAttentionFactor(const RopeConfig &config, double factor)
{
    // `if attention_factor is None: if mscale and mscale_all_dim: ... else get_mscale(factor)`;
    // Python truthiness: 0 and None are both false.
    if (config.attentionFactor)
        return *config.attentionFactor;
    if (config.mscale && *config.mscale != 0.0 && config.mscaleAllDim &&
        *config.mscaleAllDim != 0.0)
        return ropeYarnGetMscale(factor, *config.mscale) /
               ropeYarnGetMscale(factor, *config.mscaleAllDim);
    return ropeYarnGetMscale(factor);
}

double longropeAttentionFactor(const RopeConfig &config, double factor)
{
    if (config.attentionFactor)
        return *config.attentionFactor;
    if (factor <= 1.0)
        return 1.0;
    return std::sqrt(1.0 +
                     std::log(factor) / std::log(double(config.originalMaxPositionEmbeddings)));
}

const std::vector<double> &longropeFactors(const RopeConfig &config)
{
    return ropeUsesLongFactors(config) ? config.longFactor : config.shortFactor;
}

// The computation itself, for parameters ropeConfigProblem() has accepted (up to finiteness).
RopeFrequencies compute(qint64 headDim, const RopeConfig &config)
{
    const double base = config.ropeTheta;
    const qint64 dim = ropeRotaryDims(headDim, config);
    const double factor = ropeEffectiveFactor(config).value_or(1.0);
    RopeFrequencies out;
    switch (config.ropeType) {
    case RopeType::Default: // compute_default_rope_parameters (per model in v5)
        out.inverseFrequencies = defaultFrequencies(base, dim);
        break;
    case RopeType::Linear: // _compute_linear_scaling_rope_parameters: inv_freq /= factor
        out.inverseFrequencies = defaultFrequencies(base, dim);
        for (double &theta : out.inverseFrequencies)
            theta /= factor;
        break;
    case RopeType::Dynamic: // _compute_dynamic_ntk_parameters
        out.inverseFrequencies = defaultFrequencies(ropeDynamicBase(headDim, config), dim);
        break;
    case RopeType::Ntk: // the community NTK-aware formula (not an HF v5 type): base * s^(r/(r-2))
        out.inverseFrequencies =
            defaultFrequencies(base * std::pow(factor, double(dim) / double(dim - 2)), dim);
        break;
    case RopeType::Yarn: { // _compute_yarn_parameters
        out.attentionFactor = yarnAttentionFactor(config, factor);
        const RopeYarnRange range = ropeYarnCorrectionRange(headDim, config);
        double low = range.low;
        double high = range.high;
        if (low == high)
            high += 0.001; // linear_ramp_factor: "Prevent singularity"
        // linear_ramp_factor(low, high, dim // 2) broadcast against ceil(dim / 2) frequencies:
        // equal lengths, or one ramp value for all (dim 3); ropeConfigProblem() refuses the rest.
        const std::size_t count = std::size_t((dim + 1) / 2);
        const std::size_t rampLength = std::size_t(dim / 2);
        out.inverseFrequencies.resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            const double posFreq = std::pow(base, double(2 * k) / double(dim));
            const double extrapolation = 1.0 / posFreq;
            const double interpolation = 1.0 / (factor * posFreq);
            const double rampIndex = double(rampLength == count ? k : 0);
            const double ramp = std::clamp((rampIndex - low) / (high - low), 0.0, 1.0);
            const double extrapolationFactor = 1.0 - ramp;
            out.inverseFrequencies[k] =
                interpolation * (1.0 - extrapolationFactor) + extrapolation * extrapolationFactor;
        }
        break;
    }
    case RopeType::Longrope: { // _compute_longrope_parameters
        out.attentionFactor = longropeAttentionFactor(config, factor);
        const std::vector<double> &ext = longropeFactors(config);
        out.inverseFrequencies.resize(std::size_t((dim + 1) / 2));
        for (std::size_t k = 0; k < out.inverseFrequencies.size(); ++k) {
            const double shape = double(2 * k) / double(dim);
            const double extFactor = ext.size() == 1 ? ext[0] : ext[k]; // torch broadcasting
            out.inverseFrequencies[k] = 1.0 / (extFactor * std::pow(base, shape));
        }
        break;
    }
    case RopeType::Llama3: { // _compute_llama3_parameters
        const double oldContext = double(config.originalMaxPositionEmbeddings);
        const double low = config.lowFreqFactor;
        const double high = config.highFreqFactor;
        const double lowFreqWavelen = oldContext / low;
        const double highFreqWavelen = oldContext / high;
        out.inverseFrequencies = defaultFrequencies(base, dim);
        for (double &invFreq : out.inverseFrequencies) {
            const double wavelen = 2.0 * pi / invFreq;
            const double llama = wavelen > lowFreqWavelen ? invFreq / factor : invFreq;
            const bool medium = !(wavelen < highFreqWavelen) && !(wavelen > lowFreqWavelen);
            if (medium) {
                const double smooth = (oldContext / wavelen - low) / (high - low);
                invFreq = (1.0 - smooth) * llama / factor + smooth * llama;
            } else {
                invFreq = llama;
            }
        }
        break;
    }
    case RopeType::Proportional: { // _compute_proportional_rope_parameters
        // rope_angles = int(rope_proportion * head_dim // 2); exponents over head_dim, not dim.
        const qint64 ropeAngles =
            qint64(std::floor(config.partialRotaryFactor * double(headDim) / 2.0));
        const qint64 nopeAngles = headDim / 2 - ropeAngles;
        out.inverseFrequencies.assign(std::size_t(ropeAngles + std::max<qint64>(nopeAngles, 0)),
                                      0.0);
        for (qint64 k = 0; k < ropeAngles; ++k)
            out.inverseFrequencies[std::size_t(k)] =
                1.0 / std::pow(base, double(2 * k) / double(headDim));
        for (double &theta : out.inverseFrequencies)
            theta /= factor; // `inv_freq /= factor`, factor = .get("factor", 1.0)
        break;
    }
    }
    return out;
}

} // namespace

qint64 ropeRotaryDims(qint64 headDim, const RopeConfig &config)
{
    if (config.ropeType == RopeType::Proportional)
        return 2 * (headDim / 2);
    // Python's int() truncates toward zero, as std::trunc does.
    return qint64(std::trunc(double(headDim) * config.partialRotaryFactor));
}

qint64 ropeFrequencyCount(qint64 headDim, const RopeConfig &config)
{
    if (config.ropeType == RopeType::Proportional)
        return headDim / 2;
    return (ropeRotaryDims(headDim, config) + 1) / 2;
}

bool ropeUsesLongFactors(const RopeConfig &config)
{
    // `if seq_len and seq_len > original_max_position_embeddings: long_factor else short_factor`
    return config.sequenceLength > 0 &&
           config.sequenceLength > config.originalMaxPositionEmbeddings;
}

double ropeDynamicBase(qint64 headDim, const RopeConfig &config)
{
    // seq_len: None -> max_position_embeddings, else max(seq_len, max_position_embeddings)
    const double factor = ropeEffectiveFactor(config).value_or(1.0);
    const double dim = double(ropeRotaryDims(headDim, config));
    const double maxPositions = double(config.maxPositionEmbeddings);
    const double seqLen = config.sequenceLength > 0
                              ? std::max(double(config.sequenceLength), maxPositions)
                              : maxPositions;
    return config.ropeTheta *
           std::pow((factor * seqLen / maxPositions) - (factor - 1.0), dim / (dim - 2.0));
}

QString ropeSequenceLengthNote(qint64 headDim, const RopeConfig &config, const QString &origin)
{
    const qint64 length = config.sequenceLength;
    const QString seen = length > 0
                             ? QStringLiteral("sequence length %1 (%2)").arg(length).arg(origin)
                             : QStringLiteral("no sequence length (%1): transformers' rotary "
                                              "module as loaded, seq_len None")
                                   .arg(origin);
    if (config.ropeType == RopeType::Longrope) {
        const qint64 original = config.originalMaxPositionEmbeddings;
        if (ropeUsesLongFactors(config))
            return QStringLiteral("longrope: %1 > original_max_position_embeddings %2: long_factor "
                                  "(dynamic_rope_update's longrope_frequency_update)")
                .arg(seen)
                .arg(original);
        return QStringLiteral("longrope: %1%2: short_factor (HF's forward takes long_factor beyond "
                              "%3 positions)")
            .arg(seen, length > 0
                           ? QStringLiteral(" <= original_max_position_embeddings %1").arg(original)
                           : QString())
            .arg(original);
    }
    if (config.ropeType == RopeType::Dynamic && ropeConfigProblem(headDim, config).isEmpty()) {
        const qint64 maxPositions = config.maxPositionEmbeddings;
        const double base = ropeDynamicBase(headDim, config);
        if (length <= maxPositions)
            return QStringLiteral("dynamic: %1%2: base %3 unchanged (it grows beyond "
                                  "max_position_embeddings %4)")
                .arg(seen,
                     length > 0 ? QStringLiteral(" <= max_position_embeddings %1").arg(maxPositions)
                                : QString(),
                     number(config.ropeTheta))
                .arg(maxPositions);
        return QStringLiteral("dynamic: %1 > max_position_embeddings %2: base %3 scaled to %4")
            .arg(seen)
            .arg(maxPositions)
            .arg(number(config.ropeTheta), number(base));
    }
    return {};
}

std::vector<double> ropeFrequenciesFromFactors(qint64 headDim, const RopeConfig &config,
                                               std::span<const double> factors)
{
    const double dim = double(ropeRotaryDims(headDim, config));
    std::vector<double> out(factors.size());
    for (std::size_t i = 0; i < factors.size(); ++i) {
        const double f = factors[i];
        out[i] = finite(f) && f > 0 && dim > 0
                     ? 1.0 / std::pow(config.ropeTheta, double(2 * i) / dim) / f
                     : std::numeric_limits<double>::quiet_NaN();
    }
    return out;
}

std::optional<double> ropeEffectiveFactor(const RopeConfig &config)
{
    if (config.factor)
        return config.factor;
    switch (config.ropeType) {
    case RopeType::Yarn:
    case RopeType::Longrope:
        // `if factor is None: factor = config.max_position_embeddings / original_...`
        if (config.maxPositionEmbeddings > 0 && config.originalMaxPositionEmbeddings > 0)
            return double(config.maxPositionEmbeddings) /
                   double(config.originalMaxPositionEmbeddings);
        return std::nullopt;
    case RopeType::Proportional:
        return 1.0;
    default:
        return std::nullopt;
    }
}

double ropeYarnGetMscale(double scale, double mscale)
{
    if (scale <= 1.0)
        return 1.0;
    return 0.1 * mscale * std::log(scale) + 1.0;
}

RopeYarnRange ropeYarnCorrectionRange(qint64 headDim, const RopeConfig &config)
{
    const double dim = double(ropeRotaryDims(headDim, config));
    const double base = config.ropeTheta;
    const double original = double(config.originalMaxPositionEmbeddings);
    // beta_fast = .get("beta_fast") or 32; beta_slow = .get("beta_slow") or 1
    const double betaFast = ropeYarnBetaFast(config);
    const double betaSlow = ropeYarnBetaSlow(config);
    // find_correction_dim: the pair index whose wavelength fits num_rotations times in L0.
    const auto correctionDim = [&](double rotations) {
        return (dim * std::log(original / (rotations * 2.0 * pi))) / (2.0 * std::log(base));
    };
    double low = correctionDim(betaFast);
    double high = correctionDim(betaSlow);
    if (config.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    // max(low, 0), min(high, dim - 1): HF clamps to dim - 1, not dim / 2 - 1.
    return {std::max(low, 0.0), std::min(high, dim - 1.0)};
}

namespace {

// The first field the type reads whose value is outside the field's bounds (ropefields.h). The
// two contexts are checked for every type: the model code and the figures read them beside the
// rope type's rule.
QString boundsProblem(const RopeConfig &config)
{
    const FieldTable<RopeConfig> table = ropeFieldTable<RopeConfig>();
    for (const auto member :
         {&RopeConfig::maxPositionEmbeddings, &RopeConfig::originalMaxPositionEmbeddings}) {
        const Field<RopeConfig> &field = ropeFieldOf(member).field;
        if (QString message = fieldRangeProblem(field, config); !message.isEmpty())
            return QString::fromUtf8(field.key) + QLatin1Char(' ') + message;
    }
    const FieldProblem problem = rangeProblem(table, config);
    return problem ? describe(table, problem, FieldNaming::Bare) : QString();
}

// The head and what of it rotates, and HF's seq_len.
QString shapeProblem(qint64 headDim, const RopeConfig &config)
{
    const qint64 dim = ropeRotaryDims(headDim, config);
    if (ropeFrequencyCount(headDim, config) < 1)
        return config.ropeType == RopeType::Proportional
                   ? QStringLiteral("head dim %1 has no pair of columns to rotate").arg(headDim)
                   : QStringLiteral("%1 %2 leaves no rotated dims: int(%3 x %2) = %4")
                         .arg(ropeHfKeyOf(&RopeConfig::partialRotaryFactor),
                              number(config.partialRotaryFactor))
                         .arg(headDim)
                         .arg(dim);
    if (config.sequenceLength < 0 || config.sequenceLength > ropeMaxContext)
        return QStringLiteral("sequence length must be between 0 (HF's seq_len None) and %1 "
                              "(got %2)")
            .arg(ropeMaxContext)
            .arg(config.sequenceLength);
    return {};
}

// The values the type cannot do without: the fields the table requires for it (an optional
// number or a context of 0 is not given), the original context of the types that read it, and
// what yarn and longrope infer a missing factor from.
QString requiredProblem(const RopeConfig &config)
{
    const RopeType type = config.ropeType;
    const FieldTable<RopeConfig> table = ropeFieldTable<RopeConfig>();
    for (const Field<RopeConfig> &f : table) {
        if (!fieldRequired(table, f, config))
            continue;
        const auto *optional = std::get_if<OptionalRealKind<RopeConfig>>(&f.kind);
        const auto *integer = std::get_if<IntegerKind<RopeConfig>>(&f.kind);
        if ((optional && !(config.*optional->member)) || (integer && config.*integer->member == 0))
            return QStringLiteral("%1 is required by rope_type %2")
                .arg(QString::fromUtf8(f.key), typeName(type));
    }
    if (ropeReadsOriginalContext(type) && config.originalMaxPositionEmbeddings < 1)
        return QStringLiteral("%1 is required by rope_type %2 (a whole number from 1 to %3)")
            .arg(ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings), typeName(type))
            .arg(ropeMaxContext);
    if (type != RopeType::Default && !ropeEffectiveFactor(config))
        return QStringLiteral("%1 is not given and %2 is unknown: rope_type %3 then uses %2 / %4")
            .arg(ropeHfKeyOf(&RopeConfig::factor), ropeHfKeyOf(&RopeConfig::maxPositionEmbeddings),
                 typeName(type), ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings));
    return {};
}

QString yarnProblem(qint64 headDim, const RopeConfig &config)
{
    const qint64 dim = ropeRotaryDims(headDim, config);
    // torch broadcasts the dim // 2 ramp values against ceil(dim / 2) frequencies only when
    // the lengths match or the ramp has one value.
    if (dim / 2 < 1)
        return QStringLiteral("yarn needs at least 2 rotary dims: its ramp has dim // 2 = 0 "
                              "values (dim %1)")
            .arg(dim);
    if (dim % 2 != 0 && dim / 2 != 1)
        return QStringLiteral("yarn needs an even number of rotary dims: its ramp has dim // 2 "
                              "= %1 values for %2 frequencies (dim %3)")
            .arg(dim / 2)
            .arg((dim + 1) / 2)
            .arg(dim);
    return {};
}

QString longropeProblem(qint64 headDim, const RopeConfig &config)
{
    const bool useLong = ropeUsesLongFactors(config);
    const QString key =
        useLong ? ropeHfKeyOf(&RopeConfig::longFactor) : ropeHfKeyOf(&RopeConfig::shortFactor);
    const std::vector<double> &ext = longropeFactors(config);
    const qint64 count = ropeFrequencyCount(headDim, config);
    if (ext.empty())
        return QStringLiteral("%1 is empty: longrope needs one factor per frequency (%2)")
            .arg(key)
            .arg(count);
    if (qint64(ext.size()) != count && ext.size() != 1)
        return QStringLiteral("%1 has %2 values; this head rotates %3 frequencies (or give "
                              "one value for all)")
            .arg(key)
            .arg(ext.size())
            .arg(count);
    if (!config.attentionFactor && config.originalMaxPositionEmbeddings == 1 &&
        ropeEffectiveFactor(config).value_or(1.0) > 1.0)
        return QStringLiteral("%1 1 makes longrope's attention factor divide by ln(1) = 0")
            .arg(ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings));
    return {};
}

// Rules between the fields of one type.
QString typeProblem(qint64 headDim, const RopeConfig &config)
{
    const RopeType type = config.ropeType;
    switch (type) {
    case RopeType::Dynamic:
    case RopeType::Ntk:
        if (ropeRotaryDims(headDim, config) == 2)
            return QStringLiteral("rope_type %1 divides by zero at 2 rotary dims: its exponent "
                                  "is dim / (dim - 2)")
                .arg(typeName(type));
        break;
    case RopeType::Yarn:
        return yarnProblem(headDim, config);
    case RopeType::Longrope:
        return longropeProblem(headDim, config);
    case RopeType::Default:
    case RopeType::Linear:
    case RopeType::Llama3:
    case RopeType::Proportional:
        break;
    }
    return {};
}

} // namespace

QString ropeConfigProblem(qint64 headDim, const RopeConfig &config)
{
    if (headDim < 1 || headDim > ropeMaxHeadDim)
        return QStringLiteral("head dim must be between 1 and %1 (got %2)")
            .arg(ropeMaxHeadDim)
            .arg(headDim);
    if (QString problem = boundsProblem(config); !problem.isEmpty())
        return problem;
    if (QString problem = shapeProblem(headDim, config); !problem.isEmpty())
        return problem;
    if (QString problem = requiredProblem(config); !problem.isEmpty())
        return problem;
    if (QString problem = typeProblem(headDim, config); !problem.isEmpty())
        return problem;
    if (QString problem = ropeMropeProblem(headDim, config); !problem.isEmpty())
        return problem;

    // Whatever else overflows (an enormous factor, a base whose powers underflow) shows here.
    const RopeFrequencies result = compute(headDim, config);
    if (!finite(result.attentionFactor))
        return QStringLiteral("these parameters give a non-finite attention factor");
    for (std::size_t k = 0; k < result.inverseFrequencies.size(); ++k) {
        const double theta = result.inverseFrequencies[k];
        if (!finite(theta))
            return QStringLiteral("these parameters give a non-finite frequency for pair %1")
                .arg(k);
        // The angles p * theta of every position a table may hold must be finite too (a linear
        // factor of 1e-308 gives theta 1e308: cos of p * theta would be NaN).
        if (!finite(theta * double(ropeMaxContext)))
            return QStringLiteral("these parameters give pair %1 a frequency of %2 radians per "
                                  "position%3: its angles p * theta overflow")
                .arg(k)
                .arg(theta, 0, 'g', 3)
                .arg(config.factor ? QStringLiteral(" (factor %1)").arg(*config.factor, 0, 'g', 3)
                                   : QString());
    }
    return {};
}

QStringList ropeConfigWarnings(qint64 headDim, const RopeConfig &config)
{
    QStringList warnings;
    const RopeType type = config.ropeType;
    const QString factorText = config.factor ? number(*config.factor) : QStringLiteral("None");
    const bool checksFactor = type == RopeType::Linear || type == RopeType::Dynamic ||
                              type == RopeType::Yarn || type == RopeType::Llama3;
    if (checksFactor && (!config.factor || *config.factor < 1.0))
        warnings << QStringLiteral("`rope_parameters`'s factor field must be a float or int >= 1, "
                                   "got %1")
                        .arg(factorText);
    if (type == RopeType::Yarn) {
        if (config.attentionFactor && *config.attentionFactor < 0.0)
            warnings << QStringLiteral("`rope_parameters`'s attention_factor field must be a float "
                                       "greater than 0, got %1")
                            .arg(number(*config.attentionFactor));
        if (ropeYarnBetaFast(config) < ropeYarnBetaSlow(config))
            warnings << QStringLiteral("`rope_parameters`'s beta_fast field must be greater than "
                                       "beta_slow, got beta_fast=%1 (defaults to %3 if None) and "
                                       "beta_slow=%2 (defaults to %4 if None)")
                            .arg(number(config.betaFast), number(config.betaSlow),
                                 number(ropeYarnDefaultBetaFast), number(ropeYarnDefaultBetaSlow));
        if (config.maxPositionEmbeddings > 0 && config.originalMaxPositionEmbeddings > 0) {
            const double implicit =
                double(config.maxPositionEmbeddings) / double(config.originalMaxPositionEmbeddings);
            if ((!config.factor || implicit != *config.factor) && implicit != 1.0)
                warnings << QStringLiteral("The explicitly set RoPE scaling factor "
                                           "(config.rope_parameters['factor'] = %1) does not match "
                                           "the ratio implicitly set by other parameters (implicit "
                                           "factor = post-yarn context length / pre-yarn context "
                                           "length = %2)")
                                .arg(factorText, number(implicit));
        }
    }
    if (type == RopeType::Longrope) {
        // HF compares with dim // 2 (one less than the frequency count for an odd dim).
        const qint64 half = ropeRotaryDims(headDim, config) / 2;
        if (qint64(config.shortFactor.size()) != half)
            warnings << QStringLiteral("`rope_parameters`'s short_factor field must have length "
                                       "%1, got %2")
                            .arg(half)
                            .arg(config.shortFactor.size());
        if (qint64(config.longFactor.size()) != half)
            warnings << QStringLiteral("`rope_parameters`'s long_factor field must have length "
                                       "%1, got %2")
                            .arg(half)
                            .arg(config.longFactor.size());
        if (!config.factor)
            warnings << QStringLiteral("This model config has set a "
                                       "`rope_parameters['original_max_position_embeddings']` "
                                       "field, to be used together with `max_position_embeddings` "
                                       "to determine a scaling factor. Please set the `factor` "
                                       "field of `rope_parameters` with this ratio instead");
        else if (*config.factor < 1.0)
            warnings << QStringLiteral("`rope_parameters`'s factor field must be a float or int "
                                       ">= 1, got %1")
                            .arg(factorText);
        if (config.attentionFactor && *config.attentionFactor < 0.0)
            warnings << QStringLiteral("`rope_parameters`'s attention_factor field must be a float "
                                       "or int greater than 0, got %1")
                            .arg(number(*config.attentionFactor));
    }
    if (type == RopeType::Llama3) {
        if (config.highFreqFactor <= config.lowFreqFactor)
            warnings << QStringLiteral("`rope_parameters`'s high_freq_factor field must be greater "
                                       "than low_freq_factor, got high_freq_factor=%1 and "
                                       "low_freq_factor=%2")
                            .arg(number(config.highFreqFactor), number(config.lowFreqFactor));
        if (config.maxPositionEmbeddings > 0 &&
            config.originalMaxPositionEmbeddings >= config.maxPositionEmbeddings)
            warnings << QStringLiteral("`rope_parameters`'s original_max_position_embeddings field "
                                       "must be less than max_position_embeddings, got %1 and "
                                       "max_position_embeddings=%2")
                            .arg(config.originalMaxPositionEmbeddings)
                            .arg(config.maxPositionEmbeddings);
    }
    return warnings;
}

RopeFrequencies ropeInverseFrequencies(qint64 headDim, const RopeConfig &config)
{
    if (!ropeConfigProblem(headDim, config).isEmpty())
        return {};
    return compute(headDim, config);
}

} // namespace pe
