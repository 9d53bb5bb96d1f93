// Chooses and creates a compute backend: "auto" prefers a hardware GPU and falls back to the CPU.
#pragma once

#include "backend.h"

#include <memory>
#include <optional>

namespace pe {

enum class BackendChoice { Auto, Cpu, Gpu };

QString backendChoiceName(BackendChoice choice);
std::optional<BackendChoice> parseBackendChoice(const QString &name);

struct BackendStatus
{
    QString id; // "cpu", "gpu"
    bool available = false;
    QString description; // what it runs on when available, why not otherwise
};

// Every backend this build knows, available or not (for `pescope info` and the settings).
QList<BackendStatus> probeBackends();

// nullptr with *why set when the choice cannot be honoured. Auto never fails: it gives the GPU
// wrapped in a FallbackBackend (a GPU failure at run time moves the work to the CPU, with a
// notice()) when an OpenGL 4.3 context with compute shaders can be made, else the CPU with *why
// saying why not. Gpu gives the bare GpuBackend, whose run-time failures are errors. The GPU
// needs a QGuiApplication; the probe runs once per process and its result is kept.
std::unique_ptr<Backend> makeBackend(BackendChoice choice, QString *why);

} // namespace pe
