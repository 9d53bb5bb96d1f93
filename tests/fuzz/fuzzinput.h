// The fuzz targets' shared steps: the model-file readers map a path, so each input is written to
// one file of this process (in $TMPDIR) and that path is given to the reader under test; a
// contract check that libFuzzer reports as a crash; a QCoreApplication for the targets whose
// code under test wants one.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <unistd.h>

namespace pe::fuzz {

inline void check(bool ok)
{
    if (!ok)
        __builtin_trap(); // a broken contract, reported by libFuzzer as a crash
}

// ExplorerState and the command-line parser are QObjects or read the application's name; none
// of the code under test needs a display.
inline void ensureCoreApplication()
{
    static int argc = 1;
    static char name[] = "pescope-fuzz";
    static char *argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
}

inline QString writeInput(const uint8_t *data, size_t size, const char *suffix)
{
    static const QString path = QDir::temp().filePath(
        QStringLiteral("pe-fuzz-%1%2").arg(::getpid()).arg(QLatin1String(suffix)));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        __builtin_trap(); // the machine, not the input: stop rather than fuzz nothing
    file.write(reinterpret_cast<const char *>(data), qint64(size));
    file.close();
    return path;
}

// Reads the first rows of every tensor a reader lists, as pescope does for a position table.
template <class Reader> void readEveryTensor(const Reader &reader)
{
    for (const auto &tensor : reader.tensors()) {
        std::vector<float> rows;
        QString error;
        (void)reader.readRows(tensor.name, 0, 2, &rows, &error);
    }
}

} // namespace pe::fuzz
