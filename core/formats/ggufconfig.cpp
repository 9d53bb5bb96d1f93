#include "formats/ggufconfig.h"

#include "fields/fieldvalue.h"
#include "formats/gguffile.h"
#include "rope/ropefields.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

// Beyond any model's today (as the RoPE code's own bounds).
constexpr qint64 maxContext = qint64(1) << 31;
constexpr qint64 maxHeadDim = 65536;

// Layer i slides (llama_hparams::set_swa_pattern, dense_first = false) - for architectures whose
// pattern llama.cpp's llama-model.cpp sets in code instead of reading it from the file.
struct ArchPattern
{
    const char *arch;
    qint64 pattern;
    double swaBase; // rope_freq_base_train_swa it sets; 0: the global base
};
constexpr ArchPattern archPatterns[] = {
    {"gemma2", 2, 0.0},
    {"gemma3", 6, 10000.0},
    {"cohere2", 4, 0.0},
};

QString numberText(double x)
{
    return QString::number(x, 'g', 17);
}

class Reader
{
public:
    Reader(const GgufFile &file, ModelConfig &out) : m_file(file), m_out(out) {}

    bool run(QString *error);

private:
    // The factor tensors of a rotation of `pairs` pairs: present or not, and their values.
    struct FactorTensors
    {
        std::vector<double> freqs, shortFactors, longFactors;
        bool hasFreqs = false, hasShort = false, hasLong = false;
    };

    QString key(const QString &suffix) const { return m_arch + QLatin1Char('.') + suffix; }
    void read(const QString &what, const QString &suffix)
    {
        m_out.readFrom += QStringLiteral("%1 (%2)").arg(what, key(suffix));
    }
    void assume(const QString &what) { m_out.assumed += what; }
    bool fail(const QString &why)
    {
        m_error = QStringLiteral("%1: %2").arg(m_file.path(), why);
        return false;
    }
    // A scalar integer key in [min, max]; absent: true with *out unchanged. An array of
    // integers (per-layer head counts) gives its largest element when `perLayer`.
    bool integer(const QString &suffix, qint64 min, qint64 max, std::optional<qint64> *out,
                 bool perLayer = false);
    bool number(const QString &suffix, double min, double max, std::optional<double> *out);
    // A value read elsewhere (GgufFile::ropeScaling()) in [min, max]; absent: true.
    bool inRange(const QString &suffix, std::optional<qint64> value, qint64 min, qint64 max);
    bool inRange(const QString &suffix, std::optional<double> value, double min, double max);
    bool factors(const QString &tensor, qint64 count, std::vector<double> *out, bool *present);
    bool sliding(qint64 layers, std::vector<bool> *swa, qint64 *window);
    QJsonObject rope(double base, const QJsonObject &scaling) const;

    // The steps of run(), in the order they read the file.
    bool readArchitecture();
    bool readSizes();
    void readPositionKind();
    bool readRope();
    bool readRotaryDims(std::optional<qint64> nRot, std::optional<qint64> nRotSwa);
    bool readScaling(QJsonObject *scaling);
    bool checkScalingRanges(const GgufRopeScaling &keys);
    bool readFactorTensors(FactorTensors *tensors);
    void putOriginalContext(const GgufRopeScaling &keys, QJsonObject *scaling);
    bool putLinear(const GgufRopeScaling &keys, QJsonObject *scaling);
    void putYarn(const GgufRopeScaling &keys, QJsonObject *scaling);
    bool putLongrope(const GgufRopeScaling &keys, const FactorTensors &tensors,
                     QJsonObject *scaling);
    void putFreqsAsLongrope(const std::vector<double> &freqs, QJsonObject *scaling);
    bool readMropeSections(QJsonObject *scaling);
    void putLayerTypeRopes(std::optional<double> base, std::optional<double> baseSwa,
                           const QJsonObject &scaling);
    bool readLayers();
    void readNoRopeLayers(qint64 window, std::vector<bool> *swa);
    void buildLayers(const std::vector<bool> &swa, qint64 window);

    const GgufFile &m_file;
    ModelConfig &m_out;
    QString m_arch;
    QString m_error;
    // What the steps read for the later ones.
    std::optional<qint64> m_context, m_blocks;
    LayerPositionKind m_kind = LayerPositionKind::None;
    QJsonObject m_global, m_local; // rope_parameters of the full and the sliding layers
    qint64 m_rotaryDims = 0, m_rotaryDimsSwa = 0;
    qint64 m_noRopeStep = 0; // layer i has no RoPE when (i + 1) % m_noRopeStep == 0
    qint64 m_chunk = 0;      // chunked attention's span (llama4)
};

bool Reader::integer(const QString &suffix, qint64 min, qint64 max, std::optional<qint64> *out,
                     bool perLayer)
{
    const QString name = key(suffix);
    const GgufValue *v = m_file.value(name);
    if (!v)
        return true;
    std::optional<qint64> value;
    if (perLayer && v->isArray()) {
        QString error;
        const std::optional<std::vector<qint64>> list = m_file.intArray(name, &error, maxContext);
        if (!list) {
            m_error = error;
            return false;
        }
        for (const qint64 x : *list)
            value = std::max(value.value_or(x), x);
        if (!value)
            return fail(QStringLiteral("%1 is an empty array").arg(name));
    } else {
        value = v->toInt();
        if (!value)
            return fail(ggufTypeProblem(name, *v, QStringLiteral("an integer")));
    }
    if (!inRange(suffix, value, min, max))
        return false;
    *out = value;
    return true;
}

bool Reader::inRange(const QString &suffix, std::optional<qint64> value, qint64 min, qint64 max)
{
    if (value && (*value < min || *value > max))
        return fail(QStringLiteral("%1 is %2; it must be between %3 and %4")
                        .arg(key(suffix))
                        .arg(*value)
                        .arg(min)
                        .arg(max));
    return true;
}

bool Reader::number(const QString &suffix, double min, double max, std::optional<double> *out)
{
    const QString name = key(suffix);
    const GgufValue *v = m_file.value(name);
    if (!v)
        return true;
    const std::optional<double> value = v->toDouble();
    if (!value)
        return fail(ggufTypeProblem(name, *v, QStringLiteral("a number")));
    if (!inRange(suffix, value, min, max))
        return false;
    *out = value;
    return true;
}

bool Reader::inRange(const QString &suffix, std::optional<double> value, double min, double max)
{
    if (value && (!std::isfinite(*value) || *value < min || *value > max))
        return fail(QStringLiteral("%1 is %2; it must be a number between %3 and %4")
                        .arg(key(suffix), numberText(*value), numberText(min), numberText(max)));
    return true;
}

// A 1-D float tensor of `count` positive, finite per-pair factors.
bool Reader::factors(const QString &tensor, qint64 count, std::vector<double> *out, bool *present)
{
    const std::optional<TensorInfo> info = m_file.find(tensor);
    *present = info.has_value();
    if (!info)
        return true;
    if (info->shape.size() != 1 || info->shape[0] != count)
        return fail(QStringLiteral("tensor %1 has shape %2; the rotation has %3 pairs, so it "
                                   "must hold %3 factors")
                        .arg(tensor, info->shapeString())
                        .arg(count));
    std::vector<float> values;
    QString error;
    if (!m_file.read(tensor, &values, &error)) {
        m_error = error;
        return false;
    }
    out->assign(values.begin(), values.end());
    for (std::size_t i = 0; i < out->size(); ++i)
        if (!std::isfinite((*out)[i]) || (*out)[i] <= 0)
            return fail(QStringLiteral("element %1 of tensor %2 is %3; a frequency factor must "
                                       "be a positive number")
                            .arg(i)
                            .arg(tensor, numberText((*out)[i])));
    return true;
}

bool Reader::sliding(qint64 layers, std::vector<bool> *swa, qint64 *window)
{
    std::optional<qint64> w;
    if (!integer(QStringLiteral("attention.sliding_window"), 0, maxContext, &w))
        return false;
    *window = w.value_or(0);
    swa->assign(std::size_t(layers), false);
    if (*window <= 0)
        return true;
    read(QStringLiteral("sliding window = %1 tokens").arg(*window),
         QStringLiteral("attention.sliding_window"));
    const QString patternSuffix = QStringLiteral("attention.sliding_window_pattern");
    const QString patternKey = key(patternSuffix);
    const GgufValue *p = m_file.value(patternKey);
    std::optional<qint64> pattern;
    if (p && p->isArray()) {
        if (p->arrayType != GgufType::Bool)
            return fail(
                ggufTypeProblem(patternKey, *p, QStringLiteral("an integer or an array of BOOL")));
        if (p->arrayCount != layers)
            return fail(QStringLiteral("%1 holds %2 flags; block_count is %3")
                            .arg(patternKey)
                            .arg(p->arrayCount)
                            .arg(layers));
        // BOOL elements are one byte each, checked to be 0 or 1 when the file was opened.
        const uchar *flags = m_file.file().data() + p->arrayOffset;
        for (qint64 i = 0; i < layers; ++i)
            (*swa)[std::size_t(i)] = flags[i] != 0;
        read(QStringLiteral("sliding layers: one flag per layer"), patternSuffix);
        return true;
    }
    if (!integer(patternSuffix, 0, layers > 0 ? layers : maxContext, &pattern))
        return false;
    if (pattern) {
        read(QStringLiteral("sliding window pattern = %1").arg(*pattern), patternSuffix);
    } else {
        for (const ArchPattern &a : archPatterns)
            if (m_arch == QLatin1String(a.arch))
                pattern = a.pattern;
        if (pattern)
            assume(QStringLiteral("sliding window pattern = %1: llama.cpp's llama-model.cpp sets "
                                  "it for %2 (the file has no %3)")
                       .arg(*pattern)
                       .arg(m_arch, patternKey));
        else
            assume(QStringLiteral("every layer slides: the file has %1 and no %2 (llama.cpp "
                                  "then applies the window to every layer)")
                       .arg(key(QStringLiteral("attention.sliding_window")), patternKey));
    }
    const qint64 n = pattern.value_or(0);
    for (qint64 i = 0; i < layers; ++i)
        (*swa)[std::size_t(i)] = n == 0 || i % n < n - 1;
    return true;
}

bool Reader::run(QString *error)
{
    bool ok = readArchitecture() && readSizes();
    if (ok) {
        readPositionKind();
        ok = (m_kind != LayerPositionKind::Rope || readRope()) && readLayers();
    }
    if (!ok && error)
        *error = m_error;
    return ok;
}

bool Reader::readArchitecture()
{
    const GgufValue *archValue = m_file.value(QStringLiteral("general.architecture"));
    const std::optional<QString> arch = archValue ? archValue->toString() : std::nullopt;
    if (!arch)
        return fail(archValue ? ggufTypeProblem(QStringLiteral("general.architecture"), *archValue,
                                                QStringLiteral("a string"))
                              : QStringLiteral("general.architecture is missing"));
    m_arch = *arch;
    if (m_arch.isEmpty() || m_arch.size() > 64 || m_arch.contains(QLatin1Char('.')))
        return fail(QStringLiteral("general.architecture \"%1\" is not an architecture name")
                        .arg(m_arch.left(64)));
    m_out.modelType = m_arch;
    m_out.architectures = {m_arch};
    m_out.readFrom += QStringLiteral("architecture = %1 (general.architecture)").arg(m_arch);
    return true;
}

bool Reader::readSizes()
{
    std::optional<qint64> embedding, heads, headsKv, keyLength;
    if (!integer(QStringLiteral("context_length"), 1, maxContext, &m_context) ||
        !integer(QStringLiteral("embedding_length"), 1, qint64(1) << 24, &embedding) ||
        !integer(QStringLiteral("block_count"), 0, limits::maxLayers, &m_blocks) ||
        !integer(QStringLiteral("attention.head_count"), 0, 1 << 20, &heads, true) ||
        !integer(QStringLiteral("attention.head_count_kv"), 0, 1 << 20, &headsKv, true) ||
        !integer(QStringLiteral("attention.key_length"), 1, maxHeadDim, &keyLength))
        return false;
    if (m_context) {
        m_out.maxPositionEmbeddings = *m_context;
        read(QStringLiteral("context = %1").arg(*m_context), QStringLiteral("context_length"));
    } else {
        assume(QStringLiteral("context unknown: the file has no %1")
                   .arg(key(QStringLiteral("context_length"))));
    }
    if (embedding) {
        m_out.hiddenSize = *embedding;
        read(QStringLiteral("hidden_size = %1").arg(*embedding),
             QStringLiteral("embedding_length"));
    }
    if (heads) {
        m_out.numAttentionHeads = *heads;
        read(QStringLiteral("num_attention_heads = %1").arg(*heads),
             QStringLiteral("attention.head_count"));
    }
    if (headsKv)
        m_out.numKeyValueHeads = *headsKv;
    if (keyLength) {
        m_out.headDim = *keyLength;
        read(QStringLiteral("head_dim = %1").arg(*keyLength),
             QStringLiteral("attention.key_length"));
    } else if (embedding && heads && *heads > 0) {
        m_out.headDim = *embedding / *heads;
        read(QStringLiteral("head_dim = %1 = embedding_length / head_count").arg(m_out.headDim),
             QStringLiteral("embedding_length"));
    }
    if (m_blocks) {
        m_out.numHiddenLayers = *m_blocks;
        read(QStringLiteral("layers = %1").arg(*m_blocks), QStringLiteral("block_count"));
    }
    return true;
}

// Which positions: any rope.* key means rotation; else a learned table or ALiBi.
void Reader::readPositionKind()
{
    bool ropeKeys = false;
    const QString ropePrefix = key(QStringLiteral("rope."));
    for (const QString &k : m_file.keys())
        ropeKeys = ropeKeys || k.startsWith(ropePrefix);
    const std::optional<TensorInfo> table = m_file.positionEmbedding();
    const bool alibi = m_file.value(key(QStringLiteral("attention.max_alibi_bias"))) != nullptr;
    if (ropeKeys)
        m_kind = LayerPositionKind::Rope;
    else if (table)
        m_kind = LayerPositionKind::Absolute;
    else if (alibi)
        m_kind = LayerPositionKind::Alibi;
    else
        assume(QStringLiteral("positional scheme unknown: the file has no %1* keys, no "
                              "position_embd.weight and no %2")
                   .arg(ropePrefix, key(QStringLiteral("attention.max_alibi_bias"))));

    if (m_kind == LayerPositionKind::Absolute) {
        AbsolutePositions &a = m_out.absolute;
        a.kind = AbsolutePositionKind::Learned;
        a.tableRows = table->shape.empty() ? 0 : table->shape.front();
        a.positions = m_context.value_or(a.tableRows);
        a.tensorNames = {table->name};
        m_out.readFrom +=
            QStringLiteral("learned position table position_embd.weight, %1 rows").arg(a.tableRows);
    }
}

// The rotation: dims, base, scaling and mrope sections, as the full and the sliding layers'
// rope_parameters.
bool Reader::readRope()
{
    std::optional<qint64> nRot, nRotSwa;
    std::optional<double> base, baseSwa;
    if (!integer(QStringLiteral("rope.dimension_count"), 1, maxHeadDim, &nRot) ||
        !integer(QStringLiteral("rope.dimension_count_swa"), 1, maxHeadDim, &nRotSwa) ||
        !number(QStringLiteral("rope.freq_base"), 1e-300, 1e300, &base) ||
        !number(QStringLiteral("rope.freq_base_swa"), 1e-300, 1e300, &baseSwa) ||
        !readRotaryDims(nRot, nRotSwa))
        return false;
    if (base)
        read(QStringLiteral("rope_theta = %1").arg(numberText(*base)),
             QStringLiteral("rope.freq_base"));
    else
        assume(QStringLiteral("rope_theta = 10000: the file has no %1 (llama.cpp's default)")
                   .arg(key(QStringLiteral("rope.freq_base"))));
    QJsonObject scaling;
    if (!readScaling(&scaling) || !readMropeSections(&scaling))
        return false;
    putLayerTypeRopes(base, baseSwa, scaling);
    return true;
}

bool Reader::readRotaryDims(std::optional<qint64> nRot, std::optional<qint64> nRotSwa)
{
    const QString dimsKey = key(QStringLiteral("rope.dimension_count"));
    if (nRot) {
        m_rotaryDims = *nRot;
        read(QStringLiteral("rotated dims per head = %1").arg(*nRot),
             QStringLiteral("rope.dimension_count"));
    } else if (m_out.headDim > 0) {
        m_rotaryDims = m_out.headDim;
        assume(QStringLiteral("rotated dims per head = head_dim %1 (the file has no %2)")
                   .arg(m_out.headDim)
                   .arg(dimsKey));
    } else {
        return fail(QStringLiteral("%1 is missing and the head size is unknown (no "
                                   "attention.key_length, or embedding_length and "
                                   "attention.head_count)")
                        .arg(dimsKey));
    }
    if (m_rotaryDims < 2)
        return fail(QStringLiteral("%1 is %2: a rotation needs at least 2 dims")
                        .arg(dimsKey)
                        .arg(m_rotaryDims));
    if (m_out.headDim == 0)
        m_out.headDim = m_rotaryDims;
    m_rotaryDimsSwa = nRotSwa.value_or(m_rotaryDims);
    return true;
}

// rope.scaling.* and the factor tensors as rope_parameters' scaling keys.
bool Reader::readScaling(QJsonObject *scaling)
{
    const GgufRopeScaling keys = m_file.ropeScaling();
    if (!keys.problem.isEmpty())
        return fail(keys.problem);
    if (!checkScalingRanges(keys))
        return false;
    if (keys.factorFromScaleLinear)
        read(QStringLiteral("linear scaling, factor %1").arg(numberText(*keys.factor)),
             QStringLiteral("rope.scale_linear"));
    FactorTensors tensors;
    if (!readFactorTensors(&tensors))
        return false;
    const QString &type = keys.type;
    if (type == QLatin1String("linear")) {
        if (!putLinear(keys, scaling))
            return false;
    } else if (type == QLatin1String("yarn")) {
        putYarn(keys, scaling);
    } else if (type == QLatin1String("longrope") || tensors.hasShort || tensors.hasLong) {
        if (!putLongrope(keys, tensors, scaling))
            return false;
    } else if (type.isEmpty() || type == QLatin1String("none")) {
        if (tensors.hasFreqs)
            putFreqsAsLongrope(tensors.freqs, scaling);
    } else {
        return fail(QStringLiteral("%1 is \"%2\"; pescope knows none, linear, yarn and longrope")
                        .arg(key(QStringLiteral("rope.scaling.type")), type.left(64)));
    }
    if (keys.attnFactor && !scaling->contains(ropeHfKeyOf(&RopeConfig::attentionFactor)))
        assume(QStringLiteral("%1 = %2 is llama.cpp's own multiplier of cos and sin; it has no "
                              "Hugging Face key and is not applied")
                   .arg(key(QStringLiteral("rope.scaling.attn_factor")),
                        numberText(*keys.attnFactor)));
    return true;
}

bool Reader::checkScalingRanges(const GgufRopeScaling &keys)
{
    const QString factorKey = keys.factorFromScaleLinear ? QStringLiteral("rope.scale_linear")
                                                         : QStringLiteral("rope.scaling.factor");
    const auto positive = [&](const char *suffix, std::optional<double> value) {
        return inRange(QLatin1String(suffix), value, 1e-300, 1e300);
    };
    return inRange(factorKey, keys.factor, 1e-300, 1e300) &&
           positive("rope.scaling.attn_factor", keys.attnFactor) &&
           positive("rope.scaling.yarn_attn_factor", keys.yarnAttnFactor) &&
           inRange(QStringLiteral("rope.scaling.yarn_beta_fast"), keys.yarnBetaFast, -1e300,
                   1e300) &&
           inRange(QStringLiteral("rope.scaling.yarn_beta_slow"), keys.yarnBetaSlow, -1e300,
                   1e300) &&
           inRange(QStringLiteral("rope.scaling.yarn_log_multiplier"), keys.yarnLogMultiplier, 0.0,
                   1e300) &&
           inRange(QStringLiteral("rope.scaling.original_context_length"),
                   keys.originalContextLength, 1, maxContext);
}

bool Reader::readFactorTensors(FactorTensors *t)
{
    const qint64 pairs = (m_rotaryDims + 1) / 2;
    return factors(QStringLiteral("rope_freqs.weight"), pairs, &t->freqs, &t->hasFreqs) &&
           factors(QStringLiteral("rope_factors_short.weight"), pairs, &t->shortFactors,
                   &t->hasShort) &&
           factors(QStringLiteral("rope_factors_long.weight"), pairs, &t->longFactors, &t->hasLong);
}

// original_max_position_embeddings: the file's, else the context.
void Reader::putOriginalContext(const GgufRopeScaling &keys, QJsonObject *scaling)
{
    const std::optional<qint64> original = keys.originalContextLength;
    const qint64 originalContext = original.value_or(m_context.value_or(0));
    if (originalContext > 0)
        scaling->insert(ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings), originalContext);
    if (original)
        read(QStringLiteral("original_max_position_embeddings = %1").arg(*original),
             QStringLiteral("rope.scaling.original_context_length"));
}

bool Reader::putLinear(const GgufRopeScaling &keys, QJsonObject *scaling)
{
    if (!keys.factor)
        return fail(QStringLiteral("%1 is linear but %2 is missing")
                        .arg(key(QStringLiteral("rope.scaling.type")),
                             key(QStringLiteral("rope.scaling.factor"))));
    scaling->insert(ropeHfKeyOf(&RopeConfig::ropeType), QStringLiteral("linear"));
    scaling->insert(ropeHfKeyOf(&RopeConfig::factor), *keys.factor);
    return true;
}

void Reader::putYarn(const GgufRopeScaling &keys, QJsonObject *scaling)
{
    scaling->insert(ropeHfKeyOf(&RopeConfig::ropeType), QStringLiteral("yarn"));
    if (keys.factor)
        scaling->insert(ropeHfKeyOf(&RopeConfig::factor), *keys.factor);
    putOriginalContext(keys, scaling);
    if (keys.yarnBetaFast)
        scaling->insert(ropeHfKeyOf(&RopeConfig::betaFast), *keys.yarnBetaFast);
    if (keys.yarnBetaSlow)
        scaling->insert(ropeHfKeyOf(&RopeConfig::betaSlow), *keys.yarnBetaSlow);
    if (keys.yarnAttnFactor) {
        scaling->insert(ropeHfKeyOf(&RopeConfig::attentionFactor), *keys.yarnAttnFactor);
        read(QStringLiteral("attention_factor = %1").arg(numberText(*keys.yarnAttnFactor)),
             QStringLiteral("rope.scaling.yarn_attn_factor"));
    }
    if (keys.yarnLogMultiplier && *keys.yarnLogMultiplier > 0) {
        // convert_hf_to_gguf (DeepSeek V2/V3) writes 0.1 * mscale_all_dim; their configs give
        // mscale the same value, which makes HF's attention factor 1.
        const double all = *keys.yarnLogMultiplier / 0.1;
        scaling->insert(ropeHfKeyOf(&RopeConfig::mscaleAllDim), all);
        scaling->insert(ropeHfKeyOf(&RopeConfig::mscale), all);
        read(QStringLiteral("mscale_all_dim = %1 = yarn_log_multiplier / 0.1").arg(numberText(all)),
             QStringLiteral("rope.scaling.yarn_log_multiplier"));
        assume(QStringLiteral("mscale = mscale_all_dim = %1: GGUF stores only "
                              "yarn_log_multiplier (DeepSeek V2/V3 configs have both equal)")
                   .arg(numberText(all)));
    }
}

// Phi-3's rope_factors_short.weight and rope_factors_long.weight.
bool Reader::putLongrope(const GgufRopeScaling &keys, const FactorTensors &tensors,
                         QJsonObject *scaling)
{
    if (!tensors.hasShort || !tensors.hasLong)
        return fail(QStringLiteral("longrope needs both rope_factors_short.weight and "
                                   "rope_factors_long.weight; the file has only %1")
                        .arg(tensors.hasShort  ? QStringLiteral("the short one")
                             : tensors.hasLong ? QStringLiteral("the long one")
                                               : QStringLiteral("neither")));
    scaling->insert(ropeHfKeyOf(&RopeConfig::ropeType), QStringLiteral("longrope"));
    scaling->insert(ropeHfKeyOf(&RopeConfig::shortFactor),
                    fieldvalue::realListJson(tensors.shortFactors));
    scaling->insert(ropeHfKeyOf(&RopeConfig::longFactor),
                    fieldvalue::realListJson(tensors.longFactors));
    if (keys.factor)
        scaling->insert(ropeHfKeyOf(&RopeConfig::factor), *keys.factor);
    putOriginalContext(keys, scaling);
    if (keys.attnFactor) {
        scaling->insert(ropeHfKeyOf(&RopeConfig::attentionFactor), *keys.attnFactor);
        read(QStringLiteral("attention_factor = %1").arg(numberText(*keys.attnFactor)),
             QStringLiteral("rope.scaling.attn_factor"));
    }
    m_out.readFrom += QStringLiteral("longrope short_factor and long_factor "
                                     "(rope_factors_short.weight, rope_factors_long.weight)");
    return true;
}

// llama.cpp's rope_freqs.weight (llama3 scaling) as longrope with both factor lists.
void Reader::putFreqsAsLongrope(const std::vector<double> &freqs, QJsonObject *scaling)
{
    scaling->insert(ropeHfKeyOf(&RopeConfig::ropeType), QStringLiteral("longrope"));
    scaling->insert(ropeHfKeyOf(&RopeConfig::shortFactor), fieldvalue::realListJson(freqs));
    scaling->insert(ropeHfKeyOf(&RopeConfig::longFactor), fieldvalue::realListJson(freqs));
    scaling->insert(ropeHfKeyOf(&RopeConfig::attentionFactor), 1.0);
    if (m_context)
        scaling->insert(ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings), *m_context);
    m_out.readFrom += QStringLiteral("per-pair frequency divisors (rope_freqs.weight, %1 values)")
                          .arg(qint64(freqs.size()));
    assume(QStringLiteral("rope_freqs.weight holds llama.cpp's per-pair divisors (written for "
                          "llama3 scaling; the file does not keep factor, low_freq_factor and "
                          "high_freq_factor): shown as longrope with short_factor = long_factor "
                          "= those divisors and attention_factor 1, which gives the same "
                          "inv_freq"));
}

// mrope (Qwen2-VL, Qwen2.5-VL: sections; Qwen3-VL: interleaved).
bool Reader::readMropeSections(QJsonObject *scaling)
{
    const QString sectionsKey = key(QStringLiteral("rope.dimension_sections"));
    if (!m_file.value(sectionsKey))
        return true;
    QString arrayError;
    const std::optional<std::vector<qint64>> sections =
        m_file.intArray(sectionsKey, &arrayError, 4);
    if (!sections)
        return fail(QStringLiteral("%1 must be an array of at most 4 integers").arg(sectionsKey));
    QJsonArray section;
    qint64 sum = 0;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, sections->size()); ++i) {
        if ((*sections)[i] < 0 || (*sections)[i] > maxHeadDim)
            return fail(QStringLiteral("element %1 of %2 is %3")
                            .arg(i)
                            .arg(sectionsKey)
                            .arg((*sections)[i]));
        section.append((*sections)[i]);
        sum += (*sections)[i];
    }
    if (sum > 0) {
        scaling->insert(ropeHfKeyOf(&RopeConfig::mropeSection), section);
        if (m_arch.startsWith(QLatin1String("qwen3vl")))
            scaling->insert(ropeHfKeyOf(&RopeConfig::mropeInterleaved), true);
        read(QStringLiteral("mrope_section [%1]")
                 .arg(QString::fromUtf8(QJsonDocument(section).toJson(QJsonDocument::Compact))),
             QStringLiteral("rope.dimension_sections"));
    }
    return true;
}

// The full layers' rope_parameters with the global base; the sliding layers' with
// rope.freq_base_swa, or the base llama.cpp sets for the architecture.
void Reader::putLayerTypeRopes(std::optional<double> base, std::optional<double> baseSwa,
                               const QJsonObject &scaling)
{
    m_global = rope(base.value_or(10000.0), scaling);
    double swaBase = baseSwa.value_or(0.0);
    if (!baseSwa)
        for (const ArchPattern &a : archPatterns)
            if (m_arch == QLatin1String(a.arch) && a.swaBase > 0)
                swaBase = a.swaBase;
    m_local = rope(swaBase > 0 ? swaBase : base.value_or(10000.0), scaling);
    if (baseSwa)
        read(QStringLiteral("sliding layers' rope_theta = %1").arg(numberText(*baseSwa)),
             QStringLiteral("rope.freq_base_swa"));
    else if (swaBase > 0)
        assume(QStringLiteral("sliding layers' rope_theta = %1: llama.cpp's llama-model.cpp "
                              "sets it for %2")
                   .arg(numberText(swaBase), m_arch));
}

// The layer map: sliding layers, NoPE layers, each layer's rope_parameters.
bool Reader::readLayers()
{
    const qint64 layers = m_blocks.value_or(0);
    std::vector<bool> swa;
    qint64 window = 0;
    if (!sliding(layers, &swa, &window))
        return false;
    readNoRopeLayers(window, &swa);
    const bool anySliding = std::find(swa.cbegin(), swa.cend(), true) != swa.cend();
    const bool perType = anySliding && (m_local != m_global || m_rotaryDimsSwa != m_rotaryDims);
    if (m_kind == LayerPositionKind::Rope) {
        if (perType) {
            m_out.ropeParametersPerLayerType = true;
            m_out.ropeParameters = {{QStringLiteral("full_attention"), m_global},
                                    {QStringLiteral("sliding_attention"), m_local}};
        } else {
            m_out.ropeParameters = m_global;
        }
    }
    if (layers == 0)
        assume(QStringLiteral("no layer map: the file has no %1")
                   .arg(key(QStringLiteral("block_count"))));
    buildLayers(swa, window);
    if (m_kind == LayerPositionKind::Rope && layers == 0 && m_rotaryDims != m_out.headDim) {
        // Without a layer map the spec's dims are headDim: the rotated part is what matters.
        assume(QStringLiteral("head_dim shown as the %1 rotated dims (no layer map)")
                   .arg(m_rotaryDims));
        m_out.headDim = m_rotaryDims;
    }
    return true;
}

// llama.cpp's n_no_rope_layer_step (llama-hparams.h: 4; no GGUF key sets it): llama4 and
// smollm3 leave layer i without RoPE when (i + 1) % 4 == 0, as transformers' Llama 4 and
// SmolLM3 configs do with no_rope_layer_interval = 4. llama4's rotary layers attend in chunks
// of 8,192 tokens and its NoPE layers globally (llama-model.cpp sets n_swa = 8192, chunked,
// pattern 4), unless the file sets attention.sliding_window to 0: then every layer rotates.
void Reader::readNoRopeLayers(qint64 window, std::vector<bool> *swa)
{
    const bool llama4 = m_arch == QLatin1String("llama4");
    if (m_kind != LayerPositionKind::Rope || !(llama4 || m_arch == QLatin1String("smollm3")))
        return;
    const QString windowKey = key(QStringLiteral("attention.sliding_window"));
    if (llama4 && m_file.value(windowKey) && window == 0) {
        read(QStringLiteral("every layer rotates (llama.cpp: no chunked attention, no NoPE "
                            "layers)"),
             QStringLiteral("attention.sliding_window"));
        return;
    }
    m_noRopeStep = 4;
    assume(QStringLiteral("layers 3, 7, 11, ... without RoPE: llama.cpp's n_no_rope_layer_step "
                          "= 4 for %1, which no GGUF key sets")
               .arg(m_arch));
    if (llama4) {
        m_chunk = 8192;
        swa->assign(swa->size(), false);
        assume(QStringLiteral("rotary layers attend in chunks of 8192 tokens, NoPE layers "
                              "globally: llama.cpp's llama-model.cpp sets it for llama4"));
    }
}

void Reader::buildLayers(const std::vector<bool> &swa, qint64 window)
{
    const qint64 layers = qint64(swa.size());
    const bool cohere2 = m_arch == QLatin1String("cohere2");
    m_out.layers.reserve(std::size_t(layers));
    for (qint64 i = 0; i < layers; ++i) {
        LayerPosition l;
        l.index = int(i);
        const bool slides = swa[std::size_t(i)];
        l.attention = slides ? AttentionKind::SlidingWindow : AttentionKind::Full;
        l.layerType =
            slides ? QStringLiteral("sliding_attention") : QStringLiteral("full_attention");
        l.window = slides ? window : 0;
        l.position = m_kind;
        if (m_kind == LayerPositionKind::Rope && cohere2 && !slides)
            l.position = LayerPositionKind::NoPE; // llama.cpp's cohere2 rotates sliding layers only
        const bool noRope = m_noRopeStep > 0 && (i + 1) % m_noRopeStep == 0;
        if (noRope)
            l.position = LayerPositionKind::NoPE;
        if (m_chunk > 0 && !noRope) {
            l.attention = AttentionKind::Chunked;
            l.layerType = QStringLiteral("chunked_attention");
            l.window = m_chunk;
        }
        if (l.position == LayerPositionKind::Rope) {
            l.rope = slides ? m_local : m_global;
            l.rotaryDims = slides ? m_rotaryDimsSwa : m_rotaryDims;
        }
        m_out.layers.push_back(std::move(l));
    }
}

// One v5 rope_parameters object: rope_type (default unless scaled), rope_theta, the scaling.
QJsonObject Reader::rope(double base, const QJsonObject &scaling) const
{
    QJsonObject out = scaling;
    const QLatin1StringView typeKey = ropeHfKeyOf(&RopeConfig::ropeType);
    if (!out.contains(typeKey))
        out.insert(typeKey, QStringLiteral("default"));
    out.insert(ropeHfKeyOf(&RopeConfig::ropeTheta), base);
    return out;
}

} // namespace

std::optional<ModelConfig> ggufModelConfig(const GgufFile &file, QString *error)
{
    if (error)
        error->clear();
    if (!file.value(QStringLiteral("general.architecture")))
        return std::nullopt;
    ModelConfig out;
    out.source = file.path();
    Reader reader(file, out);
    if (!reader.run(error))
        return std::nullopt;
    return out;
}

std::optional<ModelConfig> readModelConfig(const ModelLocation &location, QString *error)
{
    if (error)
        error->clear();
    if (!location.configPath.isEmpty())
        return readHfConfig(location.configPath, error);
    if (location.kind != ModelSourceKind::Gguf)
        return std::nullopt;
    GgufFile file;
    if (!file.open(location.weightsPath, error))
        return std::nullopt;
    return ggufModelConfig(file, error);
}

} // namespace pe
