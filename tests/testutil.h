// Shared test helpers: the fuzzy comparisons (tolerance.h), float64 references
// written independently of pescope's kernels, and a runner for the pescope executable.
#pragma once

#include "encodingspec.h"
#include "tolerance.h"

#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QTest>

#include <cmath>
#include <numbers>

namespace pe::test {

// True in the sanitizer build (bootstrap.sh sanitize: -fsanitize=address,undefined; GCC and
// Clang both define __SANITIZE_ADDRESS__ there). AddressSanitizer makes the code about 2-3x
// slower and adds shadow memory and a quarantine of freed blocks to every process's footprint.
inline constexpr bool underSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif
// Time limits of the tests that measure responsiveness, scaled for that slowdown: a budget
// meant for the release build, not a looser one for it.
inline constexpr int timeScale = underSanitizer ? 5 : 1;

// The seeds' formula in float64: PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i+1) = cos(...).
inline double referenceInterleaved(qint64 p, qint64 column, qint64 dims, double base)
{
    const double angle = double(p) / std::pow(base, 2.0 * double(column / 2) / double(dims));
    return column % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

// [sin | cos] halves with the same frequencies; odd dims end in a 0 column.
inline double referenceSplit(qint64 p, qint64 column, qint64 dims, double base)
{
    const qint64 half = dims / 2;
    if (column >= 2 * half)
        return 0.0;
    const qint64 i = column < half ? column : column - half;
    const double angle = double(p) / std::pow(base, 2.0 * double(i) / double(dims));
    return column < half ? std::sin(angle) : std::cos(angle);
}

// Specs of the schemes the tests use most, with every field named.
inline EncodingSpec sinusoidalSpec(qint64 positions, qint64 dims, double base = 10000.0,
                                   Layout layout = Layout::Interleaved)
{
    EncodingSpec spec;
    spec.scheme = SinusoidalScheme{base, layout};
    spec.positions = positions;
    spec.dims = dims;
    return spec;
}

inline EncodingSpec learnedSpec(qint64 positions, qint64 dims, quint64 seed = 0)
{
    EncodingSpec spec;
    spec.scheme = LearnedScheme{seed};
    spec.positions = positions;
    spec.dims = dims;
    return spec;
}

struct RunResult
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Waits for a started `process` (up to `timeoutMs`; then kills it and answers exit code -1, no
// output): its exit code (-1 for a crash), standard output and standard error.
inline RunResult finishRun(QProcess &process, int timeoutMs = 120000)
{
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

// Runs the built pescope with `args` and waits for it (up to `timeoutMs`).
inline RunResult runPescope(const QStringList &args, int timeoutMs = 120000)
{
    QProcess process;
    process.start(QStringLiteral(PE_EXECUTABLE), args);
    return finishRun(process, timeoutMs);
}

// A python3 that has NumPy (Debian's /usr/bin/python3 first: a pyenv one on PATH may lack it);
// empty when there is none.
inline QString pythonWithNumpy()
{
    QStringList candidates = {QStringLiteral("/usr/bin/python3")};
    if (const QString onPath = QStandardPaths::findExecutable(QStringLiteral("python3"));
        !onPath.isEmpty())
        candidates += onPath;
    for (const QString &python : candidates) {
        QProcess probe;
        probe.start(python, {QStringLiteral("-c"), QStringLiteral("import numpy")});
        if (probe.waitForFinished(30000) && probe.exitStatus() == QProcess::NormalExit &&
            probe.exitCode() == 0)
            return python;
    }
    return {};
}

// Under CI (.ci/run runs with CI=true), whose scripts install every tool and library the suites
// use: there a missing one is a failure, not a skip (PE_SKIP_MISSING).
inline bool underCi()
{
    const QByteArray ci = qgetenv("CI").toLower();
    return !ci.isEmpty() && ci != "0" && ci != "false";
}

// For suites that need a QGuiApplication (the GPU backend) with no display: Qt's offscreen
// platform, as pescope's subcommands choose; call before constructing the application.
inline void preferOffscreenWithoutDisplay()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

} // namespace pe::test

// Skips the current test because a tool, library or piece of the test harness it needs is
// missing; under CI that is a failure naming it, so CI can never stay green while testing less
// (issue 35). `reason`, a string literal, names what is missing and the Debian package that
// brings it. Skips for what a machine cannot do at all (root reads every file, no GPU hardware
// for a hardware-only figure) stay plain QSKIPs.
#define PE_SKIP_MISSING(reason)                                                                    \
    do {                                                                                           \
        if (pe::test::underCi())                                                                   \
            QFAIL("under CI (CI=true) nothing the suites use may be missing, but: " reason);       \
        QSKIP(reason);                                                                             \
    } while (false)
