#include "model/embeddinglayer.h"

#include "model/layerzeronorms.h"

#include <algorithm>
#include <cmath>

namespace pe {

std::vector<qint64> positionRows(const LayerZeroPlan &plan, std::span<const int> ids, qint64 shift)
{
    std::vector<qint64> rows(ids.size());
    qint64 count = 0;
    for (std::size_t p = 0; p < ids.size(); ++p) {
        if (plan.paddingPositions) {
            // RobertaEmbeddings: create_position_ids_from_input_ids(input_ids, padding_idx):
            // cumsum(input_ids != padding_idx) * mask + padding_idx.
            const bool padding = ids[p] == plan.paddingIdx;
            count += padding ? 0 : 1;
            rows[p] = (padding ? 0 : count) + plan.paddingIdx + shift;
        } else {
            rows[p] = qint64(p) + plan.positionOffset + shift;
        }
    }
    return rows;
}

TensorDType embeddingDType(const LayerZeroPlan &plan, const LayerZeroWeights &weights)
{
    if (plan.dtype == QLatin1String("float16"))
        return TensorDType::F16;
    if (plan.dtype == QLatin1String("bfloat16"))
        return TensorDType::BF16;
    if (plan.dtype == QLatin1String("float32"))
        return TensorDType::F32;
    return weights.tableType;
}

namespace {

// Adds rows of `tensor` (the position table, chosen by `rows`) to `out`, rounding each sum.
bool addTableRows(ModelTensors &tensors, const QString &tensor, const std::vector<qint64> &rows,
                  TensorDType dtype, RowMatrix *out, QString *error)
{
    const auto [low, high] = std::minmax_element(rows.begin(), rows.end());
    std::vector<float> table;
    if (!tensors.readRows(tensor, *low, *high - *low + 1, &table, error))
        return false;
    const qint64 columns = out->cols();
    for (qint64 p = 0; p < out->rows(); ++p) {
        const float *row = table.data() + (rows[std::size_t(p)] - *low) * columns;
        for (qint64 c = 0; c < columns; ++c)
            (*out)(p, c) = roundToDType((*out)(p, c) + row[c], dtype);
    }
    return true;
}

} // namespace

bool embeddingOutput(const LayerZeroPlan &plan, const LayerZeroWeights &weights,
                     ModelTensors &tensors, std::span<const int> ids, bool withPositions,
                     RowMatrix *out, QString *error, qint64 shift)
{
    const qint64 tokens = qint64(ids.size());
    const TensorDType dtype = embeddingDType(plan, weights);
    // nn.Embedding: the rows of the token table (exact in any dtype).
    RowMatrix tokenRows(tokens, plan.embedDim);
    std::vector<float> row;
    for (qint64 p = 0; p < tokens; ++p) {
        if (!tensors.readRows(weights.embedTensor, ids[std::size_t(p)], 1, &row, error))
            return false;
        for (qint64 c = 0; c < plan.embedDim; ++c)
            tokenRows(p, c) = roundToDType(row[std::size_t(c)], dtype);
    }
    if (weights.projectIn.size() > 0) { // OPTDecoder: inputs_embeds = self.project_in(...)
        const RowMatrix projected = tokenRows * weights.projectIn.transpose();
        *out = projected.unaryExpr([&](float v) { return roundToDType(v, dtype); });
    } else {
        *out = std::move(tokenRows);
    }
    switch (plan.embedding) {
    case EmbeddingKind::Plain:
        return true;
    case EmbeddingKind::Scaled: {
        // GemmaModel.forward: normalizer = torch.tensor(hidden_size**0.5, dtype=hidden.dtype);
        // Gemma3TextScaledWordEmbedding: embed_scale.to(weight.dtype). In bfloat16,
        // sqrt(3072) = 55.43 becomes 55.5; the product is rounded again.
        const float normalizer = roundToDType(float(std::sqrt(double(plan.hiddenSize))), dtype);
        *out = out->unaryExpr([&](float v) { return roundToDType(v * normalizer, dtype); });
        return true;
    }
    case EmbeddingKind::Gpt2: // GPT2Model.forward: inputs_embeds + position_embeds
    case EmbeddingKind::Opt:  // OPTDecoder.forward: inputs_embeds + pos_embeds
        return !withPositions || addTableRows(tensors, weights.positionTensor,
                                              positionRows(plan, ids, shift), dtype, out, error);
    case EmbeddingKind::Bert: {
        // BertEmbeddings.forward: (inputs_embeds + token_type_embeddings) + position_embeddings,
        // then LayerNorm (token_type_ids default to zeros).
        for (qint64 p = 0; p < tokens; ++p)
            for (qint64 c = 0; c < plan.hiddenSize; ++c)
                (*out)(p, c) =
                    roundToDType((*out)(p, c) + weights.tokenTypeRow[std::size_t(c)], dtype);
        if (withPositions && !addTableRows(tensors, weights.positionTensor,
                                           positionRows(plan, ids, shift), dtype, out, error))
            return false;
        for (qint64 p = 0; p < tokens; ++p) {
            applyNorm(NormKind::LayerNorm, weights.embedNorm, plan.embeddingEps, out->row(p).data(),
                      plan.hiddenSize);
            for (qint64 c = 0; c < plan.hiddenSize; ++c)
                (*out)(p, c) = roundToDType((*out)(p, c), dtype);
        }
        return true;
    }
    }
    return true;
}

} // namespace pe
