#include "backends/cpusampler.h"

#include "backends/cpubackend.h"
#include "backends/parallel.h"
#include "kernels/cpukernels.h"

#include <algorithm>
#include <vector>

namespace pe {

namespace {

// Enough pixel-row work per thread that starting one pays off.
constexpr qint64 minCellsPerThread = 1 << 15;

// One pixel row's values per window column -> the row of pixels, by the column spans.
template <typename T> void reduceColumns(const SamplingPlan &plan, const T *values, float *out)
{
    for (const AxisSpan &c : plan.columns) {
        const qint64 j0 = c.first - plan.firstColumn;
        double sum = 0.0;
        for (qint64 j = j0; j < j0 + c.count; ++j)
            sum += double(values[j]);
        if (c.lowWeight > 0)
            sum += c.lowWeight * double(values[j0 - 1]);
        if (c.highWeight > 0)
            sum += c.highWeight * double(values[j0 + c.count]);
        *out++ = float(sum * c.scale);
    }
}

// The window's phase table split into arrays the kernels vectorise over.
struct PhaseColumns
{
    std::vector<std::uint64_t> step;
    std::vector<std::uint64_t> offset;
};

void closedFormRows(const SamplingPlan &plan, const PhaseColumns &pc, int y0, int y1, float *out)
{
    const qint64 n = plan.columnCount;
    std::vector<float> values(std::size_t(n), 0.0f);
    std::vector<float> low(std::size_t(n), 0.0f);
    std::vector<float> up(std::size_t(n), 0.0f);
    qint64 upCell = -1; // the cell `up` holds, from the previous pixel row
    const std::uint64_t *st = pc.step.data();
    const std::uint64_t *of = pc.offset.data();
    const kernels::CpuKernels &k = kernels::cpuKernels();
    for (int y = y0; y < y1; ++y) {
        const AxisSpan &r = plan.rows[std::size_t(y)];
        const PhaseRun &run = plan.runs[std::size_t(plan.rowRun[std::size_t(y)])];
        const auto a = std::uint64_t(r.first);
        const auto wl = float(r.lowWeight), wh = float(r.highWeight), scale = float(r.scale);
        // Neighbouring pixel rows share the cell cut by their common edge: reuse its values.
        if (wl > 0) {
            if (upCell == r.first - 1)
                std::swap(low, up);
            else
                k.phaseAt(st, of, a - 1, low.data(), n);
        }
        k.closedFormRow({st, of, run.centre.data(), run.span.data(), run.dirichlet.data(),
                         low.data(), up.data(), values.data(), a, r.count > 0, wl, wh, scale, n});
        upCell = wh > 0 ? r.first + r.count : -1;
        reduceColumns(plan, values.data(), out + qint64(y) * plan.width);
    }
}

void sampledRows(const EncodingSpec &spec, const SamplingPlan &plan, int y0, int y1, float *out)
{
    const qint64 n = plan.columnCount;
    std::vector<double> acc(static_cast<std::size_t>(n));
    std::vector<float> row;
    const auto *hashed = std::get_if<HashedUniformPlan>(&plan.matrix);
    const auto *rows = std::get_if<RowsPlan>(&plan.matrix);
    const kernels::CpuKernels &k = kernels::cpuKernels();
    if (rows)
        row.resize(std::size_t(spec.dims));
    for (int y = y0; y < y1; ++y) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int i = plan.sampleBegin[std::size_t(y)]; i < plan.sampleBegin[std::size_t(y) + 1];
             ++i) {
            const qint64 p = plan.sampleRows[std::size_t(i)];
            const double w = plan.sampleWeights[std::size_t(i)];
            if (hashed) {
                // Only the window's columns, straight from the hash.
                k.learnedAccumulate(kernels::rowKey(hashed->seed, std::uint32_t(p)),
                                    std::uint32_t(plan.firstColumn), w, acc.data(), n);
            } else if (rows) {
                rows->fill(p, 1, row.data());
                k.accumulate(row.data() + plan.firstColumn, w, acc.data(), n);
            }
        }
        reduceColumns(plan, acc.data(), out + qint64(y) * plan.width);
    }
}

} // namespace

void evaluatePlanOnCpu(const EncodingSpec &spec, const SamplingPlan &plan, float *out,
                       int threadCount)
{
    const int threads = threadCount > 0 ? threadCount : hardwareThreads();
    const qint64 cellsPerRow =
        plan.closedForm ? plan.columnCount
                        : plan.columnCount * std::max<qint64>(1, qint64(plan.sampleRows.size())) /
                              std::max(1, plan.height);
    const qint64 minRows =
        std::max<qint64>(1, minCellsPerThread / std::max<qint64>(1, cellsPerRow));
    if (plan.closedForm) {
        PhaseColumns pc;
        pc.step.reserve(plan.phases.size());
        pc.offset.reserve(plan.phases.size());
        for (const kernels::ColumnPhase &c : plan.phases) {
            pc.step.push_back(c.step);
            pc.offset.push_back(c.offset);
        }
        parallelFor(0, plan.height, threads, minRows,
                    [&](qint64 lo, qint64 hi) { closedFormRows(plan, pc, int(lo), int(hi), out); });
    } else {
        parallelFor(0, plan.height, threads, minRows,
                    [&](qint64 lo, qint64 hi) { sampledRows(spec, plan, int(lo), int(hi), out); });
    }
}

bool sampleOnCpu(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                 float *out, QString *error, int threadCount)
{
    const std::optional<SamplingPlan> plan = buildSamplingPlan(spec, window, width, height, error);
    if (!plan)
        return false;
    evaluatePlanOnCpu(spec, *plan, out, threadCount);
    return true;
}

} // namespace pe
