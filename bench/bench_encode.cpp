// Benchmark for the foundation issue: the CPU backend against NumPy (seed 004's formula) and
// against memset of the same bytes, in process; and `pescope data` against a NumPy script, as
// whole processes. Prints medians and ratios; it never passes or fails on time.
//
//   bench_encode [--positions N] [--dims D] [--runs R]
#include "backends/cpubackend.h"
#include "benchtiming.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>

#include <algorithm>
#include <cstring>
#include <vector>

namespace {

QString python()
{
    return QStringLiteral("/usr/bin/python3");
}

double runProcess(const QString &program, const QStringList &args, QByteArray *out = nullptr)
{
    QProcess process;
    QElapsedTimer timer;
    timer.start();
    process.start(program, args);
    process.waitForFinished(-1);
    const double seconds = double(timer.nsecsElapsed()) * 1e-9;
    if (process.exitCode() != 0)
        qFatal("%s failed: %s", qPrintable(program), process.readAllStandardError().constData());
    if (out)
        *out = process.readAllStandardOutput();
    return seconds;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({{QStringLiteral("positions"), QStringLiteral("rows"), QStringLiteral("N"),
                        QStringLiteral("65536")},
                       {QStringLiteral("dims"), QStringLiteral("columns"), QStringLiteral("D"),
                        QStringLiteral("1024")},
                       {QStringLiteral("runs"), QStringLiteral("timed runs"), QStringLiteral("R"),
                        QStringLiteral("9")}});
    parser.process(app);
    const qint64 n = parser.value(QStringLiteral("positions")).toLongLong();
    const qint64 d = parser.value(QStringLiteral("dims")).toLongLong();
    const int runs = parser.value(QStringLiteral("runs")).toInt();
    const QString numpyScript = QStringLiteral(PE_BENCH_DIR "/numpy_baseline.py");
    const QString pescope = QStringLiteral(PE_EXECUTABLE);

    pe::EncodingSpec spec;
    spec.positions = n;
    spec.dims = d;
    std::vector<float> matrix(std::size_t(n * d));
    const double bytes = double(matrix.size() * sizeof(float));
    pe::CpuBackend backend;
    QString error;

    std::printf("pescope benchmark: %lld positions x %lld dims (%.0f MiB float32), median of %d "
                "warm runs\n",
                n, d, bytes / (1 << 20), runs);
    std::printf("machine: %d hardware threads; CPU backend: %s\n\n", backend.threadCount(),
                qPrintable(backend.description()));

    const double cpu = pe::bench::timeRuns(runs, [&] {
                           if (!backend.encode(spec, 0, n, matrix.data(), &error))
                               qFatal("%s", qPrintable(error));
                       }).median;
    const double fill = pe::bench::timeRuns(runs, [&] {
                            std::memset(matrix.data(), 1, std::size_t(bytes));
                        }).median;
    QByteArray numpyOut;
    runProcess(python(),
               {numpyScript, QStringLiteral("compute"), QString::number(n), QString::number(d),
                QString::number(std::max(3, runs / 3))},
               &numpyOut);
    const double numpy = numpyOut.trimmed().toDouble();

    std::printf("in process                          median      GB/s\n");
    std::printf("  pescope CPU backend            %9.2f ms %9.2f\n", cpu * 1e3, bytes / cpu * 1e-9);
    std::printf("  memset of the same bytes       %9.2f ms %9.2f\n", fill * 1e3,
                bytes / fill * 1e-9);
    std::printf("  NumPy, seed 004 formula        %9.2f ms %9.2f\n", numpy * 1e3,
                bytes / numpy * 1e-9);
    std::printf("  => pescope is %.1fx faster than NumPy (target >= 20x), %.2fx the memset time "
                "(target <= 4x)\n\n",
                numpy / cpu, cpu / fill);

    const QStringList dataArgs = {QStringLiteral("data"),     QStringLiteral("--positions"),
                                  QString::number(n),         QStringLiteral("--dims"),
                                  QString::number(d),         QStringLiteral("--backend"),
                                  QStringLiteral("cpu"),      QStringLiteral("--out"),
                                  QStringLiteral("/dev/null")};
    const QStringList saveArgs = {numpyScript, QStringLiteral("save"), QString::number(n),
                                  QString::number(d), QStringLiteral("/dev/null")};
    std::vector<double> pescopeTimes, numpyTimes;
    runProcess(pescope, dataArgs); // warm the page cache for both programs
    runProcess(python(), saveArgs);
    const int processRuns = std::max(3, runs / 2);
    for (int i = 0; i < processRuns; ++i) {
        pescopeTimes.push_back(runProcess(pescope, dataArgs));
        numpyTimes.push_back(runProcess(python(), saveArgs));
    }
    std::sort(pescopeTimes.begin(), pescopeTimes.end());
    std::sort(numpyTimes.begin(), numpyTimes.end());
    const double pescopeWhole = pescopeTimes[pescopeTimes.size() / 2];
    const double numpyWhole = numpyTimes[numpyTimes.size() / 2];
    std::printf("whole process, to /dev/null (median of %d, alternating)\n", processRuns);
    std::printf("  pescope data --backend cpu     %9.2f ms\n", pescopeWhole * 1e3);
    std::printf("  python3 + NumPy + numpy.save   %9.2f ms\n", numpyWhole * 1e3);
    std::printf("  => pescope is %.1fx faster (target >= 10x)\n", numpyWhole / pescopeWhole);
    return 0;
}
