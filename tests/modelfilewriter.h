// Writes small model files for the reader tests, byte by byte from the published formats and
// independently of pescope's readers: safetensors (README "Format" of huggingface/safetensors),
// GGUF v2/v3 (ggml/docs/gguf.md, gguf-py constants), .npy (numpy/lib/format.py), and a Hugging
// Face cache layout. Also float references computed from IEEE-754 bit fields with ldexp.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <QtEndian>

#include <cmath>
#include <cstring>
#include <vector>

namespace pe::test {

inline QByteArray le16(quint16 v)
{
    QByteArray b(2, '\0');
    qToLittleEndian(v, b.data());
    return b;
}
inline QByteArray le32(quint32 v)
{
    QByteArray b(4, '\0');
    qToLittleEndian(v, b.data());
    return b;
}
inline QByteArray le64(quint64 v)
{
    QByteArray b(8, '\0');
    qToLittleEndian(v, b.data());
    return b;
}
inline QByteArray f32Bytes(const std::vector<float> &values)
{
    QByteArray b;
    for (const float v : values) {
        quint32 bits;
        std::memcpy(&bits, &v, 4);
        b += le32(bits);
    }
    return b;
}
inline QByteArray f64Bytes(const std::vector<double> &values)
{
    QByteArray b;
    for (const double v : values) {
        quint64 bits;
        std::memcpy(&bits, &v, 8);
        b += le64(bits);
    }
    return b;
}
inline QByteArray u16Bytes(const std::vector<quint16> &bits)
{
    QByteArray b;
    for (const quint16 v : bits)
        b += le16(v);
    return b;
}

// IEEE binary16 from its fields: (-1)^s 2^(e-15) (1 + m/1024), subnormal 2^-14 m/1024.
inline double halfReference(quint16 bits)
{
    const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(double(mantissa) / 1024.0, -14);
    else if (exponent == 31)
        magnitude = mantissa ? std::nan("") : INFINITY;
    else
        magnitude = std::ldexp(1.0 + double(mantissa) / 1024.0, exponent - 15);
    return sign ? -magnitude : magnitude;
}
// bfloat16 from its fields: (-1)^s 2^(e-127) (1 + m/128), subnormal 2^-126 m/128.
inline double bfloat16Reference(quint16 bits)
{
    const int sign = bits >> 15, exponent = (bits >> 7) & 0xff, mantissa = bits & 0x7f;
    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(double(mantissa) / 128.0, -126);
    else if (exponent == 255)
        magnitude = mantissa ? std::nan("") : INFINITY;
    else
        magnitude = std::ldexp(1.0 + double(mantissa) / 128.0, exponent - 127);
    return sign ? -magnitude : magnitude;
}

inline bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

// ---- safetensors ---------------------------------------------------------------------------

struct SafetensorsEntry
{
    QString name;
    QString dtype;
    std::vector<qint64> shape;
    QByteArray data;
};

// The header JSON written by hand, tensors in the given order with consecutive data_offsets;
// padded with spaces to a multiple of 8 as the reference writer does.
inline QByteArray safetensorsHeaderJson(const std::vector<SafetensorsEntry> &tensors,
                                        const QString &metadataJson = {})
{
    QByteArray json = "{";
    bool first = true;
    if (!metadataJson.isEmpty()) {
        json += "\"__metadata__\":" + metadataJson.toUtf8();
        first = false;
    }
    qint64 offset = 0;
    for (const SafetensorsEntry &t : tensors) {
        if (!first)
            json += ',';
        first = false;
        json += '"' + t.name.toUtf8() + "\":{\"dtype\":\"" + t.dtype.toUtf8() + "\",\"shape\":[";
        for (size_t i = 0; i < t.shape.size(); ++i)
            json += (i ? "," : "") + QByteArray::number(t.shape[i]);
        json += "],\"data_offsets\":[" + QByteArray::number(offset) + ',' +
                QByteArray::number(offset + t.data.size()) + "]}";
        offset += t.data.size();
    }
    json += '}';
    while (json.size() % 8 != 0)
        json += ' ';
    return json;
}

inline QByteArray safetensorsFromHeader(const QByteArray &headerJson, const QByteArray &data)
{
    return le64(quint64(headerJson.size())) + headerJson + data;
}

inline QByteArray safetensorsBytes(const std::vector<SafetensorsEntry> &tensors,
                                   const QString &metadataJson = {})
{
    QByteArray data;
    for (const SafetensorsEntry &t : tensors)
        data += t.data;
    return safetensorsFromHeader(safetensorsHeaderJson(tensors, metadataJson), data);
}

// ---- GGUF ----------------------------------------------------------------------------------

// gguf-py GGUFValueType ids.
enum GgufTypeId : quint32 {
    GUINT8 = 0,
    GINT8 = 1,
    GUINT16 = 2,
    GINT16 = 3,
    GUINT32 = 4,
    GINT32 = 5,
    GFLOAT32 = 6,
    GBOOL = 7,
    GSTRING = 8,
    GARRAY = 9,
    GUINT64 = 10,
    GINT64 = 11,
    GFLOAT64 = 12,
};

inline QByteArray ggufString(const QByteArray &text)
{
    return le64(quint64(text.size())) + text;
}

class GgufBuilder
{
public:
    explicit GgufBuilder(quint32 version = 3) : m_version(version) {}

    // A key with its type id and already-encoded value bytes.
    void addRaw(const QByteArray &key, quint32 type, const QByteArray &value)
    {
        m_kv += ggufString(key) + le32(type) + value;
        ++m_kvCount;
    }
    void addU32(const QByteArray &key, quint32 v) { addRaw(key, GUINT32, le32(v)); }
    void addU64(const QByteArray &key, quint64 v) { addRaw(key, GUINT64, le64(v)); }
    void addI32(const QByteArray &key, qint32 v) { addRaw(key, GINT32, le32(quint32(v))); }
    void addF32(const QByteArray &key, float v)
    {
        quint32 bits;
        std::memcpy(&bits, &v, 4);
        addRaw(key, GFLOAT32, le32(bits));
    }
    void addF64(const QByteArray &key, double v)
    {
        quint64 bits;
        std::memcpy(&bits, &v, 8);
        addRaw(key, GFLOAT64, le64(bits));
    }
    void addBool(const QByteArray &key, bool v) { addRaw(key, GBOOL, QByteArray(1, v ? 1 : 0)); }
    void addString(const QByteArray &key, const QByteArray &v)
    {
        addRaw(key, GSTRING, ggufString(v));
    }
    void addArray(const QByteArray &key, quint32 elementType, quint64 count,
                  const QByteArray &elements)
    {
        addRaw(key, GARRAY, le32(elementType) + le64(count) + elements);
    }
    void setAlignment(quint32 alignment) { m_alignment = alignment; }

    // ne: GGUF order (ne[0] contiguous). The offset is the running, aligned data offset unless
    // `offset` >= 0 is given.
    void addTensor(const QByteArray &name, const std::vector<quint64> &ne, quint32 ggmlType,
                   const QByteArray &data, qint64 offset = -1)
    {
        Tensor t{name, ne, ggmlType, data, offset};
        m_tensors.push_back(t);
    }

    QByteArray build() const
    {
        QByteArray out = "GGUF" + le32(m_version) + le64(m_tensors.size()) + le64(m_kvCount) + m_kv;
        QByteArray data;
        for (const Tensor &t : m_tensors) {
            while (data.size() % m_alignment != 0)
                data += '\0';
            const quint64 offset = t.offset >= 0 ? quint64(t.offset) : quint64(data.size());
            out += ggufString(t.name) + le32(quint32(t.ne.size()));
            for (const quint64 n : t.ne)
                out += le64(n);
            out += le32(t.type) + le64(offset);
            if (t.offset < 0)
                data += t.data;
        }
        while (out.size() % m_alignment != 0)
            out += '\0';
        return out + data;
    }

private:
    struct Tensor
    {
        QByteArray name;
        std::vector<quint64> ne;
        quint32 type;
        QByteArray data;
        qint64 offset;
    };
    quint32 m_version;
    quint32 m_alignment = 32;
    QByteArray m_kv;
    quint64 m_kvCount = 0;
    std::vector<Tensor> m_tensors;
};

// ---- npy -----------------------------------------------------------------------------------

// numpy.lib.format: magic, version, header length, dict padded with spaces and ended by '\n'
// so that the data starts at a multiple of 64.
inline QByteArray npyBytes(const QByteArray &descr, const std::vector<qint64> &shape,
                           const QByteArray &data, bool fortran = false, int major = 1)
{
    QByteArray shapeText = "(";
    for (size_t i = 0; i < shape.size(); ++i)
        shapeText +=
            QByteArray::number(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
    shapeText += ")";
    QByteArray dict = "{'descr': '" + descr +
                      "', 'fortran_order': " + (fortran ? "True" : "False") +
                      ", 'shape': " + shapeText + ", }";
    const int prefix = major == 1 ? 10 : 12;
    while ((prefix + dict.size() + 1) % 64 != 0)
        dict += ' ';
    dict += '\n';
    QByteArray out = QByteArray("\x93NUMPY", 6) + char(major) + char(0);
    out += major == 1 ? le16(quint16(dict.size())) : le32(quint32(dict.size()));
    return out + dict + data;
}

} // namespace pe::test
