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
    QString description; // the backend's description, or why there is none
};

std::mutex probeMutex;
GpuProbe probe;

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
        probe = {true, gpu != nullptr, gpu ? gpu->description() : *why};
    }
    return gpu;
}

} // namespace

QString backendChoiceName(BackendChoice choice)
{
    switch (choice) {
    case BackendChoice::Auto:
        return QStringLiteral("auto");
    case BackendChoice::Cpu:
        return QStringLiteral("cpu");
    case BackendChoice::Gpu:
        return QStringLiteral("gpu");
    }
    return {};
}

std::optional<BackendChoice> parseBackendChoice(const QString &name)
{
    for (BackendChoice c : {BackendChoice::Auto, BackendChoice::Cpu, BackendChoice::Gpu})
        if (name == backendChoiceName(c))
            return c;
    return std::nullopt;
}

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
        gpu = {true, backend != nullptr, backend ? backend->description() : why};
    }
    return {
        {QStringLiteral("cpu"), true, CpuBackend().description()},
        {QStringLiteral("gpu"), gpu.available, gpu.description},
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
        if (std::unique_ptr<GpuBackend> gpu = startGpu(&reason))
            return std::make_unique<FallbackBackend>(std::move(gpu));
        if (why)
            *why = reason; // not a failure: says why the CPU was chosen
        return std::make_unique<CpuBackend>();
    }
    if (why)
        *why = reason;
    return nullptr;
}

} // namespace pe
