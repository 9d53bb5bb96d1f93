#include "model/layerzeroplan.h"

#include "model/configkeys.h"
#include "model/modelspec.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

const QStringList &supportedTypes()
{
    static const QStringList types = {
        QStringLiteral("gpt2"),    QStringLiteral("gpt_neox"), QStringLiteral("opt"),
        QStringLiteral("bert"),    QStringLiteral("roberta"),  QStringLiteral("llama"),
        QStringLiteral("mistral"), QStringLiteral("qwen2"),    QStringLiteral("qwen3"),
        QStringLiteral("gemma"),   QStringLiteral("gemma2"),   QStringLiteral("gemma3_text"),
        QStringLiteral("phi3"),    QStringLiteral("smollm3"),
    };
    return types;
}

// GPT2Model / GPT2Attention: wte + wpe, ln_1, fused Conv1D c_attn, scores / sqrt(head_dim).
bool gpt2Plan(ConfigKeys &keys, LayerZeroPlan *p)
{
    p->embedding = EmbeddingKind::Gpt2;
    p->embedTensor = QStringLiteral("wte.weight");
    p->positionTensor = QStringLiteral("wpe.weight");
    p->inputNorm = NormKind::LayerNorm;
    p->normPrefix = QStringLiteral("h.0.ln_1");
    p->layout = QkvLayout::Conv1dFused;
    p->qTensor = QStringLiteral("h.0.attn.c_attn");
    p->qkBias = true;
    bool scale = true;
    if (!keys.epsilon("layer_norm_epsilon", 1e-5, &p->normEps) ||
        !keys.boolean("scale_attn_weights", true, &scale))
        return false;
    // scale_attn_by_inverse_layer_idx divides by layer_idx + 1: 1 in layer 0.
    p->scalingKind = ScoreScaling::DivideScores;
    p->scaling = scale ? std::sqrt(double(p->headDim)) : 1.0;
    return true;
}

// OPTDecoder / OPTDecoderLayer / OPTAttention: project_in, the learned table from row 2, the
// pre-attention LayerNorm (eps 1e-5, nn.LayerNorm's default) unless do_layer_norm_before is
// false, q_proj(x) * head_dim^-0.5.
bool optPlan(ConfigKeys &keys, LayerZeroPlan *p)
{
    p->embedding = EmbeddingKind::Opt;
    p->embedTensor = QStringLiteral("decoder.embed_tokens.weight");
    p->positionTensor = QStringLiteral("decoder.embed_positions.weight");
    p->positionOffset = 2; // OPTLearnedPositionalEmbedding.offset
    bool before = true, affine = true, bias = true;
    double projDim = 0;
    if (!keys.boolean("do_layer_norm_before", true, &before) ||
        !keys.boolean("layer_norm_elementwise_affine", true, &affine) ||
        !keys.boolean("enable_bias", true, &bias) ||
        !keys.real("word_embed_proj_dim", double(p->hiddenSize), &projDim))
        return false;
    if (projDim < 1 || projDim != std::floor(projDim) || projDim > double(1 << 20))
        return keys.fail(QStringLiteral("word_embed_proj_dim must be a positive whole number"));
    p->embedDim = qint64(projDim);
    if (p->embedDim != p->hiddenSize)
        p->projectInTensor = QStringLiteral("decoder.project_in.weight");
    p->inputNorm = before ? NormKind::LayerNorm : NormKind::None;
    p->normEps = 1e-5;
    p->normAffine = affine;
    p->normPrefix = QStringLiteral("decoder.layers.0.self_attn_layer_norm");
    p->qTensor = QStringLiteral("decoder.layers.0.self_attn.q_proj");
    p->kTensor = QStringLiteral("decoder.layers.0.self_attn.k_proj");
    p->qkBias = bias;
    p->scalingKind = ScoreScaling::MultiplyQuery;
    p->scaling = 1.0 / std::sqrt(double(p->headDim));
    return true;
}

// BertEmbeddings / RobertaEmbeddings and BertSelfAttention: word + token type 0 + position, the
// embeddings' LayerNorm, no norm before layer 0's attention (post-norm), bidirectional.
bool bertPlan(ConfigKeys &keys, bool roberta, LayerZeroPlan *p)
{
    p->embedding = EmbeddingKind::Bert;
    p->embedTensor = QStringLiteral("embeddings.word_embeddings.weight");
    p->positionTensor = QStringLiteral("embeddings.position_embeddings.weight");
    p->tokenTypeTensor = QStringLiteral("embeddings.token_type_embeddings.weight");
    p->embedNormPrefix = QStringLiteral("embeddings.LayerNorm");
    QString positionType;
    if (!keys.epsilon("layer_norm_eps", 1e-12, &p->embeddingEps) ||
        !keys.text("position_embedding_type", QStringLiteral("absolute"), &positionType))
        return false;
    if (positionType != QLatin1String("absolute"))
        return keys.fail(QStringLiteral("position_embedding_type %1: pescope computes layer 0 "
                                        "only for absolute position embeddings")
                             .arg(positionType));
    if (roberta) {
        double pad = 1;
        if (!keys.real("pad_token_id", 1, &pad))
            return false;
        if (pad < 0 || pad != std::floor(pad) || pad > 1e9)
            return keys.fail(QStringLiteral("pad_token_id must be a whole number >= 0"));
        p->paddingPositions = true;
        p->paddingIdx = qint64(pad);
    }
    p->inputNorm = NormKind::None;
    p->qTensor = QStringLiteral("encoder.layer.0.attention.self.query");
    p->kTensor = QStringLiteral("encoder.layer.0.attention.self.key");
    p->qkBias = true;
    p->causal = false;
    p->scaling = 1.0 / std::sqrt(double(p->headDim));
    return true;
}

// GPTNeoXModel / GPTNeoXAttention: embed_in, input_layernorm, query_key_value per head.
bool neoxPlan(ConfigKeys &keys, LayerZeroPlan *p)
{
    p->embedTensor = QStringLiteral("embed_in.weight");
    p->inputNorm = NormKind::LayerNorm;
    p->normPrefix = QStringLiteral("layers.0.input_layernorm");
    p->layout = QkvLayout::NeoxPerHead;
    p->qTensor = QStringLiteral("layers.0.attention.query_key_value");
    p->scaling = 1.0 / std::sqrt(double(p->headDim));
    return keys.epsilon("layer_norm_eps", 1e-5, &p->normEps) &&
           keys.boolean("attention_bias", true, &p->qkBias);
}

// LlamaModel and the models built like it (Mistral, Qwen2, Qwen3, Gemma 1-3, Phi-3, SmolLM3):
// embed_tokens,
// input_layernorm (RMSNorm), q_proj / k_proj (Phi-3: qkv_proj), eager_attention_forward.
bool llamaPlan(ConfigKeys &keys, LayerZeroPlan *p)
{
    const QString &type = p->modelType;
    const bool gemma = type.startsWith(QLatin1String("gemma"));
    p->embedTensor = QStringLiteral("embed_tokens.weight");
    p->embedding = gemma ? EmbeddingKind::Scaled : EmbeddingKind::Plain;
    p->inputNorm = gemma ? NormKind::GemmaRmsNorm : NormKind::RmsNorm;
    p->normPrefix = QStringLiteral("layers.0.input_layernorm");
    p->qTensor = QStringLiteral("layers.0.self_attn.q_proj");
    p->kTensor = QStringLiteral("layers.0.self_attn.k_proj");
    if (!keys.epsilon("rms_norm_eps", type == QLatin1String("phi3") ? 1e-5 : 1e-6, &p->normEps))
        return false;
    if (type == QLatin1String("phi3")) {
        p->layout = QkvLayout::Stacked; // Phi3Attention: qkv_proj, bias=False
        p->qTensor = QStringLiteral("layers.0.self_attn.qkv_proj");
        p->kTensor.clear();
    } else if (type == QLatin1String("qwen2")) {
        p->qkBias = true;                          // Qwen2Attention: q/k/v_proj with bias=True
    } else if (type != QLatin1String("mistral") && // MistralAttention: bias=False
               !keys.boolean("attention_bias", false, &p->qkBias)) {
        return false;
    }
    if (type == QLatin1String("qwen3") || type == QLatin1String("gemma3_text")) {
        p->headNorm = gemma ? NormKind::GemmaRmsNorm : NormKind::RmsNorm;
        p->qNormTensor = QStringLiteral("layers.0.self_attn.q_norm.weight");
        p->kNormTensor = QStringLiteral("layers.0.self_attn.k_norm.weight");
    }
    p->scaling = 1.0 / std::sqrt(double(p->headDim));
    if (type == QLatin1String("gemma2") || type == QLatin1String("gemma3_text")) {
        // Gemma2Attention / Gemma3Attention: scaling = query_pre_attn_scalar**-0.5, and
        // tanh soft-capping of the scores when attn_logit_softcapping is set (Gemma2Config's
        // default 50.0; Gemma3TextConfig's None).
        double scalar = 256, cap = 0;
        if (!keys.real("query_pre_attn_scalar", 256, &scalar) ||
            !keys.real("attn_logit_softcapping", type == QLatin1String("gemma2") ? 50.0 : 0.0,
                       &cap))
            return false;
        if (scalar <= 0 || cap < 0)
            return keys.fail(QStringLiteral("query_pre_attn_scalar and attn_logit_softcapping "
                                            "must be positive"));
        p->scaling = 1.0 / std::sqrt(scalar);
        p->softcap = cap;
        bool bidirectional = false;
        if (!keys.boolean("use_bidirectional_attention", false, &bidirectional))
            return false;
        if (bidirectional)
            return keys.fail(QStringLiteral("use_bidirectional_attention (EmbeddingGemma) is not "
                                            "computed by pescope's layer 0"));
    }
    return true;
}

// The positions layer 0 uses: the config's layer map, and for RoPE the parameters pescope's
// rope module computes the tables from (modelLayerSpec, as `pescope data --config` reads them).
bool positionsPlan(const ModelConfig &config, LayerZeroPlan *p, QString *error)
{
    if (config.layers.empty()) {
        *error =
            QStringLiteral("%1 has no layer map (num_hidden_layers is missing)").arg(config.source);
        return false;
    }
    p->layer = config.layers.front();
    switch (p->layer.attention) {
    case AttentionKind::Full:
        break;
    case AttentionKind::SlidingWindow:
        p->window = p->layer.window;
        break;
    case AttentionKind::Chunked:
    case AttentionKind::Other:
        *error = QStringLiteral("%1: layer 0 has %2 attention (%3), which pescope does not compute")
                     .arg(config.source, attentionKindName(p->layer.attention), p->layer.layerType);
        return false;
    }
    if (p->layer.position != LayerPositionKind::Rope)
        return true;
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(config, 0, error);
    if (!spec)
        return false;
    const RopeScheme *rope = spec->spec.get<RopeScheme>();
    if (!rope) {
        *error =
            QStringLiteral("%1: layer 0's RoPE parameters could not be read").arg(config.source);
        return false;
    }
    p->rope = *rope;
    p->ropeHeadDim = spec->spec.dims;
    return true;
}

bool sizesPlan(const ModelConfig &config, LayerZeroPlan *p, QString *error)
{
    p->hiddenSize = config.hiddenSize;
    p->heads = config.numAttentionHeads;
    p->kvHeads = config.numKeyValueHeads > 0 ? config.numKeyValueHeads : config.numAttentionHeads;
    p->headDim = config.headDim;
    p->embedDim = config.hiddenSize;
    p->maxPositions = config.absolute.positions;
    const bool sane = p->hiddenSize > 0 && p->heads > 0 && p->headDim > 0 && p->kvHeads > 0 &&
                      p->hiddenSize <= 1 << 20 && p->heads <= 4096 && p->headDim <= 65536 &&
                      p->heads % p->kvHeads == 0;
    if (!sane)
        *error = QStringLiteral("%1: hidden_size %2, %3 heads of %4 dims, %5 key/value heads are "
                                "not sizes of a model pescope can compute")
                     .arg(config.source)
                     .arg(p->hiddenSize)
                     .arg(p->heads)
                     .arg(p->headDim)
                     .arg(p->kvHeads);
    return sane;
}

} // namespace

std::optional<LayerZeroPlan> layerZeroPlan(const QJsonObject &json, const ModelConfig &config,
                                           int layer, QString *error)
{
    LayerZeroPlan p;
    p.source = config.source;
    p.modelType = config.modelType;
    p.architecture = config.architectures.isEmpty() ? config.modelType : config.architectures[0];
    // A multimodal wrapper (Gemma 3) describes its text model in text_config.
    const QJsonObject part = config.wrapperModelType.isEmpty()
                                 ? json
                                 : json.value(QLatin1String("text_config")).toObject();
    if (!supportedTypes().contains(p.modelType)) {
        // An ALiBi model (BLOOM, MPT, Falcon with alibi) is named as such: its positions are a
        // bias on the attention scores, which layer 0 here does not add.
        const bool alibi =
            std::any_of(config.layers.begin(), config.layers.end(),
                        [](const auto &l) { return l.position == LayerPositionKind::Alibi; });
        *error = QStringLiteral("%1: %2 (model_type %3) is not an architecture pescope computes "
                                "layer 0 for%4; it does for GPT-2, GPT-NeoX, OPT, BERT, RoBERTa, "
                                "Llama, Mistral, Qwen2, Qwen3, Gemma 1-3, Phi-3 and SmolLM3")
                     .arg(config.source, p.architecture,
                          p.modelType.isEmpty() ? QStringLiteral("missing") : p.modelType,
                          alibi ? QStringLiteral(" (its positions are ALiBi biases on the "
                                                 "attention scores)")
                                : QString());
        return std::nullopt;
    }
    if (layer != 0) {
        *error = QStringLiteral("layer %1: pescope computes layer 0 only, whose input is the "
                                "embedding layer's output (a later layer needs every layer "
                                "before it)")
                     .arg(layer);
        return std::nullopt;
    }
    if (!sizesPlan(config, &p, error) || !positionsPlan(config, &p, error))
        return std::nullopt;

    ConfigKeys keys(part, config.source, error);
    const QString &type = p.modelType;
    bool ok = false;
    if (!type.startsWith(QLatin1String("gemma")) && !type.startsWith(QLatin1String("qwen")) &&
        type != QLatin1String("llama") && type != QLatin1String("mistral") &&
        type != QLatin1String("phi3") && type != QLatin1String("smollm3"))
        p.kvHeads = p.heads; // multi-head attention: no num_key_value_heads
    if (type == QLatin1String("gpt2"))
        ok = gpt2Plan(keys, &p);
    else if (type == QLatin1String("opt"))
        ok = optPlan(keys, &p);
    else if (type == QLatin1String("bert") || type == QLatin1String("roberta"))
        ok = bertPlan(keys, type == QLatin1String("roberta"), &p);
    else if (type == QLatin1String("gpt_neox"))
        ok = neoxPlan(keys, &p);
    else
        ok = llamaPlan(keys, &p);
    if (!ok)
        return std::nullopt;
    p.learnedPositions = !p.positionTensor.isEmpty();

    // dtype="auto" (transformers v5's default): config.json's dtype (torch_dtype before v5).
    QString dtype;
    if (!keys.text("dtype", QString(), &dtype) ||
        (dtype.isEmpty() && !keys.text("torch_dtype", QString(), &dtype)))
        return std::nullopt;
    if (!dtype.isEmpty() && dtype != QLatin1String("float32") &&
        dtype != QLatin1String("float16") && dtype != QLatin1String("bfloat16"))
        dtype.clear(); // "auto", float64, ...: the stored type decides
    p.dtype = dtype;
    const QJsonObject quantization = json.value(QLatin1String("quantization_config")).toObject();
    p.quantization = quantization.value(QLatin1String("quant_method")).toString();
    if (p.quantization.isEmpty() && !quantization.isEmpty())
        p.quantization = QStringLiteral("quantized");
    return p;
}

} // namespace pe
