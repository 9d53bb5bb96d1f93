#include "ropescheme.h"

#include "encodingspec.h"

#include <cmath>

namespace pe {

namespace {

using R = RopeScaling;
constexpr quint32 scaled = bitsOf(R::Linear, R::Ntk, R::DynamicNtk, R::Yarn, R::Llama3);
constexpr quint32 withOriginal = bitsOf(R::DynamicNtk, R::Yarn, R::Llama3);
constexpr RealRange positive{0.0, 1e12, true};

} // namespace

FieldTable<RopeScheme> RopeScheme::fields()
{
    using S = RopeScheme;
    static const Field<S> table[] = {
        {.key = "rope_theta",
         .flag = "base",
         .label = "Base θ",
         .help = "rope_theta: the base of the rotation frequencies.",
         .kind = RealKind<S>{&S::ropeTheta, {1.0, limits::maxBase, true}}},
        {.key = "pairing",
         .flag = "pairing",
         .label = "Pairing",
         .help = "Which columns form a rotated pair: interleaved (GPT-J) or half (GPT-NeoX, "
                 "Llama rotate_half).",
         .kind = choiceKind<&S::pairing, S>(ropePairingNames)},
        {.key = "partial_rotary_factor",
         .flag = "partial-rotary-factor",
         .label = "Partial rotary factor",
         .help = "Rotate the first int(dims x F) columns only.",
         .kind = RealKind<S>{&S::partialRotaryFactor, {0.0, 1.0, true}}},
        {.key = "rope_type",
         .flag = "rope-type",
         .label = "Rope type",
         .help = "Hugging Face's rope_type: the context-extension rule.",
         .kind = choiceKind<&S::scaling, S>(ropeScalingNames)},
        {.key = "factor",
         .flag = "factor",
         .label = "Factor s",
         .help = "The scaling factor.",
         .kind = RealKind<S>{&S::factor, positive},
         .gate = {.by = "rope_type", .applies = scaled, .required = scaled}},
        {.key = "original_max_position_embeddings",
         .flag = "original-context",
         .label = "Original context",
         .help = "original_max_position_embeddings: the context the model was pretrained with.",
         .kind = IntegerKind<S>{&S::originalContext, {1, limits::maxRopeContext}},
         .gate = {.by = "rope_type", .applies = withOriginal, .required = withOriginal},
         .unit = "tokens"},
        {.key = "low_freq_factor",
         .flag = "low-freq-factor",
         .label = "Low freq factor",
         .help = "Wavelengths longer than original / low_freq_factor are divided by s.",
         .kind = RealKind<S>{&S::lowFreqFactor, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(R::Llama3), .required = bitsOf(R::Llama3)}},
        {.key = "high_freq_factor",
         .flag = "high-freq-factor",
         .label = "High freq factor",
         .help = "Wavelengths shorter than original / high_freq_factor are kept.",
         .kind = RealKind<S>{&S::highFreqFactor, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(R::Llama3), .required = bitsOf(R::Llama3)}},
        {.key = "beta_fast",
         .flag = "beta-fast",
         .label = "β fast",
         .help = "Rotations in the original context where the ramp to interpolation starts.",
         .kind = RealKind<S>{&S::betaFast, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(R::Yarn)}},
        {.key = "beta_slow",
         .flag = "beta-slow",
         .label = "β slow",
         .help = "Rotations in the original context where the ramp ends.",
         .kind = RealKind<S>{&S::betaSlow, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(R::Yarn)}},
        {.key = "truncate",
         .flag = "truncate",
         .label = "Truncate",
         .help = "Round the ramp's ends to whole pairs (HF's default; gpt-oss sets false).",
         .kind = BoolKind<S>{&S::yarnTruncate},
         .gate = {.by = "rope_type", .applies = bitsOf(R::Yarn)}},
    };
    return table;
}

RopeParameters RopeScheme::parameters(const MatrixShape &shape) const
{
    RopeParameters p = *this;
    p.currentLength = shape.positions;
    return p;
}

FieldProblem RopeScheme::problem(const MatrixShape &shape) const
{
    if (shape.dims % 2 != 0)
        return {QStringLiteral("dims"),
                QStringLiteral("must be even for rope: each rotation turns a pair of columns "
                               "(got %1)")
                    .arg(shape.dims)};
    const qint64 rotary = ropeRotaryDims(shape.dims, partialRotaryFactor);
    if (rotary < 2 || rotary % 2 != 0)
        return {QStringLiteral("partial_rotary_factor"),
                QStringLiteral("%1 gives int(%2 x %1) = %3 rotary dims; rope needs an even "
                               "number, at least 2")
                    .arg(formatReal(partialRotaryFactor))
                    .arg(shape.dims)
                    .arg(rotary)};
    if ((scaling == RopeScaling::Ntk || scaling == RopeScaling::DynamicNtk) && rotary < 4)
        return {QStringLiteral("rope_type"),
                QStringLiteral("%1 needs at least 4 rotary dims: its exponent r / (r - 2) "
                               "divides by zero at r = %2")
                    .arg(nameOf(ropeScalingNames, scaling))
                    .arg(rotary)};
    if (scaling == RopeScaling::Llama3 && !(highFreqFactor > lowFreqFactor))
        return {QStringLiteral("high_freq_factor"),
                QStringLiteral("must be greater than low_freq_factor %1 (got %2)")
                    .arg(formatReal(lowFreqFactor), formatReal(highFreqFactor))};
    // HF only warns here; a reversed range would blend the wrong ends of the spectrum.
    if (scaling == RopeScaling::Yarn && betaFast < betaSlow)
        return {QStringLiteral("beta_fast"),
                QStringLiteral("must be at least beta_slow %1 (got %2)")
                    .arg(formatReal(betaSlow), formatReal(betaFast))};
    return {};
}

MatrixPlan RopeScheme::plan(const MatrixShape &shape) const
{
    return PhaseColumnsPlan{ropeColumnPhases(shape.dims, parameters(shape))};
}

QString RopeScheme::configLabel() const
{
    QString label = QStringLiteral("base %1").arg(formatGrouped(ropeTheta));
    const QString type = nameOf(ropeScalingNames, scaling);
    switch (scaling) {
    case RopeScaling::None:
        break;
    case RopeScaling::Linear:
    case RopeScaling::Ntk:
        label += QStringLiteral(", %1 s = %2").arg(type, formatGrouped(factor));
        break;
    case RopeScaling::DynamicNtk:
    case RopeScaling::Yarn:
    case RopeScaling::Llama3:
        label += QStringLiteral(", %1 s = %2 from %3")
                     .arg(type, formatGrouped(factor), formatGrouped(double(originalContext)));
        break;
    }
    if (partialRotaryFactor != 1.0)
        label += QStringLiteral(", partial %1").arg(partialRotaryFactor);
    return label;
}

QString RopeScheme::caption(const MatrixShape &shape) const
{
    return QStringLiteral("rope (%1 pairs, scaling %2), %3 positions × %4 dims, base %5")
        .arg(nameOf(ropePairingNames, pairing), nameOf(ropeScalingNames, scaling))
        .arg(shape.positions)
        .arg(shape.dims)
        .arg(formatReal(ropeTheta));
}

std::vector<DataOutput> RopeScheme::outputs(const MatrixShape &shape) const
{
    DataOutput table = matrixOutput(shape, shape.dims);
    table.help = QStringLiteral("the positions x dims cos/sin table, float32 (not multiplied by "
                                "YaRN's attention factor)");
    const RopeFrequencies frequencies = ropeInverseFrequencies(shape.dims, parameters(shape));
    DataOutput inverse;
    inverse.name = QStringLiteral("inv-freq");
    inverse.help = QStringLiteral("the float64 inverse frequencies theta_i after the rope type");
    inverse.type = ElementType::Float64;
    inverse.shape = {qint64(frequencies.inverseFrequencies.size())};
    // Only dynamic reads the sequence length (HF's seq_len, here --positions).
    inverse.usesPositions = scaling == RopeScaling::DynamicNtk;
    inverse.rows = [theta = frequencies.inverseFrequencies](qint64, qint64, void *out) {
        std::copy(theta.begin(), theta.end(), static_cast<double *>(out));
    };
    return {table, inverse};
}

} // namespace pe
