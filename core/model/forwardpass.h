// ForwardPass: a model's whole forward pass for a phrase's token ids, every layer, as
// transformers' eager float32 forward computes it (output_attentions, output_hidden_states):
// per layer the attention probabilities (heads x tokens x tokens), the hidden states, the last
// block's output before the final norm, and the logits. Plain arrays that analyses read without
// knowing the architecture; the architecture is a plan (forwardplan.h).
//
// Memory: the weights stay memory-mapped as stored; each layer's tensors are widened to float32
// only while that layer runs, and the output matrix is read a block of rows at a time. Mapped
// pages once widened (a layer's) or multiplied (the output matrix's rows) are given back to the
// system (ModelTensors::releaseRows: the page cache keeps them, the next pass maps them again),
// so resident memory is about one layer's weights as stored plus its float32 working set plus
// the results asked for, not every mapped byte the pass has read.
// Threads: the matrix products are split over output columns, the attention over heads.
// Not for concurrent use: one thread calls run() at a time.
#pragma once

#include "model/layerzero.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>

namespace pe {

namespace limits {
// The most float32 values one result array may hold (1 GiB).
constexpr qint64 maxForwardResultValues = qint64(1) << 28;
} // namespace limits

// What the pass does to the model's positions, in every layer, besides removing them
// (ForwardOptions::withPositions): the model computed as transformers computes it when called
// with other position ids or other RoPE parameters. The default changes nothing, bit for bit.
struct PositionAblation
{
    // Position ids k .. k + L - 1 instead of 0 .. L - 1 (the position_ids argument of
    // transformers' forward): a RoPE layer turns token p by (p + k) theta_i; a learned table adds
    // its row p + k (after the model's own offset: OPT's 2, RoBERTa's padding_idx + 1). Refused
    // where a learned table has no such row.
    qint64 shift = 0;
    // A RoPE layer turns token p as position (p + k) / s: linear interpolation, what transformers'
    // rope_type "linear" with factor s does (inv_freq / s) on a model with default RoPE. Not
    // defined for a learned table (refused).
    double scale = 1.0;
    // Another base in every RoPE layer (Gemma's local layers included); nullopt: the model's.
    std::optional<double> ropeTheta;
    // Another rule in every RoPE layer: a rope_parameters / rope_scaling object (rope_type and
    // the keys transformers reads for it: "linear", "dynamic", "yarn", "llama3", "longrope"...),
    // read by ropeConfigFromJson; rope_theta and partial_rotary_factor are the layer's (or
    // ropeTheta) unless the object gives them. Empty: the model's own rule.
    QJsonObject ropeScaling;

    bool changesNothing() const
    {
        return shift == 0 && scale == 1.0 && !ropeTheta && ropeScaling.isEmpty();
    }
};

// "shifted by 5, scaled by 2, rope_theta 500000, rope_type yarn ..." (empty: changesNothing()).
QString positionAblationText(const PositionAblation &ablation);

struct ForwardOptions
{
    bool attentions = true; // every layer's probabilities
    // >= 0: of the attentions, only this layer's ({1, heads, tokens, tokens}); without hidden
    // states and logits the pass then stops after that layer.
    qint64 attentionLayer = -1;
    bool hiddenStates = true; // every hidden state
    bool logits = true;
    // Only the last token's logits ({1, vocabulary}): what generation reads, as transformers'
    // logits_to_keep=1; the default keeps every token's, as its plain forward does.
    bool lastLogitsOnly = false;
    // Every layer's queries and keys as they are scored: after the projections, q/k norms and
    // RoPE (and a query scaling the model applies before the product). What the RoPE frequency
    // atlas reads; bounded by limits::maxForwardResultValues like the other results.
    bool queriesKeys = false;
    // false: the model without its positions, in every layer: no position table added at the
    // input, no rotation in any RoPE layer (what layer 0's "without positions" does, carried
    // through the whole pass).
    bool withPositions = true;
    // Shifted, scaled or other RoPE parameters; refused together with withPositions false.
    PositionAblation positions;
    int threads = 0; // 0: one per hardware thread
    // Called after the embedding layer (0) and after each block run (1 .. layers, or up to
    // attentionLayer + 1 when the pass stops there), with the total (layers + 1, or
    // attentionLayer + 2).
    std::function<void(qint64 done, qint64 total)> progress;
    // Set from any thread to stop between layers (run() then fails, saying it was cancelled).
    const std::atomic<bool> *cancel = nullptr;
};

struct ForwardResult
{
    LayerZeroArray attentions;   // {layers, heads, tokens, tokens}
    LayerZeroArray hiddenStates; // {layers + 1, tokens, hidden}; the last after the final norm
    LayerZeroArray prenorm;      // {tokens, hidden}: the last block's output
    LayerZeroArray logits;       // {tokens, vocabulary}
    LayerZeroArray queries;      // {layers, heads, tokens, headDim} (queriesKeys)
    LayerZeroArray keys;         // {layers, kvHeads, tokens, headDim} (queriesKeys)
    QStringList warnings;        // non-finite weights, by tensor name
};

class ForwardPass
{
public:
    // Opens `model` (a model folder, its config.json or .safetensors, or a cached repo id) and
    // checks, before any computation, that every tensor of every layer is there (every shard
    // opens) with the shape config.json implies in a type pescope reads. Null with one sentence
    // in *error naming the file, tensor, key or architecture at fault.
    static std::unique_ptr<ForwardPass> open(const QString &model, QString *error);
    ~ForwardPass();
    ForwardPass(const ForwardPass &) = delete;
    ForwardPass &operator=(const ForwardPass &) = delete;

    QString architecture() const;
    QString modelType() const;
    qint64 layers() const;
    qint64 heads() const;
    qint64 kvHeads() const;
    qint64 headDim() const;
    // The values of each head the rotary embedding turns (0 without RoPE), and their layout:
    // GPT-J's interleaved pairs (2i, 2i + 1) or rotate_half's (i, i + n/2).
    qint64 rotaryDims() const;
    bool interleavedRotary() const;
    bool causal() const;
    qint64 hiddenSize() const;
    qint64 vocabularyRows() const;
    qint64 outputRows() const; // rows of the output matrix: the logits' columns
    qint64 maxTokens() const;

    // Empty when `ablation` applies to this model for `tokens` tokens; otherwise one sentence
    // naming the value at fault (a negative shift, a shift past a learned table's rows, a scale
    // or base that is not a finite number > 0, a scale of a learned table, a rule transformers
    // would not compute, RoPE parameters for a model without RoPE). run() checks it first.
    QString ablationProblem(const PositionAblation &ablation, qint64 tokens) const;

    std::optional<ForwardResult> run(std::span<const int> ids, const ForwardOptions &options,
                                     QString *error);

private:
    ForwardPass();

    struct Data;
    std::unique_ptr<Data> d;
};

} // namespace pe
