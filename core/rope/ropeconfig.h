// RoPE's parameters as Hugging Face transformers v5 holds them in one `rope_parameters` object
// (plus the pairing and the current sequence length, which it keeps elsewhere), the names of the
// rope types and pairings, and the JSON reader and writer of that object.
#pragma once

#include "fields/choicenames.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace pe {

// transformers v5's rope_type values (ROPE_INIT_FUNCTIONS plus "default"), and Ntk: the
// community "NTK-aware" formula base * s^(r / (r - 2)) (bloc97, 2023), which is NOT a rope_type of
// transformers v5. (huggingface/transformers' modeling_rope_utils.py of mid-2024, commit 0044e3b in
// the code index, still had an "ntk" entry, _compute_ntk_parameters; v5 has none.) pescope keeps it
// for teaching.
enum class RopeType { Default, Linear, Dynamic, Yarn, Longrope, Llama3, Proportional, Ntk };

// Which columns a rotation turns together.
//  Interleaved: pairs (2i, 2i+1) - GPT-J's rotate_every_two, Meta's original complex-number Llama
//    code, DeepSeek's `rope_interleave` as the checkpoints store q/k, llama.cpp's normal mode.
//  Half: pairs (i, i + r/2) - GPT-NeoX / Llama's rotate_half; Hugging Face's rotary embeddings all
//    return cos/sin in this layout (cat(freqs, freqs)), DeepSeek's included: HF permutes q and k
//    into it (apply_rotary_pos_emb_interleave) instead of interleaving the table.
enum class RopePairing { Interleaved, Half };

// Decoupled RoPE (DeepSeek V2 / V3, Kimi K2: multi-head latent attention) rotates only the
// qk_rope_head_dim columns of each query and key head, not the qk_nope_head_dim ones: pass that as
// headDim (64 for DeepSeek-V3), not qk_head_dim. Their config's `rope_interleave: true` says how
// the checkpoint's q/k pair their columns (HF's rotary embedding still returns Half-layout tables
// and permutes q/k into that layout, so compare HF's own cos/sin with Half).
constexpr RopePairing ropePairingForRopeInterleave(bool ropeInterleave)
{
    return ropeInterleave ? RopePairing::Interleaved : RopePairing::Half;
}

// "dynamic-ntk": pescope's earlier spelling; "none": pescope's earlier name of the default;
// "su" and "mrope": legacy `type` values HF renames (Phi-3's first configs; Qwen2-VL's).
inline constexpr ChoiceName ropeTypeNames[] = {
    choice(RopeType::Default, "default", "Default (RoFormer)", "none,mrope"),
    choice(RopeType::Linear, "linear", "Linear (position interpolation)"),
    choice(RopeType::Dynamic, "dynamic", "Dynamic NTK", "dynamic-ntk,dynamic_ntk"),
    choice(RopeType::Yarn, "yarn", "YaRN"),
    choice(RopeType::Longrope, "longrope", "LongRoPE", "su"),
    choice(RopeType::Llama3, "llama3", "Llama 3"),
    choice(RopeType::Proportional, "proportional", "Proportional (Gemma 4)"),
    choice(RopeType::Ntk, "ntk", "NTK-aware (community formula, not an HF type)"),
};

inline constexpr ChoiceName ropePairingNames[] = {
    choice(RopePairing::Interleaved, "interleaved", "Interleaved pairs (GPT-J, rope_interleave)",
           "gptj"),
    choice(RopePairing::Half, "half", "Half split (GPT-NeoX / Llama rotate_half)",
           "neox,rotate_half"),
};

// Names and aliases, case-sensitive as HF compares them.
inline QString ropeTypeName(RopeType type)
{
    return nameOf(ropeTypeNames, type);
}
inline std::optional<RopeType> parseRopeType(const QString &name)
{
    return parseAs<RopeType>(ropeTypeNames, name);
}

// YaRN's ramp ends as HF's _compute_yarn_parameters reads them (`.get("beta_fast") or 32`,
// `.get("beta_slow") or 1`): absent, null and 0 all mean these. Written here once; the rules, the
// checks and the help read them through ropeYarnBetaFast() / ropeYarnBetaSlow().
inline constexpr double ropeYarnDefaultBetaFast = 32.0;
inline constexpr double ropeYarnDefaultBetaSlow = 1.0;

// Every field transformers v5 reads from `rope_parameters` (RopeParameters TypedDict, the
// _compute_*_parameters functions and _validate_*_rope_parameters, newest main), camelCase, with
// HF's defaults. A field only matters to the types that read it (see ropefrequencies.h).
struct RopeConfig
{
    double ropeTheta = 10000.0; // rope_theta (RotaryEmbeddingConfigMixin.default_theta)
    RopeType ropeType = RopeType::Default;
    double partialRotaryFactor = 1.0; // rotated dims = int(head_dim * partial_rotary_factor)
    // factor: HF's None is nullopt. yarn and longrope then use max_position_embeddings /
    // original_max_position_embeddings, proportional uses 1; linear, dynamic, llama3 need it.
    std::optional<double> factor;
    qint64 originalMaxPositionEmbeddings = 0; // 0 = not given
    qint64 maxPositionEmbeddings = 0;         // the config's max_position_embeddings; 0 = not given
    std::optional<double> attentionFactor;    // yarn, longrope: overrides the computed scaling
    double betaFast = ropeYarnDefaultBetaFast; // yarn; 0 means the default (HF: `or 32`)
    double betaSlow = ropeYarnDefaultBetaSlow; // yarn; 0 means the default (HF: `or 1`)
    std::optional<double> mscale;              // yarn (DeepSeek): get_mscale numerator
    std::optional<double> mscaleAllDim;        // yarn (DeepSeek): get_mscale denominator
    bool truncate = true;                      // yarn: floor/ceil the correction range
    std::vector<double> shortFactor;           // longrope: for seq_len <= original
    std::vector<double> longFactor;            // longrope: for seq_len > original
    double lowFreqFactor = 1.0;                // llama3
    double highFreqFactor = 4.0;               // llama3
    QList<qint64> mropeSection;                // Qwen-VL: pairs per temporal, height, width id
    bool mropeInterleaved = false;             // Qwen3-VL's interleaved sections
    // Not rope_parameters keys:
    RopePairing pairing = RopePairing::Interleaved;
    // HF's `seq_len` argument: 0 = None, the init-time call (dynamic: max_position_embeddings;
    // longrope: short factors). A module's forward over position ids 0..N-1 passes N.
    qint64 sequenceLength = 0;

    bool operator==(const RopeConfig &) const = default;
};

// The β YaRN computes with: the config's, or the default for 0.
inline double ropeYarnBetaFast(const RopeConfig &config)
{
    return config.betaFast != 0.0 ? config.betaFast : ropeYarnDefaultBetaFast;
}
inline double ropeYarnBetaSlow(const RopeConfig &config)
{
    return config.betaSlow != 0.0 ? config.betaSlow : ropeYarnDefaultBetaSlow;
}

// What a rope type's rule reads, answered here once.
// The types that scale from the pretraining context, original_max_position_embeddings: HF's
// standardize_rope_params gives exactly "llama3", "yarn" and "longrope" one.
constexpr bool ropeReadsOriginalContext(RopeType type)
{
    return type == RopeType::Llama3 || type == RopeType::Yarn || type == RopeType::Longrope;
}
// The types whose rule reads HF's seq_len: dynamic rescales its base, longrope picks its factor
// set (the others ignore the argument).
constexpr bool ropeReadsSequenceLength(RopeType type)
{
    return type == RopeType::Dynamic || type == RopeType::Longrope;
}
// The context a type's rule scales from: original_max_position_embeddings for the types that read
// it (max_position_embeddings when it is not given), max_position_embeddings for dynamic, 0 for
// the types that scale from no context.
inline qint64 ropeScalingContext(const RopeConfig &config)
{
    if (ropeReadsOriginalContext(config.ropeType))
        return config.originalMaxPositionEmbeddings > 0 ? config.originalMaxPositionEmbeddings
                                                        : config.maxPositionEmbeddings;
    return config.ropeType == RopeType::Dynamic ? config.maxPositionEmbeddings : 0;
}
// Bit t set for every rope type t that `has`, for the gates of the field table (ropefields.h).
template <class Predicate> constexpr quint32 ropeTypesWhere(Predicate has)
{
    quint32 mask = 0;
    for (const ChoiceName &name : ropeTypeNames)
        if (has(RopeType(name.value)))
            mask |= quint32(1) << name.value;
    return mask;
}

// Reads ONE normalized v5 `rope_parameters` object (rope_type - or legacy `type` -, rope_theta,
// factor, ...; what standardize_rope_params leaves). Checks, each with a message naming the key:
// JSON types, unknown rope_type, HF's required keys per type (_validate_*_rope_parameters), then
// ropeConfigProblem(headDim, ...). As standardize_rope_params does, a missing
// original_max_position_embeddings of llama3 / yarn / longrope is max_position_embeddings.
// rope_theta missing: 10000 (default_theta), except for llama3 and proportional, which require
// it. `pairing` is Half (HF's layout) unless the object carries DeepSeek's "rope_interleave":
// true; `sequenceLength` is 0. Unknown keys are ignored, as HF only warns about them. A key
// present with null is HF's None: a yarn / longrope factor is then inferred, attention_factor,
// beta_*, mscale* fall back to their defaults, truncate is false (`if truncate:`), and anything
// HF would compute with (rope_theta, factor elsewhere, ...) is an error.
// On error returns a default RopeConfig and sets *error.
RopeConfig ropeConfigFromJson(const QJsonObject &ropeParameters, qint64 headDim,
                              qint64 maxPositionEmbeddings, QString *error);

// The inverse: rope_type, the keys HF requires for that type, and every other field that
// differs from its default ("factor": null for a yarn factor left to inference;
// "rope_interleave": true for the interleaved pairing). max_position_embeddings and
// sequenceLength are not rope_parameters keys and are not written.
QJsonObject ropeConfigToJson(const RopeConfig &config);

} // namespace pe
