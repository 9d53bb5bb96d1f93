// pe::LayerZero: a model's embedding output (hidden_states[0]) and layer 0's attention
// probabilities. Known answers: transformers' own arrays for the two model folders in
// tests/data/models (see its README). Other architectures: tiny model folders written here with
// random weights, checked against a float64 reference written below from transformers' published
// formulas in plain loops, sharing no code with pescope's implementation.
#include "model/layerzero.h"

#include "formats/npyfile.h"
#include "modelfilewriter.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>

using namespace pe;
using namespace pe::test;

namespace {

// Relative (1e-30 absolute lets an exact zero pass) and absolute.
constexpr test::Tolerance embeddingTolerance{.absolute = 1e-30, .relative = 1e-5};
constexpr test::Tolerance attentionTolerance{.absolute = 1e-4};

std::vector<double> readNpy(const QString &path)
{
    NpyFile file;
    QString error;
    std::vector<float> values;
    if (!file.open(path, &error) || !file.read(&values, &error))
        qFatal("%s", qPrintable(error));
    return {values.begin(), values.end()};
}

// ---- the float64 reference ---------------------------------------------------------------------

using Rows = std::vector<std::vector<double>>; // tokens x features

// x @ W^T + b for W stored out x in (nn.Linear); `bias` may be empty.
Rows linear(const Rows &x, const std::vector<double> &w, std::size_t out,
            const std::vector<double> &bias)
{
    Rows y(x.size(), std::vector<double>(out, 0.0));
    const std::size_t in = x.empty() ? 0 : x[0].size();
    for (std::size_t p = 0; p < x.size(); ++p)
        for (std::size_t o = 0; o < out; ++o) {
            double sum = bias.empty() ? 0.0 : bias[o];
            for (std::size_t i = 0; i < in; ++i)
                sum += x[p][i] * w[o * in + i];
            y[p][o] = sum;
        }
    return y;
}

void layerNorm(std::vector<double> &v, const std::vector<double> &w, const std::vector<double> &b,
               double eps)
{
    double mean = 0, var = 0;
    for (const double x : v)
        mean += x;
    mean /= double(v.size());
    for (const double x : v)
        var += (x - mean) * (x - mean);
    var /= double(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = (v[i] - mean) / std::sqrt(var + eps) * (w.empty() ? 1.0 : w[i]) +
               (b.empty() ? 0.0 : b[i]);
}

// RMSNorm: x / sqrt(mean(x^2) + eps) times w (Llama) or (1 + w) (Gemma).
void rmsNorm(double *v, std::size_t n, const std::vector<double> &w, double eps, bool gemma)
{
    double squares = 0;
    for (std::size_t i = 0; i < n; ++i)
        squares += v[i] * v[i];
    const double inverse = 1.0 / std::sqrt(squares / double(n) + eps);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = v[i] * inverse * (gemma ? 1.0 + w[i] : w[i]);
}

// RoPE as RoFormer / GPT-NeoX's rotate_half: in each head, the first `rotary` dims turn in pairs
// (i, i + rotary/2) by angle p * positionScale * theta^(-2i / rotary).
void rope(Rows &m, std::size_t headDim, std::size_t rotary, double theta, double positionScale)
{
    const std::size_t half = rotary / 2;
    for (std::size_t p = 0; p < m.size(); ++p)
        for (std::size_t h = 0; h < m[p].size() / headDim; ++h) {
            double *x = m[p].data() + h * headDim;
            for (std::size_t i = 0; i < half; ++i) {
                const double angle =
                    double(p) * positionScale / std::pow(theta, 2.0 * double(i) / double(rotary));
                const double a = x[i], b = x[i + half];
                x[i] = a * std::cos(angle) - b * std::sin(angle);
                x[i + half] = b * std::cos(angle) + a * std::sin(angle);
            }
        }
}

struct AttentionShape
{
    std::size_t heads = 0, kvHeads = 0, headDim = 0;
    double scale = 1;   // scores are multiplied by it
    double softcap = 0; // tanh(s / cap) * cap when > 0
    bool causal = true;
    std::size_t window = 0; // key j seen from query i when i - j < window
};

std::vector<double> softmaxAttention(const Rows &q, const Rows &k, const AttentionShape &s)
{
    const std::size_t n = q.size();
    std::vector<double> out;
    for (std::size_t h = 0; h < s.heads; ++h) {
        const std::size_t kh = h / (s.heads / s.kvHeads);
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<double> e(n, 0.0);
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) {
                if ((s.causal && j > i) || (s.window > 0 && i - j >= s.window && j <= i))
                    continue;
                double dot = 0;
                for (std::size_t d = 0; d < s.headDim; ++d)
                    dot += q[i][h * s.headDim + d] * k[j][kh * s.headDim + d];
                dot *= s.scale;
                if (s.softcap > 0)
                    dot = std::tanh(dot / s.softcap) * s.softcap;
                e[j] = std::exp(dot);
                sum += e[j];
            }
            for (const double v : e)
                out.push_back(v / sum);
        }
    }
    return out;
}

// bfloat16 rounding (nearest, ties to even) from the value's binary exponent: 8 significant bits.
double bfloat16Round(double v)
{
    int exponent = 0;
    const double mantissa = std::frexp(v, &exponent); // v = mantissa * 2^exponent, |m| in [0.5, 1)
    return std::ldexp(std::nearbyint(std::ldexp(mantissa, 8)), exponent - 8);
}

// ---- tiny model folders ------------------------------------------------------------------------

// Tensors by name: shape and values (float32-representable doubles), written as F32 (or BF16).
class TinyWeights
{
public:
    explicit TinyWeights(unsigned seed) : m_rng(seed) {}

    const std::vector<double> &add(const QString &name, std::vector<qint64> shape,
                                   double scale = 0.3, double mean = 0.0)
    {
        std::normal_distribution<double> normal(mean, scale);
        qint64 count = 1;
        for (const qint64 d : shape)
            count *= d;
        std::vector<double> values(std::size_t(count), 0.0);
        for (double &v : values)
            v = m_bf16 ? bfloat16Round(normal(m_rng)) : double(float(normal(m_rng)));
        m_tensors[name] = {std::move(shape), std::move(values)};
        return m_tensors[name].second;
    }
    const std::vector<double> &at(const QString &name) const
    {
        const auto it = m_tensors.find(name);
        if (it == m_tensors.end())
            qFatal("no test tensor %s", qPrintable(name));
        return it->second.second;
    }
    std::vector<double> row(const QString &name, qint64 r) const
    {
        const auto &[shape, values] = m_tensors.at(name);
        const auto begin = values.begin() + r * shape[1];
        return {begin, begin + shape[1]};
    }
    void remove(const QString &name) { m_tensors.erase(name); }
    void set(const QString &name, std::size_t index, double value)
    {
        m_tensors.at(name).second.at(index) = value;
    }
    QStringList names() const
    {
        QStringList out;
        for (const auto &entry : m_tensors)
            out += entry.first;
        return out;
    }
    void setBfloat16() { m_bf16 = true; }
    void setRawType(const QString &name, const QString &dtype) { m_rawTypes[name] = dtype; }

    // The tensors `keep` accepts (all by default) as one .safetensors file.
    QByteArray safetensors(const std::function<bool(const QString &)> &keep = {}) const
    {
        std::vector<SafetensorsEntry> entries;
        for (const auto &[name, tensor] : m_tensors) {
            if (keep && !keep(name))
                continue;
            SafetensorsEntry e{
                name, m_bf16 ? QStringLiteral("BF16") : QStringLiteral("F32"), tensor.first, {}};
            if (m_rawTypes.count(name)) { // a type pescope does not read: one byte per value
                e.dtype = m_rawTypes.at(name);
                e.data = QByteArray(qsizetype(tensor.second.size()), '\1');
            } else if (m_bf16) {
                std::vector<quint16> bits;
                for (const double v : tensor.second) {
                    const float f = float(v);
                    quint32 b;
                    std::memcpy(&b, &f, 4);
                    bits.push_back(quint16(b >> 16)); // exact: v has 8 significant bits
                }
                e.data = u16Bytes(bits);
            } else {
                e.data = f32Bytes(std::vector<float>(tensor.second.begin(), tensor.second.end()));
            }
            entries.push_back(e);
        }
        return safetensorsBytes(entries);
    }

private:
    std::mt19937 m_rng;
    bool m_bf16 = false;
    std::map<QString, std::pair<std::vector<qint64>, std::vector<double>>> m_tensors;
    std::map<QString, QString> m_rawTypes;
};

struct Reference
{
    std::vector<double> hidden; // tokens x hidden
    std::vector<double> attention;
};

// A tiny model: its config, weights, a phrase, and the reference for it.
struct TinyModel
{
    QJsonObject config;
    TinyWeights weights{1};
    std::vector<int> ids;
    std::function<Reference(const TinyModel &, bool withPositions)> reference;
};

std::vector<double> flatten(const Rows &rows)
{
    std::vector<double> out;
    for (const auto &r : rows)
        out.insert(out.end(), r.begin(), r.end());
    return out;
}

// nn.Linear with the test tensors `<name>.weight` (out x in) and `<name>.bias`.
Rows linearLayer(const Rows &x, const TinyWeights &w, const QString &name, std::size_t out)
{
    return linear(x, w.at(name + QStringLiteral(".weight")), out,
                  w.at(name + QStringLiteral(".bias")));
}

Rows tokenRows(const TinyModel &m, const QString &table)
{
    Rows x;
    for (const int id : m.ids)
        x.push_back(m.weights.row(table, id));
    return x;
}

QString writeModel(const QTemporaryDir &dir, const QString &name, const TinyModel &m)
{
    QString folder = dir.filePath(name);
    if (!writeBytes(folder + QStringLiteral("/config.json"), QJsonDocument(m.config).toJson()) ||
        !writeBytes(folder + QStringLiteral("/model.safetensors"), m.weights.safetensors()))
        qFatal("cannot write %s", qPrintable(folder));
    return folder;
}

// The same model as transformers saves a large one: two shards and model.safetensors.index.json,
// the token table alone in the first shard.
QString writeShardedModel(const QTemporaryDir &dir, const QString &name, const TinyModel &m,
                          const QString &tableName)
{
    QString folder = dir.filePath(name);
    const QString first = QStringLiteral("model-00001-of-00002.safetensors");
    const QString second = QStringLiteral("model-00002-of-00002.safetensors");
    QJsonObject map;
    for (const QString &tensor : m.weights.names())
        map.insert(tensor, tensor == tableName ? first : second);
    const QJsonObject index{{QStringLiteral("metadata"), QJsonObject{}},
                            {QStringLiteral("weight_map"), map}};
    const bool written =
        writeBytes(folder + QStringLiteral("/config.json"), QJsonDocument(m.config).toJson()) &&
        writeBytes(folder + QStringLiteral("/model.safetensors.index.json"),
                   QJsonDocument(index).toJson()) &&
        writeBytes(folder + QLatin1Char('/') + first,
                   m.weights.safetensors([&](const QString &n) { return n == tableName; })) &&
        writeBytes(folder + QLatin1Char('/') + second,
                   m.weights.safetensors([&](const QString &n) { return n != tableName; }));
    if (!written)
        qFatal("cannot write %s", qPrintable(folder));
    return folder;
}

constexpr qint64 H = 8, V = 16, P = 16; // hidden size, vocabulary rows, positions

// Llama-like decoders (Llama, Mistral, Qwen2, Qwen3, Phi-3, Gemma 1-3): embed_tokens,
// input_layernorm (RMSNorm), q/k projections (Phi-3: qkv_proj), optional biases and q/k norms.
struct DecoderShape
{
    QString type;
    QString prefix = QStringLiteral("model.");
    std::size_t heads = 2, kvHeads = 2, headDim = 4;
    bool bias = false, qkNorm = false, gemma = false, fused = false;
    bool bf16 = false; // weights stored as BF16 and config.json's dtype bfloat16
    double theta = 10000, partial = 1.0, positionScale = 1.0;
    double scale = 0; // 0: head_dim^-0.5
    double softcap = 0, eps = 1e-6;
    std::size_t window = 0;
};

TinyModel decoderModel(const DecoderShape &s, const QJsonObject &extra)
{
    TinyModel m;
    QJsonObject c{{QStringLiteral("model_type"), s.type},
                  {QStringLiteral("hidden_size"), H},
                  {QStringLiteral("num_attention_heads"), qint64(s.heads)},
                  {QStringLiteral("num_key_value_heads"), qint64(s.kvHeads)},
                  {QStringLiteral("head_dim"), qint64(s.headDim)},
                  {QStringLiteral("num_hidden_layers"), 2},
                  {QStringLiteral("max_position_embeddings"), 64},
                  {QStringLiteral("vocab_size"), V},
                  {QStringLiteral("rms_norm_eps"), s.eps},
                  {QStringLiteral("rope_theta"), s.theta}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        c.insert(it.key(), it.value());
    if (s.bf16) {
        c.insert(QStringLiteral("dtype"), QStringLiteral("bfloat16"));
        m.weights.setBfloat16();
    }
    m.config = c;
    const QString p = s.prefix, a = p + QStringLiteral("layers.0.self_attn.");
    const auto q = qint64(s.heads) * qint64(s.headDim), k = qint64(s.kvHeads) * qint64(s.headDim);
    m.weights.add(p + QStringLiteral("embed_tokens.weight"), {V, H});
    m.weights.add(p + QStringLiteral("layers.0.input_layernorm.weight"), {H}, 0.2,
                  s.gemma ? 0.0 : 1.0);
    if (s.fused) {
        m.weights.add(a + QStringLiteral("qkv_proj.weight"), {q + 2 * k, H});
    } else {
        m.weights.add(a + QStringLiteral("q_proj.weight"), {q, H});
        m.weights.add(a + QStringLiteral("k_proj.weight"), {k, H});
        m.weights.add(a + QStringLiteral("v_proj.weight"), {k, H});
    }
    if (s.bias) {
        m.weights.add(a + QStringLiteral("q_proj.bias"), {q});
        m.weights.add(a + QStringLiteral("k_proj.bias"), {k});
    }
    if (s.qkNorm) {
        m.weights.add(a + QStringLiteral("q_norm.weight"), {qint64(s.headDim)}, 0.2,
                      s.gemma ? 0.0 : 1.0);
        m.weights.add(a + QStringLiteral("k_norm.weight"), {qint64(s.headDim)}, 0.2,
                      s.gemma ? 0.0 : 1.0);
    }
    m.ids = {3, 15, 0, 7, 7, 12};
    m.reference = [s](const TinyModel &m, bool withPositions) {
        const QString p = s.prefix, a = p + QStringLiteral("layers.0.self_attn.");
        Rows x = tokenRows(m, p + QStringLiteral("embed_tokens.weight"));
        // Gemma: times sqrt(hidden_size), both rounded to the model's dtype (bfloat16: the
        // normalizer sqrt(8) = 2.8284 is 2.828125, and the product is rounded again).
        if (s.gemma)
            for (auto &r : x)
                for (double &v : r)
                    v = s.bf16 ? bfloat16Round(v * bfloat16Round(std::sqrt(double(H))))
                               : v * std::sqrt(double(H));
        Reference out;
        out.hidden = flatten(x);
        for (auto &r : x)
            rmsNorm(r.data(), r.size(),
                    m.weights.at(p + QStringLiteral("layers.0.input_layernorm.weight")), s.eps,
                    s.gemma);
        const std::size_t q = s.heads * s.headDim, k = s.kvHeads * s.headDim;
        Rows query, key;
        if (s.fused) { // qkv_proj rows: [q | k | v]
            const Rows qkv =
                linear(x, m.weights.at(a + QStringLiteral("qkv_proj.weight")), q + 2 * k, {});
            for (const auto &r : qkv) {
                query.emplace_back(r.begin(), r.begin() + long(q));
                key.emplace_back(r.begin() + long(q), r.begin() + long(q + k));
            }
        } else {
            const std::vector<double> none;
            query = linear(x, m.weights.at(a + QStringLiteral("q_proj.weight")), q,
                           s.bias ? m.weights.at(a + QStringLiteral("q_proj.bias")) : none);
            key = linear(x, m.weights.at(a + QStringLiteral("k_proj.weight")), k,
                         s.bias ? m.weights.at(a + QStringLiteral("k_proj.bias")) : none);
        }
        if (s.qkNorm) {
            for (auto &r : query)
                for (std::size_t h = 0; h < s.heads; ++h)
                    rmsNorm(r.data() + h * s.headDim, s.headDim,
                            m.weights.at(a + QStringLiteral("q_norm.weight")), s.eps, s.gemma);
            for (auto &r : key)
                for (std::size_t h = 0; h < s.kvHeads; ++h)
                    rmsNorm(r.data() + h * s.headDim, s.headDim,
                            m.weights.at(a + QStringLiteral("k_norm.weight")), s.eps, s.gemma);
        }
        if (withPositions) {
            const auto rotary = std::size_t(double(s.headDim) * s.partial);
            rope(query, s.headDim, rotary, s.theta, s.positionScale);
            rope(key, s.headDim, rotary, s.theta, s.positionScale);
        }
        AttentionShape shape{s.heads,   s.kvHeads,
                             s.headDim, s.scale > 0 ? s.scale : 1.0 / std::sqrt(double(s.headDim)),
                             s.softcap, true,
                             s.window};
        out.attention = softmaxAttention(query, key, shape);
        return out;
    };
    return m;
}

// BERT / RoBERTa: LayerNorm(word + token type 0 + position), then bidirectional attention with
// no norm before it. RoBERTa's positions count non-padding tokens from padding_idx + 1.
TinyModel encoderModel(bool roberta)
{
    TinyModel m;
    const QString p = roberta ? QStringLiteral("roberta.") : QStringLiteral("bert.");
    const double eps = roberta ? 1e-5 : 1e-12;
    m.config = {
        {QStringLiteral("model_type"),
         roberta ? QStringLiteral("roberta") : QStringLiteral("bert")},
        {QStringLiteral("architectures"),
         QJsonArray{roberta ? QStringLiteral("RobertaModel") : QStringLiteral("BertModel")}},
        {QStringLiteral("hidden_size"), H},
        {QStringLiteral("num_attention_heads"), 2},
        {QStringLiteral("num_hidden_layers"), 1},
        {QStringLiteral("max_position_embeddings"), P},
        {QStringLiteral("type_vocab_size"), 2},
        {QStringLiteral("layer_norm_eps"), eps},
        {QStringLiteral("vocab_size"), V}};
    if (roberta)
        m.config.insert(QStringLiteral("pad_token_id"), 1);
    // google-bert's own checkpoints name the LayerNorm's parameters gamma and beta.
    const QString norm = p + QStringLiteral("embeddings.LayerNorm.");
    const QString w = norm + (roberta ? QStringLiteral("weight") : QStringLiteral("gamma"));
    const QString b = norm + (roberta ? QStringLiteral("bias") : QStringLiteral("beta"));
    m.weights.add(p + QStringLiteral("embeddings.word_embeddings.weight"), {V, H});
    m.weights.add(p + QStringLiteral("embeddings.position_embeddings.weight"), {P, H});
    m.weights.add(p + QStringLiteral("embeddings.token_type_embeddings.weight"), {2, H});
    m.weights.add(w, {H}, 0.2, 1.0);
    m.weights.add(b, {H}, 0.2);
    const QString a = p + QStringLiteral("encoder.layer.0.attention.self.");
    for (const char *name : {"query", "key", "value"}) {
        m.weights.add(a + QLatin1String(name) + QStringLiteral(".weight"), {H, H});
        m.weights.add(a + QLatin1String(name) + QStringLiteral(".bias"), {H});
    }
    // RoBERTa: token 1 is padding; positions 2, 3, (padding_idx 1), 4, 5, 6.
    m.ids = roberta ? std::vector<int>{0, 9, 1, 4, 11, 2} : std::vector<int>{2, 9, 4, 4, 11, 3};
    const std::vector<int> rows =
        roberta ? std::vector<int>{2, 3, 1, 4, 5, 6} : std::vector<int>{0, 1, 2, 3, 4, 5};
    m.reference = [=](const TinyModel &m, bool withPositions) {
        Rows x = tokenRows(m, p + QStringLiteral("embeddings.word_embeddings.weight"));
        const auto type0 =
            m.weights.row(p + QStringLiteral("embeddings.token_type_embeddings.weight"), 0);
        for (std::size_t t = 0; t < x.size(); ++t) {
            const auto position =
                m.weights.row(p + QStringLiteral("embeddings.position_embeddings.weight"), rows[t]);
            for (std::size_t c = 0; c < x[t].size(); ++c)
                x[t][c] += type0[c] + (withPositions ? position[c] : 0.0);
            layerNorm(x[t], m.weights.at(w), m.weights.at(b), eps);
        }
        Reference out;
        out.hidden = flatten(x);
        const Rows q = linearLayer(x, m.weights, a + QStringLiteral("query"), H);
        const Rows k = linearLayer(x, m.weights, a + QStringLiteral("key"), H);
        out.attention = softmaxAttention(q, k, {2, 2, 4, 0.5, 0, false, 0});
        return out;
    };
    return m;
}

// OPT: project_in (when word_embed_proj_dim differs), + embed_positions[p + 2], the LayerNorm
// before attention (or none: do_layer_norm_before = false), causal attention.
TinyModel optModel(bool projectIn)
{
    TinyModel m;
    const qint64 wp = projectIn ? 6 : H;
    m.config = {{QStringLiteral("model_type"), QStringLiteral("opt")},
                {QStringLiteral("architectures"), QJsonArray{QStringLiteral("OPTForCausalLM")}},
                {QStringLiteral("hidden_size"), H},
                {QStringLiteral("num_attention_heads"), 2},
                {QStringLiteral("num_hidden_layers"), 1},
                {QStringLiteral("max_position_embeddings"), P},
                {QStringLiteral("word_embed_proj_dim"), wp},
                {QStringLiteral("do_layer_norm_before"), !projectIn},
                {QStringLiteral("vocab_size"), V}};
    const QString d = QStringLiteral("model.decoder."),
                  a = d + QStringLiteral("layers.0.self_attn.");
    m.weights.add(d + QStringLiteral("embed_tokens.weight"), {V, wp});
    m.weights.add(d + QStringLiteral("embed_positions.weight"), {P + 2, H});
    if (projectIn)
        m.weights.add(d + QStringLiteral("project_in.weight"), {H, wp});
    m.weights.add(d + QStringLiteral("layers.0.self_attn_layer_norm.weight"), {H}, 0.2, 1.0);
    m.weights.add(d + QStringLiteral("layers.0.self_attn_layer_norm.bias"), {H}, 0.2);
    for (const char *name : {"q_proj", "k_proj", "v_proj"}) {
        m.weights.add(a + QLatin1String(name) + QStringLiteral(".weight"), {H, H});
        m.weights.add(a + QLatin1String(name) + QStringLiteral(".bias"), {H});
    }
    m.ids = {2, 5, 14, 5, 0, 9};
    m.reference = [=](const TinyModel &m, bool withPositions) {
        Rows x = tokenRows(m, d + QStringLiteral("embed_tokens.weight"));
        if (projectIn)
            x = linear(x, m.weights.at(d + QStringLiteral("project_in.weight")), H, {});
        for (std::size_t t = 0; t < x.size(); ++t) {
            const auto position =
                m.weights.row(d + QStringLiteral("embed_positions.weight"), qint64(t) + 2);
            for (std::size_t c = 0; c < x[t].size(); ++c)
                x[t][c] += withPositions ? position[c] : 0.0;
        }
        Reference out;
        out.hidden = flatten(x);
        if (!projectIn)
            for (auto &r : x)
                layerNorm(
                    r, m.weights.at(d + QStringLiteral("layers.0.self_attn_layer_norm.weight")),
                    m.weights.at(d + QStringLiteral("layers.0.self_attn_layer_norm.bias")), 1e-5);
        const Rows q = linearLayer(x, m.weights, a + QStringLiteral("q_proj"), H);
        const Rows k = linearLayer(x, m.weights, a + QStringLiteral("k_proj"), H);
        out.attention = softmaxAttention(q, k, {2, 2, 4, 0.5, 0, true, 0});
        return out;
    };
    return m;
}

// GPT-NeoX: embed_in, LayerNorm, query_key_value laid out per head as [q_h | k_h | v_h], RoPE on
// the first rotary_pct of each head.
TinyModel neoxModel()
{
    TinyModel m;
    m.config = {{QStringLiteral("model_type"), QStringLiteral("gpt_neox")},
                {QStringLiteral("architectures"), QJsonArray{QStringLiteral("GPTNeoXForCausalLM")}},
                {QStringLiteral("hidden_size"), H},
                {QStringLiteral("num_attention_heads"), 2},
                {QStringLiteral("num_hidden_layers"), 1},
                {QStringLiteral("max_position_embeddings"), 64},
                {QStringLiteral("rotary_pct"), 0.5},
                {QStringLiteral("rotary_emb_base"), 100.0},
                {QStringLiteral("layer_norm_eps"), 1e-5},
                {QStringLiteral("vocab_size"), V}};
    const QString l = QStringLiteral("gpt_neox.layers.0.");
    m.weights.add(QStringLiteral("gpt_neox.embed_in.weight"), {V, H});
    m.weights.add(l + QStringLiteral("input_layernorm.weight"), {H}, 0.2, 1.0);
    m.weights.add(l + QStringLiteral("input_layernorm.bias"), {H}, 0.2);
    m.weights.add(l + QStringLiteral("attention.query_key_value.weight"), {3 * H, H});
    m.weights.add(l + QStringLiteral("attention.query_key_value.bias"), {3 * H});
    m.ids = {1, 4, 9, 13, 2, 8};
    m.reference = [=](const TinyModel &m, bool withPositions) {
        Rows x = tokenRows(m, QStringLiteral("gpt_neox.embed_in.weight"));
        Reference out;
        out.hidden = flatten(x);
        for (auto &r : x)
            layerNorm(r, m.weights.at(l + QStringLiteral("input_layernorm.weight")),
                      m.weights.at(l + QStringLiteral("input_layernorm.bias")), 1e-5);
        const Rows qkv =
            linear(x, m.weights.at(l + QStringLiteral("attention.query_key_value.weight")), 3 * H,
                   m.weights.at(l + QStringLiteral("attention.query_key_value.bias")));
        Rows q(x.size(), std::vector<double>(H)), k = q;
        for (std::size_t t = 0; t < x.size(); ++t)
            for (std::size_t h = 0; h < 2; ++h)
                for (std::size_t d = 0; d < 4; ++d) {
                    q[t][h * 4 + d] = qkv[t][h * 12 + d];
                    k[t][h * 4 + d] = qkv[t][h * 12 + 4 + d];
                }
        if (withPositions) {
            rope(q, 4, 2, 100.0, 1.0);
            rope(k, 4, 2, 100.0, 1.0);
        }
        out.attention = softmaxAttention(q, k, {2, 2, 4, 0.5, 0, true, 0});
        return out;
    };
    return m;
}

// Gemma 3 inside its multimodal wrapper: text_config, tensors under model.language_model.,
// layer 0 a sliding layer with the local base (rope_local_base_freq), q/k norms with 1 + weight.
TinyModel gemma3Model()
{
    DecoderShape s;
    s.type = QStringLiteral("gemma3_text");
    s.prefix = QStringLiteral("model.language_model.");
    s.gemma = s.qkNorm = true;
    s.headDim = 6;
    s.theta = 100.0; // the sliding layers' rope_local_base_freq
    s.scale = 1.0 / std::sqrt(5.0);
    s.window = 3;
    TinyModel m = decoderModel(s, {{QStringLiteral("rope_local_base_freq"), 100.0},
                                   {QStringLiteral("query_pre_attn_scalar"), 5},
                                   {QStringLiteral("sliding_window"), 3}});
    m.config.insert(QStringLiteral("rope_theta"), 1000000.0); // the global layers' base
    m.weights.add(
        QStringLiteral("model.vision_tower.vision_model.embeddings.patch_embedding.weight"),
        {4, 3, 2, 2});
    m.config = {{QStringLiteral("model_type"), QStringLiteral("gemma3")},
                {QStringLiteral("architectures"),
                 QJsonArray{QStringLiteral("Gemma3ForConditionalGeneration")}},
                {QStringLiteral("text_config"), m.config}};
    return m;
}

TinyModel tinyModel(const QString &name)
{
    DecoderShape s;
    s.type = name.section(QLatin1Char(' '), 0, 0);
    QJsonObject extra;
    if (name == QLatin1String("llama linear rope, bias")) {
        s.bias = true;
        s.theta = 500000;
        s.positionScale = 0.5;
        extra = {{QStringLiteral("attention_bias"), true},
                 {QStringLiteral("rope_scaling"),
                  QJsonObject{{QStringLiteral("rope_type"), QStringLiteral("linear")},
                              {QStringLiteral("factor"), 2.0}}}};
    } else if (s.type == QLatin1String("mistral")) {
        s.heads = 4;
        s.window = 3;
        extra = {{QStringLiteral("sliding_window"), 3}};
    } else if (s.type == QLatin1String("qwen2")) {
        s.heads = 4;
        s.bias = true;
    } else if (s.type == QLatin1String("qwen3")) {
        s.heads = 4;
        s.qkNorm = true;
    } else if (s.type == QLatin1String("phi3")) {
        s.heads = 4;
        s.fused = true;
        s.partial = 0.5;
        s.eps = 1e-5;
        extra = {{QStringLiteral("partial_rotary_factor"), 0.5}};
    } else if (s.type == QLatin1String("gemma")) {
        s.gemma = true;
        s.headDim = 6;
        s.bf16 = name.contains(QLatin1String("bfloat16"));
    } else if (s.type == QLatin1String("gemma2")) {
        s.gemma = true;
        s.scale = 1.0 / std::sqrt(3.0);
        s.softcap = 1.5;
        s.window = 4;
        extra = {{QStringLiteral("query_pre_attn_scalar"), 3},
                 {QStringLiteral("attn_logit_softcapping"), 1.5},
                 {QStringLiteral("sliding_window"), 4}};
    } else if (s.type == QLatin1String("gemma3")) {
        return gemma3Model();
    } else if (s.type == QLatin1String("bert") || s.type == QLatin1String("roberta")) {
        return encoderModel(s.type == QLatin1String("roberta"));
    } else if (s.type == QLatin1String("opt")) {
        return optModel(name.contains(QLatin1String("project_in")));
    } else if (s.type == QLatin1String("gpt_neox")) {
        return neoxModel();
    }
    return decoderModel(s, extra);
}

} // namespace

class TstLayerZero : public QObject
{
    Q_OBJECT

private slots:
    void knownAnswers_data();
    void knownAnswers();
    void architectures_data();
    void architectures();
    void sharded();
    void refusals_data();
    void refusals();
    void layerOtherThanZero();
    void phraseRefusals();
    void describesItself();
    void nonFiniteWeightsAreNamed();

private:
    // Opens `folder` and compares both outputs with `m`'s reference, with and without positions.
    static void compareWithReference(const QString &folder, const TinyModel &m);
    QTemporaryDir m_dir;
};

void TstLayerZero::knownAnswers_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QJsonObject>("phrase");
    for (const char *model : {"gpt2-tiny", "llama-tiny"}) {
        const QString folder = QFINDTESTDATA(QStringLiteral("data/models/") + QLatin1String(model));
        QFile file(folder + QStringLiteral("/ref/phrases.json"));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(folder));
        const QJsonArray cases = QJsonDocument::fromJson(file.readAll())
                                     .object()
                                     .value(QLatin1String("cases"))
                                     .toArray();
        QVERIFY(cases.size() >= 8);
        for (const QJsonValue c : cases)
            QTest::addRow("%s: %s", model,
                          qPrintable(c.toObject().value(QLatin1String("text")).toString()))
                << folder << c.toObject();
    }
}

// transformers' hidden_states[0] and attentions[0] for every phrase of both model folders.
void TstLayerZero::knownAnswers()
{
    QFETCH(QString, folder);
    QFETCH(QJsonObject, phrase);
    QString error;
    const std::unique_ptr<LayerZero> model = LayerZero::open(folder, &error);
    QVERIFY2(model, qPrintable(error));
    std::vector<int> ids;
    for (const QJsonValue id : phrase.value(QLatin1String("ids")).toArray())
        ids.push_back(id.toInt());
    const auto hidden = model->embeddings(ids, true, &error);
    QVERIFY2(hidden, qPrintable(error));
    QCOMPARE(hidden->shape, (std::vector<qint64>{qint64(ids.size()), 64}));
    const QString refs = folder + QStringLiteral("/ref/");
    PE_COMPARE_ARRAY(hidden->values,
                     readNpy(refs + phrase.value(QLatin1String("hidden0")).toString()),
                     embeddingTolerance);
    const auto attention = model->attention(ids, true, &error);
    QVERIFY2(attention, qPrintable(error));
    QCOMPARE(attention->shape, (std::vector<qint64>{4, qint64(ids.size()), qint64(ids.size())}));
    PE_COMPARE_ARRAY(attention->values,
                     readNpy(refs + phrase.value(QLatin1String("attn0")).toString()),
                     attentionTolerance);
}

void TstLayerZero::architectures_data()
{
    QTest::addColumn<QString>("name");
    for (const char *name : {"llama", "llama linear rope, bias", "mistral", "qwen2", "qwen3",
                             "phi3", "gemma", "gemma bfloat16", "gemma2", "gemma3", "bert",
                             "roberta", "opt", "opt project_in, post-norm", "gpt_neox"})
        QTest::addRow("%s", name) << QString::fromLatin1(name);
}

void TstLayerZero::compareWithReference(const QString &folder, const TinyModel &m)
{
    QString error;
    const std::unique_ptr<LayerZero> model = LayerZero::open(folder, &error);
    QVERIFY2(model, qPrintable(error));
    for (const bool positions : {true, false}) {
        const Reference ref = m.reference(m, positions);
        const auto hidden = model->embeddings(m.ids, positions, &error);
        QVERIFY2(hidden, qPrintable(error));
        QCOMPARE(hidden->shape, (std::vector<qint64>{qint64(m.ids.size()), H}));
        const QString h = test::arrayMismatch(hidden->values, ref.hidden, embeddingTolerance);
        QVERIFY2(h.isEmpty(), qPrintable(QStringLiteral("positions %1: %2").arg(positions).arg(h)));
        const auto attention = model->attention(m.ids, positions, &error);
        QVERIFY2(attention, qPrintable(error));
        QCOMPARE(attention->shape.size(), std::size_t(3));
        const QString a = test::arrayMismatch(attention->values, ref.attention, attentionTolerance);
        QVERIFY2(a.isEmpty(), qPrintable(QStringLiteral("positions %1: %2").arg(positions).arg(a)));
    }
}

void TstLayerZero::architectures()
{
    QFETCH(QString, name);
    const TinyModel m = tinyModel(name);
    compareWithReference(writeModel(m_dir, name, m), m);
}

// A sharded checkpoint (index + shards) gives the same as one file.
void TstLayerZero::sharded()
{
    for (const char *name : {"qwen2", "bert"}) {
        const TinyModel m = tinyModel(QLatin1String(name));
        const QString table = QLatin1String(name) == QLatin1String("bert")
                                  ? QStringLiteral("bert.embeddings.word_embeddings.weight")
                                  : QStringLiteral("model.embed_tokens.weight");
        compareWithReference(
            writeShardedModel(m_dir, QStringLiteral("sharded ") + QLatin1String(name), m, table),
            m);
        if (QTest::currentTestFailed())
            return;
    }
}

void TstLayerZero::refusals_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QStringList>("expected"); // what the message must name
    const auto add = [this](const char *name, const TinyModel &m, const QStringList &expected) {
        QTest::addRow("%s", name) << writeModel(m_dir,
                                                QStringLiteral("refused ") + QLatin1String(name), m)
                                  << expected;
    };
    const QString q = QStringLiteral("model.layers.0.self_attn.q_proj.weight");
    const QString table = QStringLiteral("model.embed_tokens.weight");
    TinyModel m = tinyModel(QStringLiteral("llama"));
    m.weights.remove(QStringLiteral("model.layers.0.self_attn.k_proj.weight"));
    add("missing k_proj", m, {QStringLiteral("model.layers.0.self_attn.k_proj.weight")});

    m = tinyModel(QStringLiteral("llama"));
    m.weights.remove(table);
    add("missing token table", m, {QStringLiteral("no token embedding table")});

    m = tinyModel(QStringLiteral("llama"));
    m.weights.setRawType(table, QStringLiteral("F8_E4M3"));
    add("quantized token table", m, {table, QStringLiteral("F8_E4M3")});

    m = tinyModel(QStringLiteral("llama"));
    m.weights.setRawType(q, QStringLiteral("I8"));
    add("integer q_proj", m, {q, QStringLiteral("I8")});

    m = tinyModel(QStringLiteral("llama")); // GPTQ stores qweight / scales instead of weight
    m.weights.remove(q);
    m.weights.add(QStringLiteral("model.layers.0.self_attn.q_proj.qweight"), {1, H});
    m.config.insert(QStringLiteral("quantization_config"),
                    QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("gptq")}});
    add("gptq", m, {q, QStringLiteral("gptq")});

    m = tinyModel(QStringLiteral("llama"));
    m.weights.add(q, {7, H});
    add("wrong shape", m, {q, QStringLiteral("[7, 8]"), QStringLiteral("[8, 8]")});

    m = tinyModel(QStringLiteral("llama"));
    m.config.insert(QStringLiteral("model_type"), QStringLiteral("falcon"));
    m.config.insert(QStringLiteral("architectures"),
                    QJsonArray{QStringLiteral("FalconForCausalLM")});
    add("unknown architecture", m, {QStringLiteral("FalconForCausalLM"), QStringLiteral("falcon")});

    m = tinyModel(QStringLiteral("bert"));
    m.config.insert(QStringLiteral("position_embedding_type"), QStringLiteral("relative_key"));
    add("relative BERT", m,
        {QStringLiteral("position_embedding_type"), QStringLiteral("relative_key")});

    m = tinyModel(QStringLiteral("gemma2"));
    m.config.insert(QStringLiteral("attn_logit_softcapping"), QStringLiteral("fifty"));
    add("bad softcap", m, {QStringLiteral("attn_logit_softcapping")});

    // Issue 45: a negative epsilon made every attention row NaN, drawn as data with exit 0.
    m = tinyModel(QStringLiteral("llama"));
    m.config.insert(QStringLiteral("rms_norm_eps"), -1);
    add("negative rms_norm_eps", m,
        {QStringLiteral("rms_norm_eps must be a number >= 0 (got -1)")});
    m = tinyModel(QStringLiteral("bert"));
    m.config.insert(QStringLiteral("layer_norm_eps"), -1e-12);
    add("negative layer_norm_eps", m, {QStringLiteral("layer_norm_eps must be a number >= 0")});

    const QString noConfig =
        writeModel(m_dir, QStringLiteral("refused no config"), tinyModel(QStringLiteral("llama")));
    QFile::remove(noConfig + QStringLiteral("/config.json"));
    QTest::addRow("no config.json") << noConfig << QStringList{QStringLiteral("config.json")};
}

// Each bad model gets one message naming what is wrong, and no reader.
void TstLayerZero::refusals()
{
    QFETCH(QString, folder);
    QFETCH(QStringList, expected);
    QString error;
    QVERIFY(!LayerZero::open(folder, &error));
    for (const QString &part : expected)
        QVERIFY2(error.contains(part), qPrintable(error));
}

void TstLayerZero::layerOtherThanZero()
{
    const QString folder = QFINDTESTDATA("data/models/llama-tiny");
    QString error;
    QVERIFY(!LayerZero::open(folder, &error, 1));
    QVERIFY2(error.contains(QLatin1String("layer 0 only")), qPrintable(error));
    QVERIFY(LayerZero::open(folder, &error, 0));
}

void TstLayerZero::phraseRefusals()
{
    QString error;
    const std::unique_ptr<LayerZero> gpt2 =
        LayerZero::open(QFINDTESTDATA("data/models/gpt2-tiny"), &error);
    QVERIFY2(gpt2, qPrintable(error));
    QVERIFY(!gpt2->embeddings(std::vector<int>{}, true, &error));
    QVERIFY2(error.contains(QLatin1String("no tokens")), qPrintable(error));
    QVERIFY(!gpt2->attention(std::vector<int>{5, 3000}, true, &error)); // vocab_size 3000
    QVERIFY2(error.contains(QLatin1String("3000")) && error.contains(QLatin1String("wte.weight")),
             qPrintable(error));
    QVERIFY(!gpt2->embeddings(std::vector<int>{-1}, false, &error));
    // wpe holds 256 positions (n_positions): the 257th token has none.
    QVERIFY(gpt2->embeddings(std::vector<int>(256, 7), true, &error));
    QVERIFY(!gpt2->attention(std::vector<int>(257, 7), true, &error));
    QVERIFY2(error.contains(QLatin1String("at most 256")), qPrintable(error));

    // Attention is held whole: 32 heads x 4096 x 4096 floats is more than the stated limit.
    DecoderShape s;
    s.type = QStringLiteral("llama");
    s.heads = s.kvHeads = 32;
    s.headDim = 2;
    const std::unique_ptr<LayerZero> wide =
        LayerZero::open(writeModel(m_dir, QStringLiteral("wide"), decoderModel(s, {})), &error);
    QVERIFY2(wide, qPrintable(error));
    QCOMPARE(wide->maxTokens(), limits::maxLayerZeroTokens);
    QVERIFY(!wide->attention(std::vector<int>(4096, 1), true, &error));
    QVERIFY2(error.contains(QLatin1String("more attention than")), qPrintable(error));
    QVERIFY(!wide->embeddings(std::vector<int>(4097, 1), true, &error));

    // Queries and keys of 1024 heads x 64 dims for 4096 tokens: 2^29 values, refused up front.
    s.heads = s.kvHeads = 1024;
    s.headDim = 64;
    const std::unique_ptr<LayerZero> many = LayerZero::open(
        writeModel(m_dir, QStringLiteral("many heads"), decoderModel(s, {})), &error);
    QVERIFY2(many, qPrintable(error));
    QVERIFY(!many->embeddings(std::vector<int>(4096, 1), true, &error));
    QVERIFY2(error.contains(QLatin1String("131072 values per token")), qPrintable(error));
    QVERIFY2(many->embeddings(std::vector<int>(8, 1), true, &error), qPrintable(error));
}

void TstLayerZero::describesItself()
{
    QString error;
    const auto gpt2 = LayerZero::open(QFINDTESTDATA("data/models/gpt2-tiny"), &error);
    const auto llama = LayerZero::open(QFINDTESTDATA("data/models/llama-tiny"), &error);
    QVERIFY2(gpt2 && llama, qPrintable(error));
    QCOMPARE(gpt2->architecture(), QStringLiteral("GPT2LMHeadModel"));
    QCOMPARE(gpt2->positionKind(), LayerPositionKind::Absolute);
    QCOMPARE(gpt2->maxTokens(), 256);
    QCOMPARE(gpt2->vocabularyRows(), 3000);
    QVERIFY2(gpt2->positionsText().contains(QLatin1String("wpe")),
             qPrintable(gpt2->positionsText()));
    QCOMPARE(llama->modelType(), QStringLiteral("llama"));
    QCOMPARE(llama->heads(), 4);
    QCOMPARE(llama->hiddenSize(), 64);
    QCOMPARE(llama->positionKind(), LayerPositionKind::Rope);
    QVERIFY2(llama->positionsText().contains(QLatin1String("16 of 16")),
             qPrintable(llama->positionsText()));
    // RoPE models: the embedding output is the same with and without positions.
    const std::vector<int> ids{1, 52, 322, 854};
    const auto with = llama->embeddings(ids, true, &error);
    const auto without = llama->embeddings(ids, false, &error);
    QVERIFY(with && without);
    QCOMPARE(with->values, without->values);
}

// Issue 45: NaN or infinite weights gave an all-NaN attention with no word. The result is still
// what the weights give, but says which tensor holds them: one read whole, or a table's rows.
void TstLayerZero::nonFiniteWeightsAreNamed()
{
    const QString q = QStringLiteral("model.layers.0.self_attn.q_proj.weight");
    const QString table = QStringLiteral("model.embed_tokens.weight");
    TinyModel m = tinyModel(QStringLiteral("llama"));
    m.weights.set(q, 5, std::numeric_limits<double>::quiet_NaN());
    QString error;
    std::unique_ptr<LayerZero> model =
        LayerZero::open(writeModel(m_dir, QStringLiteral("nan q_proj"), m), &error);
    QVERIFY2(model, qPrintable(error));
    std::optional<LayerZeroArray> a = model->attention(std::vector<int>{1, 2, 3}, true, &error);
    QVERIFY2(a, qPrintable(error));
    QVERIFY(std::any_of(a->values.begin(), a->values.end(), [](float v) { return std::isnan(v); }));
    QCOMPARE(a->warnings, QStringList{q + QStringLiteral(" holds 1 NaN or infinite values of 64")});

    m = tinyModel(QStringLiteral("llama"));
    m.weights.set(table, 3 * std::size_t(H) + 1, std::numeric_limits<double>::infinity());
    model = LayerZero::open(writeModel(m_dir, QStringLiteral("inf table row"), m), &error);
    QVERIFY2(model, qPrintable(error));
    a = model->embeddings(std::vector<int>{1, 3, 5}, true, &error);
    QVERIFY2(a, qPrintable(error));
    QCOMPARE(a->warnings, QStringList{table + QStringLiteral(" holds NaN or infinite values in "
                                                             "the rows this phrase reads (token "
                                                             "ids 3)")});
    // Rows without them: a clean result, no warning.
    a = model->attention(std::vector<int>{1, 2, 5}, true, &error);
    QVERIFY2(a, qPrintable(error));
    QVERIFY(
        std::all_of(a->values.begin(), a->values.end(), [](float v) { return std::isfinite(v); }));
    QVERIFY(a->warnings.isEmpty());
}

QTEST_GUILESS_MAIN(TstLayerZero)
#include "tst_layerzero.moc"
