#include "model/ggufmodel.h"

#include "formats/ggufconfig.h"
#include "formats/gguffile.h"

#include <QJsonArray>

namespace pe {

namespace {

// general.architecture -> the transformers class its converter came from (convert_hf_to_gguf.py
// writes MistralForCausalLM as llama too).
QString transformersClass(const QString &arch)
{
    if (arch == QLatin1String("llama"))
        return QStringLiteral("LlamaForCausalLM");
    if (arch == QLatin1String("qwen2"))
        return QStringLiteral("Qwen2ForCausalLM");
    if (arch == QLatin1String("qwen3"))
        return QStringLiteral("Qwen3ForCausalLM");
    if (arch == QLatin1String("gpt2"))
        return QStringLiteral("GPT2LMHeadModel");
    return {};
}

// A positive number under `suffix` ("{arch}.suffix"), or a sentence naming the key.
bool positiveKey(const GgufFile &file, const QString &suffix, double *out, QString *error)
{
    const QString key = file.archKey(suffix);
    const GgufValue *value = file.value(key);
    const std::optional<double> number = value ? value->toDouble() : std::nullopt;
    if (!number || !(*number > 0)) {
        *error = QStringLiteral("%1: %2 %3; the forward pass needs it")
                     .arg(file.path(), key,
                          !value    ? QStringLiteral("is missing")
                          : !number ? ggufTypeProblem(key, *value, QStringLiteral("a number"))
                                          .mid(key.size() + 1)
                                    : QStringLiteral("must be positive"));
        return false;
    }
    *out = *number;
    return true;
}

bool has(const GgufFile &file, const QString &name)
{
    return file.find(name).has_value();
}

} // namespace

std::optional<QJsonObject> ggufConfigJson(const GgufFile &file, const ModelConfig &config,
                                          QString *error)
{
    const QString arch = file.architecture();
    const QString type = transformersClass(arch);
    if (type.isEmpty()) {
        *error = QStringLiteral("%1: GGUF architecture %2: pescope computes GGUF files of the "
                                "architectures llama (Llama, Mistral), qwen2, qwen3 and gpt2; "
                                "open this model's safetensors instead")
                     .arg(file.path(), arch.isEmpty() ? QStringLiteral("(missing)") : arch);
        return std::nullopt;
    }
    const bool gpt2 = arch == QLatin1String("gpt2");
    double ffn = 0, eps = 0;
    if (!positiveKey(file, QStringLiteral("feed_forward_length"), &ffn, error) ||
        !positiveKey(file,
                     gpt2 ? QStringLiteral("attention.layer_norm_epsilon")
                          : QStringLiteral("attention.layer_norm_rms_epsilon"),
                     &eps, error))
        return std::nullopt;
    if (arch == QLatin1String("llama") && config.headDim % 2 != 0) {
        *error = QStringLiteral("%1: head size %2 is odd: llama.cpp's rotary layout (pairs of "
                                "rows) cannot hold it")
                     .arg(file.path())
                     .arg(config.headDim);
        return std::nullopt;
    }
    QJsonObject json;
    json.insert(QStringLiteral("model_type"), arch);
    json.insert(QStringLiteral("architectures"), QJsonArray{type});
    json.insert(QStringLiteral("dtype"), QStringLiteral("float32"));
    json.insert(QStringLiteral("tie_word_embeddings"), !has(file, QStringLiteral("output.weight")));
    if (gpt2) {
        json.insert(QStringLiteral("n_inner"), ffn);
        json.insert(QStringLiteral("layer_norm_epsilon"), eps);
        json.insert(QStringLiteral("activation_function"), QStringLiteral("gelu_new"));
        return json;
    }
    json.insert(QStringLiteral("intermediate_size"), ffn);
    json.insert(QStringLiteral("rms_norm_eps"), eps);
    json.insert(QStringLiteral("hidden_act"), QStringLiteral("silu"));
    json.insert(QStringLiteral("attention_bias"), has(file, QStringLiteral("blk.0.attn_q.bias")));
    json.insert(QStringLiteral("mlp_bias"), has(file, QStringLiteral("blk.0.ffn_gate.bias")));
    return json;
}

std::optional<SafetensorsModel> openGgufModel(ModelLocation location, const QString &what,
                                              QString *error)
{
    GgufFile file;
    if (!file.open(location.weightsPath, error))
        return std::nullopt;
    std::optional<ModelConfig> config = ggufModelConfig(file, error);
    if (!config) {
        if (error->isEmpty())
            *error = QStringLiteral("%1: no general.architecture: a GGUF file of tensors, not a "
                                    "model %2 can be computed from")
                         .arg(file.path(), what);
        return std::nullopt;
    }
    std::optional<QJsonObject> json = ggufConfigJson(file, *config, error);
    if (!json)
        return std::nullopt;
    location.configPath.clear(); // the metadata is the config; a config.json beside is not read
    return SafetensorsModel{std::move(location), std::move(*json), std::move(*config)};
}

void useGgufNames(LayerZeroPlan *plan)
{
    const bool gpt2 = plan->modelType == QLatin1String("gpt2");
    plan->embedTensor = QStringLiteral("token_embd.weight");
    plan->normPrefix = QStringLiteral("blk.0.attn_norm");
    if (gpt2) {
        plan->positionTensor = QStringLiteral("position_embd.weight");
        plan->layout = QkvLayout::Stacked; // attn_qkv: [q | k | v] rows, as nn.Linear
        plan->qTensor = QStringLiteral("blk.0.attn_qkv");
        plan->kTensor.clear();
    } else {
        plan->qTensor = QStringLiteral("blk.0.attn_q");
        plan->kTensor = QStringLiteral("blk.0.attn_k");
    }
    if (plan->headNorm != NormKind::None) {
        plan->qNormTensor = QStringLiteral("blk.0.attn_q_norm.weight");
        plan->kNormTensor = QStringLiteral("blk.0.attn_k_norm.weight");
    }
    // llama.cpp's llama architecture rotates interleaved pairs (LLAMA_ROPE_TYPE_NORM) of rows
    // the converter permuted; qwen2 / qwen3 rotate halves (NEOX) of rows left as they were.
    plan->ggufRopePermuted = plan->modelType == QLatin1String("llama");
}

void useGgufNames(ForwardPlan *plan)
{
    useGgufNames(&plan->base);
    const auto blk = [](const char *name) -> QString {
        return QStringLiteral("blk.%1.") + QLatin1String(name);
    };
    plan->attnNorm = blk("attn_norm");
    plan->mlpNorm = blk("ffn_norm");
    plan->output.name = blk("attn_output");
    plan->output.conv1d = false;
    if (plan->base.modelType == QLatin1String("gpt2")) {
        plan->query = {blk("attn_qkv"), true, false};
        plan->fcIn = {blk("ffn_up"), true, false};
        plan->fcOut = {blk("ffn_down"), true, false};
    } else {
        plan->query.name = blk("attn_q");
        plan->key.name = blk("attn_k");
        plan->value.name = blk("attn_v");
        plan->gate.name = blk("ffn_gate");
        plan->up.name = blk("ffn_up");
        plan->down.name = blk("ffn_down");
        plan->queryNorm = blk("attn_q_norm.weight");
        plan->keyNorm = blk("attn_k_norm.weight");
    }
    plan->finalNormName = QStringLiteral("output_norm");
    plan->lmHead = QStringLiteral("output.weight");
}

void unpermuteGgufRope(Projection *p, qint64 heads, qint64 headDim)
{
    const qint64 half = headDim / 2;
    const RowMatrix stored = p->weight;
    const Eigen::VectorXf bias = p->bias;
    for (qint64 h = 0; h < heads; ++h)
        for (qint64 i = 0; i < half; ++i)
            for (qint64 j = 0; j < 2; ++j) {
                const qint64 ours = h * headDim + j * half + i;
                const qint64 theirs = h * headDim + 2 * i + j;
                p->weight.row(ours) = stored.row(theirs);
                if (bias.size() > 0)
                    p->bias(ours) = bias(theirs);
            }
}

} // namespace pe
