#include "backends/samplingplan.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pe {

namespace {

// sin(2 pi x / 2^64) for a phase x in 2^-64 turns, in float64: the signed reading keeps the
// relative precision of small phases, which the Dirichlet kernel's quotient needs.
double sinOfFixedTurns(std::uint64_t x)
{
    const double turns = std::ldexp(double(std::int64_t(x)), -64);
    return std::sin(2.0 * std::numbers::pi * turns);
}

__extension__ typedef unsigned __int128 Uint128; // GCC and Clang; -pedantic knows it as such

// (m * s) / 2 modulo one turn, in 2^-64 turns: bits 1..64 of the 128-bit product.
std::uint64_t halfProduct(std::uint64_t m, std::uint64_t s)
{
    return std::uint64_t(Uint128(m) * s >> 1);
}

PhaseRun makeRun(qint64 count, const std::vector<kernels::ColumnPhase> &phases)
{
    PhaseRun run;
    run.count = count;
    const std::size_t n = phases.size();
    run.centre.resize(n);
    run.span.resize(n);
    run.dirichlet.resize(n);
    const auto m = std::uint64_t(count);
    for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t s = phases[j].step;
        run.span[j] = m * s; // wraps modulo one turn, as phases do
        run.centre[j] = count > 0 ? halfProduct(m - 1, s) : 0;
        const std::uint64_t half = s >> 1; // pi s = 2 pi (s / 2)
        if (count == 0)
            run.dirichlet[j] = 0.0f;
        else if (half == 0)
            run.dirichlet[j] = float(count); // constant column: every term equal
        else
            run.dirichlet[j] = float(sinOfFixedTurns(halfProduct(m, s)) / sinOfFixedTurns(half));
    }
    return run;
}

bool finite(double x)
{
    return std::isfinite(x);
}

} // namespace

std::vector<AxisSpan> axisSpans(double start, double length, int pixels)
{
    std::vector<AxisSpan> spans(std::size_t(std::max(pixels, 0)));
    if (pixels <= 0)
        return spans;
    const double stride = length / pixels;
    const double end = start + length;
    const qint64 lastCell = std::max<qint64>(0, qint64(std::ceil(end)) - 1);
    // Boundaries that are integers up to rounding become integers, so a window that starts on
    // a cell edge does not grow a sliver of the cell before it.
    const auto boundary = [&](int k) {
        double b = k == pixels ? end : start + k * stride;
        const double r = std::round(b);
        if (std::abs(b - r) <= std::min(1e-9 * std::max(1.0, std::abs(b)), 1e-3 * stride))
            b = r;
        return b;
    };
    double lo = boundary(0);
    for (int i = 0; i < pixels; ++i) {
        const double hi = boundary(i + 1);
        const double a = std::ceil(lo);
        const double b = std::floor(hi);
        AxisSpan &span = spans[std::size_t(i)];
        if (a > b || !(hi > lo)) {
            span.first = std::min(qint64(std::floor(lo)), lastCell) + 1;
            span.count = 0;
            span.lowWeight = 1.0;
            span.highWeight = 0.0;
            span.scale = 1.0;
        } else {
            span.first = qint64(a);
            span.count = qint64(b - a);
            span.lowWeight = a - lo;
            span.highWeight = hi - b;
            span.scale = 1.0 / (hi - lo);
        }
        lo = hi;
    }
    return spans;
}

QString sampleRequestProblem(const EncodingSpec &spec, const MatrixWindow &window, int width,
                             int height)
{
    if (QString problem = spec.validate(); !problem.isEmpty())
        return problem;
    if (width < 1 || height < 1 || width > limits::maxSampleSide ||
        height > limits::maxSampleSide || qint64(width) * height > limits::maxSamplePixels)
        return QStringLiteral("the sample size %1 x %2 pixels must be 1 to %3 on each side and at "
                              "most %4 pixels")
            .arg(width)
            .arg(height)
            .arg(limits::maxSampleSide)
            .arg(limits::maxSamplePixels);
    // A relative slack of 1e-9 lets callers pass edges computed in floating point.
    const auto outside = [](double first, double count, qint64 cells) {
        return !finite(first) || !finite(count) || !(count > 0) || first < -1e-9 * double(cells) ||
               first + count > double(cells) * (1 + 1e-9);
    };
    if (outside(window.firstPosition, window.positionCount, spec.positions))
        return QStringLiteral("the sample window's positions %1 to %2 must be a non-empty range "
                              "inside 0 to %3")
            .arg(window.firstPosition)
            .arg(window.firstPosition + window.positionCount)
            .arg(spec.positions);
    if (outside(window.firstDim, window.dimCount, spec.dims))
        return QStringLiteral("the sample window's dims %1 to %2 must be a non-empty range inside "
                              "0 to %3")
            .arg(window.firstDim)
            .arg(window.firstDim + window.dimCount)
            .arg(spec.dims);
    return {};
}

std::optional<SamplingPlan> buildSamplingPlan(const EncodingSpec &spec, const MatrixWindow &window,
                                              int width, int height, QString *error,
                                              qint64 cellBudget)
{
    if (const QString problem = sampleRequestProblem(spec, window, width, height);
        !problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    // Clamp the slack sampleRequestProblem() allowed.
    const auto clampRange = [](double first, double count, qint64 cells, double *lo, double *hi) {
        *lo = std::clamp(first, 0.0, double(cells));
        *hi = std::clamp(first + count, *lo, double(cells));
    };
    double p0, p1, d0, d1;
    clampRange(window.firstPosition, window.positionCount, spec.positions, &p0, &p1);
    clampRange(window.firstDim, window.dimCount, spec.dims, &d0, &d1);

    SamplingPlan plan;
    plan.width = width;
    plan.height = height;
    plan.rows = axisSpans(p0, p1 - p0, height);
    plan.columns = axisSpans(d0, d1 - d0, width);
    // Every cell any pixel touches, including zero-weight neighbours, so kernels need no
    // bounds checks beyond the matrix's own.
    qint64 c0 = spec.dims, c1 = 0;
    for (const AxisSpan &c : plan.columns) {
        c0 = std::min(c0, c.first - (c.lowWeight > 0 ? 1 : 0));
        c1 = std::max(c1, c.first + c.count + (c.highWeight > 0 ? 1 : 0));
    }
    plan.firstColumn = std::clamp<qint64>(c0, 0, spec.dims - 1);
    plan.columnCount = std::clamp<qint64>(c1, plan.firstColumn + 1, spec.dims) - plan.firstColumn;

    plan.matrix = spec.plan();
    if (const auto *phaseColumns = std::get_if<PhaseColumnsPlan>(&plan.matrix)) {
        plan.closedForm = true;
        const std::vector<kernels::ColumnPhase> &all = phaseColumns->columns;
        plan.phases.assign(all.begin() + plan.firstColumn,
                           all.begin() + plan.firstColumn + plan.columnCount);
        plan.rowRun.resize(std::size_t(height));
        for (int y = 0; y < height; ++y) {
            const qint64 count = plan.rows[std::size_t(y)].count;
            auto it = std::find_if(plan.runs.begin(), plan.runs.end(),
                                   [count](const PhaseRun &r) { return r.count == count; });
            if (it == plan.runs.end()) {
                plan.runs.push_back(makeRun(count, plan.phases));
                it = plan.runs.end() - 1;
            }
            plan.rowRun[std::size_t(y)] = int(it - plan.runs.begin());
        }
        return plan;
    }

    plan.rowsPerPixel =
        int(std::clamp<qint64>(cellBudget / (qint64(height) * plan.columnCount), 1, 1 << 16));
    const qint64 k = plan.rowsPerPixel;
    plan.sampleBegin.reserve(std::size_t(height) + 1);
    for (const AxisSpan &r : plan.rows) {
        plan.sampleBegin.push_back(int(plan.sampleRows.size()));
        const bool low = r.lowWeight > 0, high = r.highWeight > 0;
        if (r.count + low + high <= k) {
            if (low) {
                plan.sampleRows.push_back(r.first - 1);
                plan.sampleWeights.push_back(float(r.lowWeight * r.scale));
            }
            for (qint64 p = r.first; p < r.first + r.count; ++p) {
                plan.sampleRows.push_back(p);
                plan.sampleWeights.push_back(float(r.scale));
            }
            if (high) {
                plan.sampleRows.push_back(r.first + r.count);
                plan.sampleWeights.push_back(float(r.highWeight * r.scale));
            }
        } else {
            const double lo = double(r.first) - r.lowWeight;
            const double hi = double(r.first + r.count) + r.highWeight;
            for (qint64 i = 0; i < k; ++i) {
                const double at = lo + (double(i) + 0.5) * (hi - lo) / double(k);
                plan.sampleRows.push_back(std::clamp<qint64>(qint64(at), 0, spec.positions - 1));
                plan.sampleWeights.push_back(float(1.0 / double(k)));
            }
        }
    }
    plan.sampleBegin.push_back(int(plan.sampleRows.size()));
    return plan;
}

QString encodeRequestProblem(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount)
{
    if (QString problem = spec.validate(); !problem.isEmpty())
        return problem;
    if (firstRow < 0 || rowCount < 0 || firstRow + rowCount > spec.positions)
        return QStringLiteral("rows %1 to %2 are outside the %3 positions")
            .arg(firstRow)
            .arg(firstRow + rowCount)
            .arg(spec.positions);
    return {};
}

} // namespace pe
