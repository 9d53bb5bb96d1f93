// ForwardPlan: what transformers' eager forward computes in every layer of a model after the
// embedding layer, read from config.json: the layer-0 plan (embedding, attention layout, scaling,
// head norms) extended by what the rest of the pass needs: the MLP and its activation, the
// residual order, each layer's own positions and window, the final norm and the output matrix.
// One plan per architecture family; the computation (forwardpass.h) follows the plan and knows
// no model_type.
#pragma once

#include "model/layerzeroplan.h"

#include <QJsonObject>
#include <QString>

#include <optional>
#include <vector>

namespace pe {

// The MLP of a block.
enum class MlpKind {
    Plain, // fc_out(act(fc_in(x))): GPT-2 (c_fc / c_proj), GPT-NeoX, OPT (fc1 / fc2)
    Gated, // down(act(gate(x)) * up(x)): Llama, Mistral, Qwen, Gemma, Phi-3 (gate_up fused)
};

// The activation function, as transformers' ACT2FN names it.
enum class Activation {
    GeluTanh,  // gelu_new, gelu_pytorch_tanh, gelu_fast: 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715
               // x^3)))
    GeluExact, // gelu: 0.5 x (1 + erf(x / sqrt 2))
    Silu,      // silu / swish: x sigmoid(x)
    Relu,      // relu
};

// How a block combines its attention and MLP with the residual stream.
enum class ResidualOrder {
    Sequential, // h = x + attn(n1(x)); out = h + mlp(n2(h))              (GPT-2, Llama, ...)
    Parallel,   // out = (mlp(n2(x)) + attn(n1(x))) + x                  (GPT-NeoX parallel)
    Sandwich,   // h = x + n3(attn(n1(x))); out = h + n4(mlp(n2(h)))     (Gemma 2 / 3)
    PostNorm,   // h = n3(attn(x) + x); out = n4(mlp(h) + h)              (BERT, RoBERTa)
};

// A linear map's tensor: `name` (relative to the checkpoint's prefix, "%1" the layer index),
// stored as nn.Linear (out x in) or as GPT-2's Conv1D (in x out).
struct LinearTensor
{
    QString name; // without ".weight"; empty: absent
    bool bias = false;
    bool conv1d = false;
};

// What differs from layer to layer: positions, window, the RoPE parameters.
struct ForwardLayer
{
    LayerPosition layer;
    qint64 window = 0; // sliding window in tokens, 0: full
    RopeConfig rope;   // layer.position == Rope
    qint64 ropeHeadDim = 0;
};

struct ForwardPlan
{
    LayerZeroPlan base; // the embedding layer and the attention settings common to all layers
    qint64 layers = 0;
    qint64 intermediate = 0;
    std::vector<ForwardLayer> perLayer;

    NormKind norm = NormKind::None; // the kind of the blocks' norms
    double normEps = 0;

    // --- tensor names; "%1" stands for the layer index ---
    QString attnNorm;     // in front of the attention; empty: none (post-norm)
    QString mlpNorm;      // in front of the MLP
    QString postAttnNorm; // Sandwich, PostNorm: on the attention's output (PostNorm: plus x)
    QString postMlpNorm;  // Sandwich, PostNorm: on the MLP's output (PostNorm: plus h)
    LinearTensor query, key, value; // Separate layout; fused layouts: query names the fused one
    LinearTensor output;            // o_proj / c_proj / dense
    LinearTensor fcIn, fcOut;       // Plain MLP
    LinearTensor gate, up, down;    // Gated MLP; gateUpFused: gate names the fused [gate | up]
    bool gateUpFused = false;       // Phi-3's gate_up_proj
    // Qwen3 / Gemma 3's q / k norms (base.headNorm)
    QString queryNorm = QStringLiteral("layers.%1.self_attn.q_norm.weight");
    QString keyNorm = QStringLiteral("layers.%1.self_attn.k_norm.weight");
    bool valueBias = false;

    MlpKind mlp = MlpKind::Gated;
    Activation activation = Activation::Silu;
    ResidualOrder residual = ResidualOrder::Sequential;

    NormKind finalNorm = NormKind::None;
    QString finalNormName; // "norm", "ln_f", "final_layer_norm" (relative to the prefix)
    // The output matrix (vocab x hidden), at the checkpoint's root ("lm_head.weight",
    // "embed_out.weight"); tied: the token table. Empty and not tied: no logits (BERT).
    QString lmHead;
    bool tied = false;
    double finalSoftcap = 0;            // Gemma 2's final_logit_softcapping; 0 = none
    bool gpt2InverseLayerScale = false; // scale_attn_by_inverse_layer_idx
};

// The plan for every layer of the model whose config.json is `json`. Fails, with one sentence
// naming the architecture or key, where layerZeroPlan() fails and for architectures or settings
// whose later layers pescope does not compute.
std::optional<ForwardPlan> forwardPlan(const QJsonObject &json, const ModelConfig &config,
                                       QString *error);

// The layer-0 style attention plan of layer `index` (its positions, window, RoPE parameters).
LayerZeroPlan layerAttentionPlan(const ForwardPlan &plan, qint64 index);

} // namespace pe
