// Tensor descriptors shared by the model-file readers (safetensors, GGUF, npy), and the one
// conversion of a stored tensor, or a range of its rows, to float32.
#pragma once

#include <QString>
#include <QtGlobal>

#include <vector>

namespace pe {

class MappedFile;

// The element types pescope converts. Every other type a reader recognises (safetensors' I64 or
// F8_E4M3, GGML's Q4_K, npy's '<i8', ...) is Unsupported, and TensorInfo::typeName names it.
enum class TensorDType : quint8 { F32, F16, BF16, F64, Unsupported };

// Bytes per element; 0 for Unsupported.
qint64 tensorDTypeSize(TensorDType dtype);
// "F32", "F16", "BF16", "F64", or "unsupported".
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

// Empty when `tensor` can be converted; otherwise one sentence naming the tensor and its type:
// "tensor blk.0.attn_q.weight is Q4_K, a quantized type pescope cannot read".
QString tensorUnreadableReason(const TensorInfo &tensor);

// Converts rows [firstRow, firstRow + rowCount) of `tensor` (rowCount < 0: through the last row)
// to float32 in `out`, which must hold rowCount * tensor.rowLength() values: F32 is copied,
// F16 and BF16 are widened exactly, F64 is rounded to nearest (ties to even) as IEEE-754
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

// Overflow-checked helpers for the readers: false when the result does not fit in qint64.
bool checkedMultiply(qint64 a, qint64 b, qint64 *result);
bool checkedAdd(qint64 a, qint64 b, qint64 *result);
// The product of `shape` (1 for a scalar); false on a negative dimension or overflow.
bool shapeElementCount(const std::vector<qint64> &shape, qint64 *count);

} // namespace pe
