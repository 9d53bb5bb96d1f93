#include "backendfactory.h"

#include "cpubackend.h"
#include "fallbackbackend.h"
#include "gpubackend.h"

#include <QCoreApplication>

#include <mutex>

namespace pe {

namespace {

// The GPU is probed once per process: a context costs tens of milliseconds, and a machine
// that could not make one will not start to. Only results, never contexts, are kept.
struct GpuProbe
{
    bool done = false;
    bool available = false;
    bool software = false; // llvmpipe & co.: correct, but slower than the CPU backend
    QString description;   // the backend's description, or why there is none
};

std::mutex probeMutex;
GpuProbe probe;

// A rasteriser running on the CPU gives the same numbers as the GPU backend, only 12-21x slower
// than CpuBackend on the same cores (bench_backends), so `auto` passes it over.
bool isSoftwareRenderer(const QString &renderer)
{
    for (const char *name : {"llvmpipe", "softpipe", "swrast", "SwiftShader"})
        if (renderer.contains(QLatin1String(name), Qt::CaseInsensitive))
            return true;
    return false;
}

std::unique_ptr<GpuBackend> startGpu(QString *why)
{
    {
        std::lock_guard lock(probeMutex);
        if (probe.done && !probe.available) {
            *why = probe.description;
            return nullptr;
        }
    }
    std::unique_ptr<GpuBackend> gpu = GpuBackend::create(why);
    // Without a QGuiApplication yet, a later call may still succeed: do not remember that.
    const QCoreApplication *app = QCoreApplication::instance();
    if (app && app->inherits("QGuiApplication")) {
        std::lock_guard lock(probeMutex);
        probe = {true, gpu != nullptr, gpu && isSoftwareRenderer(gpu->renderer()),
                 gpu ? gpu->description() : *why};
    }
    return gpu;
}

bool knownSoftwareGpu(QString *renderer)
{
    std::lock_guard lock(probeMutex);
    *renderer = probe.description;
    return probe.done && probe.software;
}

} // namespace


QList<BackendStatus> probeBackends()
{
    GpuProbe gpu;
    {
        std::lock_guard lock(probeMutex);
        gpu = probe;
    }
    if (!gpu.done) {
        QString why;
        const std::unique_ptr<GpuBackend> backend = startGpu(&why);
        gpu = {true, backend != nullptr, backend && isSoftwareRenderer(backend->renderer()),
               backend ? backend->description() : why};
    }
    return {
        {QStringLiteral("cpu"), true, CpuBackend().description()},
        {QStringLiteral("gpu"), gpu.available,
         gpu.software ? gpu.description +
                            QStringLiteral("; a software renderer, so --backend auto uses the CPU")
                      : gpu.description},
    };
}

std::unique_ptr<Backend> makeBackend(BackendChoice choice, QString *why)
{
    QString reason;
    switch (choice) {
    case BackendChoice::Cpu:
        return std::make_unique<CpuBackend>();
    case BackendChoice::Gpu:
        if (std::unique_ptr<GpuBackend> gpu = startGpu(&reason))
            return gpu;
        break;
    case BackendChoice::Auto:
        if (knownSoftwareGpu(&reason)) {
            if (why)
                *why = reason + QStringLiteral(" is a software renderer, slower than the CPU");
            return std::make_unique<CpuBackend>();
        }
        if (std::unique_ptr<GpuBackend> gpu = startGpu(&reason)) {
            if (isSoftwareRenderer(gpu->renderer())) {
                if (why)
                    *why = gpu->description() +
                           QStringLiteral(" is a software renderer, slower than the CPU");
                return std::make_unique<CpuBackend>();
            }
            return std::make_unique<FallbackBackend>(std::move(gpu));
        }
        if (why)
            *why = reason; // not a failure: says why the CPU was chosen
        return std::make_unique<CpuBackend>();
    }
    if (why)
        *why = reason;
    return nullptr;
}

} // namespace pe
