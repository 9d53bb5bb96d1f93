#include "model/forwardweights.h"

#include "model/ggufmodel.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pe {

namespace {

QString shapeText(const std::vector<qint64> &shape)
{
    QStringList parts;
    for (const qint64 d : shape)
        parts += d < 0 ? QStringLiteral("rows") : QString::number(d);
    return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}

// The stored shape of a linear map from `in` to `out` values.
std::vector<qint64> linearShape(const LinearTensor &spec, qint64 out, qint64 in)
{
    return spec.conv1d ? std::vector<qint64>{in, out} : std::vector<qint64>{out, in};
}

// Rows of a fused weight (out x in, as nn.Linear) picked by `rowOf(part, h, d)`, the fused row of
// dimension d of head h of part 0 (query), 1 (key) or 2 (value).
template <typename RowOf>
void splitFused(const Projection &fused, qint64 heads, qint64 kvHeads, qint64 headDim, RowOf rowOf,
                Projection *q, Projection *k, Projection *v)
{
    Projection *targets[3] = {q, k, v};
    for (qint64 part = 0; part < 3; ++part) {
        Projection *t = targets[part];
        const qint64 n = part == 0 ? heads : kvHeads;
        t->inputMajor = fused.inputMajor;
        if (fused.inputMajor) // Conv1D: a head's outputs are columns
            t->weight.resize(fused.weight.rows(), n * headDim);
        else
            t->weight.resize(n * headDim, fused.weight.cols());
        if (fused.bias.size() > 0)
            t->bias.resize(n * headDim);
        for (qint64 h = 0; h < n; ++h) {
            if (fused.inputMajor) // a head's outputs are consecutive in every fused layout
                t->weight.middleCols(h * headDim, headDim) =
                    fused.weight.middleCols(rowOf(part, h, 0), headDim);
            for (qint64 d = 0; d < headDim; ++d) {
                const qint64 row = rowOf(part, h, d);
                if (!fused.inputMajor)
                    t->weight.row(h * headDim + d) = fused.weight.row(row);
                if (fused.bias.size() > 0)
                    t->bias(h * headDim + d) = fused.bias(row);
            }
        }
    }
}

} // namespace

QString ForwardWeights::full(const QString &relative, qint64 index) const
{
    return m_prefix + QString(relative).replace(QLatin1String("%1"), QString::number(index));
}

std::vector<ForwardWeights::Wanted> ForwardWeights::blockTensors(qint64 index) const
{
    const LayerZeroPlan &b = m_plan.base;
    const qint64 hidden = b.hiddenSize, hd = b.headDim, inter = m_plan.intermediate;
    const qint64 qDim = b.heads * hd, kDim = b.kvHeads * hd;
    std::vector<Wanted> out;
    const auto norm = [&](const QString &name, NormKind kind) {
        if (name.isEmpty() || kind == NormKind::None)
            return;
        out.push_back({full(name, index) + QLatin1String(".weight"), {hidden}});
        if (kind == NormKind::LayerNorm)
            out.push_back({full(name, index) + QLatin1String(".bias"), {hidden}});
    };
    const auto lin = [&](const LinearTensor &spec, qint64 rows, qint64 columns) {
        if (spec.name.isEmpty())
            return;
        out.push_back(
            {full(spec.name, index) + QLatin1String(".weight"), linearShape(spec, rows, columns)});
        if (spec.bias)
            out.push_back({full(spec.name, index) + QLatin1String(".bias"), {rows}});
    };
    norm(m_plan.attnNorm, m_plan.norm);
    norm(m_plan.mlpNorm, m_plan.norm);
    norm(m_plan.postAttnNorm, m_plan.norm);
    norm(m_plan.postMlpNorm, m_plan.norm);
    switch (b.layout) {
    case QkvLayout::Separate:
        lin(m_plan.query, qDim, hidden);
        lin(m_plan.key, kDim, hidden);
        lin(m_plan.value, kDim, hidden);
        break;
    case QkvLayout::Conv1dFused:
    case QkvLayout::NeoxPerHead:
        lin(m_plan.query, 3 * qDim, hidden);
        break;
    case QkvLayout::Stacked:
        lin(m_plan.query, qDim + 2 * kDim, hidden);
        break;
    }
    lin(m_plan.output, hidden, qDim);
    if (b.headNorm != NormKind::None) {
        out.push_back({full(m_plan.queryNorm, index), {hd}});
        out.push_back({full(m_plan.keyNorm, index), {hd}});
    }
    if (m_plan.mlp == MlpKind::Plain) {
        lin(m_plan.fcIn, inter, hidden);
        lin(m_plan.fcOut, hidden, inter);
    } else {
        lin(m_plan.gate, m_plan.gateUpFused ? 2 * inter : inter, hidden);
        lin(m_plan.up, inter, hidden);
        lin(m_plan.down, hidden, inter);
    }
    return out;
}

bool ForwardWeights::checkTensor(const Wanted &wanted, QString *error)
{
    if (!m_names.contains(wanted.name)) {
        const QString &quantization = m_plan.base.quantization;
        *error = QStringLiteral("%1 has no tensor %2, which %3 needs%4")
                     .arg(m_tensors.path(), wanted.name, m_plan.base.architecture,
                          quantization.isEmpty()
                              ? QString()
                              : QStringLiteral(" (config.json says the model is quantized: %1; "
                                               "pescope reads unquantized F32, F16 and BF16 "
                                               "weights only)")
                                    .arg(quantization));
        return false;
    }
    const std::optional<TensorInfo> info = m_tensors.find(wanted.name, error);
    if (!info)
        return false;
    const QString unreadable = tensorUnreadableReason(*info);
    if (!unreadable.isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(info->file, unreadable);
        return false;
    }
    const bool anyRows = !wanted.shape.empty() && wanted.shape[0] < 0;
    const bool fits = info->shape.size() == wanted.shape.size() &&
                      std::equal(wanted.shape.begin() + (anyRows ? 1 : 0), wanted.shape.end(),
                                 info->shape.begin() + (anyRows ? 1 : 0)) &&
                      (!anyRows || info->shape[0] >= 1);
    if (!fits) {
        const bool gguf = m_tensors.kind() == ModelSourceKind::Gguf;
        *error = QStringLiteral("%1: tensor %2 has shape %3; %4 implies %5")
                     .arg(info->file, wanted.name, info->shapeString(),
                          gguf ? QStringLiteral("its metadata")
                               : QStringLiteral("config.json (%1)").arg(m_plan.base.source),
                          shapeText(wanted.shape));
        return false;
    }
    return true;
}

bool ForwardWeights::check(QString *error)
{
    const QStringList names = m_tensors.tensorNames();
    m_names = QSet<QString>(names.begin(), names.end());
    const qint64 hidden = m_plan.base.hiddenSize;
    for (qint64 i = 0; i < m_plan.layers; ++i)
        for (const Wanted &w : blockTensors(i))
            if (!checkTensor(w, error))
                return false;
    if (m_plan.finalNorm != NormKind::None) {
        const QString name = m_prefix + m_plan.finalNormName;
        if (!checkTensor({name + QLatin1String(".weight"), {hidden}}, error) ||
            (m_plan.finalNorm == NormKind::LayerNorm &&
             !checkTensor({name + QLatin1String(".bias"), {hidden}}, error)))
            return false;
    }
    m_outputName = m_plan.tied ? m_prefix + m_plan.base.embedTensor : m_plan.lmHead;
    if (m_outputName.isEmpty())
        return true; // no logits
    if (!m_plan.tied && !m_names.contains(m_outputName)) {
        // A checkpoint saved from a wrapper ("language_model.lm_head.weight"): the shortest
        // name that ends in the output matrix's.
        for (const QString &name : m_names)
            if (name.endsWith(QLatin1Char('.') + m_plan.lmHead) &&
                (!m_names.contains(m_outputName) || name.size() < m_outputName.size()))
                m_outputName = name;
    }
    if (!checkTensor({m_outputName, {-1, hidden}}, error))
        return false;
    const std::optional<TensorInfo> info = m_tensors.find(m_outputName, error);
    if (!info)
        return false;
    m_outputRows = info->rowCount();
    return true;
}

namespace {

// NaN and infinity have every exponent bit set: an integer test the compiler vectorises (a
// layer's weights are scanned on every pass).
qint64 notFinite(const float *values, qint64 count)
{
    qint64 bad = 0;
    for (qint64 first = 0; first < count; first += qint64(1) << 20) {
        const qint64 last = std::min(count, first + (qint64(1) << 20));
        quint32 inChunk = 0;
        for (qint64 i = first; i < last; ++i)
            inChunk += (std::bit_cast<quint32>(values[i]) & 0x7f800000u) == 0x7f800000u ? 1 : 0;
        bad += inChunk;
    }
    return bad;
}

void warnNotFinite(const QString &name, qint64 bad, QStringList *warnings)
{
    if (bad > 0)
        *warnings += QStringLiteral("%1 has %2 not finite (NaN or infinity): every result "
                                    "from this layer on is meaningless")
                         .arg(name, bad == 1 ? QStringLiteral("1 value that is")
                                             : QStringLiteral("%1 values that are").arg(bad));
}

} // namespace

bool ForwardWeights::read(const QString &name, std::vector<float> *out, QStringList *warnings,
                          QString *error)
{
    if (!m_tensors.readRows(name, 0, -1, out, error))
        return false;
    m_tensors.releaseRows(name); // widened: the mapped bytes are not needed until the next pass
    warnNotFinite(name, notFinite(out->data(), qint64(out->size())), warnings);
    return true;
}

bool ForwardWeights::readMatrix(const QString &name, qint64 rows, qint64 columns, RowMatrix *out,
                                QStringList *warnings, QString *error)
{
    // Streamed into the matrix a megabyte at a time (F32 straight from the mapped file, other
    // types converted a chunk at a time): one pass over the layer's float32 bytes, not three.
    out->resize(rows, columns);
    qint64 done = 0, bad = 0;
    const auto sink = [&](const float *values, qint64 count) {
        if (count > out->size() - done) {
            *error = QStringLiteral("%1 holds more values than its shape").arg(name);
            return false;
        }
        std::copy_n(values, count, out->data() + done);
        bad += notFinite(values, count);
        done += count;
        return true;
    };
    if (!m_tensors.streamRows(name, sink, error, qint64(1) << 20))
        return false;
    // Widened into the layer's float32 weights: the mapped bytes leave the resident memory, so
    // that the pass holds one layer of them, not every layer it has read.
    m_tensors.releaseRows(name);
    if (done != out->size()) {
        *error = QStringLiteral("%1 holds fewer values than its shape").arg(name);
        return false;
    }
    warnNotFinite(name, bad, warnings);
    return true;
}

bool ForwardWeights::readLinear(const QString &name, const LinearTensor &spec, qint64 rows,
                                qint64 columns, Projection *out, QStringList *warnings,
                                QString *error)
{
    // Conv1D stores in x out (y = x @ W + b): kept so, the products read it as it is.
    out->inputMajor = spec.conv1d;
    if (!readMatrix(name + QLatin1String(".weight"), spec.conv1d ? columns : rows,
                    spec.conv1d ? rows : columns, &out->weight, warnings, error))
        return false;
    out->bias.resize(0);
    if (!spec.bias)
        return true;
    std::vector<float> values;
    if (!read(name + QLatin1String(".bias"), &values, warnings, error))
        return false;
    out->bias = Eigen::Map<const Eigen::VectorXf>(values.data(), rows);
    return true;
}

bool ForwardWeights::readNorm(const QString &name, NormKind kind, NormWeights *out,
                              QStringList *warnings, QString *error)
{
    if (name.isEmpty() || kind == NormKind::None)
        return true;
    return read(name + QLatin1String(".weight"), &out->weight, warnings, error) &&
           (kind != NormKind::LayerNorm ||
            read(name + QLatin1String(".bias"), &out->bias, warnings, error));
}

bool ForwardWeights::readAttention(qint64 i, BlockWeights *out, QStringList *warnings,
                                   QString *error)
{
    const LayerZeroPlan &b = m_plan.base;
    const qint64 hidden = b.hiddenSize, hd = b.headDim;
    const qint64 qDim = b.heads * hd, kDim = b.kvHeads * hd;
    const QString q = full(m_plan.query.name, i);
    switch (b.layout) {
    case QkvLayout::Separate:
        if (!readLinear(q, m_plan.query, qDim, hidden, &out->query, warnings, error) ||
            !readLinear(full(m_plan.key.name, i), m_plan.key, kDim, hidden, &out->key, warnings,
                        error) ||
            !readLinear(full(m_plan.value.name, i), m_plan.value, kDim, hidden, &out->value,
                        warnings, error))
            return false;
        if (b.ggufRopePermuted) {
            unpermuteGgufRope(&out->query, b.heads, hd);
            unpermuteGgufRope(&out->key, b.kvHeads, hd);
        }
        break;
    case QkvLayout::Conv1dFused:
    case QkvLayout::NeoxPerHead:
    case QkvLayout::Stacked: {
        const qint64 rows = b.layout == QkvLayout::Stacked ? qDim + 2 * kDim : 3 * qDim;
        Projection fused;
        if (!readLinear(q, m_plan.query, rows, hidden, &fused, warnings, error))
            return false;
        if (b.layout == QkvLayout::NeoxPerHead) // view(L, heads, 3 * head_size).chunk(3)
            splitFused(
                fused, b.heads, b.kvHeads, hd,
                [&](qint64 part, qint64 h, qint64 d) { return (3 * h + part) * hd + d; },
                &out->query, &out->key, &out->value);
        else // [all q | all k | all v]
            splitFused(
                fused, b.heads, b.kvHeads, hd,
                [&](qint64 part, qint64 h, qint64 d) {
                    return (part == 0 ? 0 : qDim + (part - 1) * kDim) + h * hd + d;
                },
                &out->query, &out->key, &out->value);
        break;
    }
    }
    if (!readLinear(full(m_plan.output.name, i), m_plan.output, hidden, qDim, &out->output,
                    warnings, error))
        return false;
    return b.headNorm == NormKind::None ||
           (read(full(m_plan.queryNorm, i), &out->queryNorm, warnings, error) &&
            read(full(m_plan.keyNorm, i), &out->keyNorm, warnings, error));
}

bool ForwardWeights::readMlp(qint64 i, BlockWeights *out, QStringList *warnings, QString *error)
{
    const qint64 hidden = m_plan.base.hiddenSize, inter = m_plan.intermediate;
    if (m_plan.mlp == MlpKind::Plain)
        return readLinear(full(m_plan.fcIn.name, i), m_plan.fcIn, inter, hidden, &out->fcIn,
                          warnings, error) &&
               readLinear(full(m_plan.fcOut.name, i), m_plan.fcOut, hidden, inter, &out->fcOut,
                          warnings, error);
    if (m_plan.gateUpFused) { // Phi3MLP: gate, up_states = gate_up_proj(x).chunk(2, dim=-1)
        Projection fused;
        if (!readLinear(full(m_plan.gate.name, i), m_plan.gate, 2 * inter, hidden, &fused, warnings,
                        error))
            return false;
        out->gate.weight = fused.weight.topRows(inter);
        out->up.weight = fused.weight.bottomRows(inter);
    } else if (!readLinear(full(m_plan.gate.name, i), m_plan.gate, inter, hidden, &out->gate,
                           warnings, error) ||
               !readLinear(full(m_plan.up.name, i), m_plan.up, inter, hidden, &out->up, warnings,
                           error)) {
        return false;
    }
    return readLinear(full(m_plan.down.name, i), m_plan.down, hidden, inter, &out->down, warnings,
                      error);
}

bool ForwardWeights::load(qint64 i, BlockWeights *out, QStringList *warnings, QString *error)
{
    const auto norm = [&](const QString &name, NormWeights *target) {
        return name.isEmpty() || readNorm(full(name, i), m_plan.norm, target, warnings, error);
    };
    return norm(m_plan.attnNorm, &out->attnNorm) && norm(m_plan.mlpNorm, &out->mlpNorm) &&
           norm(m_plan.postAttnNorm, &out->postAttnNorm) &&
           norm(m_plan.postMlpNorm, &out->postMlpNorm) && readAttention(i, out, warnings, error) &&
           readMlp(i, out, warnings, error);
}

bool ForwardWeights::loadFinalNorm(NormWeights *out, QString *error)
{
    QStringList warnings;
    return readNorm(m_prefix + m_plan.finalNormName, m_plan.finalNorm, out, &warnings, error);
}

} // namespace pe
