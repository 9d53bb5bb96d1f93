#include "buildinfo.h"

#include "buildinfo_config.h"
#include "kernels/cpukernels.h"

#include <Eigen/Core>

namespace pe {

BuildInfo buildInfo()
{
    BuildInfo info;
    info.version = QStringLiteral(PE_VERSION);
    info.gitRevision = QStringLiteral(PE_GIT_REVISION);
    info.qtRuntime = QString::fromLatin1(qVersion());
    info.qtBuild = QStringLiteral(QT_VERSION_STR);
    info.qcustomplot = QStringLiteral(PE_QCUSTOMPLOT_VERSION);
    info.eigen = QStringLiteral("%1.%2.%3")
                     .arg(EIGEN_WORLD_VERSION)
                     .arg(EIGEN_MAJOR_VERSION)
                     .arg(EIGEN_MINOR_VERSION);
#if defined(__clang__)
    info.compiler = QStringLiteral("Clang " __clang_version__);
#elif defined(__GNUC__)
    info.compiler = QStringLiteral("GCC " __VERSION__);
#else
    info.compiler = QStringLiteral("unknown");
#endif
    info.nativeArch = PE_NATIVE_ARCH;
    info.cpuKernels = QString::fromLatin1(kernels::cpuIsaName(kernels::cpuKernels().isa));
    for (const kernels::CpuIsa isa : kernels::supportedCpuIsas())
        info.cpuKernelsSupported.append(QString::fromLatin1(kernels::cpuIsaName(isa)));
    return info;
}

QString buildInfoText(const BuildInfo &info)
{
    const QString qt = info.qtRuntime == info.qtBuild
                           ? info.qtRuntime
                           : QStringLiteral("%1 (built with %2)").arg(info.qtRuntime, info.qtBuild);
    const QString build =
        info.compiler + (info.nativeArch ? QStringLiteral(", tuned for the build machine "
                                                          "(-march=native)")
                                         : QStringLiteral(", portable x86-64"));
    return QStringLiteral("pescope %1\n"
                          "revision: %2\n"
                          "Qt: %3\n"
                          "QCustomPlot: %4\n"
                          "Eigen: %5\n"
                          "build: %6\n"
                          "CPU kernels: %7 (this CPU runs %8; PE_CPU_KERNELS overrides)")
        .arg(info.version, info.gitRevision, qt, info.qcustomplot, info.eigen, build,
             info.cpuKernels, info.cpuKernelsSupported.join(QStringLiteral(", ")));
}

} // namespace pe
