// The fuzz targets' shared step: the model-file readers map a path, so each input is written to
// one file of this process (in $TMPDIR) and that path is given to the reader under test.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <unistd.h>

namespace pe::fuzz {

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
