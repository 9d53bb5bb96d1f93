#include "model/forwardplan.h"

#include "model/configkeys.h"
#include "model/modelspec.h"

#include <cmath>

namespace pe {

namespace {

// ACT2FN's name of `key` (or the first of two keys present) as an Activation.
bool activation(ConfigKeys &keys, const char *key, const char *alternative, const QString &fallback,
                Activation *out)
{
    QString name;
    if (!keys.text(key, QString(), &name) ||
        (name.isEmpty() && !keys.text(alternative, fallback, &name)))
        return false;
    if (name == QLatin1String("gelu_new") || name == QLatin1String("gelu_pytorch_tanh") ||
        name == QLatin1String("gelu_fast"))
        *out = Activation::GeluTanh;
    else if (name == QLatin1String("gelu"))
        *out = Activation::GeluExact;
    else if (name == QLatin1String("silu") || name == QLatin1String("swish"))
        *out = Activation::Silu;
    else if (name == QLatin1String("relu"))
        *out = Activation::Relu;
    else
        return keys.fail(QStringLiteral("activation %1 is not one pescope computes (gelu, "
                                        "gelu_new, gelu_pytorch_tanh, gelu_fast, silu, relu)")
                             .arg(name));
    return true;
}

LinearTensor linear(const QString &name, bool bias, bool conv1d = false)
{
    return LinearTensor{name, bias, conv1d};
}

// GPT2Block: ln_1, attn (c_attn, c_proj: Conv1D), ln_2, mlp (c_fc, c_proj), ln_f, lm_head tied
// to wte unless tie_word_embeddings is false.
bool gpt2Layers(ConfigKeys &keys, ForwardPlan *p)
{
    p->attnNorm = QStringLiteral("h.%1.ln_1");
    p->mlpNorm = QStringLiteral("h.%1.ln_2");
    p->query = linear(QStringLiteral("h.%1.attn.c_attn"), true, true);
    p->valueBias = true;
    p->output = linear(QStringLiteral("h.%1.attn.c_proj"), true, true);
    p->mlp = MlpKind::Plain;
    p->fcIn = linear(QStringLiteral("h.%1.mlp.c_fc"), true, true);
    p->fcOut = linear(QStringLiteral("h.%1.mlp.c_proj"), true, true);
    p->finalNorm = NormKind::LayerNorm;
    p->finalNormName = QStringLiteral("ln_f");
    p->lmHead = QStringLiteral("lm_head.weight");
    bool reorder = false;
    return keys.count("n_inner", 4 * p->base.hiddenSize, &p->intermediate) &&
           activation(keys, "activation_function", "activation_function",
                      QStringLiteral("gelu_new"), &p->activation) &&
           keys.boolean("tie_word_embeddings", true, &p->tied) &&
           keys.boolean("scale_attn_by_inverse_layer_idx", false, &p->gpt2InverseLayerScale) &&
           keys.boolean("reorder_and_upcast_attn", false, &reorder);
}

// GPTNeoXLayer: input_layernorm, attention (query_key_value, dense), post_attention_layernorm,
// mlp (dense_h_to_4h, dense_4h_to_h), parallel or sequential residual, final_layer_norm,
// embed_out.
bool neoxLayers(ConfigKeys &keys, ForwardPlan *p)
{
    const bool bias = p->base.qkBias; // attention_bias
    p->attnNorm = QStringLiteral("layers.%1.input_layernorm");
    p->mlpNorm = QStringLiteral("layers.%1.post_attention_layernorm");
    p->query = linear(QStringLiteral("layers.%1.attention.query_key_value"), bias);
    p->valueBias = bias;
    p->output = linear(QStringLiteral("layers.%1.attention.dense"), bias);
    p->mlp = MlpKind::Plain;
    p->fcIn = linear(QStringLiteral("layers.%1.mlp.dense_h_to_4h"), true);
    p->fcOut = linear(QStringLiteral("layers.%1.mlp.dense_4h_to_h"), true);
    p->finalNorm = NormKind::LayerNorm;
    p->finalNormName = QStringLiteral("final_layer_norm");
    p->lmHead = QStringLiteral("embed_out.weight");
    bool parallel = true;
    if (!keys.count("intermediate_size", 4 * p->base.hiddenSize, &p->intermediate) ||
        !activation(keys, "hidden_act", "hidden_act", QStringLiteral("gelu"), &p->activation) ||
        !keys.boolean("tie_word_embeddings", false, &p->tied) ||
        !keys.boolean("use_parallel_residual", true, &parallel))
        return false;
    p->residual = parallel ? ResidualOrder::Parallel : ResidualOrder::Sequential;
    return true;
}

// LlamaDecoderLayer and the layers built like it: input_layernorm, self_attn (q/k/v/o_proj;
// Phi-3: qkv_proj), post_attention_layernorm, mlp (gate/up/down_proj; Phi-3: gate_up_proj),
// norm, lm_head. Gemma 2 / 3 add the post-attention and pre/post-feedforward norms; SmolLM3's
// NoPE layers (no_rope_layers) come with the layer map.
bool llamaLayers(ConfigKeys &keys, ForwardPlan *p)
{
    const QString &type = p->base.modelType;
    const bool gemma = type.startsWith(QLatin1String("gemma"));
    const bool qkBias = p->base.qkBias;
    // Bias of o_proj: attention_bias (Llama, Qwen3, Gemma); none in Mistral, Qwen2, Phi-3.
    const bool outBias = qkBias && type != QLatin1String("qwen2");
    bool mlpBias = false;
    const bool smol = type == QLatin1String("smollm3");
    if ((type == QLatin1String("llama") || smol) && !keys.boolean("mlp_bias", false, &mlpBias))
        return false;
    const QString attn = QStringLiteral("layers.%1.self_attn.");
    const QString mlp = QStringLiteral("layers.%1.mlp.");
    p->attnNorm = QStringLiteral("layers.%1.input_layernorm");
    p->mlpNorm = QStringLiteral("layers.%1.post_attention_layernorm");
    if (type == QLatin1String("phi3")) {
        p->query = linear(attn + QLatin1String("qkv_proj"), false);
        p->gate = linear(mlp + QLatin1String("gate_up_proj"), false);
        p->gateUpFused = true;
    } else {
        p->query = linear(attn + QLatin1String("q_proj"), qkBias);
        p->key = linear(attn + QLatin1String("k_proj"), qkBias);
        p->value = linear(attn + QLatin1String("v_proj"), qkBias);
        p->gate = linear(mlp + QLatin1String("gate_proj"), mlpBias);
        p->up = linear(mlp + QLatin1String("up_proj"), mlpBias);
    }
    p->valueBias = qkBias;
    p->output = linear(attn + QLatin1String("o_proj"), outBias);
    p->down = linear(mlp + QLatin1String("down_proj"), mlpBias);
    p->mlp = MlpKind::Gated;
    if (type == QLatin1String("gemma2") || type == QLatin1String("gemma3_text")) {
        p->residual = ResidualOrder::Sandwich;
        p->postAttnNorm = p->mlpNorm;
        p->mlpNorm = QStringLiteral("layers.%1.pre_feedforward_layernorm");
        p->postMlpNorm = QStringLiteral("layers.%1.post_feedforward_layernorm");
    }
    p->finalNorm = p->base.inputNorm;
    p->finalNormName = QStringLiteral("norm");
    p->lmHead = QStringLiteral("lm_head.weight");
    if (type == QLatin1String("gemma2") &&
        !keys.nonNegative("final_logit_softcapping", 30.0, &p->finalSoftcap))
        return false;
    if (type == QLatin1String("gemma3_text") &&
        !keys.nonNegative("final_logit_softcapping", 0.0, &p->finalSoftcap))
        return false;
    return keys.count("intermediate_size", 0, &p->intermediate) &&
           // GemmaMLP / Gemma2MLP / Gemma3MLP: ACT2FN[hidden_activation], gelu_pytorch_tanh
           // when it is None; hidden_act is ignored (Gemma 1 checkpoints say "gelu" there).
           activation(keys, gemma ? "hidden_activation" : "hidden_act",
                      gemma ? "hidden_activation" : "hidden_act",
                      gemma ? QStringLiteral("gelu_pytorch_tanh") : QStringLiteral("silu"),
                      &p->activation) &&
           keys.boolean("tie_word_embeddings", gemma || smol, &p->tied); // SmolLM3Config: True
}

// OPTDecoderLayer (do_layer_norm_before): self_attn_layer_norm, self_attn (q/k/v/out_proj,
// q scaled), final_layer_norm, fc1, activation_function, fc2; decoder.final_layer_norm; lm_head
// tied to embed_tokens. OPT-350m's post-norm and project_in / project_out are refused.
bool optLayers(ConfigKeys &keys, ForwardPlan *p)
{
    const LayerZeroPlan &b = p->base;
    if (b.inputNorm == NormKind::None || !b.normAffine || b.embedDim != b.hiddenSize)
        return keys.fail(QStringLiteral("OPT with do_layer_norm_before false, without affine "
                                        "norms or with word_embed_proj_dim != hidden_size "
                                        "(OPT-350m): pescope computes layer 0 of it but not the "
                                        "whole forward pass"));
    const bool bias = b.qkBias; // enable_bias
    const QString attn = QStringLiteral("decoder.layers.%1.self_attn.");
    p->attnNorm = QStringLiteral("decoder.layers.%1.self_attn_layer_norm");
    p->mlpNorm = QStringLiteral("decoder.layers.%1.final_layer_norm");
    p->query = linear(attn + QLatin1String("q_proj"), bias);
    p->key = linear(attn + QLatin1String("k_proj"), bias);
    p->value = linear(attn + QLatin1String("v_proj"), bias);
    p->valueBias = bias;
    p->output = linear(attn + QLatin1String("out_proj"), bias);
    p->mlp = MlpKind::Plain;
    p->fcIn = linear(QStringLiteral("decoder.layers.%1.fc1"), bias);
    p->fcOut = linear(QStringLiteral("decoder.layers.%1.fc2"), bias);
    p->finalNorm = NormKind::LayerNorm;
    p->finalNormName = QStringLiteral("decoder.final_layer_norm");
    p->lmHead = QStringLiteral("lm_head.weight");
    bool removeFinal = false;
    if (!keys.boolean("_remove_final_layer_norm", false, &removeFinal))
        return false;
    if (removeFinal)
        p->finalNorm = NormKind::None;
    return keys.count("ffn_dim", 4 * b.hiddenSize, &p->intermediate) &&
           activation(keys, "activation_function", "activation_function", QStringLiteral("relu"),
                      &p->activation) &&
           keys.boolean("tie_word_embeddings", true, &p->tied);
}

// BertLayer / RobertaLayer: self-attention (query/key/value), BertSelfOutput (dense, then
// LayerNorm(h + x)), BertIntermediate (dense, hidden_act), BertOutput (dense, LayerNorm(h + a)).
// No final norm; the encoder has no output matrix here (no logits).
bool bertLayers(ConfigKeys &keys, ForwardPlan *p)
{
    const QString layer = QStringLiteral("encoder.layer.%1.");
    p->norm = NormKind::LayerNorm;
    p->normEps = p->base.embeddingEps; // layer_norm_eps
    p->attnNorm.clear();
    p->mlpNorm.clear();
    p->residual = ResidualOrder::PostNorm;
    p->postAttnNorm = layer + QLatin1String("attention.output.LayerNorm");
    p->postMlpNorm = layer + QLatin1String("output.LayerNorm");
    p->query = linear(layer + QLatin1String("attention.self.query"), true);
    p->key = linear(layer + QLatin1String("attention.self.key"), true);
    p->value = linear(layer + QLatin1String("attention.self.value"), true);
    p->valueBias = true;
    p->output = linear(layer + QLatin1String("attention.output.dense"), true);
    p->mlp = MlpKind::Plain;
    p->fcIn = linear(layer + QLatin1String("intermediate.dense"), true);
    p->fcOut = linear(layer + QLatin1String("output.dense"), true);
    p->finalNorm = NormKind::None;
    return keys.count("intermediate_size", 4 * p->base.hiddenSize, &p->intermediate) &&
           activation(keys, "hidden_act", "hidden_act", QStringLiteral("gelu"), &p->activation);
}

// Each layer's positions, window and RoPE parameters from the config's layer map.
bool perLayerPlan(const ModelConfig &config, ForwardPlan *p, QString *error)
{
    p->perLayer.resize(std::size_t(p->layers));
    for (qint64 i = 0; i < p->layers; ++i) {
        ForwardLayer &f = p->perLayer[std::size_t(i)];
        f.layer = config.layers[std::size_t(i)];
        if (f.layer.attention == AttentionKind::SlidingWindow)
            f.window = f.layer.window;
        else if (f.layer.attention != AttentionKind::Full) {
            *error = QStringLiteral("%1: layer %2 has %3 attention (%4), which pescope does not "
                                    "compute")
                         .arg(config.source)
                         .arg(i)
                         .arg(attentionKindName(f.layer.attention), f.layer.layerType);
            return false;
        }
        if (f.layer.position != LayerPositionKind::Rope)
            continue;
        const std::optional<ModelLayerSpec> spec = modelLayerSpec(config, int(i), error);
        if (!spec)
            return false;
        const RopeScheme *rope = spec->spec.get<RopeScheme>();
        if (!rope) {
            *error = QStringLiteral("%1: layer %2's RoPE parameters could not be read")
                         .arg(config.source)
                         .arg(i);
            return false;
        }
        f.rope = *rope;
        f.ropeHeadDim = spec->spec.dims;
    }
    return true;
}

} // namespace

std::optional<ForwardPlan> forwardPlan(const QJsonObject &json, const ModelConfig &config,
                                       QString *error)
{
    std::optional<LayerZeroPlan> base = layerZeroPlan(json, config, 0, error);
    if (!base)
        return std::nullopt;
    ForwardPlan p;
    p.base = std::move(*base);
    p.layers = qint64(config.layers.size());
    if (p.layers < 1 || p.layers != config.numHiddenLayers) {
        *error = QStringLiteral("%1: num_hidden_layers %2 does not match its layer map (%3 layers)")
                     .arg(config.source)
                     .arg(config.numHiddenLayers)
                     .arg(p.layers);
        return std::nullopt;
    }
    const QJsonObject part = config.wrapperModelType.isEmpty()
                                 ? json
                                 : json.value(QLatin1String("text_config")).toObject();
    ConfigKeys keys(part, config.source, error);
    const QString &type = p.base.modelType;
    p.norm = p.base.inputNorm;
    p.normEps = p.base.normEps;
    bool ok = false;
    if (type == QLatin1String("opt"))
        ok = optLayers(keys, &p);
    else if (type == QLatin1String("bert") || type == QLatin1String("roberta"))
        ok = bertLayers(keys, &p);
    else if (type == QLatin1String("gpt2"))
        ok = gpt2Layers(keys, &p);
    else if (type == QLatin1String("gpt_neox"))
        ok = neoxLayers(keys, &p);
    else if (type == QLatin1String("llama") || type == QLatin1String("mistral") ||
             type == QLatin1String("qwen2") || type == QLatin1String("qwen3") ||
             type == QLatin1String("gemma") || type == QLatin1String("gemma2") ||
             type == QLatin1String("gemma3_text") || type == QLatin1String("phi3") ||
             type == QLatin1String("smollm3"))
        ok = llamaLayers(keys, &p);
    else
        keys.fail(QStringLiteral("%1 (model_type %2): pescope computes layer 0 of it but not "
                                 "yet the whole forward pass (it does for GPT-2, GPT-NeoX, OPT, "
                                 "BERT, RoBERTa, Llama, Mistral, Qwen2, Qwen3, Gemma 1-3, "
                                 "Phi-3 and SmolLM3)")
                      .arg(p.base.architecture, type));
    if (ok && p.intermediate < 1)
        ok = keys.fail(QStringLiteral("intermediate_size is missing"));
    if (!ok)
        return std::nullopt;
    if (!perLayerPlan(config, &p, error))
        return std::nullopt;
    return p;
}

LayerZeroPlan layerAttentionPlan(const ForwardPlan &plan, qint64 index)
{
    LayerZeroPlan out = plan.base;
    const ForwardLayer &f = plan.perLayer[std::size_t(index)];
    out.layer = f.layer;
    out.window = f.window;
    out.rope = f.rope;
    out.ropeHeadDim = f.ropeHeadDim;
    if (plan.gpt2InverseLayerScale) // GPT2Attention: attn_weights / float(layer_idx + 1)
        out.scaling *= double(index + 1);
    return out;
}

} // namespace pe
