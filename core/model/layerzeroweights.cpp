#include "model/layerzeroweights.h"

#include "model/ggufmodel.h"

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

QString shapeText(const std::vector<qint64> &shape)
{
    QStringList parts;
    for (const qint64 d : shape)
        parts += QString::number(d);
    return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}

// Finds tensors by their names relative to the checkpoint's prefix and reads them whole or by
// rows, checking shape and type first.
class TensorReader
{
public:
    TensorReader(const LayerZeroPlan &plan, ModelTensors &tensors, QString *error)
        : m_plan(plan), m_tensors(tensors), m_names(tensors.tensorNames()), m_error(error)
    {}

    // The prefix is whatever stands before the token table's name (the shortest such name:
    // "model.embed_tokens.weight" rather than a vision tower's copy).
    bool findPrefix(QString *prefix)
    {
        const QString &relative = m_plan.embedTensor;
        QString best;
        for (const QString &name : m_names) {
            if ((name == relative || name.endsWith(QLatin1Char('.') + relative)) &&
                (best.isEmpty() || name.size() < best.size()))
                best = name;
        }
        if (best.isEmpty())
            return fail(QStringLiteral("%1 has no token embedding table (no tensor named %2 or "
                                       "ending in .%2)%3")
                            .arg(m_tensors.path(), relative, quantizationNote()));
        m_prefix = best.left(best.size() - relative.size());
        *prefix = m_prefix;
        return true;
    }

    bool has(const QString &relative) const { return m_names.contains(m_prefix + relative); }

    // The descriptor of prefix + relative with exactly `shape`, in a type pescope converts.
    std::optional<TensorInfo> find(const QString &relative, const std::vector<qint64> &shape)
    {
        const QString name = m_prefix + relative;
        if (!m_names.contains(name)) {
            fail(QStringLiteral("%1 has no tensor %2, which layer 0 of %3 needs%4")
                     .arg(m_tensors.path(), name, m_plan.architecture, quantizationNote()));
            return std::nullopt;
        }
        std::optional<TensorInfo> info = m_tensors.find(name, m_error);
        if (!info)
            return std::nullopt;
        const QString unreadable = tensorUnreadableReason(*info);
        if (!unreadable.isEmpty()) {
            fail(QStringLiteral("%1: %2").arg(info->file, unreadable));
            return std::nullopt;
        }
        const bool anyRows = !shape.empty() && shape[0] < 0; // tables: any number of rows
        const bool fits = info->shape.size() == shape.size() &&
                          std::equal(shape.begin() + (anyRows ? 1 : 0), shape.end(),
                                     info->shape.begin() + (anyRows ? 1 : 0));
        if (!fits || (anyRows && info->shape[0] < 1)) {
            fail(QStringLiteral("%1: tensor %2 has shape %3, layer 0 of %4 needs %5")
                     .arg(info->file, name, info->shapeString(), m_plan.architecture,
                          anyRows ? QStringLiteral("[rows, %1]").arg(shape.back())
                                  : shapeText(shape)));
            return std::nullopt;
        }
        return info;
    }

    bool read(const QString &relative, const std::vector<qint64> &shape, std::vector<float> *out,
              qint64 rows = -1)
    {
        const std::optional<TensorInfo> info = find(relative, shape);
        if (!info || !m_tensors.readRows(info->name, 0, rows, out, m_error))
            return false;
        const auto bad =
            std::count_if(out->begin(), out->end(), [](float v) { return !std::isfinite(v); });
        if (bad > 0)
            m_nonFinite.append(QStringLiteral("%1 holds %2 NaN or infinite values of %3")
                                   .arg(info->name)
                                   .arg(bad)
                                   .arg(out->size()));
        return true;
    }

    const QStringList &nonFinite() const { return m_nonFinite; }

    bool readMatrix(const QString &relative, qint64 rows, qint64 columns, RowMatrix *out,
                    qint64 readRows = -1)
    {
        std::vector<float> values;
        if (!read(relative, {rows, columns}, &values, readRows))
            return false;
        *out = Eigen::Map<const RowMatrix>(values.data(), qint64(values.size()) / columns, columns);
        return true;
    }

    // A norm's weight (and bias): `<prefix>.weight`, or the `.gamma` / `.beta` of checkpoints
    // transformers renames on load.
    bool readNorm(const QString &prefix, bool withBias, qint64 size, NormWeights *out)
    {
        const bool legacy =
            !has(prefix + QLatin1String(".weight")) && has(prefix + QLatin1String(".gamma"));
        const QString weight = legacy ? QStringLiteral(".gamma") : QStringLiteral(".weight");
        const QString bias = legacy ? QStringLiteral(".beta") : QStringLiteral(".bias");
        return read(prefix + weight, {size}, &out->weight) &&
               (!withBias || read(prefix + bias, {size}, &out->bias));
    }

    bool fail(const QString &message)
    {
        if (m_error)
            *m_error = message;
        return false;
    }

private:
    QString quantizationNote() const
    {
        return m_plan.quantization.isEmpty()
                   ? QString()
                   : QStringLiteral(" (config.json says the model is quantized: %1; pescope "
                                    "reads unquantized F32, F16 and BF16 weights only)")
                         .arg(m_plan.quantization);
    }

    const LayerZeroPlan &m_plan;
    ModelTensors &m_tensors;
    QStringList m_names;
    QString m_prefix;
    QString *m_error;
    QStringList m_nonFinite;
};

// Query and key rows from a fused weight (and bias), `rowOf(head, part, d)` naming the fused row
// of dimension d of `head`'s query (part 0) or key (part 1).
template <typename RowOf>
void splitFused(const RowMatrix &fused, const Eigen::VectorXf &bias, qint64 heads, qint64 kvHeads,
                qint64 headDim, RowOf rowOf, Projection *query, Projection *key)
{
    query->weight.resize(heads * headDim, fused.cols());
    key->weight.resize(kvHeads * headDim, fused.cols());
    if (bias.size() > 0) {
        query->bias.resize(heads * headDim);
        key->bias.resize(kvHeads * headDim);
    }
    for (qint64 part = 0; part < 2; ++part) {
        Projection *target = part == 0 ? query : key;
        const qint64 n = part == 0 ? heads : kvHeads;
        for (qint64 h = 0; h < n; ++h) {
            for (qint64 d = 0; d < headDim; ++d) {
                const qint64 row = rowOf(h, part, d);
                target->weight.row(h * headDim + d) = fused.row(row);
                if (bias.size() > 0)
                    target->bias(h * headDim + d) = bias(row);
            }
        }
    }
}

bool readProjections(const LayerZeroPlan &plan, TensorReader &reader, LayerZeroWeights *out)
{
    const qint64 hidden = plan.hiddenSize, hd = plan.headDim;
    const qint64 qRows = plan.heads * hd, kRows = plan.kvHeads * hd;
    if ((qRows + kRows) * hidden > limits::maxLayerZeroWeightBytes / qint64(sizeof(float)))
        return reader.fail(
            QStringLiteral("%1: layer 0's query and key projections (%2 x %3 values) are more "
                           "than pescope holds in memory (%4 GiB in float32)")
                .arg(plan.source)
                .arg(qRows + kRows)
                .arg(hidden)
                .arg(limits::maxLayerZeroWeightBytes >> 30));
    const QString weight = QStringLiteral(".weight"), biasName = QStringLiteral(".bias");
    std::vector<float> bias;
    switch (plan.layout) {
    case QkvLayout::Separate: {
        const auto one = [&](const QString &name, qint64 rows, Projection *p) {
            if (!reader.readMatrix(name + weight, rows, hidden, &p->weight))
                return false;
            if (plan.qkBias && !reader.read(name + biasName, {rows}, &bias))
                return false;
            if (plan.qkBias)
                p->bias = Eigen::Map<const Eigen::VectorXf>(bias.data(), rows);
            return true;
        };
        if (!one(plan.qTensor, qRows, &out->query) || !one(plan.kTensor, kRows, &out->key))
            return false;
        if (plan.ggufRopePermuted) {
            unpermuteGgufRope(&out->query, plan.heads, hd);
            unpermuteGgufRope(&out->key, plan.kvHeads, hd);
        }
        return true;
    }
    case QkvLayout::Conv1dFused: { // GPT-2: x @ W + b with W in x 3*hidden, [q | k | v]
        RowMatrix conv;
        if (!reader.readMatrix(plan.qTensor + weight, hidden, 3 * qRows, &conv) ||
            !reader.read(plan.qTensor + biasName, {3 * qRows}, &bias))
            return false;
        const RowMatrix linear = conv.transpose();
        const Eigen::Map<const Eigen::VectorXf> b(bias.data(), qint64(bias.size()));
        splitFused(
            linear, b, plan.heads, plan.kvHeads, hd,
            [&](qint64 h, qint64 part, qint64 d) { return part * qRows + h * hd + d; }, &out->query,
            &out->key);
        return true;
    }
    case QkvLayout::NeoxPerHead: { // view(..., heads, 3 * head_size).chunk(3): [q_h | k_h | v_h]
        RowMatrix fused;
        if (!reader.readMatrix(plan.qTensor + weight, 3 * qRows, hidden, &fused) ||
            (plan.qkBias && !reader.read(plan.qTensor + biasName, {3 * qRows}, &bias)))
            return false;
        const Eigen::Map<const Eigen::VectorXf> b(bias.data(), plan.qkBias ? 3 * qRows : 0);
        splitFused(
            fused, b, plan.heads, plan.kvHeads, hd,
            [&](qint64 h, qint64 part, qint64 d) { return (3 * h + part) * hd + d; }, &out->query,
            &out->key);
        return true;
    }
    case QkvLayout::Stacked: { // Phi-3: qkv[..., :q], qkv[..., q:q+k]; only those rows are read
        RowMatrix fused;
        if (!reader.readMatrix(plan.qTensor + weight, qRows + 2 * kRows, hidden, &fused,
                               qRows + kRows))
            return false;
        out->query.weight = fused.topRows(qRows);
        out->key.weight = fused.bottomRows(kRows);
        // Phi-3's has no bias; a GGUF file's GPT-2 attn_qkv has one.
        if (plan.qkBias) {
            if (!reader.read(plan.qTensor + biasName, {qRows + 2 * kRows}, &bias))
                return false;
            out->query.bias = Eigen::Map<const Eigen::VectorXf>(bias.data(), qRows);
            out->key.bias = Eigen::Map<const Eigen::VectorXf>(bias.data() + qRows, kRows);
        }
        return true;
    }
    }
    return false;
}

bool readEmbeddingTables(const LayerZeroPlan &plan, TensorReader &reader, LayerZeroWeights *out)
{
    const std::optional<TensorInfo> table = reader.find(plan.embedTensor, {-1, plan.embedDim});
    if (!table)
        return false;
    out->embedTensor = table->name;
    out->vocabRows = table->rowCount();
    out->tableType = table->dtype;
    if (plan.learnedPositions) {
        const std::optional<TensorInfo> positions =
            reader.find(plan.positionTensor, {-1, plan.hiddenSize});
        if (!positions)
            return false;
        out->positionTensor = positions->name;
        out->positionRows = positions->rowCount();
    }
    if (!plan.tokenTypeTensor.isEmpty() &&
        !reader.read(plan.tokenTypeTensor, {-1, plan.hiddenSize}, &out->tokenTypeRow, 1))
        return false;
    if (!plan.embedNormPrefix.isEmpty() &&
        !reader.readNorm(plan.embedNormPrefix, true, plan.hiddenSize, &out->embedNorm))
        return false;
    return plan.projectInTensor.isEmpty() ||
           reader.readMatrix(plan.projectInTensor, plan.hiddenSize, plan.embedDim, &out->projectIn);
}

} // namespace

bool loadLayerZeroWeights(const LayerZeroPlan &plan, ModelTensors &tensors, LayerZeroWeights *out,
                          QString *error)
{
    TensorReader reader(plan, tensors, error);
    if (!reader.findPrefix(&out->prefix) || !readEmbeddingTables(plan, reader, out))
        return false;
    if (plan.inputNorm != NormKind::None && plan.normAffine &&
        !reader.readNorm(plan.normPrefix, plan.inputNorm == NormKind::LayerNorm, plan.hiddenSize,
                         &out->inputNorm))
        return false;
    if (!readProjections(plan, reader, out))
        return false;
    if (plan.headNorm != NormKind::None &&
        (!reader.read(plan.qNormTensor, {plan.headDim}, &out->queryNorm) ||
         !reader.read(plan.kNormTensor, {plan.headDim}, &out->keyNorm)))
        return false;
    out->nonFinite = reader.nonFinite();
    return true;
}

} // namespace pe
