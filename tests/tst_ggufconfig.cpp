// A GGUF file's llama.cpp metadata read as a model config (core/formats/ggufconfig.h): small
// files written here from gguf-py's key names, the layer map and RoPE parameters checked against
// values derived in the test (llama.cpp's converter and HF's formulas transcribed in float64),
// hostile metadata refused with one message naming the key, and the command line on a .gguf.
#include "modelfilewriter.h"
#include "testutil.h"

#include "formats/ggufconfig.h"
#include "formats/gguffile.h"
#include "model/modelspec.h"
#include "rope/ropefrequencies.h"
#include "rope/ropetables.h"
#include "schemes/ropescheme.h"

#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <numbers>

using namespace pe;
using test::GgufBuilder;

namespace {

constexpr double pi = std::numbers::pi;

// convert_hf_to_gguf.py (LlamaModel.generate_extra_tensors) for Llama 3.1: the per-pair divisors
// it stores as rope_freqs.weight, in float64.
std::vector<double> llama31Divisors()
{
    const double base = 500000.0, factor = 8.0, low = 1.0, high = 4.0, old = 8192.0;
    std::vector<double> out;
    for (int i = 0; i < 64; ++i) {
        const double freq = 1.0 / std::pow(base, 2.0 * i / 128.0);
        const double wavelen = 2 * pi / freq;
        if (wavelen < old / high)
            out.push_back(1.0);
        else if (wavelen > old / low)
            out.push_back(factor);
        else {
            const double smooth = (old / wavelen - low) / (high - low);
            out.push_back(1.0 / ((1 - smooth) / factor + smooth));
        }
    }
    return out;
}

std::vector<float> toFloat(const std::vector<double> &v)
{
    return {v.begin(), v.end()};
}

// A llama-architecture header: the keys every llama.cpp file of that kind has.
GgufBuilder llamaBuilder(const QByteArray &arch = "llama", quint32 layers = 4)
{
    GgufBuilder b;
    b.addString("general.architecture", arch);
    b.addU32(arch + ".context_length", 131072);
    b.addU32(arch + ".embedding_length", 4096);
    b.addU32(arch + ".block_count", layers);
    b.addU32(arch + ".attention.head_count", 32);
    b.addU32(arch + ".attention.head_count_kv", 8);
    b.addU32(arch + ".rope.dimension_count", 128);
    b.addF32(arch + ".rope.freq_base", 500000.0f);
    return b;
}

RopeConfig ropeOf(const ModelConfig &config, int layer = -1, qint64 *dims = nullptr)
{
    QString error;
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(config, layer, &error);
    if (!spec)
        qWarning("%s", qPrintable(error));
    if (!spec || !spec->spec.get<RopeScheme>())
        return {};
    if (dims)
        *dims = spec->spec.dims;
    return *spec->spec.get<RopeScheme>();
}

} // namespace

class TestGgufConfig : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        test::writeBytes(path, bytes);
        return path;
    }

    std::optional<ModelConfig> config(const QString &name, const GgufBuilder &b, QString *error)
    {
        const QString path = write(name, b.build());
        GgufFile file;
        if (!file.open(path, error))
            return std::nullopt;
        return ggufModelConfig(file, error);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Llama 3.1 8B as llama.cpp converts it: no rope.scaling keys, the llama3 rule as
    // rope_freqs.weight. Sizes from the metadata; inv_freq = base^(-2i/128) / f_i exactly.
    void llama31()
    {
        GgufBuilder b = llamaBuilder("llama", 32);
        const std::vector<float> divisors = toFloat(llama31Divisors());
        b.addTensor("rope_freqs.weight", {64}, 0, test::f32Bytes(divisors));
        QString error;
        const std::optional<ModelConfig> c = config(u"llama31.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->modelType, u"llama"_qs);
        QCOMPARE(c->maxPositionEmbeddings, 131072);
        QCOMPARE(c->hiddenSize, 4096);
        QCOMPARE(c->numAttentionHeads, 32);
        QCOMPARE(c->numKeyValueHeads, 8);
        QCOMPARE(c->headDim, 4096 / 32);
        QCOMPARE(c->layers.size(), std::size_t(32));
        for (const LayerPosition &l : c->layers) {
            QCOMPARE(l.position, LayerPositionKind::Rope);
            QCOMPARE(l.attention, AttentionKind::Full);
            QCOMPARE(l.rotaryDims, 128);
        }
        qint64 dims = 0;
        const RopeConfig rope = ropeOf(*c, -1, &dims);
        QCOMPARE(dims, 128);
        QCOMPARE(rope.ropeTheta, 500000.0);
        const RopeFrequencies f = ropeInverseFrequencies(dims, rope);
        QCOMPARE(f.inverseFrequencies.size(), std::size_t(64));
        QCOMPARE(f.attentionFactor, 1.0);
        for (std::size_t i = 0; i < 64; ++i) {
            const double expected = std::pow(500000.0, -2.0 * double(i) / 128.0) / divisors[i];
            PE_COMPARE_NEAR(f.inverseFrequencies[i], expected, 1e-14 * expected);
        }
        // Any sequence length (long factors = short factors).
        RopeConfig longer = rope;
        longer.sequenceLength = 200000;
        QCOMPARE(ropeInverseFrequencies(dims, longer).inverseFrequencies.size(), std::size_t(64));
        PE_COMPARE_NEAR(ropeInverseFrequencies(dims, longer).inverseFrequencies[63],
                        f.inverseFrequencies[63], 0.0);
        QVERIFY(c->assumed.join(u'\n').contains(u"rope_freqs.weight"_qs));
        // Labelled as what the file holds, not as longrope with a factor of 1 (issue 48 D17).
        RopeScheme scheme;
        static_cast<RopeConfig &>(scheme) = rope;
        const QString label = scheme.configLabel();
        QVERIFY2(label.contains(u"llama3 divisors 1 to 8 (rope_freqs)"_qs), qPrintable(label));
        QVERIFY2(!label.contains(u"longrope"_qs), qPrintable(label));
    }

    // Qwen2.5 with YaRN (factor 4 from 32,768): HF's yarn attention factor 0.1 ln 4 + 1.
    void yarnQwen()
    {
        GgufBuilder b;
        b.addString("general.architecture", "qwen2");
        b.addU32("qwen2.context_length", 131072);
        b.addU32("qwen2.embedding_length", 3584);
        b.addU32("qwen2.block_count", 28);
        b.addU32("qwen2.attention.head_count", 28);
        b.addU32("qwen2.rope.dimension_count", 128);
        b.addF32("qwen2.rope.freq_base", 1000000.0f);
        b.addString("qwen2.rope.scaling.type", "yarn");
        b.addF32("qwen2.rope.scaling.factor", 4.0f);
        b.addU32("qwen2.rope.scaling.original_context_length", 32768);
        QString error;
        const std::optional<ModelConfig> c = config(u"qwen.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        qint64 dims = 0;
        const RopeConfig rope = ropeOf(*c, -1, &dims);
        QCOMPARE(dims, 128);
        QCOMPARE(rope.ropeType, RopeType::Yarn);
        QCOMPARE(rope.factor, std::optional<double>(4.0));
        QCOMPARE(rope.originalMaxPositionEmbeddings, 32768);
        QCOMPARE(rope.maxPositionEmbeddings, 131072);
        QCOMPARE(rope.ropeTheta, 1000000.0);
        PE_COMPARE_NEAR(ropeInverseFrequencies(dims, rope).attentionFactor,
                        0.1 * std::log(4.0) + 1.0, 1e-15);
    }

    // DeepSeek V3: YaRN factor 40 from 4,096, rotation over rope.dimension_count = 64 of a
    // 192-wide key, yarn_log_multiplier 0.1 * mscale_all_dim; HF: attention factor
    // get_mscale(40, 1) / get_mscale(40, 1) = 1, the betas as stored.
    void yarnDeepseek()
    {
        GgufBuilder b;
        b.addString("general.architecture", "deepseek2");
        b.addU32("deepseek2.context_length", 163840);
        b.addU32("deepseek2.embedding_length", 7168);
        b.addU32("deepseek2.block_count", 61);
        b.addU32("deepseek2.attention.head_count", 128);
        b.addU32("deepseek2.attention.key_length", 192);
        b.addU32("deepseek2.rope.dimension_count", 64);
        b.addF32("deepseek2.rope.freq_base", 10000.0f);
        b.addString("deepseek2.rope.scaling.type", "yarn");
        b.addF32("deepseek2.rope.scaling.factor", 40.0f);
        b.addU32("deepseek2.rope.scaling.original_context_length", 4096);
        b.addF32("deepseek2.rope.scaling.yarn_log_multiplier", 0.1f);
        b.addF32("deepseek2.rope.scaling.yarn_beta_fast", 32.0f);
        b.addF32("deepseek2.rope.scaling.yarn_beta_slow", 1.0f);
        QString error;
        const std::optional<ModelConfig> c = config(u"deepseek.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->headDim, 192);
        QCOMPARE(c->layers.size(), std::size_t(61));
        qint64 dims = 0;
        const RopeConfig rope = ropeOf(*c, 0, &dims);
        QCOMPARE(dims, 64);
        QCOMPARE(rope.ropeType, RopeType::Yarn);
        QCOMPARE(rope.factor, std::optional<double>(40.0));
        QCOMPARE(rope.originalMaxPositionEmbeddings, 4096);
        QVERIFY(rope.mscale && rope.mscaleAllDim);
        PE_COMPARE_NEAR(*rope.mscaleAllDim, 1.0, 1e-6); // 0.1f / 0.1
        PE_COMPARE_NEAR(ropeInverseFrequencies(dims, rope).attentionFactor, 1.0, 1e-15);
    }

    // Phi-3-mini-128k as llama.cpp converts it: rope_factors_short/long.weight tensors,
    // rope.scaling.attn_factor = sqrt(1 + ln 32 / ln 4096), original context 4,096.
    void longropePhi3()
    {
        GgufBuilder b;
        b.addString("general.architecture", "phi3");
        b.addU32("phi3.context_length", 131072);
        b.addU32("phi3.embedding_length", 3072);
        b.addU32("phi3.block_count", 32);
        b.addU32("phi3.attention.head_count", 32);
        b.addU32("phi3.rope.dimension_count", 96);
        b.addF32("phi3.rope.freq_base", 10000.0f);
        b.addU32("phi3.rope.scaling.original_context_length", 4096);
        const double attention = std::sqrt(1 + std::log(32.0) / std::log(4096.0));
        b.addF32("phi3.rope.scaling.attn_factor", float(attention));
        std::vector<float> shortF, longF;
        for (int i = 0; i < 48; ++i) {
            shortF.push_back(1.0f + 0.01f * float(i));
            longF.push_back(1.0f + 1.5f * float(i));
        }
        b.addTensor("rope_factors_long.weight", {48}, 0, test::f32Bytes(longF));
        b.addTensor("rope_factors_short.weight", {48}, 0, test::f32Bytes(shortF));
        QString error;
        const std::optional<ModelConfig> c = config(u"phi3.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        qint64 dims = 0;
        RopeConfig rope = ropeOf(*c, -1, &dims);
        QCOMPARE(dims, 96);
        QCOMPARE(rope.ropeType, RopeType::Longrope);
        QCOMPARE(rope.originalMaxPositionEmbeddings, 4096);
        QCOMPARE(rope.shortFactor.size(), std::size_t(48));
        rope.sequenceLength = 8192; // beyond the original context: the long factors
        const RopeFrequencies f = ropeInverseFrequencies(dims, rope);
        PE_COMPARE_NEAR(f.attentionFactor, double(float(attention)), 1e-15);
        for (std::size_t i = 0; i < 48; ++i) {
            const double expected = 1.0 / (double(longF[i]) * std::pow(10000.0, 2.0 * i / 96.0));
            PE_COMPARE_NEAR(f.inverseFrequencies[i], expected, 1e-14 * expected);
        }
        rope.sequenceLength = 100;
        const RopeFrequencies s = ropeInverseFrequencies(dims, rope);
        const double expected5 = 1.0 / (double(shortF[5]) * std::pow(10000.0, 10.0 / 96.0));
        PE_COMPARE_NEAR(s.inverseFrequencies[5], expected5, 1e-14 * expected5);
    }

    // Gemma 3 files carry the window but not the pattern: llama.cpp sets 6 (five sliding layers,
    // then a global one) and θ 10,000 for the sliding layers; θ 1e6 from rope.freq_base.
    void slidingGemma3()
    {
        GgufBuilder b;
        b.addString("general.architecture", "gemma3");
        b.addU32("gemma3.context_length", 131072);
        b.addU32("gemma3.block_count", 12);
        b.addU32("gemma3.attention.head_count", 8);
        b.addU32("gemma3.attention.key_length", 256);
        b.addU32("gemma3.rope.dimension_count", 256);
        b.addF32("gemma3.rope.freq_base", 1000000.0f);
        b.addU32("gemma3.attention.sliding_window", 1024);
        QString error;
        const std::optional<ModelConfig> c = config(u"gemma3.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->layers.size(), std::size_t(12));
        for (int i = 0; i < 12; ++i) {
            const LayerPosition &l = c->layers[std::size_t(i)];
            const bool global = i % 6 == 5;
            QCOMPARE(l.attention, global ? AttentionKind::Full : AttentionKind::SlidingWindow);
            QCOMPARE(l.window, global ? 0 : 1024);
            QCOMPARE(ropeOf(*c, i).ropeTheta, global ? 1000000.0 : 10000.0);
        }
        QVERIFY(c->ropeParametersPerLayerType);
    }

    // The pattern from the file: an integer n (layer i slides when i % n < n - 1) or one flag
    // per layer; rope.freq_base_swa for the sliding layers.
    void slidingPatternKeys()
    {
        GgufBuilder b = llamaBuilder("llama", 8);
        b.addU32("llama.attention.sliding_window", 4096);
        b.addU32("llama.attention.sliding_window_pattern", 4);
        b.addF32("llama.rope.freq_base_swa", 10000.0f);
        QString error;
        std::optional<ModelConfig> c = config(u"pattern.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        for (int i = 0; i < 8; ++i) {
            const bool slides = i % 4 < 3;
            QCOMPARE(c->layers[std::size_t(i)].attention,
                     slides ? AttentionKind::SlidingWindow : AttentionKind::Full);
            QCOMPARE(ropeOf(*c, i).ropeTheta, slides ? 10000.0 : 500000.0);
        }

        GgufBuilder flags = llamaBuilder("llama", 4);
        flags.addU32("llama.attention.sliding_window", 128);
        flags.addArray("llama.attention.sliding_window_pattern", test::GBOOL, 4,
                       QByteArray("\x00\x01\x01\x00", 4));
        c = config(u"flags.gguf"_qs, flags, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->layers[0].attention, AttentionKind::Full);
        QCOMPARE(c->layers[1].attention, AttentionKind::SlidingWindow);
        QCOMPARE(c->layers[2].window, 128);
        QCOMPARE(c->layers[3].attention, AttentionKind::Full);
    }

    // Qwen2-VL: rope.dimension_sections [16, 24, 24, 0] are the mrope_section.
    // Llama 4 and SmolLM3: llama.cpp leaves layer i without RoPE when (i + 1) % 4 == 0 (its
    // n_no_rope_layer_step, no GGUF key), as transformers' no_rope_layer_interval = 4 does; Llama
    // 4's rotary layers attend in chunks of 8,192 tokens and its NoPE layers globally. A Llama 4
    // file with attention.sliding_window = 0 rotates every layer with full attention.
    void noRopeLayers_data()
    {
        QTest::addColumn<QByteArray>("arch");
        QTest::addColumn<int>("slidingWindow"); // -1: no key
        QTest::addColumn<bool>("nope");
        QTest::addColumn<qint64>("chunk");
        QTest::addRow("llama4") << QByteArray("llama4") << -1 << true << qint64(8192);
        QTest::addRow("llama4 window 0") << QByteArray("llama4") << 0 << false << qint64(0);
        QTest::addRow("smollm3") << QByteArray("smollm3") << -1 << true << qint64(0);
        QTest::addRow("llama") << QByteArray("llama") << -1 << false << qint64(0);
    }
    void noRopeLayers()
    {
        QFETCH(QByteArray, arch);
        QFETCH(int, slidingWindow);
        QFETCH(bool, nope);
        QFETCH(qint64, chunk);
        GgufBuilder b = llamaBuilder(arch, 12);
        if (slidingWindow >= 0)
            b.addU32(arch + ".attention.sliding_window", quint32(slidingWindow));
        QString error;
        const std::optional<ModelConfig> c =
            config(QString::fromLatin1(arch) + u".gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->layers.size(), std::size_t(12));
        for (int i = 0; i < 12; ++i) {
            const LayerPosition &l = c->layers[std::size_t(i)];
            const bool rotates = !nope || (i + 1) % 4 != 0;
            QCOMPARE(l.position, rotates ? LayerPositionKind::Rope : LayerPositionKind::NoPE);
            const bool chunked = chunk > 0 && rotates;
            QCOMPARE(l.attention, chunked ? AttentionKind::Chunked : AttentionKind::Full);
            QCOMPARE(l.window, chunked ? chunk : qint64(0));
            if (rotates)
                QCOMPARE(ropeOf(*c, i).ropeTheta, 500000.0);
        }
        // The NoPE rule is llama.cpp's constant, not read from the file: the card says so.
        QCOMPARE(c->assumed.join(u'\n').contains(u"n_no_rope_layer_step"_qs), nope);
    }

    void mropeSections()
    {
        GgufBuilder b = llamaBuilder("qwen2vl", 2);
        b.addArray("qwen2vl.rope.dimension_sections", test::GINT32, 4,
                   test::le32(16) + test::le32(24) + test::le32(24) + test::le32(0));
        QString error;
        const std::optional<ModelConfig> c = config(u"qwen2vl.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        const RopeConfig rope = ropeOf(*c);
        QCOMPARE(rope.mropeSection, (QList<qint64>{16, 24, 24}));
        QVERIFY(!rope.mropeInterleaved);
    }

    // GPT-2: a learned table, no rope keys.
    void learnedTable()
    {
        GgufBuilder b;
        b.addString("general.architecture", "gpt2");
        b.addU32("gpt2.context_length", 16);
        b.addU32("gpt2.embedding_length", 4);
        b.addU32("gpt2.block_count", 2);
        b.addU32("gpt2.attention.head_count", 2);
        b.addTensor("position_embd.weight", {4, 16}, 0, test::f32Bytes(std::vector<float>(64)));
        QString error;
        const std::optional<ModelConfig> c = config(u"gpt2.gguf"_qs, b, &error);
        QVERIFY2(c, qPrintable(error));
        QVERIFY(!c->usesRope());
        QCOMPARE(c->absolute.kind, AbsolutePositionKind::Learned);
        QCOMPARE(c->absolute.tableRows, 16);
        QCOMPARE(c->layers.size(), std::size_t(2));
        QCOMPARE(c->layers[0].position, LayerPositionKind::Absolute);
    }

    // A bare tensor container is no config (its tensors are still readable).
    void noArchitecture()
    {
        GgufBuilder b;
        b.addTensor("rope_freqs.weight", {4}, 0, test::f32Bytes({1, 1, 1, 1}));
        QString error = u"stale"_qs;
        QVERIFY(!config(u"bare.gguf"_qs, b, &error));
        QVERIFY(error.isEmpty());
    }

    void hostile_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<int>("kind"); // 0: string "x", 1: f32 -1, 2: u64 huge, 3: f32 NaN
        QTest::addColumn<QString>("message");
        QTest::addRow("freq_base string")
            << QByteArray("llama.rope.freq_base") << 0
            << u"llama.rope.freq_base must be a number, it is a STRING"_qs;
        QTest::addRow("freq_base negative")
            << QByteArray("llama.rope.freq_base") << 1 << u"llama.rope.freq_base is -1"_qs;
        QTest::addRow("freq_base nan")
            << QByteArray("llama.rope.freq_base") << 3 << u"llama.rope.freq_base is nan"_qs;
        QTest::addRow("dimension_count string")
            << QByteArray("llama.rope.dimension_count") << 0
            << u"llama.rope.dimension_count must be an integer, it is a STRING"_qs;
        QTest::addRow("dimension_count huge")
            << QByteArray("llama.rope.dimension_count") << 2
            << u"llama.rope.dimension_count must be an integer, it is a UINT64 too large"_qs;
        QTest::addRow("block_count float")
            << QByteArray("llama.block_count") << 1
            << u"llama.block_count must be an integer, it is a FLOAT32"_qs;
        QTest::addRow("scaling type float")
            << QByteArray("llama.rope.scaling.type") << 1
            << u"llama.rope.scaling.type must be a string, it is a FLOAT32"_qs;
        QTest::addRow("scaling type unknown")
            << QByteArray("llama.rope.scaling.type") << 0
            << u"llama.rope.scaling.type is \"x\"; pescope knows none, linear, yarn and longrope"_qs;
        QTest::addRow("factor string")
            << QByteArray("llama.rope.scaling.factor") << 0
            << u"llama.rope.scaling.factor must be a number, it is a STRING"_qs;
        // The older key's factor is checked under its own name.
        QTest::addRow("scale_linear negative")
            << QByteArray("llama.rope.scale_linear") << 1
            << u"llama.rope.scale_linear is -1; it must be a number between"_qs;
        QTest::addRow("yarn_beta_fast nan") << QByteArray("llama.rope.scaling.yarn_beta_fast") << 3
                                            << u"llama.rope.scaling.yarn_beta_fast is nan"_qs;
        // llama.cpp's get_key refuses a key of the wrong type, also one pescope does not use.
        QTest::addRow("finetuned a string")
            << QByteArray("llama.rope.scaling.finetuned") << 0
            << u"llama.rope.scaling.finetuned must be true or false, it is a STRING"_qs;
        QTest::addRow("original context negative")
            << QByteArray("llama.rope.scaling.original_context_length") << 1
            << u"llama.rope.scaling.original_context_length must be an integer"_qs;
        QTest::addRow("architecture number")
            << QByteArray("general.architecture") << 1
            << u"general.architecture must be a string, it is a FLOAT32"_qs;
    }

    void hostile()
    {
        QFETCH(QByteArray, key);
        QFETCH(int, kind);
        QFETCH(QString, message);
        GgufBuilder b;
        const bool arch = key == "general.architecture";
        if (!arch)
            b.addString("general.architecture", "llama");
        if (kind == 0)
            b.addString(key, "x");
        else if (kind == 1)
            b.addF32(key, -1.0f);
        else if (kind == 2)
            b.addU64(key, ~quint64(0));
        else
            b.addF32(key, std::numeric_limits<float>::quiet_NaN());
        if (key != "llama.rope.dimension_count")
            b.addU32("llama.rope.dimension_count", 64);
        QString error;
        QVERIFY(!config(u"hostile.gguf"_qs, b, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(error.contains(u"hostile.gguf"_qs), qPrintable(error));
    }

    void hostileTensors_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<std::vector<float>>("values");
        QTest::addColumn<QString>("message");
        QTest::addRow("wrong length") << QByteArray("rope_freqs.weight") << std::vector<float>(3, 1)
                                      << u"tensor rope_freqs.weight has shape [3]"_qs;
        QTest::addRow("zero divisor")
            << QByteArray("rope_freqs.weight") << std::vector<float>{1, 0, 1, 1}
            << u"element 1 of tensor rope_freqs.weight is 0"_qs;
        QTest::addRow("short without long")
            << QByteArray("rope_factors_short.weight") << std::vector<float>{1, 1, 1, 1}
            << u"longrope needs both"_qs;
    }

    void hostileTensors()
    {
        QFETCH(QByteArray, name);
        QFETCH(std::vector<float>, values);
        QFETCH(QString, message);
        GgufBuilder b;
        b.addString("general.architecture", "llama");
        b.addU32("llama.rope.dimension_count", 8);
        b.addTensor(name, {quint64(values.size())}, 0, test::f32Bytes(values));
        QString error;
        QVERIFY(!config(u"tensors.gguf"_qs, b, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // The command line reads the same: inspect shows the layer map, data --model gives the
    // inverse frequencies of the formula, verify --model checks a file against its own metadata.
    void commandLine()
    {
        GgufBuilder b = llamaBuilder("llama", 2);
        const std::vector<float> divisors = toFloat(llama31Divisors());
        b.addTensor("rope_freqs.weight", {64}, 0, test::f32Bytes(divisors));
        const QString path = write(u"cli.gguf"_qs, b.build());

        test::RunResult run = test::runPescope({u"inspect"_qs, path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("rope_freqs.weight"), run.out.constData());
        QVERIFY2(run.out.contains("500000"), run.out.constData());

        const QString out = m_dir.filePath(u"inv.npy"_qs);
        run = test::runPescope(
            {u"data"_qs, u"--model"_qs, path, u"--what"_qs, u"inv-freq"_qs, u"--out"_qs, out});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        const qsizetype data = bytes.size() - 64 * qsizetype(sizeof(double));
        QVERIFY(data > 0);
        std::vector<double> got(64), expected;
        std::memcpy(got.data(), bytes.constData() + data, got.size() * sizeof(double));
        for (int i = 0; i < 64; ++i)
            expected.push_back(std::pow(500000.0, -2.0 * i / 128.0) / divisors[size_t(i)]);
        PE_COMPARE_ARRAY(got, expected, {.relative = 1e-14});

        run = test::runPescope({u"verify"_qs, u"--model"_qs, path, u"--against"_qs, path});
        QVERIFY2(run.exitCode == 0, run.out.constData());

        GgufBuilder bad = llamaBuilder("llama", 2);
        bad.addString("llama.rope.scaling.factor", "eight");
        const QString badPath = write(u"bad.gguf"_qs, bad.build());
        run = test::runPescope({u"inspect"_qs, badPath});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("llama.rope.scaling.factor must be a number"),
                 run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);
    }

    // `data --model F --what positions` streams the stored table: F16 over several conversion
    // chunks (2,304 x 1,024 values, 4 MiB chunks of floats), F64 rounded to nearest, GGUF F32
    // handed over from the mapping; the values read back bit-exact, as CSV too.
    void storedTableStreams()
    {
        const qint64 rows = 2304, columns = 1024;
        std::vector<float> expected(std::size_t(rows * columns));
        QByteArray half, wide, single;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const double v = double(qint64(i % 4093) - 2046) / 8.0; // exact in float16
            expected[i] = float(v);
            // Qt's IEEE half (Clang 14 has no _Float16 on x86-64); v is exact in it.
            const quint16 h = std::bit_cast<quint16>(qfloat16(float(v)));
            half += test::le16(h);
        }
        const std::vector<double> f64{0.1, -1e-40, 3.4028235677973366e38, 1.0 / 3.0, 2.5, -7.25};
        wide = test::f64Bytes(f64);
        const QString f16Path = write(u"f16.npy"_qs, test::npyBytes("<f2", {rows, columns}, half));
        const QString f64Path = write(u"f64.npy"_qs, test::npyBytes("<f8", {3, 2}, wide));
        GgufBuilder g;
        g.addString("general.architecture", "gpt2");
        g.addTensor("position_embd.weight", {3, 2}, 0, test::f32Bytes({1, 2, 3, 4, 5, 6.5f}));
        const QString ggufPath = write(u"table.gguf"_qs, g.build());

        const auto run = [&](const QString &model, const QString &out) {
            const test::RunResult r =
                test::runPescope({u"data"_qs, u"--model"_qs, model, u"--what"_qs, u"positions"_qs,
                                  u"--out"_qs, out});
            return r.exitCode == 0 ? QString() : QString::fromUtf8(r.err);
        };
        const auto floats = [](const QString &path, std::size_t count) {
            QFile file(path);
            std::vector<float> out(count);
            if (file.open(QIODevice::ReadOnly)) {
                const QByteArray bytes = file.readAll();
                const qsizetype data = bytes.size() - qsizetype(count * 4);
                if (data > 0)
                    std::memcpy(out.data(), bytes.constData() + data, count * 4);
            }
            return out;
        };
        QString error = run(f16Path, m_dir.filePath(u"f16-out.npy"_qs));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(floats(m_dir.filePath(u"f16-out.npy"_qs), expected.size()) == expected);

        error = run(f64Path, m_dir.filePath(u"f64-out.npy"_qs));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const std::vector<float> got = floats(m_dir.filePath(u"f64-out.npy"_qs), 6);
        for (std::size_t i = 0; i < 6; ++i)
            QCOMPARE(std::bit_cast<quint32>(got[i]), std::bit_cast<quint32>(float(f64[i])));

        error = run(ggufPath, m_dir.filePath(u"gguf-out.npy"_qs));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY((floats(m_dir.filePath(u"gguf-out.npy"_qs), 6) ==
                 std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
        error = run(ggufPath, m_dir.filePath(u"gguf-out.csv"_qs));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QFile csv(m_dir.filePath(u"gguf-out.csv"_qs));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll(), QByteArray("1,2,3\n4,5,6.5\n"));
    }
};

QTEST_GUILESS_MAIN(TestGgufConfig)
#include "tst_ggufconfig.moc"
