// FallbackBackend: the GPU backend with the CPU behind it. A GPU failure at run time (shader
// error, lost context, out of memory) switches to the CPU for good and leaves a notice. Routes
// send a kind of job to the CPU from the start (auto's measured choice; no notice).
#pragma once

#include "backends/backend.h"

#include <functional>
#include <memory>

namespace pe {

class CpuBackend;
class GpuBackend;

// Which kinds of job a FallbackBackend sends to the GPU.
struct GpuRoutes
{
    bool encodeOnGpu = true;
    bool sampleOnGpu = true;
};

class FallbackBackend final : public Backend
{
public:
    explicit FallbackBackend(std::unique_ptr<GpuBackend> gpu, GpuRoutes routes = {});
    ~FallbackBackend() override;

    // The backend that computed the latest result ("gpu" until a failure, then "cpu").
    QString id() const override;
    QString description() const override;
    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error) override;
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error) override;
    // Why the CPU computed the latest result instead of the GPU; empty while the GPU works and
    // for jobs routed to the CPU.
    QString notice() const override { return m_notice; }

    bool fellBack() const { return m_failed; }
    GpuBackend *gpu() const { return m_gpu.get(); }

private:
    Backend &cpu();
    // Routes one call: bad arguments fail as they are; a kind routed to the CPU goes there; a
    // spec the GPU has no kernel for goes to the CPU this once; a GPU failure moves everything
    // to the CPU.
    bool run(const EncodingSpec &spec, const QString &problem, bool onGpu,
             const std::function<bool(Backend &, QString *)> &call, QString *error);

    std::unique_ptr<GpuBackend> m_gpu;
    GpuRoutes m_routes;
    std::unique_ptr<CpuBackend> m_cpu;
    Backend *m_last = nullptr;
    bool m_failed = false;
    QString m_notice;
};

} // namespace pe
