#include "backends/backendfactory.h"

#include "backends/cpubackend.h"
#include "backends/fallbackbackend.h"
#include "backends/gpubackend.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <functional>
#include <mutex>
#include <vector>

namespace pe {

namespace {

// The GPU is probed once per process: a context costs tens of milliseconds, and a machine
// that could not make one will not start to. Only findings, never contexts or results, are
// kept: whether it starts, what it is, how long it took, and auto's calibration.
struct GpuProbe
{
    bool done = false;
    bool available = false;
    bool software = false; // llvmpipe & co.: correct, but slower than the CPU backend
    QString description;   // the backend's description, or why there is none
    double startMs = -1.0;
};

std::mutex probeMutex;
GpuProbe probe;
AutoTimings calibration; // filled in as auto measures; guarded by probeMutex

// A rasteriser running on the CPU gives the same numbers as the GPU backend, only 12-21x slower
// than CpuBackend on the same cores (bench_backends): it cannot be the faster one, so auto does
// not spend time measuring it.
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
    QElapsedTimer timer;
    timer.start();
    std::unique_ptr<GpuBackend> gpu = GpuBackend::create(why);
    const double ms = double(timer.nsecsElapsed()) * 1e-6;
    // Without a QGuiApplication yet, a later call may still succeed: do not remember that.
    const QCoreApplication *app = QCoreApplication::instance();
    if (app && app->inherits("QGuiApplication")) {
        std::lock_guard lock(probeMutex);
        probe = {true, gpu != nullptr, gpu && isSoftwareRenderer(gpu->renderer()),
                 gpu ? gpu->description() : *why, gpu ? ms : -1.0};
        if (gpu && calibration.gpuStartMs < 0)
            calibration.gpuStartMs = ms;
    }
    return gpu;
}

GpuProbe currentProbe()
{
    std::lock_guard lock(probeMutex);
    return probe;
}

QString softwareReason(const QString &description)
{
    return description + QStringLiteral(" is a software renderer on the CPU's own cores, slower "
                                        "than the CPU backend");
}

double millisecondsOf(const std::function<void()> &job)
{
    job(); // warm-up: page faults, thread start-up, buffer allocation
    double best = -1.0;
    for (int run = 0; run < 2; ++run) {
        QElapsedTimer timer;
        timer.start();
        job();
        const double ms = double(timer.nsecsElapsed()) * 1e-6;
        best = best < 0 ? ms : std::min(best, ms);
    }
    return best;
}

// A sinusoidal table of `positions` x 1,024.
EncodingSpec calibrationTable(qint64 positions)
{
    EncodingSpec spec;
    spec.positions = positions;
    spec.dims = 1024;
    return spec;
}

// The CPU's rate before the GPU is started, measured once per process on 4 MiB: a quarter of
// the full calibration's work, which a job of 256 MiB would otherwise pay 20% on top for.
AutoTimings cpuEncodeTimings()
{
    {
        std::lock_guard lock(probeMutex);
        if (calibration.cpuEncodeMs >= 0)
            return calibration;
    }
    CpuBackend cpu;
    const EncodingSpec spec = calibrationTable(1024);
    std::vector<float> out(std::size_t(spec.elementCount()));
    QString error;
    double ms = millisecondsOf([&] {
        if (!cpu.encode(spec, 0, spec.positions, out.data(), &error))
            qWarning("auto's calibration: %s", qPrintable(error));
    });
    if (!error.isEmpty())
        ms = -1.0; // no shortcut past the GPU without a measured CPU
    std::lock_guard lock(probeMutex);
    calibration.encodeBytes = spec.byteCount();
    calibration.cpuEncodeMs = ms;
    return calibration;
}

// The calibration auto needs (encode only for a job that only encodes), measured once.
AutoTimings calibrated(GpuBackend &gpu, bool sampling)
{
    AutoTimings known;
    {
        std::lock_guard lock(probeMutex);
        known = calibration;
    }
    if (known.gpuEncodeMs >= 0 && (!sampling || known.gpuSampleMs >= 0))
        return known;
    CpuBackend cpu;
    AutoTimings measured = calibrateBackends(cpu, gpu, sampling);
    std::lock_guard lock(probeMutex);
    if (!sampling) { // keep what an earlier call measured
        measured.sampleWidth = calibration.sampleWidth;
        measured.sampleHeight = calibration.sampleHeight;
        measured.cpuSampleMs = calibration.cpuSampleMs;
        measured.gpuSampleMs = calibration.gpuSampleMs;
    }
    measured.gpuStartMs = calibration.gpuStartMs;
    calibration = measured;
    return calibration;
}

QString formatMs(double ms)
{
    return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10 ? 2 : 1);
}

// Auto: the CPU, or the GPU for the kinds of job it was measured faster at.
std::unique_ptr<Backend> makeAuto(QString *why, const AutoJob &job)
{
    const auto cpuBecause = [why](const QString &reason) {
        if (why)
            *why = reason;
        return std::make_unique<CpuBackend>();
    };
    if (job.materialiseBytes > 0) {
        const AutoTimings cpuOnly = cpuEncodeTimings();
        if (cpuFinishesBeforeGpuStarts(cpuOnly, job.materialiseBytes))
            return cpuBecause(
                QStringLiteral("the CPU computes %1 in about %2, less than starting the GPU takes "
                               "(%3)")
                    .arg(formatBytes(double(job.materialiseBytes)),
                         formatMs(cpuOnly.cpuEncodeMs * double(job.materialiseBytes) /
                                  double(cpuOnly.encodeBytes)),
                         cpuOnly.gpuStartMs >= 0 ? formatMs(cpuOnly.gpuStartMs)
                                                 : QStringLiteral("about %1, typically")
                                                       .arg(formatMs(typicalGpuStartMs))));
    }
    if (const GpuProbe known = currentProbe(); known.done && known.software)
        return cpuBecause(softwareReason(known.description));
    QString reason;
    std::unique_ptr<GpuBackend> gpu = startGpu(&reason);
    if (!gpu)
        return cpuBecause(reason); // not a failure: says why the CPU was chosen
    if (isSoftwareRenderer(gpu->renderer()))
        return cpuBecause(softwareReason(gpu->description()));
    const AutoDecision decision = decideAuto(calibrated(*gpu, job.materialiseBytes == 0));
    if (!decision.encodeOnGpu && !decision.sampleOnGpu)
        return cpuBecause(decision.why);
    if (why)
        *why = decision.why;
    return std::make_unique<FallbackBackend>(std::move(gpu),
                                             GpuRoutes{decision.encodeOnGpu, decision.sampleOnGpu});
}

} // namespace

AutoDecision decideAuto(const AutoTimings &t)
{
    const auto faster = [](double cpu, double gpu) {
        return cpu > 0 && gpu > 0 && gpu <= 0.9 * cpu;
    };
    AutoDecision d;
    d.encodeOnGpu = faster(t.cpuEncodeMs, t.gpuEncodeMs);
    d.sampleOnGpu = faster(t.cpuSampleMs, t.gpuSampleMs);
    const auto part = [](const QString &job, bool onGpu, double cpu, double gpu) {
        if (gpu < 0)
            return QStringLiteral("%1 on the CPU (the GPU was not measured)").arg(job);
        return QStringLiteral("%1 on the %2 (CPU %3, GPU %4)")
            .arg(job, onGpu ? QStringLiteral("GPU") : QStringLiteral("CPU"), formatMs(cpu),
                 formatMs(gpu));
    };
    QStringList parts{part(
        QStringLiteral("materialising to host memory: %1").arg(formatBytes(double(t.encodeBytes))),
        d.encodeOnGpu, t.cpuEncodeMs, t.gpuEncodeMs)};
    if (t.cpuSampleMs >= 0)
        parts += part(
            QStringLiteral("sampling a %1 x %2 viewport").arg(t.sampleWidth).arg(t.sampleHeight),
            d.sampleOnGpu, t.cpuSampleMs, t.gpuSampleMs);
    d.why = parts.join(QStringLiteral("; "));
    return d;
}

bool cpuFinishesBeforeGpuStarts(const AutoTimings &t, qint64 jobBytes)
{
    if (t.cpuEncodeMs < 0 || t.encodeBytes <= 0)
        return false;
    const double cpuMs = t.cpuEncodeMs * double(jobBytes) / double(t.encodeBytes);
    return cpuMs < (t.gpuStartMs >= 0 ? t.gpuStartMs : typicalGpuStartMs);
}

AutoTimings calibrateBackends(Backend &cpu, Backend &gpu, bool sampling)
{
    AutoTimings t;
    const EncodingSpec table = calibrationTable(4096);
    t.encodeBytes = table.byteCount();
    std::vector<float> out(std::size_t(table.elementCount()));
    QString error;
    const auto encodeOn = [&](Backend &backend) {
        return millisecondsOf([&] {
            if (!backend.encode(table, 0, table.positions, out.data(), &error))
                qWarning("auto's calibration: %s", qPrintable(error));
        });
    };
    t.cpuEncodeMs = encodeOn(cpu);
    t.gpuEncodeMs = error.isEmpty() ? encodeOn(gpu) : -1.0;
    if (!error.isEmpty())
        return t; // a GPU that fails its calibration is not chosen
    if (!sampling)
        return t;
    EncodingSpec big;
    big.positions = qint64(1) << 20;
    big.dims = 8192;
    t.sampleWidth = 960;
    t.sampleHeight = 540;
    std::vector<float> pixels(std::size_t(t.sampleWidth) * std::size_t(t.sampleHeight));
    const auto sampleOn = [&](Backend &backend) {
        return millisecondsOf([&] {
            if (!backend.sample(big, MatrixWindow::whole(big), t.sampleWidth, t.sampleHeight,
                                pixels.data(), &error))
                qWarning("auto's calibration: %s", qPrintable(error));
        });
    };
    t.cpuSampleMs = sampleOn(cpu);
    const double gpuMs = sampleOn(gpu);
    t.gpuSampleMs = error.isEmpty() ? gpuMs : -1.0;
    return t;
}

QList<BackendStatus> probeBackends()
{
    // Auto starts the GPU (once per process) unless the probe already knows it.
    QString autoWhy;
    const std::unique_ptr<Backend> automatic = makeAuto(&autoWhy, {});
    GpuProbe gpu = currentProbe();
    if (!gpu.done) { // no QGuiApplication: nothing was remembered
        QString why;
        const std::unique_ptr<GpuBackend> backend = startGpu(&why);
        gpu = {true, backend != nullptr, backend && isSoftwareRenderer(backend->renderer()),
               backend ? backend->description() : why, -1.0};
    }
    const QString autoChoice = automatic->id() == u"cpu"
                                   ? QStringLiteral("the CPU for every job: ")
                                   : QStringLiteral("the GPU where measured faster: ");
    return {
        {QStringLiteral("cpu"), true, CpuBackend().description()},
        {QStringLiteral("gpu"), gpu.available,
         gpu.software ? gpu.description +
                            QStringLiteral("; a software renderer, so --backend auto uses the CPU")
                      : gpu.description},
        {QStringLiteral("auto"), true, autoChoice + autoWhy},
    };
}

std::unique_ptr<Backend> makeBackend(BackendChoice choice, QString *why, const AutoJob &job)
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
        return makeAuto(why, job);
    }
    if (why)
        *why = reason;
    return nullptr;
}

} // namespace pe
