// What this build of pescope is: version, git revision, the library versions it was built with
// and the CPU kernels chosen at run time. `pescope --version` and the About dialog show it.
#pragma once

#include <QString>
#include <QStringList>

namespace pe {

struct BuildInfo
{
    QString version;     // the CMake project version, e.g. "0.1.0"
    QString gitRevision; // `git describe` when the build was configured, or "unknown"
    QString qtRuntime;   // the Qt libraries loaded now
    QString qtBuild;     // the Qt headers built against
    QString qcustomplot; // the QCustomPlot headers built against
    QString eigen;
    QString compiler;
    bool nativeArch = false;         // built with -march=native (PE_NATIVE_ARCH)
    QString cpuKernels;              // the kernel set in use: avx512, avx2 or sse2
    QStringList cpuKernelsSupported; // the sets this CPU can run, widest first
};

BuildInfo buildInfo();

// One fact a line, the first "pescope VERSION"; `name: value` for the rest.
QString buildInfoText(const BuildInfo &info = buildInfo());

} // namespace pe
