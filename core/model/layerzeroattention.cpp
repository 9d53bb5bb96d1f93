#include "model/layerzeroattention.h"

#include "model/layerzeronorms.h"
#include "rope/ropetables.h"

#include <cmath>
#include <limits>

namespace pe {

namespace {

// nn.Linear: x @ W^T + b.
RowMatrix project(const RowMatrix &x, const Projection &projection)
{
    RowMatrix y = x * projection.weight.transpose();
    if (projection.bias.size() > 0)
        y.rowwise() += projection.bias.transpose();
    return y;
}

} // namespace

void normHeads(NormKind kind, const std::vector<float> &weight, double eps, qint64 headDim,
               RowMatrix *m)
{
    const NormWeights norm{weight, {}};
    for (qint64 p = 0; p < m->rows(); ++p)
        for (qint64 h = 0; h < m->cols() / headDim; ++h)
            applyNorm(kind, norm, eps, m->row(p).data() + h * headDim, headDim);
}

namespace {

// apply_rotary_pos_emb: x * cos + rotate_half(x) * sin on the first `cos.columns` values of each
// head (partial rotary passes the rest through); rotate_half pairs c with c +- n/2, GPT-J's
// interleaved layout pairs 2i with 2i + 1.
void rotateHeads(const RopeTable &cos, const RopeTable &sin, RopePairing pairing, qint64 headDim,
                 RowMatrix *m)
{
    const qint64 n = cos.columns, half = n / 2;
    std::vector<float> x(std::size_t(n), 0.0f);
    for (qint64 p = 0; p < m->rows(); ++p) {
        for (qint64 h = 0; h < m->cols() / headDim; ++h) {
            float *values = m->row(p).data() + h * headDim;
            std::copy(values, values + n, x.begin());
            for (qint64 c = 0; c < n; ++c) {
                float partner = 0;
                if (pairing == RopePairing::Half)
                    partner = c < half ? -x[std::size_t(c + half)] : x[std::size_t(c - half)];
                else
                    partner = c % 2 == 0 ? -x[std::size_t(c + 1)] : x[std::size_t(c - 1)];
                values[c] = float(x[std::size_t(c)] * cos.at(p, c) + partner * sin.at(p, c));
            }
        }
    }
}

} // namespace

bool rotateQueryKey(const LayerZeroPlan &plan, RowMatrix *query, RowMatrix *key, QString *error)
{
    // The rotary embedding's forward for position_ids 0..L-1 (dynamic and longrope see
    // seq_len = L, as dynamic_rope_update passes max(position_ids) + 1).
    std::vector<double> positions(std::size_t(query->rows()));
    for (std::size_t p = 0; p < positions.size(); ++p)
        positions[p] = double(p);
    return rotateQueryKeyAt(plan, positions, query->rows(), query, key, error);
}

bool rotateQueryKeyAt(const LayerZeroPlan &plan, std::span<const double> positions,
                      qint64 sequenceLength, RowMatrix *query, RowMatrix *key, QString *error)
{
    RopeConfig config = plan.rope;
    config.sequenceLength = sequenceLength;
    const RopeTable cos =
        ropeTableAt(plan.ropeHeadDim, config, RopeTableKind::Cos, positions, true);
    const RopeTable sin =
        ropeTableAt(plan.ropeHeadDim, config, RopeTableKind::Sin, positions, true);
    if (cos.values.empty() || cos.columns > plan.headDim || cos.columns % 2 != 0) {
        *error = QStringLiteral("%1: layer 0's rotary tables (%2 columns) do not fit its heads "
                                "of %3 dims")
                     .arg(plan.source)
                     .arg(cos.columns)
                     .arg(plan.headDim);
        return false;
    }
    rotateHeads(cos, sin, config.pairing, plan.headDim, query);
    rotateHeads(cos, sin, config.pairing, plan.headDim, key);
    return true;
}

void headProbabilities(const LayerZeroPlan &plan, const RowMatrix &scores, float *out)
{
    const qint64 tokens = scores.rows();
    std::vector<double> row(static_cast<std::size_t>(tokens));
    for (qint64 i = 0; i < tokens; ++i) {
        double maximum = -std::numeric_limits<double>::infinity();
        for (qint64 j = 0; j < tokens; ++j) {
            // Causal mask; sliding_window_overlay: kv_idx > q_idx - sliding_window.
            const bool seen = (!plan.causal || j <= i) && (plan.window <= 0 || i - j < plan.window);
            float v = scores(i, j);
            if (plan.scalingKind == ScoreScaling::MultiplyScores)
                v = float(v * plan.scaling);
            else if (plan.scalingKind == ScoreScaling::DivideScores)
                v = float(v / plan.scaling);
            if (plan.softcap > 0) // Gemma2's eager_attention_forward: tanh(w / cap) * cap
                v = float(std::tanh(v / plan.softcap) * plan.softcap);
            row[std::size_t(j)] = seen ? v : -std::numeric_limits<double>::infinity();
            maximum = std::max(maximum, row[std::size_t(j)]);
        }
        double sum = 0;
        for (double &v : row) {
            v = std::isinf(v) ? 0.0 : std::exp(v - maximum);
            sum += v;
        }
        for (qint64 j = 0; j < tokens; ++j)
            out[i * tokens + j] = float(row[std::size_t(j)] / sum);
    }
}

bool layerZeroProbabilities(const LayerZeroPlan &plan, const LayerZeroWeights &weights,
                            const RowMatrix &hidden, bool withPositions, std::vector<float> *out,
                            QString *error)
{
    const qint64 tokens = hidden.rows(), headDim = plan.headDim;
    RowMatrix x = hidden;
    for (qint64 p = 0; p < tokens; ++p)
        applyNorm(plan.inputNorm, weights.inputNorm, plan.normEps, x.row(p).data(), x.cols());
    RowMatrix query = project(x, weights.query);
    RowMatrix key = project(x, weights.key);
    if (plan.scalingKind == ScoreScaling::MultiplyQuery)
        query *= float(plan.scaling);
    if (plan.headNorm != NormKind::None) {
        normHeads(plan.headNorm, weights.queryNorm, plan.normEps, headDim, &query);
        normHeads(plan.headNorm, weights.keyNorm, plan.normEps, headDim, &key);
    }
    if (withPositions && plan.layer.position == LayerPositionKind::Rope &&
        !rotateQueryKey(plan, &query, &key, error))
        return false;
    out->assign(std::size_t(plan.heads * tokens * tokens), 0.0f);
    const qint64 group = plan.heads / plan.kvHeads; // repeat_kv: head h reads key head h / group
    for (qint64 h = 0; h < plan.heads; ++h) {
        const RowMatrix scores = query.middleCols(h * headDim, headDim) *
                                 key.middleCols((h / group) * headDim, headDim).transpose();
        headProbabilities(plan, scores, out->data() + h * tokens * tokens);
    }
    return true;
}

} // namespace pe
