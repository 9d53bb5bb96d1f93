#include "compute/schemedata.h"

#include "analysis/similarity.h"
#include "rope/ropefrequencies.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace pe {

namespace {

// Decay curves hold at most this many distances; longer ranges are sampled evenly, and more
// sparsely with many rotary pairs, so that a curve costs at most maxDecayTerms cosines.
constexpr qint64 maxDecaySamples = 8192;
constexpr qint64 maxDecayTerms = maxDecaySamples * 1024;
constexpr qint64 minDecaySamples = 512;
// Largest PE table the similarity view encodes (positions x dims floats).
constexpr qint64 maxSimilarityElements = qint64(1) << 26;
// The rotation view's trail shows the last positions up to p, at most this many.
constexpr qint64 rotationTrail = 48;

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

JobStatus similarity(const EncodingSpec &base, qint64 n, SimilarityMetric metric, Backend &backend,
                     const CancelCheck &cancel, SquareMatrix *out, QString *error)
{
    EncodingSpec spec = base;
    spec.positions = n;
    if (const QString problem = spec.validate(); !problem.isEmpty()) {
        *error = problem;
        return JobStatus::Failed;
    }
    if (n * spec.dims > maxSimilarityElements) {
        *error = QStringLiteral("the similarity of %1 positions x %2 dims is too large to compute "
                                "(at most %3 values); use fewer positions")
                     .arg(n)
                     .arg(spec.dims)
                     .arg(maxSimilarityElements);
        return JobStatus::Failed;
    }
    // In row chunks, so that a superseded job stops within milliseconds even while encoding.
    Matrix table;
    float minimum = 0, maximum = 0;
    if (const JobStatus status =
            encodeMatrix(backend, spec, &table, &minimum, &maximum, cancel, {}, error);
        status != JobStatus::Done)
        return status;
    out->size = n;
    out->values.assign(std::size_t(n * n), 0.0f);
    if (!similarityMatrix(table.data.get(), n, spec.dims, metric, out->values.data(), cancel))
        return JobStatus::Cancelled;
    finishRange(out);
    return JobStatus::Done;
}

} // namespace

bool isContextView(FigureView view)
{
    return view == FigureView::ContextPairs || view == FigureView::ContextBaseBound ||
           view == FigureView::ContextPrecision;
}

std::optional<ContextFigureNumbers> contextNumbersForA(const EncodingSpec &a, QString *error)
{
    // The report's scans cost about pairs x context steps (the float32 collisions to 2^24, the
    // base search to 2^20; B(m) has its own budget): the window refuses more than this, which
    // `pescope context` computes in seconds.
    constexpr qint64 maxContextWork = qint64(1) << 28;
    const qint64 pairs = a.dims / 2;
    const qint64 steps = std::min(a.positions, qint64(1) << 24);
    if (pairs * steps > maxContextWork) {
        *error = QStringLiteral("the long-context report of %1 pairs at %2 positions is too much "
                                "work for the window (at most %3 pairs x positions); use "
                                "`pescope context`")
                     .arg(pairs)
                     .arg(a.positions)
                     .arg(maxContextWork);
        return std::nullopt;
    }
    const RopeScheme &rope = *a.get<RopeScheme>();
    ContextRequest request;
    request.config = rope;
    request.headDim = a.dims;
    request.context = std::min(a.positions, ropeMaxContext);
    request.source = QStringLiteral("configuration A (%1)").arg(rope.configLabel());
    if (rope.maxPositionEmbeddings <= 0 && rope.originalMaxPositionEmbeddings <= 0)
        request.config.maxPositionEmbeddings = a.positions;
    std::optional<ContextReport> report = contextReport(request, error);
    if (!report)
        return std::nullopt;
    return contextFigureNumbers(std::move(*report));
}

QList<qint64> rotationPairs(qint64 chosen, qint64 pairCount)
{
    QList<qint64> pairs{chosen};
    for (qint64 candidate :
         {qint64(0), pairCount / 4, pairCount / 2, (3 * pairCount) / 4, pairCount - 1}) {
        if (pairs.size() == 4)
            break;
        if (candidate >= 0 && candidate < pairCount && !pairs.contains(candidate))
            pairs.append(candidate);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

JobStatus computeSchemeData(const SchemeInputs &inputs, const QList<FigureView> &views,
                            Backend &backend, const CancelCheck &cancel, SchemeResult *result,
                            QString *error)
{
    QElapsedTimer timer;
    timer.start();
    const SchemeSettings &s = inputs.settings;
    if (const QString problem = s.validate(inputs.spec.dims); !problem.isEmpty()) {
        *error = problem;
        return JobStatus::Failed;
    }
    result->inputs = inputs;
    result->views = views;
    result->backendId = backend.id();
    const EncodingSpec a = ropeSpecA(inputs.spec);
    const EncodingSpec b = ropeSpecB(inputs.spec, s);
    for (const auto &[spec, name] :
         {std::pair{&a, QStringLiteral("RoPE view: ")}, std::pair{&b, QStringLiteral("compare: ")}})
        if (const QString problem = spec->validate(); !problem.isEmpty()) {
            *error = name + problem;
            return JobStatus::Failed;
        }
    result->a = ropeConfigData(a);
    result->b = ropeConfigData(b);

    if (views.contains(FigureView::Rotation)) {
        const std::vector<double> &theta = result->a.scaled;
        const qint64 p = s.rotationPosition;
        result->rotation.clear();
        for (qint64 pair : rotationPairs(s.rotationPair, qint64(theta.size()))) {
            RotationPanel panel;
            panel.pair = pair;
            panel.theta = theta[std::size_t(pair)];
            panel.angle = ropeRotationAngle(panel.theta, p);
            panel.trail =
                ropeRotationTrail(panel.theta, std::max<qint64>(0, p - rotationTrail + 1), p);
            result->rotation.append(panel);
        }
    }
    if (views.contains(FigureView::Decay)) {
        const qint64 pairs = std::max<qint64>(1, inputs.spec.dims / 2);
        result->decayDistances = decayDistances(
            s.decayDistance,
            std::min(maxDecaySamples, std::max(minDecaySamples, maxDecayTerms / pairs)));
        // A, B and (when asked) the three published bases unscaled, each once.
        QList<EncodingSpec> configs{a, b};
        for (double base :
             s.decayReferences ? QList<double>{10000.0, 500000.0, 1000000.0} : QList<double>{}) {
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
            if (cancel && cancel())
                return JobStatus::Cancelled;
            const RopeConfigData data = ropeConfigData(spec);
            if (seen.contains(data.label))
                continue;
            seen.append(data.label);
            result->decay.append(
                {data.label, ropeDecayCurve(data.scaled, spec.dims, result->decayDistances)});
        }
    }
    if (std::any_of(views.begin(), views.end(), isContextView)) {
        QString problem;
        std::optional<ContextFigureNumbers> numbers = contextNumbersForA(a, &problem);
        if (!numbers) {
            *error = QStringLiteral("context views: ") + problem;
            return JobStatus::Failed;
        }
        result->context = std::make_shared<const ContextFigureNumbers>(std::move(*numbers));
    }
    const qint64 n = s.squarePositions;
    if (views.contains(FigureView::Similarity) || views.contains(FigureView::Compare)) {
        const JobStatus status =
            similarity(inputs.spec, n, s.metric, backend, cancel, &result->similarityA, error);
        if (status != JobStatus::Done)
            return status;
    }
    if (views.contains(FigureView::Compare)) {
        const JobStatus status =
            similarity(b, n, s.metric, backend, cancel, &result->similarityB, error);
        if (status != JobStatus::Done)
            return status;
    }
    // The bias views draw their schemes' own positions x positions matrices: computed for each
    // scheme part without dims that a view shown reads (its view-list keys name the part).
    forEachSchemePart([&](const auto &part) {
        using Scheme = typename std::decay_t<decltype(part)>::Scheme;
        if constexpr (!Scheme::info.usesDims) {
            if (!anyViewReads(views, part.key))
                return;
            SquareMatrix &out = result->squares[QString::fromUtf8(part.key)];
            out.size = n;
            out.values.resize(std::size_t(n * n));
            std::get<RowsPlan>((s.*part.member).plan({n, n})).fill(0, n, out.values.data());
            finishRange(&out);
        }
    });
    result->totalMs = double(timer.nsecsElapsed()) / 1e6;
    return JobStatus::Done;
}

const SquareMatrix &SchemeResult::square(const char *key) const
{
    static const SquareMatrix none;
    const auto found = squares.find(QString::fromUtf8(key));
    return found == squares.end() ? none : found->second;
}

bool schemeResultMatches(const SchemeResult &result, const SchemeInputs &inputs,
                         const QList<FigureView> &views)
{
    if (!(result.inputs == inputs))
        return false;
    return std::all_of(views.begin(), views.end(),
                       [&](FigureView v) { return result.views.contains(v); });
}

} // namespace pe
