#include "tensorinfo.h"

#include "mappedfile.h"

#include <QStringList>
#include <QtEndian>

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

namespace pe {

namespace {

// IEEE binary16 -> binary32, exact for every input (subnormals, infinities, NaN payloads).
inline float halfToFloat(quint16 h)
{
    const quint32 sign = quint32(h & 0x8000u) << 16;
    const quint32 exponent = (h >> 10) & 0x1fu;
    const quint32 mantissa = h & 0x3ffu;
    if (exponent == 0) {
        // Zero or subnormal: mantissa * 2^-24, exact in float (11 significant bits at most).
        const float magnitude = float(mantissa) * 0x1p-24f;
        return std::bit_cast<float>(std::bit_cast<quint32>(magnitude) | sign);
    }
    if (exponent == 31)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

} // namespace

qint64 tensorDTypeSize(TensorDType dtype)
{
    switch (dtype) {
    case TensorDType::F32:
        return 4;
    case TensorDType::F16:
    case TensorDType::BF16:
        return 2;
    case TensorDType::F64:
        return 8;
    case TensorDType::Q8_0:
    case TensorDType::Unsupported:
        break;
    }
    return 0;
}

qint64 tensorDTypeBytes(TensorDType dtype, qint64 elements)
{
    qint64 bytes = -1;
    if (dtype == TensorDType::Q8_0)
        return elements % ggml::q8Block == 0 &&
                       checkedMultiply(elements / ggml::q8Block, ggml::q8BlockBytes, &bytes)
                   ? bytes
                   : -1;
    const qint64 size = tensorDTypeSize(dtype);
    return size > 0 && checkedMultiply(elements, size, &bytes) ? bytes : -1;
}

QString tensorDTypeName(TensorDType dtype)
{
    switch (dtype) {
    case TensorDType::F32:
        return QStringLiteral("F32");
    case TensorDType::F16:
        return QStringLiteral("F16");
    case TensorDType::BF16:
        return QStringLiteral("BF16");
    case TensorDType::F64:
        return QStringLiteral("F64");
    case TensorDType::Q8_0:
        return QStringLiteral("Q8_0");
    case TensorDType::Unsupported:
        break;
    }
    return QStringLiteral("unsupported");
}

bool checkedMultiply(qint64 a, qint64 b, qint64 *result)
{
    return !__builtin_mul_overflow(a, b, result);
}

bool checkedAdd(qint64 a, qint64 b, qint64 *result)
{
    return !__builtin_add_overflow(a, b, result);
}

bool shapeElementCount(const std::vector<qint64> &shape, qint64 *count)
{
    qint64 product = 1;
    for (const qint64 dimension : shape) {
        if (dimension < 0 || !checkedMultiply(product, dimension, &product))
            return false;
    }
    *count = product;
    return true;
}

qint64 TensorInfo::elementCount() const
{
    qint64 count = 0;
    return shapeElementCount(shape, &count) ? count : 0;
}

qint64 TensorInfo::rowCount() const
{
    return shape.empty() ? 1 : shape.front();
}

qint64 TensorInfo::rowLength() const
{
    qint64 length = 1;
    for (size_t i = 1; i < shape.size(); ++i)
        length *= shape[i];
    return length;
}

QString TensorInfo::shapeString() const
{
    return pe::shapeString(shape);
}

QString shapeString(const std::vector<qint64> &shape)
{
    QStringList parts;
    for (const qint64 dimension : shape)
        parts += QString::number(dimension);
    return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}

void TensorTable::clear()
{
    m_file.clear();
    m_entries = {};
    m_names = {};
    m_dimensions = {};
    m_typeNames.clear();
    m_byName = {};
}

void TensorTable::reserve(qsizetype tensors, qsizetype nameBytes, qsizetype dimensions)
{
    m_entries.reserve(size_t(tensors));
    m_names.reserve(nameBytes);
    m_dimensions.reserve(size_t(dimensions));
}

void TensorTable::append(QByteArrayView utf8Name, TensorDType dtype, const QString &typeName,
                         bool quantized, const std::vector<qint64> &shape, qint64 offset,
                         qint64 byteSize)
{
    // The readers' limits (a 100 MB safetensors header, GGUF's 64-byte names times
    // limits::maxTensorsPerFile) keep both buffers far below 4 GiB.
    Q_ASSERT(m_names.size() + utf8Name.size() <= qsizetype(UINT32_MAX));
    Q_ASSERT(m_dimensions.size() + shape.size() <= size_t(UINT32_MAX));
    qsizetype type = m_typeNames.indexOf(typeName);
    if (type < 0) {
        type = m_typeNames.size();
        m_typeNames += typeName;
    }
    Q_ASSERT(type <= 0xff); // every reader knows fewer than 256 type names
    m_entries.push_back(Entry{offset, byteSize, quint32(m_names.size()), quint32(utf8Name.size()),
                              quint32(m_dimensions.size()), quint32(shape.size()), dtype,
                              quint8(type), quantized});
    m_names.append(utf8Name);
    m_dimensions.insert(m_dimensions.end(), shape.begin(), shape.end());
}

QByteArrayView TensorTable::nameBytes(const Entry &entry) const
{
    return QByteArrayView(m_names).sliced(entry.nameStart, entry.nameLength);
}

bool TensorTable::indexNames(QString *duplicate)
{
    m_byName.resize(m_entries.size());
    for (size_t i = 0; i < m_byName.size(); ++i)
        m_byName[i] = quint32(i);
    const auto nameOf = [this](quint32 i) { return nameBytes(m_entries[i]); };
    std::sort(m_byName.begin(), m_byName.end(),
              [&](quint32 a, quint32 b) { return nameOf(a) < nameOf(b); });
    const auto repeated =
        std::adjacent_find(m_byName.begin(), m_byName.end(),
                           [&](quint32 a, quint32 b) { return nameOf(a) == nameOf(b); });
    if (repeated == m_byName.end())
        return true;
    if (duplicate)
        *duplicate = name(*repeated);
    m_byName.clear();
    return false;
}

void TensorTable::sortByOffset()
{
    std::sort(m_entries.begin(), m_entries.end(), [](const Entry &a, const Entry &b) {
        return a.offset != b.offset ? a.offset < b.offset : a.byteSize < b.byteSize;
    });
    if (!m_byName.empty())
        (void)indexNames(nullptr); // the names were unique before the entries moved
}

QString TensorTable::name(qsizetype i) const
{
    return QString::fromUtf8(nameBytes(m_entries[size_t(i)]));
}

TensorInfo TensorTable::at(qsizetype i) const
{
    const Entry &entry = m_entries[size_t(i)];
    TensorInfo tensor;
    tensor.name = QString::fromUtf8(nameBytes(entry));
    tensor.dtype = entry.dtype;
    tensor.typeName = m_typeNames.at(entry.typeIndex);
    tensor.quantized = entry.quantized;
    const auto first = m_dimensions.begin() + qsizetype(entry.shapeStart);
    tensor.shape.assign(first, first + qsizetype(entry.rank));
    tensor.offset = entry.offset;
    tensor.byteSize = entry.byteSize;
    tensor.file = m_file;
    return tensor;
}

qsizetype TensorTable::indexOf(const QString &name) const
{
    const QByteArray wanted = name.toUtf8();
    const auto it = std::lower_bound(
        m_byName.begin(), m_byName.end(), QByteArrayView(wanted),
        [this](quint32 i, QByteArrayView key) { return nameBytes(m_entries[i]) < key; });
    if (it == m_byName.end() || nameBytes(m_entries[*it]) != QByteArrayView(wanted))
        return -1;
    return qsizetype(*it);
}

std::optional<TensorInfo> TensorTable::find(const QString &name) const
{
    const qsizetype i = indexOf(name);
    return i < 0 ? std::nullopt : std::optional<TensorInfo>(at(i));
}

QString tensorUnreadableReason(const TensorInfo &tensor)
{
    if (tensor.isReadable())
        return {};
    if (tensor.quantized)
        return QStringLiteral("tensor %1 is %2, a quantized type pescope cannot read (it reads "
                              "F32, F16, BF16 and Q8_0)")
            .arg(tensor.name, tensor.typeName);
    return QStringLiteral("tensor %1 is %2; pescope reads F32, F16, BF16 and F64 tensors only")
        .arg(tensor.name, tensor.typeName);
}

namespace {

// Converts rows of `tensor` to Out (float: F64 rounded to nearest; double: every type exact).
template <typename Out>
bool convertRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow, qint64 rowCount,
                 Out *out, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(tensor.file, why);
        return false;
    };
    if (const QString reason = tensorUnreadableReason(tensor); !reason.isEmpty())
        return fail(reason);
    const qint64 rows = tensor.rowCount();
    if (rowCount < 0)
        rowCount = rows - firstRow;
    if (firstRow < 0 || firstRow > rows || rowCount < 0 || rowCount > rows - firstRow)
        return fail(QStringLiteral("rows %1 to %2 of tensor %3 are out of range: it has %4 rows")
                        .arg(firstRow)
                        .arg(firstRow + rowCount)
                        .arg(tensor.name)
                        .arg(rows));
    // Defensive: the reader validated these, but a TensorInfo is a plain struct.
    qint64 elements = 0;
    const qint64 rowLength = tensor.rowLength();
    const qint64 rowBytes = tensorDTypeBytes(tensor.dtype, rowLength);
    if (!shapeElementCount(tensor.shape, &elements) || rowBytes < 0 ||
        tensorDTypeBytes(tensor.dtype, elements) != tensor.byteSize ||
        !file.contains(tensor.offset, tensor.byteSize) || !file.isOpen())
        return fail(
            QStringLiteral("tensor %1 does not lie inside the file as described").arg(tensor.name));

    const qint64 count = rowCount * rowLength;
    if (count == 0)
        return true;
    const uchar *source = file.data() + tensor.offset + firstRow * rowBytes;
    switch (tensor.dtype) {
    case TensorDType::F32:
        if constexpr (Q_BYTE_ORDER == Q_LITTLE_ENDIAN && std::is_same_v<Out, float>) {
            std::memcpy(out, source, size_t(count) * 4);
        } else {
            for (qint64 i = 0; i < count; ++i)
                out[i] = Out(std::bit_cast<float>(qFromLittleEndian<quint32>(source + 4 * i)));
        }
        break;
    case TensorDType::F16:
        for (qint64 i = 0; i < count; ++i)
            out[i] = Out(halfToFloat(qFromLittleEndian<quint16>(source + 2 * i)));
        break;
    case TensorDType::BF16:
        // bfloat16 is the upper half of a float32.
        for (qint64 i = 0; i < count; ++i)
            out[i] = Out(
                std::bit_cast<float>(quint32(qFromLittleEndian<quint16>(source + 2 * i)) << 16));
        break;
    case TensorDType::F64:
        // To float: the default rounding mode of a double -> float conversion is round to
        // nearest, ties to even (IEEE-754), what numpy's astype(float32) does.
        for (qint64 i = 0; i < count; ++i)
            out[i] = Out(std::bit_cast<double>(qFromLittleEndian<quint64>(source + 8 * i)));
        break;
    case TensorDType::Q8_0:
        // dequantize_row_q8_0: y = GGML_FP16_TO_FP32(d) * qs[j]; an 11-bit scale times an 8-bit
        // integer is exact in float32.
        for (qint64 b = 0; b < count / ggml::q8Block; ++b) {
            const uchar *block = source + b * ggml::q8BlockBytes;
            const float d = halfToFloat(qFromLittleEndian<quint16>(block));
            for (qint64 j = 0; j < ggml::q8Block; ++j)
                out[b * ggml::q8Block + j] = Out(d * float(std::bit_cast<qint8>(block[2 + j])));
        }
        break;
    case TensorDType::Unsupported:
        return fail(tensorUnreadableReason(tensor));
    }
    return true;
}

template <typename Out>
bool readRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow, qint64 rowCount,
              std::vector<Out> *out, QString *error)
{
    out->clear();
    const qint64 rows = tensor.rowCount();
    const qint64 wanted = rowCount < 0 ? rows - firstRow : rowCount;
    const bool inRange =
        firstRow >= 0 && firstRow <= rows && wanted >= 0 && wanted <= rows - firstRow;
    // Out of range: convertRows() writes nothing and reports the rows.
    Out none = 0;
    if (!inRange || tensor.elementCount() == 0)
        return convertRows(file, tensor, firstRow, rowCount, &none, error);
    // At most the tensor's element count, which the readers checked against the file's size.
    out->resize(size_t(wanted * tensor.rowLength()));
    if (!convertRows(file, tensor, firstRow, wanted, out->data(), error)) {
        out->clear();
        return false;
    }
    return true;
}

} // namespace

bool convertTensorRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow,
                       qint64 rowCount, float *out, QString *error)
{
    return convertRows(file, tensor, firstRow, rowCount, out, error);
}

bool convertTensorRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow,
                       qint64 rowCount, double *out, QString *error)
{
    return convertRows(file, tensor, firstRow, rowCount, out, error);
}

bool readTensorRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow,
                    qint64 rowCount, std::vector<float> *out, QString *error)
{
    return readRows(file, tensor, firstRow, rowCount, out, error);
}

bool readTensorRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow,
                    qint64 rowCount, std::vector<double> *out, QString *error)
{
    return readRows(file, tensor, firstRow, rowCount, out, error);
}

bool readTensorRows(const MappedFile &file, const TensorTable &tensors, const QString &name,
                    qint64 firstRow, qint64 rowCount, std::vector<float> *out, QString *error)
{
    const std::optional<TensorInfo> tensor = tensors.find(name);
    if (!tensor) {
        if (error)
            *error = QStringLiteral("%1: no tensor named %2").arg(file.path(), name);
        return false;
    }
    return readRows(file, *tensor, firstRow, rowCount, out, error);
}

} // namespace pe
