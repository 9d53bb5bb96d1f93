// The environment that runs pescope under failwrite (support/failwrite.c, an LD_PRELOAD shim
// that makes writes below a folder fail as a full disk would). For suites compiled with
// PE_FAILWRITE_LIBRARY (tests/CMakeLists.txt): tst_fullwrite and tst_lessondeck.
#pragma once

#include <QDir>
#include <QList>
#include <QProcessEnvironment>
#include <QString>

#include <utility>

namespace pe::test {

// This process's environment with the shim preloaded, acting on writes below `dir`, and
// `variables` (FAILWRITE_BUDGET, FAILWRITE_MAX_WRITE, ...) set.
inline QProcessEnvironment failwriteEnvironment(const QString &dir,
                                                const QList<std::pair<QString, QString>> &variables)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString preload = env.value(QStringLiteral("LD_PRELOAD"));
    env.insert(QStringLiteral("LD_PRELOAD"),
               QStringLiteral(PE_FAILWRITE_LIBRARY) +
                   (preload.isEmpty() ? QString() : QLatin1Char(':') + preload));
    // Under AddressSanitizer the shim comes before ASan's runtime, which it would refuse.
    const QString asan = env.value(QStringLiteral("ASAN_OPTIONS"));
    env.insert(QStringLiteral("ASAN_OPTIONS"),
               (asan.isEmpty() ? QString() : asan + QLatin1Char(':')) +
                   QStringLiteral("verify_asan_link_order=0"));
    if (env.value(QStringLiteral("DISPLAY")).isEmpty())
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("FAILWRITE_DIR"), QDir(dir).canonicalPath());
    for (const auto &[name, value] : variables)
        env.insert(name, value);
    return env;
}

} // namespace pe::test
