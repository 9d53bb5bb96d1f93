// Chooses and creates a compute backend: "auto" prefers the GPU and falls back to the CPU.
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
    QString id;          // "cpu", "gpu"
    bool available = false;
    QString description; // what it runs on when available, why not otherwise
};

// Every backend this build knows, available or not (for `pescope info` and the settings).
QList<BackendStatus> probeBackends();

// nullptr with *why set when the choice cannot be honoured; Auto never fails.
std::unique_ptr<Backend> makeBackend(BackendChoice choice, QString *why);

} // namespace pe
