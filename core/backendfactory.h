// Chooses and creates a compute backend: "auto" prefers a hardware GPU and falls back to the CPU.
#pragma once

#include "backend.h"
#include "fields/choicenames.h"

#include <memory>
#include <optional>

namespace pe {

enum class BackendChoice { Auto, Cpu, Gpu };

inline constexpr ChoiceName backendChoiceNames[] = {
    choice(BackendChoice::Auto, "auto", "Auto (a hardware GPU, else the CPU)"),
    choice(BackendChoice::Cpu, "cpu", "CPU (Eigen, all cores)"),
    choice(BackendChoice::Gpu, "gpu", "GPU (OpenGL 4.3 compute)"),
};
inline QString backendChoiceName(BackendChoice choice)
{
    return nameOf(backendChoiceNames, choice);
}

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
