// RoPE (Su et al., RoFormer): inverse frequencies with Hugging Face's context-extension rules,
// computed in float64, and the cos/sin table as per-column phases for every backend.
//
// Sources: transformers' modeling_rope_utils.py, one function per rope_type (named at each
// case in rope.cpp). Where HF releases differ, pescope follows the formula with the parameters
// as given: HF computes in float32 (pescope in float64); "ntk" (static NTK-aware) existed as
// _compute_ntk_parameters in 2024 releases and was later dropped; for YaRN, early releases used
// max_position_embeddings as the original context, later ones read
// rope_scaling.original_max_position_embeddings (some of those replaced the factor by
// max_position_embeddings / original, which equals s when the model's context is s x original),
// and the newest add `truncate` (default True: floor/ceil of the correction range, as all
// earlier releases did unconditionally; RopeParameters::yarnTruncate = false drops it).
#pragma once

#include "fields/choicenames.h"
#include "phasekernels.h"

#include <QString>
#include <QtGlobal>

#include <vector>

namespace pe {

// RoPE (Su et al., RoFormer) pair layout: GPT-J interleaved (columns 2i, 2i+1) or GPT-NeoX /
// Llama half-split (columns i, i + r/2, r = rotary dims).
enum class RopePairing { Interleaved, Half };
// Hugging Face rope_type values (see above); Ntk is the community NTK-aware formula.
enum class RopeScaling { None, Linear, Ntk, DynamicNtk, Yarn, Llama3 };

// Every RoPE parameter. Defaults are HF's.
struct RopeParameters
{
    double ropeTheta = 10000.0;  // rope_theta, the base
    RopePairing pairing = RopePairing::Interleaved;
    RopeScaling scaling = RopeScaling::None;
    double factor = 1.0;         // s: linear, ntk, dynamic-ntk, yarn, llama3
    qint64 originalContext = 0;  // original_max_position_embeddings (dynamic-ntk, yarn, llama3)
    qint64 currentLength = 0;    // dynamic-ntk's seq_len; <= 0: the original context (HF init)
    double lowFreqFactor = 1.0;  // llama3
    double highFreqFactor = 4.0; // llama3
    double betaFast = 32.0;      // yarn
    double betaSlow = 1.0;       // yarn
    bool yarnTruncate = true;    // yarn: floor/ceil the correction range (HF's default)
    double partialRotaryFactor = 1.0; // rotary dims = int(dims * factor), as HF computes `dim`
    bool operator==(const RopeParameters &) const = default;
};

inline constexpr ChoiceName ropePairingNames[] = {
    choice(RopePairing::Interleaved, "interleaved", "Interleaved (GPT-J: columns 2i, 2i+1)"),
    choice(RopePairing::Half, "half", "Half (GPT-NeoX / Llama: columns i, i + r/2)"),
};
inline constexpr ChoiceName ropeScalingNames[] = {
    choice(RopeScaling::None, "default", "Default (no scaling)", "none"),
    choice(RopeScaling::Linear, "linear", "Linear (position interpolation)"),
    choice(RopeScaling::Ntk, "ntk", "NTK-aware (community formula)"),
    choice(RopeScaling::DynamicNtk, "dynamic", "Dynamic NTK", "dynamic-ntk"),
    choice(RopeScaling::Yarn, "yarn", "YaRN"),
    choice(RopeScaling::Llama3, "llama3", "Llama 3"),
};

namespace limits {
// Original contexts and current lengths: beyond any model's (10M tokens is the largest today).
constexpr qint64 maxRopeContext = qint64(1) << 31;
} // namespace limits

// Hugging Face's `dim`: int(head_dim * partial_rotary_factor), the number of rotated columns.
qint64 ropeRotaryDims(qint64 dims, double partialRotaryFactor);

// Empty when the RoPE fields suit `dims` columns; otherwise one sentence naming the bad field.
QString ropeProblem(qint64 dims, const RopeParameters &rope);

struct RopeFrequencies
{
    // theta_i for i < rotary dims / 2, radians per position.
    std::vector<double> inverseFrequencies;
    // HF's attention_scaling: cos and sin are multiplied by it (YaRN only; 1 otherwise). The
    // cos/sin table pescope produces is NOT multiplied; views and the CLI report it beside.
    double attentionFactor = 1.0;
};

// The unscaled frequencies, theta_i = base^(-2i/r) (HF `_compute_default_rope_parameters`).
std::vector<double> ropeDefaultInverseFrequencies(double base, qint64 rotaryDims);

// HF `_compute_ntk_parameters` (rope_type "ntk"): base * s^(r / (r - 2)).
double ropeNtkBase(double base, qint64 rotaryDims, double factor);
// HF `_compute_dynamic_ntk_parameters`: base * (s L / L0 - (s - 1))^(r / (r - 2)) with
// L = max(current length, L0); a current length <= L0 (or <= 0) leaves the base unchanged.
double ropeDynamicNtkBase(double base, qint64 rotaryDims, double factor, qint64 originalContext,
                          qint64 currentLength);

// YaRN's find_correction_range in HF `_compute_yarn_parameters`: the pair indices where the
// ramp from extrapolation (fast, high frequency) to interpolation (slow) starts and ends.
struct YarnCorrectionRange
{
    double low = 0;
    double high = 0;
};
YarnCorrectionRange ropeYarnCorrectionRange(double base, qint64 rotaryDims,
                                            const RopeParameters &rope);
// get_mscale in HF: 0.1 ln s + 1 for s > 1, else 1.
double ropeYarnAttentionFactor(double factor);

// The scaled frequencies the rope_type produces. The parameters must be valid.
RopeFrequencies ropeInverseFrequencies(qint64 dims, const RopeParameters &rope);

// One ColumnPhase per column of a valid RoPE spec (columnPhases() forwards here):
//  pair i < r/2 with theta_i: interleaved columns 2i (cos) and 2i+1 (sin); half-split columns
//  i (cos) and i + r/2 (sin). cos is a sine a quarter turn ahead.
//  Columns r..d-1 (partial rotary factor < 1) are not rotated: they hold the identity rotation,
//  theta = 0 pairs laid out by the same pairing rule inside that block (cos slot 1, sin slot 0).
std::vector<kernels::ColumnPhase> ropeColumnPhases(qint64 dims, const RopeParameters &rope);

} // namespace pe
