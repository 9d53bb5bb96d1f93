#include "backends/cpubackend.h"

#include "backends/cpusampler.h"
#include "backends/parallel.h"
#include "backends/phasekernels.h"
#include "kernels/cpukernels.h"

#include <Eigen/Core>

#include <vector>

namespace pe {

namespace {

// Enough work per thread that starting it pays off (~50 us of compute).
constexpr qint64 minElementsPerThread = 1 << 16;

void encodeSinusoidalRows(const std::vector<kernels::ColumnPhase> &columns, qint64 firstRow,
                          qint64 rowCount, float *out)
{
    std::vector<std::uint64_t> phase(columns.size());
    std::vector<std::uint64_t> step(columns.size());
    for (std::size_t j = 0; j < columns.size(); ++j) {
        phase[j] = std::uint64_t(firstRow) * columns[j].step + columns[j].offset;
        step[j] = columns[j].step;
    }
    kernels::cpuKernels().phaseRows(step.data(), phase.data(), qint64(columns.size()), rowCount,
                                    out);
}

} // namespace

CpuBackend::CpuBackend(int threadCount)
    : m_threadCount(threadCount > 0 ? threadCount : hardwareThreads())
{}

QString CpuBackend::description() const
{
    return QStringLiteral("CPU (Eigen %1.%2.%3, %4 threads)")
        .arg(EIGEN_WORLD_VERSION)
        .arg(EIGEN_MAJOR_VERSION)
        .arg(EIGEN_MINOR_VERSION)
        .arg(m_threadCount);
}

bool CpuBackend::encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                        QString *error)
{
    if (const QString problem = spec.validate(); !problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (firstRow < 0 || rowCount < 0 || firstRow + rowCount > spec.positions) {
        if (error)
            *error = QStringLiteral("rows %1 to %2 are outside the %3 positions")
                         .arg(firstRow)
                         .arg(firstRow + rowCount)
                         .arg(spec.positions);
        return false;
    }
    const qint64 dims = spec.dims;
    const qint64 minRows = std::max<qint64>(1, minElementsPerThread / dims);
    const MatrixPlan plan = spec.plan();
    const auto rows = [&](auto &&fill) {
        parallelFor(firstRow, firstRow + rowCount, m_threadCount, minRows,
                    [&](qint64 lo, qint64 hi) { fill(lo, hi - lo, out + (lo - firstRow) * dims); });
    };
    std::visit(Overloaded{
                   [&](const PhaseColumnsPlan &p) {
                       rows([&](qint64 first, qint64 count, float *to) {
                           encodeSinusoidalRows(p.columns, first, count, to);
                       });
                   },
                   [&](const HashedUniformPlan &p) {
                       rows([&](qint64 first, qint64 count, float *to) {
                           kernels::cpuKernels().learnedRows(p.seed, dims, first, count, to);
                       });
                   },
                   [&](const RowsPlan &p) { rows(p.fill); },
               },
               plan);
    return true;
}

bool CpuBackend::sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                        float *out, QString *error)
{
    return sampleOnCpu(spec, window, width, height, out, error, m_threadCount);
}

} // namespace pe
