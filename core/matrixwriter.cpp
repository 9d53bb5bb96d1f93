#include "matrixwriter.h"

#include "encodingspec.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
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

bool MatrixWriter::open(QString *error)
{
    const QFileInfo target(m_path);
    const QString dir = target.absolutePath();
    if (!QFileInfo(dir).isDir())
        return fail(QStringLiteral("cannot write %1: the folder %2 does not exist")
                        .arg(m_path, QDir::toNativeSeparators(dir)),
                    error);
    if (target.isDir())
        return fail(QStringLiteral("cannot write %1: it is a folder").arg(m_path), error);

    // Devices and pipes (/dev/null, /dev/stdout, a FIFO) cannot be replaced atomically: they are
    // written in place, since there is no file to leave half-written.
    if (target.exists() && !target.isFile()) {
        auto direct = std::make_unique<QFile>(m_path);
        if (!direct->open(QIODevice::WriteOnly | QIODevice::Unbuffered))
            return fail(QStringLiteral("cannot write %1: %2").arg(m_path, direct->errorString()),
                        error);
        m_file = std::move(direct);
    } else {
        const QStorageInfo storage(dir);
        if (storage.isValid() && storage.bytesAvailable() >= 0 &&
            storage.bytesAvailable() < expectedBytes())
            return fail(QStringLiteral("cannot write %1: it needs %2 but only %3 is free there")
                            .arg(m_path, formatBytes(double(expectedBytes())),
                                 formatBytes(double(storage.bytesAvailable()))),
                        error);
        auto save = std::make_unique<QSaveFile>(m_path);
        if (!save->open(QIODevice::WriteOnly))
            return fail(QStringLiteral("cannot write %1: %2").arg(m_path, save->errorString()),
                        error);
        m_file = std::move(save);
    }
    if (m_format == MatrixFormat::Npy) {
        const QByteArray header = npyHeader(m_shape, m_type);
        if (m_file->write(header) != header.size())
            return fail(QStringLiteral("cannot write %1: %2").arg(m_path, m_file->errorString()),
                        error);
    }
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
    if (!m_file)
        return fail(QStringLiteral("cannot write %1: the file is not open").arg(m_path), error);
    if (m_written + count > m_totalValues)
        return fail(QStringLiteral("internal error: more values than the shape holds"), error);

    if (m_format == MatrixFormat::Npy) {
        static_assert(Q_BYTE_ORDER == Q_LITTLE_ENDIAN, "'<f4' output assumes a little-endian host");
        const auto *bytes = reinterpret_cast<const char *>(values);
        qint64 remaining = count * qint64(sizeof(T));
        while (remaining > 0) {
            const qint64 n = m_file->write(bytes, remaining);
            if (n <= 0)
                return fail(
                    QStringLiteral("cannot write %1: %2").arg(m_path, m_file->errorString()),
                    error);
            bytes += n;
            remaining -= n;
        }
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
        const qint64 length = cursor - m_text.data();
        if (m_file->write(m_text.constData(), length) != length)
            return fail(QStringLiteral("cannot write %1: %2").arg(m_path, m_file->errorString()),
                        error);
    }
    m_written += count;
    return true;
}

bool MatrixWriter::commit(QString *error)
{
    if (!m_file)
        return fail(QStringLiteral("cannot write %1: the file is not open").arg(m_path), error);
    if (m_written != m_totalValues)
        return fail(QStringLiteral("internal error: %1 of %2 values were written")
                        .arg(m_written)
                        .arg(m_totalValues),
                    error);
    bool ok = true;
    if (auto *save = qobject_cast<QSaveFile *>(m_file.get()))
        ok = save->commit();
    else
        ok = m_file->flush();
    const QString reason = m_file->errorString();
    m_file.reset();
    if (!ok) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(m_path, reason);
        return false;
    }
    return true;
}

void MatrixWriter::cancel()
{
    if (auto *save = qobject_cast<QSaveFile *>(m_file.get()))
        save->cancelWriting();
    m_file.reset(); // QSaveFile's destructor discards the temporary file
}

} // namespace pe
