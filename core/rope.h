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

#include "encodingspec.h"
#include "phasekernels.h"

#include <vector>

namespace pe {

namespace limits {
// Original contexts and current lengths: beyond any model's (10M tokens is the largest today).
constexpr qint64 maxRopeContext = qint64(1) << 31;
} // namespace limits

// Hugging Face's `dim`: int(head_dim * partial_rotary_factor), the number of rotated columns.
qint64 ropeRotaryDims(qint64 dims, double partialRotaryFactor);

// Empty when the RoPE fields suit `dims` columns; otherwise one sentence naming the bad field.
// EncodingSpec::validate() calls it for Scheme::Rope; the base is checked there.
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

// The scaled frequencies the spec's rope_type produces. The parameters must be valid.
RopeFrequencies ropeInverseFrequencies(double base, qint64 dims, const RopeParameters &rope);
inline RopeFrequencies ropeInverseFrequencies(const EncodingSpec &spec)
{
    return ropeInverseFrequencies(spec.base, spec.dims, spec.rope);
}

// One ColumnPhase per column of a valid RoPE spec (columnPhases() forwards here):
//  pair i < r/2 with theta_i: interleaved columns 2i (cos) and 2i+1 (sin); half-split columns
//  i (cos) and i + r/2 (sin). cos is a sine a quarter turn ahead.
//  Columns r..d-1 (partial rotary factor < 1) are not rotated: they hold the identity rotation,
//  theta = 0 pairs laid out by the same pairing rule inside that block (cos slot 1, sin slot 0).
std::vector<kernels::ColumnPhase> ropeColumnPhases(const EncodingSpec &spec);

// 2^64 x frac(omega / 2 pi): the fixed-point step of any omega >= 0 (omega > 2 pi wraps).
std::uint64_t ropeTurnsStep(double omega);

} // namespace pe
