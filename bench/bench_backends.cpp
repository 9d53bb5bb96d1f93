// Benchmark for the GPU issue: the GPU backend against the CPU backend, side by side in one
// process, for materialising 65,536 x 1,024 and for sampling a 1,920 x 1,080 viewport of
// 1,048,576 x 8,192. Medians of warm runs, the ratio, and the bandwidth (bytes written / time).
// It prints figures; it never passes or fails on time. Run it under xvfb-run where there is no
// display (Mesa's llvmpipe then plays the GPU).
//
//   bench_backends [--runs R] [--positions N] [--dims D]
#include "benchtiming.h"
#include "cpubackend.h"
#include "cpusampler.h"
#include "gpubackend.h"
#include "samplingplan.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QGuiApplication>

#include <algorithm>
#include <cstdio>
#include <functional>
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
    return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', seconds < 0.1 ? 2 : 1);
}

QString rate(double bytes, double seconds)
{
    return QStringLiteral("%1 GB/s").arg(bytes / seconds * 1e-9, 0, 'f', 2);
}

void row(const QString &task, const QString &cpu, const QString &gpu, const QString &ratio)
{
    std::printf("%-52s %-22s %-22s %s\n", qPrintable(task), qPrintable(cpu), qPrintable(gpu),
                qPrintable(ratio));
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
    });
    parser.process(app);
    const int runs = std::max(1, parser.value(QStringLiteral("runs")).toInt());

    CpuBackend cpu;
    QString why;
    const std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why);
    std::printf("CPU: %s\n", qPrintable(cpu.description()));
    std::printf("GPU: %s\n", gpu ? qPrintable(gpu->description())
                                 : qPrintable(QStringLiteral("not available: ") + why));
    std::printf("medians of %d warm runs (after one warm-up run); wall time includes reading "
                "results back to host memory\n\n",
                runs);
    row(QStringLiteral("task"), QStringLiteral("CPU"), QStringLiteral("GPU"),
        QStringLiteral("GPU speed / CPU speed"));

    // Materialising.
    EncodingSpec spec;
    spec.positions = parser.value(QStringLiteral("positions")).toLongLong();
    spec.dims = parser.value(QStringLiteral("dims")).toLongLong();
    require(spec.validate().isEmpty(), spec.validate());
    const double bytes = double(spec.byteCount());
    std::vector<float> matrix(std::size_t(spec.elementCount()));
    const Timing cpuEncode = timeRuns(
        runs, [&] { require(cpu.encode(spec, 0, spec.positions, matrix.data(), &why), why); });
    Timing gpuEncode;
    std::vector<double> kernelTimes;
    if (gpu) {
        gpuEncode = timeRuns(runs, [&] {
            require(gpu->encode(spec, 0, spec.positions, matrix.data(), &why), why);
            kernelTimes.push_back(gpu->lastKernelMilliseconds() * 1e-3);
        });
        kernelTimes.erase(kernelTimes.begin()); // the warm-up run's
    }
    const QString task = QStringLiteral("materialise %1 x %2 (%3 MiB)")
                             .arg(spec.positions)
                             .arg(spec.dims)
                             .arg(bytes / double(1 << 20), 0, 'f', 0);
    row(task, ms(cpuEncode.median), gpu ? ms(gpuEncode.median) : QStringLiteral("-"),
        gpu ? QStringLiteral("%1x").arg(cpuEncode.median / gpuEncode.median, 0, 'f', 2)
            : QStringLiteral("-"));
    row(QStringLiteral("  bandwidth (bytes written / wall time)"), rate(bytes, cpuEncode.median),
        gpu ? rate(bytes, gpuEncode.median) : QStringLiteral("-"), QString());
    const double kernel = median(kernelTimes);
    // llvmpipe runs the dispatches when results are read, so its timer shows ~0: not printed.
    if (gpu && kernel > 1e-5)
        row(QStringLiteral("  GPU kernels only (GL_TIME_ELAPSED), bandwidth"), QString(),
            QStringLiteral("%1, %2").arg(ms(kernel), rate(bytes, kernel)), QString());
    matrix = {};

    // Viewport sampling.
    EncodingSpec big;
    big.positions = qint64(1) << 20;
    big.dims = 8192;
    const int width = 1920, height = 1080;
    const double pixelBytes = double(width) * height * sizeof(float);
    std::vector<float> pixels(std::size_t(width) * height);
    const MatrixWindow whole = MatrixWindow::whole(big);
    const Timing cpuSample = timeRuns(
        runs, [&] { require(cpu.sample(big, whole, width, height, pixels.data(), &why), why); });
    Timing gpuSample;
    if (gpu)
        gpuSample = timeRuns(runs, [&] {
            require(gpu->sample(big, whole, width, height, pixels.data(), &why), why);
        });
    const auto fps = [](double s) { return QStringLiteral(" (%1 fps)").arg(1.0 / s, 0, 'f', 1); };
    row(QStringLiteral("sample %1 x %2 of %3 x %4")
            .arg(width)
            .arg(height)
            .arg(big.positions)
            .arg(big.dims),
        ms(cpuSample.median) + fps(cpuSample.median),
        gpu ? ms(gpuSample.median) + fps(gpuSample.median) : QStringLiteral("-"),
        gpu ? QStringLiteral("%1x").arg(cpuSample.median / gpuSample.median, 0, 'f', 2)
            : QStringLiteral("-"));
    row(QStringLiteral("  bandwidth (pixel bytes written / wall time)"),
        rate(pixelBytes, cpuSample.median),
        gpu ? rate(pixelBytes, gpuSample.median) : QStringLiteral("-"), QString());
    // Where the CPU's time goes: the plan (edges, weights, closed-form tables) vs evaluation.
    std::optional<SamplingPlan> plan;
    const Timing planning = timeRuns(runs, [&] {
        plan = buildSamplingPlan(big, whole, width, height, &why);
        require(plan.has_value(), why);
    });
    const Timing evaluation = timeRuns(runs, [&] { evaluatePlanOnCpu(big, *plan, pixels.data()); });
    row(QStringLiteral("  CPU: plan / evaluation"),
        ms(planning.median) + QStringLiteral(" / ") + ms(evaluation.median), QString(), QString());
    // A panned, zoomed view near 2^20: fractional edges everywhere.
    const MatrixWindow zoomed{double(big.positions) - 200000.5, 1000.25, 150000.3, 3000.7};
    const Timing cpuZoomed = timeRuns(
        runs, [&] { require(cpu.sample(big, zoomed, width, height, pixels.data(), &why), why); });
    Timing gpuZoomed;
    if (gpu)
        gpuZoomed = timeRuns(runs, [&] {
            require(gpu->sample(big, zoomed, width, height, pixels.data(), &why), why);
        });
    row(QStringLiteral("sample %1 x %2, zoomed window near 2^20").arg(width).arg(height),
        ms(cpuZoomed.median) + fps(cpuZoomed.median),
        gpu ? ms(gpuZoomed.median) + fps(gpuZoomed.median) : QStringLiteral("-"),
        gpu ? QStringLiteral("%1x").arg(cpuZoomed.median / gpuZoomed.median, 0, 'f', 2)
            : QStringLiteral("-"));
    return 0;
}
