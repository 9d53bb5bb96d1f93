// pe::ForwardPass on GGUF files. The test converts the safetensors test models
// (tests/data/models-layers) to GGUF itself, as llama.cpp's convert_hf_to_gguf.py does: its
// tensor names, LlamaModel.permute on q_proj / k_proj, GPT-2's Conv1D matrices transposed,
// rope_freqs.weight for llama3 scaling (LlamaModel.generate_extra_tensors), one-dimensional
// tensors kept F32, and gguf-py's F16 and Q8_0 encodings (quants.py Q8_0.quantize_blocks). The
// files are written byte by byte from the GGUF specification (modelfilewriter.h), the
// safetensors read with a JSON parser here, independently of pescope's readers.
//  - F32: every layer's attention against transformers' own (the data's ref/), with the bounds
//    of tst_forwardpass; and against pescope's safetensors pass of the same model.
//  - F16 and Q8_0 change the weights: against the safetensors pass of the same rounded weights
//    (written by the test as a float32 safetensors model), within 1e-5.
//  - Hostile files: other quantizations, shapes against the metadata, truncation, other
//    architectures: refused by name, nothing crashes.
#include "model/forwardpass.h"

#include "modelfilewriter.h"
#include "modelreference.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <qfloat16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numbers>

using namespace pe;
using namespace pe::test;

namespace {

QString layersFolder(const QString &name)
{
    // qwen2-tiny (q/k/v biases, tied, two shards) is one of the port-checked models.
    return name == QLatin1String("qwen2-tiny")
               ? QFINDTESTDATA(QStringLiteral("data/models-forward/") + name)
               : QFINDTESTDATA(QStringLiteral("data/models-layers/") + name);
}

struct HfTensor
{
    std::vector<qint64> shape;
    std::vector<float> values;
};
using HfModel = std::map<QString, HfTensor>;

// A float32 safetensors file: 8-byte header length, JSON header, data (README "Format").
HfModel readSafetensors(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = file.readAll();
    quint64 length = qFromLittleEndian<quint64>(bytes.constData());
    const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, qsizetype(length))).object();
    const char *data = bytes.constData() + 8 + length;
    HfModel out;
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == QLatin1String("__metadata__"))
            continue;
        const QJsonObject t = it.value().toObject();
        if (t.value(QLatin1String("dtype")).toString() != QLatin1String("F32"))
            return {};
        HfTensor tensor;
        for (const QJsonValue d : t.value(QLatin1String("shape")).toArray())
            tensor.shape.push_back(d.toInteger());
        const QJsonArray offsets = t.value(QLatin1String("data_offsets")).toArray();
        const qint64 begin = offsets[0].toInteger(), end = offsets[1].toInteger();
        tensor.values.resize(std::size_t((end - begin) / 4));
        std::memcpy(tensor.values.data(), data + begin, std::size_t(end - begin));
        out[it.key()] = std::move(tensor);
    }
    return out;
}

// convert_hf_to_gguf.py LlamaModel.permute: w.reshape(n_head, 2, rows / n_head / 2, cols)
// .swapaxes(1, 2).reshape(w.shape).
HfTensor permute(const HfTensor &w, qint64 heads)
{
    const qint64 rows = w.shape[0], cols = w.shape.size() > 1 ? w.shape[1] : 1;
    const qint64 half = rows / heads / 2;
    HfTensor out = w;
    // Output index (h, i, j) after swapaxes = input index (h, j, i).
    for (qint64 h = 0; h < heads; ++h)
        for (qint64 i = 0; i < half; ++i)
            for (qint64 j = 0; j < 2; ++j) {
                const qint64 to = (h * half + i) * 2 + j, from = (h * 2 + j) * half + i;
                std::copy_n(w.values.begin() + from * cols, cols, out.values.begin() + to * cols);
            }
    return out;
}

HfTensor transposed(const HfTensor &w)
{
    HfTensor out{{w.shape[1], w.shape[0]}, std::vector<float>(w.values.size())};
    for (qint64 r = 0; r < w.shape[0]; ++r)
        for (qint64 c = 0; c < w.shape[1]; ++c)
            out.values[std::size_t(c * w.shape[0] + r)] = w.values[std::size_t(r * w.shape[1] + c)];
    return out;
}

// np_roundf (gguf-py quants.py): round half away from zero.
float roundAway(float n)
{
    const float a = std::abs(n), floored = std::floor(a);
    const float b = floored + std::floor(2 * (a - floored));
    return n < 0 ? -b : b;
}

quint16 halfBits(float v)
{
    const qfloat16 h(v); // IEEE round to nearest even, as numpy's astype(float16)
    quint16 bits = 0;
    std::memcpy(&bits, &h, 2);
    return bits;
}

enum GgmlId : quint32 { F32 = 0, F16 = 1, Q8_0 = 8, Q4_0 = 2, Q4_K = 12, BF16 = 30 };

// Encodes `values` as `type` and gives back what they decode to (the weights the file holds).
QByteArray encode(const std::vector<float> &values, quint32 type, std::vector<float> *decoded)
{
    QByteArray out;
    decoded->clear();
    if (type == F32) {
        *decoded = values;
        return f32Bytes(values);
    }
    if (type == F16) {
        for (const float v : values) {
            const quint16 bits = halfBits(v);
            out += le16(bits);
            decoded->push_back(float(halfReference(bits)));
        }
        return out;
    }
    if (type == BF16) { // BF16.quantize_blocks: round to nearest even (no NaN here)
        for (const float v : values) {
            quint32 bits = 0;
            std::memcpy(&bits, &v, 4);
            const auto top = quint16((quint64(bits) + 0x7fff + ((bits >> 16) & 1)) >> 16);
            out += le16(top);
            decoded->push_back(float(bfloat16Reference(top)));
        }
        return out;
    }
    // Q8_0.quantize_blocks: d = max|x| / 127, qs = roundf(x * (1 / d)), d stored as float16.
    for (std::size_t b = 0; b < values.size(); b += 32) {
        float amax = 0;
        for (std::size_t j = 0; j < 32; ++j)
            amax = std::max(amax, std::abs(values[b + j]));
        const float d = amax / 127.0f;
        const float id = d == 0 ? 0.0f : 1.0f / d;
        const quint16 dBits = halfBits(d);
        out += le16(dBits);
        for (std::size_t j = 0; j < 32; ++j) {
            const auto q = qint8(roundAway(values[b + j] * id));
            out += char(q);
            decoded->push_back(float(halfReference(dBits)) * float(q));
        }
    }
    return out;
}

struct GgufTensor
{
    QByteArray name;
    HfTensor tensor; // C order, rows first (GGUF's ne reversed)
    QString hfName;  // where the decoded values go in the safetensors twin; empty: nowhere
    bool permuted = false;
    qint64 heads = 0;
};

struct Conversion
{
    QByteArray arch;
    std::vector<GgufTensor> tensors;
};

// The tensors llama.cpp's converter writes for the llama / qwen3 / gpt2 test models.
Conversion convert(const QString &model, const HfModel &hf, const QJsonObject &config)
{
    Conversion c;
    const auto add = [&](const QByteArray &name, const QString &from, bool transpose = false) {
        const HfTensor &t = hf.at(from);
        c.tensors.push_back({name, transpose ? transposed(t) : t, transpose ? QString() : from});
    };
    if (model == QLatin1String("gpt2-tiny4")) {
        c.arch = "gpt2";
        add("token_embd.weight", QStringLiteral("transformer.wte.weight"));
        add("output.weight", QStringLiteral("transformer.wte.weight")); // GPT2Model copies it
        add("position_embd.weight", QStringLiteral("transformer.wpe.weight"));
        add("output_norm.weight", QStringLiteral("transformer.ln_f.weight"));
        add("output_norm.bias", QStringLiteral("transformer.ln_f.bias"));
        for (int i = 0; i < 4; ++i) {
            const QByteArray b = "blk." + QByteArray::number(i) + '.';
            const QByteArray h = "transformer.h." + QByteArray::number(i) + '.';
            for (const QByteArray part : {QByteArray("weight"), QByteArray("bias")}) {
                const auto from = [&](const char *name) {
                    return QString::fromLatin1(h + name + part);
                };
                const bool w = part == "weight";
                add(b + "attn_norm." + part, from("ln_1."));
                add(b + "ffn_norm." + part, from("ln_2."));
                add(b + "attn_qkv." + part, from("attn.c_attn."), w);
                add(b + "attn_output." + part, from("attn.c_proj."), w);
                add(b + "ffn_up." + part, from("mlp.c_fc."), w);
                add(b + "ffn_down." + part, from("mlp.c_proj."), w);
            }
        }
        return c;
    }
    const bool llama = model == QLatin1String("llama-tiny4");
    c.arch = llama ? "llama" : model == QLatin1String("qwen2-tiny") ? "qwen2" : "qwen3";
    const qint64 layers = config.value(QLatin1String("num_hidden_layers")).toInteger();
    const qint64 heads = config.value(QLatin1String("num_attention_heads")).toInteger();
    const qint64 kvHeads = config.value(QLatin1String("num_key_value_heads")).toInteger();
    add("token_embd.weight", QStringLiteral("model.embed_tokens.weight"));
    add("output_norm.weight", QStringLiteral("model.norm.weight"));
    if (hf.count(QStringLiteral("lm_head.weight")))
        add("output.weight", QStringLiteral("lm_head.weight"));
    const std::vector<std::pair<const char *, const char *>> names = {
        {"attn_norm.weight", "input_layernorm.weight"},
        {"ffn_norm.weight", "post_attention_layernorm.weight"},
        {"attn_q.weight", "self_attn.q_proj.weight"},
        {"attn_k.weight", "self_attn.k_proj.weight"},
        {"attn_v.weight", "self_attn.v_proj.weight"},
        {"attn_q.bias", "self_attn.q_proj.bias"},
        {"attn_k.bias", "self_attn.k_proj.bias"},
        {"attn_v.bias", "self_attn.v_proj.bias"},
        {"attn_output.weight", "self_attn.o_proj.weight"},
        {"attn_q_norm.weight", "self_attn.q_norm.weight"},
        {"attn_k_norm.weight", "self_attn.k_norm.weight"},
        {"ffn_gate.weight", "mlp.gate_proj.weight"},
        {"ffn_up.weight", "mlp.up_proj.weight"},
        {"ffn_down.weight", "mlp.down_proj.weight"}};
    for (qint64 i = 0; i < layers; ++i)
        for (const auto &[to, from] : names) {
            const QString hfName = QStringLiteral("model.layers.%1.").arg(i) + QLatin1String(from);
            if (!hf.count(hfName))
                continue;
            add("blk." + QByteArray::number(i) + '.' + to, hfName);
            const bool q = std::strncmp(to, "attn_q.", 7) == 0;
            if (llama && (q || std::strncmp(to, "attn_k.", 7) == 0)) {
                GgufTensor &t = c.tensors.back();
                t.tensor = permute(t.tensor, q ? heads : kvHeads);
                t.permuted = true;
            }
        }
    return c;
}

// LlamaModel.generate_extra_tensors for rope_type llama3: per-pair divisors of the default
// frequencies, float32.
std::vector<float> llama3RopeFactors(const QJsonObject &config)
{
    const QJsonObject s = config.value(QLatin1String("rope_scaling")).toObject();
    const double base = config.value(QLatin1String("rope_theta")).toDouble();
    const qint64 dim = config.value(QLatin1String("head_dim")).toInteger();
    const double factor = s.value(QLatin1String("factor")).toDouble();
    const double low = s.value(QLatin1String("low_freq_factor")).toDouble();
    const double high = s.value(QLatin1String("high_freq_factor")).toDouble();
    const double old = s.value(QLatin1String("original_max_position_embeddings")).toDouble();
    std::vector<float> out;
    for (qint64 i = 0; i < dim; i += 2) {
        // torch: 1.0 / (base ** (arange(0, dim, 2, float32) / dim)), in float32
        const float freq = 1.0f / std::pow(float(base), float(i) / float(dim));
        const double wavelen = 2 * std::numbers::pi / double(freq);
        if (wavelen < old / high)
            out.push_back(1.0f);
        else if (wavelen > old / low)
            out.push_back(float(factor));
        else {
            const double smooth = (old / wavelen - low) / (high - low);
            out.push_back(float(1 / ((1 - smooth) / factor + smooth)));
        }
    }
    return out;
}

struct Written
{
    QString gguf;    // the GGUF file
    HfModel decoded; // what it holds, under transformers' names and layout
    // Q8_0: the largest |x - decoded| in steps of its block (max |x| / 127); at most half a step
    // plus the float16 rounding of the scale (127 q * 2^-11 d: 0.06 of a step).
    double worstSteps = 0;
};

// Writes the GGUF file of `model` with matrices (two-dimensional tensors) as `type` and
// one-dimensional ones F32, as convert_hf_to_gguf.py --outtype does. `edit` may change a
// tensor's type or shape before it is written.
Written writeGguf(const QString &model, quint32 type, const QString &path,
                  const std::function<void(GgufTensor &, quint32 &)> &edit = {})
{
    const QString folder = layersFolder(model);
    HfModel hf;
    for (const QString &file : QDir(folder).entryList({QStringLiteral("*.safetensors")}))
        hf.merge(readSafetensors(folder + QLatin1Char('/') + file));
    QFile cf(folder + QStringLiteral("/config.json"));
    cf.open(QIODevice::ReadOnly);
    const QJsonObject config = QJsonDocument::fromJson(cf.readAll()).object();
    Conversion c = convert(model, hf, config);
    GgufBuilder b(3);
    const QByteArray a = c.arch;
    b.addString("general.architecture", a);
    const auto u32 = [&](const char *key, qint64 v) { b.addU32(a + '.' + key, quint32(v)); };
    const auto f32 = [&](const char *key, double v) { b.addF32(a + '.' + key, float(v)); };
    if (a == "gpt2") {
        u32("context_length", config.value(QLatin1String("n_positions")).toInteger());
        u32("embedding_length", 64);
        u32("feed_forward_length", 256);
        u32("block_count", 4);
        u32("attention.head_count", 4);
        f32("attention.layer_norm_epsilon",
            config.value(QLatin1String("layer_norm_epsilon")).toDouble());
    } else {
        u32("context_length", config.value(QLatin1String("max_position_embeddings")).toInteger());
        u32("embedding_length", config.value(QLatin1String("hidden_size")).toInteger());
        u32("feed_forward_length", config.value(QLatin1String("intermediate_size")).toInteger());
        u32("block_count", config.value(QLatin1String("num_hidden_layers")).toInteger());
        u32("attention.head_count", config.value(QLatin1String("num_attention_heads")).toInteger());
        u32("attention.head_count_kv",
            config.value(QLatin1String("num_key_value_heads")).toInteger());
        u32("attention.key_length", config.value(QLatin1String("head_dim")).toInteger());
        u32("attention.value_length", config.value(QLatin1String("head_dim")).toInteger());
        u32("rope.dimension_count", config.value(QLatin1String("head_dim")).toInteger());
        f32("rope.freq_base", config.value(QLatin1String("rope_theta")).toDouble());
        f32("attention.layer_norm_rms_epsilon",
            config.value(QLatin1String("rms_norm_eps")).toDouble());
        if (config.value(QLatin1String("rope_scaling")).isObject()) {
            const std::vector<float> factors = llama3RopeFactors(config);
            b.addTensor("rope_freqs.weight", {quint64(factors.size())}, F32, f32Bytes(factors));
        }
    }
    Written out;
    out.gguf = path;
    for (GgufTensor &t : c.tensors) {
        quint32 tensorType = t.tensor.shape.size() == 2 ? type : quint32(F32);
        if (edit)
            edit(t, tensorType);
        std::vector<float> decoded;
        QByteArray bytes = tensorType == Q4_0 || tensorType == Q4_K
                               ? QByteArray(int(t.tensor.values.size() / 32 * 18), '\x11')
                               : encode(t.tensor.values, tensorType, &decoded);
        for (std::size_t b = 0; tensorType == Q8_0 && b < decoded.size(); b += 32) {
            double amax = 0;
            for (std::size_t j = b; j < b + 32; ++j)
                amax = std::max(amax, std::abs(double(t.tensor.values[j])));
            for (std::size_t j = b; j < b + 32 && amax > 0; ++j)
                out.worstSteps =
                    std::max(out.worstSteps,
                             std::abs(double(t.tensor.values[j]) - decoded[j]) / (amax / 127));
        }
        std::vector<quint64> ne(t.tensor.shape.rbegin(), t.tensor.shape.rend());
        b.addTensor(t.name, ne, tensorType, bytes);
        if (t.hfName.isEmpty() || decoded.empty())
            continue;
        HfTensor d{t.tensor.shape, decoded};
        // Q8_0 blocks lie within a row, and the permutation moves whole rows: the decoded rows
        // put back are the rounding of transformers' rows.
        if (t.permuted) {
            HfTensor back = d;
            const qint64 rows = d.shape[0], cols = d.shape[1];
            const qint64 heads = rows / 16, half = 8; // head_dim 16
            for (qint64 h = 0; h < heads; ++h)
                for (qint64 i = 0; i < half; ++i)
                    for (qint64 j = 0; j < 2; ++j)
                        std::copy_n(d.values.begin() + ((h * half + i) * 2 + j) * cols, cols,
                                    back.values.begin() + ((h * 2 + j) * half + i) * cols);
            d = back;
        }
        out.decoded[t.hfName] = d;
    }
    writeBytes(path, b.build());
    return out;
}

// A safetensors model of `decoded` beside a copy of `model`'s config.json.
bool writeTwin(const QString &model, const HfModel &decoded, const QString &folder)
{
    std::vector<SafetensorsEntry> entries;
    for (const auto &[name, t] : decoded)
        entries.push_back({name, QStringLiteral("F32"), t.shape, f32Bytes(t.values)});
    return writeBytes(folder + QStringLiteral("/model.safetensors"), safetensorsBytes(entries)) &&
           QFile::copy(layersFolder(model) + QStringLiteral("/config.json"),
                       folder + QStringLiteral("/config.json"));
}

std::vector<int> idsOf(const QJsonObject &phrase)
{
    std::vector<int> ids;
    for (const QJsonValue v : phrase.value(QLatin1String("ids")).toArray())
        ids.push_back(v.toInt());
    return ids;
}

double maxDifference(const std::vector<float> &a, const std::vector<float> &b)
{
    if (a.size() != b.size())
        return 1e30;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::abs(double(a[i]) - double(b[i]));
        worst = std::isnan(d) ? 1e30 : std::max(worst, d);
    }
    return worst;
}

// The largest |a - b| in layers [0, 2) and in all, over every phrase of `model`.
struct Agreement
{
    double early = 0, all = 0;
};

Agreement agreement(ForwardPass &pass, const QString &model,
                    const std::function<std::vector<float>(const std::vector<int> &,
                                                           const QJsonObject &)> &reference)
{
    Agreement out;
    QString error;
    for (const QJsonValue c : phraseCases(layersFolder(model))) {
        const std::vector<int> ids = idsOf(c.toObject());
        const std::optional<ForwardResult> result = pass.run(ids, {}, &error);
        if (!result)
            return {1e30, 1e30};
        const std::vector<float> theirs = reference(ids, c.toObject());
        const std::size_t half = theirs.size() / 2;
        out.early = std::max(out.early, maxDifference({result->attentions.values.begin(),
                                                       result->attentions.values.begin() + half},
                                                      {theirs.begin(), theirs.begin() + half}));
        out.all = std::max(out.all, maxDifference(result->attentions.values, theirs));
    }
    return out;
}

} // namespace

class TestGgufForward : public QObject
{
    Q_OBJECT

private slots:
    void f32MatchesTransformers_data();
    void f32MatchesTransformers();
    void qwen2MatchesSafetensors();
    void roundedWeightsMatchSafetensors_data();
    void roundedWeightsMatchSafetensors();
    void refusesOtherQuantizations();
    void refusesShapesAgainstMetadata();
    void refusesTruncatedFiles();
    void refusesOtherArchitectures();
    void commandLine_data();
    void commandLine();

private:
    QTemporaryDir m_dir;
};

void TestGgufForward::f32MatchesTransformers_data()
{
    QTest::addColumn<QString>("model");
    QTest::newRow("llama (q/k permuted, GQA, rope_freqs)") << QStringLiteral("llama-tiny4");
    QTest::newRow("qwen3 (q/k norms, tied)") << QStringLiteral("qwen3-tiny4");
    QTest::newRow("gpt2 (attn_qkv, position_embd)") << QStringLiteral("gpt2-tiny4");
}

// transformers' attention: within 1e-5 in every layer (tst_forwardpass's bound); and the
// safetensors pass of the same model: exactly for qwen3 and gpt2 (the same arithmetic on the
// same values), within 1e-5 for llama, whose frequencies come from rope_freqs.weight's float32
// divisors (longrope's float32 formula) rather than from llama3's (measured 5e-6: an angle
// moves by a float32 step, which the layers grow).
void TestGgufForward::f32MatchesTransformers()
{
    QFETCH(QString, model);
    const QString path = m_dir.filePath(model + QStringLiteral("-f32.gguf"));
    writeGguf(model, F32, path);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(path, &error);
    QVERIFY2(pass, qPrintable(error));
    QCOMPARE(pass->layers(), 4);
    const QString folder = layersFolder(model);
    const Agreement hf =
        agreement(*pass, model, [&](const std::vector<int> &, const QJsonObject &p) {
            return readNpy(folder + QStringLiteral("/ref/") +
                           p.value(QLatin1String("attn")).toString())
                .values;
        });
    const std::unique_ptr<ForwardPass> safetensors = ForwardPass::open(folder, &error);
    QVERIFY2(safetensors, qPrintable(error));
    const Agreement same =
        agreement(*pass, model, [&](const std::vector<int> &ids, const QJsonObject &) {
            return safetensors->run(ids, {}, &error)->attentions.values;
        });
    qInfo("%s: against transformers %.3g (layers 0-1) %.3g (all); against safetensors %.3g",
          qPrintable(model), hf.early, hf.all, same.all);
    QVERIFY2(hf.early <= 1e-5, qPrintable(QString::number(hf.early)));
    QVERIFY2(hf.all <= 1e-5, qPrintable(QString::number(hf.all)));
    // llama.cpp stores llama3's frequencies as float32 divisors, and GGUF's GPT-2 matrices are
    // out x in where the safetensors Conv1D weights are in x out (multiplied as stored, another
    // OpenBLAS kernel and summation order): those two agree within float32 rounding; the others
    // read the same numbers the same way, bit for bit.
    if (model == QLatin1String("llama-tiny4") || model == QLatin1String("gpt2-tiny4"))
        QVERIFY2(same.all <= 1e-5, qPrintable(QString::number(same.all)));
    else
        QCOMPARE(same.all, 0.0);
}

// qwen2 (q/k/v biases, no o_proj bias, tied output, stored unpermuted) against pescope's
// safetensors pass of the same model, itself checked against the NumPy port of transformers'
// Qwen2 (tst_forwardpass): the same arithmetic on the same values, so every array is identical.
void TestGgufForward::qwen2MatchesSafetensors()
{
    const QString model = QStringLiteral("qwen2-tiny");
    const QString path = m_dir.filePath(QStringLiteral("qwen2-f32.gguf"));
    writeGguf(model, F32, path);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(path, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::unique_ptr<ForwardPass> reference = ForwardPass::open(layersFolder(model), &error);
    QVERIFY2(reference, qPrintable(error));
    QCOMPARE(pass->modelType(), QStringLiteral("qwen2"));
    QCOMPARE(pass->layers(), 3);
    QFile idsFile(layersFolder(model) + QStringLiteral("/ref/ids.json"));
    QVERIFY(idsFile.open(QIODevice::ReadOnly));
    const std::vector<int> ids = idsOf(QJsonDocument::fromJson(idsFile.readAll()).object());
    const std::optional<ForwardResult> ours = pass->run(ids, {}, &error);
    QVERIFY2(ours, qPrintable(error));
    const std::optional<ForwardResult> theirs = reference->run(ids, {}, &error);
    QVERIFY2(theirs, qPrintable(error));
    QCOMPARE(ours->attentions.values, theirs->attentions.values);
    QCOMPARE(ours->hiddenStates.values, theirs->hiddenStates.values);
    QCOMPARE(ours->logits.values, theirs->logits.values);
}

void TestGgufForward::roundedWeightsMatchSafetensors_data()
{
    QTest::addColumn<quint32>("type");
    QTest::newRow("F16") << quint32(F16);
    QTest::newRow("BF16") << quint32(BF16);
    QTest::newRow("Q8_0") << quint32(Q8_0);
}

void TestGgufForward::roundedWeightsMatchSafetensors()
{
    QFETCH(quint32, type);
    const QString model = QStringLiteral("llama-tiny4");
    const QString tag = QString::number(type);
    const Written w = writeGguf(model, type, m_dir.filePath(tag + QStringLiteral(".gguf")));
    const QString twin = m_dir.filePath(QStringLiteral("twin-") + tag);
    QVERIFY(QDir().mkpath(twin));
    QVERIFY(writeTwin(model, w.decoded, twin));
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(w.gguf, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::unique_ptr<ForwardPass> reference = ForwardPass::open(twin, &error);
    QVERIFY2(reference, qPrintable(error));
    const Agreement same =
        agreement(*pass, model, [&](const std::vector<int> &ids, const QJsonObject &) {
            return reference->run(ids, {}, &error)->attentions.values;
        });
    const QString folder = layersFolder(model);
    const Agreement hf =
        agreement(*pass, model, [&](const std::vector<int> &, const QJsonObject &p) {
            return readNpy(folder + QStringLiteral("/ref/") +
                           p.value(QLatin1String("attn")).toString())
                .values;
        });
    qInfo("type %u: against the same rounded weights %.3g; against transformers' float32 %.3g",
          type, same.all, hf.all);
    QVERIFY2(same.all <= 1e-5, qPrintable(QString::number(same.all)));
    QVERIFY(hf.all > 0); // the rounding shows
    QVERIFY2(w.worstSteps <= 0.56, qPrintable(QString::number(w.worstSteps)));
}

void TestGgufForward::refusesOtherQuantizations()
{
    for (const quint32 type : {quint32(Q4_0), quint32(Q4_K)}) {
        const QString path = m_dir.filePath(QStringLiteral("q%1.gguf").arg(type));
        writeGguf(QStringLiteral("llama-tiny4"), F32, path, [&](GgufTensor &t, quint32 &as) {
            if (t.name == "blk.2.attn_q.weight")
                as = type;
        });
        QString error;
        QVERIFY(!ForwardPass::open(path, &error));
        qInfo("%s", qPrintable(error));
        QVERIFY2(error.contains(type == Q4_0 ? QStringLiteral("tensor blk.2.attn_q.weight is Q4_0, "
                                                              "a quantized type pescope cannot "
                                                              "read (it reads F32, F16, BF16 and "
                                                              "Q8_0)")
                                             : QStringLiteral("blk.2.attn_q.weight")),
                 qPrintable(error));
        QVERIFY2(error.contains(type == Q4_0 ? QStringLiteral("Q4_0") : QStringLiteral("Q4_K")),
                 qPrintable(error));
    }
}

void TestGgufForward::refusesShapesAgainstMetadata()
{
    const QString path = m_dir.filePath(QStringLiteral("shape.gguf"));
    writeGguf(QStringLiteral("llama-tiny4"), F32, path, [](GgufTensor &t, quint32 &) {
        if (t.name == "blk.3.attn_k.weight") { // 64 rows where 2 key/value heads of 16 need 32
            t.tensor.shape = {64, 64};
            t.tensor.values.resize(64 * 64);
        }
    });
    QString error;
    QVERIFY(!ForwardPass::open(path, &error));
    QCOMPARE(error, path + QStringLiteral(": tensor blk.3.attn_k.weight has shape [64, 64]; its "
                                          "metadata implies [32, 64]"));
}

void TestGgufForward::refusesTruncatedFiles()
{
    const QString path = m_dir.filePath(QStringLiteral("whole.gguf"));
    writeGguf(QStringLiteral("llama-tiny4"), Q8_0, path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    for (const qsizetype keep :
         {qsizetype(16), qsizetype(200), bytes.size() / 2, bytes.size() - 1}) {
        const QString cut = m_dir.filePath(QStringLiteral("cut-%1.gguf").arg(keep));
        QVERIFY(writeBytes(cut, bytes.left(keep)));
        QString error;
        QVERIFY(!ForwardPass::open(cut, &error));
        QVERIFY2(error.contains(cut), qPrintable(error));
    }
}

void TestGgufForward::refusesOtherArchitectures()
{
    GgufBuilder b(3);
    b.addString("general.architecture", "falcon");
    b.addU32("falcon.context_length", 64);
    b.addU32("falcon.embedding_length", 64);
    b.addU32("falcon.block_count", 1);
    b.addU32("falcon.attention.head_count", 4);
    b.addTensor("token_embd.weight", {64, 8}, F32, f32Bytes(std::vector<float>(512, 0.5f)));
    const QString path = m_dir.filePath(QStringLiteral("falcon.gguf"));
    QVERIFY(writeBytes(path, b.build()));
    QString error;
    QVERIFY(!ForwardPass::open(path, &error));
    QVERIFY2(error.contains(QStringLiteral("GGUF architecture falcon")), qPrintable(error));
}

void TestGgufForward::commandLine_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("layer");
    QTest::newRow("llama layer 0 (layer 0's own reader)") << QStringLiteral("llama-tiny4") << 0;
    QTest::newRow("llama layer 3 (the whole pass)") << QStringLiteral("llama-tiny4") << 3;
    QTest::newRow("gpt2 layer 0") << QStringLiteral("gpt2-tiny4") << 0;
    QTest::newRow("qwen3 layer 2") << QStringLiteral("qwen3-tiny4") << 2;
}

// `pescope data --model FILE.gguf --phrase TEXT --what attention --layer N`, the tokens from the
// tokenizer.json beside the file: transformers' attention of that layer for phrase 0, within
// tst_forwardpass's bounds.
void TestGgufForward::commandLine()
{
    QFETCH(QString, model);
    QFETCH(int, layer);
    const QString dir = m_dir.filePath(QStringLiteral("cli-") + model);
    QVERIFY(QDir().mkpath(dir));
    const QString gguf = dir + QStringLiteral("/model-f32.gguf");
    if (!QFile::exists(gguf)) {
        writeGguf(model, F32, gguf);
        QVERIFY(QFile::copy(layersFolder(model) + QStringLiteral("/tokenizer.json"),
                            dir + QStringLiteral("/tokenizer.json")));
    }
    const QJsonObject phrase = phraseCases(layersFolder(model)).at(0).toObject();
    const QString out = dir + QStringLiteral("/attn.npy");
    QFile::remove(out);
    const RunResult r = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), gguf, QStringLiteral("--phrase"),
         phrase.value(QLatin1String("text")).toString(), QStringLiteral("--what"),
         QStringLiteral("attention"), QStringLiteral("--layer"), QString::number(layer),
         QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const Array ours = readNpy(out);
    const Array all = readNpy(layersFolder(model) + QStringLiteral("/ref/") +
                              phrase.value(QLatin1String("attn")).toString());
    QCOMPARE(ours.shape, std::vector<qint64>(all.shape.begin() + 1, all.shape.end()));
    const std::size_t each = ours.values.size();
    const double worst =
        maxDifference(ours.values, {all.values.begin() + std::ptrdiff_t(layer * each),
                                    all.values.begin() + std::ptrdiff_t((layer + 1) * each)});
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
}

QTEST_GUILESS_MAIN(TestGgufForward)
#include "tst_ggufforward.moc"
