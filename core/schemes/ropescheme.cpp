#include "ropescheme.h"

#include "encodingspec.h"
#include "rope/ropetables.h"

#include <cmath>
#include <numeric>

namespace pe {

namespace {

using T = RopeType;
// The types that read each field (transformers v5, modeling_rope_utils.py).
constexpr quint32 withFactor =
    bitsOf(T::Linear, T::Dynamic, T::Yarn, T::Longrope, T::Llama3, T::Proportional, T::Ntk);
constexpr quint32 factorRequired = bitsOf(T::Linear, T::Dynamic, T::Llama3, T::Ntk);
constexpr quint32 withOriginal = bitsOf(T::Yarn, T::Longrope, T::Llama3);
constexpr quint32 withContext = bitsOf(T::Dynamic, T::Yarn, T::Longrope, T::Llama3);
constexpr RealRange positive{0.0, 1e12, true};
constexpr RealRange nonNegative{0.0, 1e12};
constexpr IntegerRange context{0, limits::maxRopeContext};
constexpr qint64 maxFactors = limits::maxDims / 2;

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
         .help = "Which columns form a rotated pair: interleaved (GPT-J, DeepSeek's "
                 "rope_interleave) or half (GPT-NeoX, Llama rotate_half).",
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
         .kind = choiceKind<&S::ropeType, S>(ropeTypeNames)},
        {.key = "factor",
         .flag = "factor",
         .label = "Factor s",
         .help = "The scaling factor (yarn, longrope: inferred as max_position_embeddings / "
                 "original_max_position_embeddings when left empty).",
         .kind = OptionalRealKind<S>{&S::factor, positive},
         .gate = {.by = "rope_type", .applies = withFactor, .required = factorRequired}},
        {.key = "original_max_position_embeddings",
         .flag = "original-context",
         .label = "Original context",
         .help = "original_max_position_embeddings: the context the model was pretrained with "
                 "(0: max_position_embeddings).",
         .kind = IntegerKind<S>{&S::originalMaxPositionEmbeddings, context},
         .gate = {.by = "rope_type", .applies = withOriginal},
         .unit = "tokens"},
        {.key = "max_position_embeddings",
         .flag = "max-position-embeddings",
         .label = "Context",
         .help = "The config's max_position_embeddings: the context the model is used at.",
         .kind = IntegerKind<S>{&S::maxPositionEmbeddings, context},
         .gate = {.by = "rope_type", .applies = withContext, .required = bitsOf(T::Dynamic)},
         .unit = "tokens"},
        {.key = "attention_factor",
         .flag = "attention-factor",
         .label = "Attention factor",
         .help = "Overrides the computed scaling of cos and sin (empty: computed).",
         .kind = OptionalRealKind<S>{&S::attentionFactor, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn, T::Longrope)}},
        {.key = "beta_fast",
         .flag = "beta-fast",
         .label = "β fast",
         .help = "Rotations in the original context where the ramp to interpolation starts.",
         .kind = RealKind<S>{&S::betaFast, nonNegative},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
        {.key = "beta_slow",
         .flag = "beta-slow",
         .label = "β slow",
         .help = "Rotations in the original context where the ramp ends.",
         .kind = RealKind<S>{&S::betaSlow, nonNegative},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
        {.key = "mscale",
         .flag = "mscale",
         .label = "mscale",
         .help = "DeepSeek's get_mscale numerator of the attention factor (empty: not set).",
         .kind = OptionalRealKind<S>{&S::mscale, nonNegative},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
        {.key = "mscale_all_dim",
         .flag = "mscale-all-dim",
         .label = "mscale all dim",
         .help = "DeepSeek's get_mscale denominator of the attention factor (empty: not set).",
         .kind = OptionalRealKind<S>{&S::mscaleAllDim, nonNegative},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
        {.key = "truncate",
         .flag = "truncate",
         .label = "Truncate",
         .help = "Round the ramp's ends to whole pairs (HF's default; gpt-oss sets false).",
         .kind = BoolKind<S>{&S::truncate},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
        {.key = "short_factor",
         .flag = "short-factor",
         .label = "Short factors",
         .help = "One factor per pair for sequences within the original context.",
         .kind = RealListKind<S>{&S::shortFactor, positive, maxFactors},
         .gate = {.by = "rope_type",
                  .applies = bitsOf(T::Longrope),
                  .required = bitsOf(T::Longrope)}},
        {.key = "long_factor",
         .flag = "long-factor",
         .label = "Long factors",
         .help = "One factor per pair for sequences beyond the original context.",
         .kind = RealListKind<S>{&S::longFactor, positive, maxFactors},
         .gate = {.by = "rope_type",
                  .applies = bitsOf(T::Longrope),
                  .required = bitsOf(T::Longrope)}},
        {.key = "low_freq_factor",
         .flag = "low-freq-factor",
         .label = "Low freq factor",
         .help = "Wavelengths longer than original / low_freq_factor are divided by s.",
         .kind = RealKind<S>{&S::lowFreqFactor, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Llama3), .required = bitsOf(T::Llama3)}},
        {.key = "high_freq_factor",
         .flag = "high-freq-factor",
         .label = "High freq factor",
         .help = "Wavelengths shorter than original / high_freq_factor are kept.",
         .kind = RealKind<S>{&S::highFreqFactor, positive},
         .gate = {.by = "rope_type", .applies = bitsOf(T::Llama3), .required = bitsOf(T::Llama3)}},
        {.key = "mrope_section",
         .flag = "mrope-section",
         .label = "mrope section",
         .help = "Qwen-VL: how many pairs follow the temporal, height and width position ids.",
         .kind = IntegerListKind<S>{&S::mropeSection, {0, limits::maxDims / 2}, 3}},
        {.key = "mrope_interleaved",
         .flag = "mrope-interleaved",
         .label = "mrope interleaved",
         .help = "Qwen3-VL: the sections interleave pair by pair.",
         .kind = BoolKind<S>{&S::mropeInterleaved}},
    };
    return table;
}

RopeConfig RopeScheme::config(const MatrixShape &shape) const
{
    RopeConfig c = *this;
    c.sequenceLength = lengthAsLoaded ? 0 : shape.positions;
    return c;
}

FieldProblem RopeScheme::problem(const MatrixShape &shape) const
{
    if (shape.dims % 2 != 0)
        return {QStringLiteral("dims"),
                QStringLiteral("must be even for rope: each rotation turns a pair of columns "
                               "(got %1)")
                    .arg(shape.dims)};
    if (const QString problem = ropeConfigProblem(shape.dims, config(shape)); !problem.isEmpty())
        return {QString(), problem};
    return {};
}

MatrixPlan RopeScheme::plan(const MatrixShape &shape) const
{
    return PhaseColumnsPlan{ropeColumnPhases(shape.dims, config(shape))};
}

QString RopeScheme::configLabel() const
{
    QString label = QStringLiteral("base %1").arg(formatGrouped(ropeTheta));
    const QString type = ropeTypeName(ropeType);
    const std::optional<double> s = ropeEffectiveFactor(*this);
    const QString factorText = s ? formatGrouped(*s) : QStringLiteral("?");
    switch (ropeType) {
    case RopeType::Default:
        break;
    case RopeType::Linear:
    case RopeType::Ntk:
    case RopeType::Proportional:
        label += QStringLiteral(", %1 s = %2").arg(type, factorText);
        break;
    case RopeType::Dynamic:
        label += QStringLiteral(", %1 s = %2 from %3")
                     .arg(type, factorText, formatGrouped(double(maxPositionEmbeddings)));
        break;
    case RopeType::Yarn:
    case RopeType::Longrope:
    case RopeType::Llama3:
        label += QStringLiteral(", %1 s = %2 from %3")
                     .arg(type, factorText,
                          formatGrouped(double(originalMaxPositionEmbeddings > 0
                                                   ? originalMaxPositionEmbeddings
                                                   : maxPositionEmbeddings)));
        break;
    }
    if (partialRotaryFactor != 1.0)
        label += QStringLiteral(", partial %1").arg(partialRotaryFactor);
    return label;
}

QString RopeScheme::caption(const MatrixShape &shape) const
{
    return QStringLiteral("rope (%1 pairs, scaling %2), %3 positions × %4 dims, base %5")
        .arg(nameOf(ropePairingNames, pairing), ropeTypeName(ropeType))
        .arg(shape.positions)
        .arg(shape.dims)
        .arg(formatReal(ropeTheta));
}

std::vector<DataOutput> RopeScheme::outputs(const MatrixShape &shape) const
{
    DataOutput table = matrixOutput(shape, shape.dims);
    table.help = QStringLiteral("the positions x dims cos/sin table, float32 (not multiplied by "
                                "the attention factor)");
    const RopeFrequencies frequencies = ropeInverseFrequencies(shape.dims, config(shape));
    // Only dynamic and longrope read the sequence length (HF's seq_len, here --positions).
    const bool readsLength = ropeType == RopeType::Dynamic || ropeType == RopeType::Longrope;
    DataOutput inverse;
    inverse.name = QStringLiteral("inv-freq");
    inverse.help = QStringLiteral("the float64 inverse frequencies theta_i after the rope type");
    inverse.type = ElementType::Float64;
    inverse.shape = {qint64(frequencies.inverseFrequencies.size())};
    inverse.usesPositions = readsLength;
    inverse.rows = [theta = frequencies.inverseFrequencies](qint64, qint64, void *out) {
        std::copy(theta.begin(), theta.end(), static_cast<double *>(out));
    };
    DataOutput attention;
    attention.name = QStringLiteral("attention-factor");
    attention.help = QStringLiteral("HF's attention_scaling: cos and sin are multiplied by it");
    attention.type = ElementType::Float64;
    attention.shape = {1};
    attention.usesPositions = readsLength;
    attention.rows = [factor = frequencies.attentionFactor](qint64, qint64, void *out) {
        *static_cast<double *>(out) = factor;
    };
    // HF's forward outputs, in its layout (cat(freqs, freqs)), float64: the golden tables an
    // implementation is checked against (`pescope verify`). Unscaled; `data --scaled-table`
    // multiplies them by the attention factor, as HF's forward does.
    const auto hfTable = [&](RopeTableKind kind) {
        DataOutput out;
        out.name = nameOf(ropeTableKindNames, kind);
        out.help = QStringLiteral("HF's %1 table, positions x rotated dims, float64").arg(out.name);
        out.type = ElementType::Float64;
        out.shape = {shape.positions, ropeTableColumns(shape.dims, config(shape))};
        out.rows = [kind, dims = shape.dims, cfg = config(shape)](qint64 first, qint64 count,
                                                                  void *values) {
            std::vector<qint64> ids(static_cast<std::size_t>(count));
            std::iota(ids.begin(), ids.end(), first);
            const RopeTable rows = ropeTableRows(dims, cfg, kind, ids, false);
            std::copy(rows.values.begin(), rows.values.end(), static_cast<double *>(values));
        };
        return out;
    };
    return {table, inverse, attention, hfTable(RopeTableKind::Cos), hfTable(RopeTableKind::Sin)};
}

} // namespace pe
