#include "model/forwardpass.h"

#include "backends/parallel.h"
#include "formats/hfcache.h"
#include "formats/modeltensors.h"
#include "formats/safejson.h"
#include "io/userfile.h"
#include "model/embeddinglayer.h"
#include "model/forwardmath.h"
#include "model/forwardplan.h"
#include "model/forwardweights.h"
#include "model/ggufmodel.h"
#include "model/layerzeroattention.h"
#include "model/layerzeronorms.h"
#include "model/safetensorsmodel.h"
#include "model/torchmath.h"
#include "rope/ropefrequencies.h"
#include "rope/ropetables.h"

#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pe {

struct ForwardPass::Data
{
    ForwardPlan plan;
    ModelTensors tensors;
    LayerZeroWeights embedding; // the embedding layer's tables (no layer-0 projections kept)
    std::unique_ptr<ForwardWeights> weights;
    NormWeights finalNorm;
};

ForwardPass::ForwardPass() : d(std::make_unique<Data>()) {}
ForwardPass::~ForwardPass() = default;

namespace {

// nn.Linear: x @ W^T + b, the output cut into blocks over threads (forwardmath.h).
void linear(const RowMatrix &x, const Projection &p, int threads, RowMatrix *y)
{
    linearProduct(x, p, threads, y);
}

void normRows(NormKind kind, const NormWeights &weights, double eps, RowMatrix *m)
{
    for (qint64 p = 0; p < m->rows(); ++p)
        applyNorm(kind, weights, eps, m->row(p).data(), m->cols());
}

// ACT2FN over every value in place, elementwise in float32, each step rounded as torch rounds
// it; SiLU and the tanh GELU on torchmath's vectorised rows.
void activateAll(Activation kind, RowMatrix *m)
{
    float *values = m->data();
    const qint64 n = m->size();
    switch (kind) {
    case Activation::GeluTanh:
        torchmath::geluTanh(values, n);
        return;
    case Activation::Silu:
        torchmath::silu(values, n);
        return;
    case Activation::GeluExact: // nn.functional.gelu: x * 0.5 * (1 + erf(x / sqrt 2))
        for (qint64 i = 0; i < n; ++i)
            values[i] = float(0.5 * double(values[i]) *
                              (1.0 + std::erf(double(values[i]) / std::numbers::sqrt2)));
        return;
    case Activation::Relu:
        for (qint64 i = 0; i < n; ++i)
            values[i] = values[i] > 0 ? values[i] : 0.0f;
        return;
    }
}

void store(const RowMatrix &m, float *out)
{
    std::copy(m.data(), m.data() + m.size(), out);
}

} // namespace

std::unique_ptr<ForwardPass> ForwardPass::open(const QString &model, QString *error)
{
    const std::optional<SafetensorsModel> files =
        openSafetensorsModel(model, QStringLiteral("the forward pass"), error);
    if (!files)
        return nullptr;
    std::optional<ForwardPlan> plan = forwardPlan(files->json, files->config, error);
    if (!plan)
        return nullptr;
    if (files->location.kind == ModelSourceKind::Gguf)
        useGgufNames(&*plan);
    std::unique_ptr<ForwardPass> out(new ForwardPass());
    Data &data = *out->d;
    data.plan = std::move(*plan);
    if (!data.tensors.open(files->location, error) ||
        !loadLayerZeroWeights(data.plan.base, data.tensors, &data.embedding, error))
        return nullptr;
    // Layer 0's projections are read again with the rest of layer 0.
    data.embedding.query = {};
    data.embedding.key = {};
    data.weights = std::make_unique<ForwardWeights>(data.plan, data.tensors, data.embedding.prefix);
    if (!data.weights->check(error) || !data.weights->loadFinalNorm(&data.finalNorm, error))
        return nullptr;
    return out;
}

QString ForwardPass::architecture() const
{
    return d->plan.base.architecture;
}

QString ForwardPass::modelType() const
{
    return d->plan.base.modelType;
}

qint64 ForwardPass::layers() const
{
    return d->plan.layers;
}

qint64 ForwardPass::heads() const
{
    return d->plan.base.heads;
}

qint64 ForwardPass::kvHeads() const
{
    return d->plan.base.kvHeads;
}

qint64 ForwardPass::headDim() const
{
    return d->plan.base.headDim;
}

qint64 ForwardPass::rotaryDims() const
{
    const LayerZeroPlan &plan = d->plan.base;
    if (plan.ropeHeadDim <= 0)
        return 0;
    // The table's columns are what apply_rotary_pos_emb turns (partial rotary: fewer).
    return ropeTable(plan.ropeHeadDim, plan.rope, RopeTableKind::Cos, 1, true).columns;
}

bool ForwardPass::interleavedRotary() const
{
    return d->plan.base.rope.pairing == RopePairing::Interleaved;
}

bool ForwardPass::causal() const
{
    return d->plan.base.causal;
}

qint64 ForwardPass::hiddenSize() const
{
    return d->plan.base.hiddenSize;
}

qint64 ForwardPass::vocabularyRows() const
{
    return d->embedding.vocabRows;
}

qint64 ForwardPass::outputRows() const
{
    return d->weights->outputRows();
}

qint64 ForwardPass::maxTokens() const
{
    const LayerZeroPlan &plan = d->plan.base;
    qint64 tokens = limits::maxLayerZeroTokens;
    if (plan.learnedPositions) {
        const qint64 before = plan.paddingPositions ? plan.paddingIdx + 1 : plan.positionOffset;
        tokens = std::min(tokens, d->embedding.positionRows - before);
    }
    return std::max<qint64>(tokens, 0);
}

namespace {

// One block of the forward pass on the residual stream `x` (tokens x hidden), in place.
class BlockRunner
{
public:
    // `attention`: layerAttentionPlan(plan, index), its RoPE parameters ablated; `positions`:
    // the position each token turns as, `sequenceLength` the seq_len dynamic and longrope see.
    BlockRunner(const ForwardPlan &plan, LayerZeroPlan attention, const BlockWeights &w,
                int threads, bool withPositions, std::span<const double> positions,
                qint64 sequenceLength)
        : m_plan(plan), m_attention(std::move(attention)), m_w(w), m_threads(threads),
          m_withPositions(withPositions), m_positions(positions), m_sequenceLength(sequenceLength)
    {}

    // Where the scored queries ({heads, tokens, headDim}) and keys ({kvHeads, ...}) go.
    void keepQueriesKeys(float *queries, float *keys)
    {
        m_queries = queries;
        m_keys = keys;
    }

    // Attention probabilities go to `probabilities` (heads x tokens x tokens) when not null.
    bool run(RowMatrix *x, float *probabilities, QString *error)
    {
        const double eps = m_plan.normEps;
        const NormKind kind = m_plan.norm;
        RowMatrix normed = *x;
        if (!m_plan.attnNorm.isEmpty())
            normRows(kind, m_w.attnNorm, eps, &normed);
        RowMatrix attended;
        if (!attention(normed, probabilities, &attended, error))
            return false;
        switch (m_plan.residual) {
        case ResidualOrder::Sequential: // hidden_states = residual + attn_output
            *x += attended;
            *x += mlp(*x);
            break;
        case ResidualOrder::Parallel: { // mlp_output + attn_output + hidden_states
            const RowMatrix fromMlp = mlp(*x);
            *x = (fromMlp + attended) + *x;
            break;
        }
        case ResidualOrder::Sandwich: {
            normRows(kind, m_w.postAttnNorm, eps, &attended);
            *x += attended;
            RowMatrix fromMlp = mlp(*x);
            normRows(kind, m_w.postMlpNorm, eps, &fromMlp);
            *x += fromMlp;
            break;
        }
        case ResidualOrder::PostNorm: { // LayerNorm(hidden_states + input_tensor)
            *x += attended;
            normRows(kind, m_w.postAttnNorm, eps, x);
            RowMatrix fromMlp = mlp(*x);
            fromMlp += *x;
            normRows(kind, m_w.postMlpNorm, eps, &fromMlp);
            *x = std::move(fromMlp);
            break;
        }
        }
        return true;
    }

private:
    bool attention(const RowMatrix &normed, float *probabilities, RowMatrix *out, QString *error)
    {
        const LayerZeroPlan &p = m_attention;
        const qint64 tokens = normed.rows(), hd = p.headDim;
        RowMatrix query, key, value;
        linear(normed, m_w.query, m_threads, &query);
        linear(normed, m_w.key, m_threads, &key);
        linear(normed, m_w.value, m_threads, &value);
        if (p.scalingKind == ScoreScaling::MultiplyQuery)
            query *= float(p.scaling);
        if (p.headNorm != NormKind::None) {
            normHeads(p.headNorm, m_w.queryNorm, p.normEps, hd, &query);
            normHeads(p.headNorm, m_w.keyNorm, p.normEps, hd, &key);
        }
        if (m_withPositions && p.layer.position == LayerPositionKind::Rope &&
            !rotateQueryKeyAt(p, m_positions, m_sequenceLength, &query, &key, error))
            return false;
        if (m_queries) {
            byHead(query, p.heads, hd, m_queries);
            byHead(key, p.kvHeads, hd, m_keys);
        }
        RowMatrix context(tokens, p.heads * hd);
        const qint64 group = p.heads / p.kvHeads; // repeat_kv
        parallelFor(0, p.heads, m_threads, 1, [&](qint64 lo, qint64 hi) {
            std::vector<float> own;
            RowMatrix scores(tokens, tokens);
            for (qint64 h = lo; h < hi; ++h) {
                const qint64 kvHead = h / group;
                productTransposedHere(columns(query, h * hd, hd), columns(key, kvHead * hd, hd),
                                      scores.data(), tokens);
                float *target = probabilities ? probabilities + h * tokens * tokens : nullptr;
                if (!target) {
                    own.resize(std::size_t(tokens * tokens));
                    target = own.data();
                }
                headProbabilities(p, scores, target);
                productHere({target, tokens, tokens, tokens}, columns(value, kvHead * hd, hd),
                            context.data() + h * hd, context.cols());
            }
        });
        linear(context, m_w.output, m_threads, out);
        return true;
    }

    RowMatrix mlp(const RowMatrix &x) const
    {
        RowMatrix normed = x;
        if (!m_plan.mlpNorm.isEmpty())
            normRows(m_plan.norm, m_w.mlpNorm, m_plan.normEps, &normed);
        const Activation act = m_plan.activation;
        RowMatrix inner, out;
        if (m_plan.mlp == MlpKind::Plain) {
            linear(normed, m_w.fcIn, m_threads, &inner);
            activateAll(act, &inner);
            linear(inner, m_w.fcOut, m_threads, &out);
            return out;
        }
        RowMatrix up;
        linear(normed, m_w.gate, m_threads, &inner);
        linear(normed, m_w.up, m_threads, &up);
        activateAll(act, &inner);
        inner.array() *= up.array();
        linear(inner, m_w.down, m_threads, &out);
        return out;
    }

    // tokens x (heads * hd) to {heads, tokens, hd}.
    static void byHead(const RowMatrix &m, qint64 heads, qint64 hd, float *out)
    {
        for (qint64 h = 0; h < heads; ++h)
            for (qint64 t = 0; t < m.rows(); ++t)
                std::copy_n(m.row(t).data() + h * hd, hd, out + (h * m.rows() + t) * hd);
    }

    float *m_queries = nullptr;
    float *m_keys = nullptr;
    const ForwardPlan &m_plan;
    const LayerZeroPlan m_attention;
    const BlockWeights &m_w;
    int m_threads;
    bool m_withPositions;
    std::span<const double> m_positions;
    qint64 m_sequenceLength;
};

bool cancelled(const ForwardOptions &options, QString *error)
{
    if (options.cancel && options.cancel->load()) {
        *error = QStringLiteral("the forward pass was cancelled");
        return true;
    }
    return false;
}

} // namespace

QString positionAblationText(const PositionAblation &ablation)
{
    QStringList parts;
    if (ablation.shift != 0)
        parts.append(QStringLiteral("positions shifted by %1").arg(ablation.shift));
    if (ablation.scale != 1.0)
        parts.append(QStringLiteral("positions scaled by 1/%1 (p -> p / %1)").arg(ablation.scale));
    if (ablation.ropeTheta)
        parts.append(QStringLiteral("rope_theta %1").arg(*ablation.ropeTheta));
    if (!ablation.ropeScaling.isEmpty())
        parts.append(QStringLiteral("rope parameters %1")
                         .arg(QString::fromUtf8(
                             QJsonDocument(ablation.ropeScaling).toJson(QJsonDocument::Compact))));
    return parts.join(QStringLiteral(", "));
}

namespace {

// Layer f's RoPE parameters under `ablation`: another rope_theta, then another rule (the
// layer's base and partial rotary factor unless the object gives its own; the pairing is the
// checkpoint's). False with one sentence naming the field when transformers would not compute
// them.
bool ablatedRope(const ForwardLayer &f, const PositionAblation &ablation, RopeConfig *out,
                 QString *error)
{
    RopeConfig config = f.rope;
    if (ablation.ropeTheta)
        config.ropeTheta = *ablation.ropeTheta;
    if (!ablation.ropeScaling.isEmpty()) {
        QJsonObject json = ablation.ropeScaling;
        if (!json.contains(QLatin1String("rope_theta")))
            json.insert(QLatin1String("rope_theta"), config.ropeTheta);
        if (!json.contains(QLatin1String("partial_rotary_factor")))
            json.insert(QLatin1String("partial_rotary_factor"), config.partialRotaryFactor);
        QString problem;
        RopeConfig parsed =
            ropeConfigFromJson(json, f.ropeHeadDim, config.maxPositionEmbeddings, &problem);
        if (!problem.isEmpty()) {
            *error = QStringLiteral("rope scaling: %1").arg(problem);
            return false;
        }
        parsed.pairing = config.pairing;
        config = std::move(parsed);
    }
    if (const QString problem = ropeConfigProblem(f.ropeHeadDim, config); !problem.isEmpty()) {
        *error = QStringLiteral("the ablated RoPE parameters: %1").arg(problem);
        return false;
    }
    *out = std::move(config);
    return true;
}

bool finitePositive(double v)
{
    return std::isfinite(v) && v > 0;
}

} // namespace

QString ForwardPass::ablationProblem(const PositionAblation &ablation, qint64 tokens) const
{
    if (ablation.changesNothing())
        return {};
    const ForwardPlan &plan = d->plan;
    if (ablation.shift < 0)
        return QStringLiteral("position shift %1: position ids start at 0 or later, so the "
                              "shift must be >= 0")
            .arg(ablation.shift);
    if (ablation.shift > ropeMaxContext - tokens)
        return QStringLiteral("position shift %1: positions beyond %2 are not computed")
            .arg(ablation.shift)
            .arg(ropeMaxContext);
    if (!finitePositive(ablation.scale))
        return QStringLiteral("position scale %1: must be a finite number > 0").arg(ablation.scale);
    if (ablation.ropeTheta && !finitePositive(*ablation.ropeTheta))
        return QStringLiteral("rope_theta %1: must be a finite number > 0")
            .arg(*ablation.ropeTheta);
    const LayerZeroPlan &base = plan.base;
    if (base.learnedPositions) {
        if (ablation.scale != 1.0)
            return QStringLiteral("position scale %1: scaling positions is not defined for a "
                                  "learned position table (%2 adds rows of %3, whole positions "
                                  "only); transformers has no such rule")
                .arg(ablation.scale)
                .arg(base.architecture, base.positionTensor);
        const qint64 first = base.paddingPositions ? base.paddingIdx + 1 : base.positionOffset;
        const qint64 last = first + tokens - 1 + ablation.shift;
        if (last >= d->embedding.positionRows)
            return QStringLiteral("position shift %1: %2 tokens need rows %3 to %4 of the "
                                  "position table %5, which has %6 rows")
                .arg(ablation.shift)
                .arg(tokens)
                .arg(first + ablation.shift)
                .arg(last)
                .arg(base.positionTensor)
                .arg(d->embedding.positionRows);
    }
    const bool rope = std::any_of(plan.perLayer.begin(), plan.perLayer.end(), [](const auto &f) {
        return f.layer.position == LayerPositionKind::Rope;
    });
    if (!rope && (ablation.ropeTheta || !ablation.ropeScaling.isEmpty()))
        return QStringLiteral("%1 has no RoPE layer: rope_theta and rope scaling do not apply")
            .arg(base.architecture);
    if (!rope && !base.learnedPositions)
        return QStringLiteral("%1 has no positions to shift or scale").arg(base.architecture);
    QString error;
    for (const ForwardLayer &f : plan.perLayer) {
        RopeConfig config;
        if (f.layer.position == LayerPositionKind::Rope &&
            !ablatedRope(f, ablation, &config, &error))
            return error;
    }
    return {};
}

namespace {

// The ids, and the results asked for, within what pescope holds; one sentence when not.
bool checkRun(const ForwardPass &pass, qint64 layers, std::span<const int> ids,
              const ForwardOptions &options, QString *error)
{
    const qint64 tokens = qint64(ids.size());
    if (tokens == 0) {
        *error = QStringLiteral("the phrase has no tokens");
        return false;
    }
    if (tokens > pass.maxTokens()) {
        *error = QStringLiteral("the phrase has %1 tokens; %2 is computed for at most %3")
                     .arg(tokens)
                     .arg(pass.architecture())
                     .arg(pass.maxTokens());
        return false;
    }
    for (std::size_t p = 0; p < ids.size(); ++p)
        if (ids[p] < 0 || ids[p] >= pass.vocabularyRows()) {
            *error = QStringLiteral("token id %1 (token %2) is outside the token table's %3 rows")
                         .arg(ids[p])
                         .arg(p)
                         .arg(pass.vocabularyRows());
            return false;
        }
    const auto tooMany = [&](const char *what, qint64 values) {
        *error = QStringLiteral("%1 tokens: the %2 would be %3 values, more than pescope holds "
                                "(%4)")
                     .arg(tokens)
                     .arg(QLatin1String(what))
                     .arg(values)
                     .arg(limits::maxForwardResultValues);
        return false;
    };
    const qint64 perLayer = pass.heads() * tokens * tokens;
    const qint64 widest = std::max(pass.hiddenSize(), pass.heads() * tokens);
    if (perLayer > limits::maxForwardResultValues ||
        tokens * widest > limits::maxForwardResultValues)
        return tooMany("attention of one layer", perLayer);
    if (options.attentionLayer >= layers) {
        *error = QStringLiteral("layer %1: the model has %2 layers (0 to %3)")
                     .arg(options.attentionLayer)
                     .arg(layers)
                     .arg(layers - 1);
        return false;
    }
    if (!options.withPositions && !options.positions.changesNothing()) {
        *error = QStringLiteral("the positions are removed: they cannot also be %1")
                     .arg(positionAblationText(options.positions));
        return false;
    }
    if (const QString problem = pass.ablationProblem(options.positions, tokens);
        !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    const qint64 kept = options.attentionLayer >= 0 ? 1 : layers;
    if (options.attentions && perLayer * kept > limits::maxForwardResultValues)
        return tooMany("attention of every layer", perLayer * layers);
    const qint64 hidden = (layers + 1) * tokens * pass.hiddenSize();
    if (options.hiddenStates && hidden > limits::maxForwardResultValues)
        return tooMany("hidden states", hidden);
    const qint64 logitRows = options.lastLogitsOnly ? 1 : tokens;
    if (options.logits && logitRows * pass.outputRows() > limits::maxForwardResultValues)
        return tooMany("logits", logitRows * pass.outputRows());
    const qint64 queries = layers * pass.heads() * tokens * pass.headDim();
    if (options.queriesKeys && queries > limits::maxForwardResultValues)
        return tooMany("queries of every layer", queries);
    return true;
}

} // namespace

namespace {

// The layers' float32 weights and activations, freed, can stay in the C library's heap (glibc
// raises its mmap threshold to the largest block freed, so later blocks come from the heap, and
// returns the heap's top only past a threshold): resident while the output matrix is mapped in
// and the logits are written, when the process holds the most. Given back here; the values
// computed are the same bit for bit.
void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

// final_norm(x) @ output^T (Gemma 2: soft-capped), the output matrix read a block of rows at a
// time (float32 as stored: straight from the mapped file) so that its float32 copy is never
// whole, and the products written where the result keeps them.
bool computeLogits(ModelTensors &tensors, const ForwardWeights &weights, double cap,
                   const RowMatrix &normed, const ForwardOptions &options, int threads,
                   LayerZeroArray *out, QString *error)
{
    const qint64 tokens = normed.rows(), rows = weights.outputRows();
    const qint64 hidden = normed.cols();
    const qint64 blockRows = std::max<qint64>(1, (qint64(16) << 20) / (hidden * 4));
    out->shape = {tokens, rows};
    out->values.resize(std::size_t(tokens * rows));
    float *logits = out->values.data();
    qint64 first = 0;
    const bool streamed = tensors.streamRows(
        weights.outputName(),
        [&](const float *block, qint64 values) {
            if (cancelled(options, error))
                return false;
            const qint64 count = values / hidden;
            productTransposed(view(normed), {block, count, hidden, hidden}, threads, logits + first,
                              rows);
            // Those rows are multiplied: their mapped bytes leave the resident memory, so that
            // the output matrix (GPT-2's and Qwen3's token table, tied) is never resident whole.
            tensors.releaseRows(weights.outputName(), first, count);
            first += count;
            return true;
        },
        error, blockRows * hidden * qint64(sizeof(float)));
    if (!streamed)
        return false;
    if (cap > 0) // Gemma2ForCausalLM: tanh(logits / cap) * cap
        for (float &v : out->values)
            v = float(std::tanh(v / cap) * cap);
    return true;
}

} // namespace

std::optional<ForwardResult> ForwardPass::run(std::span<const int> ids,
                                              const ForwardOptions &options, QString *error)
{
    const ForwardPlan &plan = d->plan;
    const qint64 layers = plan.layers, tokens = qint64(ids.size());
    const qint64 hidden = plan.base.hiddenSize;
    if (!checkRun(*this, layers, ids, options, error))
        return std::nullopt;
    // The widest intermediates: the MLP's inner activations (gated: two of them) and q, k, v.
    const qint64 inner = plan.intermediate * (plan.mlp == MlpKind::Gated ? 2 : 1);
    const qint64 qkv = (plan.base.heads + 2 * plan.base.kvHeads) * plan.base.headDim;
    if (tokens * std::max(inner, qkv) > limits::maxForwardResultValues) {
        *error = QStringLiteral("%1 tokens x %2 values per token is more than pescope holds (%3 "
                                "values)")
                     .arg(tokens)
                     .arg(std::max(inner, qkv))
                     .arg(limits::maxForwardResultValues);
        return std::nullopt;
    }
    const int threads = options.threads > 0 ? options.threads : hardwareThreads();
    const qint64 only = options.attentionLayer;
    const qint64 kept = only >= 0 ? 1 : layers;
    // Only one layer's attention asked for: the layers after it change nothing asked for.
    const qint64 last = only >= 0 && !options.hiddenStates && !options.logits ? only : layers - 1;
    const auto progress = [&](qint64 done) {
        if (options.progress)
            options.progress(done, last + 2);
    };
    ForwardResult result;
    RowMatrix x;
    const PositionAblation &ablation = options.positions;
    if (!embeddingOutput(plan.base, d->embedding, d->tensors, ids, options.withPositions, &x, error,
                         ablation.shift))
        return std::nullopt;
    // The position each token turns as in a RoPE layer: p, or (p + k) / s ablated (exactly p for
    // k = 0, s = 1).
    std::vector<double> rotaryPositions(static_cast<std::size_t>(tokens));
    for (qint64 p = 0; p < tokens; ++p)
        rotaryPositions[std::size_t(p)] = double(p + ablation.shift) / ablation.scale;
    const qint64 sequenceLength = tokens + ablation.shift; // max(position_ids) + 1
    if (options.attentions) {
        result.attentions.shape = {kept, plan.base.heads, tokens, tokens};
        result.attentions.values.assign(std::size_t(kept * plan.base.heads * tokens * tokens), 0);
    }
    if (options.hiddenStates) {
        result.hiddenStates.shape = {layers + 1, tokens, hidden};
        result.hiddenStates.values.resize(std::size_t((layers + 1) * tokens * hidden));
        store(x, result.hiddenStates.values.data());
    }
    const qint64 qPerLayer = plan.base.heads * tokens * plan.base.headDim;
    const qint64 kPerLayer = plan.base.kvHeads * tokens * plan.base.headDim;
    if (options.queriesKeys) {
        result.queries.shape = {layers, plan.base.heads, tokens, plan.base.headDim};
        result.queries.values.assign(std::size_t(layers * qPerLayer), 0);
        result.keys.shape = {layers, plan.base.kvHeads, tokens, plan.base.headDim};
        result.keys.values.assign(std::size_t(layers * kPerLayer), 0);
    }
    progress(0);
    BlockWeights weights; // float32 only while a layer runs; each layer reuses the storage
    for (qint64 i = 0; i <= last; ++i) {
        if (cancelled(options, error))
            return std::nullopt;
        if (!d->weights->load(i, &weights, &result.warnings, error))
            return std::nullopt;
        float *probabilities = nullptr;
        if (options.attentions && (only < 0 || only == i))
            probabilities = result.attentions.values.data() +
                            (only < 0 ? i : 0) * plan.base.heads * tokens * tokens;
        LayerZeroPlan attention = layerAttentionPlan(plan, i);
        if (!ablation.changesNothing() && attention.layer.position == LayerPositionKind::Rope &&
            !ablatedRope(plan.perLayer[std::size_t(i)], ablation, &attention.rope, error))
            return std::nullopt;
        BlockRunner block(plan, std::move(attention), weights, threads, options.withPositions,
                          rotaryPositions, sequenceLength);
        if (options.queriesKeys)
            block.keepQueriesKeys(result.queries.values.data() + i * qPerLayer,
                                  result.keys.values.data() + i * kPerLayer);
        if (!block.run(&x, probabilities, error))
            return std::nullopt;
        if (options.hiddenStates && i + 1 < layers)
            store(x, result.hiddenStates.values.data() + (i + 1) * tokens * hidden);
        progress(i + 1);
    }
    weights = {}; // not held while the logits are computed
    if (last < layers - 1)
        return result; // stopped early: no final norm, no logits
    result.prenorm.shape = {tokens, hidden};
    result.prenorm.values.assign(x.data(), x.data() + x.size());
    normRows(plan.finalNorm, d->finalNorm, plan.normEps, &x);
    if (options.hiddenStates)
        store(x, result.hiddenStates.values.data() + layers * tokens * hidden);
    if (!options.logits || outputRows() == 0)
        return result;
    if (options.lastLogitsOnly)
        x = RowMatrix(x.bottomRows(1)); // the last row only: what logits_to_keep=1 multiplies
    releaseFreedMemory();
    if (!computeLogits(d->tensors, *d->weights, plan.finalSoftcap, x, options, threads,
                       &result.logits, error))
        return std::nullopt;
    return result;
}

} // namespace pe
