// Chooses and creates a compute backend: "auto" measures which backend is faster, per kind of
// job, and falls back to the CPU.
#pragma once

#include "backends/backend.h"
#include "fields/choicenames.h"

#include <memory>
#include <optional>

namespace pe {

class GpuBackend;

enum class BackendChoice { Auto, Cpu, Gpu };

inline constexpr ChoiceName backendChoiceNames[] = {
    choice(BackendChoice::Auto, "auto", "Auto (the faster of GPU and CPU, as measured)"),
    choice(BackendChoice::Cpu, "cpu", "CPU (Eigen, all cores)"),
    choice(BackendChoice::Gpu, "gpu", "GPU (OpenGL 4.3 compute)"),
};
inline QString backendChoiceName(BackendChoice choice)
{
    return nameOf(backendChoiceNames, choice);
}

struct BackendStatus
{
    QString id; // "cpu", "gpu", "auto"
    bool available = false;
    QString description; // what it runs on when available, why not otherwise; auto's choice
};

// Every backend this build knows, available or not, and what auto chooses and why (for
// `pescope info` and the settings). On a hardware GPU this runs auto's calibration.
QList<BackendStatus> probeBackends();

// What a caller knows about its work, so auto can weigh starting the GPU against it.
struct AutoJob
{
    // Bytes the job writes to host memory through encode() (pescope data), or 0 when unknown
    // (the window, figure exports): then both kinds of job are calibrated.
    qint64 materialiseBytes = 0;
};

// nullptr with *why set when the choice cannot be honoured. Auto never fails: it routes each
// kind of job (encode: results to host memory; sample: the window's viewports) to the GPU only
// where auto's calibration measured the GPU faster end to end, and gives the GPU wrapped in a
// FallbackBackend (a GPU failure at run time moves the work to the CPU, with a notice()); else the
// CPU, with *why saying why. Gpu gives the bare GpuBackend, whose run-time failures are errors.
// The GPU needs a QGuiApplication; the probe and the calibration run once per process and only
// their findings are kept.
std::unique_ptr<Backend> makeBackend(BackendChoice choice, QString *why, const AutoJob &job = {});

// Auto's calibration: milliseconds of the same small jobs on each backend (-1: not measured).
struct AutoTimings
{
    qint64 encodeBytes = 0; // the encode job's result: a sinusoidal table, to host memory
    double cpuEncodeMs = -1.0;
    double gpuEncodeMs = -1.0;
    int sampleWidth = 0; // the sample job: a viewport of 2^20 x 8,192
    int sampleHeight = 0;
    double cpuSampleMs = -1.0;
    double gpuSampleMs = -1.0;
    double gpuStartMs = -1.0; // creating the GPU backend, where it was timed
};

struct AutoDecision
{
    bool encodeOnGpu = false;
    bool sampleOnGpu = false;
    QString why; // one line for `pescope info`
};

// The rule, alone so that tests can feed it timings: a kind of job goes to the GPU only when the
// GPU's measured time is at most 90% of the CPU's (noise and a second code path are not worth
// less); a kind not measured stays on the CPU.
AutoDecision decideAuto(const AutoTimings &timings);

// Whether the CPU would be done with `jobBytes` (at the rate timings measured) before the GPU
// could even start (timings.gpuStartMs, else a typical start): then auto does not start it.
bool cpuFinishesBeforeGpuStarts(const AutoTimings &timings, qint64 jobBytes);
// The start time assumed before one was measured in this process, in ms: the H200 run of
// fb2ffab spent about 100 ms more in `pescope data` on the GPU than the encode calls took.
inline constexpr double typicalGpuStartMs = 100.0;

// Times the calibration jobs (one warm-up run, then the better of two): encode 4,096 x 1,024
// (16 MiB, one `pescope data` chunk) and, with `sampling`, a 960 x 540 viewport of
// 2^20 x 8,192. A few ms on a hardware GPU.
AutoTimings calibrateBackends(Backend &cpu, Backend &gpu, bool sampling);

} // namespace pe
