#include "contextreport.h"

#include "analysis/ropeanalysis.h"
#include "fields/fieldvalue.h"
#include "ropefrequencies.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace pe {

namespace {

constexpr double twoPi = 2.0 * std::numbers::pi;
// A pair whose ratio is within this of 1 (or of the rule's scale) is unchanged (interpolated):
// the rules multiply and divide in float64, never exactly.
constexpr double ratioTolerance = 1e-9;
// B(m)'s scan: steps between exact recomputations of (cos, sin), and its budget in pair-steps
// (2^32: about two seconds), beyond which it stops short of 16 times the distance limit.
constexpr qint64 reanchorSteps = 1024;
constexpr double scanBudget = 4294967296.0;
constexpr qint64 decaySamples = 256;
// The bases the search walks: 2^(k/100) for k from 100 (base 2) up to 1e12 (DESIGN's limit).
constexpr int baseGridSteps = 100;
constexpr double baseGridMax = 1e12;

QString grouped(double value)
{
    return formatGrouped(value);
}

QString count(qint64 value)
{
    return formatGrouped(double(value));
}

// "0–33", "5": a run of pair indices.
QString runText(qint64 first, qint64 last)
{
    return first == last ? QString::number(first) : QStringLiteral("%1–%2").arg(first).arg(last);
}

PairTreatment treatmentOf(double unscaled, double scaled, double fullScale)
{
    if (unscaled == 0.0 || scaled == 0.0)
        return PairTreatment::Fixed;
    const double ratio = unscaled / scaled;
    if (std::abs(ratio - 1.0) <= ratioTolerance)
        return PairTreatment::Unchanged;
    if (ratio < 1.0)
        return PairTreatment::SpedUp;
    if (ratio >= fullScale * (1.0 - ratioTolerance))
        return PairTreatment::Interpolated;
    return PairTreatment::Blended;
}

// The frequencies without the rule: the default rule at rope_theta over the same rotated dims
// (proportional: its own rule with factor 1, which keeps its unrotated tail).
RopeConfig unscaledConfig(const RopeConfig &config)
{
    RopeConfig plain = config;
    if (config.ropeType == RopeType::Proportional) {
        plain.factor = 1.0;
    } else {
        plain.ropeType = RopeType::Default;
        plain.factor.reset();
    }
    return plain;
}

// The first position p in 0..end-1 whose angle, formed in `dtype`, equals that of p + 1.
qint64 firstCollisionIn(double theta, ContextDtype dtype, qint64 end)
{
    if (dtype == ContextDtype::Float32) {
        const auto theta32 = static_cast<float>(theta);
        float previous = 0.0F;
        for (qint64 p = 0; p < end; ++p) {
            const float next = static_cast<float>(p + 1) * theta32;
            if (next == previous)
                return p;
            previous = next;
        }
        return -1;
    }
    // HF holds inv_freq in float32; autocast casts that float32 value to the dtype.
    const double rounded = roundToDtype(double(static_cast<float>(theta)), dtype);
    double previous = 0.0;
    for (qint64 p = 0; p < end; ++p) {
        // The product of two bfloat16 / float16 values is exact in float64; one rounding after.
        const double next = roundToDtype(roundToDtype(double(p + 1), dtype) * rounded, dtype);
        if (next == previous)
            return p;
        previous = next;
    }
    return -1;
}

void fillPairs(ContextReport &report, const std::vector<double> &unscaled,
               const std::vector<double> &scaled)
{
    const double factor = ropeEffectiveFactor(report.config).value_or(1.0);
    double fullScale = factor;
    if (report.config.ropeType == RopeType::Dynamic || report.config.ropeType == RopeType::Ntk)
        for (std::size_t k = 0; k < scaled.size(); ++k)
            if (scaled[k] > 0)
                fullScale =
                    k == 0 ? unscaled[k] / scaled[k] : std::max(fullScale, unscaled[k] / scaled[k]);
    const qint64 last = report.context - 1;
    const auto lastPosition = static_cast<float>(last);
    for (std::size_t k = 0; k < scaled.size(); ++k) {
        ContextPair pair;
        pair.index = qint64(k);
        pair.unscaled = unscaled[k];
        pair.scaled = scaled[k];
        pair.ratio = scaled[k] > 0 ? unscaled[k] / scaled[k] : 1.0;
        pair.wavelength =
            scaled[k] > 0 ? twoPi / scaled[k] : std::numeric_limits<double>::infinity();
        pair.turnsTraining = double(report.trainingContext) * unscaled[k] / twoPi;
        pair.turnsClaimed = double(report.context) * scaled[k] / twoPi;
        pair.beyondCritical = unscaled[k] > 0 && pair.turnsTraining < 1.0;
        pair.treatment = treatmentOf(unscaled[k], scaled[k], fullScale);
        if (scaled[k] > 0)
            pair.firstCollision =
                firstCollisionIn(scaled[k], report.dtype, report.precisionScanEnd);
        // HF's forward: inv_freq in float32, position ids cast to float32, one float32 product.
        const float angle32 = lastPosition * static_cast<float>(scaled[k]);
        pair.float32Error = std::abs(double(angle32) - double(last) * scaled[k]);
        pair.float32ErrorTurns = pair.float32Error / twoPi;
        report.pairs.push_back(pair);
    }
}

void fillBound(ContextReport &report, const std::vector<double> &scaled)
{
    std::vector<double> rotating;
    for (double t : scaled)
        if (t > 0)
            rotating.push_back(t);
    ContextBaseBound &bound = report.bound;
    bound.distanceLimit =
        report.window > 0 ? std::min(report.window, report.context) : report.context;
    // 16 times the limit, to say how far beyond it the bound holds, within the budget (which
    // may stop the scan short of a long claimed context: the text says so).
    const auto budget = qint64(scanBudget / double(std::max<std::size_t>(rotating.size(), 1)));
    bound.scanEnd = std::min(16 * bound.distanceLimit, budget);
    bound.firstNegative = ropeBaseBoundFirstNegative(rotating, bound.scanEnd);
    if (bound.distanceLimit <= baseSearchMaxDistance)
        bound.minimumBase = ropeMinimumBase(2 * qint64(rotating.size()), bound.distanceLimit);
}

void fillDecay(ContextReport &report, const std::vector<double> &unscaled,
               const std::vector<double> &scaled)
{
    ContextDecay &decay = report.decay;
    decay.distances = decayDistances(report.context - 1, decaySamples);
    decay.scaled = ropeDecayCurve(scaled, report.headDim, decay.distances);
    decay.unscaled = ropeDecayCurve(unscaled, report.headDim, decay.distances);
}

// "pairs 0–33 unchanged, 34–45 blended, 46–63 interpolated"
QString treatmentRuns(const std::vector<ContextPair> &pairs)
{
    QStringList runs;
    std::size_t start = 0;
    for (std::size_t k = 1; k <= pairs.size(); ++k) {
        if (k < pairs.size() && pairs[k].treatment == pairs[start].treatment)
            continue;
        runs << runText(qint64(start), qint64(k - 1)) + QLatin1Char(' ') +
                    nameOf(pairTreatmentNames, pairs[start].treatment);
        start = k;
    }
    return QStringLiteral("pairs ") + runs.join(QStringLiteral(", "));
}

// Runs of the pairs where `has` holds: "0–3, 7".
template <class Predicate> QString pairRuns(const std::vector<ContextPair> &pairs, Predicate has)
{
    QStringList runs;
    qint64 start = -1;
    for (std::size_t k = 0; k <= pairs.size(); ++k) {
        const bool in = k < pairs.size() && has(pairs[k]);
        if (in && start < 0)
            start = qint64(k);
        if (!in && start >= 0) {
            runs << runText(start, qint64(k) - 1);
            start = -1;
        }
    }
    return runs.join(QStringLiteral(", "));
}

QString ruleText(const RopeConfig &config, qint64 training, const QString &origin)
{
    QString base = QStringLiteral("rope_theta ") + grouped(config.ropeTheta);
    if (config.ropeType == RopeType::Default)
        return base;
    const double factor = ropeEffectiveFactor(config).value_or(1.0);
    return QStringLiteral("%1 with %2 x%3 from %4 (%5)")
        .arg(base, ropeTypeName(config.ropeType), grouped(factor), count(training), origin);
}

QString boundText(const ContextReport &r)
{
    const ContextBaseBound &b = r.bound;
    const QString within = r.window > 0 ? QStringLiteral("the %1 of %2")
                                              .arg(r.chunked ? QStringLiteral("attention chunk")
                                                             : QStringLiteral("sliding window"),
                                                   count(r.window))
                                        : QStringLiteral("the claimed %1").arg(count(r.context));
    QString text;
    if (b.firstNegative == 0 && b.scanEnd < b.distanceLimit)
        text = QStringLiteral("B(m) (Men et al. 2024) stays non-negative to %1, where the scan "
                              "stopped short of %2")
                   .arg(count(b.scanEnd), within);
    else if (b.firstNegative == 0)
        text = QStringLiteral("B(m) (Men et al. 2024) stays non-negative to %1 (the scan's end; "
                              "%2)")
                   .arg(count(b.scanEnd), within);
    else if (b.firstNegative <= b.distanceLimit)
        text = QStringLiteral("B(m) (Men et al. 2024) turns negative at m = %1, inside %2: the "
                              "base is too small for this context by their bound")
                   .arg(count(b.firstNegative), within);
    else
        text = QStringLiteral("B(m) (Men et al. 2024) stays non-negative to %1 and turns "
                              "negative at m = %2, beyond %3")
                   .arg(count(b.firstNegative - 1), count(b.firstNegative), within);
    if (b.minimumBase > 0)
        text += QStringLiteral("; the smallest base (default rule) with B(m) >= 0 up to %1 for "
                               "%2 rotated dims is %3")
                    .arg(count(b.distanceLimit))
                    .arg(r.rotaryDims)
                    .arg(count(qint64(std::llround(b.minimumBase))));
    else if (b.distanceLimit > baseSearchMaxDistance)
        text += QStringLiteral("; the smallest base is not searched beyond %1")
                    .arg(count(baseSearchMaxDistance));
    else
        text += QStringLiteral("; no base up to 1e12 keeps B(m) >= 0 up to %1 for %2 rotated dims")
                    .arg(count(b.distanceLimit))
                    .arg(r.rotaryDims);
    return text;
}

QString dtypeName(ContextDtype dtype)
{
    return nameOf(contextDtypeNames, dtype);
}

QString precisionText(const ContextReport &r)
{
    const QString name = dtypeName(r.dtype);
    QString text =
        r.context <= r.exactPositions
            ? QStringLiteral("position ids exact in %1 (every id up to %2 is; the context ends "
                             "at %3)")
                  .arg(name, count(r.exactPositions), count(r.context - 1))
            : QStringLiteral("position ids in %1 are exact up to %2 only: %3 rounds onto %2, so "
                             "positions collide from there (the context ends at %4)")
                  .arg(name, count(r.exactPositions), count(r.exactPositions + 1),
                       count(r.context - 1));
    if (r.dtype == ContextDtype::Float32)
        text += QStringLiteral("; bfloat16 would keep them exact only up to %1, float16 up to %2")
                    .arg(count(qint64(1) << contextDtypeSignificandBits(ContextDtype::BFloat16)),
                         count(qint64(1) << contextDtypeSignificandBits(ContextDtype::Float16)));
    return text;
}

QString collisionText(const ContextReport &r)
{
    qint64 earliest = -1;
    qint64 pairOf = 0;
    for (const ContextPair &p : r.pairs)
        if (p.firstCollision >= 0 && (earliest < 0 || p.firstCollision < earliest)) {
            earliest = p.firstCollision;
            pairOf = p.index;
        }
    const QString name = dtypeName(r.dtype);
    if (earliest < 0)
        return QStringLiteral("angles formed in %1: neighbouring positions keep distinct angles "
                              "in every pair up to %2")
            .arg(name, count(r.precisionScanEnd));
    return QStringLiteral("angles formed in %1: neighbouring positions share an angle from "
                          "position %2 (pair %3 first)")
        .arg(name, count(earliest))
        .arg(pairOf);
}

QString float32Text(const ContextReport &r)
{
    const QString over = pairRuns(
        r.pairs, [&](const ContextPair &p) { return p.float32ErrorTurns > r.float32TurnLimit; });
    double worst = 0;
    for (const ContextPair &p : r.pairs)
        worst = std::max(worst, p.float32ErrorTurns);
    const QString head =
        QStringLiteral("HF's float32 angles at position %1").arg(count(r.context - 1));
    if (over.isEmpty())
        return QStringLiteral("%1 stay within 1/%2 of a turn of float64 in every pair (worst %3 "
                              "turns)")
            .arg(head, count(qint64(std::llround(1.0 / r.float32TurnLimit))),
                 QString::number(worst, 'g', 3));
    return QStringLiteral("%1 are off by more than 1/%2 of a turn in pairs %3 (worst %4 turns)")
        .arg(head, count(qint64(std::llround(1.0 / r.float32TurnLimit))), over,
             QString::number(worst, 'g', 3));
}

void buildVerdict(ContextReport &r)
{
    QString claim =
        QStringLiteral("%1: %2 claimed")
            .arg(ruleText(r.config, r.trainingContext, r.trainingContextOrigin), count(r.context));
    if (r.config.ropeType == RopeType::Default && r.context > r.trainingContext)
        claim += QStringLiteral(" (no scaling rule: positions beyond %1 are extrapolated)")
                     .arg(count(r.trainingContext));
    r.verdict << claim;
    QString pairs = treatmentRuns(r.pairs);
    if (r.attentionFactor != 1.0)
        pairs += QStringLiteral("; attention factor %1").arg(r.attentionFactor, 0, 'g', 6);
    if (r.softmaxScaleFactor != 1.0)
        pairs += QStringLiteral("; softmax scale x%1 (DeepSeek's mscale_all_dim)")
                     .arg(r.softmaxScaleFactor, 0, 'g', 6);
    r.verdict << pairs;
    const QString critical =
        pairRuns(r.pairs, [](const ContextPair &p) { return p.beyondCritical; });
    r.verdict << (critical.isEmpty()
                      ? QStringLiteral("every pair completes a turn within the %1 training tokens")
                            .arg(count(r.trainingContext))
                      : QStringLiteral("pairs %1 never complete a turn in %2 training tokens (the "
                                       "critical dimension, Liu et al. 2023)")
                            .arg(critical, count(r.trainingContext)));
    r.verdict << boundText(r);
    r.verdict << precisionText(r);
    r.verdict << collisionText(r);
    r.verdict << float32Text(r);
}

} // namespace

int contextDtypeSignificandBits(ContextDtype dtype)
{
    switch (dtype) {
    case ContextDtype::Float32:
        return 24;
    case ContextDtype::BFloat16:
        return 8;
    case ContextDtype::Float16:
        return 11;
    }
    return 24;
}

double roundToDtype(double x, ContextDtype dtype)
{
    if (dtype == ContextDtype::Float32)
        return double(static_cast<float>(x));
    if (!std::isfinite(x) || x == 0.0)
        return x;
    // bfloat16: float32's exponent range; float16: normal exponents -14..15, largest 65504.
    const bool half = dtype == ContextDtype::Float16;
    const int bits = contextDtypeSignificandBits(dtype);
    const int minExponent = half ? -14 : -126;
    const double largest = half ? 65504.0 : double(std::numeric_limits<float>::max());
    int exponent = 0;
    std::frexp(x, &exponent); // x = f · 2^exponent, 0.5 <= |f| < 1
    const int e = std::max(exponent - 1, minExponent);
    const double quantum = std::ldexp(1.0, e - (bits - 1));
    const double rounded = std::nearbyint(x / quantum) * quantum; // ties to even
    // Beyond the largest finite value by half a quantum or more: infinity.
    const double limit = largest + std::ldexp(1.0, std::ilogb(largest) - bits);
    if (std::abs(rounded) >= limit || std::abs(rounded) > largest)
        return std::copysign(std::numeric_limits<double>::infinity(), x);
    return rounded;
}

qint64 contextTrainingLength(const RopeConfig &config, QString *origin)
{
    const auto say = [&](const char *text) {
        if (origin)
            *origin = QString::fromLatin1(text);
    };
    if (config.originalMaxPositionEmbeddings > 0 && config.ropeType != RopeType::Dynamic) {
        say("original_max_position_embeddings");
        return config.originalMaxPositionEmbeddings;
    }
    const qint64 maxPositions = std::max<qint64>(config.maxPositionEmbeddings, 1);
    const double factor = ropeEffectiveFactor(config).value_or(1.0);
    const bool scalesPositions = config.ropeType == RopeType::Linear ||
                                 config.ropeType == RopeType::Proportional ||
                                 config.ropeType == RopeType::Ntk;
    if (scalesPositions && factor > 1.0) {
        say("max_position_embeddings / factor: the config names no original context");
        return std::max<qint64>(1, qint64(std::llround(double(maxPositions) / factor)));
    }
    say("max_position_embeddings");
    return maxPositions;
}

std::vector<double> ropeDefaultFrequencies(double base, qint64 rotaryDims)
{
    std::vector<double> theta(std::size_t((rotaryDims + 1) / 2));
    for (std::size_t k = 0; k < theta.size(); ++k)
        theta[k] = 1.0 / std::pow(base, double(2 * k) / double(rotaryDims));
    return theta;
}

namespace {

// B(m) < 0 for an m between `first` and `last` (inclusive), visited from `first` towards `last`
// (down when first > last): the first such m met, else 0. Each pair's (cos, sin) turns by ±θ per
// step and is recomputed with std::cos / std::sin every reanchorSteps steps.
qint64 scanForNegative(std::span<const double> theta, qint64 first, qint64 last)
{
    const qint64 direction = last >= first ? 1 : -1;
    const std::size_t n = theta.size();
    std::vector<double> c(n), s(n), stepCos(n), stepSin(n);
    for (std::size_t i = 0; i < n; ++i) {
        stepCos[i] = std::cos(theta[i]);
        stepSin[i] = double(direction) * std::sin(theta[i]);
    }
    const qint64 steps = (last - first) * direction + 1;
    for (qint64 done = 0; done < steps; done += reanchorSteps) {
        const qint64 start = first + direction * done;
        for (std::size_t i = 0; i < n; ++i) {
            c[i] = std::cos(double(start) * theta[i]);
            s[i] = std::sin(double(start) * theta[i]);
        }
        const qint64 block = std::min(reanchorSteps, steps - done);
        for (qint64 j = 0; j < block; ++j) {
            double sum = 0.0;
            for (std::size_t i = 0; i < n; ++i)
                sum += c[i];
            if (sum < 0.0)
                return start + direction * j;
            // (cos, sin) of (m ± 1)θ from mθ: one rotation by ±θ.
            for (std::size_t i = 0; i < n; ++i) {
                const double nextCos = c[i] * stepCos[i] - s[i] * stepSin[i];
                s[i] = c[i] * stepSin[i] + s[i] * stepCos[i];
                c[i] = nextCos;
            }
        }
    }
    return 0;
}

} // namespace

qint64 ropeBaseBoundFirstNegative(std::span<const double> theta, qint64 end)
{
    return end < 1 ? 0 : scanForNegative(theta, 1, end);
}

double ropeBaseGridValue(int k)
{
    return std::exp2(double(k) / double(baseGridSteps));
}

std::vector<double> ropeMinimumBases(qint64 rotaryDims, std::span<const qint64> distances)
{
    std::vector<double> out(distances.size(), 0.0);
    if (distances.empty() || rotaryDims < 2 ||
        *std::max_element(distances.begin(), distances.end()) > baseSearchMaxDistance)
        return out;
    // A base that keeps B >= 0 up to a distance keeps it up to every shorter one, so each
    // distance's walk starts where the shorter one's stopped. A failing base needs one negative
    // B(m), and the scan looks for it from the distance down, where it lies for the bases near
    // the answer; only a passing base costs the whole scan.
    int k = baseGridSteps;
    for (std::size_t d = 0; d < distances.size(); ++d) {
        for (; ropeBaseGridValue(k) <= baseGridMax; ++k)
            if (scanForNegative(ropeDefaultFrequencies(ropeBaseGridValue(k), rotaryDims),
                                distances[d], 1) == 0)
                break;
        if (ropeBaseGridValue(k) > baseGridMax)
            break;
        out[d] = ropeBaseGridValue(k);
    }
    return out;
}

double ropeMinimumBase(qint64 rotaryDims, qint64 distance)
{
    const qint64 distances[] = {distance};
    return ropeMinimumBases(rotaryDims, distances).front();
}

std::optional<ContextReport> contextReport(const ContextRequest &request, QString *error)
{
    ContextReport report;
    report.config = request.config;
    report.config.sequenceLength = request.context;
    report.headDim = request.headDim;
    report.context = request.context;
    // A window as long as the context limits nothing (Phi-3's 262,144 at 131,072).
    report.window = request.window < request.context ? request.window : 0;
    report.chunked = report.window > 0 && request.chunked;
    report.dtype = request.dtype;
    report.source = request.source;
    if (request.context < 1 || request.context > ropeMaxContext) {
        *error = QStringLiteral("the context must be between 1 and %1 (got %2)")
                     .arg(ropeMaxContext)
                     .arg(request.context);
        return std::nullopt;
    }
    if (QString problem = ropeConfigProblem(request.headDim, report.config); !problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    const RopeFrequencies scaled = ropeInverseFrequencies(request.headDim, report.config);
    const RopeFrequencies plain =
        ropeInverseFrequencies(request.headDim, unscaledConfig(report.config));
    if (scaled.inverseFrequencies.size() != plain.inverseFrequencies.size()) {
        *error = QStringLiteral("the unscaled rule gives another number of pairs");
        return std::nullopt;
    }
    report.rotaryDims = ropeRotaryDims(request.headDim, report.config);
    report.attentionFactor = scaled.attentionFactor;
    const RopeConfig &c = report.config;
    if (c.ropeType == RopeType::Yarn && c.mscaleAllDim && *c.mscaleAllDim != 0.0) {
        const double m = ropeYarnGetMscale(ropeEffectiveFactor(c).value_or(1.0), *c.mscaleAllDim);
        report.softmaxScaleFactor = m * m;
    }
    report.trainingContext = contextTrainingLength(c, &report.trainingContextOrigin);
    const int bits = contextDtypeSignificandBits(request.dtype);
    report.exactPositions = qint64(1) << bits;
    // A collision is certain by 2^bits + 1 (that id rounds onto 2^bits); beyond the context
    // none matters.
    report.precisionScanEnd = std::min(report.context - 1, report.exactPositions + 1);
    fillPairs(report, plain.inverseFrequencies, scaled.inverseFrequencies);
    fillBound(report, scaled.inverseFrequencies);
    fillDecay(report, plain.inverseFrequencies, scaled.inverseFrequencies);
    if (report.window > 0)
        report.notes << QStringLiteral("%1: it attends over at most %2 tokens, so B(m) matters "
                                       "up to that distance")
                            .arg(report.chunked ? QStringLiteral("a chunked-attention layer")
                                                : QStringLiteral("a sliding-window layer"),
                                 count(report.window));
    if (ropeReadsSequenceLength(c.ropeType))
        report.notes << ropeSequenceLengthNote(request.headDim, c,
                                               QStringLiteral("the claimed context"));
    buildVerdict(report);
    return report;
}

qint64 contextFirstCollision(double theta, ContextDtype dtype, qint64 end)
{
    return theta > 0 ? firstCollisionIn(theta, dtype, end) : -1;
}

ContextBoundCurve contextBaseBoundCurve(const ContextReport &report, qint64 samples)
{
    std::vector<double> theta;
    for (const ContextPair &p : report.pairs)
        if (p.scaled > 0)
            theta.push_back(p.scaled);
    const ContextBaseBound &b = report.bound;
    qint64 end = std::max<qint64>(1, b.distanceLimit);
    if (b.firstNegative > end && b.firstNegative <= 4 * end)
        end = b.firstNegative + b.firstNegative / 8;
    ContextBoundCurve curve;
    curve.distances = decayDistances(end, std::max<qint64>(2, samples));
    // The first negative m itself, so that the drawn curve dips where the report says.
    if (b.firstNegative > 0 && b.firstNegative <= end) {
        const auto m = double(b.firstNegative);
        const auto at = std::lower_bound(curve.distances.begin(), curve.distances.end(), m);
        if (at == curve.distances.end() || *at != m)
            curve.distances.insert(at, m);
    }
    curve.values.reserve(curve.distances.size());
    for (double m : curve.distances) {
        double sum = 0.0;
        for (double t : theta)
            sum += std::cos(m * t);
        curve.values.push_back(sum);
    }
    return curve;
}

ContextFigureNumbers contextFigureNumbers(ContextReport report)
{
    ContextFigureNumbers out;
    out.bound = contextBaseBoundCurve(report, contextBoundSamples);
    for (const auto &[dtype, collisions] :
         {std::pair{ContextDtype::BFloat16, &out.bfloat16Collisions},
          std::pair{ContextDtype::Float16, &out.float16Collisions}}) {
        const qint64 exact = qint64(1) << contextDtypeSignificandBits(dtype);
        const qint64 end = std::min(report.context - 1, exact + 1);
        for (const ContextPair &p : report.pairs)
            collisions->push_back(contextFirstCollision(p.scaled, dtype, end));
    }
    out.report = std::move(report);
    return out;
}

QStringList contextReportText(const ContextReport &r)
{
    QStringList out;
    out << QStringLiteral("%1: %2 of %3 head dims rotated")
               .arg(r.source)
               .arg(r.rotaryDims)
               .arg(r.headDim);
    for (const QString &line : r.verdict)
        out << QStringLiteral("  ") + line;
    for (const QString &line : r.notes)
        out << QStringLiteral("  note: ") + line;
    out << QString()
        << QStringLiteral("pair  theta unscaled  theta scaled  ratio    wavelength  "
                          "turns@train  turns@claimed  critical  rule          %1 collides@  "
                          "f32 err@last (turns)")
               .arg(dtypeName(r.dtype));
    for (const ContextPair &p : r.pairs)
        out << QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9  %10  %11")
                   .arg(p.index, 4)
                   .arg(p.unscaled, 14, 'g', 6)
                   .arg(p.scaled, 12, 'g', 6)
                   .arg(p.ratio, 7, 'g', 4)
                   .arg(p.wavelength, 10, 'g', 5)
                   .arg(std::floor(p.turnsTraining), 11, 'f', 0)
                   .arg(std::floor(p.turnsClaimed), 13, 'f', 0)
                   .arg(p.beyondCritical ? QStringLiteral("yes") : QStringLiteral("no"), 8)
                   .arg(nameOf(pairTreatmentNames, p.treatment), -12)
                   .arg(p.firstCollision >= 0 ? QString::number(p.firstCollision)
                                              : QStringLiteral("none"),
                        -11 - int(dtypeName(r.dtype).size()))
                   .arg(p.float32ErrorTurns, 0, 'g', 3);
    out << QString()
        << QStringLiteral("RoFormer decay (q = k = ones; score at distance / score at 0):")
        << QStringLiteral("  distance      scaled    unscaled");
    const std::size_t n = r.decay.distances.size();
    for (std::size_t k = 0; k < n; k += std::max<std::size_t>(1, n / 16))
        out << QStringLiteral("  %1  %2  %3")
                   .arg(r.decay.distances[k], 8, 'f', 0)
                   .arg(r.decay.scaled[k], 10, 'f', 5)
                   .arg(r.decay.unscaled[k], 10, 'f', 5);
    if (n > 0)
        out << QStringLiteral("  %1  %2  %3")
                   .arg(r.decay.distances[n - 1], 8, 'f', 0)
                   .arg(r.decay.scaled[n - 1], 10, 'f', 5)
                   .arg(r.decay.unscaled[n - 1], 10, 'f', 5);
    return out;
}

namespace {

QJsonArray numbers(const std::vector<double> &values)
{
    QJsonArray out;
    for (double v : values)
        out.append(v);
    return out;
}

// JSON has no infinity: a pair that never turns has a null wavelength.
QJsonValue finiteOrNull(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

} // namespace

QJsonObject contextReportJson(const ContextReport &r)
{
    QJsonArray pairs;
    for (const ContextPair &p : r.pairs)
        pairs.append(QJsonObject{
            {QStringLiteral("index"), p.index},
            {QStringLiteral("inv_freq_unscaled"), p.unscaled},
            {QStringLiteral("inv_freq_scaled"), p.scaled},
            {QStringLiteral("ratio"), p.ratio},
            {QStringLiteral("wavelength"), finiteOrNull(p.wavelength)},
            {QStringLiteral("turns_training"), p.turnsTraining},
            {QStringLiteral("turns_claimed"), p.turnsClaimed},
            {QStringLiteral("beyond_critical_dimension"), p.beyondCritical},
            {QStringLiteral("rule"), nameOf(pairTreatmentNames, p.treatment)},
            {QStringLiteral("first_angle_collision"), p.firstCollision},
            {QStringLiteral("float32_angle_error"), p.float32Error},
            {QStringLiteral("float32_angle_error_turns"), p.float32ErrorTurns},
        });
    const QJsonObject bound{
        {QStringLiteral("distance_limit"), r.bound.distanceLimit},
        {QStringLiteral("scan_end"), r.bound.scanEnd},
        {QStringLiteral("first_negative"), r.bound.firstNegative},
        {QStringLiteral("minimum_base"),
         r.bound.minimumBase > 0 ? QJsonValue(r.bound.minimumBase) : QJsonValue(QJsonValue::Null)},
    };
    const QJsonObject decay{
        {QStringLiteral("distances"), numbers(r.decay.distances)},
        {QStringLiteral("scaled"), numbers(r.decay.scaled)},
        {QStringLiteral("unscaled"), numbers(r.decay.unscaled)},
    };
    return QJsonObject{
        {QStringLiteral("source"), r.source},
        {QStringLiteral("rope_parameters"), ropeConfigToJson(r.config)},
        {QStringLiteral("head_dim"), r.headDim},
        {QStringLiteral("rotary_dims"), r.rotaryDims},
        {QStringLiteral("training_context"), r.trainingContext},
        {QStringLiteral("training_context_from"), r.trainingContextOrigin},
        {QStringLiteral("context"), r.context},
        {QStringLiteral("sliding_window"), r.chunked ? 0 : r.window},
        {QStringLiteral("attention_chunk"), r.chunked ? r.window : 0},
        {QStringLiteral("dtype"), dtypeName(r.dtype)},
        {QStringLiteral("attention_factor"), r.attentionFactor},
        {QStringLiteral("softmax_scale_factor"), r.softmaxScaleFactor},
        {QStringLiteral("exact_positions"), r.exactPositions},
        {QStringLiteral("precision_scan_end"), r.precisionScanEnd},
        {QStringLiteral("float32_turn_limit"), r.float32TurnLimit},
        {QStringLiteral("verdict"), QJsonArray::fromStringList(r.verdict)},
        {QStringLiteral("notes"), QJsonArray::fromStringList(r.notes)},
        {QStringLiteral("pairs"), pairs},
        {QStringLiteral("base_bound"), bound},
        {QStringLiteral("decay"), decay},
    };
}

} // namespace pe
