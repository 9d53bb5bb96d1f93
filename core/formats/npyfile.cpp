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
    bool complex = false; // (real, imag) pairs: read as a trailing dimension of 2
};
constexpr FloatDescr floatDescrs[] = {
    {"<f2", TensorDType::F16},
    {"<f4", TensorDType::F32},
    {"<f8", TensorDType::F64},
    // np.save(freqs_cis.numpy()): complex64 / complex128, each a (real, imag) pair of floats.
    {"<c8", TensorDType::F32, true},
    {"<c16", TensorDType::F64, true},
    // '=' is native order; pescope only runs where native is little-endian.
    {"=f2", TensorDType::F16},
    {"=f4", TensorDType::F32},
    {"=f8", TensorDType::F64},
    {"=c8", TensorDType::F32, true},
    {"=c16", TensorDType::F64, true},
};

// Where the header dict lies: the version after the magic string, and the header's length.
struct NpyPreamble
{
    int major = 0;
    int minor = 0;
    qint64 headerStart = 0;
    qint64 headerLength = 0;
};

// The problem with a file's first bytes; empty when they are a preamble pescope reads.
QString preambleProblem(const uchar *data, qint64 size, NpyPreamble *out)
{
    if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0)
        return QStringLiteral("not a .npy file (it does not start with \"\\x93NUMPY\")");
    out->major = data[6];
    out->minor = data[7];
    if ((out->major != 1 && out->major != 2 && out->major != 3) || out->minor != 0)
        return QStringLiteral(".npy format version %1.%2 is not supported; pescope reads 1.0, "
                              "2.0 and 3.0")
            .arg(out->major)
            .arg(out->minor);
    if (out->major == 1) {
        out->headerLength = qFromLittleEndian<quint16>(data + 8);
        out->headerStart = 10;
    } else {
        if (size < 12)
            return QStringLiteral("the file ends inside the header length (truncated?)");
        out->headerLength = qFromLittleEndian<quint32>(data + 8);
        out->headerStart = 12;
    }
    if (out->headerLength > limits::maxNpyHeader)
        return QStringLiteral("the header is %1 bytes long; like numpy.load, pescope refuses "
                              "headers over %2 bytes")
            .arg(out->headerLength)
            .arg(limits::maxNpyHeader);
    if (out->headerLength > size - out->headerStart)
        return QStringLiteral("the header length %1 runs past the end of the file (%2 bytes): "
                              "truncated?")
            .arg(out->headerLength)
            .arg(size);
    return {};
}

// The header dict's three keys.
struct NpyHeader
{
    std::optional<QString> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<qint64>> shape;
};

QString malformed(const HeaderScanner &scan, const QString &what)
{
    return QStringLiteral("malformed header (%1 at byte %2 of the header)")
        .arg(what)
        .arg(scan.pos());
}

// The tuple after 'shape':, or the problem with it.
QString shapeProblem(HeaderScanner &scan, std::optional<std::vector<qint64>> *shape)
{
    if (!scan.take('('))
        return malformed(scan, QStringLiteral("'shape' is not a tuple"));
    std::vector<qint64> dims;
    while (!scan.take(')')) {
        // A header of at most 10,000 bytes bounds the number of dimensions.
        const std::optional<qint64> dim = scan.integer();
        if (!dim)
            return malformed(scan, QStringLiteral("a dimension of 'shape' is not a non-negative "
                                                  "whole number below 2^63"));
        dims.push_back(*dim);
        if (!scan.take(',') && scan.peek() != ')')
            return malformed(scan, QStringLiteral("'shape' lacks a ',' or ')'"));
    }
    *shape = dims;
    return {};
}

// The value of `key` in the header dict, or the problem with it.
QString valueProblem(HeaderScanner &scan, const QString &key, NpyHeader *out)
{
    if (key == QLatin1String("descr")) {
        if (scan.peek() == '[')
            return QStringLiteral("the array has a structured dtype (a list of fields); pescope "
                                  "reads plain float arrays only");
        out->descr = scan.string();
        if (!out->descr)
            return malformed(scan, QStringLiteral("'descr' is not a string"));
    } else if (key == QLatin1String("fortran_order")) {
        if (scan.word("True"))
            out->fortran = true;
        else if (scan.word("False"))
            out->fortran = false;
        else
            return malformed(scan, QStringLiteral("'fortran_order' is neither True nor False"));
    } else if (key == QLatin1String("shape")) {
        return shapeProblem(scan, &out->shape);
    } else {
        return QStringLiteral("the header has the unexpected key '%1' (numpy writes 'descr', "
                              "'fortran_order' and 'shape')")
            .arg(key);
    }
    return {};
}

// The header dict of a version `major` file, or the problem with it.
QString headerProblem(QByteArrayView header, int major, NpyHeader *out)
{
    if (major < 3) {
        for (const char c : header) {
            if (uchar(c) > 0x7f)
                return QStringLiteral("the version %1.0 header is not ASCII").arg(major);
        }
    }
    HeaderScanner scan(header);
    if (!scan.take('{'))
        return malformed(scan, QStringLiteral("no '{'"));
    while (!scan.take('}')) {
        const std::optional<QString> key = scan.string();
        if (!key)
            return malformed(scan, QStringLiteral("a key is not a string"));
        if (!scan.take(':'))
            return malformed(scan, QStringLiteral("no ':' after '%1'").arg(*key));
        if (QString problem = valueProblem(scan, *key, out); !problem.isEmpty())
            return problem;
        if (!scan.take(',') && scan.peek() != '}')
            return malformed(scan, QStringLiteral("no ',' or '}' after '%1'").arg(*key));
    }
    if (!out->descr || !out->fortran || !out->shape)
        return QStringLiteral("the header lacks %1")
            .arg(!out->descr     ? QStringLiteral("'descr'")
                 : !out->fortran ? QStringLiteral("'fortran_order'")
                                 : QStringLiteral("'shape'"));
    return {};
}

// The dtype and shape of a complete header as `tensor`'s, or why pescope cannot read them.
QString arrayProblem(const NpyHeader &header, TensorInfo *tensor)
{
    const QString &descr = *header.descr;
    tensor->typeName = descr;
    bool complex = false;
    for (const FloatDescr &candidate : floatDescrs) {
        if (descr == QLatin1String(candidate.descr)) {
            tensor->dtype = candidate.dtype;
            complex = candidate.complex;
        }
    }
    if (tensor->dtype == TensorDType::Unsupported) {
        if (descr.startsWith(QLatin1Char('>')) && descr.size() == 3 &&
            descr.at(1) == QLatin1Char('f'))
            return QStringLiteral("dtype '%1' is big-endian; pescope reads little-endian float "
                                  "arrays ('<f2', '<f4', '<f8', complex '<c8', '<c16')")
                .arg(descr);
        return QStringLiteral("dtype '%1' is not supported; pescope reads float arrays ('<f2', "
                              "'<f4', '<f8') and complex ones ('<c8', '<c16')")
            .arg(descr);
    }
    if (*header.fortran)
        return QStringLiteral("fortran_order is True; pescope reads C-order arrays only (save "
                              "with numpy.ascontiguousarray)");
    tensor->shape = *header.shape;
    if (complex)
        tensor->shape.push_back(2);
    return {};
}

// `tensor`'s data offset and size when the file holds exactly its bytes after the header.
QString dataProblem(const NpyPreamble &preamble, qint64 size, TensorInfo *tensor)
{
    qint64 elements = 0, bytes = 0;
    if (!shapeElementCount(tensor->shape, &elements) ||
        !checkedMultiply(elements, tensorDTypeSize(tensor->dtype), &bytes))
        return QStringLiteral("shape %1 has more elements than a 64-bit size holds")
            .arg(tensor->shapeString());
    const qint64 dataStart = preamble.headerStart + preamble.headerLength;
    const qint64 available = size - dataStart;
    if (bytes != available)
        return QStringLiteral("shape %1 of '%2' needs %3 bytes of data, but the file has %4 "
                              "after its header%5")
            .arg(tensor->shapeString(), tensor->typeName)
            .arg(bytes)
            .arg(available)
            .arg(bytes > available ? QStringLiteral(" (truncated?)") : QString());
    tensor->offset = dataStart;
    tensor->byteSize = bytes;
    return {};
}

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
    NpyPreamble preamble;
    QString problem = preambleProblem(m_file.data(), m_file.size(), &preamble);
    m_major = preamble.major;
    m_minor = preamble.minor;
    if (!problem.isEmpty())
        return fail(problem);
    const QByteArrayView header(m_file.data() + preamble.headerStart, preamble.headerLength);
    NpyHeader fields;
    problem = headerProblem(header, m_major, &fields);
    if (problem.isEmpty())
        problem = arrayProblem(fields, &m_tensor);
    if (problem.isEmpty())
        problem = dataProblem(preamble, m_file.size(), &m_tensor);
    if (!problem.isEmpty())
        return fail(problem);
    m_tensor.name = QFileInfo(file).completeBaseName();
    m_tensor.file = file;
    return true;
}

} // namespace pe
