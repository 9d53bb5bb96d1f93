// NpyFile: one array from a NumPy .npy file (format versions 1.0, 2.0 and 3.0), memory-mapped.
//
// Format (numpy/lib/format.py): "\x93NUMPY", major and minor version bytes, the header length
// (uint16 little-endian in 1.0, uint32 in 2.0 and 3.0), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } (ASCII; UTF-8 in 3.0), then the
// data. pescope reads little-endian float arrays ('<f2', '<f4', '<f8') in C order, complex ones
// ('<c8', '<c16') as floats with a trailing dimension of 2 (real, imag); other dtypes
// and Fortran order are refused with a message naming them. As numpy.load does by default, a
// header longer than 10,000 bytes is refused.
#pragma once

#include "mappedfile.h"
#include "tensorinfo.h"

#include <QString>

namespace pe {

namespace limits {
// numpy.lib.format's default max_header_size.
constexpr qint64 maxNpyHeader = 10000;
} // namespace limits

class NpyFile
{
public:
    [[nodiscard]] bool open(const QString &path, QString *error);

    const QString &path() const { return m_file.path(); }
    const MappedFile &file() const { return m_file; }
    int majorVersion() const { return m_major; }
    int minorVersion() const { return m_minor; }
    // The array; its name is the file's base name ("wpe" for wpe.npy), typeName the descr.
    const TensorInfo &tensor() const { return m_tensor; }

    [[nodiscard]] bool readRows(qint64 firstRow, qint64 rowCount, std::vector<float> *out,
                                QString *error) const
    {
        return readTensorRows(m_file, m_tensor, firstRow, rowCount, out, error);
    }
    [[nodiscard]] bool read(std::vector<float> *out, QString *error) const
    {
        return readRows(0, -1, out, error);
    }

private:
    bool parse(QString *error);

    MappedFile m_file;
    TensorInfo m_tensor;
    int m_major = 0;
    int m_minor = 0;
};

} // namespace pe
