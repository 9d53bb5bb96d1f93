// LayerZeroPlan: what Hugging Face transformers (v5) computes in a model's embedding layer and in
// layer 0's attention up to its probabilities, read from config.json: which tensors, which norm
// with which eps, how q and k are laid out in the checkpoint, how scores are scaled, masked and
// positioned. One plan per architecture family; the computation (embeddinglayer.h,
// layerzeroattention.h) follows the plan and knows no model_type.
#pragma once

#include "formats/modelconfig.h"
#include "rope/ropeconfig.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace pe {

// How the embedding layer builds hidden_states[0].
enum class EmbeddingKind {
    Plain,  // the token row (Llama, Mistral, Qwen, Phi-3, GPT-NeoX's embed_in)
    Scaled, // the token row times sqrt(hidden_size) in the model's dtype (Gemma 1-3)
    Gpt2,   // wte[id] + wpe[p] (GPT2Model.forward)
    Opt,    // project_in(embed_tokens[id]) + embed_positions[p + 2] (OPTDecoder.forward)
    Bert,   // LayerNorm(word[id] + token_type[0] + position[p]) (BertEmbeddings.forward)
};

// The norm in front of the attention (or, for q_norm / k_norm, over each head).
enum class NormKind {
    None,         // BERT (post-norm) and OPT with do_layer_norm_before = false
    LayerNorm,    // torch.nn.LayerNorm: (x - mean) / sqrt(var + eps) * weight + bias
    RmsNorm,      // LlamaRMSNorm: weight * (x / sqrt(mean(x^2) + eps))
    GemmaRmsNorm, // GemmaRMSNorm: (x / sqrt(mean(x^2) + eps)) * (1 + weight)
};

// How the checkpoint stores the query and key projections.
enum class QkvLayout {
    Separate,    // q_proj / k_proj (nn.Linear: out x in), each with an optional bias
    Conv1dFused, // GPT-2's c_attn: Conv1D weight in x 3*hidden (transposed vs Linear), [q | k | v]
    NeoxPerHead, // GPT-NeoX's query_key_value: Linear 3*hidden x in, rows [q_h | k_h | v_h] per
                 // head
    Stacked,     // Phi-3's qkv_proj: Linear rows [all q heads | all k heads | all v heads]
};

// Where the scale of the scores is applied (the float result differs by rounding only; pescope
// applies it where transformers does).
enum class ScoreScaling {
    MultiplyScores, // eager_attention_forward: matmul(q, k^T) * scaling
    DivideScores,   // GPT-2's eager_attention_forward: matmul(q, k^T) / sqrt(head_dim)
    MultiplyQuery,  // OPTAttention: q_proj(x) * scaling, then scores unscaled
};

struct LayerZeroPlan
{
    QString modelType;    // "llama", "gemma3_text", ...
    QString architecture; // "LlamaForCausalLM" (architectures[0]), or model_type when absent
    QString source;       // config.json, for messages

    qint64 hiddenSize = 0;
    qint64 heads = 0;
    qint64 kvHeads = 0;
    qint64 headDim = 0;
    qint64 embedDim = 0; // columns of the token table (OPT: word_embed_proj_dim)

    // --- the embedding layer ---
    EmbeddingKind embedding = EmbeddingKind::Plain;
    bool learnedPositions = false; // a position table is added (GPT-2, OPT, BERT, RoBERTa)
    qint64 positionOffset = 0;     // table row of position 0: OPT 2
    // RoBERTa: position ids from create_position_ids_from_input_ids (padding_idx + running count
    // of non-padding tokens; padding tokens get padding_idx).
    bool paddingPositions = false;
    qint64 paddingIdx = 0;
    qint64 maxPositions = 0; // positions the table addresses (0: no table)
    double embeddingEps = 0; // BERT's embeddings.LayerNorm
    // The dtype transformers v5 loads the model in by default (dtype="auto"): config.json's dtype
    // (torch_dtype), else the token table's stored type. The embedding stage rounds to it.
    QString dtype;

    // --- layer 0's attention ---
    NormKind inputNorm = NormKind::None;
    double normEps = 0;
    QkvLayout layout = QkvLayout::Separate;
    bool qkBias = false;
    NormKind headNorm = NormKind::None; // Qwen3 (RmsNorm), Gemma 3 (GemmaRmsNorm)
    ScoreScaling scalingKind = ScoreScaling::MultiplyScores;
    double scaling = 1.0; // the factor (DivideScores: the divisor)
    double softcap = 0;   // Gemma 2's attn_logit_softcapping; 0 = none
    bool causal = true;
    qint64 window = 0; // sliding window in tokens: key j is seen from query i when i - j < window
    LayerPosition layer;
    RopeConfig rope;        // layer.position == Rope
    qint64 ropeHeadDim = 0; // the head_dim the rotary tables are computed for

    // --- tensor names, relative to the checkpoint's prefix ("model.", "transformer.", ...) ---
    QString embedTensor;
    QString positionTensor;
    QString tokenTypeTensor;
    QString embedNormPrefix; // BERT's "embeddings.LayerNorm" (.weight/.bias, or .gamma/.beta)
    QString projectInTensor; // OPT when word_embed_proj_dim != hidden_size
    QString normPrefix;      // "layers.0.input_layernorm" (.weight, .bias for LayerNorm)
    bool normAffine = true;  // OPT's layer_norm_elementwise_affine
    QString qTensor;         // Separate: q_proj; fused layouts: the fused tensor
    QString kTensor;         // Separate only
    QString qNormTensor;
    QString kNormTensor;
    // A GGUF file of llama.cpp's llama architecture: q / k rows in the converter's rotary
    // permutation, put back on reading (ggufmodel.h).
    bool ggufRopePermuted = false;

    QString quantization; // quantization_config.quant_method, for messages about missing tensors
};

// The plan for layer `layer` of the model whose config.json is `json` (already parsed into
// `config`). Fails, with one sentence naming the architecture or the key, for architectures
// outside GPT-2, GPT-NeoX, OPT, BERT, RoBERTa, Llama, Mistral, Qwen2, Qwen3, Gemma 1-3, Phi-3,
// SmolLM3,
// for a layer other than 0, and for settings that change layer 0 in ways pescope does not compute.
std::optional<LayerZeroPlan> layerZeroPlan(const QJsonObject &json, const ModelConfig &config,
                                           int layer, QString *error);

} // namespace pe
