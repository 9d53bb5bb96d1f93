#include "ropeverify.h"

#include "ropeverifymodel.h"

#include <QtCore/qfloat16.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

namespace pe {

using namespace verifymodel;

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double float32Unit = 1.0 / 16777216.0; // 2^-24
// CUDA's documented maximum absolute error of __cosf in [-pi, pi] (__sinf's is 2^-21.41).
const double fastTrigError = std::exp2(-21.19);

QString shortNumber(double x)
{
    return QString::number(x, 'g', 3);
}

bool isTable(RopeQuantity what)
{
    return what == RopeQuantity::Cos || what == RopeQuantity::Sin || what == RopeQuantity::CosSin;
}

RopeLayout layoutOf(RopePairing pairing)
{
    return pairing == RopePairing::Half ? RopeLayout::Half : RopeLayout::Interleaved;
}

// The share of cells (row, i < count) where column a(i) equals column b(i).
template <typename A, typename B>
double repeatShare(const RopeTable &t, qint64 count, A a, B b, double eps)
{
    qint64 equal = 0;
    for (qint64 r = 0; r < t.rows; ++r)
        for (qint64 i = 0; i < count; ++i)
            equal += std::abs(t.at(r, a(i)) - t.at(r, b(i))) <= eps ? 1 : 0;
    return double(equal) / double(std::max<qint64>(t.rows * count, 1));
}

// The share of cells where the point (column a(i), column b(i)) lies on the circle of row 0's
// first pair: cos^2 + sin^2 is the same scale^2 for every pair and position.
template <typename A, typename B>
double circleShare(const RopeTable &t, qint64 count, A a, B b, double eps)
{
    const auto square = [&](qint64 r, qint64 i) {
        return t.at(r, a(i)) * t.at(r, a(i)) + t.at(r, b(i)) * t.at(r, b(i));
    };
    const double radius = square(0, 0);
    qint64 on = 0;
    for (qint64 r = 0; r < t.rows; ++r)
        for (qint64 i = 0; i < count; ++i)
            on += std::abs(square(r, i) - radius) <= 1e-3 * radius + eps ? 1 : 0;
    return double(on) / double(std::max<qint64>(t.rows * count, 1));
}

// The better of half (share `half`) and interleaved; a tie goes to the model's own pairing.
RopeLayout betterPairing(double half, double interleaved, RopePairing pairing)
{
    if (half != interleaved)
        return half > interleaved ? RopeLayout::Half : RopeLayout::Interleaved;
    return layoutOf(pairing);
}

// The layout the candidate's values show (see RopeLayout): cos and sin tables repeat each pair's
// column (half: i and i + m; interleaved: 2i and 2i + 1), cos-sin tables put each pair's cos and
// sin on a circle; the arrangement more cells follow wins, so a few wrong values do not change
// it. A cos / sin table of any width but twice the pair count is one column per pair unless it
// repeats its columns exactly. Where the values cannot tell (a single row at position 0), the
// model's own pairing decides.
RopeLayout detectLayout(const RopeTable &t, RopeQuantity what, qint64 pairs, qint64 headDim,
                        RopePairing pairing, double eps)
{
    const qint64 columns = t.columns;
    const auto first = [](qint64 i) { return i; };
    const auto even = [](qint64 i) { return 2 * i; };
    const auto odd = [](qint64 i) { return 2 * i + 1; };
    if (what != RopeQuantity::CosSin) {
        if (columns % 2 != 0)
            return RopeLayout::PerPair;
        const qint64 m = columns / 2;
        const auto second = [m](qint64 i) { return i + m; };
        const double half = repeatShare(t, m, first, second, eps);
        const double interleaved = repeatShare(t, m, even, odd, eps);
        // Distinct frequencies never repeat a column over several rows: a table of the expected
        // width that does is half as many pairs, repeated (another rotary width).
        const bool repeats = t.rows > 1 && std::max(half, interleaved) == 1.0;
        if (columns == 2 * pairs || repeats)
            return betterPairing(half, interleaved, pairing);
        return RopeLayout::PerPair;
    }
    const qint64 rotary = columns == headDim && headDim > 2 * pairs ? 2 * pairs : columns;
    if (rotary % 2 != 0 || t.rows < 1)
        return layoutOf(pairing);
    const qint64 m = rotary / 2;
    return betterPairing(circleShare(
                             t, m, first, [m](qint64 i) { return i + m; }, eps),
                         circleShare(t, m, even, odd, eps), pairing);
}

QString expectedShapes(RopeQuantity what, qint64 pairs, qint64 headDim)
{
    if (what == RopeQuantity::CosSin)
        return QStringLiteral("expected positions x %1 (the rotary dims: cos and sin of %2 pairs, "
                              "half or interleaved%3) or positions x %2 x 2 (complex pairs)")
            .arg(2 * pairs)
            .arg(pairs)
            .arg(headDim > 2 * pairs
                     ? QStringLiteral(", or x %1 with the pass-through columns").arg(headDim)
                     : QString());
    return QStringLiteral("expected positions x %1 (the rotary dims, half or interleaved) or "
                          "positions x %2 (one column per pair)")
        .arg(2 * pairs)
        .arg(pairs);
}

// Fills the comparison of every value against the model (differences, errors, the first and
// worst cells, the error grid) and returns how many values lie beyond the tolerance of the
// reference rounded to the candidate's precision.
void compareTable(const RopeTable &candidate, const TableModel &reference,
                  const RopeVerifyOptions &options, qint64 pairs, RopeVerifyResult *result)
{
    const qint64 columns = candidate.columns;
    RopeErrorGrid &grid = result->errors;
    if (options.errorGridRows > 0) {
        grid.rowsPerBin = std::max<qint64>(1, (candidate.rows + options.errorGridRows - 1) /
                                                  options.errorGridRows);
        grid.rows = (candidate.rows + grid.rowsPerBin - 1) / grid.rowsPerBin;
        grid.pairs = pairs;
        grid.error.assign(std::size_t(grid.rows * grid.pairs), 0.0f);
    }
    double worstDiff = -1;
    result->compared = qint64(candidate.values.size());
    // Relative to the pair's magnitude (the scale; pass-through columns: 1).
    const double magnitude = reference.scale != 0.0 ? std::abs(reference.scale) : 1.0;
    for (qint64 i = 0; i < result->compared; ++i) {
        const qint64 row = i / columns, column = i % columns;
        const double got = candidate.values[std::size_t(i)];
        const double want = reference.value(row, column);
        const double diff = std::isnan(got - want) ? infinity : std::abs(got - want);
        const qint64 pair = reference.roles[std::size_t(column)].pair;
        const RopeCell cell{row, column, pair, got, want};
        result->maxAbsError = std::max(result->maxAbsError, diff);
        result->maxRelError = std::max(result->maxRelError, diff / (pair >= 0 ? magnitude : 1.0));
        if (diff > worstDiff) {
            worstDiff = diff;
            result->worst = cell;
        }
        if (!grid.error.empty() && pair >= 0) {
            float &e = grid.error[std::size_t((row / grid.rowsPerBin) * grid.pairs + pair)];
            e = std::max(e, float(diff));
        }
        const double rounded = roundTo(options.precision, want);
        if (!(std::abs(got - rounded) <= options.tolerance) && result->differing++ == 0)
            result->first = cell;
    }
    // The angle error of pairs whose cos and sin the table both holds.
    std::vector<qint64> cosColumn(std::size_t(pairs), -1), sinColumn(std::size_t(pairs), -1);
    for (qint64 c = 0; c < columns; ++c) {
        const ColumnRole &role = reference.roles[std::size_t(c)];
        if (role.pair >= 0 && role.pair < pairs)
            (role.cosine ? cosColumn : sinColumn)[std::size_t(role.pair)] = c;
    }
    for (qint64 pair = 0; pair < pairs; ++pair) {
        const qint64 c = cosColumn[std::size_t(pair)], s = sinColumn[std::size_t(pair)];
        if (c < 0 || s < 0)
            continue;
        result->maxAngleError = std::max(result->maxAngleError, 0.0);
        for (qint64 row = 0; row < candidate.rows; ++row) {
            const double got = std::atan2(candidate.at(row, s), candidate.at(row, c));
            const double want = std::atan2(reference.value(row, s), reference.value(row, c));
            double e = std::abs(std::remainder(got - want, 2.0 * std::numbers::pi));
            if (std::isnan(e))
                e = infinity;
            result->maxAngleError = std::max(result->maxAngleError, e);
        }
    }
}

// The cell farthest beyond `allowance` (or nearest to it), as a multiple of its bound there.
void worstAgainst(const RopeTable &candidate, const TableModel &model, const Allowance &allowance,
                  RopeVerifyResult *result)
{
    const qint64 columns = candidate.columns;
    const qint64 count = qint64(candidate.values.size());
    result->worstRatio = -1;
    for (qint64 i = 0; i < count; ++i) {
        const qint64 row = i / columns, column = i % columns;
        const double got = candidate.values[std::size_t(i)];
        const double want = model.value(row, column);
        const double diff = std::isnan(got - want) ? infinity : std::abs(got - want);
        const double bound = allowance.bound(model, row, column);
        const double ratio = bound > 0.0 ? diff / bound : (diff > 0.0 ? infinity : 0.0);
        if (ratio > result->worstRatio) {
            result->worstRatio = ratio;
            result->worstAllowance = bound;
            result->worstAllowed = {row, column, model.roles[std::size_t(column)].pair, got, want};
        }
    }
}

RopeAgreement agreementOf(Float32Method method)
{
    switch (method) {
    case Float32Method::None:
        return RopeAgreement::Exact;
    case Float32Method::Values:
        return RopeAgreement::RoundedValues;
    case Float32Method::Product:
        return RopeAgreement::RoundedAngles;
    case Float32Method::Recurrence:
        return RopeAgreement::AccumulatedAngles;
    case Float32Method::FastTrig:
        return RopeAgreement::ApproximateTrig;
    }
    return RopeAgreement::Differs;
}

// The verdict's level, strictest first (see RopeAgreement), the allowance it accepted and the
// cell nearest to (or farthest beyond) the allowance that applies.
void grade(const RopeTable &candidate, const TableModel &reference, const Allowance &base,
           bool strict, RopeVerifyResult *result)
{
    const qint64 columns = candidate.columns;
    Float32Method method = Float32Method::None;
    if (result->differing == 0) {
        result->agreement = RopeAgreement::Exact;
    } else {
        method = tableMethod(candidate, reference, base);
        result->agreement =
            method == Float32Method::None ? RopeAgreement::Differs : agreementOf(method);
        if (method != Float32Method::None) {
            const qint64 worst = result->worst.position * columns + result->worst.column;
            const Allowance a = base.with(method);
            result->roundingAllowance =
                a.bound(reference, worst / columns, worst % columns) - a.tolerance;
        }
    }
    // The allowance the report measures against: the agreeing computation's; for a difference
    // the widest one; with --strict the tolerance alone (HF's reference rounded to the file's
    // type is what the exact verdict compares).
    Allowance against = base.with(method);
    if (result->agreement == RopeAgreement::Differs)
        against = base.with(Float32Method::FastTrig);
    if (strict || result->agreement == RopeAgreement::Exact)
        against = base.with(Float32Method::None);
    worstAgainst(candidate, reference, against, result);
}

QString float32Diagnosis(RopeAgreement agreement, RopeQuantity what, TensorDType precision)
{
    if (agreement == RopeAgreement::AccumulatedAngles)
        return isTable(what) ? QStringLiteral("float32 angles accumulated by repeated "
                                              "multiplication: every difference is within what "
                                              "theta *= theta_scale in float32 gives, as ggml does")
                             : QStringLiteral("float32 frequencies accumulated by repeated "
                                              "multiplication: every difference is within what "
                                              "theta_scale^i in float32 gives, as ggml does");
    if (agreement == RopeAgreement::ApproximateTrig)
        return QStringLiteral("fast approximate sine and cosine: every difference is within what "
                              "__sinf / __cosf (CUDA's -use_fast_math) of float32 angles give");
    if (agreement == RopeAgreement::RoundedValues)
        return QStringLiteral("%1 rounding of the values: every difference is within one %1 unit "
                              "of the float64 values")
            .arg(precision == TensorDType::F16 || precision == TensorDType::BF16
                     ? tensorDTypeName(precision)
                     : QStringLiteral("float32"));
    return isTable(what) ? QStringLiteral("float32 rounding of p*theta: every difference is within "
                                          "what float32 angles give (it grows with the position), "
                                          "as HF's own float32 forward computes them")
                         : QStringLiteral("float32 rounding of theta: every difference is within "
                                          "float32 precision of the frequencies, as HF computes "
                                          "inv_freq");
}

// Sets agrees and, for a strict comparison that only float32 explains, the diagnosis.
void settle(const RopeVerifyOptions &options, RopeVerifyResult *result)
{
    result->agrees = result->agreement == RopeAgreement::Exact ||
                     (!options.strict && result->agreement != RopeAgreement::Differs);
    if (!result->agrees && result->agreement != RopeAgreement::Differs) {
        result->mistake = result->agreement == RopeAgreement::RoundedValues
                              ? RopeMistake::Float32Values
                              : RopeMistake::Float32Angles;
        result->diagnosis = float32Diagnosis(result->agreement, options.what, options.precision);
    }
}

void applyDiagnosis(const std::optional<Diagnosis> &diagnosis, RopeVerifyResult *result)
{
    if (diagnosis) {
        result->mistake = diagnosis->mistake;
        result->diagnosis = diagnosis->text;
        if (diagnosis->method == Float32Method::Recurrence)
            result->diagnosis += QStringLiteral(" (with float32 angles accumulated by repeated "
                                                "multiplication, as ggml computes them)");
        else if (diagnosis->method == Float32Method::FastTrig)
            result->diagnosis += QStringLiteral(" (with fast approximate sine and cosine of "
                                                "float32 angles)");
    } else {
        result->diagnosis = QStringLiteral("no known mistake explains this");
    }
}

std::optional<RopeVerifyResult> fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return std::nullopt;
}

std::optional<RopeVerifyResult> verifyTable(Context context, const RopeTable &candidate,
                                            QString *error)
{
    const RopeVerifyOptions &options = context.options;
    const std::vector<double> &theta = context.reference.inverseFrequencies;
    const qint64 n = qint64(theta.size());
    if (candidate.rows < 1)
        return fail(error, QStringLiteral("%1; the candidate is %2 x %3")
                               .arg(expectedShapes(options.what, n, context.headDim))
                               .arg(candidate.rows)
                               .arg(candidate.columns));
    RopeVerifyResult result;
    result.layout = options.layout;
    if (options.layout == RopeLayout::Auto) {
        result.layout = detectLayout(candidate, options.what, n, context.headDim,
                                     context.config.pairing, std::max(options.tolerance, 1e-6));
        result.layoutDetected = true;
    }
    if (result.layout == RopeLayout::PerPair && options.what == RopeQuantity::CosSin)
        return fail(error, QStringLiteral("one column per pair holds cos or sin, not both: give "
                                          "--what cos or sin"));
    if (result.layout == RopeLayout::Complex && options.what != RopeQuantity::CosSin)
        return fail(error, QStringLiteral("complex pairs hold cos and sin: give --what cos-sin"));
    const bool passThrough =
        options.what == RopeQuantity::CosSin && context.headDim > 2 * n &&
        candidate.columns == context.headDim &&
        (result.layout == RopeLayout::Half || result.layout == RopeLayout::Interleaved);
    result.pairs = passThrough ? n : pairsInColumns(options.what, result.layout, candidate.columns);
    context.layout = result.layout;
    context.candidatePairs = result.pairs;
    if (result.pairs != n) {
        // Another rotary width, or a table no layout explains.
        const std::optional<Diagnosis> width =
            result.pairs > 0 ? diagnoseTable(context, candidate) : std::nullopt;
        if (!width)
            return fail(error, QStringLiteral("%1; the candidate is %2 x %3")
                                   .arg(expectedShapes(options.what, n, context.headDim))
                                   .arg(candidate.rows)
                                   .arg(candidate.columns));
        result.agrees = false;
        result.agreement = RopeAgreement::Differs;
        result.compared = qint64(candidate.values.size());
        result.differing = result.compared;
        applyDiagnosis(width, &result);
        return result;
    }
    const TableModel reference{theta, context.referenceScale, 0,
                               columnRoles(options.what, result.layout, n, candidate.columns)};
    compareTable(candidate, reference, options, n, &result);
    grade(candidate, reference, context.allowance, options.strict, &result);
    settle(options, &result);
    if (result.agreement == RopeAgreement::Differs)
        applyDiagnosis(diagnoseTable(context, candidate), &result);
    return result;
}

std::optional<RopeVerifyResult> verifyFrequencies(const Context &context,
                                                  const RopeTable &candidate, QString *error)
{
    const RopeVerifyOptions &options = context.options;
    const std::vector<double> &theta = context.reference.inverseFrequencies;
    const qint64 n = qint64(theta.size());
    const bool vector = candidate.rows == 1 || candidate.columns == 1;
    RopeVerifyResult result;
    result.pairs = qint64(candidate.values.size());
    if (!vector || result.pairs != n) {
        Context width = context;
        width.candidatePairs = result.pairs;
        const std::optional<Diagnosis> found = vector && result.pairs > 0
                                                   ? diagnoseFrequencies(width, candidate.values)
                                                   : std::nullopt;
        if (!found)
            return fail(error, QStringLiteral("inv_freq has %1 values (1 x %1); the candidate is "
                                              "%2 x %3")
                                   .arg(n)
                                   .arg(candidate.rows)
                                   .arg(candidate.columns));
        result.agrees = false;
        result.agreement = RopeAgreement::Differs;
        result.compared = result.differing = result.pairs;
        applyDiagnosis(found, &result);
        return result;
    }
    double worstRel = -1;
    result.compared = n;
    for (qint64 i = 0; i < n; ++i) {
        const double got = candidate.values[std::size_t(i)];
        const double want = theta[std::size_t(i)];
        const double diff = std::isnan(got - want) ? infinity : std::abs(got - want);
        const RopeCell cell{-1, i, i, got, want};
        result.maxAbsError = std::max(result.maxAbsError, diff);
        const double rel = want != 0.0 ? diff / std::abs(want) : diff;
        if (want != 0.0)
            result.maxRelError = std::max(result.maxRelError, rel);
        if (rel > worstRel) {
            worstRel = rel;
            result.worst = cell;
        }
        const double rounded = roundTo(options.precision, want);
        const double bound =
            rounded != 0.0 ? options.tolerance * std::abs(rounded) : options.tolerance;
        if (!(std::abs(got - rounded) <= bound) && result.differing++ == 0)
            result.first = cell;
    }
    const qint64 w = result.worst.pair;
    if (result.differing == 0) {
        result.agreement = RopeAgreement::Exact;
    } else {
        const Float32Method method = vectorMethod(candidate.values, theta, context.allowance);
        result.agreement =
            method == Float32Method::None ? RopeAgreement::Differs : agreementOf(method);
        if (method != Float32Method::None)
            result.roundingAllowance =
                vectorBound(context.allowance.with(method), theta[std::size_t(w)], w);
    }
    settle(options, &result);
    if (result.agreement == RopeAgreement::Differs)
        applyDiagnosis(diagnoseFrequencies(context, candidate.values), &result);
    return result;
}

std::optional<RopeVerifyResult> verifyAttentionFactor(const Context &context,
                                                      const RopeTable &candidate, QString *error)
{
    if (candidate.values.size() != 1)
        return fail(error,
                    QStringLiteral("the attention factor is one value; the candidate is %1 x %2")
                        .arg(candidate.rows)
                        .arg(candidate.columns));
    const RopeVerifyOptions &options = context.options;
    const double want = context.reference.attentionFactor;
    const double got = candidate.values.front();
    RopeVerifyResult result;
    result.compared = 1;
    result.maxAbsError = std::isnan(got - want) ? infinity : std::abs(got - want);
    result.maxRelError = result.maxAbsError / std::abs(want);
    result.worst = {-1, -1, -1, got, want};
    const double rounded = roundTo(options.precision, want);
    const double unit = std::max(precisionSpacing(options.precision, std::abs(want)),
                                 precisionSpacing(TensorDType::F32, std::abs(want)));
    if (std::abs(got - rounded) <= options.tolerance * std::abs(rounded)) {
        result.agreement = RopeAgreement::Exact;
    } else {
        result.differing = 1;
        result.first = result.worst;
        const double bound = options.tolerance * std::abs(want) + unit;
        result.agreement =
            std::abs(got - want) <= bound ? RopeAgreement::RoundedValues : RopeAgreement::Differs;
        result.roundingAllowance = unit;
    }
    settle(options, &result);
    if (result.agreement == RopeAgreement::Differs)
        applyDiagnosis(diagnoseAttentionFactor(context, got), &result);
    return result;
}

} // namespace

namespace verifymodel {

qint64 pairsInColumns(RopeQuantity what, RopeLayout layout, qint64 columns)
{
    switch (layout) {
    case RopeLayout::PerPair:
        return what == RopeQuantity::CosSin ? 0 : columns;
    case RopeLayout::Complex:
        return what == RopeQuantity::CosSin && columns % 2 == 0 ? columns / 2 : 0;
    case RopeLayout::Half:
    case RopeLayout::Interleaved:
        return columns % 2 == 0 ? columns / 2 : 0;
    case RopeLayout::Auto:
        break;
    }
    return 0;
}

std::vector<ColumnRole> columnRoles(RopeQuantity what, RopeLayout layout, qint64 pairs,
                                    qint64 columns)
{
    std::vector<ColumnRole> roles(std::size_t(std::max<qint64>(columns, 0)));
    const bool both = what == RopeQuantity::CosSin;
    const bool cosTable = what == RopeQuantity::Cos;
    const bool adjacent = layout == RopeLayout::Interleaved || layout == RopeLayout::Complex;
    const qint64 rotary = std::min(columns, layout == RopeLayout::PerPair ? pairs : 2 * pairs);
    for (qint64 c = 0; c < columns; ++c) {
        ColumnRole &role = roles[std::size_t(c)];
        if (c >= rotary) { // pescope's pass-through block: the identity rotation
            const qint64 k = c - rotary;
            role.cosine = adjacent ? k % 2 == 0 : k < (columns - rotary) / 2;
        } else if (layout == RopeLayout::PerPair) {
            role = {c, cosTable};
        } else if (adjacent) {
            role = {c / 2, both ? c % 2 == 0 : cosTable};
        } else {
            role = {c < pairs ? c : c - pairs, both ? c < pairs : cosTable};
        }
    }
    return roles;
}

double precisionSpacing(TensorDType dtype, double magnitude)
{
    int mantissa = 0;
    switch (dtype) {
    case TensorDType::F32:
        mantissa = 23;
        break;
    case TensorDType::F16:
        mantissa = 10;
        break;
    case TensorDType::BF16:
        mantissa = 7;
        break;
    case TensorDType::Q8_0: // a step of the block's largest |value| / 127: 1 / 127 for cos / sin
        return 1.0 / 127.0;
    case TensorDType::F64:
    case TensorDType::Unsupported:
        return 0.0;
    }
    const double m = magnitude > 0.0 && std::isfinite(magnitude) ? magnitude : 1.0;
    return std::ldexp(1.0, int(std::floor(std::log2(m))) - mantissa);
}

double roundTo(TensorDType dtype, double x)
{
    switch (dtype) {
    case TensorDType::F32:
        return double(float(x));
    case TensorDType::F16:
        return double(float(qfloat16(float(x))));
    case TensorDType::BF16: {
        const auto bits = std::bit_cast<quint32>(float(x));
        if (std::isnan(x))
            return x;
        const quint32 rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
        return double(std::bit_cast<float>(rounded));
    }
    case TensorDType::Q8_0: // the rounding depends on the whole block: precisionSpacing allows it
    case TensorDType::F64:
    case TensorDType::Unsupported:
        break;
    }
    return x;
}

double TableModel::value(qint64 row, qint64 column) const
{
    const ColumnRole &role = roles[std::size_t(column)];
    if (role.pair < 0)
        return role.cosine ? 1.0 : 0.0; // pass-through: unscaled
    const double a = angle(row, role.pair);
    return (role.cosine ? std::cos(a) : std::sin(a)) * scale;
}

// The bounds derived in docs/fidelity.md ("The float32 error model"), u = 2^-24, s the scale,
// a the angle, i the pair.
double Allowance::bound(const TableModel &model, qint64 row, qint64 column) const
{
    const ColumnRole &role = model.roles[std::size_t(column)];
    if (role.pair < 0)
        return tolerance;
    const double s = std::abs(model.scale);
    double b = tolerance;
    if (method >= Float32Method::Values)
        b += std::max(precisionSpacing(precision, s), precisionSpacing(TensorDType::F32, s));
    if (method < Float32Method::Product)
        return b;
    const double i = double(role.pair);
    const double a = std::abs(model.angle(row, role.pair));
    // theta_i's relative error in units u: the pow's exponent (slope i), pow, the product.
    double units = thetaSlope * i + 7.0;
    if (method >= Float32Method::Recurrence) // i roundings of theta and of theta_scale's error
        units += 3.0 * i + 4.0;
    // -use_fast_math's __powf(theta_scale, i) = exp2(i * __log2f(theta_scale)): __log2f's 2^-22
    // absolute (4 ln 2 * i units once exp2'd), i * log2 rounded (slope i), __exp2f's and
    // __fdividef's 2 ulp where powf and the division had less (5).
    if (method >= Float32Method::FastTrig)
        units += (4.0 * std::numbers::ln2 + thetaSlope) * i + 5.0;
    // cos / sin of a float32 angle and the product with the scale: 2 units of s.
    b += s * float32Unit * (2.0 + units * a);
    if (method >= Float32Method::FastTrig) // __cosf's 2^-21.19 in [-pi, pi], the reduction beyond
        b += s * (fastTrigError + 2.0 * float32Unit * a);
    return b;
}

Float32Method tableMethod(const RopeTable &candidate, const TableModel &model,
                          const Allowance &allowance)
{
    // The widest first: most hypotheses fail it within a few values.
    if (!tableMatches(candidate, model, allowance.with(Float32Method::FastTrig)))
        return Float32Method::None;
    Float32Method found = Float32Method::FastTrig;
    for (auto it = std::rbegin(float32Methods) + 1; it != std::rend(float32Methods); ++it) {
        if (!tableMatches(candidate, model, allowance.with(*it)))
            break;
        found = *it;
    }
    return found;
}

bool tableMatches(const RopeTable &candidate, const TableModel &model, const Allowance &allowance)
{
    const qint64 columns = candidate.columns;
    const qint64 count = qint64(candidate.values.size());
    for (qint64 i = 0; i < count; ++i) {
        const qint64 row = i / columns, column = i % columns;
        const double diff = std::abs(candidate.values[std::size_t(i)] - model.value(row, column));
        if (!(diff <= allowance.bound(model, row, column)))
            return false;
    }
    return true;
}

double vectorBound(const Allowance &allowance, double reference, qint64 index)
{
    const double m = std::abs(reference);
    double b = m != 0.0 ? allowance.tolerance * m : allowance.tolerance;
    if (allowance.method >= Float32Method::Values)
        b += std::max(precisionSpacing(allowance.precision, m),
                      precisionSpacing(TensorDType::F32, m));
    double units = allowance.thetaSlope * double(index) + 6.0;
    if (allowance.method >= Float32Method::Recurrence)
        units += 3.0 * double(index) + 4.0;
    if (allowance.method >= Float32Method::Product)
        b += m * float32Unit * units;
    return b;
}

Float32Method vectorMethod(std::span<const double> candidate, std::span<const double> model,
                           const Allowance &allowance)
{
    // Frequencies have no sine: the fast functions allow nothing more than the recurrence.
    for (Float32Method method :
         {Float32Method::Values, Float32Method::Product, Float32Method::Recurrence})
        if (vectorMatches(candidate, model, allowance.with(method)))
            return method;
    return Float32Method::None;
}

bool vectorMatches(std::span<const double> candidate, std::span<const double> model,
                   const Allowance &allowance)
{
    if (candidate.size() != model.size())
        return false;
    for (std::size_t i = 0; i < model.size(); ++i)
        if (!(std::abs(candidate[i] - model[i]) <= vectorBound(allowance, model[i], qint64(i))))
            return false;
    return true;
}

double thetaSlope(qint64 headDim, const RopeConfig &config)
{
    const double lnBase = std::abs(std::log(config.ropeTheta));
    const double lnFactor = std::abs(std::log(ropeEffectiveFactor(config).value_or(1.0)));
    return (lnBase + lnFactor) / double(std::max<qint64>(ropeFrequencyCount(headDim, config), 1));
}

} // namespace verifymodel

QString ropeLayoutDescription(RopeLayout layout, qint64 pairs)
{
    switch (layout) {
    case RopeLayout::Half:
        return QStringLiteral("half: cat(f, f), columns i and i + %1 hold pair i (HF's rotary "
                              "embeddings, rotate_half)")
            .arg(pairs);
    case RopeLayout::Interleaved:
        return QStringLiteral("interleaved: columns 2i and 2i + 1 hold pair i (GPT-J, llama.cpp, "
                              "Meta's complex RoPE)");
    case RopeLayout::PerPair:
        return QStringLiteral("one column per pair, %1 pairs (gpt-oss's rotary forward)")
            .arg(pairs);
    case RopeLayout::Complex:
        return QStringLiteral("complex: (cos, sin) of each of %1 pairs as real and imaginary part "
                              "(Llama 4's freqs_cis)")
            .arg(pairs);
    case RopeLayout::Auto:
        break;
    }
    return QStringLiteral("detected from the table");
}

std::optional<RopeVerifyResult> ropeVerify(qint64 headDim, const RopeConfig &config,
                                           const RopeVerifyOptions &options,
                                           const RopeTable &candidate, QString *error)
{
    if (const QString problem = ropeConfigProblem(headDim, config); !problem.isEmpty())
        return fail(error, problem);
    if (!(std::isfinite(options.tolerance) && options.tolerance >= 0.0))
        return fail(error, QStringLiteral("tolerance must be a finite number >= 0 (got %1)")
                               .arg(options.tolerance));
    if (candidate.rows < 0 || candidate.columns < 0 ||
        qint64(candidate.values.size()) != candidate.rows * candidate.columns)
        return fail(error, QStringLiteral("the candidate's %1 values do not fill %2 x %3")
                               .arg(candidate.values.size())
                               .arg(candidate.rows)
                               .arg(candidate.columns));
    Context context;
    context.headDim = headDim;
    context.config = config;
    context.options = options;
    context.reference = ropeInverseFrequencies(headDim, config);
    context.referenceScale = options.scaled ? context.reference.attentionFactor : 1.0;
    context.allowance = {options.tolerance, options.precision, Float32Method::None,
                         thetaSlope(headDim, config)};
    switch (options.what) {
    case RopeQuantity::InverseFrequencies:
        return verifyFrequencies(context, candidate, error);
    case RopeQuantity::AttentionFactor:
        return verifyAttentionFactor(context, candidate, error);
    case RopeQuantity::Cos:
    case RopeQuantity::Sin:
    case RopeQuantity::CosSin:
        break;
    }
    return verifyTable(context, candidate, error);
}

namespace {

QString cellText(const RopeCell &cell)
{
    if (cell.position >= 0)
        return cell.pair >= 0 ? QStringLiteral("position %1, pair %2 (column %3)")
                                    .arg(cell.position)
                                    .arg(cell.pair)
                                    .arg(cell.column)
                              : QStringLiteral("position %1, column %2 (pass-through)")
                                    .arg(cell.position)
                                    .arg(cell.column);
    if (cell.pair >= 0)
        return QStringLiteral("pair %1").arg(cell.pair);
    return QStringLiteral("the value");
}

// The computation an agreement is consistent with, for the verdict.
QString consistentWith(RopeAgreement agreement, bool table)
{
    switch (agreement) {
    case RopeAgreement::RoundedAngles:
        return table ? QStringLiteral("float32 rounding of the angles p*theta, as HF's own float32 "
                                      "forward computes cos(float32(p) * float32(inv_freq))")
                     : QStringLiteral("float32 rounding of theta, as HF computes inv_freq in "
                                      "float32");
    case RopeAgreement::AccumulatedAngles:
        return table ? QStringLiteral("float32 rounding of the angles, consistent with float32 "
                                      "angles accumulated by repeated multiplication "
                                      "(theta *= theta_scale), as ggml does")
                     : QStringLiteral("float32 rounding of theta, consistent with float32 "
                                      "frequencies accumulated by repeated multiplication "
                                      "(theta_scale^i), as ggml does");
    case RopeAgreement::ApproximateTrig:
        return QStringLiteral("float32 rounding of the angles and fast approximate sine and "
                              "cosine, consistent with __sinf / __cosf (CUDA's -use_fast_math) "
                              "of float32 angles");
    case RopeAgreement::Exact:
    case RopeAgreement::RoundedValues:
    case RopeAgreement::Differs:
        break;
    }
    return {};
}

// "position 812, pair 10 (column 10): got 0.1, expected 0.2, allowance 3e-5 (0.4 of it)".
QString allowedText(const RopeVerifyResult &result)
{
    const RopeCell &c = result.worstAllowed;
    return QStringLiteral("%1: got %2, expected %3, allowance %4 (%5x of it)")
        .arg(cellText(c), QString::number(c.candidate, 'g', 9),
             QString::number(c.reference, 'g', 9), shortNumber(result.worstAllowance),
             shortNumber(result.worstRatio));
}

QString agreementLine(const RopeVerifyResult &result, const RopeVerifyOptions &options,
                      const QString &what, const QString &errors)
{
    const QString at = cellText(result.worst);
    const QString size =
        QStringLiteral("largest difference from the float64 values %1 at %2, "
                       "where %3 allows %4")
            .arg(shortNumber(std::abs(result.worst.candidate - result.worst.reference)), at);
    const bool table = isTable(options.what);
    const QString nearest =
        table && result.worstAllowed.position >= 0
            ? QStringLiteral("; nearest to the allowance: ") + allowedText(result)
            : QString();
    switch (result.agreement) {
    case RopeAgreement::Exact:
        return QStringLiteral("%1 agrees with Hugging Face within %2 at %3 precision (%4 values): "
                              "%5")
            .arg(what, shortNumber(options.tolerance), tensorDTypeName(options.precision))
            .arg(result.compared)
            .arg(errors);
    case RopeAgreement::RoundedValues: {
        const bool coarse =
            options.precision == TensorDType::F16 || options.precision == TensorDType::BF16;
        const QString type =
            coarse ? tensorDTypeName(options.precision) : QStringLiteral("float32");
        return QStringLiteral("%1 agrees with Hugging Face up to the rounding of its values to "
                              "%2 (%3 values): %4%5%6")
            .arg(what, type)
            .arg(result.compared)
            .arg(size.arg(QStringLiteral("one %1 unit").arg(type),
                          shortNumber(result.roundingAllowance)),
                 nearest, QStringLiteral("; --strict demands float64 exactness"));
    }
    case RopeAgreement::RoundedAngles:
    case RopeAgreement::AccumulatedAngles:
    case RopeAgreement::ApproximateTrig:
        return QStringLiteral("%1 agrees with Hugging Face up to %2 (%3 values): %4; %5%6; "
                              "--strict demands float64 %7")
            .arg(what, consistentWith(result.agreement, table))
            .arg(result.compared)
            .arg(size.arg(QStringLiteral("float32"), shortNumber(result.roundingAllowance)), errors,
                 nearest, table ? QStringLiteral("angles") : QStringLiteral("frequencies"));
    case RopeAgreement::Differs:
        break;
    }
    return {};
}

} // namespace

QStringList ropeVerifyReport(const RopeVerifyResult &result, const RopeVerifyOptions &options)
{
    QStringList lines;
    const QString what = nameOf(ropeQuantityNames, options.what);
    const bool table = isTable(options.what);
    QString errors = QStringLiteral("max abs error %1, max rel error %2")
                         .arg(shortNumber(result.maxAbsError), shortNumber(result.maxRelError));
    if (table) {
        // Relative to the pair's magnitude: a zero crossing does not make it large.
        errors = QStringLiteral("max abs error %1, max error relative to the pair's magnitude %2")
                     .arg(shortNumber(result.maxAbsError), shortNumber(result.maxRelError));
        if (result.maxAngleError >= 0)
            errors +=
                QStringLiteral(", max angle error %1 rad").arg(shortNumber(result.maxAngleError));
    }
    if (result.agrees) {
        lines << agreementLine(result, options, what, errors);
        return lines;
    }
    if (result.first.position < 0 && result.first.pair < 0 && result.differing == result.compared &&
        result.mistake == RopeMistake::RotaryWidth) {
        lines << QStringLiteral("%1 differs from Hugging Face: the candidate holds %2 pairs")
                     .arg(what)
                     .arg(result.pairs);
    } else {
        lines << QStringLiteral("%1 differs from Hugging Face: %2 of %3 values beyond %4; %5")
                     .arg(what)
                     .arg(result.differing)
                     .arg(result.compared)
                     .arg(shortNumber(options.tolerance), errors);
        lines << QStringLiteral("first difference at %1: got %2, expected %3")
                     .arg(cellText(result.first), QString::number(result.first.candidate, 'g', 17),
                          QString::number(result.first.reference, 'g', 17));
        if (table && result.worstAllowed.position >= 0)
            lines << QStringLiteral("worst against the allowance (%1): %2")
                         .arg(options.strict || result.agreement != RopeAgreement::Differs
                                  ? QStringLiteral("--strict: the tolerance alone")
                                  : QStringLiteral("the widest float32 computation: fast "
                                                   "sine and cosine of accumulated angles"),
                              allowedText(result));
    }
    lines << QStringLiteral("diagnosis: ") + result.diagnosis;
    return lines;
}

RopeErrorGrid ropeFrequencyErrorGrid(std::span<const double> candidate,
                                     std::span<const double> reference, qint64 positions,
                                     qint64 maxRows)
{
    RopeErrorGrid grid;
    if (candidate.size() != reference.size() || positions < 1 || maxRows < 1)
        return grid;
    grid.pairs = qint64(reference.size());
    grid.rowsPerBin = std::max<qint64>(1, (positions + maxRows - 1) / maxRows);
    grid.rows = (positions + grid.rowsPerBin - 1) / grid.rowsPerBin;
    grid.error.assign(std::size_t(grid.rows * grid.pairs), 0.0f);
    for (qint64 p = 0; p < positions; ++p)
        for (qint64 i = 0; i < grid.pairs; ++i) {
            const double a = double(p) * candidate[std::size_t(i)];
            const double b = double(p) * reference[std::size_t(i)];
            double e =
                std::max(std::abs(std::cos(a) - std::cos(b)), std::abs(std::sin(a) - std::sin(b)));
            if (std::isnan(e))
                e = infinity;
            float &cell = grid.error[std::size_t((p / grid.rowsPerBin) * grid.pairs + i)];
            cell = std::max(cell, float(e));
        }
    return grid;
}

} // namespace pe
