#include "npyfile.h"

#include <QFileInfo>
#include <QtEndian>

#include <cstring>
#include <optional>
#include <vector>

namespace pe {

namespace {

// A scanner for the one dict literal numpy writes: string keys, and values that are strings,
// True/False, or tuples of integers. Anything else (a structured dtype's list, objects) is
// refused by the caller with a message.
class HeaderScanner
{
public:
    explicit HeaderScanner(QByteArrayView text) : m_text(text) {}

    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                         m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool atEnd()
    {
        skipSpace();
        return m_pos >= m_text.size();
    }
    char peek()
    {
        skipSpace();
        return m_pos < m_text.size() ? m_text[m_pos] : '\0';
    }
    bool take(char c)
    {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }
    // A '...' or "..." literal without escapes (numpy writes none in these fields).
    std::optional<QString> string()
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"')
            return std::nullopt;
        const qsizetype start = ++m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] != quote) {
            if (m_text[m_pos] == '\\')
                return std::nullopt;
            ++m_pos;
        }
        if (m_pos >= m_text.size())
            return std::nullopt;
        const QString value = QString::fromUtf8(m_text.sliced(start, m_pos - start));
        ++m_pos;
        return value;
    }
    bool word(const char *literal)
    {
        skipSpace();
        const qsizetype length = qsizetype(std::strlen(literal));
        if (m_text.size() - m_pos < length || m_text.sliced(m_pos, length) != literal)
            return false;
        m_pos += length;
        return true;
    }
    // A non-negative decimal integer (Python 2 files may end it with 'L'); nullopt on
    // anything else or on overflow.
    std::optional<qint64> integer()
    {
        skipSpace();
        qint64 value = 0;
        const qsizetype start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
            if (!checkedMultiply(value, 10, &value) ||
                !checkedAdd(value, qint64(m_text[m_pos] - '0'), &value))
                return std::nullopt;
            ++m_pos;
        }
        if (m_pos == start)
            return std::nullopt;
        if (m_pos < m_text.size() && m_text[m_pos] == 'L')
            ++m_pos;
        return value;
    }
    qsizetype pos() const { return m_pos; }

private:
    QByteArrayView m_text;
    qsizetype m_pos = 0;
};

struct FloatDescr
{
    const char *descr;
    TensorDType dtype;
};
constexpr FloatDescr floatDescrs[] = {
    {"<f2", TensorDType::F16},
    {"<f4", TensorDType::F32},
    {"<f8", TensorDType::F64},
    // '=' is native order; pescope only runs where native is little-endian.
    {"=f2", TensorDType::F16},
    {"=f4", TensorDType::F32},
    {"=f8", TensorDType::F64},
};

} // namespace

bool NpyFile::open(const QString &path, QString *error)
{
    m_tensor = {};
    m_major = m_minor = 0;
    if (!m_file.open(path, error))
        return false;
    if (!parse(error)) {
        m_tensor = {};
        m_file.close();
        return false;
    }
    return true;
}

bool NpyFile::parse(QString *error)
{
    const QString &file = m_file.path();
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(file, why);
        return false;
    };
    const qint64 size = m_file.size();
    const uchar *data = m_file.data();
    if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0)
        return fail(QStringLiteral("not a .npy file (it does not start with \"\\x93NUMPY\")"));
    m_major = data[6];
    m_minor = data[7];
    if ((m_major != 1 && m_major != 2 && m_major != 3) || m_minor != 0)
        return fail(QStringLiteral(".npy format version %1.%2 is not supported; pescope reads "
                                   "1.0, 2.0 and 3.0")
                        .arg(m_major)
                        .arg(m_minor));
    qint64 headerLength = 0, headerStart = 0;
    if (m_major == 1) {
        headerLength = qFromLittleEndian<quint16>(data + 8);
        headerStart = 10;
    } else {
        if (size < 12)
            return fail(QStringLiteral("the file ends inside the header length (truncated?)"));
        headerLength = qFromLittleEndian<quint32>(data + 8);
        headerStart = 12;
    }
    if (headerLength > limits::maxNpyHeader)
        return fail(QStringLiteral("the header is %1 bytes long; like numpy.load, pescope "
                                   "refuses headers over %2 bytes")
                        .arg(headerLength)
                        .arg(limits::maxNpyHeader));
    if (headerLength > size - headerStart)
        return fail(QStringLiteral("the header length %1 runs past the end of the file (%2 "
                                   "bytes): truncated?")
                        .arg(headerLength)
                        .arg(size));
    const QByteArrayView header(data + headerStart, headerLength);
    if (m_major < 3) {
        for (const char c : header) {
            if (uchar(c) > 0x7f)
                return fail(QStringLiteral("the version %1.0 header is not ASCII").arg(m_major));
        }
    }

    HeaderScanner scan(header);
    std::optional<QString> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<qint64>> shape;
    const auto malformed = [&](const QString &what) {
        return fail(QStringLiteral("malformed header (%1 at byte %2 of the header)")
                        .arg(what)
                        .arg(scan.pos()));
    };
    if (!scan.take('{'))
        return malformed(QStringLiteral("no '{'"));
    while (!scan.take('}')) {
        const std::optional<QString> key = scan.string();
        if (!key)
            return malformed(QStringLiteral("a key is not a string"));
        if (!scan.take(':'))
            return malformed(QStringLiteral("no ':' after '%1'").arg(*key));
        if (*key == QLatin1String("descr")) {
            if (scan.peek() == '[')
                return fail(QStringLiteral("the array has a structured dtype (a list of "
                                           "fields); pescope reads plain float arrays only"));
            descr = scan.string();
            if (!descr)
                return malformed(QStringLiteral("'descr' is not a string"));
        } else if (*key == QLatin1String("fortran_order")) {
            if (scan.word("True"))
                fortran = true;
            else if (scan.word("False"))
                fortran = false;
            else
                return malformed(QStringLiteral("'fortran_order' is neither True nor False"));
        } else if (*key == QLatin1String("shape")) {
            if (!scan.take('('))
                return malformed(QStringLiteral("'shape' is not a tuple"));
            std::vector<qint64> dims;
            while (!scan.take(')')) {
                // A header of at most 10,000 bytes bounds the number of dimensions.
                const std::optional<qint64> dim = scan.integer();
                if (!dim)
                    return malformed(QStringLiteral("a dimension of 'shape' is not a "
                                                    "non-negative whole number below 2^63"));
                dims.push_back(*dim);
                if (!scan.take(',') && scan.peek() != ')')
                    return malformed(QStringLiteral("'shape' lacks a ',' or ')'"));
            }
            shape = dims;
        } else {
            return fail(QStringLiteral("the header has the unexpected key '%1' (numpy writes "
                                       "'descr', 'fortran_order' and 'shape')")
                            .arg(*key));
        }
        if (!scan.take(',') && scan.peek() != '}')
            return malformed(QStringLiteral("no ',' or '}' after '%1'").arg(*key));
    }
    if (!descr || !fortran || !shape)
        return fail(QStringLiteral("the header lacks %1")
                        .arg(!descr     ? QStringLiteral("'descr'")
                             : !fortran ? QStringLiteral("'fortran_order'")
                                        : QStringLiteral("'shape'")));

    m_tensor.typeName = *descr;
    for (const FloatDescr &candidate : floatDescrs) {
        if (*descr == QLatin1String(candidate.descr))
            m_tensor.dtype = candidate.dtype;
    }
    if (m_tensor.dtype == TensorDType::Unsupported) {
        if (descr->startsWith(QLatin1Char('>')) && descr->size() == 3 &&
            descr->at(1) == QLatin1Char('f'))
            return fail(QStringLiteral("dtype '%1' is big-endian; pescope reads little-endian "
                                       "float arrays ('<f2', '<f4', '<f8')")
                            .arg(*descr));
        return fail(QStringLiteral("dtype '%1' is not supported; pescope reads float arrays "
                                   "('<f2', '<f4', '<f8')")
                        .arg(*descr));
    }
    if (*fortran)
        return fail(QStringLiteral("fortran_order is True; pescope reads C-order arrays only "
                                   "(save with numpy.ascontiguousarray)"));
    m_tensor.shape = *shape;
    qint64 elements = 0, bytes = 0;
    if (!shapeElementCount(m_tensor.shape, &elements) ||
        !checkedMultiply(elements, tensorDTypeSize(m_tensor.dtype), &bytes))
        return fail(QStringLiteral("shape %1 has more elements than a 64-bit size holds")
                        .arg(m_tensor.shapeString()));
    const qint64 dataStart = headerStart + headerLength;
    const qint64 available = size - dataStart;
    if (bytes != available)
        return fail(QStringLiteral("shape %1 of '%2' needs %3 bytes of data, but the file has "
                                   "%4 after its header%5")
                        .arg(m_tensor.shapeString(), *descr)
                        .arg(bytes)
                        .arg(available)
                        .arg(bytes > available ? QStringLiteral(" (truncated?)") : QString()));
    m_tensor.name = QFileInfo(file).completeBaseName();
    m_tensor.offset = dataStart;
    m_tensor.byteSize = bytes;
    m_tensor.file = file;
    return true;
}

} // namespace pe
