#include "safetensorsfile.h"

#include "fields/wholenumber.h"
#include "safejson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <QtEndian>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace pe {

namespace {

struct DTypeRow
{
    const char *name;
    int bits;
    TensorDType dtype;
};

// safetensors/src/tensor.rs, enum Dtype and Dtype::bitsize().
constexpr std::array<DTypeRow, 22> dtypeTable{{
    {"BOOL", 8, TensorDType::Unsupported},
    {"F4", 4, TensorDType::Unsupported},
    {"F6_E2M3", 6, TensorDType::Unsupported},
    {"F6_E3M2", 6, TensorDType::Unsupported},
    {"U8", 8, TensorDType::Unsupported},
    {"I8", 8, TensorDType::Unsupported},
    {"F8_E5M2", 8, TensorDType::Unsupported},
    {"F8_E4M3", 8, TensorDType::Unsupported},
    {"F8_E8M0", 8, TensorDType::Unsupported},
    {"F8_E4M3FNUZ", 8, TensorDType::Unsupported},
    {"F8_E5M2FNUZ", 8, TensorDType::Unsupported},
    {"I16", 16, TensorDType::Unsupported},
    {"U16", 16, TensorDType::Unsupported},
    {"F16", 16, TensorDType::F16},
    {"BF16", 16, TensorDType::BF16},
    {"I32", 32, TensorDType::Unsupported},
    {"U32", 32, TensorDType::Unsupported},
    {"F32", 32, TensorDType::F32},
    {"C64", 64, TensorDType::Unsupported},
    {"F64", 64, TensorDType::F64},
    {"I64", 64, TensorDType::Unsupported},
    {"U64", 64, TensorDType::Unsupported},
}};

// A JSON number that is a whole number in [0, 2^63): the range through the one checked
// conversion, the value from the integer Qt keeps exactly (a double rounds those above 2^53).
std::optional<qint64> nonNegativeInteger(const QJsonValue &value)
{
    if (!value.isDouble() ||
        !wholeNumberIn(value.toDouble(), 0, std::numeric_limits<qint64>::max()))
        return std::nullopt;
    const qint64 exact = value.toInteger(-1);
    return exact >= 0 ? std::optional<qint64>(exact) : std::nullopt;
}

} // namespace

std::optional<SafetensorsDType> safetensorsDType(const QString &name)
{
    for (const DTypeRow &row : dtypeTable) {
        if (name == QLatin1String(row.name))
            return SafetensorsDType{name, row.bits, row.dtype};
    }
    return std::nullopt;
}

QStringList safetensorsDTypeNames()
{
    QStringList names;
    for (const DTypeRow &row : dtypeTable)
        names += QLatin1String(row.name);
    return names;
}

bool SafetensorsFile::open(const QString &path, QString *error)
{
    m_tensors.clear();
    m_metadata.clear();
    m_headerSize = 0;
    if (!m_file.open(path, error))
        return false;
    if (!parseHeader(error)) {
        m_tensors.clear();
        m_metadata.clear();
        m_file.close();
        return false;
    }
    return true;
}

bool SafetensorsFile::parseHeader(QString *error)
{
    const QString &file = m_file.path();
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(file, why);
        return false;
    };
    const qint64 size = m_file.size();
    if (size < 8)
        return fail(QStringLiteral("%1 bytes is too short for a safetensors file (its header "
                                   "length alone takes 8 bytes)")
                        .arg(size));
    const quint64 declared = qFromLittleEndian<quint64>(m_file.data());
    if (declared > quint64(limits::maxSafetensorsHeader))
        return fail(QStringLiteral("the header length %1 exceeds the safetensors limit of %2 "
                                   "bytes (is this a safetensors file?)")
                        .arg(declared)
                        .arg(limits::maxSafetensorsHeader));
    if (qint64(declared) > size - 8)
        return fail(QStringLiteral("the header length %1 runs past the end of the file (%2 "
                                   "bytes after the length field)")
                        .arg(declared)
                        .arg(size - 8));
    m_headerSize = qint64(declared);
    const QByteArrayView header(m_file.data() + 8, m_headerSize);
    if (header.isEmpty() || header.front() != '{')
        return fail(QStringLiteral("the header does not start with '{' (is this a safetensors "
                                   "file?)"));
    // Three levels suffice (header, tensor, shape); a little room for future metadata.
    JsonMembers members;
    if (!members.scan(header, file, error, 8))
        return false;
    // Refused before any is stored; one entry may be __metadata__.
    if (members.size() > limits::maxTensorsPerFile + 1)
        return fail(QStringLiteral("the header lists %1 entries, more than the %2 tensors "
                                   "pescope reads from one file")
                        .arg(members.size())
                        .arg(limits::maxTensorsPerFile));
    m_tensors.setFile(file);
    const qsizetype expected = std::min<qsizetype>(members.size(), limits::maxTensorsPerFile);
    m_tensors.reserve(expected, 0, 2 * expected);
    const auto visit = [&](const QString &name, const QJsonValue &value) {
        return parseEntry(name, value, error);
    };
    if (!members.forEach(visit, error))
        return false;
    // As the reference library: the tensors, in offset order, cover the data exactly.
    m_tensors.sortByOffset();
    if (!checkCoverage(error))
        return false;
    QString duplicate; // none: the scan refused repeated keys
    return m_tensors.indexNames(&duplicate) ||
           fail(QStringLiteral("tensor %1 appears twice").arg(duplicate));
}

// One member of the header: "__metadata__" or a tensor, appended to m_tensors.
bool SafetensorsFile::parseEntry(const QString &name, const QJsonValue &value, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(m_file.path(), why);
        return false;
    };
    if (name == QLatin1String("__metadata__")) {
        if (!value.isObject())
            return fail(QStringLiteral("__metadata__ is not a JSON object"));
        const QJsonObject metadata = value.toObject();
        for (auto m = metadata.begin(); m != metadata.end(); ++m) {
            if (!m.value().isString())
                return fail(QStringLiteral("__metadata__ entry \"%1\" is not a string (the "
                                           "format allows strings only)")
                                .arg(m.key()));
            m_metadata.insert(m.key(), m.value().toString());
        }
        return true;
    }
    if (m_tensors.size() >= limits::maxTensorsPerFile)
        return fail(QStringLiteral("the header lists more than %1 tensors, the most pescope "
                                   "reads from one file")
                        .arg(limits::maxTensorsPerFile));
    if (!value.isObject())
        return fail(
            QStringLiteral("the header entry for tensor %1 is not a JSON object").arg(name));
    const QJsonObject entry = value.toObject();
    const QJsonValue dtypeValue = entry.value(QLatin1String("dtype"));
    if (!dtypeValue.isString())
        return fail(QStringLiteral("tensor %1 has no dtype string").arg(name));
    const std::optional<SafetensorsDType> dtype = safetensorsDType(dtypeValue.toString());
    if (!dtype)
        return fail(QStringLiteral("tensor %1 has the unknown dtype \"%2\"")
                        .arg(name, dtypeValue.toString()));

    const QJsonValue shapeValue = entry.value(QLatin1String("shape"));
    if (!shapeValue.isArray())
        return fail(QStringLiteral("tensor %1 has no shape list").arg(name));
    const QJsonArray shapeArray = shapeValue.toArray();
    std::vector<qint64> shape;
    shape.reserve(size_t(shapeArray.size()));
    for (const QJsonValue dimension : shapeArray) {
        const std::optional<qint64> extent = nonNegativeInteger(dimension);
        if (!extent)
            return fail(QStringLiteral("tensor %1: the shape must list non-negative whole "
                                       "numbers below 2^63")
                            .arg(name));
        shape.push_back(*extent);
    }
    qint64 elements = 0, bits = 0;
    if (!shapeElementCount(shape, &elements) || !checkedMultiply(elements, dtype->bits, &bits))
        return fail(QStringLiteral("tensor %1: shape %2 has more elements than a 64-bit count "
                                   "holds")
                        .arg(name, shapeString(shape)));
    if (bits % 8 != 0)
        return fail(QStringLiteral("tensor %1: %2 elements of %3 do not end on a byte boundary")
                        .arg(name)
                        .arg(elements)
                        .arg(dtype->name));

    const QJsonArray offsets = entry.value(QLatin1String("data_offsets")).toArray();
    const std::optional<qint64> first =
        offsets.size() == 2 ? nonNegativeInteger(offsets.at(0)) : std::nullopt;
    const std::optional<qint64> second =
        offsets.size() == 2 ? nonNegativeInteger(offsets.at(1)) : std::nullopt;
    if (!first || !second)
        return fail(QStringLiteral("tensor %1: data_offsets must be two non-negative whole "
                                   "numbers [begin, end]")
                        .arg(name));
    const qint64 begin = *first, end = *second;
    const qint64 dataSize = m_file.size() - dataOffset();
    if (end < begin)
        return fail(QStringLiteral("tensor %1: data_offsets [%2, %3] end before they begin")
                        .arg(name)
                        .arg(begin)
                        .arg(end));
    if (end > dataSize)
        return fail(QStringLiteral("tensor %1: data_offsets [%2, %3] run past the end of the "
                                   "file (the data section has %4 bytes)")
                        .arg(name)
                        .arg(begin)
                        .arg(end)
                        .arg(dataSize));
    if (end - begin != bits / 8)
        return fail(QStringLiteral("tensor %1: data_offsets [%2, %3] hold %4 bytes, but %5 %6 "
                                   "needs %7")
                        .arg(name)
                        .arg(begin)
                        .arg(end)
                        .arg(end - begin)
                        .arg(dtype->name, shapeString(shape))
                        .arg(bits / 8));
    m_tensors.append(name.toUtf8(), dtype->dtype, dtype->name, false, shape, dataOffset() + begin,
                     end - begin);
    return true;
}

// The tensors, sorted by offset, must cover the data section without gaps or overlaps.
bool SafetensorsFile::checkCoverage(QString *error) const
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(m_file.path(), why);
        return false;
    };
    const qint64 dataSize = m_file.size() - dataOffset();
    qint64 covered = 0;
    for (qsizetype i = 0; i < m_tensors.size(); ++i) {
        const qint64 begin = m_tensors.offset(i) - dataOffset();
        if (begin < covered)
            return fail(QStringLiteral("tensors %1 and %2 overlap (bytes %3 to %4 of the data)")
                            .arg(m_tensors.name(i - 1), m_tensors.name(i))
                            .arg(begin)
                            .arg(covered));
        if (begin > covered)
            return fail(QStringLiteral("bytes %1 to %2 of the data belong to no tensor (the "
                                       "format allows no gaps)")
                            .arg(covered)
                            .arg(begin));
        covered = begin + m_tensors.byteSize(i);
    }
    if (covered != dataSize)
        return fail(QStringLiteral("%1 bytes after the last tensor's data belong to no tensor")
                        .arg(dataSize - covered));
    return true;
}

bool SafetensorsFile::readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                               std::vector<float> *out, QString *error) const
{
    return readTensorRows(m_file, m_tensors, name, firstRow, rowCount, out, error);
}

} // namespace pe
