// RoPE's inverse frequencies and attention scaling for every rope type, computed in float64
// exactly as Hugging Face transformers v5 computes them (in float32), and the checks that say
// whether HF would compute them at all.
//
// Source: transformers' src/transformers/modeling_rope_utils.py on the v5 line (the copy of
// newest main with `_compute_proportional_rope_parameters`, Gemma 4's type, read through the
// code index; v5.0's copy agrees on every formula used here). Each function names the HF function
// it follows. Where releases differ, pescope follows v5 and says so where it matters:
//  - yarn: v4.5x replaced `factor` by max_position_embeddings / original whenever
//    original_max_position_embeddings was given; v5 infers it only when factor is None.
//  - yarn's get_mscale returns 1 for factor <= 1 (v4.45 used 0.1 ln s + 1 unconditionally).
//  - longrope: v4.5x replaced factor by the same ratio when the config had a top-level
//    original_max_position_embeddings; v5 infers it only when factor is None.
//  - dynamic: the length it scales from is max_position_embeddings (not original_...).
#pragma once

#include "ropeconfig.h"

#include <QStringList>

#include <span>

namespace pe {

// Largest head dim, context and sequence length accepted (beyond any model's today).
constexpr qint64 ropeMaxHeadDim = 65536;
constexpr qint64 ropeMaxContext = qint64(1) << 31;

// HF's `dim`: int(head_dim * partial_rotary_factor) (Python's int() truncates). Proportional
// rotates the whole head (zero frequencies past its rotated angles): 2 * (head_dim // 2).
qint64 ropeRotaryDims(qint64 headDim, const RopeConfig &config);
// len(inv_freq): len(arange(0, dim, 2)) = ceil(dim / 2); proportional: head_dim // 2.
qint64 ropeFrequencyCount(qint64 headDim, const RopeConfig &config);

// Empty when Hugging Face computes finite frequencies for these parameters; otherwise one
// sentence naming the bad field by its HF key. Where HF only logs a warning (beta_fast <
// beta_slow, factor < 1, high_freq_factor <= low_freq_factor, list lengths it can broadcast) the
// parameters are accepted and ropeConfigWarnings() says what HF would log. pescope refuses, beyond
// HF: non-finite numbers, factor <= 0 (HF divides by it) and no rotated dims at all.
QString ropeConfigProblem(qint64 headDim, const RopeConfig &config);
// HF's logger warnings for valid parameters (validate_rope's _validate_*_rope_parameters).
QStringList ropeConfigWarnings(qint64 headDim, const RopeConfig &config);

struct RopeFrequencies
{
    // inv_freq: theta_i in radians per position, ropeFrequencyCount() of them.
    std::vector<double> inverseFrequencies;
    // HF's attention_scaling: its rotary forward multiplies cos and sin by it.
    double attentionFactor = 1.0;
};

// The (inv_freq, attention_factor) pair HF's init function for config.ropeType returns, called
// with seq_len = config.sequenceLength (0: None). Empty frequencies when ropeConfigProblem() is
// not empty.
RopeFrequencies ropeInverseFrequencies(qint64 headDim, const RopeConfig &config);

// The factor the type's formula uses: config.factor, or the ratio HF infers (yarn, longrope:
// max_position_embeddings / original_max_position_embeddings; proportional: 1). nullopt when
// neither is available.
std::optional<double> ropeEffectiveFactor(const RopeConfig &config);

// The base HF's _compute_dynamic_ntk_parameters scales to for config.sequenceLength: base *
// ((factor * L / max_position_embeddings) - (factor - 1))^(dim / (dim - 2)), L = max(seq_len,
// max_position_embeddings); seq_len None (0) is max_position_embeddings, the base unchanged.
// The parameters must be valid for rope_type "dynamic".
double ropeDynamicBase(qint64 headDim, const RopeConfig &config);
// Whether _compute_longrope_parameters takes long_factor for config.sequenceLength (`seq_len and
// seq_len > original_max_position_embeddings`); short_factor otherwise, seq_len None included.
bool ropeUsesLongFactors(const RopeConfig &config);
// For the rules that read the sequence length (dynamic, longrope), one sentence: the length the
// rule sees (`origin` says where it came from: "the table's rows", "--positions"), and the factor
// set or base that gives. Empty for the other types.
QString ropeSequenceLengthNote(qint64 headDim, const RopeConfig &config, const QString &origin);

// llama.cpp's per-pair frequency factors (a GGUF file's rope_freqs.weight, written for llama3
// scaling; ggml_rope_ext's freq_factors) turned into inv_freq: theta_i = base^(-2i/d) / f_i with
// base = config.ropeTheta and d = ropeRotaryDims(headDim, config), the default frequencies HF
// computes for that base divided pair by pair. One value per factor; a factor <= 0 or not finite
// gives NaN (no frequency), so that a comparison reports it instead of dividing by it.
std::vector<double> ropeFrequenciesFromFactors(qint64 headDim, const RopeConfig &config,
                                               std::span<const double> factors);

// get_mscale inside HF v5 `_compute_yarn_parameters` (DeepSeek's yarn_get_mscale):
// 1 for scale <= 1, else 0.1 * mscale * ln(scale) + 1. DeepSeek V2/V3 also multiply the softmax
// scale by get_mscale(factor, mscale_all_dim)^2 in attention; that is not part of cos/sin.
double ropeYarnGetMscale(double scale, double mscale = 1.0);

// find_correction_range in HF v5 `_compute_yarn_parameters`: the pair indices where the ramp
// from extrapolation (kept frequencies) to interpolation (divided by factor) starts and ends,
// after `truncate` and the clamps max(low, 0), min(high, dim - 1). The parameters must be valid.
struct RopeYarnRange
{
    double low = 0;
    double high = 0;
};
RopeYarnRange ropeYarnCorrectionRange(qint64 headDim, const RopeConfig &config);

} // namespace pe
