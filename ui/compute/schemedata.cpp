#include "compute/schemedata.h"

#include "alibi.h"
#include "cpubackend.h"
#include "rope/ropefrequencies.h"
#include "t5buckets.h"

#include <QElapsedTimer>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pe {

namespace {

// Decay curves hold at most this many distances; longer ranges are sampled evenly, and more
// sparsely with many rotary pairs, so that a curve costs at most maxDecayTerms cosines.
constexpr qint64 maxDecaySamples = 8192;
constexpr qint64 maxDecayTerms = maxDecaySamples * 1024;
constexpr qint64 minDecaySamples = 512;
// Largest PE table the similarity view encodes (positions x dims floats).
constexpr qint64 maxSimilarityElements = qint64(1) << 26;

void finishRange(SquareMatrix *m)
{
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (float v : m->values)
        if (std::isfinite(v)) {
            lo = std::min(lo, double(v));
            hi = std::max(hi, double(v));
        }
    m->minimum = std::isfinite(lo) ? lo : 0.0;
    m->maximum = std::isfinite(hi) ? hi : 0.0;
}

bool similarity(const EncodingSpec &base, qint64 n, SimilarityMetric metric, SquareMatrix *out,
                QString *error)
{
    EncodingSpec spec = base;
    spec.positions = n;
    if (const QString problem = spec.validate(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (n * spec.dims > maxSimilarityElements) {
        *error = QStringLiteral("the similarity of %1 positions x %2 dims is too large to compute "
                                "(at most %3 values); use fewer positions")
                     .arg(n)
                     .arg(spec.dims)
                     .arg(maxSimilarityElements);
        return false;
    }
    std::vector<float> table(std::size_t(n * spec.dims));
    CpuBackend backend;
    if (!backend.encode(spec, 0, n, table.data(), error))
        return false;
    // Gram matrix accumulated in float64 (long float32 dot products lose digits); symmetric,
    // so each pair is computed once.
    const qint64 d = spec.dims;
    std::vector<double> rows(table.begin(), table.end());
    std::vector<double> norms(std::size_t(n), 0.0);
    for (qint64 i = 0; i < n; ++i) {
        double sum = 0.0;
        for (qint64 k = 0; k < d; ++k)
            sum += rows[std::size_t(i * d + k)] * rows[std::size_t(i * d + k)];
        norms[std::size_t(i)] = std::sqrt(sum);
    }
    out->size = n;
    out->values.assign(std::size_t(n * n), 0.0f);
    for (qint64 i = 0; i < n; ++i) {
        const double *a = rows.data() + i * d;
        for (qint64 j = i; j < n; ++j) {
            const double *b = rows.data() + j * d;
            double dot = 0.0;
            for (qint64 k = 0; k < d; ++k)
                dot += a[k] * b[k];
            if (metric == SimilarityMetric::Cosine) {
                const double scale = norms[std::size_t(i)] * norms[std::size_t(j)];
                dot = scale > 0 ? dot / scale : 0.0;
            }
            out->values[std::size_t(i * n + j)] = float(dot);
            out->values[std::size_t(j * n + i)] = float(dot);
        }
    }
    finishRange(out);
    return true;
}

} // namespace

RopeConfigData ropeConfigData(const EncodingSpec &ropeSpec)
{
    RopeConfigData data;
    data.spec = ropeSpec;
    data.label = ropeSpec.get<RopeScheme>()->configLabel();
    const RopeScheme &rope = *ropeSpec.get<RopeScheme>();
    const RopeConfig config = rope.config(ropeSpec.shape());
    // The same rotation without the context-extension rule (proportional's zero tail stays).
    RopeConfig plain = config;
    plain.ropeType =
        rope.ropeType == RopeType::Proportional ? RopeType::Proportional : RopeType::Default;
    plain.factor.reset();
    data.original = ropeInverseFrequencies(ropeSpec.dims, plain).inverseFrequencies;
    const RopeFrequencies f = ropeInverseFrequencies(ropeSpec.dims, config);
    data.scaled = f.inverseFrequencies;
    data.attentionFactor = f.attentionFactor;
    switch (rope.ropeType) {
    case RopeType::Dynamic: // scales from the context it is used at
        data.originalContext = rope.maxPositionEmbeddings;
        break;
    case RopeType::Yarn:
    case RopeType::Longrope:
    case RopeType::Llama3:
        data.originalContext = rope.originalMaxPositionEmbeddings > 0
                                   ? rope.originalMaxPositionEmbeddings
                                   : rope.maxPositionEmbeddings;
        break;
    default:
        break;
    }
    return data;
}

double ropeRelativeScore(const std::vector<double> &theta, qint64 dims, double distance)
{
    double sum = 0.0;
    for (double t : theta)
        sum += std::cos(distance * t);
    const double rotary = 2.0 * double(theta.size());
    return ((double(dims) - rotary) + 2.0 * sum) / double(dims);
}

bool computeSchemeData(const SchemeInputs &inputs, const QList<SchemeView> &views,
                       SchemeResult *result, QString *error)
{
    QElapsedTimer timer;
    timer.start();
    const SchemeSettings &s = inputs.settings;
    if (const QString problem = s.validate(inputs.spec.dims); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    result->inputs = inputs;
    result->views = views;
    const EncodingSpec a = ropeSpecA(inputs.spec);
    const EncodingSpec b = ropeSpecB(inputs.spec, s);
    for (const auto &[spec, name] :
         {std::pair{&a, QStringLiteral("RoPE view: ")}, std::pair{&b, QStringLiteral("compare: ")}})
        if (const QString problem = spec->validate(); !problem.isEmpty()) {
            *error = name + problem;
            return false;
        }
    result->a = ropeConfigData(a);
    result->b = ropeConfigData(b);

    if (views.contains(SchemeView::Decay)) {
        const qint64 last = s.decayDistance;
        const qint64 pairs = std::max<qint64>(1, inputs.spec.dims / 2);
        const qint64 samples =
            std::min({last + 1, maxDecaySamples, std::max(minDecaySamples, maxDecayTerms / pairs)});
        result->decayDistances.resize(std::size_t(samples));
        for (qint64 k = 0; k < samples; ++k)
            result->decayDistances[std::size_t(k)] =
                samples == last + 1 ? double(k) : std::round(double(k) * last / (samples - 1));
        // A, B and the three published bases unscaled, each once.
        QList<EncodingSpec> configs{a, b};
        for (double base : {10000.0, 500000.0, 1000000.0}) {
            RopeScheme unscaled = *a.get<RopeScheme>();
            unscaled.ropeTheta = base;
            unscaled.ropeType = RopeType::Default;
            unscaled.factor.reset();
            EncodingSpec plain = a;
            plain.scheme = unscaled;
            configs.append(plain);
        }
        result->decay.clear();
        QList<QString> seen;
        for (const EncodingSpec &spec : configs) {
            const RopeConfigData data = ropeConfigData(spec);
            if (seen.contains(data.label))
                continue;
            seen.append(data.label);
            DecayCurve curve;
            curve.label = data.label;
            curve.score.reserve(result->decayDistances.size());
            for (double distance : result->decayDistances)
                curve.score.push_back(ropeRelativeScore(data.scaled, spec.dims, distance));
            result->decay.append(curve);
        }
    }
    const qint64 n = s.squarePositions;
    if (views.contains(SchemeView::Similarity) || views.contains(SchemeView::Compare)) {
        if (!similarity(inputs.spec, n, s.metric, &result->similarityA, error))
            return false;
    }
    if (views.contains(SchemeView::Compare) &&
        !similarity(b, n, s.metric, &result->similarityB, error))
        return false;
    // The bias views are those schemes' own matrices.
    const auto square = [n](const auto &scheme, SquareMatrix *out) {
        out->size = n;
        out->values.resize(std::size_t(n * n));
        std::get<RowsPlan>(scheme.plan({n, n})).fill(0, n, out->values.data());
        finishRange(out);
    };
    if (views.contains(SchemeView::Alibi)) {
        result->alibiSlope = s.alibi.slope();
        square(s.alibi, &result->alibi);
    }
    if (views.contains(SchemeView::T5))
        square(s.t5, &result->t5);
    result->totalMs = double(timer.nsecsElapsed()) / 1e6;
    return true;
}

bool schemeResultMatches(const SchemeResult &result, const SchemeInputs &inputs,
                         const QList<SchemeView> &views)
{
    if (!(result.inputs == inputs))
        return false;
    return std::all_of(views.begin(), views.end(),
                       [&](SchemeView v) { return result.views.contains(v); });
}

} // namespace pe
