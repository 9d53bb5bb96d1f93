#include "modelconfig.h"

#include "fields/wholenumber.h"
#include "mappedfile.h"
#include "rope/ropefields.h"
#include "safejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

// A key that counts dimensions when it is a positive whole number (absent, zero or anything
// else: nothing, and the caller's default applies).
std::optional<qint64> positiveWhole(const QJsonValue &v)
{
    return v.isDouble() ? wholeNumberIn(v.toDouble(), 1, maxExactJsonInteger) : std::nullopt;
}

// Class defaults of transformers v5's configuration classes, used for keys a config.json
// leaves out (Gemma 3's text_config, for one, gives only what differs from Gemma3TextConfig).
// 0 means "no default here". `theta` is default_theta (the global one for per-layer models).
struct ClassDefaults
{
    const char *modelType;
    const char *className;
    qint64 hiddenSize;
    qint64 heads;
    qint64 kvHeads;
    qint64 headDim;
    qint64 layers;
    qint64 maxPositions;
    double theta;
    double localTheta;
    qint64 slidingWindow;
    qint64 imageSize;
    qint64 patchSize;
};

constexpr ClassDefaults classDefaults[] = {
    {"llama", "LlamaConfig", 4096, 32, 0, 0, 32, 2048, 10000.0, 0, 0, 0, 0},
    {"mistral", "MistralConfig", 4096, 32, 8, 0, 32, 131072, 10000.0, 0, 4096, 0, 0},
    {"qwen2", "Qwen2Config", 4096, 32, 32, 0, 32, 32768, 10000.0, 0, 0, 0, 0},
    {"gemma3_text", "Gemma3TextConfig", 2304, 8, 4, 256, 26, 131072, 1000000.0, 10000.0, 4096, 0,
     0},
    {"llama4_text", "Llama4TextConfig", 5120, 40, 8, 128, 48, 131072, 500000.0, 0, 0, 0, 0},
    {"phi3", "Phi3Config", 3072, 32, 0, 0, 32, 4096, 10000.0, 0, 0, 0, 0},
    {"deepseek_v3", "DeepseekV3Config", 7168, 128, 128, 0, 61, 4096, 10000.0, 0, 0, 0, 0},
    {"modernbert", "ModernBertConfig", 768, 12, 0, 0, 22, 8192, 160000.0, 10000.0, 0, 0, 0},
    {"gpt_neox", "GPTNeoXConfig", 6144, 64, 0, 0, 44, 2048, 10000.0, 0, 0, 0, 0},
    {"gpt2", "GPT2Config", 768, 12, 0, 0, 12, 1024, 0, 0, 0, 0, 0},
    {"bert", "BertConfig", 768, 12, 0, 0, 12, 512, 0, 0, 0, 0, 0},
    {"roberta", "RobertaConfig", 768, 12, 0, 0, 12, 512, 0, 0, 0, 0, 0},
    {"opt", "OPTConfig", 768, 12, 0, 0, 12, 2048, 0, 0, 0, 0, 0},
    {"vit", "ViTConfig", 768, 12, 0, 0, 12, 0, 0, 0, 0, 224, 16},
    {"clip_vision_model", "CLIPVisionConfig", 768, 12, 0, 0, 12, 0, 0, 0, 0, 224, 32},
};

const ClassDefaults *defaultsFor(const QString &modelType)
{
    for (const ClassDefaults &d : classDefaults) {
        if (modelType == QLatin1String(d.modelType))
            return &d;
    }
    return nullptr;
}

// How a model family knows positions.
enum class Family {
    Unknown,
    Rope,
    Gpt2,       // learned wpe, position 0 at row 0
    GptNeo,     // learned wpe
    Opt,        // learned, rows = max_position_embeddings + 2, position p at row p + 2
    Bert,       // learned, row p
    Roberta,    // learned, position p at row p + padding_idx + 1
    DistilBert, // learned (or fixed sinusoids with sinusoidal_pos_embds)
    Vit,        // patch grid + class token
    Deit,       // patch grid + class and distillation tokens
    Clip,       // patch grid + class token
    Siglip,     // patch grid, no class token
    Alibi,
    T5, // relative position buckets
};

const QSet<QString> &ropeModelTypes()
{
    static const QSet<QString> types = {
        QStringLiteral("llama"),       QStringLiteral("mistral"),     QStringLiteral("mixtral"),
        QStringLiteral("qwen2"),       QStringLiteral("qwen2_moe"),   QStringLiteral("qwen3"),
        QStringLiteral("qwen3_moe"),   QStringLiteral("gemma"),       QStringLiteral("gemma2"),
        QStringLiteral("gemma3_text"), QStringLiteral("phi"),         QStringLiteral("phi3"),
        QStringLiteral("phimoe"),      QStringLiteral("gpt_neox"),    QStringLiteral("gptj"),
        QStringLiteral("codegen"),     QStringLiteral("deepseek_v2"), QStringLiteral("deepseek_v3"),
        QStringLiteral("llama4_text"), QStringLiteral("smollm3"),     QStringLiteral("modernbert"),
        QStringLiteral("olmo"),        QStringLiteral("olmo2"),       QStringLiteral("starcoder2"),
        QStringLiteral("stablelm"),    QStringLiteral("cohere"),      QStringLiteral("cohere2"),
        QStringLiteral("granite"),     QStringLiteral("persimmon"),   QStringLiteral("nemotron"),
        QStringLiteral("glm"),         QStringLiteral("glm4"),        QStringLiteral("gpt_oss"),
    };
    return types;
}

QString jsonText(const QJsonValue &value)
{
    if (value.isString())
        return QLatin1Char('"') + value.toString() + QLatin1Char('"');
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 17);
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isNull())
        return QStringLiteral("null");
    if (value.isArray())
        return QStringLiteral("a list of %1 values").arg(value.toArray().size());
    return QStringLiteral("an object");
}

QString number(double value)
{
    return QString::number(value, 'g', 17);
}

// transformers' layer_types values.
QString fullAttention()
{
    return QStringLiteral("full_attention");
}
QString slidingAttention()
{
    return QStringLiteral("sliding_attention");
}
QString chunkedAttention()
{
    return QStringLiteral("chunked_attention");
}

bool isPresent(const QJsonObject &object, const QString &key)
{
    const QJsonValue value = object.value(key);
    return !value.isUndefined() && !value.isNull();
}

// Reads one config (the top level, or its text_config / vision_config) into a ModelConfig.
class Reader
{
public:
    Reader(const QJsonObject &config, const QString &prefix, ModelConfig &out, QString *error)
        : m_config(config), m_prefix(prefix), m_out(out), m_error(error)
    {}

    bool run();

private:
    bool fail(const QString &why)
    {
        if (m_error && m_error->isEmpty())
            *m_error = QStringLiteral("%1: %2").arg(m_out.source, why);
        return false;
    }
    QString key(const QString &name) const { return m_prefix + name; }
    void read(const QString &what) { m_out.readFrom += what; }
    void assume(const QString &what) { m_out.assumed += what; }
    QString defaultOwner() const
    {
        return m_defaults ? QStringLiteral("%1's default in transformers v5")
                                .arg(QLatin1String(m_defaults->className))
                          : QString();
    }

    // The first of `names` present and not null, as a whole number >= 0. Absent: `fallback`
    // (0 = unknown), recorded as assumed when non-zero.
    bool count(const QString &field, const QStringList &names, qint64 fallback, qint64 *value);
    bool realNumber(const QString &name, std::optional<double> *value);
    bool boolean(const QString &name, std::optional<bool> *value);

    // What the rope parameters fall back on: the top-level theta and partial rotary keys.
    struct RopeFallbacks
    {
        bool neox = false;
        bool gptj = false;
        bool phi3 = false;
        QString thetaKey;
        std::optional<double> theta;
        double defaultTheta = 10000.0;
        QString defaultThetaOwner;
        QString partialKey;
        std::optional<double> partial;
    };

    bool readSizes();
    bool readHeadDim();
    bool readAttentionSpans();
    bool readVisionSizes();
    bool readLayerTypes();
    bool readListedLayerTypes(const QJsonArray &values);
    bool readSlidingPattern(qint64 *pattern, bool *fromConfig);
    bool readModernBertLayerTypes();
    bool readQwenLayerTypes();
    bool readNoRope();
    bool readAbsolute();
    void setLearned(qint64 rows, qint64 offset, QStringList names);
    void readBertPositions();
    bool readRobertaPositions();
    bool readPatchGrid();
    bool normalizeRope();
    bool readRopeParameters(QJsonObject *p, QString *origin);
    bool readRopeFallbacks(RopeFallbacks *f);
    bool fillRopeParameters(QJsonObject *target, const QString &what, const RopeFallbacks &f);
    void applyRopeQuirks(QJsonObject *p);
    bool readPairing();
    bool normalizePerLayerRope(const QString &globalKey, const QString &localKey,
                               bool scalingToBoth);
    bool standardize(QJsonObject *parameters, const QString &what);
    void buildLayers();
    qint64 ropeHeadDim() const;

    const QJsonObject m_config;
    const QString m_prefix;
    ModelConfig &m_out;
    QString *m_error;
    const ClassDefaults *m_defaults = nullptr;
    Family m_family = Family::Unknown;
    QStringList m_layerTypes;
    std::vector<bool> m_ropeLayers; // false: NoPE
    qint64 m_slidingWindow = 0;
    qint64 m_chunkSize = 0;
};

bool Reader::count(const QString &field, const QStringList &names, qint64 fallback, qint64 *value)
{
    for (const QString &name : names) {
        const QJsonValue v = m_config.value(name);
        if (v.isUndefined() || v.isNull())
            continue;
        const std::optional<qint64> whole =
            v.isDouble() ? wholeNumberIn(v.toDouble(), 0, maxExactJsonInteger) : std::nullopt;
        if (!whole)
            return fail(QStringLiteral("%1 %2").arg(
                key(name), wholeNumberMessage(0, maxExactJsonInteger, jsonText(v))));
        *value = *whole;
        read(name == field
                 ? QStringLiteral("%1 = %2 (%3)").arg(field).arg(*value).arg(key(name))
                 : QStringLiteral("%1 = %2 (from %3)").arg(field).arg(*value).arg(key(name)));
        return true;
    }
    *value = fallback;
    if (fallback > 0)
        assume(QStringLiteral("%1 = %2: the config has no %3; %4")
                   .arg(field)
                   .arg(fallback)
                   .arg(names.front(), defaultOwner()));
    return true;
}

bool Reader::realNumber(const QString &name, std::optional<double> *value)
{
    const QJsonValue v = m_config.value(name);
    if (v.isUndefined() || v.isNull())
        return true;
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        return fail(QStringLiteral("%1 must be a number, it is %2").arg(key(name), jsonText(v)));
    *value = v.toDouble();
    return true;
}

bool Reader::boolean(const QString &name, std::optional<bool> *value)
{
    const QJsonValue v = m_config.value(name);
    if (v.isUndefined() || v.isNull())
        return true;
    if (!v.isBool())
        return fail(
            QStringLiteral("%1 must be true or false, it is %2").arg(key(name), jsonText(v)));
    *value = v.toBool();
    return true;
}

bool Reader::run()
{
    const QString modelType = m_out.modelType;
    m_defaults = defaultsFor(modelType);

    // The family decides which keys matter.
    if (modelType == QLatin1String("gpt2") || modelType == QLatin1String("gpt_bigcode"))
        m_family = Family::Gpt2;
    else if (modelType == QLatin1String("gpt_neo"))
        m_family = Family::GptNeo;
    else if (modelType == QLatin1String("opt"))
        m_family = Family::Opt;
    else if (modelType == QLatin1String("bert") || modelType == QLatin1String("electra"))
        m_family = Family::Bert;
    else if (modelType == QLatin1String("roberta") || modelType == QLatin1String("xlm-roberta") ||
             modelType == QLatin1String("camembert") ||
             modelType == QLatin1String("xlm-roberta-xl"))
        m_family = Family::Roberta;
    else if (modelType == QLatin1String("distilbert"))
        m_family = Family::DistilBert;
    else if (modelType == QLatin1String("vit"))
        m_family = Family::Vit;
    else if (modelType == QLatin1String("deit"))
        m_family = Family::Deit;
    else if (modelType == QLatin1String("clip_vision_model"))
        m_family = Family::Clip;
    else if (modelType == QLatin1String("siglip_vision_model"))
        m_family = Family::Siglip;
    else if (modelType == QLatin1String("bloom"))
        m_family = Family::Alibi;
    else if (modelType == QLatin1String("mpt"))
        m_family = m_config.value(QLatin1String("attn_config"))
                           .toObject()
                           .value(QLatin1String("alibi"))
                           .toBool(true)
                       ? Family::Alibi
                       : Family::Unknown;
    else if (modelType == QLatin1String("falcon"))
        m_family =
            m_config.value(QLatin1String("alibi")).toBool(false) ? Family::Alibi : Family::Rope;
    else if (modelType == QLatin1String("t5") || modelType == QLatin1String("mt5") ||
             modelType == QLatin1String("umt5") || modelType == QLatin1String("longt5"))
        m_family = Family::T5;
    else if (ropeModelTypes().contains(modelType))
        m_family = Family::Rope;
    else {
        const QLatin1StringView ropeKeys[] = {ropeHfKeyOf(&RopeConfig::ropeTheta),
                                              QLatin1StringView("rope_scaling"),
                                              QLatin1StringView("rope_parameters"),
                                              QLatin1StringView("rotary_dim"),
                                              QLatin1StringView("rotary_pct"),
                                              QLatin1StringView("rotary_emb_base"),
                                              ropeHfKeyOf(&RopeConfig::partialRotaryFactor)};
        for (const QLatin1StringView ropeKey : ropeKeys) {
            if (isPresent(m_config, ropeKey)) {
                m_family = Family::Rope;
                read(QStringLiteral("rotary positions: the config has %1 (model_type %2 is not "
                                    "one pescope knows)")
                         .arg(key(ropeKey),
                              modelType.isEmpty() ? QStringLiteral("missing") : modelType));
                break;
            }
        }
        if (m_family == Family::Unknown)
            assume(QStringLiteral("positional scheme unknown: model_type %1 is not one pescope "
                                  "knows and the config has no RoPE keys")
                       .arg(modelType.isEmpty() ? QStringLiteral("(missing)") : modelType));
    }

    if (!readSizes() || !readNoRope() || !readLayerTypes() || !readAbsolute())
        return false;
    if (m_family == Family::Rope && (!normalizeRope() || !readPairing()))
        return false;
    buildLayers();
    return true;
}

bool Reader::readSizes()
{
    const ClassDefaults *d = m_defaults;
    ModelConfig &o = m_out;
    if (!count(QStringLiteral("hidden_size"),
               {QStringLiteral("hidden_size"), QStringLiteral("n_embd"), QStringLiteral("d_model"),
                QStringLiteral("dim")},
               d ? d->hiddenSize : 0, &o.hiddenSize) ||
        !count(QStringLiteral("num_attention_heads"),
               {QStringLiteral("num_attention_heads"), QStringLiteral("n_head"),
                QStringLiteral("num_heads"), QStringLiteral("n_heads")},
               d ? d->heads : 0, &o.numAttentionHeads) ||
        !count(QStringLiteral("num_hidden_layers"),
               {QStringLiteral("num_hidden_layers"), QStringLiteral("n_layer"),
                QStringLiteral("num_layers"), QStringLiteral("n_layers")},
               d ? d->layers : 0, &o.numHiddenLayers) ||
        !count(QStringLiteral("max_position_embeddings"),
               {QStringLiteral("max_position_embeddings"), QStringLiteral("n_positions"),
                QStringLiteral("max_seq_len")},
               d ? d->maxPositions : 0, &o.maxPositionEmbeddings))
        return false;
    if (o.numHiddenLayers > limits::maxLayers)
        return fail(QStringLiteral("%1 layers is more than pescope maps (at most %2)")
                        .arg(o.numHiddenLayers)
                        .arg(limits::maxLayers));

    // num_key_value_heads: absent means one per query head (multi-head attention).
    qint64 kv = 0;
    if (!count(QStringLiteral("num_key_value_heads"), {QStringLiteral("num_key_value_heads")},
               d && d->kvHeads > 0 ? d->kvHeads : 0, &kv))
        return false;
    if (kv == 0 && o.numAttentionHeads > 0) {
        kv = o.numAttentionHeads;
        // Only decoders with grouped-query attention have the key; elsewhere it is no guess.
        if (m_family == Family::Rope)
            assume(QStringLiteral("num_key_value_heads = %1 = num_attention_heads: the config has "
                                  "no num_key_value_heads")
                       .arg(kv));
    }
    o.numKeyValueHeads = kv;

    // Phi3Config's own top-level original_max_position_embeddings (standardize copies it).
    const QString original(ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings));
    if (isPresent(m_config, original) &&
        !count(original, {original}, 0, &o.originalMaxPositionEmbeddings))
        return false;
    return readHeadDim() && readAttentionSpans() && readVisionSizes();
}

// head_dim: transformers uses `config.head_dim or hidden_size // num_attention_heads`;
// DeepseekV3Config sets head_dim = qk_rope_head_dim, the part of each head that rotates.
bool Reader::readHeadDim()
{
    const ClassDefaults *d = m_defaults;
    ModelConfig &o = m_out;
    // The rotated part of a head, read as it is later (ropeHeadDim(), buildLayers()): checked
    // here, once, so that a value no integer holds is refused by name.
    for (const QString &name : {QStringLiteral("qk_rope_head_dim"), QStringLiteral("rotary_dim")}) {
        const QJsonValue v = m_config.value(name);
        if (!v.isUndefined() && !v.isNull() &&
            !(v.isDouble() && wholeNumberIn(v.toDouble(), 0, maxExactJsonInteger)))
            return fail(QStringLiteral("%1 %2").arg(
                key(name), wholeNumberMessage(0, maxExactJsonInteger, jsonText(v))));
    }
    const QJsonValue headDim = m_config.value(QLatin1String("head_dim"));
    const QJsonValue ropeHeadDim = m_config.value(QLatin1String("qk_rope_head_dim"));
    if (!headDim.isUndefined() && !headDim.isNull() && headDim.toDouble() != 0) {
        if (!count(QStringLiteral("head_dim"), {QStringLiteral("head_dim")}, 0, &o.headDim))
            return false;
    } else if (!ropeHeadDim.isUndefined() && !ropeHeadDim.isNull()) {
        if (!count(QStringLiteral("head_dim"), {QStringLiteral("qk_rope_head_dim")}, 0, &o.headDim))
            return false;
    } else if (d && d->headDim > 0) {
        o.headDim = d->headDim;
        assume(QStringLiteral("head_dim = %1: the config has no head_dim; %2")
                   .arg(o.headDim)
                   .arg(defaultOwner()));
    } else if (o.hiddenSize > 0 && o.numAttentionHeads > 0) {
        o.headDim = o.hiddenSize / o.numAttentionHeads;
        read(QStringLiteral("head_dim = %1 = hidden_size / num_attention_heads (no head_dim key)")
                 .arg(o.headDim));
    }
    return true;
}

// Sliding window and attention chunk sizes.
bool Reader::readAttentionSpans()
{
    const ClassDefaults *d = m_defaults;
    const QJsonValue window = m_config.value(QLatin1String("sliding_window"));
    if (window.isUndefined()) {
        if (d && d->slidingWindow > 0 && m_family == Family::Rope) {
            m_slidingWindow = d->slidingWindow;
            assume(QStringLiteral("sliding_window = %1: the config has no sliding_window; %2")
                       .arg(m_slidingWindow)
                       .arg(defaultOwner()));
        }
    } else if (!window.isNull() &&
               !count(QStringLiteral("sliding_window"), {QStringLiteral("sliding_window")}, 0,
                      &m_slidingWindow)) {
        return false;
    }
    if (m_out.modelType == QLatin1String("modernbert")) {
        qint64 local = 0;
        if (!count(QStringLiteral("local_attention"), {QStringLiteral("local_attention")}, 0,
                   &local))
            return false;
        if (local == 0) {
            local = 128;
            assume(QStringLiteral("local_attention = 128: the config has none; "
                                  "ModernBertConfig's default in transformers v5"));
        }
        // ModernBERT's local_attention is the whole bidirectional window: +-local/2 tokens.
        m_slidingWindow = local / 2;
        read(QStringLiteral("sliding window = +-%1 tokens = local_attention / 2 (bidirectional)")
                 .arg(m_slidingWindow));
    }
    if (isPresent(m_config, QStringLiteral("attention_chunk_size")) &&
        !count(QStringLiteral("attention_chunk_size"), {QStringLiteral("attention_chunk_size")}, 0,
               &m_chunkSize))
        return false;
    if (m_out.modelType == QLatin1String("llama4_text") && m_chunkSize == 0 &&
        !m_config.contains(QLatin1String("attention_chunk_size"))) {
        m_chunkSize = 8192;
        assume(QStringLiteral("attention_chunk_size = 8192: the config has none; "
                              "Llama4TextConfig's default in transformers v5"));
    }
    return true;
}

// Vision sizes: image_size and patch_size may be numbers or [height, width] lists.
bool Reader::readVisionSizes()
{
    const ClassDefaults *d = m_defaults;
    ModelConfig &o = m_out;
    for (const auto &[name, target, fallback] :
         {std::tuple{QStringLiteral("image_size"), &o.imageSize, d ? d->imageSize : 0},
          std::tuple{QStringLiteral("patch_size"), &o.patchSize, d ? d->patchSize : 0}}) {
        const QJsonValue v = m_config.value(name);
        if (v.isArray()) {
            const QJsonArray sides = v.toArray();
            if (sides.size() != 2 || !sides.at(0).isDouble() || !sides.at(1).isDouble() ||
                sides.at(0).toDouble() != sides.at(1).toDouble())
                return fail(QStringLiteral("%1 must be one number or two equal ones, it is %2")
                                .arg(key(name), jsonText(v)));
            QJsonObject single;
            single.insert(name, sides.at(0));
            Reader sub(single, m_prefix, m_out, m_error);
            if (!sub.count(name, {name}, 0, target))
                return false;
        } else if (!count(name, {name}, fallback, target)) {
            return false;
        }
    }
    return true;
}

bool Reader::readNoRope()
{
    // Llama 4 and SmolLM3: no_rope_layers[i] = 1 rotates layer i, 0 leaves it without RoPE;
    // absent or empty, transformers builds it as int((i + 1) % no_rope_layer_interval != 0).
    const qint64 layers = m_out.numHiddenLayers;
    m_ropeLayers.assign(size_t(layers), true);
    if (m_family != Family::Rope)
        return true;
    const QJsonValue list = m_config.value(QLatin1String("no_rope_layers"));
    const bool llamaFour = m_out.modelType == QLatin1String("llama4_text") ||
                           m_out.modelType == QLatin1String("smollm3");
    if (list.isArray() && !list.toArray().isEmpty()) {
        const QJsonArray values = list.toArray();
        if (values.size() < layers)
            return fail(QStringLiteral("%1 lists %2 layers, fewer than num_hidden_layers = %3")
                            .arg(key(QStringLiteral("no_rope_layers")))
                            .arg(values.size())
                            .arg(layers));
        for (qint64 i = 0; i < layers; ++i) {
            const QJsonValue v = values.at(i);
            if (!v.isDouble() || (v.toDouble() != 0 && v.toDouble() != 1))
                return fail(QStringLiteral("%1[%2] must be 0 or 1, it is %3")
                                .arg(key(QStringLiteral("no_rope_layers")))
                                .arg(i)
                                .arg(jsonText(v)));
            m_ropeLayers[size_t(i)] = v.toDouble() == 1;
        }
        read(QStringLiteral("RoPE or NoPE per layer from %1 (1 = RoPE, 0 = NoPE)")
                 .arg(key(QStringLiteral("no_rope_layers"))));
        return true;
    }
    if (!list.isUndefined() && !list.isNull() && !list.isArray())
        return fail(QStringLiteral("%1 must be a list, it is %2")
                        .arg(key(QStringLiteral("no_rope_layers")), jsonText(list)));
    const bool hasInterval = isPresent(m_config, QStringLiteral("no_rope_layer_interval"));
    if (!llamaFour && !hasInterval)
        return true;
    qint64 interval = 0;
    if (!count(QStringLiteral("no_rope_layer_interval"), {QStringLiteral("no_rope_layer_interval")},
               0, &interval))
        return false;
    if (!hasInterval) {
        interval = 4;
        assume(QStringLiteral("no_rope_layer_interval = 4: the config has none; %1's default in "
                              "transformers v5")
                   .arg(m_out.modelType == QLatin1String("smollm3")
                            ? QStringLiteral("SmolLM3Config")
                            : QStringLiteral("Llama4TextConfig")));
    }
    if (interval <= 0)
        return fail(QStringLiteral("%1 must be at least 1")
                        .arg(key(QStringLiteral("no_rope_layer_interval"))));
    for (qint64 i = 0; i < layers; ++i)
        m_ropeLayers[size_t(i)] = (i + 1) % interval != 0;
    read(QStringLiteral("NoPE every %1th layer (layers i with (i + 1) mod %1 = 0), as "
                        "transformers builds no_rope_layers when the config lists none")
             .arg(interval));
    return true;
}

bool Reader::readLayerTypes()
{
    const QJsonValue listed = m_config.value(QLatin1String("layer_types"));
    if (listed.isArray())
        return readListedLayerTypes(listed.toArray());
    if (!listed.isUndefined() && !listed.isNull())
        return fail(QStringLiteral("%1 must be a list, it is %2")
                        .arg(key(QStringLiteral("layer_types")), jsonText(listed)));

    // The rules transformers v5's configuration classes use to build layer_types.
    const qint64 layers = m_out.numHiddenLayers;
    const QString type = m_out.modelType;
    qint64 pattern = 0;
    bool patternFromConfig = false;
    if (!readSlidingPattern(&pattern, &patternFromConfig))
        return false;
    if (pattern > 0) {
        for (qint64 i = 0; i < layers; ++i)
            m_layerTypes += (i + 1) % pattern ? slidingAttention() : fullAttention();
        if (patternFromConfig || type != QLatin1String("gemma2"))
            read(QStringLiteral("attention per layer: every %1th layer global, the others "
                                "sliding ((i + 1) mod %1, as transformers builds layer_types)")
                     .arg(pattern));
        return true;
    }
    if (type == QLatin1String("modernbert"))
        return readModernBertLayerTypes();
    if (type == QLatin1String("llama4_text")) {
        // Llama4TextConfig: "chunked_attention" if no_rope_layers[i] (RoPE layers attend in
        // chunks) else "full_attention" (the NoPE layers are global).
        for (qint64 i = 0; i < layers; ++i)
            m_layerTypes += m_ropeLayers[size_t(i)] ? chunkedAttention() : fullAttention();
        read(QStringLiteral("attention per layer: RoPE layers chunked (attention_chunk_size), "
                            "NoPE layers full (Llama4TextConfig)"));
        return true;
    }
    if (type == QLatin1String("qwen2") || type == QLatin1String("qwen2_moe") ||
        type == QLatin1String("qwen3") || type == QLatin1String("qwen3_moe"))
        return readQwenLayerTypes();
    std::optional<bool> use;
    if (!boolean(QStringLiteral("use_sliding_window"), &use))
        return false;
    const bool windowed = m_slidingWindow > 0 && use.value_or(true) && m_family == Family::Rope;
    for (qint64 i = 0; i < layers; ++i)
        m_layerTypes += windowed ? slidingAttention() : fullAttention();
    if (windowed)
        read(QStringLiteral("attention: a sliding window of %1 tokens in every layer (%2, no "
                            "layer_types)")
                 .arg(m_slidingWindow)
                 .arg(key(QStringLiteral("sliding_window"))));
    return true;
}

// layer_types as the config lists it: one string per layer.
bool Reader::readListedLayerTypes(const QJsonArray &values)
{
    const qint64 layers = m_out.numHiddenLayers;
    if (values.size() != layers)
        return fail(QStringLiteral("%1 lists %2 layers, but num_hidden_layers is %3")
                        .arg(key(QStringLiteral("layer_types")))
                        .arg(values.size())
                        .arg(layers));
    for (const QJsonValue v : values) {
        if (!v.isString())
            return fail(QStringLiteral("%1 must list strings, it has %2")
                            .arg(key(QStringLiteral("layer_types")), jsonText(v)));
        m_layerTypes += v.toString();
    }
    read(QStringLiteral("attention per layer from %1").arg(key(QStringLiteral("layer_types"))));
    return true;
}

// Every `pattern`th layer global, the others sliding: the config's sliding_window_pattern or
// the class's; 0 when neither gives one.
bool Reader::readSlidingPattern(qint64 *pattern, bool *fromConfig)
{
    const QString type = m_out.modelType;
    if (isPresent(m_config, QStringLiteral("sliding_window_pattern"))) {
        if (!count(QStringLiteral("sliding_window_pattern"),
                   {QStringLiteral("sliding_window_pattern")}, 0, pattern))
            return false;
        *fromConfig = true;
    } else if (type == QLatin1String("gemma3_text")) {
        *pattern = 6;
        assume(QStringLiteral("sliding_window_pattern = 6: the config has none; "
                              "Gemma3TextConfig's default in transformers v5"));
    } else if (type == QLatin1String("gemma2")) {
        *pattern = 2;
        read(QStringLiteral("every other layer sliding, every second global (Gemma2Config)"));
    } else if (type == QLatin1String("cohere2")) {
        *pattern = 4;
        assume(QStringLiteral("sliding_window_pattern = 4: the config has none; Cohere2Config's "
                              "default in transformers v5"));
    }
    return true;
}

// ModernBertConfig: layers i with i mod global_attn_every_n_layers = 0 global.
bool Reader::readModernBertLayerTypes()
{
    qint64 every = 0;
    if (!count(QStringLiteral("global_attn_every_n_layers"),
               {QStringLiteral("global_attn_every_n_layers")}, 0, &every))
        return false;
    if (every == 0) {
        every = 3;
        assume(QStringLiteral("global_attn_every_n_layers = 3: the config has none; "
                              "ModernBertConfig's default in transformers v5"));
    }
    for (qint64 i = 0; i < m_out.numHiddenLayers; ++i)
        m_layerTypes += i % every ? slidingAttention() : fullAttention();
    read(QStringLiteral("attention per layer: layers i with i mod %1 = 0 global, the others "
                        "sliding (ModernBertConfig)")
             .arg(every));
    return true;
}

// Qwen2 / Qwen3 (and their MoE): sliding from layer max_window_layers on, with
// use_sliding_window.
bool Reader::readQwenLayerTypes()
{
    std::optional<bool> use;
    qint64 maxWindowLayers = 0;
    if (!boolean(QStringLiteral("use_sliding_window"), &use) ||
        !count(QStringLiteral("max_window_layers"), {QStringLiteral("max_window_layers")}, 0,
               &maxWindowLayers))
        return false;
    const bool windowed = use.value_or(false) && m_slidingWindow > 0;
    for (qint64 i = 0; i < m_out.numHiddenLayers; ++i)
        m_layerTypes += windowed && i >= maxWindowLayers ? slidingAttention() : fullAttention();
    read(windowed ? QStringLiteral("attention per layer: sliding from layer "
                                   "max_window_layers = %1 on (use_sliding_window)")
                        .arg(maxWindowLayers)
                  : QStringLiteral("attention: full in every layer (use_sliding_window is "
                                   "%1)")
                        .arg(use ? QStringLiteral("false") : QStringLiteral("absent")));
    return true;
}

bool Reader::readAbsolute()
{
    const qint64 maxPositions = m_out.maxPositionEmbeddings;
    switch (m_family) {
    case Family::Gpt2:
        setLearned(maxPositions, 0,
                   {QStringLiteral("wpe.weight"), QStringLiteral("transformer.wpe.weight")});
        read(QStringLiteral("learned absolute positions (wpe), %1 rows").arg(maxPositions));
        break;
    case Family::GptNeo:
        setLearned(maxPositions, 0,
                   {QStringLiteral("transformer.wpe.weight"), QStringLiteral("wpe.weight")});
        read(QStringLiteral("learned absolute positions (wpe), %1 rows").arg(maxPositions));
        break;
    case Family::Opt:
        // OPTLearnedPositionalEmbedding: num_embeddings + 2 rows, position p at row p + 2.
        setLearned(maxPositions + 2, 2,
                   {QStringLiteral("model.decoder.embed_positions.weight"),
                    QStringLiteral("decoder.embed_positions.weight")});
        read(QStringLiteral("learned absolute positions with OPT's offset 2: %1 rows = "
                            "max_position_embeddings + 2, position p at row p + 2")
                 .arg(maxPositions + 2));
        break;
    case Family::Bert:
        readBertPositions();
        break;
    case Family::Roberta:
        return readRobertaPositions();
    case Family::DistilBert:
        setLearned(maxPositions, 0,
                   {QStringLiteral("distilbert.embeddings.position_embeddings.weight"),
                    QStringLiteral("embeddings.position_embeddings.weight")});
        read(m_config.value(QLatin1String("sinusoidal_pos_embds")).toBool(false)
                 ? QStringLiteral("absolute positions: a table of fixed sinusoids "
                                  "(sinusoidal_pos_embds), %1 rows")
                       .arg(maxPositions)
                 : QStringLiteral("learned absolute positions, %1 rows").arg(maxPositions));
        break;
    case Family::Vit:
    case Family::Deit:
    case Family::Clip:
    case Family::Siglip:
        return readPatchGrid();
    case Family::Alibi:
        read(QStringLiteral("ALiBi: linear attention biases, no position table"));
        break;
    case Family::T5:
        read(QStringLiteral("relative position buckets (T5), no absolute table"));
        break;
    case Family::Rope:
    case Family::Unknown:
        break;
    }
    return true;
}

// A learned table of `rows` rows whose position p sits at row p + `offset`.
void Reader::setLearned(qint64 rows, qint64 offset, QStringList names)
{
    AbsolutePositions &a = m_out.absolute;
    a.kind = AbsolutePositionKind::Learned;
    a.tableRows = rows;
    a.offset = offset;
    a.positions = std::max<qint64>(0, rows - offset);
    a.tensorNames = std::move(names);
}

// BERT and ELECTRA: a learned table unless position_embedding_type names a relative scheme.
void Reader::readBertPositions()
{
    const qint64 maxPositions = m_out.maxPositionEmbeddings;
    const QString kind = m_config.value(QLatin1String("position_embedding_type"))
                             .toString(QStringLiteral("absolute"));
    if (kind != QLatin1String("absolute")) {
        assume(QStringLiteral("position_embedding_type = %1: relative distances inside "
                              "attention, no absolute table")
                   .arg(kind));
        m_family = Family::Unknown;
        return;
    }
    setLearned(maxPositions, 0,
               {QStringLiteral("bert.embeddings.position_embeddings.weight"),
                QStringLiteral("embeddings.position_embeddings.weight"),
                QStringLiteral("electra.embeddings.position_embeddings.weight")});
    read(QStringLiteral("learned absolute positions, %1 rows, position p at row p")
             .arg(maxPositions));
}

// RobertaEmbeddings: padding_idx = pad_token_id; positions start at padding_idx + 1.
bool Reader::readRobertaPositions()
{
    const qint64 maxPositions = m_out.maxPositionEmbeddings;
    qint64 pad = 0;
    if (!count(QStringLiteral("pad_token_id"), {QStringLiteral("pad_token_id")}, 0, &pad))
        return false;
    if (!isPresent(m_config, QStringLiteral("pad_token_id"))) {
        pad = 1;
        assume(QStringLiteral("pad_token_id = 1: the config has none; RobertaConfig's "
                              "default in transformers v5"));
    }
    setLearned(maxPositions, pad + 1,
               {QStringLiteral("roberta.embeddings.position_embeddings.weight"),
                QStringLiteral("embeddings.position_embeddings.weight")});
    read(QStringLiteral("learned absolute positions with RoBERTa's offset padding_idx + 1 = "
                        "%1: %2 rows, position p at row p + %1, %3 usable positions")
             .arg(pad + 1)
             .arg(maxPositions)
             .arg(m_out.absolute.positions));
    return true;
}

// ViT, DeiT, CLIP and SigLIP vision towers: a 2-D grid of patches after any prefix tokens.
bool Reader::readPatchGrid()
{
    AbsolutePositions &a = m_out.absolute;
    if (m_out.imageSize <= 0 || m_out.patchSize <= 0)
        return fail(QStringLiteral("a vision model needs image_size and patch_size"));
    const qint64 side = m_out.imageSize / m_out.patchSize;
    a.kind = AbsolutePositionKind::PatchGrid;
    a.gridHeight = a.gridWidth = side;
    a.prefixTokens = m_family == Family::Deit ? 2 : m_family == Family::Siglip ? 0 : 1;
    a.tableRows = a.prefixTokens + side * side;
    a.positions = a.tableRows;
    if (m_family == Family::Vit || m_family == Family::Deit)
        a.tensorNames = {QStringLiteral("vit.embeddings.position_embeddings"),
                         QStringLiteral("deit.embeddings.position_embeddings"),
                         QStringLiteral("embeddings.position_embeddings")};
    else
        a.tensorNames = {QStringLiteral("vision_model.embeddings.position_embedding.weight"),
                         QStringLiteral("embeddings.position_embedding.weight")};
    read(QStringLiteral("2-D patch grid: %1 x %1 patches = image_size %2 / patch_size %3, "
                        "%4 prefix token(s) first, %5 rows")
             .arg(side)
             .arg(m_out.imageSize)
             .arg(m_out.patchSize)
             .arg(a.prefixTokens)
             .arg(a.tableRows));
    return true;
}

// transformers v5 standardize_rope_params, case 1 (one object for every layer) on `p`.
bool Reader::standardize(QJsonObject *p, const QString &what)
{
    const QLatin1StringView typeKey = ropeHfKeyOf(&RopeConfig::ropeType);
    const QLatin1StringView originalKey = ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings);
    if (!p->contains(typeKey)) {
        const QJsonValue legacy = p->value(ropeLegacyKeyOf(&RopeConfig::ropeType));
        if (legacy.isString()) {
            p->insert(typeKey, legacy);
            read(QStringLiteral("%1rope_type = %2 (from the legacy \"type\" key)")
                     .arg(what, legacy.toString()));
        } else {
            p->insert(typeKey, QStringLiteral("default"));
            assume(QStringLiteral("%1rope_type = default: no rope_type or type given").arg(what));
        }
    }
    const QJsonValue ropeType = p->value(typeKey);
    if (!ropeType.isString())
        return fail(QStringLiteral("rope_type must be a string, it is %1").arg(jsonText(ropeType)));
    const QString type = ropeType.toString();
    const bool phi3 =
        m_out.modelType == QLatin1String("phi3") || m_out.modelType == QLatin1String("phimoe");
    if (type == QLatin1String("llama3") || type == QLatin1String("yarn") ||
        type == QLatin1String("longrope")) {
        if (phi3) {
            // Phi3Config has its own original_max_position_embeddings, which wins.
            qint64 original = m_out.originalMaxPositionEmbeddings;
            if (original == 0) {
                original = 4096;
                assume(QStringLiteral("%1original_max_position_embeddings = 4096: the config has "
                                      "none; Phi3Config's default in transformers v5")
                           .arg(what));
            }
            p->insert(originalKey, original);
            read(QStringLiteral("%1original_max_position_embeddings = %2 (Phi3Config's "
                                "top-level value replaces rope_scaling's)")
                     .arg(what)
                     .arg(original));
        } else if (!p->contains(originalKey)) {
            p->insert(originalKey, m_out.maxPositionEmbeddings);
            assume(QStringLiteral("%1original_max_position_embeddings = %2 = "
                                  "max_position_embeddings: the %3 scaling names none")
                       .arg(what)
                       .arg(m_out.maxPositionEmbeddings)
                       .arg(type));
        }
    }
    return true;
}

// Llama 4 and DeepSeek-V2 rotate consecutive pairs of each head (apply_rotary_emb:
// view_as_complex of x.reshape(..., -1, 2)); DeepSeek-V3's checkpoints store them so too
// (rope_interleave, DeepseekV3Config's default true: its attention permutes q and k into halves
// before applying HF's cat(f, f) tables). Every other model rotates halves.
bool Reader::readPairing()
{
    if (m_out.modelType == QLatin1String("llama4_text")) {
        m_out.interleavedPairs = true;
        assume(QStringLiteral("pairing = interleaved: Llama 4's apply_rotary_emb rotates "
                              "consecutive pairs of each head (view_as_complex), not halves"));
        return true;
    }
    const QString interleaveKey(ropeHfKeyOf(&RopeConfig::pairing));
    std::optional<bool> interleave;
    if (!boolean(interleaveKey, &interleave))
        return false;
    if (interleave) {
        m_out.interleavedPairs = *interleave;
        read(QStringLiteral("pairing = %1 (%2)")
                 .arg(*interleave ? QStringLiteral("interleaved") : QStringLiteral("half"),
                      key(interleaveKey)));
    } else if (m_out.modelType == QLatin1String("deepseek_v3")) {
        m_out.interleavedPairs = true;
        assume(QStringLiteral("pairing = interleaved: rope_interleave = true, DeepseekV3Config's "
                              "default in transformers v5 (the checkpoint pairs consecutive "
                              "columns)"));
    } else if (m_out.modelType == QLatin1String("deepseek_v2")) {
        m_out.interleavedPairs = true;
        assume(QStringLiteral("pairing = interleaved: HF's DeepseekV2 apply_rotary_emb rotates "
                              "consecutive pairs (view_as_complex of x.reshape(..., -1, 2)), not "
                              "halves"));
    }
    return true;
}

bool Reader::normalizeRope()
{
    const QString type = m_out.modelType;
    if (type == QLatin1String("gemma3_text"))
        return normalizePerLayerRope(QString(ropeHfKeyOf(&RopeConfig::ropeTheta)),
                                     QStringLiteral("rope_local_base_freq"), false);
    if (type == QLatin1String("modernbert"))
        return normalizePerLayerRope(QStringLiteral("global_rope_theta"),
                                     QStringLiteral("local_rope_theta"), true);

    QJsonObject p;
    QString origin;
    if (!readRopeParameters(&p, &origin))
        return false;
    // A v5-saved config may already be per layer type.
    const QSet<QString> typeSet(m_layerTypes.cbegin(), m_layerTypes.cend());
    bool nested = !p.isEmpty();
    for (auto it = p.begin(); nested && it != p.end(); ++it)
        nested = typeSet.contains(it.key()) && it.value().isObject();

    RopeFallbacks fallbacks;
    if (!readRopeFallbacks(&fallbacks))
        return false;
    if (nested) {
        m_out.ropeParametersPerLayerType = true;
        for (const QString &layerType : QSet<QString>(typeSet)) {
            if (!p.contains(layerType))
                return fail(
                    QStringLiteral("%1 has no entry for layer type %2").arg(origin, layerType));
            QJsonObject inner = p.value(layerType).toObject();
            if (!fillRopeParameters(&inner, layerType + QLatin1Char('.'), fallbacks))
                return false;
            p.insert(layerType, inner);
        }
    } else {
        if (!fillRopeParameters(&p, QString(), fallbacks))
            return false;
        applyRopeQuirks(&p);
    }
    m_out.ropeParameters = p;
    return true;
}

// convert_rope_params_to_dict: `rope_scaling or rope_parameters`, each an object when given.
bool Reader::readRopeParameters(QJsonObject *p, QString *origin)
{
    const QJsonValue scaling = m_config.value(QLatin1String("rope_scaling"));
    const QJsonValue parameters = m_config.value(QLatin1String("rope_parameters"));
    for (const auto &[name, value] : {std::pair{QStringLiteral("rope_scaling"), scaling},
                                      std::pair{QStringLiteral("rope_parameters"), parameters}}) {
        if (!value.isUndefined() && !value.isNull() && !value.isObject())
            return fail(
                QStringLiteral("%1 must be an object, it is %2").arg(key(name), jsonText(value)));
    }
    if (!scaling.toObject().isEmpty()) {
        *p = scaling.toObject();
        *origin = key(QStringLiteral("rope_scaling"));
    } else if (parameters.isObject()) {
        *p = parameters.toObject();
        *origin = key(QStringLiteral("rope_parameters"));
    }
    if (!origin->isEmpty())
        read(QStringLiteral("rope_parameters from %1: %2")
                 .arg(*origin, p->keys().join(QLatin1String(", "))));
    return true;
}

// The top-level keys that fill what the rope parameters leave out, with their defaults.
bool Reader::readRopeFallbacks(RopeFallbacks *f)
{
    const QString type = m_out.modelType;
    f->neox = type == QLatin1String("gpt_neox");
    f->gptj = type == QLatin1String("gptj") || type == QLatin1String("codegen");
    f->phi3 = type == QLatin1String("phi3");
    f->thetaKey =
        f->neox ? QStringLiteral("rotary_emb_base") : QString(ropeHfKeyOf(&RopeConfig::ropeTheta));
    if (!realNumber(f->thetaKey, &f->theta))
        return false;
    f->defaultTheta = m_defaults && m_defaults->theta > 0 ? m_defaults->theta : 10000.0;
    f->defaultThetaOwner =
        m_defaults ? defaultOwner()
                   : QStringLiteral("transformers v5's RotaryEmbeddingConfigMixin.default_theta");
    // partial_rotary_factor when the parameters lack it: GPT-NeoX from rotary_pct (default
    // 0.25), Phi-3 1.0, others the config's key when present (setdefault in transformers v5).
    f->partialKey = f->neox ? QStringLiteral("rotary_pct")
                            : QString(ropeHfKeyOf(&RopeConfig::partialRotaryFactor));
    return realNumber(f->partialKey, &f->partial);
}

// rope_theta and partial_rotary_factor where `target` lacks them, then standardize.
bool Reader::fillRopeParameters(QJsonObject *target, const QString &what, const RopeFallbacks &f)
{
    const QLatin1StringView thetaKey = ropeHfKeyOf(&RopeConfig::ropeTheta);
    const QLatin1StringView partialKey = ropeHfKeyOf(&RopeConfig::partialRotaryFactor);
    if (!target->contains(thetaKey)) {
        if (f.theta) {
            target->insert(thetaKey, *f.theta);
            read(QStringLiteral("%1rope_theta = %2 (%3)")
                     .arg(what, number(*f.theta), key(f.thetaKey)));
        } else {
            target->insert(thetaKey, f.defaultTheta);
            assume(f.gptj
                       ? QStringLiteral("%1rope_theta = 10000: GPT-J's rotary embedding uses "
                                        "base 10000")
                             .arg(what)
                       : QStringLiteral("%1rope_theta = %2: the config has no %3; %4")
                             .arg(what, number(f.defaultTheta), f.thetaKey, f.defaultThetaOwner));
        }
    }
    if (f.neox && !target->contains(partialKey)) {
        const double value = f.partial.value_or(0.25);
        target->insert(partialKey, value);
        if (f.partial)
            read(QStringLiteral("%1partial_rotary_factor = %2 (%3)")
                     .arg(what, number(value), key(f.partialKey)));
        else
            assume(QStringLiteral("%1partial_rotary_factor = 0.25: the config has no "
                                  "rotary_pct; GPTNeoXConfig's default in transformers v5")
                       .arg(what));
    } else if (f.partial && !target->contains(partialKey)) {
        target->insert(partialKey, *f.partial);
        read(QStringLiteral("%1partial_rotary_factor = %2 (%3)")
                 .arg(what, number(*f.partial), key(f.partialKey)));
    } else if (!f.partial && f.phi3 && !target->contains(partialKey)) {
        target->insert(partialKey, 1.0);
        assume(QStringLiteral("%1partial_rotary_factor = 1: the config has none; Phi3Config "
                              "sets 1.0 (transformers v5)")
                   .arg(what));
    }
    return standardize(target, what);
}

// What Phi-3 and DeepSeek-V3's configuration classes change in one set of rope parameters.
void Reader::applyRopeQuirks(QJsonObject *p)
{
    const QString type = m_out.modelType;
    if (type == QLatin1String("phi3") || type == QLatin1String("phimoe")) {
        // Phi3Config: configs of the first releases say "su" (or "yarn") for LongRoPE.
        const QLatin1StringView typeKey = ropeHfKeyOf(&RopeConfig::ropeType);
        const QString ropeType = p->value(typeKey).toString();
        if (ropeType == QLatin1String("su") || ropeType == QLatin1String("yarn")) {
            p->insert(typeKey, QStringLiteral("longrope"));
            read(QStringLiteral("rope_type = longrope: Phi3Config renames \"%1\"").arg(ropeType));
        }
        // Phi3Config.convert_rope_params_to_dict renames "su" only after
        // standardize_rope_params, which copies the top-level original_max_position_embeddings
        // for llama3 / yarn / longrope alone; validate_rope then requires the key.
        if (ropeType == QLatin1String("su") &&
            !p->contains(ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings)))
            assume(QStringLiteral("transformers 5 refuses this config: Phi3Config renames "
                                  "rope_scaling's \"su\" to \"longrope\" after "
                                  "standardize_rope_params, which copies the top-level "
                                  "original_max_position_embeddings only for llama3, yarn and "
                                  "longrope, so validation raises KeyError: Missing required "
                                  "keys in `rope_parameters` for 'rope_type'='longrope': "
                                  "{'original_max_position_embeddings'}; pescope reads it as "
                                  "transformers 4 did, with the top-level "
                                  "original_max_position_embeddings%1")
                       .arg(m_out.originalMaxPositionEmbeddings > 0
                                ? QStringLiteral(" = %1").arg(m_out.originalMaxPositionEmbeddings)
                                : QString()));
    }
    if (type == QLatin1String("deepseek_v3")) {
        // DeepseekV3Config converts these to float ("models on the hub were saved as int").
        for (const QLatin1StringView k :
             {ropeHfKeyOf(&RopeConfig::betaFast), ropeHfKeyOf(&RopeConfig::betaSlow),
              ropeHfKeyOf(&RopeConfig::factor)}) {
            if (p->value(k).isDouble())
                p->insert(k, p->value(k).toDouble());
        }
    }
}

bool Reader::normalizePerLayerRope(const QString &globalKey, const QString &localKey,
                                   bool scalingToBoth)
{
    // Gemma3TextConfig / ModernBertConfig.convert_rope_params_to_dict.
    const QString fullName = fullAttention();
    const QString slidingName = slidingAttention();
    const QJsonValue scaling = m_config.value(QLatin1String("rope_scaling"));
    const QJsonValue parameters = m_config.value(QLatin1String("rope_parameters"));
    if (!scaling.isUndefined() && !scaling.isNull() && !scaling.isObject())
        return fail(QStringLiteral("%1 must be an object, it is %2")
                        .arg(key(QStringLiteral("rope_scaling")), jsonText(scaling)));
    if (!parameters.isUndefined() && !parameters.isNull() && !parameters.isObject())
        return fail(QStringLiteral("%1 must be an object, it is %2")
                        .arg(key(QStringLiteral("rope_parameters")), jsonText(parameters)));
    QJsonObject p;
    const QJsonObject defaultType{
        {QString(ropeHfKeyOf(&RopeConfig::ropeType)), QStringLiteral("default")}};
    if (parameters.isObject()) {
        p = parameters.toObject();
        read(QStringLiteral("rope_parameters per layer type from %1")
                 .arg(key(QStringLiteral("rope_parameters"))));
    } else {
        p.insert(slidingName, defaultType);
        p.insert(fullName, defaultType);
    }
    for (const QString &name : {fullName, slidingName}) {
        const QJsonValue entry = p.value(name);
        if (entry.isUndefined() || entry.isNull()) {
            p.insert(name, defaultType);
        } else if (!entry.isObject()) {
            return fail(QStringLiteral("rope_parameters.%1 must be an object").arg(name));
        }
    }
    QJsonObject fullParameters = p.value(fullName).toObject();
    QJsonObject slidingParameters = p.value(slidingName).toObject();
    if (scaling.isObject()) {
        const QJsonObject legacy = scaling.toObject();
        for (auto it = legacy.begin(); it != legacy.end(); ++it) {
            fullParameters.insert(it.key(), it.value());
            if (scalingToBoth)
                slidingParameters.insert(it.key(), it.value());
        }
        read(QStringLiteral("%1 (%2) applies to %3")
                 .arg(key(QStringLiteral("rope_scaling")), legacy.keys().join(QLatin1String(", ")),
                      scalingToBoth ? QStringLiteral("full and sliding layers")
                                    : QStringLiteral("the full-attention layers only")));
    }
    const auto theta = [&](QJsonObject *target, const QString &layerType, const QString &name,
                           double fallback) -> bool {
        const QLatin1StringView thetaKey = ropeHfKeyOf(&RopeConfig::ropeTheta);
        if (target->contains(thetaKey))
            return true;
        std::optional<double> value;
        if (!realNumber(name, &value))
            return false;
        target->insert(thetaKey, value.value_or(fallback));
        if (value)
            read(QStringLiteral("%1.rope_theta = %2 (%3)")
                     .arg(layerType, number(*value), key(name)));
        else
            assume(QStringLiteral("%1.rope_theta = %2: the config has no %3; %4")
                       .arg(layerType, number(fallback), name, defaultOwner()));
        return true;
    };
    if (!theta(&fullParameters, fullName, globalKey, m_defaults ? m_defaults->theta : 10000.0) ||
        !theta(&slidingParameters, slidingName, localKey,
               m_defaults ? m_defaults->localTheta : 10000.0))
        return false;
    p.insert(fullName, fullParameters);
    p.insert(slidingName, slidingParameters);

    // standardize_rope_params, case 2: each layer type present gets rope_type (and, for
    // llama3 / yarn / longrope, original_max_position_embeddings).
    const QSet<QString> present(m_layerTypes.cbegin(), m_layerTypes.cend());
    for (const QString &layerType : present) {
        if (!p.contains(layerType))
            return fail(
                QStringLiteral("rope_parameters has no entry for layer type %1").arg(layerType));
        QJsonObject inner = p.value(layerType).toObject();
        if (!standardize(&inner, layerType + QLatin1Char('.')))
            return false;
        p.insert(layerType, inner);
    }
    m_out.ropeParameters = p;
    m_out.ropeParametersPerLayerType = true;
    return true;
}

qint64 Reader::ropeHeadDim() const
{
    // DeepSeek V2/V3 rotate only the qk_rope_head_dim part of each head (transformers sets
    // head_dim = qk_rope_head_dim for the rotary embedding).
    const QJsonValue ropeHead = m_config.value(QLatin1String("qk_rope_head_dim"));
    if (const std::optional<qint64> dims = positiveWhole(ropeHead))
        return *dims;
    if (m_out.modelType == QLatin1String("deepseek_v3"))
        return 64;
    return m_out.headDim;
}

void Reader::buildLayers()
{
    const qint64 layers = m_out.numHiddenLayers;
    if (layers == 0) {
        assume(QStringLiteral("no layer map: the number of layers is unknown"));
        return;
    }
    if (m_layerTypes.size() != layers) {
        m_layerTypes.clear();
        for (qint64 i = 0; i < layers; ++i)
            m_layerTypes += fullAttention();
    }
    const bool cohere2 = m_out.modelType == QLatin1String("cohere2");
    const bool gptj =
        m_out.modelType == QLatin1String("gptj") || m_out.modelType == QLatin1String("codegen");
    qint64 rotaryDim = 0;
    if (gptj) {
        const QJsonValue v = m_config.value(QLatin1String("rotary_dim"));
        rotaryDim = positiveWhole(v).value_or(m_out.headDim);
        read(v.isDouble() ? QStringLiteral("rotated dims per head = %1 (%2)")
                                .arg(rotaryDim)
                                .arg(key(QStringLiteral("rotary_dim")))
                          : QStringLiteral("rotated dims per head = head_dim (no rotary_dim)"));
    }
    const qint64 ropeHead = ropeHeadDim();
    if (m_family == Family::Rope && ropeHead != m_out.headDim && !gptj)
        read(QStringLiteral("rotated part of each head = %1 (%2)")
                 .arg(ropeHead)
                 .arg(key(QStringLiteral("qk_rope_head_dim"))));
    m_out.layers.reserve(size_t(layers));
    for (qint64 i = 0; i < layers; ++i) {
        LayerPosition layer;
        layer.index = int(i);
        layer.layerType = m_layerTypes.at(i);
        if (layer.layerType == QLatin1String("full_attention")) {
            layer.attention = AttentionKind::Full;
        } else if (layer.layerType == QLatin1String("sliding_attention")) {
            layer.attention = AttentionKind::SlidingWindow;
            layer.window = m_slidingWindow;
        } else if (layer.layerType == QLatin1String("chunked_attention")) {
            layer.attention = AttentionKind::Chunked;
            layer.window = m_chunkSize;
        } else {
            layer.attention = AttentionKind::Other;
        }
        switch (m_family) {
        case Family::Rope: {
            // Cohere2: only the sliding layers rotate; its global layers have no positions.
            const bool rotates =
                m_ropeLayers[size_t(i)] && !(cohere2 && layer.attention == AttentionKind::Full);
            layer.position = rotates ? LayerPositionKind::Rope : LayerPositionKind::NoPE;
            if (rotates) {
                layer.rope = m_out.ropeParametersFor(layer.layerType);
                const double partial =
                    layer.rope.value(ropeHfKeyOf(&RopeConfig::partialRotaryFactor)).toDouble(1.0);
                // transformers: dim = int(head_dim * partial_rotary_factor).
                layer.rotaryDims = gptj ? rotaryDim : qint64(double(ropeHead) * partial);
            }
            break;
        }
        case Family::Gpt2:
        case Family::GptNeo:
        case Family::Opt:
        case Family::Bert:
        case Family::Roberta:
        case Family::DistilBert:
        case Family::Vit:
        case Family::Deit:
        case Family::Clip:
        case Family::Siglip:
            layer.position = LayerPositionKind::Absolute;
            break;
        case Family::Alibi:
            layer.position = LayerPositionKind::Alibi;
            break;
        case Family::T5:
            layer.position = LayerPositionKind::RelativeBias;
            break;
        case Family::Unknown:
            layer.position = LayerPositionKind::None;
            break;
        }
        m_out.layers.push_back(std::move(layer));
    }
    if (cohere2)
        read(QStringLiteral("Cohere2: full-attention layers without RoPE, sliding layers with "
                            "it (Cohere2Attention)"));
}

} // namespace

bool ModelConfig::usesRope() const
{
    return std::any_of(layers.cbegin(), layers.cend(), [](const LayerPosition &layer) {
        return layer.position == LayerPositionKind::Rope;
    });
}

QJsonObject ModelConfig::ropeParametersFor(const QString &layerType) const
{
    if (!ropeParametersPerLayerType)
        return ropeParameters;
    return ropeParameters.value(layerType).toObject();
}

std::optional<ModelConfig> parseHfConfig(const QJsonObject &config, const QString &source,
                                         QString *error)
{
    ModelConfig out;
    out.source = source;
    if (error)
        error->clear();
    const auto fail = [&](const QString &why) -> std::optional<ModelConfig> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(source, why);
        return std::nullopt;
    };
    const QJsonValue modelType = config.value(QLatin1String("model_type"));
    if (!modelType.isUndefined() && !modelType.isString())
        return fail(
            QStringLiteral("model_type must be a string, it is %1").arg(jsonText(modelType)));
    out.modelType = modelType.toString();
    const QJsonValue architectures = config.value(QLatin1String("architectures"));
    if (architectures.isArray()) {
        for (const QJsonValue name : architectures.toArray()) {
            if (!name.isString())
                return fail(QStringLiteral("architectures must list strings"));
            out.architectures += name.toString();
        }
    } else if (!architectures.isUndefined() && !architectures.isNull()) {
        return fail(
            QStringLiteral("architectures must be a list, it is %1").arg(jsonText(architectures)));
    }

    // Multimodal wrappers: the text model's positions (Gemma 3, Llama 4, LLaVA, ...), or for
    // CLIP / SigLIP the vision tower's patch grid.
    QJsonObject part = config;
    QString prefix;
    const bool visionWrapper =
        out.modelType == QLatin1String("clip") || out.modelType == QLatin1String("siglip");
    const QString subKey =
        visionWrapper ? QStringLiteral("vision_config") : QStringLiteral("text_config");
    const QJsonValue sub = config.value(subKey);
    if (sub.isObject() && (visionWrapper || !out.modelType.isEmpty())) {
        part = sub.toObject();
        prefix = subKey + QLatin1Char('.');
        out.wrapperModelType = out.modelType;
        const QJsonValue inner = part.value(QLatin1String("model_type"));
        if (!inner.isUndefined() && !inner.isString())
            return fail(QStringLiteral("%1model_type must be a string").arg(prefix));
        out.modelType = inner.isString()
                            ? inner.toString()
                            : out.modelType + (visionWrapper ? QStringLiteral("_vision_model")
                                                             : QStringLiteral("_text"));
        out.readFrom += QStringLiteral("the %1 model from %2 (model_type %3 inside %4)")
                            .arg(visionWrapper ? QStringLiteral("vision") : QStringLiteral("text"),
                                 subKey, out.modelType, out.wrapperModelType);
        if (visionWrapper)
            out.assumed += QStringLiteral("only the vision tower is described; the text tower's "
                                          "learned positions (text_config) are not");
    } else if (!sub.isUndefined() && !sub.isNull() && !sub.isObject()) {
        return fail(QStringLiteral("%1 must be an object").arg(subKey));
    }

    QString readerError;
    Reader reader(part, prefix, out, &readerError);
    if (!reader.run()) {
        if (error)
            *error = readerError;
        return std::nullopt;
    }
    return out;
}

std::optional<ModelConfig> readHfConfig(const QString &path, QString *error)
{
    MappedFile file;
    if (!file.open(path, error))
        return std::nullopt;
    return parseHfConfigText(QByteArrayView(file.data(), file.size()), file.path(), error);
}

std::optional<ModelConfig> parseHfConfigText(QByteArrayView text, const QString &source,
                                             QString *error)
{
    if (text.size() > limits::maxConfigBytes) {
        if (error)
            *error = QStringLiteral("%1: %2 bytes is too large for a config.json (the limit is %3)")
                         .arg(source)
                         .arg(text.size())
                         .arg(limits::maxConfigBytes);
        return std::nullopt;
    }
    // transformers reads config.json with json.loads (PretrainedConfig._dict_from_json_file),
    // which keeps the last of repeated keys, at every level: so does pescope (Qt's parser
    // does the same), unlike sessions, which refuse them.
    const std::optional<QJsonObject> json =
        parseJsonObject(text, source, error, 32, DuplicateKeys::KeepLast);
    if (!json)
        return std::nullopt;
    return parseHfConfig(*json, source, error);
}

} // namespace pe
