// LayerZero: a model folder's embedding layer and layer 0's attention for a phrase's token ids,
// computed as Hugging Face transformers (v5) computes them: the embedding output exactly as
// `hidden_states[0]`, and layer 0's attention probabilities per head as its eager attention
// gives them in float32 (`attentions[0]`). With or without the model's positions, so that what
// positions change can be shown. Reads config.json and the safetensors weights (one file or
// shards, memory-mapped): layer 0's query / key projections once, and per phrase only its rows of
// the token and position tables. Not for concurrent use: one thread at a time.
//
// Architectures (config.json's model_type): gpt2, gpt_neox, opt, bert, roberta, llama, mistral,
// qwen2, qwen3, gemma, gemma2, gemma3 / gemma3_text, phi3. Others are refused by name.
//
// Precision: the embedding output is computed in the dtype transformers v5 loads the model in by
// default (dtype="auto": config.json's dtype, else the stored one), so its sums and Gemma's
// sqrt(hidden) scale round as transformers rounds them (float32 models: float32). The attention
// is always computed in float32 from that output, as transformers does with dtype=float32 (a
// bfloat16 model run in bfloat16 differs from it by bfloat16's rounding).
#pragma once

#include "formats/modelconfig.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace pe {

namespace limits {
// The longest phrase layer 0 is computed for (fewer where a model's position table is shorter).
constexpr qint64 maxLayerZeroTokens = 4096;
// Largest attention result held (heads x tokens x tokens float32 values: 1 GiB), and largest
// intermediate (tokens x hidden, tokens x query and key dims).
constexpr qint64 maxLayerZeroAttentionValues = qint64(1) << 28;
} // namespace limits

// A float32 array in C order: embeddings are {tokens, hidden}, attention {heads, tokens, tokens}.
struct LayerZeroArray
{
    std::vector<qint64> shape;
    std::vector<float> values;
    // When some values are NaN or infinite: why, naming the tensors that hold NaN or infinite
    // values ("model.embed_tokens.weight holds NaN or infinite values in the rows of token ids
    // 5, 17"). Such values are never data: callers say so (stderr, the window's figure).
    QStringList warnings;
};

class LayerZero
{
public:
    // Opens `model` (a model folder, its config.json or .safetensors, or a cached repo id) for
    // layer `layer`, which must be 0. Null with one sentence in *error naming the file, tensor,
    // key or architecture at fault.
    static std::unique_ptr<LayerZero> open(const QString &model, QString *error, int layer = 0);
    ~LayerZero();
    LayerZero(const LayerZero &) = delete;
    LayerZero &operator=(const LayerZero &) = delete;

    QString architecture() const; // "LlamaForCausalLM"
    QString modelType() const;    // "llama"
    qint64 hiddenSize() const;
    qint64 heads() const;
    qint64 vocabularyRows() const; // rows of the token table: ids must be below it
    // The longest phrase accepted: limits::maxLayerZeroTokens, or fewer when the model's
    // position table holds fewer positions (GPT-2: 1024, BERT: 512).
    qint64 maxTokens() const;
    // How layer 0 knows positions: Rope, NoPE, or Absolute (a table added at the input).
    LayerPositionKind positionKind() const;
    // "RoPE (default, θ 10,000) on 16 of 16 dims per head", "learned table wpe.weight", ...
    QString positionsText() const;

    // hidden_states[0] for `ids`: {tokens, hidden}. Without positions: the same without the
    // position table (RoPE models: identical either way).
    std::optional<LayerZeroArray> embeddings(std::span<const int> ids, bool withPositions,
                                             QString *error);
    // Layer 0's attention probabilities for `ids`: {heads, tokens, tokens}, row i the weights
    // query i gives keys j. Without positions: RoPE layers leave q and k unrotated (NoPE),
    // absolute models start from embeddings without their position table.
    std::optional<LayerZeroArray> attention(std::span<const int> ids, bool withPositions,
                                            QString *error);

private:
    LayerZero();
    bool checkIds(std::span<const int> ids, QString *error) const;
    // LayerZeroArray::warnings for a result of `ids` that holds non-finite values.
    QStringList nonFiniteCauses(std::span<const int> ids, bool withPositions);
    struct Data;
    std::unique_ptr<Data> d;
};

} // namespace pe
