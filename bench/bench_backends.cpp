// Benchmark for the GPU backend against the CPU backend, side by side in one process:
// materialising 65,536 x 1,024 to host memory, and sampling a 1,920 x 1,080 viewport of
// 1,048,576 x 8,192. Per task, medians of warm runs of:
//   CPU          the CPU backend, wall time
//   GPU wall     the GPU backend's whole call, results in host memory
//   GPU kernels  its dispatches alone (GL_TIME_ELAPSED)
//   read-back    its copies into host-visible memory (GL_TIME_ELAPSED)
//   bus          the same bytes of an idle device buffer read back through the same ring,
//                no kernels: the most any GPU call of this size can deliver on this machine
// as times and as bandwidths (result bytes / time), so the gap to the bus is visible anywhere.
// It then compares every GPU value with the CPU's. It prints figures; it never passes or fails
// on time. Run it under xvfb-run where there is no display (Mesa's llvmpipe then plays the GPU,
// and its timer queries read ~0: it works when the results are waited for).
//
//   bench_backends [--runs R] [--positions N] [--dims D] [--chunk-bytes B]
//                  [--readback auto|persistent|plain|shader-buffer] [--gl-debug] [--no-sampling]
#include "backends/cpubackend.h"
#include "backends/cpusampler.h"
#include "backends/gpubackend.h"
#include "backends/samplingplan.h"
#include "benchtiming.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QGuiApplication>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <vector>

using namespace pe;
using namespace pe::bench;

namespace {

void require(bool ok, const QString &error)
{
    if (!ok)
        qFatal("benchmark failed: %s", qPrintable(error));
}

QString ms(double seconds)
{
    if (seconds < 0)
        return QStringLiteral("-");
    return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', seconds < 0.1 ? 2 : 1);
}

QString rate(double bytes, double seconds)
{
    if (seconds <= 0)
        return QStringLiteral("-");
    return QStringLiteral("%1 GB/s").arg(bytes / seconds * 1e-9, 0, 'f', 2);
}

void line(const QStringList &cells)
{
    std::printf("%-44s", qPrintable(cells.value(0)));
    for (qsizetype i = 1; i < cells.size(); ++i)
        std::printf(" %-16s", qPrintable(cells[i]));
    std::printf("\n");
}

// One task's figures in seconds (-1: none), printed as times, then as bandwidths.
struct Figures
{
    double cpu = -1, gpuWall = -1, kernels = -1, readback = -1, bus = -1, hostCopy = -1;
};

// Whether GL_TIME_ELAPSED means anything: a software rasteriser runs the work only when its
// results are waited for, outside the timed commands, so its timers read ~0.
bool g_realTimers = true;

void printTask(const QString &task, double bytes, const Figures &f)
{
    const auto timer = [](double s) { return g_realTimers ? s : -1.0; };
    line({task, ms(f.cpu), ms(f.gpuWall), ms(timer(f.kernels)), ms(timer(f.readback)), ms(f.bus)});
    line({QStringLiteral("  bandwidth (result bytes / time)"), rate(bytes, f.cpu),
          rate(bytes, f.gpuWall), rate(bytes, timer(f.kernels)), rate(bytes, timer(f.readback)),
          rate(bytes, f.bus)});
    if (f.gpuWall > 0)
        std::printf("  GPU speed / CPU speed %.2fx; GPU wall / bus %.2fx; host copies of "
                    "finished chunks %s of the GPU wall\n",
                    f.cpu / f.gpuWall, f.bus > 0 ? f.gpuWall / f.bus : 0.0,
                    qPrintable(ms(f.hostCopy)));
}

// The GPU call's timings over warm runs: medians of wall, kernels, read-back and host copy.
Figures timeGpu(GpuBackend &gpu, int runs, const std::function<void()> &call)
{
    std::vector<double> kernels, transfers, hostCopies;
    const Timing wall = timeRuns(runs, [&] {
        call();
        const GpuBackend::CallTimings t = gpu.lastTimings();
        kernels.push_back(t.kernelMs * 1e-3);
        transfers.push_back(t.transferMs * 1e-3);
        hostCopies.push_back(t.hostCopyMs * 1e-3);
    });
    for (auto *v : {&kernels, &transfers, &hostCopies})
        v->erase(v->begin()); // the warm-up run's
    Figures f;
    f.gpuWall = wall.median;
    f.kernels = median(kernels);
    f.readback = median(transfers);
    f.hostCopy = median(hostCopies);
    return f;
}

// Largest |gpu - cpu| over the whole matrix, re-encoding it on the CPU 16 MiB at a time (no
// second copy of a 4 GiB matrix), and how many rows differ by more than 1e-5.
void compareWithCpu(CpuBackend &cpu, const EncodingSpec &spec, const std::vector<float> &gpu)
{
    const qint64 rowsPerBlock =
        std::max<qint64>(1, (qint64(16) << 20) / (spec.dims * qint64(sizeof(float))));
    std::vector<float> block(std::size_t(std::min(rowsPerBlock, spec.positions) * spec.dims));
    double worst = 0;
    qint64 badRows = 0, firstBad = -1;
    QString error;
    for (qint64 r0 = 0; r0 < spec.positions; r0 += rowsPerBlock) {
        const qint64 rows = std::min(rowsPerBlock, spec.positions - r0);
        require(cpu.encode(spec, r0, rows, block.data(), &error), error);
        for (qint64 r = 0; r < rows; ++r) {
            double rowWorst = 0;
            for (qint64 j = 0; j < spec.dims; ++j) {
                const double d = std::abs(double(gpu[std::size_t((r0 + r) * spec.dims + j)]) -
                                          double(block[std::size_t(r * spec.dims + j)]));
                rowWorst = std::isnan(d) ? INFINITY : std::max(rowWorst, d);
            }
            worst = std::max(worst, rowWorst);
            if (rowWorst > 1e-5 && badRows++ == 0)
                firstBad = r0 + r;
        }
    }
    std::printf("  GPU vs CPU over all %lld rows: max |difference| %.3g; rows off by more than "
                "1e-5: %lld%s\n",
                static_cast<long long>(spec.positions), worst, static_cast<long long>(badRows),
                badRows ? qPrintable(QStringLiteral(" (the first: row %1)").arg(firstBad)) : "");
}

std::optional<GpuBackend::Readback> parseReadback(const QString &name)
{
    const std::map<QString, GpuBackend::Readback> names = {
        {QStringLiteral("auto"), GpuBackend::Readback::Auto},
        {QStringLiteral("persistent"), GpuBackend::Readback::Persistent},
        {QStringLiteral("plain"), GpuBackend::Readback::Plain},
        {QStringLiteral("shader-buffer"), GpuBackend::Readback::ShaderBuffer},
    };
    const auto it = names.find(name);
    return it == names.end() ? std::nullopt : std::optional(it->second);
}

// Viewport sampling: the whole 2^20 x 8,192 matrix, and a zoomed window near 2^20.
void benchSampling(CpuBackend &cpu, GpuBackend *gpu, int runs)
{
    QString why;
    EncodingSpec big;
    big.positions = qint64(1) << 20;
    big.dims = 8192;
    const int width = 1920, height = 1080;
    const double pixelBytes = double(width) * height * sizeof(float);
    std::vector<float> pixels(std::size_t(width) * height);
    const auto sampleTask = [&](const QString &task, const MatrixWindow &window) {
        Figures f;
        f.cpu = timeRuns(runs, [&] {
                    require(cpu.sample(big, window, width, height, pixels.data(), &why), why);
                }).median;
        if (gpu) {
            const Figures bus = timeGpu(*gpu, runs, [&] {
                require(gpu->measureReadback(qint64(pixelBytes), pixels.data(), &why), why);
            });
            const Figures g = timeGpu(*gpu, runs, [&] {
                require(gpu->sample(big, window, width, height, pixels.data(), &why), why);
            });
            f = {f.cpu, g.gpuWall, g.kernels, g.readback, bus.gpuWall, g.hostCopy};
        }
        printTask(task, pixelBytes, f);
        std::printf("  frames/s: CPU %.1f, GPU %.1f\n", 1.0 / f.cpu,
                    f.gpuWall > 0 ? 1.0 / f.gpuWall : 0.0);
    };
    sampleTask(QStringLiteral("sample %1 x %2 of %3 x %4")
                   .arg(width)
                   .arg(height)
                   .arg(big.positions)
                   .arg(big.dims),
               MatrixWindow::whole(big));
    // Where the CPU's time goes: the plan (edges, weights, closed-form tables) vs evaluation.
    std::optional<SamplingPlan> plan;
    const Timing planning = timeRuns(runs, [&] {
        plan = buildSamplingPlan(big, MatrixWindow::whole(big), width, height, &why);
        require(plan.has_value(), why);
    });
    const Timing evaluation = timeRuns(runs, [&] { evaluatePlanOnCpu(big, *plan, pixels.data()); });
    std::printf("  CPU: plan %s, evaluation %s\n", qPrintable(ms(planning.median)),
                qPrintable(ms(evaluation.median)));
    // A panned, zoomed view near 2^20: fractional edges everywhere.
    sampleTask(QStringLiteral("sample %1 x %2, zoomed window near 2^20").arg(width).arg(height),
               MatrixWindow{double(big.positions) - 200000.5, 1000.25, 150000.3, 3000.7});
}

void printDebugMessages(GpuBackend &gpu)
{
    // Counted by text: a driver repeats its performance notes per buffer and call.
    std::map<QString, int> counts;
    for (const QString &message : gpu.debugMessages())
        ++counts[message];
    std::printf("\nthe driver's debug messages (%zu distinct):\n", counts.size());
    for (const auto &[message, count] : counts)
        std::printf("  %dx %s\n", count, qPrintable(message));
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("runs"), QStringLiteral("Timed runs per figure (default 7)."),
         QStringLiteral("R"), QStringLiteral("7")},
        {QStringLiteral("positions"), QStringLiteral("Rows to materialise (default 65536)."),
         QStringLiteral("N"), QStringLiteral("65536")},
        {QStringLiteral("dims"), QStringLiteral("Columns to materialise (default 1024)."),
         QStringLiteral("D"), QStringLiteral("1024")},
        {QStringLiteral("readback"),
         QStringLiteral("GPU read-back path: auto, persistent, plain or shader-buffer (the "
                        "pattern before the fix, a diagnostic)."),
         QStringLiteral("PATH"), QStringLiteral("auto")},
        {QStringLiteral("chunk-bytes"),
         QStringLiteral("GPU chunk size limit in bytes (default 0: the backend's, 16 MiB)."),
         QStringLiteral("B"), QStringLiteral("0")},
        {QStringLiteral("gl-debug"),
         QStringLiteral("A KHR_debug context; print the driver's messages at the end.")},
        {QStringLiteral("no-sampling"), QStringLiteral("Materialise only.")},
    });
    parser.process(app);
    const int runs = std::max(1, parser.value(QStringLiteral("runs")).toInt());
    const std::optional<GpuBackend::Readback> readback =
        parseReadback(parser.value(QStringLiteral("readback")));
    require(readback.has_value(), QStringLiteral("unknown --readback"));

    CpuBackend cpu;
    QString why;
    GpuBackend::Options options;
    options.readback = *readback;
    options.debugContext = parser.isSet(QStringLiteral("gl-debug"));
    options.maxBufferBytes = parser.value(QStringLiteral("chunk-bytes")).toLongLong();
    const std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why, options);
    std::printf("CPU: %s\n", qPrintable(cpu.description()));
    std::printf("GPU: %s\n", gpu ? qPrintable(gpu->description())
                                 : qPrintable(QStringLiteral("not available: ") + why));
    if (gpu) {
        std::printf("GPU read-back: %s\n", qPrintable(GpuBackend::readbackName(gpu->readback())));
        for (const char *name : {"llvmpipe", "softpipe", "swrast"})
            g_realTimers = g_realTimers && !gpu->renderer().contains(QLatin1String(name));
        if (!g_realTimers)
            std::printf("GPU kernels and read-back: not shown, a software rasteriser's timers "
                        "read ~0 (it works when the results are waited for)\n");
    }
    std::printf("medians of %d warm runs (after one warm-up run); GPU wall includes reading the "
                "results back to host memory\n\n",
                runs);
    line({QStringLiteral("task"), QStringLiteral("CPU"), QStringLiteral("GPU wall"),
          QStringLiteral("GPU kernels"), QStringLiteral("GPU read-back"),
          QStringLiteral("bus (no kernels)")});

    // Materialising.
    EncodingSpec spec;
    spec.positions = parser.value(QStringLiteral("positions")).toLongLong();
    spec.dims = parser.value(QStringLiteral("dims")).toLongLong();
    require(spec.validate().isEmpty(), spec.validate());
    const double bytes = double(spec.byteCount());
    std::vector<float> matrix(std::size_t(spec.elementCount()));
    Figures encode;
    encode.cpu = timeRuns(runs, [&] {
                     require(cpu.encode(spec, 0, spec.positions, matrix.data(), &why), why);
                 }).median;
    if (gpu) {
        const Figures bus = timeGpu(*gpu, runs, [&] {
            require(gpu->measureReadback(spec.byteCount(), matrix.data(), &why), why);
        });
        const Figures g = timeGpu(*gpu, runs, [&] {
            require(gpu->encode(spec, 0, spec.positions, matrix.data(), &why), why);
        });
        encode = {encode.cpu, g.gpuWall, g.kernels, g.readback, bus.gpuWall, g.hostCopy};
    }
    printTask(QStringLiteral("materialise %1 x %2 (%3 MiB)")
                  .arg(spec.positions)
                  .arg(spec.dims)
                  .arg(bytes / double(1 << 20), 0, 'f', 0),
              bytes, encode);
    if (gpu)
        compareWithCpu(cpu, spec, matrix);
    matrix = {};

    if (!parser.isSet(QStringLiteral("no-sampling")))
        benchSampling(cpu, gpu.get(), runs);
    if (gpu && options.debugContext)
        printDebugMessages(*gpu);
    return 0;
}
