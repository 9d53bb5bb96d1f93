// GgufFile: a llama.cpp GGUF file (versions 2 and 3), memory-mapped; the header, metadata and
// tensor infos are parsed and validated on open, tensor bytes are read only when converted.
//
// Layout (ggml/docs/gguf.md; gguf-py/gguf/constants.py; ggml/src/gguf.cpp): "GGUF", uint32
// version, uint64 tensor count, uint64 metadata count; metadata key/value pairs (key: uint64
// length + UTF-8; uint32 value type; value, arrays as uint32 element type + uint64 count +
// elements); tensor infos (name, uint32 n_dims, uint64 ne[n_dims] with ne[0] contiguous,
// uint32 GGML type, uint64 offset within the data section); padding to general.alignment
// (default 32); the data section. All little-endian.
//
// Every count, length and offset is checked against the file's size before it is used, and a
// count is checked against the bytes its elements need at least before anything is reserved.
#pragma once

#include "mappedfile.h"
#include "tensorinfo.h"

#include <QHash>
#include <QStringList>
#include <QVariant>

#include <optional>
#include <utility>
#include <vector>

namespace pe {

// gguf-py GGUFValueType.
enum class GgufType : quint32 {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};
// "UINT8", "INT8", ..., "FLOAT64" (gguf-py's names); "type N" for an unknown id.
QString ggufTypeName(GgufType type);

// A GGML tensor type (gguf-py GGMLQuantizationType and GGML_QUANT_SIZES): elements per block,
// bytes per block. `removed`: an id llama.cpp no longer writes to GGUF files (Q4_2, Q4_3,
// Q4_0_4_4, ..., IQ4_NL_8_8); pescope recognises their names but cannot size them.
struct GgmlType
{
    quint32 id = 0;
    QString name;
    qint64 blockSize = 0;
    qint64 typeSize = 0;
    TensorDType dtype = TensorDType::Unsupported;
    bool quantized = false;
    bool removed = false;
};
std::optional<GgmlType> ggmlType(quint32 id);

// One metadata value. Scalars are decoded on open into `scalar`: quint64 (unsigned integer
// types), qint64 (signed), double (FLOAT32 exactly, FLOAT64), bool or QString. Arrays are only
// located: GgufFile::intArray() and friends decode them on request.
struct GgufValue
{
    GgufType type = GgufType::UInt8;
    QVariant scalar;
    GgufType arrayType = GgufType::UInt8;
    qint64 arrayCount = 0;
    qint64 arrayOffset = 0; // file offset of the first element
    qint64 arrayBytes = 0;

    bool isArray() const { return type == GgufType::Array; }
    // Integer types whose value fits; nullopt for other types and arrays.
    std::optional<qint64> toInt() const;
    // Any numeric scalar (integers converted to double).
    std::optional<double> toDouble() const;
    std::optional<bool> toBool() const;
    std::optional<QString> toString() const;
};
// "key must be WANTED, it is a STRING" (an unsigned value too large for qint64 says so).
QString ggufTypeProblem(const QString &key, const GgufValue &value, const QString &wanted);

// llama.cpp's {arch}.rope.scaling.* keys and the older {arch}.rope.scale_linear, read in
// GgufFile::ropeScaling() only (the model config and `inspect` take them from there).
struct GgufRopeScaling
{
    QString type; // "none", "linear", "yarn", "longrope", ...; empty when absent
    std::optional<double> factor;
    std::optional<double> attnFactor;
    std::optional<qint64> originalContextLength;
    std::optional<bool> finetuned;
    std::optional<double> yarnLogMultiplier;
    std::optional<double> yarnExtFactor;
    std::optional<double> yarnAttnFactor;
    std::optional<double> yarnBetaFast;
    std::optional<double> yarnBetaSlow;
    // The factor is rope.scale_linear's (files converted before rope.scaling.* existed).
    bool factorFromScaleLinear = false;
    // The first key present with a value of the wrong type, as one sentence naming it
    // ("llama.rope.scaling.factor must be a number, it is a STRING"); that value is left unset.
    QString problem;
};

namespace limits {
// GGML_MAX_DIMS and GGML_MAX_NAME (tensor names are shorter than 64 bytes).
constexpr quint32 maxGgmlDims = 4;
constexpr qint64 maxGgmlName = 64;
} // namespace limits

class GgufFile
{
public:
    [[nodiscard]] bool open(const QString &path, QString *error);

    const QString &path() const { return m_file.path(); }
    const MappedFile &file() const { return m_file; }
    quint32 version() const { return m_version; }
    quint32 alignment() const { return m_alignment; }
    qint64 dataOffset() const { return m_dataOffset; }

    // Metadata keys in file order.
    const QStringList &keys() const { return m_keys; }
    const GgufValue *value(const QString &key) const;
    // An array's elements; nullopt with `error` set when `key` is no array of that kind (any
    // integer type / any number / strings) or holds more than `maxElements`.
    std::optional<std::vector<qint64>> intArray(const QString &key, QString *error,
                                                qint64 maxElements = 1 << 20) const;
    std::optional<std::vector<double>> doubleArray(const QString &key, QString *error,
                                                   qint64 maxElements = 1 << 20) const;
    std::optional<QStringList> stringArray(const QString &key, QString *error,
                                           qint64 maxElements = 1 << 20) const;

    // Tensors in file order; shapes outermost first (ne[] reversed). At most
    // limits::maxTensorsPerFile: a header declaring more is refused before any is read.
    const TensorTable &tensors() const { return m_tensors; }
    std::optional<TensorInfo> find(const QString &name) const { return m_tensors.find(name); }
    [[nodiscard]] bool readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                std::vector<float> *out, QString *error) const;
    [[nodiscard]] bool read(const QString &name, std::vector<float> *out, QString *error) const
    {
        return readRows(name, 0, -1, out, error);
    }

    // llama.cpp's model keys (gguf-py Keys.LLM / Attention / Rope). Numeric helpers return
    // nullopt when the key is absent or not a scalar of a numeric type; head counts stored
    // as per-layer arrays (some architectures) are read with intArray(archKey(...)).
    QString architecture() const;                 // general.architecture; empty when absent
    QString archKey(const QString &suffix) const; // "{arch}.suffix"
    std::optional<qint64> archInt(const QString &suffix) const;
    std::optional<double> archDouble(const QString &suffix) const;
    std::optional<qint64> contextLength() const
    {
        return archInt(QStringLiteral("context_length"));
    }
    std::optional<qint64> embeddingLength() const
    {
        return archInt(QStringLiteral("embedding_length"));
    }
    std::optional<qint64> blockCount() const { return archInt(QStringLiteral("block_count")); }
    std::optional<qint64> headCount() const
    {
        return archInt(QStringLiteral("attention.head_count"));
    }
    std::optional<qint64> headCountKv() const
    {
        return archInt(QStringLiteral("attention.head_count_kv"));
    }
    std::optional<qint64> ropeDimensionCount() const
    {
        return archInt(QStringLiteral("rope.dimension_count"));
    }
    std::optional<double> ropeFreqBase() const
    {
        return archDouble(QStringLiteral("rope.freq_base"));
    }
    GgufRopeScaling ropeScaling() const;
    // Every "{arch}.rope.scaling.*" key present, in file order.
    QStringList ropeScalingKeys() const;
    // position_embd.weight (learned absolute positions, e.g. GPT-2) and rope_freqs.weight
    // (per-pair frequency factors of llama3-scaled and longrope models); nullopt when absent.
    std::optional<TensorInfo> positionEmbedding() const
    {
        return find(QStringLiteral("position_embd.weight"));
    }
    std::optional<TensorInfo> ropeFrequencies() const
    {
        return find(QStringLiteral("rope_freqs.weight"));
    }

private:
    class Reader;
    // The first tensor whose offset lies past the end of the file, with that offset (the
    // table keeps the file's size plus one in its place).
    using FarOffset = std::optional<std::pair<qsizetype, quint64>>;

    bool parse(QString *error);
    bool parseHeader(Reader &reader, quint64 *tensorCount, quint64 *kvCount);
    bool parseMetadata(Reader &reader, quint64 kvCount);
    bool parseArray(Reader &reader, const QString &where, GgufValue *value);
    bool parseAlignment(const Reader &reader);
    bool parseTensorInfos(Reader &reader, quint64 tensorCount, FarOffset *farOffset);
    bool parseTensorInfo(Reader &reader, quint64 i, FarOffset *farOffset);
    bool placeTensorData(Reader &reader, const FarOffset &farOffset);
    bool checkOverlaps(QString *error) const;
    bool checkArray(const QString &key, const GgufValue *value, bool (*accepts)(GgufType),
                    const QString &kind, qint64 maxElements, QString *error) const;

    MappedFile m_file;
    quint32 m_version = 0;
    quint32 m_alignment = 32;
    qint64 m_dataOffset = 0;
    QStringList m_keys;
    QHash<QString, GgufValue> m_values;
    TensorTable m_tensors;
};

} // namespace pe
