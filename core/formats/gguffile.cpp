#include "gguffile.h"

#include <QtEndian>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace pe {

namespace {

constexpr qint64 qkK = 256; // QK_K

struct GgmlRow
{
    quint32 id;
    const char *name;
    qint64 blockSize;
    qint64 typeSize;
    TensorDType dtype;
    bool quantized;
};

// gguf-py/gguf/constants.py: GGMLQuantizationType and GGML_QUANT_SIZES (block size, type size).
constexpr std::array<GgmlRow, 34> ggmlTable{{
    {0, "F32", 1, 4, TensorDType::F32, false},
    {1, "F16", 1, 2, TensorDType::F16, false},
    {2, "Q4_0", 32, 2 + 16, TensorDType::Unsupported, true},
    {3, "Q4_1", 32, 2 + 2 + 16, TensorDType::Unsupported, true},
    {6, "Q5_0", 32, 2 + 4 + 16, TensorDType::Unsupported, true},
    {7, "Q5_1", 32, 2 + 2 + 4 + 16, TensorDType::Unsupported, true},
    {8, "Q8_0", 32, 2 + 32, TensorDType::Q8_0, true},
    {9, "Q8_1", 32, 4 + 4 + 32, TensorDType::Unsupported, true},
    {10, "Q2_K", 256, 2 + 2 + qkK / 16 + qkK / 4, TensorDType::Unsupported, true},
    {11, "Q3_K", 256, 2 + qkK / 4 + qkK / 8 + 12, TensorDType::Unsupported, true},
    {12, "Q4_K", 256, 2 + 2 + qkK / 2 + 12, TensorDType::Unsupported, true},
    {13, "Q5_K", 256, 2 + 2 + qkK / 2 + qkK / 8 + 12, TensorDType::Unsupported, true},
    {14, "Q6_K", 256, 2 + qkK / 2 + qkK / 4 + qkK / 16, TensorDType::Unsupported, true},
    {15, "Q8_K", 256, 4 + qkK + qkK / 8, TensorDType::Unsupported, true},
    {16, "IQ2_XXS", 256, 2 + qkK / 4, TensorDType::Unsupported, true},
    {17, "IQ2_XS", 256, 2 + qkK / 4 + qkK / 32, TensorDType::Unsupported, true},
    {18, "IQ3_XXS", 256, 2 + qkK / 4 + qkK / 8, TensorDType::Unsupported, true},
    {19, "IQ1_S", 256, 2 + qkK / 8 + qkK / 16, TensorDType::Unsupported, true},
    {20, "IQ4_NL", 32, 2 + 16, TensorDType::Unsupported, true},
    {21, "IQ3_S", 256, 2 + qkK / 4 + qkK / 8 + qkK / 32 + 4, TensorDType::Unsupported, true},
    {22, "IQ2_S", 256, 2 + qkK / 4 + qkK / 16, TensorDType::Unsupported, true},
    {23, "IQ4_XS", 256, 2 + 2 + qkK / 2 + qkK / 64, TensorDType::Unsupported, true},
    {24, "I8", 1, 1, TensorDType::Unsupported, false},
    {25, "I16", 1, 2, TensorDType::Unsupported, false},
    {26, "I32", 1, 4, TensorDType::Unsupported, false},
    {27, "I64", 1, 8, TensorDType::Unsupported, false},
    {28, "F64", 1, 8, TensorDType::F64, false},
    {29, "IQ1_M", 256, qkK / 8 + qkK / 16 + qkK / 32, TensorDType::Unsupported, true},
    {30, "BF16", 1, 2, TensorDType::BF16, false},
    {34, "TQ1_0", 256, 2 + 4 * 13, TensorDType::Unsupported, true},
    {35, "TQ2_0", 256, 2 + 64, TensorDType::Unsupported, true},
    {39, "MXFP4", 32, 1 + 16, TensorDType::Unsupported, true},
    {40, "NVFP4", 64, 4 + 32, TensorDType::Unsupported, true},
    {41, "Q1_0", 128, 2 + 16, TensorDType::Unsupported, true},
}};

struct RemovedRow
{
    quint32 id;
    const char *name;
};
// ggml/include/ggml.h: ids whose support was removed (commented out in enum ggml_type).
constexpr std::array<RemovedRow, 8> removedGgml{{
    {4, "Q4_2"},
    {5, "Q4_3"},
    {31, "Q4_0_4_4"},
    {32, "Q4_0_4_8"},
    {33, "Q4_0_8_8"},
    {36, "IQ4_NL_4_4"},
    {37, "IQ4_NL_4_8"},
    {38, "IQ4_NL_8_8"},
}};

// Bytes of one element of a fixed-size GGUF type; 0 for STRING and ARRAY, -1 when unknown.
qint64 fixedSize(GgufType type)
{
    switch (type) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::Bool:
        return 1;
    case GgufType::UInt16:
    case GgufType::Int16:
        return 2;
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::Float32:
        return 4;
    case GgufType::UInt64:
    case GgufType::Int64:
    case GgufType::Float64:
        return 8;
    case GgufType::String:
    case GgufType::Array:
        return 0;
    }
    return -1;
}

bool isKnownType(quint32 id)
{
    return id <= quint32(GgufType::Float64);
}

bool isIntegerType(GgufType type)
{
    switch (type) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::UInt16:
    case GgufType::Int16:
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::UInt64:
    case GgufType::Int64:
        return true;
    default:
        return false;
    }
}

bool isNumberType(GgufType type)
{
    return isIntegerType(type) || type == GgufType::Float32 || type == GgufType::Float64;
}

bool isStringType(GgufType type)
{
    return type == GgufType::String;
}

// Reads little-endian values at a position that only moves forward, never past the end.
class Cursor
{
public:
    Cursor(const uchar *data, qint64 size) : m_data(data), m_size(size) {}
    qint64 pos() const { return m_pos; }
    qint64 remaining() const { return m_size - m_pos; }
    template <typename T> bool read(T *value)
    {
        if (remaining() < qint64(sizeof(T)))
            return false;
        *value = qFromLittleEndian<T>(m_data + m_pos);
        m_pos += qint64(sizeof(T));
        return true;
    }
    bool skip(qint64 bytes)
    {
        if (bytes < 0 || bytes > remaining())
            return false;
        m_pos += bytes;
        return true;
    }
    const uchar *here() const { return m_data + m_pos; }

private:
    const uchar *m_data;
    qint64 m_size;
    qint64 m_pos = 0;
};

// The scalar at `at`, decoded by type (the caller checked the bytes are there).
QVariant decodeScalar(GgufType type, const uchar *at)
{
    switch (type) {
    case GgufType::UInt8:
        return QVariant::fromValue(quint64(*at));
    case GgufType::Int8:
        return QVariant::fromValue(qint64(qint8(*at)));
    case GgufType::UInt16:
        return QVariant::fromValue(quint64(qFromLittleEndian<quint16>(at)));
    case GgufType::Int16:
        return QVariant::fromValue(qint64(qFromLittleEndian<qint16>(at)));
    case GgufType::UInt32:
        return QVariant::fromValue(quint64(qFromLittleEndian<quint32>(at)));
    case GgufType::Int32:
        return QVariant::fromValue(qint64(qFromLittleEndian<qint32>(at)));
    case GgufType::UInt64:
        return QVariant::fromValue(qFromLittleEndian<quint64>(at));
    case GgufType::Int64:
        return QVariant::fromValue(qFromLittleEndian<qint64>(at));
    case GgufType::Float32:
        return QVariant::fromValue(double(std::bit_cast<float>(qFromLittleEndian<quint32>(at))));
    case GgufType::Float64:
        return QVariant::fromValue(std::bit_cast<double>(qFromLittleEndian<quint64>(at)));
    case GgufType::Bool:
        return QVariant::fromValue(*at != 0);
    case GgufType::String:
    case GgufType::Array:
        break;
    }
    return {};
}

} // namespace

QString ggufTypeName(GgufType type)
{
    static const char *const names[] = {"UINT8",  "INT8",    "UINT16", "INT16",  "UINT32",
                                        "INT32",  "FLOAT32", "BOOL",   "STRING", "ARRAY",
                                        "UINT64", "INT64",   "FLOAT64"};
    const quint32 id = quint32(type);
    if (id < std::size(names))
        return QLatin1String(names[id]);
    return QStringLiteral("type %1").arg(id);
}

std::optional<GgmlType> ggmlType(quint32 id)
{
    for (const GgmlRow &row : ggmlTable) {
        if (row.id == id)
            return GgmlType{row.id,    QLatin1String(row.name), row.blockSize, row.typeSize,
                            row.dtype, row.quantized,           false};
    }
    for (const RemovedRow &row : removedGgml) {
        if (row.id == id)
            return GgmlType{row.id, QLatin1String(row.name), 0, 0, TensorDType::Unsupported, true,
                            true};
    }
    return std::nullopt;
}

std::optional<qint64> GgufValue::toInt() const
{
    if (!isIntegerType(type))
        return std::nullopt;
    if (scalar.typeId() == QMetaType::ULongLong) {
        const quint64 value = scalar.toULongLong();
        if (value > quint64(std::numeric_limits<qint64>::max()))
            return std::nullopt;
        return qint64(value);
    }
    return scalar.toLongLong();
}

std::optional<double> GgufValue::toDouble() const
{
    if (!isNumberType(type))
        return std::nullopt;
    if (scalar.typeId() == QMetaType::ULongLong)
        return double(scalar.toULongLong());
    if (scalar.typeId() == QMetaType::LongLong)
        return double(scalar.toLongLong());
    return scalar.toDouble();
}

std::optional<bool> GgufValue::toBool() const
{
    if (type != GgufType::Bool)
        return std::nullopt;
    return scalar.toBool();
}

std::optional<QString> GgufValue::toString() const
{
    if (type != GgufType::String)
        return std::nullopt;
    return scalar.toString();
}

bool GgufFile::open(const QString &path, QString *error)
{
    m_version = 0;
    m_alignment = 32;
    m_dataOffset = 0;
    m_keys.clear();
    m_values.clear();
    m_tensors.clear();
    if (!m_file.open(path, error))
        return false;
    if (!parse(error)) {
        m_keys.clear();
        m_values.clear();
        m_tensors.clear();
        m_file.close();
        return false;
    }
    return true;
}

// The parse's position in the file and its way of failing: every message names the file.
class GgufFile::Reader
{
public:
    Reader(const MappedFile &file, QString *error)
        : m_cursor(file.data(), file.size()), m_path(file.path()), m_size(file.size()),
          m_error(error)
    {}
    Cursor &cursor() { return m_cursor; }
    qint64 size() const { return m_size; }
    bool fail(const QString &why) const
    {
        if (m_error)
            *m_error = QStringLiteral("%1: %2").arg(m_path, why);
        return false;
    }
    bool truncated(const QString &what) const
    {
        return fail(QStringLiteral("the file ends inside %1 (at byte %2 of %3): truncated?")
                        .arg(what)
                        .arg(m_cursor.pos())
                        .arg(m_size));
    }
    bool stringPastEnd(const QString &what, quint64 length) const
    {
        return fail(QStringLiteral("%1: a string of %2 bytes runs past the end of the file "
                                   "(%3 bytes left)")
                        .arg(what)
                        .arg(length)
                        .arg(m_cursor.remaining()));
    }
    // A uint64 length and that many UTF-8 bytes; `text` may be null to skip the string.
    bool readString(QString *text, const QString &what)
    {
        quint64 length = 0;
        if (!m_cursor.read(&length))
            return truncated(what);
        if (length > quint64(m_cursor.remaining()))
            return stringPastEnd(what, length);
        if (text)
            *text = QString::fromUtf8(reinterpret_cast<const char *>(m_cursor.here()),
                                      qsizetype(length));
        m_cursor.skip(qint64(length));
        return true;
    }

private:
    Cursor m_cursor;
    QString m_path;
    qint64 m_size;
    QString *m_error;
};

// Stages in file order: header, metadata (then general.alignment), tensor infos, data offset.
bool GgufFile::parse(QString *error)
{
    Reader reader(m_file, error);
    quint64 tensorCount = 0, kvCount = 0;
    if (!parseHeader(reader, &tensorCount, &kvCount) || !parseMetadata(reader, kvCount) ||
        !parseAlignment(reader))
        return false;
    FarOffset farOffset;
    if (!parseTensorInfos(reader, tensorCount, &farOffset) || !placeTensorData(reader, farOffset))
        return false;
    return checkOverlaps(error);
}

// The magic, the version and the two counts, refused when the rest of the file cannot hold them.
bool GgufFile::parseHeader(Reader &reader, quint64 *tensorCount, quint64 *kvCount)
{
    Cursor &cursor = reader.cursor();
    const qint64 size = reader.size();
    if (size < 4 || std::memcmp(m_file.data(), "GGUF", 4) != 0) {
        if (size >= 4 && (std::memcmp(m_file.data(), "lmgg", 4) == 0 ||
                          std::memcmp(m_file.data(), "fmgg", 4) == 0 ||
                          std::memcmp(m_file.data(), "tjgg", 4) == 0))
            return reader.fail(QStringLiteral("an older GGML/GGJT file; pescope reads GGUF "
                                              "versions 2 and 3 (convert it with llama.cpp)"));
        return reader.fail(QStringLiteral("not a GGUF file (it does not start with \"GGUF\")"));
    }
    cursor.skip(4);
    if (!cursor.read(&m_version))
        return reader.truncated(QStringLiteral("the header"));
    if (m_version == 1)
        return reader.fail(QStringLiteral("GGUF version 1 is not supported; pescope reads "
                                          "versions 2 and 3 (convert it with a current "
                                          "llama.cpp)"));
    if (m_version != 2 && m_version != 3) {
        const quint32 swapped = qbswap(m_version);
        if (swapped == 2 || swapped == 3)
            return reader.fail(QStringLiteral("a big-endian GGUF file; pescope reads "
                                              "little-endian ones only"));
        return reader.fail(QStringLiteral("GGUF version %1 is not supported; pescope reads "
                                          "versions 2 and 3")
                               .arg(m_version));
    }
    if (!cursor.read(tensorCount) || !cursor.read(kvCount))
        return reader.truncated(QStringLiteral("the header"));
    // Each metadata pair takes at least 13 bytes (key length, type, a 1-byte value), each
    // tensor info at least 24 (name length, n_dims, type, offset).
    const quint64 room = quint64(cursor.remaining());
    if (*kvCount > room / 13 || *tensorCount > room / 24 ||
        *kvCount * 13 + *tensorCount * 24 > room)
        return reader.fail(QStringLiteral("the header declares %1 metadata entries and %2 "
                                          "tensors, more than the remaining %3 bytes can hold")
                               .arg(*kvCount)
                               .arg(*tensorCount)
                               .arg(room));
    if (*tensorCount > quint64(limits::maxTensorsPerFile))
        return reader.fail(QStringLiteral("the header declares %1 tensors, more than the %2 "
                                          "pescope reads from one file")
                               .arg(*tensorCount)
                               .arg(limits::maxTensorsPerFile));
    return true;
}

// The metadata key/value pairs, kept in file order; a key may appear once.
bool GgufFile::parseMetadata(Reader &reader, quint64 kvCount)
{
    Cursor &cursor = reader.cursor();
    for (quint64 i = 0; i < kvCount; ++i) {
        QString key;
        if (!reader.readString(&key, QStringLiteral("metadata key #%1").arg(i)))
            return false;
        const QString where = QStringLiteral("metadata key %1").arg(key);
        if (m_values.contains(key))
            return reader.fail(QStringLiteral("%1 appears twice").arg(where));
        quint32 typeId = 0;
        if (!cursor.read(&typeId))
            return reader.truncated(where);
        if (!isKnownType(typeId))
            return reader.fail(
                QStringLiteral("%1 has the unknown value type %2").arg(where).arg(typeId));
        GgufValue value;
        value.type = GgufType(typeId);
        if (value.type == GgufType::String) {
            QString text;
            if (!reader.readString(&text, where))
                return false;
            value.scalar = text;
        } else if (value.type == GgufType::Array) {
            if (!parseArray(reader, where, &value))
                return false;
        } else {
            const qint64 bytes = fixedSize(value.type);
            if (cursor.remaining() < bytes)
                return reader.truncated(where);
            if (value.type == GgufType::Bool && *cursor.here() > 1)
                return reader.fail(QStringLiteral("%1: a BOOL value is %2, neither 0 nor 1")
                                       .arg(where)
                                       .arg(*cursor.here()));
            value.scalar = decodeScalar(value.type, cursor.here());
            cursor.skip(bytes);
        }
        m_keys += key;
        m_values.insert(key, value);
    }
    return true;
}

// An array value: its element type and count, then its elements checked and skipped (read
// later, on demand, from arrayOffset).
bool GgufFile::parseArray(Reader &reader, const QString &where, GgufValue *value)
{
    Cursor &cursor = reader.cursor();
    quint32 elementId = 0;
    quint64 count = 0;
    if (!cursor.read(&elementId) || !cursor.read(&count))
        return reader.truncated(where);
    if (!isKnownType(elementId))
        return reader.fail(
            QStringLiteral("%1: an array of the unknown value type %2").arg(where).arg(elementId));
    value->arrayType = GgufType(elementId);
    if (value->arrayType == GgufType::Array)
        return reader.fail(QStringLiteral("%1: arrays of arrays are not supported (llama.cpp "
                                          "refuses them too)")
                               .arg(where));
    const qint64 elementSize = fixedSize(value->arrayType);
    const qint64 minimum = elementSize > 0 ? elementSize : 8; // a string's length field
    if (count > quint64(cursor.remaining() / minimum))
        return reader.fail(QStringLiteral("%1: an array of %2 %3 values runs past the end of "
                                          "the file (%4 bytes left)")
                               .arg(where)
                               .arg(count)
                               .arg(ggufTypeName(value->arrayType))
                               .arg(cursor.remaining()));
    value->arrayCount = qint64(count);
    value->arrayOffset = cursor.pos();
    if (elementSize > 0) {
        if (value->arrayType == GgufType::Bool) {
            for (qint64 e = 0; e < value->arrayCount; ++e) {
                if (cursor.here()[e] > 1)
                    return reader.fail(QStringLiteral("%1: element %2 of a BOOL array is %3, "
                                                      "neither 0 nor 1")
                                           .arg(where)
                                           .arg(e)
                                           .arg(cursor.here()[e]));
            }
        }
        cursor.skip(value->arrayCount * elementSize);
    } else {
        // Tokenizer vocabularies hold ~10^5 strings: messages are built on failure only.
        for (qint64 e = 0; e < value->arrayCount; ++e) {
            const auto element = [&] {
                return QStringLiteral("%1, array element %2").arg(where).arg(e);
            };
            quint64 length = 0;
            if (!cursor.read(&length))
                return reader.truncated(element());
            if (length > quint64(cursor.remaining()))
                return reader.stringPastEnd(element(), length);
            cursor.skip(qint64(length));
        }
    }
    value->arrayBytes = cursor.pos() - value->arrayOffset;
    return true;
}

// general.alignment: a UINT32 power of two (as ggml/src/gguf.cpp requires).
bool GgufFile::parseAlignment(const Reader &reader)
{
    if (const GgufValue *alignment = value(QStringLiteral("general.alignment"))) {
        if (alignment->type != GgufType::UInt32)
            return reader.fail(QStringLiteral("general.alignment must be a UINT32, it is a %1")
                                   .arg(ggufTypeName(alignment->type)));
        const quint64 a = alignment->scalar.toULongLong();
        if (a == 0 || (a & (a - 1)) != 0)
            return reader.fail(QStringLiteral("general.alignment %1 is not a power of two").arg(a));
        m_alignment = quint32(a);
    }
    return true;
}

// The tensor infos; offsets are kept relative to the data section until its start is known.
bool GgufFile::parseTensorInfos(Reader &reader, quint64 tensorCount, FarOffset *farOffset)
{
    m_tensors.setFile(m_file.path());
    m_tensors.reserve(qsizetype(tensorCount), 0, qsizetype(tensorCount) * 2);
    for (quint64 i = 0; i < tensorCount; ++i) {
        if (!parseTensorInfo(reader, i, farOffset))
            return false;
    }
    QString duplicate;
    if (!m_tensors.indexNames(&duplicate))
        return reader.fail(QStringLiteral("tensor %1 appears twice").arg(duplicate));
    return true;
}

// Tensor info #i: name, dimensions, GGML type and offset, checked and sized.
bool GgufFile::parseTensorInfo(Reader &reader, quint64 i, FarOffset *farOffset)
{
    Cursor &cursor = reader.cursor();
    QString name;
    if (!reader.readString(&name, QStringLiteral("the name of tensor #%1").arg(i)))
        return false;
    const QString where = QStringLiteral("tensor %1").arg(name);
    const QByteArray utf8Name = name.toUtf8();
    if (utf8Name.size() >= limits::maxGgmlName)
        return reader.fail(QStringLiteral("%1: the name is longer than GGML's limit of %2 bytes")
                               .arg(where)
                               .arg(limits::maxGgmlName - 1));
    quint32 dims = 0;
    if (!cursor.read(&dims))
        return reader.truncated(where);
    if (dims > limits::maxGgmlDims)
        return reader.fail(QStringLiteral("%1 has %2 dimensions; GGML allows at most %3")
                               .arg(where)
                               .arg(dims)
                               .arg(limits::maxGgmlDims));
    std::vector<qint64> ne;
    for (quint32 d = 0; d < dims; ++d) {
        quint64 extent = 0;
        if (!cursor.read(&extent))
            return reader.truncated(where);
        if (extent > quint64(std::numeric_limits<qint64>::max()))
            return reader.fail(
                QStringLiteral("%1: dimension %2 is %3, beyond a 64-bit signed count")
                    .arg(where)
                    .arg(d)
                    .arg(extent));
        ne.push_back(qint64(extent));
    }
    const std::vector<qint64> shape(ne.rbegin(), ne.rend());
    quint32 typeId = 0;
    quint64 offset = 0;
    if (!cursor.read(&typeId) || !cursor.read(&offset))
        return reader.truncated(where);
    const std::optional<GgmlType> type = ggmlType(typeId);
    if (!type)
        return reader.fail(
            QStringLiteral("%1 has the unknown GGML type id %2").arg(where).arg(typeId));
    if (type->removed)
        return reader.fail(QStringLiteral("%1 has GGML type %2 (id %3), which llama.cpp removed "
                                          "from GGUF files; pescope cannot size it")
                               .arg(where, type->name)
                               .arg(typeId));
    qint64 elements = 0;
    if (!shapeElementCount(shape, &elements))
        return reader.fail(
            QStringLiteral("%1: shape %2 has more elements than a 64-bit count holds")
                .arg(where, shapeString(shape)));
    const qint64 rowElements = ne.empty() ? 1 : ne.front();
    if (rowElements % type->blockSize != 0)
        return reader.fail(QStringLiteral("%1: %2 rows of %3 elements are not a whole number "
                                          "of %4-element blocks")
                               .arg(where, type->name)
                               .arg(rowElements)
                               .arg(type->blockSize));
    qint64 bytes = 0;
    if (!checkedMultiply(elements / type->blockSize, type->typeSize, &bytes))
        return reader.fail(QStringLiteral("%1: shape %2 of %3 is larger than a 64-bit size")
                               .arg(where, shapeString(shape), type->name));
    if (offset % m_alignment != 0)
        return reader.fail(QStringLiteral("%1: its offset %2 is not a multiple of the alignment %3")
                               .arg(where)
                               .arg(offset)
                               .arg(m_alignment));
    // Past the end whatever the data section's start: kept as the file's size plus one.
    const quint64 size = quint64(reader.size());
    if (offset > size && !*farOffset)
        *farOffset = {m_tensors.size(), offset};
    m_tensors.append(utf8Name, type->dtype, type->name, type->quantized, shape,
                     qint64(std::min(offset, size + 1)), bytes);
    return true;
}

// The data section starts at the next multiple of the alignment; every tensor's bytes must
// lie inside the file, and its offset becomes absolute.
bool GgufFile::placeTensorData(Reader &reader, const FarOffset &farOffset)
{
    const qint64 size = reader.size();
    const qint64 end = reader.cursor().pos();
    const qint64 padding = (m_alignment - end % m_alignment) % m_alignment;
    m_dataOffset = end + padding;
    // Without tensors the data section is empty and a file may end before its padding (ggml
    // reads it all the same): the section then starts at the end, never past it.
    if (m_tensors.empty())
        m_dataOffset = std::min(m_dataOffset, size);
    for (qsizetype i = 0; i < m_tensors.size(); ++i) {
        const qint64 relative = m_tensors.offset(i);
        const qint64 bytes = m_tensors.byteSize(i);
        qint64 begin = 0;
        if (relative > size || !checkedAdd(m_dataOffset, relative, &begin) ||
            !m_file.contains(begin, bytes))
            return reader.fail(
                QStringLiteral("tensor %1: its data (%2 bytes at offset %3 of the data "
                               "section, which starts at byte %4) runs past the end of "
                               "the file (%5 bytes): truncated?")
                    .arg(m_tensors.name(i))
                    .arg(bytes)
                    .arg(farOffset && farOffset->first == i ? farOffset->second : quint64(relative))
                    .arg(m_dataOffset)
                    .arg(size));
        m_tensors.setOffset(i, begin);
    }
    return true;
}

// No two tensors' bytes may overlap (checked in the order of their offsets).
bool GgufFile::checkOverlaps(QString *error) const
{
    std::vector<quint32> order(size_t(m_tensors.size()));
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = quint32(i);
    std::sort(order.begin(), order.end(), [&](quint32 a, quint32 b) {
        return m_tensors.offset(a) != m_tensors.offset(b)
                   ? m_tensors.offset(a) < m_tensors.offset(b)
                   : m_tensors.byteSize(a) < m_tensors.byteSize(b);
    });
    for (size_t k = 1; k < order.size(); ++k) {
        const qsizetype previous = order[k - 1], current = order[k];
        const qint64 previousEnd = m_tensors.offset(previous) + m_tensors.byteSize(previous);
        if (m_tensors.offset(current) < previousEnd) {
            if (error)
                *error = QStringLiteral("%1: tensors %2 and %3 overlap (bytes %4 to %5)")
                             .arg(m_file.path(), m_tensors.name(previous), m_tensors.name(current))
                             .arg(m_tensors.offset(current))
                             .arg(previousEnd);
            return false;
        }
    }
    return true;
}

const GgufValue *GgufFile::value(const QString &key) const
{
    const auto it = m_values.constFind(key);
    return it == m_values.cend() ? nullptr : &*it;
}

bool GgufFile::checkArray(const QString &key, const GgufValue *value, bool (*accepts)(GgufType),
                          const QString &kind, qint64 maxElements, QString *error) const
{
    QString why;
    if (!value)
        why = QStringLiteral("there is no metadata key %1").arg(key);
    else if (!value->isArray() || !accepts(value->arrayType))
        why = QStringLiteral("metadata key %1 is not an array of %2").arg(key, kind);
    else if (value->arrayCount > maxElements)
        why = QStringLiteral("metadata key %1 holds %2 elements, more than the %3 asked for")
                  .arg(key)
                  .arg(value->arrayCount)
                  .arg(maxElements);
    if (why.isEmpty())
        return true;
    if (error)
        *error = QStringLiteral("%1: %2").arg(path(), why);
    return false;
}

std::optional<std::vector<qint64>> GgufFile::intArray(const QString &key, QString *error,
                                                      qint64 maxElements) const
{
    const GgufValue *v = value(key);
    if (!checkArray(key, v, isIntegerType, QStringLiteral("integers"), maxElements, error))
        return std::nullopt;
    std::vector<qint64> values;
    values.reserve(size_t(v->arrayCount));
    const qint64 step = fixedSize(v->arrayType);
    for (qint64 i = 0; i < v->arrayCount; ++i) {
        const QVariant element =
            decodeScalar(v->arrayType, m_file.data() + v->arrayOffset + i * step);
        if (element.typeId() == QMetaType::ULongLong &&
            element.toULongLong() > quint64(std::numeric_limits<qint64>::max())) {
            if (error)
                *error = QStringLiteral("%1: element %2 of %3 does not fit a signed 64-bit "
                                        "integer")
                             .arg(path())
                             .arg(i)
                             .arg(key);
            return std::nullopt;
        }
        values.push_back(element.toLongLong());
    }
    return values;
}

std::optional<std::vector<double>> GgufFile::doubleArray(const QString &key, QString *error,
                                                         qint64 maxElements) const
{
    const GgufValue *v = value(key);
    if (!checkArray(key, v, isNumberType, QStringLiteral("numbers"), maxElements, error))
        return std::nullopt;
    std::vector<double> values;
    values.reserve(size_t(v->arrayCount));
    const qint64 step = fixedSize(v->arrayType);
    for (qint64 i = 0; i < v->arrayCount; ++i) {
        GgufValue element;
        element.type = v->arrayType;
        element.scalar = decodeScalar(v->arrayType, m_file.data() + v->arrayOffset + i * step);
        values.push_back(*element.toDouble());
    }
    return values;
}

std::optional<QStringList> GgufFile::stringArray(const QString &key, QString *error,
                                                 qint64 maxElements) const
{
    const GgufValue *v = value(key);
    if (!checkArray(key, v, isStringType, QStringLiteral("strings"), maxElements, error))
        return std::nullopt;
    QStringList values;
    values.reserve(qsizetype(v->arrayCount));
    // Validated on open: each element is a length and that many bytes inside the array.
    const uchar *at = m_file.data() + v->arrayOffset;
    for (qint64 i = 0; i < v->arrayCount; ++i) {
        const quint64 length = qFromLittleEndian<quint64>(at);
        values += QString::fromUtf8(reinterpret_cast<const char *>(at + 8), qsizetype(length));
        at += 8 + length;
    }
    return values;
}

bool GgufFile::readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                        std::vector<float> *out, QString *error) const
{
    return readTensorRows(m_file, m_tensors, name, firstRow, rowCount, out, error);
}

QString GgufFile::architecture() const
{
    const GgufValue *v = value(QStringLiteral("general.architecture"));
    return v ? v->toString().value_or(QString()) : QString();
}

QString GgufFile::archKey(const QString &suffix) const
{
    return architecture() + QLatin1Char('.') + suffix;
}

std::optional<qint64> GgufFile::archInt(const QString &suffix) const
{
    const GgufValue *v = value(archKey(suffix));
    return v ? v->toInt() : std::nullopt;
}

std::optional<double> GgufFile::archDouble(const QString &suffix) const
{
    const GgufValue *v = value(archKey(suffix));
    return v ? v->toDouble() : std::nullopt;
}

QString ggufTypeProblem(const QString &key, const GgufValue &value, const QString &wanted)
{
    const QString type = value.isArray()
                             ? QStringLiteral("an array of %1").arg(ggufTypeName(value.arrayType))
                             : QStringLiteral("a %1").arg(ggufTypeName(value.type));
    const QString tooLarge = value.type == GgufType::UInt64
                                 ? QStringLiteral(" too large for a signed 64-bit integer")
                                 : QString();
    return QStringLiteral("%1 must be %2, it is %3%4").arg(key, wanted, type, tooLarge);
}

GgufRopeScaling GgufFile::ropeScaling() const
{
    GgufRopeScaling scaling;
    // One key's value as `convert` gives it; a value of another type is the problem.
    const auto read = [&](const char *suffix, auto convert, const char *wanted) {
        const QString key = archKey(QLatin1String(suffix));
        const GgufValue *v = value(key);
        decltype(convert(GgufValue())) out;
        if (!v)
            return out;
        out = convert(*v);
        if (!out && scaling.problem.isEmpty())
            scaling.problem = ggufTypeProblem(key, *v, QLatin1String(wanted));
        return out;
    };
    const auto number = [&](const char *suffix) {
        return read(
            suffix, [](const GgufValue &v) { return v.toDouble(); }, "a number");
    };
    scaling.type =
        read(
            "rope.scaling.type", [](const GgufValue &v) { return v.toString(); }, "a string")
            .value_or(QString());
    scaling.factor = number("rope.scaling.factor");
    // llama.cpp's llama_model::load_hparams: the type defaults to "linear", the factor to the
    // older LLM_KV_ROPE_SCALE_LINEAR key when rope.scaling.factor is absent.
    if (const std::optional<double> linear = number("rope.scale_linear");
        linear && scaling.type.isEmpty()) {
        scaling.type = QStringLiteral("linear");
        if (!scaling.factor) {
            scaling.factor = linear;
            scaling.factorFromScaleLinear = true;
        }
    }
    scaling.attnFactor = number("rope.scaling.attn_factor");
    scaling.originalContextLength = read(
        "rope.scaling.original_context_length", [](const GgufValue &v) { return v.toInt(); },
        "an integer");
    scaling.finetuned = read(
        "rope.scaling.finetuned", [](const GgufValue &v) { return v.toBool(); }, "true or false");
    scaling.yarnLogMultiplier = number("rope.scaling.yarn_log_multiplier");
    scaling.yarnExtFactor = number("rope.scaling.yarn_ext_factor");
    scaling.yarnAttnFactor = number("rope.scaling.yarn_attn_factor");
    scaling.yarnBetaFast = number("rope.scaling.yarn_beta_fast");
    scaling.yarnBetaSlow = number("rope.scaling.yarn_beta_slow");
    return scaling;
}

QStringList GgufFile::ropeScalingKeys() const
{
    const QString prefix = archKey(QStringLiteral("rope.scaling."));
    QStringList found;
    for (const QString &key : m_keys) {
        if (key.startsWith(prefix))
            found += key;
    }
    return found;
}

} // namespace pe
