// Hugging Face config.json reader: published configs (tests/data/configs) give the layer maps
// and RoPE parameters their model cards and papers describe, normalized as transformers v5's
// RotaryEmbeddingConfigMixin does; legacy keys, per-layer-type parameters, NoPE layers and
// hostile configs. Expected values are written here from the models' documentation, not taken
// from pescope's output.
#include "formats/modelconfig.h"
#include "modelfilewriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace pe;
using namespace pe::test;

namespace {

QString fixture(const QString &name)
{
    return QFINDTESTDATA(QStringLiteral("data/configs/") + name);
}

ModelConfig load(const QString &name)
{
    QString error;
    const std::optional<ModelConfig> config = readHfConfig(fixture(name), &error);
    if (!config)
        qFatal("%s", qPrintable(error));
    return *config;
}

std::optional<ModelConfig> parse(const QByteArray &json, QString *error)
{
    return parseHfConfig(QJsonDocument::fromJson(json).object(), QStringLiteral("config.json"),
                         error);
}

ModelConfig parseOk(const QByteArray &json)
{
    QString error;
    const std::optional<ModelConfig> config = parse(json, &error);
    if (!config)
        qFatal("%s", qPrintable(error));
    return *config;
}

QJsonArray jsonArrayFromFixture(const QString &name, const QString &key)
{
    QFile file(fixture(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QLatin1String("rope_scaling"))
        .toObject()
        .value(key)
        .toArray();
}

bool anyContains(const QStringList &lines, const QString &text)
{
    for (const QString &line : lines)
        if (line.contains(text))
            return true;
    return false;
}

} // namespace

class TestHfConfig : public QObject
{
    Q_OBJECT

private slots:
    void gpt2LearnedTable();
    void bertAndRobertaOffsets();
    void optOffsetTwo();
    void vitPatchGrid();
    void llama2DefaultTheta();
    void llama31Llama3Scaling();
    void qwen25FullAttention();
    void gemma3LocalAndGlobal();
    void phi3LongRope();
    void phi35LongRope();
    void deepseekV3PartialHeads();
    void llama4ScoutNoPE();
    void modernBertLocalAndGlobal();
    void legacyRopeScalingVariants();
    void v5RopeParametersKept();
    void partialRotaryKeys();
    void perLayerNoRopeAndCohere2();
    void clipVisionTower();
    void hostileConfigs_data();
    void hostileConfigs();
    void hostileFiles();
    void repeatedKeysKeepTheLast();
};

void TestHfConfig::gpt2LearnedTable()
{
    // GPT-2 small: 12 layers, 12 heads, 768 dims, a learned table wpe of n_positions = 1024 rows.
    const ModelConfig c = load(QStringLiteral("gpt2.json"));
    QCOMPARE(c.modelType, QStringLiteral("gpt2"));
    QCOMPARE(c.architectures, QStringList{QStringLiteral("GPT2LMHeadModel")});
    QCOMPARE(c.hiddenSize, qint64(768));
    QCOMPARE(c.numAttentionHeads, qint64(12));
    QCOMPARE(c.numKeyValueHeads, qint64(12));
    QCOMPARE(c.headDim, qint64(64));
    QCOMPARE(c.numHiddenLayers, qint64(12));
    QCOMPARE(c.maxPositionEmbeddings, qint64(1024));
    QCOMPARE(c.absolute.kind, AbsolutePositionKind::Learned);
    QCOMPARE(c.absolute.tableRows, qint64(1024));
    QCOMPARE(c.absolute.offset, qint64(0));
    QCOMPARE(c.absolute.positions, qint64(1024));
    QVERIFY(c.absolute.tensorNames.contains(QStringLiteral("wpe.weight")));
    QVERIFY(c.absolute.tensorNames.contains(QStringLiteral("transformer.wpe.weight")));
    QCOMPARE(c.layers.size(), size_t(12));
    for (const LayerPosition &layer : c.layers) {
        QCOMPARE(layer.position, LayerPositionKind::Absolute);
        QCOMPARE(layer.attention, AttentionKind::Full);
        QVERIFY(layer.rope.isEmpty());
    }
    QVERIFY(c.ropeParameters.isEmpty());
    QVERIFY(!c.usesRope());
    QVERIFY(anyContains(c.readFrom, QStringLiteral("hidden_size = 768 (from n_embd)")));
    QVERIFY(anyContains(c.readFrom,
                        QStringLiteral("max_position_embeddings = 1024 (from n_positions)")));
    QVERIFY(c.assumed.isEmpty());
}

void TestHfConfig::bertAndRobertaOffsets()
{
    // BERT-base: 512 learned positions, position p at row p.
    const ModelConfig bert = load(QStringLiteral("bert-base-uncased.json"));
    QCOMPARE(bert.absolute.kind, AbsolutePositionKind::Learned);
    QCOMPARE(bert.absolute.tableRows, qint64(512));
    QCOMPARE(bert.absolute.offset, qint64(0));
    QCOMPARE(bert.absolute.tensorNames.front(),
             QStringLiteral("bert.embeddings.position_embeddings.weight"));
    QCOMPARE(bert.layers.size(), size_t(12));
    // RoBERTa-base: 514 rows; positions start at padding_idx + 1 = 2, so 512 are usable.
    const ModelConfig roberta = load(QStringLiteral("roberta-base.json"));
    QCOMPARE(roberta.absolute.tableRows, qint64(514));
    QCOMPARE(roberta.absolute.offset, qint64(2));
    QCOMPARE(roberta.absolute.positions, qint64(512));
    QCOMPARE(roberta.absolute.tensorNames.front(),
             QStringLiteral("roberta.embeddings.position_embeddings.weight"));
    QVERIFY(anyContains(roberta.readFrom, QStringLiteral("padding_idx + 1 = 2")));
    // BERT with relative position embeddings has no absolute table.
    const ModelConfig relative = parseOk(
        R"({"model_type":"bert","num_hidden_layers":2,"position_embedding_type":"relative_key"})");
    QCOMPARE(relative.absolute.kind, AbsolutePositionKind::None);
    QCOMPARE(relative.layers[0].position, LayerPositionKind::None);
}

void TestHfConfig::optOffsetTwo()
{
    // OPT-125m: OPTLearnedPositionalEmbedding has max_position_embeddings + 2 = 2050 rows and
    // looks position p up at row p + 2.
    const ModelConfig c = load(QStringLiteral("opt-125m.json"));
    QCOMPARE(c.absolute.kind, AbsolutePositionKind::Learned);
    QCOMPARE(c.absolute.tableRows, qint64(2050));
    QCOMPARE(c.absolute.offset, qint64(2));
    QCOMPARE(c.absolute.positions, qint64(2048));
    QCOMPARE(c.absolute.tensorNames.front(),
             QStringLiteral("model.decoder.embed_positions.weight"));
    QCOMPARE(c.layers.size(), size_t(12));
}

void TestHfConfig::vitPatchGrid()
{
    // ViT-B/16 at 224 px: 224 / 16 = 14 x 14 patches plus the [CLS] token: 197 positions.
    const ModelConfig c = load(QStringLiteral("vit-base-patch16-224.json"));
    QCOMPARE(c.absolute.kind, AbsolutePositionKind::PatchGrid);
    QCOMPARE(c.absolute.gridHeight, qint64(14));
    QCOMPARE(c.absolute.gridWidth, qint64(14));
    QCOMPARE(c.absolute.prefixTokens, qint64(1));
    QCOMPARE(c.absolute.tableRows, qint64(197));
    QCOMPARE(c.absolute.tensorNames.front(), QStringLiteral("vit.embeddings.position_embeddings"));
    QCOMPARE(c.imageSize, qint64(224));
    QCOMPARE(c.patchSize, qint64(16));
    QCOMPARE(c.layers.size(), size_t(12));
    QCOMPARE(c.layers[0].position, LayerPositionKind::Absolute);
}

void TestHfConfig::llama2DefaultTheta()
{
    // Llama 2 7B's config has no rope_theta: transformers uses its default base 10000.
    const ModelConfig c = load(QStringLiteral("llama-2-7b.json"));
    QCOMPARE(c.headDim, qint64(128));
    QCOMPARE(c.numKeyValueHeads, qint64(32));
    QCOMPARE(c.maxPositionEmbeddings, qint64(4096));
    const QJsonObject expected{{QStringLiteral("rope_type"), QStringLiteral("default")},
                               {QStringLiteral("rope_theta"), 10000.0}};
    QCOMPARE(c.ropeParameters, expected);
    QVERIFY(!c.ropeParametersPerLayerType);
    QCOMPARE(c.layers.size(), size_t(32));
    for (const LayerPosition &layer : c.layers) {
        QCOMPARE(layer.position, LayerPositionKind::Rope);
        QCOMPARE(layer.attention, AttentionKind::Full);
        QCOMPARE(layer.layerType, QStringLiteral("full_attention"));
        QCOMPARE(layer.rotaryDims, qint64(128));
        QCOMPARE(layer.rope, expected);
    }
    QVERIFY(
        anyContains(c.assumed, QStringLiteral("rope_theta = 10000: the config has no rope_theta")));
    QVERIFY(anyContains(c.assumed, QStringLiteral("rope_type = default")));
}

void TestHfConfig::llama31Llama3Scaling()
{
    // Llama 3.1 8B: base 500000, llama3 scaling by 8 from an 8192-token original context with
    // low/high frequency factors 1 and 4; 32 query heads sharing 8 KV heads of 128 dims.
    const ModelConfig c = load(QStringLiteral("llama-3.1-8b.json"));
    const QJsonObject expected{{QStringLiteral("rope_type"), QStringLiteral("llama3")},
                               {QStringLiteral("rope_theta"), 500000.0},
                               {QStringLiteral("factor"), 8.0},
                               {QStringLiteral("low_freq_factor"), 1.0},
                               {QStringLiteral("high_freq_factor"), 4.0},
                               {QStringLiteral("original_max_position_embeddings"), 8192}};
    QCOMPARE(c.ropeParameters, expected);
    QCOMPARE(c.numKeyValueHeads, qint64(8));
    QCOMPARE(c.maxPositionEmbeddings, qint64(131072));
    QCOMPARE(c.layers.size(), size_t(32));
    QCOMPARE(c.layers[31].rope, expected);
    QCOMPARE(c.layers[31].rotaryDims, qint64(128));
    QVERIFY(anyContains(c.readFrom, QStringLiteral("rope_theta = 500000 (rope_theta)")));
}

void TestHfConfig::qwen25FullAttention()
{
    // Qwen2.5-7B-Instruct: base 1e6; sliding_window is set but use_sliding_window is false, so
    // all 28 layers attend fully; 28 heads of 3584 / 28 = 128 dims, 4 KV heads.
    const ModelConfig c = load(QStringLiteral("qwen2.5-7b-instruct.json"));
    QCOMPARE(c.ropeParameters,
             (QJsonObject{{QStringLiteral("rope_type"), QStringLiteral("default")},
                          {QStringLiteral("rope_theta"), 1000000.0}}));
    QCOMPARE(c.headDim, qint64(128));
    QCOMPARE(c.numKeyValueHeads, qint64(4));
    QCOMPARE(c.layers.size(), size_t(28));
    for (const LayerPosition &layer : c.layers) {
        QCOMPARE(layer.attention, AttentionKind::Full);
        QCOMPARE(layer.window, qint64(0));
    }
}

void TestHfConfig::gemma3LocalAndGlobal()
{
    // Gemma 3 4B (technical report): five local layers (1024-token window, RoPE base 10k) per
    // global layer (base 1M, positions interpolated by 8 for 128K context); 34 layers, so the
    // global ones are 6, 12, 18, 24, 30 (indices 5, 11, 17, 23, 29). The text_config gives
    // only what differs from Gemma3TextConfig: 8 heads, 4 KV heads, head_dim 256 are defaults.
    const ModelConfig c = load(QStringLiteral("gemma-3-4b-it.json"));
    QCOMPARE(c.wrapperModelType, QStringLiteral("gemma3"));
    QCOMPARE(c.modelType, QStringLiteral("gemma3_text"));
    QCOMPARE(c.hiddenSize, qint64(2560));
    QCOMPARE(c.numAttentionHeads, qint64(8));
    QCOMPARE(c.numKeyValueHeads, qint64(4));
    QCOMPARE(c.headDim, qint64(256));
    QCOMPARE(c.numHiddenLayers, qint64(34));
    QCOMPARE(c.maxPositionEmbeddings, qint64(131072));
    QVERIFY(c.ropeParametersPerLayerType);
    const QJsonObject global{{QStringLiteral("rope_type"), QStringLiteral("linear")},
                             {QStringLiteral("factor"), 8.0},
                             {QStringLiteral("rope_theta"), 1000000.0}};
    const QJsonObject local{{QStringLiteral("rope_type"), QStringLiteral("default")},
                            {QStringLiteral("rope_theta"), 10000.0}};
    QCOMPARE(c.ropeParameters, (QJsonObject{{QStringLiteral("full_attention"), global},
                                            {QStringLiteral("sliding_attention"), local}}));
    QCOMPARE(c.ropeParametersFor(QStringLiteral("full_attention")), global);
    QCOMPARE(c.layers.size(), size_t(34));
    for (const LayerPosition &layer : c.layers) {
        const bool isGlobal = QList<int>{5, 11, 17, 23, 29}.contains(layer.index);
        QCOMPARE(layer.position, LayerPositionKind::Rope);
        QCOMPARE(layer.attention, isGlobal ? AttentionKind::Full : AttentionKind::SlidingWindow);
        QCOMPARE(layer.window, isGlobal ? qint64(0) : qint64(1024));
        QCOMPARE(layer.rope, isGlobal ? global : local);
        QCOMPARE(layer.rotaryDims, qint64(256));
    }
    QVERIFY(anyContains(c.assumed, QStringLiteral("sliding_window_pattern = 6")));
    QVERIFY(anyContains(c.assumed, QStringLiteral("full_attention.rope_theta = 1000000")));
    QVERIFY(anyContains(c.assumed, QStringLiteral("sliding_attention.rope_theta = 10000")));
    QVERIFY(anyContains(c.assumed, QStringLiteral("head_dim = 256")));
    QVERIFY(anyContains(c.readFrom, QStringLiteral("text_config")));
    // Given as keys, the local base is rope_local_base_freq.
    const ModelConfig keyed = parseOk(R"({"model_type":"gemma3_text","num_hidden_layers":6,
        "rope_theta":1000000.0,"rope_local_base_freq":20000.0,"sliding_window":512})");
    QCOMPARE(keyed.layers[0].rope.value(QLatin1String("rope_theta")).toDouble(), 20000.0);
    QCOMPARE(keyed.layers[5].rope.value(QLatin1String("rope_type")).toString(),
             QStringLiteral("default"));
    QCOMPARE(keyed.layers[5].attention, AttentionKind::Full);
}

void TestHfConfig::phi3LongRope()
{
    // Phi-3-mini-128k-instruct (first release): LongRoPE, named "su" then, with 48 short and 48
    // long factors (head_dim 96 / 2), extending a 4096-token original context to 131072.
    // transformers v5 (Phi3Config) standardizes "su" as it comes, then renames it "longrope";
    // since "su" is not among llama3/yarn/longrope when standardize_rope_params runs, the
    // parameters get no original_max_position_embeddings (the top-level key stays available).
    const ModelConfig c = load(QStringLiteral("phi-3-mini-128k-instruct.json"));
    QCOMPARE(c.headDim, qint64(96));
    QCOMPARE(c.originalMaxPositionEmbeddings, qint64(4096));
    const QJsonArray longFactor = jsonArrayFromFixture(
        QStringLiteral("phi-3-mini-128k-instruct.json"), QStringLiteral("long_factor"));
    const QJsonArray shortFactor = jsonArrayFromFixture(
        QStringLiteral("phi-3-mini-128k-instruct.json"), QStringLiteral("short_factor"));
    QCOMPARE(longFactor.size(), 48);
    QCOMPARE(shortFactor.size(), 48);
    QCOMPARE(longFactor.at(0).toDouble(), 1.0299999713897705);
    QCOMPARE(shortFactor.at(47).toDouble(), 3.049999999999997);
    const QJsonObject expected{{QStringLiteral("rope_type"), QStringLiteral("longrope")},
                               {QStringLiteral("type"), QStringLiteral("su")},
                               {QStringLiteral("rope_theta"), 10000.0},
                               {QStringLiteral("partial_rotary_factor"), 1.0},
                               {QStringLiteral("long_factor"), longFactor},
                               {QStringLiteral("short_factor"), shortFactor}};
    QCOMPARE(c.ropeParameters, expected);
    QCOMPARE(c.layers.size(), size_t(32));
    QCOMPARE(c.layers[0].rotaryDims, qint64(96));
    // Phi-3 sets sliding_window 262144 for every layer: longer than its context.
    QCOMPARE(c.layers[0].attention, AttentionKind::SlidingWindow);
    QCOMPARE(c.layers[0].window, qint64(262144));
    QVERIFY(anyContains(c.readFrom, QStringLiteral("Phi3Config renames \"su\"")));
    QVERIFY(anyContains(c.assumed, QStringLiteral("partial_rotary_factor = 1")));
}

void TestHfConfig::phi35LongRope()
{
    // Phi-3.5-mini-instruct says "longrope": standardize_rope_params adds
    // original_max_position_embeddings, Phi3Config's top-level 4096.
    const ModelConfig c = load(QStringLiteral("phi-3.5-mini-instruct.json"));
    QCOMPARE(c.ropeParameters.value(QLatin1String("rope_type")).toString(),
             QStringLiteral("longrope"));
    QCOMPARE(c.ropeParameters.value(QLatin1String("original_max_position_embeddings")).toInteger(),
             qint64(4096));
    QCOMPARE(c.ropeParameters.value(QLatin1String("long_factor")).toArray(),
             jsonArrayFromFixture(QStringLiteral("phi-3.5-mini-instruct.json"),
                                  QStringLiteral("long_factor")));
    QCOMPARE(c.ropeParameters.size(), qsizetype(7));
}

void TestHfConfig::deepseekV3PartialHeads()
{
    // DeepSeek-V3: multi-head latent attention rotates only qk_rope_head_dim = 64 dims of each
    // head; YaRN by 40 from a 4096-token context (163840 positions), mscale 1.0.
    const ModelConfig c = load(QStringLiteral("deepseek-v3.json"));
    QCOMPARE(c.numHiddenLayers, qint64(61));
    QCOMPARE(c.headDim, qint64(64));
    const QJsonObject expected{{QStringLiteral("rope_type"), QStringLiteral("yarn")},
                               {QStringLiteral("type"), QStringLiteral("yarn")},
                               {QStringLiteral("rope_theta"), 10000.0},
                               {QStringLiteral("factor"), 40.0},
                               {QStringLiteral("beta_fast"), 32.0},
                               {QStringLiteral("beta_slow"), 1.0},
                               {QStringLiteral("mscale"), 1.0},
                               {QStringLiteral("mscale_all_dim"), 1.0},
                               {QStringLiteral("original_max_position_embeddings"), 4096}};
    QCOMPARE(c.ropeParameters, expected);
    QCOMPARE(c.layers.size(), size_t(61));
    QCOMPARE(c.layers[60].rotaryDims, qint64(64));
    QCOMPARE(c.layers[60].position, LayerPositionKind::Rope);
}

void TestHfConfig::llama4ScoutNoPE()
{
    // Llama 4 Scout (iRoPE): three chunked-attention RoPE layers (8192-token chunks), then one
    // global layer without positional encoding; no_rope_layers is empty, so transformers builds
    // it with no_rope_layer_interval 4: layers 3, 7, ..., 47 are NoPE (12 of 48).
    const ModelConfig c = load(QStringLiteral("llama-4-scout-17b-16e.json"));
    QCOMPARE(c.modelType, QStringLiteral("llama4_text"));
    QCOMPARE(c.wrapperModelType, QStringLiteral("llama4"));
    const QJsonObject expected{{QStringLiteral("rope_type"), QStringLiteral("llama3")},
                               {QStringLiteral("rope_theta"), 500000.0},
                               {QStringLiteral("factor"), 8.0},
                               {QStringLiteral("high_freq_factor"), 4.0},
                               {QStringLiteral("low_freq_factor"), 1.0},
                               {QStringLiteral("original_max_position_embeddings"), 8192}};
    QCOMPARE(c.ropeParameters, expected);
    QCOMPARE(c.layers.size(), size_t(48));
    int nope = 0;
    for (const LayerPosition &layer : c.layers) {
        const bool isNope = layer.index % 4 == 3;
        nope += isNope;
        QCOMPARE(layer.position, isNope ? LayerPositionKind::NoPE : LayerPositionKind::Rope);
        QCOMPARE(layer.attention, isNope ? AttentionKind::Full : AttentionKind::Chunked);
        QCOMPARE(layer.layerType,
                 isNope ? QStringLiteral("full_attention") : QStringLiteral("chunked_attention"));
        QCOMPARE(layer.window, isNope ? qint64(0) : qint64(8192));
        QCOMPARE(layer.rope, isNope ? QJsonObject() : expected);
        QCOMPARE(layer.rotaryDims, isNope ? qint64(0) : qint64(128));
    }
    QCOMPARE(nope, 12);
    QVERIFY(anyContains(c.assumed, QStringLiteral("no_rope_layer_interval = 4")));
}

void TestHfConfig::modernBertLocalAndGlobal()
{
    // ModernBERT-base (paper): global attention every third layer with RoPE base 160000, the
    // others local with a 128-token window (+-64) and base 10000; 22 layers, 12 heads of 64.
    const ModelConfig c = load(QStringLiteral("modernbert-base.json"));
    QCOMPARE(c.headDim, qint64(64));
    const QJsonObject global{{QStringLiteral("rope_type"), QStringLiteral("default")},
                             {QStringLiteral("rope_theta"), 160000.0}};
    const QJsonObject local{{QStringLiteral("rope_type"), QStringLiteral("default")},
                            {QStringLiteral("rope_theta"), 10000.0}};
    QCOMPARE(c.ropeParameters, (QJsonObject{{QStringLiteral("full_attention"), global},
                                            {QStringLiteral("sliding_attention"), local}}));
    QCOMPARE(c.layers.size(), size_t(22));
    for (const LayerPosition &layer : c.layers) {
        const bool isGlobal = layer.index % 3 == 0;
        QCOMPARE(layer.attention, isGlobal ? AttentionKind::Full : AttentionKind::SlidingWindow);
        QCOMPARE(layer.window, isGlobal ? qint64(0) : qint64(64));
        QCOMPARE(layer.rope, isGlobal ? global : local);
        QCOMPARE(layer.rotaryDims, qint64(64));
    }
    QCOMPARE(c.absolute.kind, AbsolutePositionKind::None);
}

void TestHfConfig::legacyRopeScalingVariants()
{
    // The legacy `type` key becomes rope_type (and stays, as transformers v5 leaves it).
    const ModelConfig dynamic = parseOk(R"({"model_type":"llama","num_hidden_layers":1,
        "hidden_size":64,"num_attention_heads":2,"rope_theta":10000.0,
        "rope_scaling":{"type":"dynamic","factor":2.0}})");
    QCOMPARE(dynamic.ropeParameters,
             (QJsonObject{{QStringLiteral("type"), QStringLiteral("dynamic")},
                          {QStringLiteral("rope_type"), QStringLiteral("dynamic")},
                          {QStringLiteral("factor"), 2.0},
                          {QStringLiteral("rope_theta"), 10000.0}}));
    QCOMPARE(dynamic.layers[0].rotaryDims, qint64(32));
    // YaRN without original_max_position_embeddings: max_position_embeddings stands in.
    const ModelConfig yarn = parseOk(R"({"model_type":"qwen2","num_hidden_layers":1,
        "max_position_embeddings":32768,"rope_theta":1e6,
        "rope_scaling":{"rope_type":"yarn","factor":4.0}})");
    QCOMPARE(
        yarn.ropeParameters.value(QLatin1String("original_max_position_embeddings")).toInteger(),
        qint64(32768));
    QVERIFY(anyContains(yarn.assumed, QStringLiteral("original_max_position_embeddings = 32768")));
    // An empty rope_scaling falls through to rope_parameters, as `rope_scaling or ...` does.
    const ModelConfig fallback = parseOk(R"({"model_type":"llama","num_hidden_layers":1,
        "rope_scaling":{},"rope_parameters":{"rope_type":"linear","factor":2.0,"rope_theta":5e5}})");
    QCOMPARE(fallback.ropeParameters.value(QLatin1String("rope_type")).toString(),
             QStringLiteral("linear"));
    QCOMPARE(fallback.ropeParameters.value(QLatin1String("rope_theta")).toDouble(), 5e5);
    // A model type pescope does not know, but with RoPE keys: rotary, mixin default base.
    const ModelConfig unknown = parseOk(R"({"model_type":"mystery","num_hidden_layers":2,
        "hidden_size":128,"num_attention_heads":2,"rope_scaling":{"rope_type":"linear","factor":4}})");
    QCOMPARE(unknown.layers[1].position, LayerPositionKind::Rope);
    QCOMPARE(unknown.ropeParameters.value(QLatin1String("rope_theta")).toDouble(), 10000.0);
    QVERIFY(
        anyContains(unknown.assumed, QStringLiteral("RotaryEmbeddingConfigMixin.default_theta")));
}

void TestHfConfig::v5RopeParametersKept()
{
    // A config saved by transformers v5 already has rope_parameters; they come through as they
    // are, one object per layer type where the config has layer types.
    const ModelConfig flat = parseOk(R"({"model_type":"llama","num_hidden_layers":2,
        "rope_parameters":{"rope_type":"llama3","rope_theta":500000.0,"factor":32.0,
        "low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192}})");
    QCOMPARE(flat.ropeParameters.size(), qsizetype(6));
    QCOMPARE(flat.ropeParameters.value(QLatin1String("factor")).toDouble(), 32.0);
    const ModelConfig nested = parseOk(R"({"model_type":"mystery","num_hidden_layers":3,
        "hidden_size":64,"num_attention_heads":1,"sliding_window":16,
        "layer_types":["sliding_attention","sliding_attention","full_attention"],
        "rope_parameters":{"full_attention":{"rope_type":"yarn","factor":4.0,"rope_theta":1e6,
        "original_max_position_embeddings":4096},"sliding_attention":{"rope_theta":1e4}}})");
    QVERIFY(nested.ropeParametersPerLayerType);
    QCOMPARE(nested.layers[0].rope,
             (QJsonObject{{QStringLiteral("rope_theta"), 1e4},
                          {QStringLiteral("rope_type"), QStringLiteral("default")}}));
    QCOMPARE(nested.layers[0].window, qint64(16));
    QCOMPARE(nested.layers[2].rope.value(QLatin1String("rope_type")).toString(),
             QStringLiteral("yarn"));
    QCOMPARE(nested.layers[2].attention, AttentionKind::Full);
}

void TestHfConfig::partialRotaryKeys()
{
    // GPT-NeoX: rotary_pct and rotary_emb_base (GPTNeoXConfig maps them); Pythia rotates 25%.
    const ModelConfig neox = parseOk(R"({"model_type":"gpt_neox","num_hidden_layers":2,
        "hidden_size":512,"num_attention_heads":8,"rotary_pct":0.25,"rotary_emb_base":10000})");
    QCOMPARE(neox.ropeParameters,
             (QJsonObject{{QStringLiteral("rope_type"), QStringLiteral("default")},
                          {QStringLiteral("rope_theta"), 10000.0},
                          {QStringLiteral("partial_rotary_factor"), 0.25}}));
    QCOMPARE(neox.layers[0].rotaryDims, qint64(16));
    // Phi-2: partial_rotary_factor 0.4 of an 80-dim head: int(32.0) = 32 rotated dims.
    const ModelConfig phi2 = parseOk(R"({"model_type":"phi","num_hidden_layers":32,
        "hidden_size":2560,"num_attention_heads":32,"partial_rotary_factor":0.4,"rope_theta":10000.0})");
    QCOMPARE(phi2.ropeParameters.value(QLatin1String("partial_rotary_factor")).toDouble(), 0.4);
    QCOMPARE(phi2.layers[0].rotaryDims, qint64(32));
    // GPT-J: rotary_dim columns rotate.
    const ModelConfig gptj = parseOk(R"({"model_type":"gptj","n_layer":28,"n_embd":4096,
        "n_head":16,"rotary_dim":64,"n_positions":2048})");
    QCOMPARE(gptj.layers[27].rotaryDims, qint64(64));
    QCOMPARE(gptj.headDim, qint64(256));
    QCOMPARE(gptj.maxPositionEmbeddings, qint64(2048));
}

void TestHfConfig::perLayerNoRopeAndCohere2()
{
    // SmolLM3 lists no_rope_layers explicitly: 1 rotates, 0 does not.
    const ModelConfig smol = parseOk(R"({"model_type":"smollm3","num_hidden_layers":4,
        "hidden_size":64,"num_attention_heads":2,"rope_theta":2000000.0,
        "no_rope_layers":[1,0,1,1],"no_rope_layer_interval":4})");
    QCOMPARE(smol.layers[0].position, LayerPositionKind::Rope);
    QCOMPARE(smol.layers[1].position, LayerPositionKind::NoPE);
    QCOMPARE(smol.layers[3].position, LayerPositionKind::Rope);
    QVERIFY(smol.layers[1].rope.isEmpty());
    // Cohere2: every 4th layer global, and the global layers have no RoPE.
    const ModelConfig cohere = parseOk(R"({"model_type":"cohere2","num_hidden_layers":8,
        "hidden_size":64,"num_attention_heads":2,"sliding_window":4096,"sliding_window_pattern":4,
        "rope_theta":50000.0})");
    for (const LayerPosition &layer : cohere.layers) {
        const bool global = layer.index % 4 == 3;
        QCOMPARE(layer.attention, global ? AttentionKind::Full : AttentionKind::SlidingWindow);
        QCOMPARE(layer.position, global ? LayerPositionKind::NoPE : LayerPositionKind::Rope);
    }
    // Mistral 7B v0.1: a 4096-token window in every layer.
    const ModelConfig mistral = parseOk(R"({"model_type":"mistral","num_hidden_layers":2,
        "sliding_window":4096,"rope_theta":10000.0})");
    QCOMPARE(mistral.layers[1].attention, AttentionKind::SlidingWindow);
    QCOMPARE(mistral.layers[1].window, qint64(4096));
    const ModelConfig noWindow = parseOk(R"({"model_type":"mistral","num_hidden_layers":2,
        "sliding_window":null,"rope_theta":1e6})");
    QCOMPARE(noWindow.layers[1].attention, AttentionKind::Full);
}

void TestHfConfig::clipVisionTower()
{
    // CLIP ViT-L/14 at 224 px: 16 x 16 patches + class embedding = 257 rows.
    const ModelConfig clip = parseOk(R"({"model_type":"clip","architectures":["CLIPModel"],
        "text_config":{"max_position_embeddings":77},"vision_config":{"hidden_size":1024,
        "image_size":224,"patch_size":14,"num_hidden_layers":24,"num_attention_heads":16}})");
    QCOMPARE(clip.modelType, QStringLiteral("clip_vision_model"));
    QCOMPARE(clip.absolute.kind, AbsolutePositionKind::PatchGrid);
    QCOMPARE(clip.absolute.gridWidth, qint64(16));
    QCOMPARE(clip.absolute.tableRows, qint64(257));
    QCOMPARE(clip.absolute.tensorNames.front(),
             QStringLiteral("vision_model.embeddings.position_embedding.weight"));
    QCOMPARE(clip.layers.size(), size_t(24));
    // image_size and patch_size as [h, w] lists.
    const ModelConfig listed = parseOk(R"({"model_type":"siglip_vision_model",
        "image_size":[384,384],"patch_size":[16,16],"num_hidden_layers":1})");
    QCOMPARE(listed.absolute.gridHeight, qint64(24));
    QCOMPARE(listed.absolute.prefixTokens, qint64(0));
    QCOMPARE(listed.absolute.tableRows, qint64(576));
}

void TestHfConfig::hostileConfigs_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    QTest::addRow("hidden_size a string")
        << QByteArray(R"({"model_type":"llama","hidden_size":"4096"})")
        << QStringLiteral("hidden_size must be a whole number from 0 to 9007199254740992 (got "
                          "\"4096\")");
    // Issue 35: numbers no integer type holds are refused by name, never cast.
    const QString layersRange =
        QStringLiteral("num_hidden_layers must be a whole number from 0 to 9007199254740992");
    QTest::addRow("layers 3.3e56")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":3.3e56})") << layersRange;
    QTest::addRow("layers -3.3e56")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":-3.3e56})") << layersRange;
    QTest::addRow("layers 2^63")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":9223372036854775808})")
        << layersRange;
    QTest::addRow("qk_rope_head_dim 3.3e56 beside head_dim")
        << QByteArray(R"({"model_type":"deepseek_v2","num_hidden_layers":1,"head_dim":128,
            "qk_rope_head_dim":3.3e56})")
        << QStringLiteral("qk_rope_head_dim must be a whole number from 0 to 9007199254740992");
    QTest::addRow("qk_rope_head_dim -1e300")
        << QByteArray(R"({"model_type":"deepseek_v2","num_hidden_layers":1,"head_dim":128,
            "qk_rope_head_dim":-1e300})")
        << QStringLiteral("qk_rope_head_dim must be a whole number from 0 to 9007199254740992");
    QTest::addRow("rotary_dim 1e300")
        << QByteArray(R"({"model_type":"gptj","n_layer":1,"n_embd":64,"n_head":2,
            "rotary_dim":1e300})")
        << QStringLiteral("rotary_dim must be a whole number from 0 to 9007199254740992");
    QTest::addRow("rotary_dim 2.5")
        << QByteArray(R"({"model_type":"gptj","n_layer":1,"n_embd":64,"n_head":2,
            "rotary_dim":2.5})")
        << QStringLiteral("rotary_dim must be a whole number from 0 to 9007199254740992");

    QTest::addRow("negative layers")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":-1})")
        << QStringLiteral("num_hidden_layers must be a whole number");
    QTest::addRow("fractional heads") << QByteArray(R"({"model_type":"gpt2","n_head":1.5})")
                                      << QStringLiteral("n_head must be a whole number");
    QTest::addRow("a billion layers")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":1000000000})")
        << QStringLiteral("1000000000 layers is more than pescope maps");
    QTest::addRow("layers 1e300") << QByteArray(
                                         R"({"model_type":"llama","num_hidden_layers":1e300})")
                                  << QStringLiteral("must be a whole number");
    QTest::addRow("layer_types too short")
        << QByteArray(
               R"({"model_type":"qwen2","num_hidden_layers":3,"layer_types":["full_attention"]})")
        << QStringLiteral("layer_types lists 1 layers, but num_hidden_layers is 3");
    QTest::addRow("layer_types of numbers")
        << QByteArray(R"({"model_type":"qwen2","num_hidden_layers":1,"layer_types":[1]})")
        << QStringLiteral("layer_types must list strings");
    QTest::addRow("no_rope_layers too short")
        << QByteArray(
               R"({"model_type":"llama4_text","num_hidden_layers":4,"no_rope_layers":[1,0]})")
        << QStringLiteral("no_rope_layers lists 2 layers, fewer than num_hidden_layers = 4");
    QTest::addRow("no_rope_layers value 2")
        << QByteArray(
               R"({"model_type":"llama4_text","num_hidden_layers":2,"no_rope_layers":[1,2]})")
        << QStringLiteral("no_rope_layers[1] must be 0 or 1");
    QTest::addRow("no_rope_layer_interval 0")
        << QByteArray(
               R"({"model_type":"llama4_text","num_hidden_layers":2,"no_rope_layer_interval":0})")
        << QStringLiteral("no_rope_layer_interval must be at least 1");
    QTest::addRow("rope_scaling a list")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":1,"rope_scaling":[8]})")
        << QStringLiteral("rope_scaling must be an object");
    QTest::addRow("rope_theta a string")
        << QByteArray(R"({"model_type":"llama","num_hidden_layers":1,"rope_theta":"1e4"})")
        << QStringLiteral("rope_theta must be a number");
    QTest::addRow("rope_type a number")
        << QByteArray(
               R"({"model_type":"llama","num_hidden_layers":1,"rope_scaling":{"rope_type":3}})")
        << QStringLiteral("rope_type must be a string");
    QTest::addRow("model_type a number")
        << QByteArray(R"({"model_type":7})") << QStringLiteral("model_type must be a string");
    QTest::addRow("text_config a string")
        << QByteArray(R"({"model_type":"gemma3","text_config":"x"})")
        << QStringLiteral("text_config must be an object");
    QTest::addRow("architectures a string") << QByteArray(R"({"architectures":"GPT2"})")
                                            << QStringLiteral("architectures must be a list");
    QTest::addRow("vision model without sizes")
        << QByteArray(R"({"model_type":"vit","image_size":0})")
        << QStringLiteral("a vision model needs image_size and patch_size");
    QTest::addRow("unequal patch sides")
        << QByteArray(R"({"model_type":"vit","patch_size":[16,14]})")
        << QStringLiteral("patch_size must be one number or two equal ones");
    QTest::addRow("per-layer entry missing")
        << QByteArray(R"({"model_type":"gemma3_text","num_hidden_layers":6,
              "rope_parameters":{"full_attention":3}})")
        << QStringLiteral("rope_parameters.full_attention must be an object");
}

void TestHfConfig::hostileConfigs()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    QString error;
    QVERIFY(!QJsonDocument::fromJson(json).isNull());
    QVERIFY(!parse(json, &error));
    QVERIFY2(error.startsWith(QLatin1String("config.json: ")) && error.contains(expected),
             qPrintable(error));
}

void TestHfConfig::hostileFiles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("config.json"));
    QString error;
    const auto refuses = [&](const QByteArray &bytes, const QString &expected) {
        if (!writeBytes(file, bytes))
            return false;
        const bool refused = !readHfConfig(file, &error);
        const bool ok =
            refused && error.startsWith(file + QLatin1String(": ")) && error.contains(expected);
        if (!ok)
            qWarning("%s", qPrintable(error));
        return ok;
    };
    QVERIFY(refuses("not json", QStringLiteral("invalid JSON at byte")));
    QVERIFY(refuses("[1, 2]", QStringLiteral("not an object")));
    QVERIFY(refuses("{\"a\":" + QByteArray(10000, '[') + QByteArray(10000, ']') + "}",
                    QStringLiteral("nested deeper than 32 levels")));
    QVERIFY(
        refuses(QByteArray(17 * 1024 * 1024, ' '), QStringLiteral("too large for a config.json")));
    QVERIFY(refuses({}, QStringLiteral("invalid JSON")));
    QVERIFY(!readHfConfig(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.contains(QLatin1String("no such file")), qPrintable(error));
    QVERIFY(!readHfConfig(dir.path(), &error));
    QVERIFY2(error.contains(QLatin1String("is a folder")), qPrintable(error));
}

void TestHfConfig::repeatedKeysKeepTheLast()
{
    // transformers reads config.json with Python's json.loads, which keeps the last of
    // repeated keys (json.loads('{"a":1,"a":2}') == {'a': 2}), at the top level and inside:
    // pescope reads the same numbers.
    QString error;
    const std::optional<ModelConfig> config = parseHfConfigText(
        R"({"model_type":"llama","hidden_size":768,"num_attention_heads":8,)"
        R"("num_hidden_layers":2,"hidden_size":1024,"rope_theta":10000,)"
        R"("rope_scaling":{"rope_type":"linear","factor":2.0,"factor":4.0},"rope_theta":500000})",
        QStringLiteral("config.json"), &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->hiddenSize, qint64(1024));
    QCOMPARE(config->headDim, qint64(128));
    QCOMPARE(config->ropeParameters.value(QStringLiteral("rope_theta")).toDouble(), 500000.0);
    QCOMPARE(config->ropeParameters.value(QStringLiteral("factor")).toDouble(), 4.0);
}

QTEST_GUILESS_MAIN(TestHfConfig)
#include "tst_hfconfig.moc"
