// `pescope data --config` (the golden RoPE tables of a model's config.json) and `pescope verify`
// (issue 11) from the command line: exit codes, messages, and the numbers, against float64
// formulas written here from Hugging Face's modeling_rope_utils.py and llama.cpp's ggml_rope.
#include "modelfilewriter.h"
#include "ropetestdata.h"
#include "testutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <tuple>

#include <sys/stat.h>

using namespace pe;

namespace {

QString fixture(const char *name)
{
    return QStringLiteral(PE_SOURCE_DIR "/tests/data/configs/") + QString::fromUtf8(name);
}

// Llama 3.1 8B (config.json): head_dim 128, rope_theta 500000, llama3 factor 8, low 1, high 4,
// original context 8192.
std::vector<double> llama31InverseFrequencies()
{
    return test::llama3Theta(500000.0, 8.0, 1.0, 4.0, 8192.0, 128);
}

std::vector<double> defaultInverseFrequencies(double base, int dim)
{
    return test::defaultTheta(base, dim);
}

// HF's cos table: cat(freqs, freqs), cos(p theta) times `scale`, float32 as engines store it.
std::vector<float> cosTable(const std::vector<double> &theta, int positions, double scale)
{
    const std::size_t n = theta.size();
    std::vector<float> out;
    for (int p = 0; p < positions; ++p)
        for (std::size_t c = 0; c < 2 * n; ++c)
            out.push_back(float(std::cos(p * theta[c % n]) * scale));
    return out;
}

// A case of tests/data/rope/references.json: NumPy's float64 transcription of transformers'
// rope functions for real models (make_references.py).
QJsonObject referenceCase(const QString &name)
{
    static const QJsonObject data =
        test::loadRopeData(QStringLiteral(PE_SOURCE_DIR "/tests/data/rope/references.json"));
    for (const QJsonValue &item : data.value(u"cases"_qs).toArray())
        if (item.toObject().value(u"name"_qs).toString() == name)
            return item.toObject();
    qWarning("no reference case %s", qPrintable(name));
    return {};
}

std::vector<double> jsonTheta(const QJsonObject &record)
{
    return test::jsonDoubles(record.value(u"inv_freq"_qs));
}

std::vector<float> toFloat(const std::vector<double> &v)
{
    return {v.begin(), v.end()};
}

// HF's rotary forward in float32 (LlamaRotaryEmbedding.forward, transformers 5: inv_freq and the
// positions float32, their product one float32 multiply with autocast off, cos in float32, times
// the attention factor), inv_freq from torch's float32 pow: 1.0 / (base ** (arange(0, dim, 2)
// .float() / dim)) for the default type. cat(freqs, freqs): the half layout.
std::vector<float> hfFloat32DefaultCos(double base, int dim, int positions)
{
    std::vector<float> theta;
    for (int i = 0; i < dim; i += 2)
        theta.push_back(1.0f / std::pow(float(base), float(i) / float(dim)));
    std::vector<float> out;
    for (int p = 0; p < positions; ++p)
        for (int c = 0; c < dim; ++c)
            out.push_back(std::cos(float(p) * theta[std::size_t(c % (dim / 2))]));
    return out;
}

} // namespace

class TestModelCli : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QString npy(const QString &name, const std::vector<qint64> &shape,
                const std::vector<float> &values) const
    {
        const QString file = path(name);
        test::writeBytes(file, test::npyBytes("<f4", shape, test::f32Bytes(values)));
        return file;
    }
    test::RunResult verify(const QString &config, const QStringList &more) const
    {
        return test::runPescope(
            QStringList{u"verify"_qs, u"--config"_qs, fixture(qPrintable(config))} + more);
    }

private slots:
    void goldenInverseFrequencies()
    {
        const QString out = path(u"inv.npy"_qs);
        const test::RunResult run =
            test::runPescope({u"data"_qs, u"--config"_qs, fixture("llama-3.1-8b.json"),
                              u"--what"_qs, u"inv-freq"_qs, u"--out"_qs, out});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("llama3"), run.err.constData());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        const std::vector<double> expected = llama31InverseFrequencies();
        const qsizetype data = bytes.size() - qsizetype(expected.size() * sizeof(double));
        QVERIFY(data > 0);
        std::vector<double> got(expected.size());
        std::memcpy(got.data(), bytes.constData() + data, got.size() * sizeof(double));
        PE_COMPARE_ARRAY(got, expected, {.relative = 1e-15});
    }

    void dataConfigRefusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("learned table")
            << QStringList{u"--config"_qs, fixture("gpt2.json"), u"--what"_qs,
                           u"cos"_qs,      u"--positions"_qs,    u"4"_qs}
            << u"learned absolute positions"_qs;
        QTest::addRow("scheme with config")
            << QStringList{u"--config"_qs, fixture("llama-2-7b.json"), u"--scheme"_qs, u"rope"_qs}
            << u"--scheme does not apply to a model"_qs;
        QTest::addRow("layer out of range")
            << QStringList{u"--config"_qs, fixture("llama-2-7b.json"), u"--layer"_qs,
                           u"32"_qs,       u"--positions"_qs,          u"4"_qs}
            << u"--layer must be between 0 and 31 (got 32)"_qs;
        QTest::addRow("scaled matrix")
            << QStringList{u"--config"_qs, fixture("llama-2-7b.json"), u"--positions"_qs, u"4"_qs,
                           u"--scaled-table"_qs}
            << u"--scaled-table applies to --what cos or sin"_qs;
        QTest::addRow("missing config")
            << QStringList{u"--config"_qs, path(u"absent.json"_qs), u"--positions"_qs, u"4"_qs}
            << u"absent.json"_qs;
    }
    void dataConfigRefusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString out = path(u"refused.npy"_qs);
        const test::RunResult run =
            test::runPescope(QStringList{u"data"_qs} + args + QStringList{u"--out"_qs, out});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromLocal8Bit(run.err).contains(message), run.err.constData());
        QVERIFY(!QFile::exists(out));
    }

    void scaledTableIsHfForward()
    {
        // A YaRN config without mscale: HF's attention factor is get_mscale(4) = 0.1 ln 4 + 1,
        // and its forward returns cos(p theta) times it.
        const QString config = path(u"yarn.json"_qs);
        test::writeBytes(config, R"({"model_type": "llama", "hidden_size": 256,
            "num_attention_heads": 4, "num_hidden_layers": 1, "max_position_embeddings": 32768,
            "rope_theta": 10000.0, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
            "original_max_position_embeddings": 8192}})");
        const QString unscaled = path(u"cos.npy"_qs), scaled = path(u"cos-scaled.npy"_qs);
        const QStringList common{u"data"_qs, u"--config"_qs,    config,  u"--what"_qs,
                                 u"cos"_qs,  u"--positions"_qs, u"16"_qs};
        QCOMPARE(test::runPescope(common + QStringList{u"--out"_qs, unscaled}).exitCode, 0);
        QCOMPARE(test::runPescope(common + QStringList{u"--scaled-table"_qs, u"--out"_qs, scaled})
                     .exitCode,
                 0);
        QFile a(unscaled), b(scaled);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray x = a.readAll(), y = b.readAll();
        QCOMPARE(x.size(), y.size());
        const qsizetype values = 16 * 64, start = x.size() - values * 8;
        const double factor = 0.1 * std::log(4.0) + 1.0;
        for (qsizetype i = 0; i < values; ++i) {
            double u, s;
            std::memcpy(&u, x.constData() + start + i * 8, 8);
            std::memcpy(&s, y.constData() + start + i * 8, 8);
            PE_COMPARE_NEAR(s, u * factor, 1e-15);
        }
        // Position 0: cos 0 = 1 in every column.
        double first;
        std::memcpy(&first, x.constData() + start, 8);
        QCOMPARE(first, 1.0);
    }

    void verifyAgreesAndDiffers()
    {
        const std::vector<double> theta = llama31InverseFrequencies();
        const QString good = npy(u"good.npy"_qs, {64, 128}, cosTable(theta, 64, 1.0));
        test::RunResult run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, good});
        QVERIFY2(run.exitCode == 0, run.out.constData());
        QVERIFY(run.out.contains("agrees"));
        // llama3 scaling ignored: the default frequencies. The low frequencies differ.
        const QString plain = npy(u"plain.npy"_qs, {64, 128},
                                  cosTable(defaultInverseFrequencies(500000.0, 128), 64, 1.0));
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, plain});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("scaling ignored"), run.out.constData());
        QVERIFY(run.out.contains("first difference at position"));
        // A tolerance that admits the difference.
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, plain, u"--tolerance"_qs, u"2"_qs});
        QCOMPARE(run.exitCode, 0);
        // inv_freq as 1-D array: guessed as inv-freq.
        const QString inv = npy(u"inv.npy"_qs, {64}, toFloat(theta));
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, inv});
        QVERIFY2(run.exitCode == 0, run.out.constData());
        QVERIFY(run.out.contains("as inv-freq"));
    }

    // The layouts engines write, read without --what: a complex64 .npy (np.save of freqs_cis),
    // vLLM's cos_sin_cache (cat(cos, sin) per row) and ggml's cache ((cos, sin) per pair).
    void verifyEngineLayouts()
    {
        const std::vector<double> theta = defaultInverseFrequencies(10000.0, 128);
        std::vector<float> complex, vllm, ggml;
        for (int p = 0; p < 32; ++p) {
            for (std::size_t i = 0; i < 64; ++i) {
                const float c = float(std::cos(p * theta[i])), s = float(std::sin(p * theta[i]));
                complex.insert(complex.end(), {c, s});
                ggml.insert(ggml.end(), {c, s});
            }
            for (std::size_t c = 0; c < 128; ++c)
                vllm.push_back(
                    float(c < 64 ? std::cos(p * theta[c]) : std::sin(p * theta[c - 64])));
        }
        const QString freqsCis = path(u"freqs_cis.npy"_qs);
        test::writeBytes(freqsCis, test::npyBytes("<c8", {32, 64}, test::f32Bytes(complex)));
        test::RunResult run = verify(u"llama-2-7b.json"_qs, {u"--against"_qs, freqsCis});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("<c8 [32, 64, 2], as cos-sin") &&
                     run.out.contains("layout:    complex"),
                 run.out.constData());
        run = verify(u"llama-2-7b.json"_qs,
                     {u"--against"_qs, npy(u"cos_sin_cache.npy"_qs, {32, 128}, vllm)});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("as cos-sin") && run.out.contains("layout:    half"),
                 run.out.constData());
        run = verify(u"llama-2-7b.json"_qs,
                     {u"--against"_qs, npy(u"ggml_cache.npy"_qs, {32, 128}, ggml)});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("as cos-sin") && run.out.contains("layout:    interleaved"),
                 run.out.constData());
    }

    // DeepSeek-V2 (HF's DeepseekV2) rotates consecutive pairs through view_as_complex: its
    // pairing is interleaved, and a half-layout table is noted as such.
    void deepseekV2PairsInterleaved()
    {
        const QString config = path(u"deepseek-v2.json"_qs);
        test::writeBytes(config, R"({"model_type": "deepseek_v2", "hidden_size": 2048,
            "num_attention_heads": 16, "num_hidden_layers": 1, "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128, "v_head_dim": 128, "kv_lora_rank": 512,
            "max_position_embeddings": 4096, "rope_theta": 10000})");
        test::RunResult run = test::runPescope({u"inspect"_qs, config});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("DeepseekV2 apply_rotary_emb rotates consecutive pairs"),
                 run.out.constData());
        const QString half = npy(u"dsv2-half.npy"_qs, {16, 64},
                                 cosTable(defaultInverseFrequencies(10000.0, 64), 16, 1.0));
        run = test::runPescope({u"verify"_qs, u"--config"_qs, config, u"--against"_qs, half});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("the model pairs its columns interleaved (consecutive pairs)"),
                 run.out.constData());
    }

    // Configs whose values cannot make a table are refused by name.
    void verifyRefusesDegenerateConfigs()
    {
        const QString tiny = path(u"tiny-factor.json"_qs);
        test::writeBytes(tiny, R"({"model_type": "llama", "hidden_size": 256,
            "num_attention_heads": 4, "num_hidden_layers": 1, "max_position_embeddings": 4096,
            "rope_theta": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 1e-308}})");
        const QString out = path(u"never.npy"_qs);
        test::RunResult run =
            test::runPescope({u"data"_qs, u"--config"_qs, tiny, u"--what"_qs, u"cos"_qs,
                              u"--positions"_qs, u"8"_qs, u"--out"_qs, out});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("overflow") && run.err.contains("factor 1e-308"),
                 run.err.constData());
        QVERIFY(!QFile::exists(out));
        const QString one = path(u"head-one.json"_qs);
        test::writeBytes(one, R"({"model_type": "llama", "hidden_size": 4, "head_dim": 1,
            "num_attention_heads": 4, "num_hidden_layers": 1, "max_position_embeddings": 4096,
            "rope_theta": 10000.0})");
        run = test::runPescope({u"data"_qs, u"--config"_qs, one, u"--what"_qs, u"cos"_qs,
                                u"--positions"_qs, u"8"_qs, u"--out"_qs, out});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("head size of 1"), run.err.constData());
    }

    // The verdicts match the truth: HF's own float32 forward agrees (exit 0, saying it agrees up
    // to float32 angles and by how much), --strict demands float64 angles (exit 4, diagnosed);
    // pescope's own float64 table is read as float64 and agrees to 1e-10.
    void verifyVerdicts()
    {
        const QString hf =
            npy(u"hf-forward.npy"_qs, {4096, 128}, hfFloat32DefaultCos(10000.0, 128, 4096));
        test::RunResult run = verify(u"llama-2-7b.json"_qs, {u"--against"_qs, hf});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("cos agrees with Hugging Face up to float32 rounding of the "
                                  "angles p*theta"),
                 run.out.constData());
        QVERIFY(run.out.contains("largest difference from the float64 values"));
        QVERIFY(run.out.contains("layout:    half: cat(f, f)"));
        QVERIFY(run.out.contains("(detected)"));
        run = verify(u"llama-2-7b.json"_qs, {u"--against"_qs, hf, u"--strict"_qs});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("diagnosis: float32 rounding of p*theta"), run.out.constData());

        const QString gold = path(u"gold.npy"_qs);
        run = test::runPescope({u"data"_qs, u"--config"_qs, fixture("llama-3.1-8b.json"),
                                u"--what"_qs, u"cos"_qs, u"--positions"_qs, u"4096"_qs, u"--out"_qs,
                                gold});
        QCOMPARE(run.exitCode, 0);
        run = verify(u"llama-3.1-8b.json"_qs,
                     {u"--against"_qs, gold, u"--tolerance"_qs, u"1e-10"_qs, u"--strict"_qs});
        QVERIFY2(run.exitCode == 0, run.out.constData());
        QVERIFY(run.out.contains("within 1e-10 at F64 precision"));

        // A BF16 tensor of the float64 table, rounded here: compared at BF16 precision.
        const std::vector<double> theta = llama31InverseFrequencies();
        std::vector<quint16> bf16;
        for (int p = 0; p < 64; ++p)
            for (int c = 0; c < 128; ++c) {
                const float v = float(std::cos(p * theta[std::size_t(c % 64)]));
                const auto bits = std::bit_cast<quint32>(v);
                bf16.push_back(quint16((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16));
            }
        const QString file = path(u"bf16.safetensors"_qs);
        test::writeBytes(file, test::safetensorsBytes(
                                   {{u"cos"_qs, u"BF16"_qs, {64, 128}, test::u16Bytes(bf16)}}));
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, file});
        QVERIFY2(run.exitCode == 0, run.out.constData());
        QVERIFY(run.out.contains("at BF16 precision"));
    }

    // Every layout HF and the engines emit: gpt-oss's one column per pair (with HF's batch
    // dimension), Llama 4's freqs_cis as (real, imag) pairs, HF's half table for a model that
    // pairs interleaved columns (a note, not a failure), and an explicit --layout it contradicts.
    void verifyLayouts()
    {
        const QJsonObject gptOss = referenceCase(u"gpt-oss yarn"_qs);
        const std::vector<double> theta = jsonTheta(gptOss);
        const double scale = gptOss.value(u"attention_factor"_qs).toDouble();
        std::vector<float> perPair;
        for (int p = 0; p < 300; ++p)
            for (double t : theta)
                perPair.push_back(std::cos(float(p) * float(t)) * float(scale));
        const QString config = path(u"gpt-oss.json"_qs);
        test::writeBytes(config, R"({"model_type": "llama", "hidden_size": 2880,
            "num_attention_heads": 64, "head_dim": 64, "num_hidden_layers": 1,
            "max_position_embeddings": 131072, "rope_theta": 150000.0, "rope_scaling": {
            "rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
            "truncate": false, "original_max_position_embeddings": 4096}})");
        test::RunResult run =
            test::runPescope({u"verify"_qs, u"--config"_qs, config, u"--against"_qs,
                              npy(u"gpt-oss-cos.npy"_qs, {1, 300, 32}, perPair)});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("layout:    one column per pair, 32 pairs") &&
                     run.out.contains("<f4 [1, 300, 32]"),
                 run.out.constData());

        // Llama 4 Scout: freqs_cis (positions x 64 complex, view_as_real: x 2), interleaved.
        const std::vector<double> llama = llama31InverseFrequencies();
        std::vector<float> complexPairs, half;
        for (int p = 0; p < 300; ++p) {
            for (double t : llama) {
                const float angle = float(p) * float(t);
                complexPairs.push_back(std::cos(angle));
                complexPairs.push_back(std::sin(angle));
            }
            for (int c = 0; c < 128; ++c)
                half.push_back(std::cos(float(p) * float(llama[std::size_t(c % 64)])));
        }
        const QString scout = u"llama-4-scout-17b-16e.json"_qs;
        run = verify(scout,
                     {u"--against"_qs, npy(u"freqs-cis.npy"_qs, {1, 300, 64, 2}, complexPairs)});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        QVERIFY2(run.out.contains("layout:    complex") &&
                     run.out.contains("(from the tensor's shape)") &&
                     run.out.contains("as cos-sin"),
                 run.out.constData());
        QVERIFY(!run.out.contains("note:"));
        const QString halfTable = npy(u"scout-half.npy"_qs, {300, 128}, half);
        run = verify(scout, {u"--against"_qs, halfTable});
        QVERIFY2(run.exitCode == 0, run.out.constData());
        QVERIFY2(run.out.contains("note:      the model pairs its columns interleaved"),
                 run.out.constData());
        run = verify(scout, {u"--against"_qs, halfTable, u"--layout"_qs, u"interleaved"_qs});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("diagnosis: half vs interleaved pairing swapped"),
                 run.out.constData());
    }

    // The issue's silent cases, now named: Phi-3 with short_factor beyond the original context,
    // Llama 3.1 computed with linear scaling, positions off by one.
    void verifyNamesMistakes()
    {
        const QJsonObject phi = referenceCase(u"phi-3-mini-128k longrope, init (short)"_qs);
        const std::vector<double> shortTheta = jsonTheta(phi); // the short factors' frequencies
        const double phiScale = phi.value(u"attention_factor"_qs).toDouble();
        std::vector<float> table;
        for (int p = 0; p < 4200; ++p)
            for (int c = 0; c < 96; ++c)
                table.push_back(std::cos(float(p) * float(shortTheta[std::size_t(c % 48)])) *
                                float(phiScale));
        // This fixture's factors are Phi-3-mini-128k's first release; references.json has the
        // same model's factors: write the config they belong to.
        const QString config = path(u"phi3.json"_qs);
        QJsonObject parameters = phi.value(u"rope_parameters"_qs).toObject();
        parameters.insert(u"type"_qs, u"longrope"_qs);
        parameters.remove(u"rope_type"_qs);
        test::writeBytes(config,
                         QJsonDocument(QJsonObject{{u"model_type"_qs, u"phi3"_qs},
                                                   {u"hidden_size"_qs, 3072},
                                                   {u"num_attention_heads"_qs, 32},
                                                   {u"num_hidden_layers"_qs, 1},
                                                   {u"max_position_embeddings"_qs, 131072},
                                                   {u"original_max_position_embeddings"_qs, 4096},
                                                   {u"rope_theta"_qs, 10000.0},
                                                   {u"rope_scaling"_qs, parameters}})
                             .toJson());
        test::RunResult run =
            test::runPescope({u"verify"_qs, u"--config"_qs, config, u"--against"_qs,
                              npy(u"phi3-short.npy"_qs, {4200, 96}, table)});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("diagnosis: the other longrope factor set: the table matches "
                                  "short_factor, but at sequence length 4200"),
                 run.out.constData());
        QVERIFY2(run.out.contains("length:    longrope: sequence length 4200 (the table's rows"),
                 run.out.constData());

        const std::vector<double> linear = [] {
            std::vector<double> t = defaultInverseFrequencies(500000.0, 128);
            for (double &x : t)
                x /= 8.0;
            return t;
        }();
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, npy(u"linear.npy"_qs, {512, 128},
                                                                    cosTable(linear, 512, 1.0))});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("diagnosis: another scaling rule: the table matches rope_type "
                                  "\"linear\" with factor 8 (the config says \"llama3\")"),
                 run.out.constData());

        std::vector<float> offByOne;
        const std::vector<double> theta = llama31InverseFrequencies();
        for (int p = 1; p <= 256; ++p)
            for (int c = 0; c < 128; ++c)
                offByOne.push_back(float(std::cos(p * theta[std::size_t(c % 64)])));
        run = verify(u"llama-3.1-8b.json"_qs,
                     {u"--against"_qs, npy(u"shifted.npy"_qs, {256, 128}, offByOne)});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("diagnosis: positions shifted by +1"), run.out.constData());
    }

    // inspect states each model's pairing, and a config transformers 5 itself refuses.
    void inspectPairingAndRefusal()
    {
        test::RunResult run =
            test::runPescope({u"inspect"_qs, fixture("llama-4-scout-17b-16e.json")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("pairing:  interleaved"), run.out.constData());
        run = test::runPescope({u"inspect"_qs, fixture("deepseek-v3.json")});
        QVERIFY2(run.out.contains("pairing:  interleaved") &&
                     run.out.contains("DeepseekV3Config's default"),
                 run.out.constData());
        run = test::runPescope({u"inspect"_qs, fixture("llama-3.1-8b.json"), u"--json"_qs});
        QVERIFY2(run.out.contains("\"pairing\": \"half\""), run.out.constData());
        run = test::runPescope({u"inspect"_qs, fixture("phi-3-mini-128k-instruct.json")});
        QVERIFY2(run.out.contains("assumed:  transformers 5 refuses this config: Phi3Config "
                                  "renames rope_scaling's \"su\" to \"longrope\"") &&
                     run.out.contains("original_max_position_embeddings = 4096"),
                 run.out.constData());
        run = test::runPescope({u"inspect"_qs, fixture("phi-3.5-mini-instruct.json")});
        QVERIFY2(!run.out.contains("refuses"), run.out.constData());
    }

    // HF's defaults: without --positions, longrope's inv_freq is what transformers' rotary
    // module holds once loaded (the short factors; _compute_longrope_parameters with seq_len
    // None), with --positions beyond the original context the long ones; each run says which.
    void dataLongropeDefault()
    {
        const QString config = fixture("phi-3.5-mini-instruct.json");
        QFile file(config);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject scaling =
            QJsonDocument::fromJson(file.readAll()).object().value(u"rope_scaling"_qs).toObject();
        const auto theta = [&](const char *key) {
            std::vector<double> t = defaultInverseFrequencies(10000.0, 96);
            const QJsonArray factors = scaling.value(QLatin1String(key)).toArray();
            for (std::size_t i = 0; i < t.size(); ++i)
                t[i] /= factors.at(qsizetype(i)).toDouble();
            return t;
        };
        const auto inverse = [&](const QStringList &more) {
            const QString out = path(u"phi-inv.npy"_qs);
            const test::RunResult run =
                test::runPescope(QStringList{u"data"_qs, u"--config"_qs, config, u"--what"_qs,
                                             u"inv-freq"_qs, u"--out"_qs, out} +
                                 more);
            QFile f(out);
            if (run.exitCode != 0 || !f.open(QIODevice::ReadOnly))
                return std::pair{run, std::vector<double>{}};
            const QByteArray bytes = f.readAll();
            std::vector<double> values(48);
            std::memcpy(values.data(), bytes.constData() + bytes.size() - 48 * 8, 48 * 8);
            return std::pair{run, values};
        };
        auto [run, values] = inverse({});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        PE_COMPARE_ARRAY(values, theta("short_factor"), {.relative = 1e-14});
        QVERIFY2(run.err.contains("longrope: no sequence length (no --positions): transformers' "
                                  "rotary module as loaded, seq_len None: short_factor"),
                 run.err.constData());
        std::tie(run, values) = inverse({u"--positions"_qs, u"8192"_qs});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        PE_COMPARE_ARRAY(values, theta("long_factor"), {.relative = 1e-14});
        QVERIFY2(run.err.contains("longrope: sequence length 8192 (--positions: HF's forward over "
                                  "positions 0..8191) > original_max_position_embeddings 4096: "
                                  "long_factor"),
                 run.err.constData());
        // Dynamic NTK says the base it scaled to: 10000 * (2 * 10000 / 4096 - 1)^(64 / 62).
        const QString dynamic = path(u"dynamic.json"_qs);
        test::writeBytes(dynamic, R"({"model_type": "llama", "hidden_size": 256,
            "num_attention_heads": 4, "num_hidden_layers": 1, "max_position_embeddings": 4096,
            "rope_theta": 10000.0, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})");
        run = test::runPescope({u"data"_qs, u"--config"_qs, dynamic, u"--what"_qs, u"inv-freq"_qs,
                                u"--positions"_qs, u"10000"_qs, u"--out"_qs, path(u"d.npy"_qs)});
        QCOMPARE(run.exitCode, 0);
        const double base = 10000.0 * std::pow(2.0 * 10000.0 / 4096.0 - 1.0, 64.0 / 62.0);
        QVERIFY2(run.err.contains("dynamic: sequence length 10000") &&
                     run.err.contains(
                         QByteArray("base 10000 scaled to " +
                                    QByteArray::number(base, 'g', QLocale::FloatingPointShortest))),
                 run.err.constData());
        run = test::runPescope({u"data"_qs, u"--config"_qs, dynamic, u"--what"_qs, u"cos"_qs,
                                u"--positions"_qs, u"8"_qs, u"--out"_qs, path(u"c.npy"_qs)});
        QVERIFY2(run.err.contains("base 10000 unchanged") &&
                     run.err.contains("layout: half: cat(f, f)"),
                 run.err.constData());
    }

    // OPT keeps 2 rows before position 0: `data --what positions` writes positions only.
    void dataLearnedOffset()
    {
        std::vector<float> values;
        for (int r = 0; r < 6; ++r)
            values.insert(values.end(), {float(10 * r), float(10 * r + 1)});
        const QString folder = path(u"opt"_qs);
        QDir().mkpath(folder);
        test::writeBytes(folder + u"/config.json"_qs,
                         R"({"model_type": "opt", "hidden_size": 2, "num_attention_heads": 1,
                             "num_hidden_layers": 1, "max_position_embeddings": 4})");
        test::writeBytes(folder + u"/model.safetensors"_qs,
                         test::safetensorsBytes({{u"model.decoder.embed_positions.weight"_qs,
                                                  u"F32"_qs,
                                                  {6, 2},
                                                  test::f32Bytes(values)}}));
        // Streamed from the file, and (another option set) through the scheme's own output.
        for (const bool streamed : {true, false}) {
            const QString out = path(streamed ? u"streamed.npy"_qs : u"general.npy"_qs);
            QStringList args{u"data"_qs,      u"--model"_qs, folder, u"--what"_qs,
                             u"positions"_qs, u"--out"_qs,   out};
            if (!streamed)
                args << u"--backend"_qs << u"cpu"_qs;
            const test::RunResult run = test::runPescope(args);
            QVERIFY2(run.exitCode == 0, run.err.constData());
            if (streamed)
                QVERIFY2(run.err.contains("positions from row 2 (rows 0-1 are no positions") &&
                             run.err.contains("4 x 2 table of positions") &&
                             run.err.contains("rows 2 to 5 of the stored 6"),
                         run.err.constData());
            else
                QVERIFY2(run.err.contains("from row 2"), run.err.constData());
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            QVERIFY(bytes.contains("'shape': (4, 2)"));
            QVERIFY(bytes.endsWith(test::f32Bytes({values.begin() + 4, values.end()})));
        }
    }

    void verifyAttentionFactorDropped()
    {
        // Phi-3-mini-128k: longrope, s = 131072 / 4096 = 32, attention factor
        // sqrt(1 + ln 32 / ln 4096); at 64 positions (<= 4096) the short factors apply.
        const QString config = fixture("phi-3-mini-128k-instruct.json");
        // _compute_longrope_parameters within the original context: theta_i = 1 / (short_i *
        // base^(2i/d)), base 10000, d = 96, the short factors read from the fixture itself.
        QFile file(config);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray shortFactor = QJsonDocument::fromJson(file.readAll())
                                           .object()
                                           .value(u"rope_scaling"_qs)
                                           .toObject()
                                           .value(u"short_factor"_qs)
                                           .toArray();
        QCOMPARE(shortFactor.size(), 48);
        std::vector<double> theta = defaultInverseFrequencies(10000.0, 96);
        for (std::size_t i = 0; i < theta.size(); ++i)
            theta[i] /= shortFactor.at(qsizetype(i)).toDouble();
        // The table without the attention factor: what an engine that drops it returns.
        const QString out = npy(u"phi3-cos.npy"_qs, {64, 96}, cosTable(theta, 64, 1.0));
        test::RunResult run =
            test::runPescope({u"verify"_qs, u"--config"_qs, config, u"--against"_qs, out});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("attention factor dropped"), run.out.constData());
        const double factor = std::sqrt(1 + std::log(32.0) / std::log(4096.0));
        QVERIFY2(run.out.contains(QByteArray::number(factor, 'g', 10)), run.out.constData());
        run = test::runPescope(
            {u"verify"_qs, u"--config"_qs, config, u"--against"_qs, out, u"--unscaled"_qs});
        QVERIFY2(run.exitCode == 0, run.out.constData());
    }

    void verifyGgufFrequencyFactors()
    {
        // llama.cpp writes llama3 scaling as rope_freqs.weight, per-pair divisors f_i of the
        // default frequencies: theta_i = base^(-2i/d) / f_i.
        const std::vector<double> theta = llama31InverseFrequencies();
        const std::vector<double> plain = defaultInverseFrequencies(500000.0, 128);
        std::vector<float> factors, ones(64, 1.0f);
        for (std::size_t i = 0; i < theta.size(); ++i)
            factors.push_back(float(plain[i] / theta[i]));
        const auto gguf = [&](const QString &name, const std::vector<float> &f) {
            test::GgufBuilder builder;
            builder.addString("general.architecture", "llama");
            builder.addTensor("rope_freqs.weight", {64}, 0 /* F32 */, test::f32Bytes(f));
            const QString file = path(name);
            test::writeBytes(file, builder.build());
            return file;
        };
        test::RunResult run =
            verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, gguf(u"good.gguf"_qs, factors)});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, gguf(u"ones.gguf"_qs, ones)});
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.out.contains("scaling ignored"), run.out.constData());
    }

    void verifySafetensorsTensor()
    {
        const std::vector<double> theta = llama31InverseFrequencies();
        const QString file = path(u"engine.safetensors"_qs);
        test::writeBytes(
            file, test::safetensorsBytes(
                      {{u"cos"_qs, u"F32"_qs, {8, 128}, test::f32Bytes(cosTable(theta, 8, 1.0))},
                       {u"inv_freq"_qs, u"F32"_qs, {64}, test::f32Bytes(toFloat(theta))}}));
        test::RunResult run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, file});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("holds 2 tensors") && run.err.contains("inv_freq"),
                 run.err.constData());
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, file + u":cos"_qs});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        run = verify(u"llama-3.1-8b.json"_qs, {u"--against"_qs, file + u":inv_freq"_qs});
        QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
        run = verify(u"llama-3.1-8b.json"_qs,
                     {u"--against"_qs, file + u":cos"_qs, u"--what"_qs, u"sin"_qs});
        QCOMPARE(run.exitCode, 4);
    }

    void inspectFolderAndCache()
    {
        // A GPT-2-like folder (config.json + model.safetensors) inside a Hugging Face cache.
        const QString snapshot = path(u"hub/models--tiny--gpt2/snapshots/abc123"_qs);
        QVERIFY(QDir().mkpath(snapshot));
        QVERIFY(test::writeBytes(path(u"hub/models--tiny--gpt2/refs/main"_qs), "abc123"));
        QVERIFY(test::writeBytes(snapshot + u"/config.json"_qs,
                                 R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
                                 "n_embd": 8, "n_head": 2, "n_layer": 3, "n_positions": 16})"));
        std::vector<quint16> half(16 * 8, 0x3c00); // 1.0 in IEEE half precision
        QVERIFY(test::writeBytes(
            snapshot + u"/model.safetensors"_qs,
            test::safetensorsBytes({{u"wpe.weight"_qs, u"F16"_qs, {16, 8}, test::u16Bytes(half)},
                                    {u"wte.weight"_qs,
                                     u"F32"_qs,
                                     {4, 8},
                                     test::f32Bytes(std::vector<float>(32, 0.5f))}})));
        test::RunResult run = test::runPescope({u"inspect"_qs, snapshot});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains(u"type:     gpt2 (GPT2LMHeadModel)"_qs), qPrintable(out));
        QVERIFY(out.contains(u"0-2 (3): absolute, full"_qs));
        QVERIFY(out.contains(u"wpe.weight  [16, 8]  F16"_qs));
        QVERIFY(out.contains(u"wte.weight  [4, 8]  F32"_qs));
        QVERIFY(out.contains(u"position table: wpe.weight"_qs));

        // The same by repo id through the cache, as JSON.
        qputenv("HF_HUB_CACHE", path(u"hub"_qs).toLocal8Bit());
        run = test::runPescope({u"inspect"_qs, u"tiny/gpt2"_qs, u"--json"_qs});
        qunsetenv("HF_HUB_CACHE");
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(json.value(u"repo_id"_qs).toString(), u"tiny/gpt2"_qs);
        QCOMPARE(json.value(u"revision"_qs).toString(), u"abc123"_qs);
        QCOMPARE(json.value(u"kind"_qs).toString(), u"safetensors"_qs);
        QCOMPARE(json.value(u"tensors"_qs).toArray().size(), 2);
        const QJsonObject config = json.value(u"config"_qs).toObject();
        QCOMPARE(config.value(u"max_position_embeddings"_qs).toInteger(), 16);
        QCOMPARE(config.value(u"layers"_qs).toArray().size(), 3);
    }

    void inspectLayerMap()
    {
        // Llama 4 Scout: no_rope_layers makes every 4th layer NoPE (transformers' Llama4TextConfig:
        // no_rope_layer_interval 4), the others rotate with chunked attention.
        const test::RunResult run =
            test::runPescope({u"inspect"_qs, fixture("llama-4-scout-17b-16e.json"), u"--json"_qs});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonArray layers = QJsonDocument::fromJson(run.out)
                                      .object()
                                      .value(u"config"_qs)
                                      .toObject()
                                      .value(u"layers"_qs)
                                      .toArray();
        QCOMPARE(layers.size(), 48);
        for (int i = 0; i < 48; ++i)
            QCOMPARE(layers.at(i).toObject().value(u"position"_qs).toString(),
                     (i + 1) % 4 == 0 ? u"nope"_qs : u"rope"_qs);
    }

    void inspectRefusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("nothing") << QStringList{} << u"name a model"_qs;
        QTest::addRow("absent path")
            << QStringList{path(u"absent"_qs)} << u"no such file or folder"_qs;
        QTest::addRow("two models")
            << QStringList{u"a"_qs, u"b"_qs} << u"unexpected argument \"b\""_qs;
        const QString junk = path(u"junk.bin"_qs);
        test::writeBytes(junk, "not a model");
        QTest::addRow("junk") << QStringList{junk} << u"not a model file pescope knows"_qs;
        const QString truncated = path(u"truncated.safetensors"_qs);
        test::writeBytes(truncated, test::le64(4096) + "{}");
        QTest::addRow("truncated") << QStringList{truncated} << u"truncated.safetensors"_qs;

        // Issue 32: what is not a regular file under a name pescope reads is named, never
        // skipped (inspect used to say "no .safetensors file" and exit 0). A FIFO nobody
        // writes would block a reader that opened it: the run's time limit catches that.
        const QByteArray weights = test::safetensorsBytes(
            {{u"wpe.weight"_qs, u"F32"_qs, {2, 2}, test::f32Bytes({1, 2, 3, 4})}});
        const QString config = fixture("gpt2.json");
        const auto folder = [&](const QString &name, const QString &special, const char *kind,
                                const QString &regular, const QByteArray &bytes) {
            const QString dir = path(name);
            QVERIFY(QDir().mkpath(dir));
            test::writeBytes(dir + u'/' + regular, bytes);
            const QString target = dir + u'/' + special;
            if (qstrcmp(kind, "fifo") == 0)
                QCOMPARE(::mkfifo(QFile::encodeName(target).constData(), 0600), 0);
            else if (qstrcmp(kind, "folder") == 0)
                QVERIFY(QDir().mkpath(target));
            else
                QVERIFY(QFile::link(QStringLiteral("/dev/zero"), target));
            QTest::addRow("%s", qPrintable(name))
                << QStringList{dir}
                << QStringLiteral("%1 is %2, not a regular file")
                       .arg(target, qstrcmp(kind, "fifo") == 0     ? u"a named pipe (FIFO)"_qs
                                    : qstrcmp(kind, "folder") == 0 ? u"a folder"_qs
                                                                   : u"a character device"_qs);
        };
        QFile configFile(config);
        QVERIFY(configFile.open(QIODevice::ReadOnly));
        const QByteArray configBytes = configFile.readAll();
        folder(u"config a FIFO"_qs, u"config.json"_qs, "fifo", u"model.safetensors"_qs, weights);
        folder(u"config a folder"_qs, u"config.json"_qs, "folder", u"model.safetensors"_qs,
               weights);
        folder(u"config is /dev/zero"_qs, u"config.json"_qs, "device", u"model.safetensors"_qs,
               weights);
        folder(u"weights a FIFO"_qs, u"model.safetensors"_qs, "fifo", u"config.json"_qs,
               configBytes);
        folder(u"GGUF a FIFO"_qs, u"model.gguf"_qs, "fifo", u"notes.txt"_qs, "notes");
        const QString fifo = path(u"alone.safetensors"_qs);
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        QTest::addRow("a FIFO named directly")
            << QStringList{fifo} << fifo + u" is a named pipe (FIFO), not a regular file"_qs;
    }
    void inspectRefusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const test::RunResult run = test::runPescope(QStringList{u"inspect"_qs} + args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromLocal8Bit(run.err).contains(message), run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);
    }

    void verifyBadInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString config = fixture("llama-3.1-8b.json");
        QTest::addRow("no config")
            << QStringList{u"--against"_qs, config} << u"--config or --model is required"_qs;
        QTest::addRow("no against")
            << QStringList{u"--config"_qs, config} << u"--against is required"_qs;
        QTest::addRow("absent file")
            << QStringList{u"--config"_qs, config, u"--against"_qs, path(u"none.npy"_qs)}
            << u"is not a file"_qs;
        QTest::addRow("not tensors")
            << QStringList{u"--config"_qs, config, u"--against"_qs, config} << u"--against"_qs;
        QTest::addRow("nope layer")
            << QStringList{u"--config"_qs,  fixture("llama-4-scout-17b-16e.json"),
                           u"--layer"_qs,   u"3"_qs,
                           u"--against"_qs, config}
            << u"no rotation to verify"_qs;
        const QString table = npy(u"table.npy"_qs, {2, 2}, {1, 1, 1, 1});
        QTest::addRow("bad what") << QStringList{u"--config"_qs, config,       u"--against"_qs,
                                                 table,          u"--what"_qs, u"tan"_qs}
                                  << u"--what must be inv-freq, attention-factor"_qs;
        QTest::addRow("wrong shape")
            << QStringList{u"--config"_qs, config, u"--against"_qs, table} << u"table.npy"_qs;
        // An empty table (np.zeros((0, 128))) refused by name, guessed or told what it holds,
        // in every file format verify reads.
        const QString empty = npy(u"empty.npy"_qs, {0, 128}, {});
        QTest::addRow("empty npy") << QStringList{u"--config"_qs, config, u"--against"_qs, empty}
                                   << u"empty.npy is [0, 128]: an empty table"_qs;
        QTest::addRow("empty npy, what given")
            << QStringList{u"--config"_qs, config, u"--against"_qs, empty, u"--what"_qs, u"cos"_qs}
            << u"empty.npy is [0, 128]: an empty table"_qs;
        QTest::addRow("no columns") << QStringList{u"--config"_qs, config, u"--against"_qs,
                                                   npy(u"no-columns.npy"_qs, {4, 0}, {})}
                                    << u"no-columns.npy is [4, 0]: an empty table"_qs;
        const QString emptySafetensors = path(u"empty.safetensors"_qs);
        test::writeBytes(emptySafetensors,
                         test::safetensorsBytes({{u"cos"_qs, u"F32"_qs, {0, 128}, QByteArray()}}));
        QTest::addRow("empty safetensors")
            << QStringList{u"--config"_qs, config, u"--against"_qs, emptySafetensors}
            << u"empty.safetensors is [0, 128]: an empty table"_qs;
        test::GgufBuilder builder;
        builder.addString("general.architecture", "llama");
        builder.addTensor("rope_freqs.weight", {0}, 0 /* F32 */, QByteArray());
        const QString emptyGguf = path(u"empty.gguf"_qs);
        test::writeBytes(emptyGguf, builder.build());
        QTest::addRow("empty gguf")
            << QStringList{u"--config"_qs, config, u"--against"_qs, emptyGguf}
            << u"empty.gguf is [0]: an empty table"_qs;
        QTest::addRow("negative tolerance")
            << QStringList{u"--config"_qs,    config,  u"--against"_qs, table,
                           u"--tolerance"_qs, u"-1"_qs}
            << u"--tolerance must be at least 0"_qs;
    }
    void verifyBadInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const test::RunResult run = test::runPescope(QStringList{u"verify"_qs} + args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromLocal8Bit(run.err).contains(message), run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);
    }

    // `data --position-ids`: Qwen2.5-VL's mrope_section [16, 24, 24] over 64 pairs - pairs
    // [0, 16) turn with t, [16, 40) with h, [40, 64) with w (apply_multimodal_rotary_pos_emb) -
    // one row per (t, h, w) triple, against cos / sin of id * base^(-2i/128) in float64.
    void mropePositionIds()
    {
        const QString config = path(u"qwen2.5-vl.json"_qs);
        test::writeBytes(config, R"({"model_type": "qwen2_5_vl", "hidden_size": 3584,
            "num_attention_heads": 28, "num_hidden_layers": 2, "rope_theta": 1000000.0,
            "max_position_embeddings": 128000,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})");
        const std::vector<std::array<qint64, 3>> ids{{0, 0, 0}, {3, 1, 2}, {5, 5, 5}, {7, 40, 9}};
        const QString idsFile = path(u"ids.txt"_qs);
        test::writeBytes(idsFile, "# t h w\n3 1 2\n5\n7,40,9 # an image patch\n");
        for (const bool sine : {false, true}) {
            const QString out = path(sine ? u"sin.npy"_qs : u"cos.npy"_qs);
            const test::RunResult run = test::runPescope(
                {u"data"_qs, u"--config"_qs, config, u"--what"_qs, sine ? u"sin"_qs : u"cos"_qs,
                 u"--position-ids"_qs, sine ? u"0,0,0;3,1,2;5;7,40,9"_qs : u"@"_qs + idsFile,
                 u"--out"_qs, out});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            const std::size_t first = sine ? 0 : 1; // the file has no (0, 0, 0) row
            const std::size_t rows = ids.size() - first;
            const qsizetype data = bytes.size() - qsizetype(rows * 128 * sizeof(double));
            QVERIFY(data > 0);
            std::vector<double> got(rows * 128), expected;
            for (std::size_t i = 0; i < got.size(); ++i)
                std::memcpy(&got[i], bytes.constData() + data + i * 8, 8);
            for (std::size_t r = 0; r < rows; ++r) {
                const auto &id = ids[first + r];
                for (int c = 0; c < 128; ++c) {
                    const int pair = c % 64;
                    const qint64 position = pair < 16 ? id[0] : pair < 40 ? id[1] : id[2];
                    const double angle =
                        double(position) * (1.0 / std::pow(1000000.0, 2.0 * pair / 128.0));
                    expected.push_back(sine ? std::sin(angle) : std::cos(angle));
                }
            }
            PE_COMPARE_ARRAY(got, expected, {.absolute = 1e-12}, 128);
        }
        const auto refused = [&](const QStringList &more, const char *message) {
            const test::RunResult run = test::runPescope(
                QStringList{u"data"_qs, u"--config"_qs, config, u"--out"_qs, path(u"x.npy"_qs)} +
                more);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(message), run.err.constData());
        };
        refused({u"--what"_qs, u"cos"_qs, u"--position-ids"_qs, u"1,2"_qs},
                "entry 1 (\"1,2\") has 2 numbers");
        refused({u"--what"_qs, u"cos"_qs, u"--position-ids"_qs, u"1;2,x,3"_qs},
                "\"x\" is not a position id");
        refused({u"--what"_qs, u"cos"_qs, u"--position-ids"_qs, u"1;-4"_qs},
                "\"-4\" is not a position id");
        refused({u"--what"_qs, u"inv-freq"_qs, u"--position-ids"_qs, u"1"_qs},
                "--position-ids applies to --what cos or sin");
        refused(
            {u"--what"_qs, u"cos"_qs, u"--position-ids"_qs, u"1"_qs, u"--positions"_qs, u"4"_qs},
            "--positions does not apply to --position-ids");
        refused({u"--what"_qs, u"cos"_qs, u"--position-ids"_qs, u"@"_qs + path(u"none.txt"_qs)},
                "none.txt");
    }
};

QTEST_GUILESS_MAIN(TestModelCli)
#include "tst_modelcli.moc"
