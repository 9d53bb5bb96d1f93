// The cos / sin tables a Hugging Face rotary embedding's forward returns, in float64, for plain
// position ids and for multimodal (t, h, w) ids (mrope), and the same tables as per-column exact
// phases for pescope's fast kernels.
#pragma once

#include "backends/phasekernels.h"
#include "ropefrequencies.h"

#include <span>

namespace pe {

// What a table holds in each column.
//  Cos, Sin: HF's `cos` and `sin` outputs. Half pairing: emb = cat(freqs, freqs), column c holds
//    pair c mod n (n = frequency count); Interleaved: repeat_interleave(freqs, 2), column c holds
//    pair c / 2 (GPT-J's layout).
//  CosSin: one table holding each pair's cos and sin in the pair's two columns - pescope's
//    encoding matrix: Half: cos in c < n, sin in c >= n; Interleaved: cos in even, sin in odd c.
enum class RopeTableKind { Cos, Sin, CosSin };

inline constexpr ChoiceName ropeTableKindNames[] = {
    choice(RopeTableKind::Cos, "cos", "cos (HF layout)"),
    choice(RopeTableKind::Sin, "sin", "sin (HF layout)"),
    choice(RopeTableKind::CosSin, "cos-sin", "cos and sin of each pair"),
};

// A row-major float64 table.
struct RopeTable
{
    qint64 rows = 0;
    qint64 columns = 0;
    std::vector<double> values;

    double at(qint64 row, qint64 column) const
    {
        return values[std::size_t(row * columns + column)];
    }
};

// Which frequency (pair) column c of a table with 2 * frequencyCount columns holds, and whether
// it is the pair's cosine.
struct RopeColumn
{
    qint64 pair = 0;
    bool cosine = true;
};
RopeColumn ropeTableColumn(RopeTableKind kind, RopePairing pairing, qint64 frequencyCount,
                           qint64 column);

// Columns of HF's cos / sin tables: 2 * ropeFrequencyCount(), the rotated dims (one more than
// an odd int(head_dim * partial_rotary_factor), as HF's arange gives).
qint64 ropeTableColumns(qint64 headDim, const RopeConfig &config);

// The table for position ids 0..positions-1, as a freshly built HF rotary embedding's forward
// returns it: angle p * theta_i in float64, cos or sin of it, times the attention factor when
// `scaled` (HF always scales: `cos = emb.cos() * self.attention_scaling`). The frequencies are
// those of ropeInverseFrequencies(headDim, config): set config.sequenceLength = positions for
// what HF's forward does with dynamic and longrope (dynamic_rope_update passes
// max(position_ids) + 1). Empty when the config is invalid or positions < 0. The caller bounds
// positions x columns (it is materialised).
RopeTable ropeTable(qint64 headDim, const RopeConfig &config, RopeTableKind kind, qint64 positions,
                    bool scaled);

// The same for arbitrary position ids, one row each (HF's forward takes any position_ids).
RopeTable ropeTableRows(qint64 headDim, const RopeConfig &config, RopeTableKind kind,
                        std::span<const qint64> positionIds, bool scaled);

// The same for positions that need not be whole (a position ablation's (p + k) / s: linear
// interpolation as positions rather than as frequencies; for rope_type "default" the angle is
// (p / s) theta_i, what "linear" with factor s gives as p (theta_i / s)).
RopeTable ropeTableAt(qint64 headDim, const RopeConfig &config, RopeTableKind kind,
                      std::span<const double> positions, bool scaled);

// 2^64 x frac(omega / 2 pi): the fixed-point step of an angle omega >= 0 per position.
std::uint64_t ropeTurnsStep(double omega);

// The same table as per-column exact phases for pescope's kernels (value = sin(2 pi frac(p step
// + offset)); a cosine is a sine a quarter turn ahead). The attention factor cannot be expressed
// this way: these columns are the unscaled table. max(headDim, ropeTableColumns()) columns: the
// rotary block, then (partial rotary factor < 1) the columns HF passes through unrotated, given
// the identity rotation: for CosSin theta = 0 pairs laid out by the same pairing rule inside
// that block (cos slots 1, sin slots 0, as pescope's RoPE matrix always had); for Cos all 1, for
// Sin all 0. Empty when the config is invalid.
std::vector<kernels::ColumnPhase> ropeColumnPhases(qint64 headDim, const RopeConfig &config,
                                                   RopeTableKind kind = RopeTableKind::CosSin);

// --- mrope (Qwen2-VL, Qwen2.5-VL, Qwen3-VL) -------------------------------------------------

// Which position id a rotary pair turns with.
enum class MropeAxis { Temporal, Height, Width };

// The position-id axis of each frequency (pair), ropeFrequencyCount() entries.
//  mropeSection [t, h, w] (Qwen2-VL / Qwen2.5-VL, apply_multimodal_rotary_pos_emb, which splits
//    cos into mrope_section * 2 chunks and takes chunk k from axis k % 3): pairs [0, t) follow
//    the temporal id, [t, t + h) the height id, the rest the width id; t + h + w must equal the
//    frequency count (torch's split needs it).
//  mropeInterleaved (Qwen3-VL, apply_interleaved_mrope): pair i follows the height id when
//    i % 3 == 1 and i < 3h, the width id when i % 3 == 2 and i < 3w, else the temporal id.
//  No section: every pair follows the temporal id (plain RoPE).
std::vector<MropeAxis> ropeMropeAxes(qint64 headDim, const RopeConfig &config);
// Empty when mrope_section (its entries within the field table's bounds) fits the head;
// otherwise one sentence naming mrope_section. ropeConfigProblem() includes it.
QString ropeMropeProblem(qint64 headDim, const RopeConfig &config);

struct MropePositionIds
{
    qint64 temporal = 0;
    qint64 height = 0;
    qint64 width = 0;
};

// The table HF's Qwen-VL rotary embedding (plus its section mixing) gives for one row per
// (t, h, w) triple: pair i uses the id of its axis. Text tokens have t = h = w = p, which gives
// ropeTable()'s row p. Empty when the config is invalid.
RopeTable ropeMropeTable(qint64 headDim, const RopeConfig &config, RopeTableKind kind,
                         std::span<const MropePositionIds> ids, bool scaled);

} // namespace pe
