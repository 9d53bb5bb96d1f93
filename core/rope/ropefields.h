// RoPE's parameters described once. Each row is a field of the parameter table (field.h: key,
// command-line flag, label, help, bounds, the rope types that read it) and what Hugging Face's
// `rope_parameters` does with it. The rope scheme's field table (command line, sessions, forms),
// the rope_parameters reader and writer (ropeconfig.h) and the checks of ropeConfigProblem()
// (ropefrequencies.h) all derive from these rows: a new rope field is one row here (and its
// member in RopeConfig).
//
// Bounds follow what transformers 5 computes finite frequencies with, and pescope's own limits
// where it refuses more (DESIGN.md: a base above 1 and at most 1e12; factor above 0, since HF
// divides by it; no infinities). Decided by transformers 5 where the table and the checks once
// disagreed (modeling_rope_utils.py):
//  - low_freq_factor, high_freq_factor: any number but 0. _validate_llama3_rope_parameters only
//    checks that they are numbers; _compute_llama3_parameters divides the original context by
//    them (0: ZeroDivisionError), and a negative one is computed with.
//  - beta_fast, beta_slow: 0 or more. _compute_yarn_parameters reads `.get("beta_fast") or 32`
//    (0 means 32, 1 for beta_slow) and takes log(original / (beta * 2 pi)): a negative one fails.
//  - attention_factor, mscale, mscale_all_dim: any number. HF computes with them (it only warns
//    about a negative attention_factor, see ropeConfigWarnings()).
//  - short_factor, long_factor: numbers other than 0 (HF divides by them).
#pragma once

#include "fields/field.h"
#include "fields/helptext.h"
#include "ropefrequencies.h"
#include "speclimits.h"

#include <span>
#include <type_traits>
#include <vector>

namespace pe {

// What a key present with null (Python's None) means to the rope types that read it.
enum class RopeNull {
    Refused, // HF computes with the value and fails (TypeError): refused
    Kept,    // HF's `.get(key) or default`: the default stays
    Unset,   // an optional number HF tests for None: not given
    False,   // HF's `if value:`: false
};

// How transformers 5 holds one field in a model's rope_parameters (RotaryEmbeddingConfigMixin's
// standardize_rope_params and _validate_<type>_rope_parameters, the _compute_<type>_parameters
// that read it).
struct RopeHfKey
{
    const char *key = nullptr;         // the rope_parameters key, where it is not the field's key
    const char *legacyKey = nullptr;   // read when the key is absent (rope_scaling's "type")
    bool inRopeParameters = true;      // false: the config keeps it elsewhere
    quint32 keyRequired = 0;           // types whose _validate_<type> requires the key
    RopeNull null = RopeNull::Refused; // what null means to the types of nullFor; the other
    quint32 nullFor = ~0u;             // types that read the field refuse it
    bool alwaysWritten = false;        // standardize_rope_params puts it in every object
    // A choice HF keeps as a boolean (DeepSeek's rope_interleave): true is trueChoice, false
    // and absent are falseChoice.
    int trueChoice = -1;
    int falseChoice = -1;
};

template <class P> struct RopeField
{
    Field<P> field;
    RopeHfKey hf;
};

// The rope_parameters key of a row.
template <class P> const char *ropeHfKey(const RopeField<P> &row)
{
    return row.hf.key ? row.hf.key : row.field.key;
}

namespace ropefield {
using T = RopeType;
// The types that read each field (transformers 5, modeling_rope_utils.py).
constexpr quint32 withFactor = ropeTypesWhere([](RopeType t) { return t != T::Default; });
constexpr quint32 factorRequired = bitsOf(T::Linear, T::Dynamic, T::Llama3, T::Ntk);
constexpr quint32 withOriginal = ropeTypesWhere(ropeReadsOriginalContext);
constexpr quint32 withContext = withOriginal | bitsOf(T::Dynamic);
constexpr RealRange positive{0.0, 1e12, true};
constexpr RealRange nonNegative{0.0, 1e12};
constexpr RealRange anyNumber{-1e12, 1e12};
constexpr RealRange divisor{-1e12, 1e12, false, false, true};
constexpr IntegerRange context{0, ropeMaxContext};
constexpr qint64 maxFactors = ropeMaxHeadDim / 2;
// YaRN's β: what 0 stands for, quoted from the defaults the rules compute with (ropeconfig.h).
inline constexpr auto betaFastHelp =
    helpQuoting("Rotations in the original context where the ramp to interpolation starts (0: ",
                ropeYarnDefaultBetaFast, ").");
inline constexpr auto betaSlowHelp = helpQuoting(
    "Rotations in the original context where the ramp ends (0: ", ropeYarnDefaultBetaSlow, ").");
} // namespace ropefield

// Every rope field in the order forms and --help show them. P is RopeConfig or a struct built on
// it (RopeScheme).
template <class P> std::span<const RopeField<P>> ropeFields()
{
    using namespace ropefield;
    static const RopeField<P> rows[] = {
        {.field = {.key = "rope_theta",
                   .flag = "base",
                   .label = "Base θ",
                   .help = "rope_theta: the base of the rotation frequencies.",
                   .kind = RealKind<P>{&P::ropeTheta, {1.0, limits::maxBase, true}}},
         .hf = {.keyRequired = bitsOf(T::Llama3, T::Proportional), .alwaysWritten = true}},
        {.field = {.key = "pairing",
                   .flag = "pairing",
                   .label = "Pairing",
                   .help = "Which columns form a rotated pair: interleaved (GPT-J, DeepSeek's "
                           "rope_interleave) or half (GPT-NeoX, Llama rotate_half).",
                   .kind = choiceKind<&P::pairing, P>(ropePairingNames)},
         .hf = {.key = "rope_interleave",
                .null = RopeNull::Kept,
                .trueChoice = int(RopePairing::Interleaved),
                .falseChoice = int(RopePairing::Half)}},
        {.field = {.key = "partial_rotary_factor",
                   .flag = "partial-rotary-factor",
                   .label = "Partial rotary factor",
                   .help = "Rotate the first int(dims x F) columns only.",
                   .kind = RealKind<P>{&P::partialRotaryFactor, {0.0, 1.0, true}}},
         .hf = {}},
        {.field = {.key = "rope_type",
                   .flag = "rope-type",
                   .label = "Rope type",
                   .help = "Hugging Face's rope_type: the context-extension rule.",
                   .kind = choiceKind<&P::ropeType, P>(ropeTypeNames)},
         .hf = {.legacyKey = "type", .alwaysWritten = true}},
        {.field = {.key = "factor",
                   .flag = "factor",
                   .label = "Factor s",
                   .help = "The scaling factor (yarn, longrope: inferred as "
                           "max_position_embeddings / original_max_position_embeddings when "
                           "left empty).",
                   .kind = OptionalRealKind<P>{&P::factor, positive},
                   .gate = {.by = "rope_type", .applies = withFactor, .required = factorRequired}},
         .hf = {.keyRequired = bitsOf(T::Linear, T::Dynamic, T::Yarn, T::Llama3, T::Ntk),
                .null = RopeNull::Unset,
                .nullFor = bitsOf(T::Yarn, T::Longrope)}},
        {.field = {.key = "original_max_position_embeddings",
                   .flag = "original-context",
                   .label = "Original context",
                   .help = "original_max_position_embeddings: the context the model was "
                           "pretrained with (0: max_position_embeddings).",
                   .kind = IntegerKind<P>{&P::originalMaxPositionEmbeddings, context},
                   .gate = {.by = "rope_type", .applies = withOriginal},
                   .unit = "tokens"},
         .hf = {}},
        {.field = {.key = "max_position_embeddings",
                   .flag = "max-position-embeddings",
                   .label = "Context",
                   .help = "The config's max_position_embeddings: the context the model is used "
                           "at.",
                   .kind = IntegerKind<P>{&P::maxPositionEmbeddings, context},
                   .gate = {.by = "rope_type",
                            .applies = withContext,
                            .required = bitsOf(T::Dynamic)},
                   .unit = "tokens"},
         .hf = {.inRopeParameters = false}},
        {.field = {.key = "attention_factor",
                   .flag = "attention-factor",
                   .label = "Attention factor",
                   .help = "Overrides the computed scaling of cos and sin (empty: computed).",
                   .kind = OptionalRealKind<P>{&P::attentionFactor, anyNumber},
                   .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn, T::Longrope)}},
         .hf = {.null = RopeNull::Unset}},
        {.field = {.key = "beta_fast",
                   .flag = "beta-fast",
                   .label = "β fast",
                   .help = betaFastHelp.data(),
                   .kind = RealKind<P>{&P::betaFast, nonNegative},
                   .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
         .hf = {.null = RopeNull::Kept}},
        {.field = {.key = "beta_slow",
                   .flag = "beta-slow",
                   .label = "β slow",
                   .help = betaSlowHelp.data(),
                   .kind = RealKind<P>{&P::betaSlow, nonNegative},
                   .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
         .hf = {.null = RopeNull::Kept}},
        {.field = {.key = "mscale",
                   .flag = "mscale",
                   .label = "mscale",
                   .help = "DeepSeek's get_mscale numerator of the attention factor (empty: not "
                           "set).",
                   .kind = OptionalRealKind<P>{&P::mscale, anyNumber},
                   .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
         .hf = {.null = RopeNull::Unset}},
        {.field = {.key = "mscale_all_dim",
                   .flag = "mscale-all-dim",
                   .label = "mscale all dim",
                   .help = "DeepSeek's get_mscale denominator of the attention factor (empty: not "
                           "set).",
                   .kind = OptionalRealKind<P>{&P::mscaleAllDim, anyNumber},
                   .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
         .hf = {.null = RopeNull::Unset}},
        {.field = {.key = "truncate",
                   .flag = "truncate",
                   .label = "Truncate",
                   .help = "Round the ramp's ends to whole pairs (HF's default; gpt-oss sets "
                           "false).",
                   .kind = BoolKind<P>{&P::truncate},
                   .gate = {.by = "rope_type", .applies = bitsOf(T::Yarn)}},
         .hf = {.null = RopeNull::False}},
        {.field = {.key = "short_factor",
                   .flag = "short-factor",
                   .label = "Short factors",
                   .help = "One factor per pair for sequences within the original context.",
                   .kind = RealListKind<P>{&P::shortFactor, divisor, maxFactors},
                   .gate = {.by = "rope_type",
                            .applies = bitsOf(T::Longrope),
                            .required = bitsOf(T::Longrope)}},
         .hf = {.keyRequired = bitsOf(T::Longrope)}},
        {.field = {.key = "long_factor",
                   .flag = "long-factor",
                   .label = "Long factors",
                   .help = "One factor per pair for sequences beyond the original context.",
                   .kind = RealListKind<P>{&P::longFactor, divisor, maxFactors},
                   .gate = {.by = "rope_type",
                            .applies = bitsOf(T::Longrope),
                            .required = bitsOf(T::Longrope)}},
         .hf = {.keyRequired = bitsOf(T::Longrope)}},
        {.field = {.key = "low_freq_factor",
                   .flag = "low-freq-factor",
                   .label = "Low freq factor",
                   .help = "Wavelengths longer than original / low_freq_factor are divided by s.",
                   .kind = RealKind<P>{&P::lowFreqFactor, divisor},
                   .gate = {.by = "rope_type",
                            .applies = bitsOf(T::Llama3),
                            .required = bitsOf(T::Llama3)}},
         .hf = {.keyRequired = bitsOf(T::Llama3)}},
        {.field = {.key = "high_freq_factor",
                   .flag = "high-freq-factor",
                   .label = "High freq factor",
                   .help = "Wavelengths shorter than original / high_freq_factor are kept.",
                   .kind = RealKind<P>{&P::highFreqFactor, divisor},
                   .gate = {.by = "rope_type",
                            .applies = bitsOf(T::Llama3),
                            .required = bitsOf(T::Llama3)}},
         .hf = {.keyRequired = bitsOf(T::Llama3)}},
        {.field = {.key = "mrope_section",
                   .flag = "mrope-section",
                   .label = "mrope section",
                   .help = "Qwen-VL: how many pairs follow the temporal, height and width "
                           "position ids.",
                   .kind = IntegerListKind<P>{&P::mropeSection, {0, ropeMaxHeadDim / 2}, 3}},
         .hf = {.null = RopeNull::Kept}},
        {.field = {.key = "mrope_interleaved",
                   .flag = "mrope-interleaved",
                   .label = "mrope interleaved",
                   .help = "Qwen3-VL: the sections interleave pair by pair.",
                   .kind = BoolKind<P>{&P::mropeInterleaved}},
         .hf = {.null = RopeNull::Kept}},
    };
    return rows;
}

// The rows' fields alone, as the field machinery (field.h) takes a table.
template <class P> FieldTable<P> ropeFieldTable()
{
    static const std::vector<Field<P>> table = [] {
        std::vector<Field<P>> fields;
        for (const RopeField<P> &row : ropeFields<P>())
            fields.push_back(row.field);
        return fields;
    }();
    return table;
}

// The row of a RopeConfig member, for the few rules that name one field (HF's standardize step,
// messages about relations between fields, the readers' keys).
template <class V> const RopeField<RopeConfig> &ropeFieldOf(V RopeConfig::*member)
{
    const std::span<const RopeField<RopeConfig>> rows = ropeFields<RopeConfig>();
    for (const RopeField<RopeConfig> &row : rows) {
        const bool found = std::visit(
            [&](const auto &kind) {
                if constexpr (requires { kind.member; }) {
                    if constexpr (std::is_same_v<decltype(kind.member), V RopeConfig::*>)
                        return kind.member == member;
                } else if constexpr (requires { kind.get; }) {
                    // A choice reaches its enum through functions: its row is the one whose
                    // value changes when only this member does.
                    if constexpr (std::is_enum_v<V>) {
                        const RopeConfig before;
                        RopeConfig after = before;
                        after.*member = V(int(before.*member) + 1);
                        return kind.get(after) != kind.get(before);
                    }
                }
                return false;
            },
            row.field.kind);
        if (found)
            return row;
    }
    Q_ASSERT_X(false, "ropeFieldOf", "a RopeConfig member without a row");
    return rows.front();
}

// The rope_parameters key of a member, for code that reads or writes the field in a Hugging Face
// config: ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings) is
// "original_max_position_embeddings". The one way code names a rope field's HF key, so that the
// row is its only spelling. rope_theta and partial_rotary_factor are rows too: a v4 config keeps
// them at its top level, and standardize_rope_params copies them into rope_parameters under the
// same names, so the row's key names both places. Looked up at run time: the rows are a
// function's static table, which C++20 cannot read in a constant expression.
template <class V> QLatin1StringView ropeHfKeyOf(V RopeConfig::*member)
{
    return QLatin1StringView(ropeHfKey(ropeFieldOf(member)));
}

// The key transformers reads when a member's rope_parameters key is absent (rope_scaling's
// "type" for rope_type); empty where the row has none.
template <class V> QLatin1StringView ropeLegacyKeyOf(V RopeConfig::*member)
{
    return QLatin1StringView(ropeFieldOf(member).hf.legacyKey);
}

} // namespace pe
