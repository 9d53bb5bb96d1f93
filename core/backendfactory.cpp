#include "backendfactory.h"

#include "cpubackend.h"

namespace pe {

namespace {
// Until the GPU backend exists, this is the reason every GPU request is refused.
const char *const gpuMissing = "this build has no GPU backend yet";
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
    return {
        {QStringLiteral("cpu"), true, CpuBackend().description()},
        {QStringLiteral("gpu"), false, QLatin1String(gpuMissing)},
    };
}

std::unique_ptr<Backend> makeBackend(BackendChoice choice, QString *why)
{
    if (choice == BackendChoice::Gpu) {
        if (why)
            *why = QLatin1String(gpuMissing);
        return nullptr;
    }
    return std::make_unique<CpuBackend>();
}

} // namespace pe
