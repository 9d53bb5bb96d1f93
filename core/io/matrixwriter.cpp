#include "io/matrixwriter.h"

#include "encodingspec.h"
#include "io/atomicfile.h"

#include <QFileInfo>
#include <QStorageInfo>

#include <charconv>
#include <cstring>

namespace pe {

std::optional<MatrixFormat> matrixFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("npy"))
        return MatrixFormat::Npy;
    if (suffix == QLatin1String("csv"))
        return MatrixFormat::Csv;
    return std::nullopt;
}

qint64 elementSize(ElementType type)
{
    return type == ElementType::Float64 ? 8 : 4;
}

QByteArray npyHeader(const std::vector<qint64> &shape, ElementType type)
{
    QByteArrayList dims;
    for (qint64 n : shape)
        dims += QByteArray::number(n);
    // Python's tuple syntax: "(3, 4)", but "(3,)" for one dimension.
    const QByteArray tuple = shape.size() == 1 ? dims.front() + ',' : dims.join(", ");
    const char *descr = type == ElementType::Float64 ? "<f8"
                        : type == ElementType::Int32 ? "<i4"
                                                     : "<f4";
    QByteArray dict = QByteArray("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                      tuple + "), }";
    // magic(6) + version(2) + length(2) + dict + padding + '\n' is a multiple of 64.
    const qsizetype unpadded = 10 + dict.size() + 1;
    dict += QByteArray((64 - unpadded % 64) % 64, ' ') + '\n';
    QByteArray header("\x93NUMPY\x01\x00", 8);
    const auto length = quint16(dict.size());
    header += char(length & 0xff);
    header += char(length >> 8);
    return header + dict;
}

MatrixWriter::MatrixWriter(const QString &path, MatrixFormat format, std::vector<qint64> shape,
                           ElementType type)
    : m_path(path), m_format(format), m_shape(std::move(shape)), m_type(type)
{
    for (qint64 n : m_shape)
        m_totalValues *= n;
}

MatrixWriter::~MatrixWriter()
{
    cancel();
}

qint64 MatrixWriter::expectedBytes() const
{
    if (m_format == MatrixFormat::Npy)
        return npyHeader(m_shape, m_type).size() + m_totalValues * elementSize(m_type);
    return m_totalValues * 2; // at least one digit and a separator per value
}

bool MatrixWriter::fail(const QString &message, QString *error)
{
    cancel();
    if (error)
        *error = message;
    return false;
}

// For failures AtomicFile has already described in *error.
bool MatrixWriter::abandon()
{
    cancel();
    return false;
}

QString MatrixWriter::problem() const
{
    if (QString problem = outputPathProblem(m_path); !problem.isEmpty())
        return problem;
    // Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written in place and have no free
    // space to check.
    if (!AtomicFile::writesInPlace(m_path)) {
        const QStorageInfo storage(QFileInfo(m_path).absolutePath());
        if (storage.isValid() && storage.bytesAvailable() >= 0 &&
            storage.bytesAvailable() < expectedBytes())
            return QStringLiteral("cannot write %1: it needs %2 but only %3 is free there")
                .arg(m_path, formatBytes(double(expectedBytes())),
                     formatBytes(double(storage.bytesAvailable())));
    }
    return {};
}

bool MatrixWriter::open(QString *error)
{
    if (const QString why = problem(); !why.isEmpty())
        return fail(why, error);
    m_file = std::make_unique<AtomicFile>(m_path);
    if (!m_file->open(error))
        return abandon();
    if (m_format == MatrixFormat::Npy && !m_file->write(npyHeader(m_shape, m_type), error))
        return abandon();
    return true;
}

bool MatrixWriter::write(const float *values, qint64 count, QString *error)
{
    return writeValues(values, count, ElementType::Float32, error);
}

bool MatrixWriter::write(const double *values, qint64 count, QString *error)
{
    return writeValues(values, count, ElementType::Float64, error);
}

bool MatrixWriter::write(const qint32 *values, qint64 count, QString *error)
{
    return writeValues(values, count, ElementType::Int32, error);
}

template <typename T>
bool MatrixWriter::writeValues(const T *values, qint64 count, ElementType type, QString *error)
{
    if (type != m_type)
        return fail(QStringLiteral("internal error: values of the wrong element type"), error);
    if (!m_file || !m_file->isOpen())
        return fail(QStringLiteral("cannot write %1: the file is not open").arg(m_path), error);
    if (m_written + count > m_totalValues)
        return fail(QStringLiteral("internal error: more values than the shape holds"), error);

    if (m_format == MatrixFormat::Npy) {
        static_assert(Q_BYTE_ORDER == Q_LITTLE_ENDIAN, "'<f4' output assumes a little-endian host");
        if (!m_file->write(reinterpret_cast<const char *>(values), count * qint64(sizeof(T)),
                           error))
            return abandon();
    } else {
        const qint64 columns = m_shape.empty() ? 1 : m_shape.back();
        if (count % columns != 0)
            return fail(QStringLiteral("internal error: CSV rows must be written whole"), error);
        // Shortest text that reads back to the same value (std::to_chars round-trip): at most
        // 15 characters for a float32, 24 for a float64, 11 for an int32, plus the separator.
        m_text.resize(qsizetype(count) * (sizeof(T) == 8 ? 25 : 16));
        char *cursor = m_text.data();
        char *const end = m_text.data() + m_text.size();
        for (qint64 i = 0; i < count; ++i) {
            cursor = std::to_chars(cursor, end, values[i]).ptr;
            *cursor++ = (i + 1) % columns == 0 ? '\n' : ',';
        }
        if (!m_file->write(m_text.constData(), cursor - m_text.data(), error))
            return abandon();
    }
    m_written += count;
    return true;
}

bool MatrixWriter::commit(QString *error)
{
    if (!m_file || !m_file->isOpen())
        return fail(QStringLiteral("cannot write %1: the file is not open").arg(m_path), error);
    if (m_written != m_totalValues)
        return fail(QStringLiteral("internal error: %1 of %2 values were written")
                        .arg(m_written)
                        .arg(m_totalValues),
                    error);
    const bool ok = m_file->commit(error);
    m_file.reset();
    return ok;
}

void MatrixWriter::cancel()
{
    m_file.reset(); // AtomicFile's destructor discards what was written
}

} // namespace pe
