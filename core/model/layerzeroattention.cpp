#include "model/layerzeroattention.h"

#include "model/layerzeronorms.h"
#include "model/torchmath.h"
#include "rope/ropetables.h"

#include <cmath>
#include <limits>
#include <numbers>

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

// The rotary embedding's forward as transformers computes it, in float32 throughout: inv_freq is
// a float32 tensor, freqs = inv_freq @ position_ids.float() (one float32 product per entry),
// emb = cat(freqs, freqs) (interleaved: repeat_interleave), cos = emb.cos() *
// attention_scaling, each step rounded to float32. The angle's rounding matters: at position 40
// a frequency near 0.2 turns by about 8 radians, whose float32 rounding (up to 5e-7) moves cos
// and sin ten times more than one rounding of the values they turn; large attention scores pass
// that on to the probabilities (about 1e-5 in llama-tiny4's fourth layer, tst_forwardpass), so
// pescope rounds as transformers does rather than computing the angle in float64.
struct FloatRope
{
    qint64 columns = 0;
    std::vector<float> cos; // rows x columns, HF's layout
    std::vector<float> sin;
};

// base ** (torch.arange(0, dim, 2).float() / dim) in float32: the exponent a float32 quotient,
// the power of float32(base) rounded (torch.pow).
std::vector<float> floatPowers(double base, qint64 dim, std::size_t count)
{
    std::vector<float> powers(count);
    const auto b = double(float(base));
    for (std::size_t k = 0; k < count; ++k) {
        const float exponent = float(2 * k) / float(dim);
        powers[k] = float(std::pow(b, double(exponent)));
    }
    return powers;
}

// 1.0 / base ** (...): the default inv_freq, the reciprocal rounded too.
std::vector<float> floatDefaultFrequencies(double base, qint64 dim, std::size_t count)
{
    std::vector<float> inv = floatPowers(base, dim, count);
    for (float &f : inv)
        f = 1.0f / f;
    return inv;
}

// _compute_llama3_parameters on float32 tensors, each operation rounded as torch rounds it
// (`2 * math.pi / inv_freq` is inv_freq.reciprocal() * 2 pi; a Python number meets a float32
// tensor as a float32).
void floatLlama3(const RopeConfig &config, std::vector<float> *inv)
{
    const auto factor = float(ropeEffectiveFactor(config).value_or(1.0));
    const auto low = float(config.lowFreqFactor), high = float(config.highFreqFactor);
    const auto old = float(config.originalMaxPositionEmbeddings);
    const auto lowWavelen =
        float(double(config.originalMaxPositionEmbeddings) / config.lowFreqFactor);
    const auto highWavelen =
        float(double(config.originalMaxPositionEmbeddings) / config.highFreqFactor);
    const auto twoPi = float(2.0 * std::numbers::pi);
    for (float &f : *inv) {
        const float wavelen = (1.0f / f) * twoPi;
        const float llama = wavelen > lowWavelen ? f / factor : f;
        const bool medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
        if (medium) {
            const float smooth = ((1.0f / wavelen) * old - low) / (high - low);
            const float kept = ((1.0f - smooth) * llama) / factor;
            const float moved = smooth * llama;
            f = kept + moved;
        } else {
            f = llama;
        }
    }
}

// inv_freq as the float32 tensor transformers holds: the default, linear, dynamic and llama3
// rules step by step in float32; the others (yarn, longrope, ...) as pescope's float64 values
// rounded to float32, which can differ from torch's in the last bit.
std::vector<float> floatFrequencies(qint64 headDim, const RopeConfig &config,
                                    const std::vector<double> &theta)
{
    const qint64 dim = ropeRotaryDims(headDim, config);
    switch (config.ropeType) {
    case RopeType::Default:
        return floatDefaultFrequencies(config.ropeTheta, dim, theta.size());
    case RopeType::Linear: {
        std::vector<float> inv = floatDefaultFrequencies(config.ropeTheta, dim, theta.size());
        const auto factor = float(ropeEffectiveFactor(config).value_or(1.0));
        for (float &f : inv)
            f = f / factor;
        return inv;
    }
    case RopeType::Dynamic:
        return floatDefaultFrequencies(ropeDynamicBase(headDim, config), dim, theta.size());
    case RopeType::Llama3: {
        std::vector<float> inv = floatDefaultFrequencies(config.ropeTheta, dim, theta.size());
        floatLlama3(config, &inv);
        return inv;
    }
    case RopeType::Longrope: { // 1.0 / (ext_factors * base ** inv_freq_shape), float32
        const std::vector<double> &ext =
            ropeUsesLongFactors(config) ? config.longFactor : config.shortFactor;
        std::vector<float> inv = floatPowers(config.ropeTheta, dim, theta.size());
        if (ext.empty())
            break;
        for (std::size_t k = 0; k < inv.size(); ++k) {
            const auto factor = float(ext.size() == 1 ? ext[0] : ext[k]);
            inv[k] = 1.0f / (factor * inv[k]);
        }
        return inv;
    }
    case RopeType::Yarn:
    case RopeType::Proportional:
    case RopeType::Ntk:
        break;
    }
    std::vector<float> inv(theta.size());
    for (std::size_t k = 0; k < theta.size(); ++k)
        inv[k] = float(theta[k]);
    return inv;
}

FloatRope floatRope(qint64 headDim, const RopeConfig &config, std::span<const double> positions)
{
    const RopeFrequencies frequencies = ropeInverseFrequencies(headDim, config);
    const std::vector<double> &theta = frequencies.inverseFrequencies;
    FloatRope out;
    if (theta.empty())
        return out;
    const std::vector<float> inv = floatFrequencies(headDim, config, theta);
    const qint64 count = qint64(theta.size());
    out.columns = 2 * count;
    const auto scaling = float(frequencies.attentionFactor);
    out.cos.resize(positions.size() * std::size_t(out.columns));
    out.sin.resize(out.cos.size());
    for (std::size_t r = 0; r < positions.size(); ++r) {
        const auto position = float(positions[r]);
        for (qint64 c = 0; c < out.columns; ++c) {
            const RopeColumn column = ropeTableColumn(RopeTableKind::Cos, config.pairing, count, c);
            const float angle = position * inv[std::size_t(column.pair)];
            const std::size_t at = r * std::size_t(out.columns) + std::size_t(c);
            out.cos[at] = std::cos(angle) * scaling;
            out.sin[at] = std::sin(angle) * scaling;
        }
    }
    return out;
}

// apply_rotary_pos_emb: (x * cos) + (rotate_half(x) * sin) on the first `rope.columns` values of
// each head (partial rotary passes the rest through), each product and the sum rounded to
// float32 as torch's separate multiplications and addition round them; rotate_half pairs c with
// c +- n/2, GPT-J's interleaved layout pairs 2i with 2i + 1.
void rotateHeads(const FloatRope &rope, RopePairing pairing, qint64 headDim, RowMatrix *m)
{
    const qint64 n = rope.columns, half = n / 2;
    std::vector<float> x(std::size_t(n), 0.0f);
    for (qint64 p = 0; p < m->rows(); ++p) {
        const float *cos = rope.cos.data() + p * n;
        const float *sin = rope.sin.data() + p * n;
        for (qint64 h = 0; h < m->cols() / headDim; ++h) {
            float *values = m->row(p).data() + h * headDim;
            std::copy(values, values + n, x.begin());
            for (qint64 c = 0; c < n; ++c) {
                float partner = 0;
                if (pairing == RopePairing::Half)
                    partner = c < half ? -x[std::size_t(c + half)] : x[std::size_t(c - half)];
                else
                    partner = c % 2 == 0 ? -x[std::size_t(c + 1)] : x[std::size_t(c - 1)];
                const float turned = x[std::size_t(c)] * cos[c];
                const float across = partner * sin[c];
                values[c] = turned + across;
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
    const FloatRope rope = floatRope(plan.ropeHeadDim, config, positions);
    if (rope.cos.empty() || rope.columns > plan.headDim || rope.columns % 2 != 0) {
        *error = QStringLiteral("%1: layer 0's rotary tables (%2 columns) do not fit its heads "
                                "of %3 dims")
                     .arg(plan.source)
                     .arg(rope.columns)
                     .arg(plan.headDim);
        return false;
    }
    rotateHeads(rope, config.pairing, plan.headDim, query);
    rotateHeads(rope, config.pairing, plan.headDim, key);
    return true;
}

namespace {

// One row's scores as eager_attention_forward turns them before the softmax: times (or over)
// the scaling as a float32, then soft-capped (Gemma2: tanh(w / cap) * cap).
void scaleScores(const LayerZeroPlan &plan, const float *in, float *out, qint64 n)
{
    const auto scaling = float(plan.scaling);
    switch (plan.scalingKind) {
    case ScoreScaling::MultiplyScores:
        for (qint64 j = 0; j < n; ++j)
            out[j] = in[j] * scaling;
        break;
    case ScoreScaling::DivideScores:
        for (qint64 j = 0; j < n; ++j)
            out[j] = in[j] / scaling;
        break;
    case ScoreScaling::MultiplyQuery: // the query was scaled
        std::copy(in, in + n, out);
    }
    if (plan.softcap > 0)
        for (qint64 j = 0; j < n; ++j)
            out[j] = float(std::tanh(out[j] / plan.softcap) * plan.softcap);
}

} // namespace

void headProbabilities(const LayerZeroPlan &plan, const RowMatrix &scores, float *out)
{
    // eager_attention_forward in float32: the scaled, soft-capped scores, masked, then softmax
    // over the whole row as torch computes it (torchmath::softmax; masked entries are exp'd to 0
    // and still take their lane in the sum).
    const qint64 tokens = scores.rows();
    const float masked = -std::numeric_limits<float>::infinity();
    for (qint64 i = 0; i < tokens; ++i) {
        float *row = out + i * tokens;
        // The keys seen: the causal mask (j <= i) and sliding_window_overlay (i - j < window).
        const qint64 first = plan.window > 0 ? std::max<qint64>(0, i - plan.window + 1) : 0;
        const qint64 end = std::max(first, plan.causal ? i + 1 : tokens);
        std::fill(row, row + first, masked);
        scaleScores(plan, &scores(i, first), row + first, end - first);
        std::fill(row + end, row + tokens, masked);
        torchmath::softmax(row, tokens);
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
