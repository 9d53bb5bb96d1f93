#include "backends/fallbackbackend.h"

#include "backends/cpubackend.h"
#include "backends/gpubackend.h"
#include "backends/samplingplan.h"

namespace pe {

FallbackBackend::FallbackBackend(std::unique_ptr<GpuBackend> gpu, GpuRoutes routes)
    : m_gpu(std::move(gpu)), m_routes(routes), m_last(m_gpu.get())
{}

FallbackBackend::~FallbackBackend() = default;

Backend &FallbackBackend::cpu()
{
    if (!m_cpu)
        m_cpu = std::make_unique<CpuBackend>();
    return *m_cpu;
}

QString FallbackBackend::id() const
{
    return m_last->id();
}

QString FallbackBackend::description() const
{
    return m_last->description();
}

bool FallbackBackend::run(const EncodingSpec &spec, const QString &problem, bool onGpu,
                          const std::function<bool(Backend &, QString *)> &call, QString *error)
{
    if (!problem.isEmpty()) { // the CPU would refuse it too: not the GPU's failure
        if (error)
            *error = problem;
        return false;
    }
    if (!onGpu) {
        m_last = &cpu();
        return call(*m_last, error);
    }
    if (!m_failed && GpuBackend::supports(spec)) {
        QString reason;
        if (call(*m_gpu, &reason)) {
            m_last = m_gpu.get();
            m_notice.clear();
            return true;
        }
        m_failed = true;
        m_notice =
            QStringLiteral("the GPU backend failed (%1); the CPU backend computes from now on")
                .arg(reason);
    } else if (!m_failed) {
        m_notice = QStringLiteral("the GPU backend has no kernel for the %1 scheme; the CPU "
                                  "backend computed it")
                       .arg(spec.schemeId());
    }
    m_last = &cpu();
    return call(*m_last, error);
}

bool FallbackBackend::encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                             QString *error)
{
    return run(
        spec, encodeRequestProblem(spec, firstRow, rowCount), m_routes.encodeOnGpu,
        [&](Backend &b, QString *e) { return b.encode(spec, firstRow, rowCount, out, e); }, error);
}

bool FallbackBackend::sample(const EncodingSpec &spec, const MatrixWindow &window, int width,
                             int height, float *out, QString *error)
{
    return run(
        spec, sampleRequestProblem(spec, window, width, height), m_routes.sampleOnGpu,
        [&](Backend &b, QString *e) { return b.sample(spec, window, width, height, out, e); },
        error);
}

} // namespace pe
