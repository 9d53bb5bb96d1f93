// MatrixWriter: streams a C-order array (float32 by default; float64 or int32 on request) to
// .npy (v1.0, '<f4' / '<f8' / '<i4') or .csv, atomically (through AtomicFile).
// Nothing appears at the target path unless commit() succeeds; a failed or cancelled write
// leaves any existing file untouched.
#pragma once

#include <QString>
#include <QtGlobal>

#include <memory>
#include <optional>
#include <vector>

namespace pe {

class AtomicFile;

enum class MatrixFormat { Npy, Csv };
// The element type written; each has its own write() overload.
enum class ElementType { Float32, Float64, Int32 };

qint64 elementSize(ElementType type);

// By extension, case-insensitive: ".npy" or ".csv"; nullopt for anything else.
std::optional<MatrixFormat> matrixFormatForPath(const QString &path);

// The .npy v1.0 header (magic, version, length, dict, padding to 64 bytes) for a '<f4' array
// ('<f8' or '<i4' for the other element types).
QByteArray npyHeader(const std::vector<qint64> &shape, ElementType type = ElementType::Float32);

class MatrixWriter
{
public:
    // shape: the array's dimensions; CSV writes the last one as columns, one line per row.
    MatrixWriter(const QString &path, MatrixFormat format, std::vector<qint64> shape,
                 ElementType type = ElementType::Float32);
    ~MatrixWriter();
    MatrixWriter(const MatrixWriter &) = delete;
    MatrixWriter &operator=(const MatrixWriter &) = delete;

    // Empty when open() can start: the path can be written and its filesystem has room for
    // expectedBytes(); else one sentence why not, naming the path. Creates nothing.
    QString problem() const;
    [[nodiscard]] bool open(QString *error);
    // Appends `count` values in C order; for CSV, count must be a multiple of the last dimension.
    // The overload must match the writer's element type.
    [[nodiscard]] bool write(const float *values, qint64 count, QString *error);
    [[nodiscard]] bool write(const double *values, qint64 count, QString *error);
    [[nodiscard]] bool write(const qint32 *values, qint64 count, QString *error);
    // Checks every value was written, then makes the file appear at its path.
    [[nodiscard]] bool commit(QString *error);
    void cancel();

    qint64 expectedBytes() const; // exact for .npy, a lower bound for .csv

private:
    bool fail(const QString &message, QString *error);
    bool abandon();
    template <typename T>
    bool writeValues(const T *values, qint64 count, ElementType type, QString *error);

    QString m_path;
    MatrixFormat m_format;
    std::vector<qint64> m_shape;
    ElementType m_type = ElementType::Float32;
    qint64 m_totalValues = 1;
    qint64 m_written = 0;
    std::unique_ptr<AtomicFile> m_file;
    QByteArray m_text; // CSV formatting buffer, reused
};

} // namespace pe
