#include "model/layerzero.h"

#include "formats/hfcache.h"
#include "formats/modeltensors.h"
#include "formats/safejson.h"
#include "io/userfile.h"
#include "model/embeddinglayer.h"
#include "model/ggufmodel.h"
#include "model/layerzeroattention.h"
#include "model/layerzeroplan.h"
#include "model/layerzeroweights.h"
#include "model/safetensorsmodel.h"
#include "rope/ropefrequencies.h"

#include <algorithm>
#include <cmath>

namespace pe {

struct LayerZero::Data
{
    LayerZeroPlan plan;
    ModelTensors tensors;
    LayerZeroWeights weights;
};

LayerZero::LayerZero() : d(std::make_unique<Data>()) {}
LayerZero::~LayerZero() = default;

namespace {

bool allFinite(const std::vector<float> &values)
{
    return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

} // namespace

std::unique_ptr<LayerZero> LayerZero::open(const QString &model, QString *error, int layer)
{
    const std::optional<SafetensorsModel> files =
        openSafetensorsModel(model, QStringLiteral("layer 0"), error);
    if (!files)
        return nullptr;
    std::optional<LayerZeroPlan> plan = layerZeroPlan(files->json, files->config, layer, error);
    if (!plan)
        return nullptr;
    if (files->location.kind == ModelSourceKind::Gguf)
        useGgufNames(&*plan);
    std::unique_ptr<LayerZero> out(new LayerZero());
    out->d->plan = std::move(*plan);
    if (!out->d->tensors.open(files->location, error) ||
        !loadLayerZeroWeights(out->d->plan, out->d->tensors, &out->d->weights, error))
        return nullptr;
    return out;
}

QString LayerZero::architecture() const
{
    return d->plan.architecture;
}

QString LayerZero::modelType() const
{
    return d->plan.modelType;
}

qint64 LayerZero::hiddenSize() const
{
    return d->plan.hiddenSize;
}

qint64 LayerZero::heads() const
{
    return d->plan.heads;
}

qint64 LayerZero::vocabularyRows() const
{
    return d->weights.vocabRows;
}

qint64 LayerZero::maxTokens() const
{
    const LayerZeroPlan &plan = d->plan;
    qint64 tokens = limits::maxLayerZeroTokens;
    if (plan.learnedPositions) {
        // The last position's row must exist: p + offset (RoBERTa: padding_idx + L).
        const qint64 before = plan.paddingPositions ? plan.paddingIdx + 1 : plan.positionOffset;
        tokens = std::min(tokens, d->weights.positionRows - before);
    }
    return std::max<qint64>(tokens, 0);
}

LayerPositionKind LayerZero::positionKind() const
{
    return d->plan.learnedPositions ? LayerPositionKind::Absolute : d->plan.layer.position;
}

QString LayerZero::positionsText() const
{
    const LayerZeroPlan &plan = d->plan;
    if (plan.learnedPositions)
        return QStringLiteral("learned table %1, added at the input")
            .arg(d->weights.positionTensor);
    if (plan.layer.position == LayerPositionKind::NoPE)
        return QStringLiteral("NoPE (layer 0 does not rotate)");
    if (plan.layer.position != LayerPositionKind::Rope)
        return QStringLiteral("none");
    return QStringLiteral("RoPE (%1, θ %2) on %3 of %4 dims per head")
        .arg(ropeTypeName(plan.rope.ropeType), QString::number(plan.rope.ropeTheta, 'g', 12))
        .arg(ropeRotaryDims(plan.ropeHeadDim, plan.rope))
        .arg(plan.headDim);
}

bool LayerZero::checkIds(std::span<const int> ids, QString *error) const
{
    if (ids.empty()) {
        *error = QStringLiteral("the phrase has no tokens");
        return false;
    }
    if (qint64(ids.size()) > maxTokens()) {
        *error = QStringLiteral("the phrase has %1 tokens; layer 0 of %2 is computed for at most "
                                "%3%4")
                     .arg(ids.size())
                     .arg(d->plan.architecture)
                     .arg(maxTokens())
                     .arg(maxTokens() < limits::maxLayerZeroTokens
                              ? QStringLiteral(" (the positions its table holds)")
                              : QString());
        return false;
    }
    // Every intermediate is tokens x (one of these): bounded like the attention it leads to.
    const LayerZeroPlan &plan = d->plan;
    const qint64 widest =
        std::max({plan.embedDim, plan.hiddenSize, (plan.heads + plan.kvHeads) * plan.headDim});
    if (qint64(ids.size()) * widest > limits::maxLayerZeroAttentionValues) {
        *error = QStringLiteral("%1 tokens x %2 values per token is more than pescope holds (%3 "
                                "values)")
                     .arg(ids.size())
                     .arg(widest)
                     .arg(limits::maxLayerZeroAttentionValues);
        return false;
    }
    for (std::size_t p = 0; p < ids.size(); ++p) {
        if (ids[p] < 0 || ids[p] >= d->weights.vocabRows) {
            *error = QStringLiteral("token id %1 (token %2) is outside %3's %4 rows")
                         .arg(ids[p])
                         .arg(p)
                         .arg(d->weights.embedTensor)
                         .arg(d->weights.vocabRows);
            return false;
        }
    }
    return true;
}

std::optional<LayerZeroArray> LayerZero::embeddings(std::span<const int> ids, bool withPositions,
                                                    QString *error)
{
    RowMatrix hidden;
    if (!checkIds(ids, error) ||
        !embeddingOutput(d->plan, d->weights, d->tensors, ids, withPositions, &hidden, error))
        return std::nullopt;
    LayerZeroArray out;
    out.shape = {hidden.rows(), hidden.cols()};
    out.values.assign(hidden.data(), hidden.data() + hidden.size());
    if (!allFinite(out.values))
        out.warnings = nonFiniteCauses(ids, withPositions);
    return out;
}

std::optional<LayerZeroArray> LayerZero::attention(std::span<const int> ids, bool withPositions,
                                                   QString *error)
{
    if (!checkIds(ids, error))
        return std::nullopt;
    const qint64 tokens = qint64(ids.size());
    if (d->plan.heads * tokens * tokens > limits::maxLayerZeroAttentionValues) {
        *error = QStringLiteral("%1 heads x %2 x %2 tokens is more attention than pescope holds "
                                "(%3 values)")
                     .arg(d->plan.heads)
                     .arg(tokens)
                     .arg(limits::maxLayerZeroAttentionValues);
        return std::nullopt;
    }
    RowMatrix hidden;
    LayerZeroArray out;
    if (!embeddingOutput(d->plan, d->weights, d->tensors, ids, withPositions, &hidden, error) ||
        !layerZeroProbabilities(d->plan, d->weights, hidden, withPositions, &out.values, error))
        return std::nullopt;
    out.shape = {d->plan.heads, tokens, tokens};
    if (!allFinite(out.values))
        out.warnings = nonFiniteCauses(ids, withPositions);
    return out;
}

QStringList LayerZero::nonFiniteCauses(std::span<const int> ids, bool withPositions)
{
    QStringList causes = d->weights.nonFinite;
    // The rows of the tables this phrase read (only those are ever read from a large table).
    const auto badRows = [&](const QString &tensor, const std::vector<qint64> &rows,
                             const QString &what) {
        QStringList found;
        std::vector<float> row;
        QString ignored; // these rows were read once already for the result
        for (std::size_t p = 0; p < rows.size(); ++p) {
            if (found.size() >= 8)
                break;
            if (d->tensors.readRows(tensor, rows[p], 1, &row, &ignored) && !allFinite(row) &&
                !found.contains(QString::number(rows[p])))
                found.append(QString::number(rows[p]));
        }
        if (!found.isEmpty())
            causes.append(QStringLiteral("%1 holds NaN or infinite values in the rows this "
                                         "phrase reads (%2 %3)")
                              .arg(tensor, what, found.join(QStringLiteral(", "))));
    };
    badRows(d->weights.embedTensor, std::vector<qint64>(ids.begin(), ids.end()),
            QStringLiteral("token ids"));
    if (withPositions && d->plan.learnedPositions)
        badRows(d->weights.positionTensor, positionRows(d->plan, ids), QStringLiteral("rows"));
    if (causes.isEmpty())
        causes.append(QStringLiteral("layer 0 of %1 gives NaN or infinite values from finite "
                                     "weights (a value beyond float32's range on the way)")
                          .arg(d->plan.architecture));
    return causes;
}

} // namespace pe
