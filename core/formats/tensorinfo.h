// Tensor descriptors shared by the model-file readers (safetensors, GGUF, npy), the compact
// table that holds a file's many descriptors, and the one conversion of a stored tensor, or a
// range of its rows, to float32.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <iterator>
#include <optional>
#include <vector>

namespace pe {

class MappedFile;

// The element types pescope converts. Every other type a reader recognises (safetensors' I64 or
// F8_E4M3, GGML's Q4_K, npy's '<i8', ...) is Unsupported, and TensorInfo::typeName names it.
// Q8_0 is GGML's block type (ggml-common.h block_q8_0): blocks of 32 values, each an IEEE
// binary16 scale d followed by 32 int8 q, value = d * q (dequantize_row_q8_0); a row holds whole
// blocks (the GGUF reader checks it).
enum class TensorDType : quint8 { F32, F16, BF16, F64, Q8_0, Unsupported };

namespace ggml {
constexpr qint64 q8Block = 32;          // QK8_0: values per Q8_0 block
constexpr qint64 q8BlockBytes = 2 + 32; // sizeof(block_q8_0)
} // namespace ggml

// Bytes per element; 0 for Unsupported and for Q8_0 (a block type: tensorDTypeBytes).
qint64 tensorDTypeSize(TensorDType dtype);
// Bytes `elements` values take (Q8_0: whole blocks; -1 when `elements` is not a whole number of
// blocks or the product overflows); -1 for Unsupported.
qint64 tensorDTypeBytes(TensorDType dtype, qint64 elements);
// "F32", "F16", "BF16", "F64", "Q8_0", or "unsupported".
QString tensorDTypeName(TensorDType dtype);

struct TensorInfo
{
    QString name;
    TensorDType dtype = TensorDType::Unsupported;
    // The type as the file names it: "F16", "BF16", "I64", "F8_E4M3" (safetensors), "Q4_K",
    // "IQ2_XS" (GGML), "<f4", "<i8" (npy).
    QString typeName;
    bool quantized = false; // a block-quantized GGML type
    // Dimensions in C order, outermost first. GGUF stores ne[0] (the contiguous dimension)
    // first; its readers reverse it, so GGUF's position_embd.weight with ne = [n_embd, n_ctx]
    // has shape {n_ctx, n_embd} here, as the same table has in a safetensors file.
    std::vector<qint64> shape;
    qint64 offset = 0;   // byte offset of the first element within `file`
    qint64 byteSize = 0; // bytes the tensor occupies in `file`
    QString file;        // the file that holds it (for a sharded model, its shard)

    // Readers guarantee that these products fit in qint64.
    qint64 elementCount() const;
    qint64 rowCount() const;  // shape[0]; 1 for a scalar
    qint64 rowLength() const; // elements per row: the product of shape[1..]; 1 for rank <= 1
    bool isReadable() const { return dtype != TensorDType::Unsupported; }
    QString shapeString() const; // "[1024, 768]"
};

namespace limits {
// Tensors one safetensors or GGUF file may list (and a shard index may map). The largest
// checkpoints list under 100,000 in all their shards (DeepSeek-V3: about 92,000); a header
// listing more is refused before its tensors are stored.
constexpr qint64 maxTensorsPerFile = 1'000'000;
} // namespace limits

// A file's tensor descriptors, stored compactly: names (UTF-8) in one buffer, dimensions in
// another, and a 40-byte record per tensor, so a header listing a million tensors costs about
// as much memory as its own text (a std::vector<TensorInfo> costs three times that). Entries
// come back as TensorInfo values; lookups by name go through a sorted index.
class TensorTable
{
public:
    void clear();
    // The file every entry lies in (TensorInfo::file).
    void setFile(const QString &file) { m_file = file; }
    const QString &file() const { return m_file; }
    void reserve(qsizetype tensors, qsizetype nameBytes, qsizetype dimensions);

    // `typeName` is stored once per distinct name; `shape` in C order.
    void append(QByteArrayView utf8Name, TensorDType dtype, const QString &typeName, bool quantized,
                const std::vector<qint64> &shape, qint64 offset, qint64 byteSize);
    // Builds the name index; false, with the first repeated name in *duplicate, when a name
    // appears twice. Call once every entry is in and before find().
    [[nodiscard]] bool indexNames(QString *duplicate);
    // Puts the entries in the order of their data (offset, then size) and rebuilds the index.
    void sortByOffset();

    qsizetype size() const { return qsizetype(m_entries.size()); }
    bool empty() const { return m_entries.empty(); }
    TensorInfo at(qsizetype i) const;
    TensorInfo operator[](qsizetype i) const { return at(i); }
    QString name(qsizetype i) const;
    qint64 offset(qsizetype i) const { return m_entries[size_t(i)].offset; }
    qint64 byteSize(qsizetype i) const { return m_entries[size_t(i)].byteSize; }
    void setOffset(qsizetype i, qint64 offset) { m_entries[size_t(i)].offset = offset; }
    // -1 when no entry has that name (or indexNames() was not called).
    qsizetype indexOf(const QString &name) const;
    std::optional<TensorInfo> find(const QString &name) const;
    // Entry numbers in name order (UTF-8 byte order, which is code point order).
    const std::vector<quint32> &nameOrder() const { return m_byName; }

    // Iteration yields TensorInfo values: `for (const TensorInfo &tensor : table)`.
    class const_iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = TensorInfo;
        using difference_type = qsizetype;
        using pointer = void;
        using reference = TensorInfo;
        const_iterator(const TensorTable *table, qsizetype i) : m_table(table), m_i(i) {}
        TensorInfo operator*() const { return m_table->at(m_i); }
        const_iterator &operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator==(const const_iterator &other) const { return m_i == other.m_i; }

    private:
        const TensorTable *m_table;
        qsizetype m_i;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

private:
    struct Entry
    {
        qint64 offset;
        qint64 byteSize;
        quint32 nameStart;
        quint32 nameLength;
        quint32 shapeStart;
        quint32 rank;
        TensorDType dtype;
        quint8 typeIndex;
        bool quantized;
    };
    QByteArrayView nameBytes(const Entry &entry) const;

    QString m_file;
    std::vector<Entry> m_entries;
    QByteArray m_names;
    std::vector<qint64> m_dimensions;
    QStringList m_typeNames;
    std::vector<quint32> m_byName;
};

// Empty when `tensor` can be converted; otherwise one sentence naming the tensor and its type:
// "tensor blk.0.attn_q.weight is Q4_K, a quantized type pescope cannot read (it reads F32, F16,
// BF16 and Q8_0)".
QString tensorUnreadableReason(const TensorInfo &tensor);

// Converts rows [firstRow, firstRow + rowCount) of `tensor` (rowCount < 0: through the last row)
// to float32 in `out`, which must hold rowCount * tensor.rowLength() values: F32 is copied,
// F16 and BF16 are widened exactly, Q8_0 is dequantized as llama.cpp does (float(d) * q, exact
// in float32), F64 is rounded to nearest (ties to even) as IEEE-754
// conversion does, so values beyond float's range become +-inf. Only the bytes of those rows
// are touched. The file must be the one named by tensor.file; the tensor's byte range is
// checked against it again. A row is a slice along the first dimension, as numpy's a[r0:r1].
[[nodiscard]] bool convertTensorRows(const MappedFile &file, const TensorInfo &tensor,
                                     qint64 firstRow, qint64 rowCount, float *out, QString *error);
// The same at the stored precision, for comparisons that must not lose it (`pescope verify`):
// F64 is copied, F32, F16 and BF16 are widened exactly.
[[nodiscard]] bool convertTensorRows(const MappedFile &file, const TensorInfo &tensor,
                                     qint64 firstRow, qint64 rowCount, double *out, QString *error);
// The same into a vector sized to fit.
[[nodiscard]] bool readTensorRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow,
                                  qint64 rowCount, std::vector<float> *out, QString *error);
[[nodiscard]] bool readTensorRows(const MappedFile &file, const TensorInfo &tensor, qint64 firstRow,
                                  qint64 rowCount, std::vector<double> *out, QString *error);
// The same for the tensor of `tensors` named `name` (a GGUF or safetensors file's readRows);
// false with "PATH: no tensor named NAME" when the table has none.
[[nodiscard]] bool readTensorRows(const MappedFile &file, const TensorTable &tensors,
                                  const QString &name, qint64 firstRow, qint64 rowCount,
                                  std::vector<float> *out, QString *error);

// "[1024, 768]"
QString shapeString(const std::vector<qint64> &shape);

// Overflow-checked helpers for the readers: false when the result does not fit in qint64.
bool checkedMultiply(qint64 a, qint64 b, qint64 *result);
bool checkedAdd(qint64 a, qint64 b, qint64 *result);
// The product of `shape` (1 for a scalar); false on a negative dimension or overflow.
bool shapeElementCount(const std::vector<qint64> &shape, qint64 *count);

} // namespace pe
