// SafetensorsFile: one Hugging Face .safetensors file, memory-mapped; the header is parsed and
// validated on open, tensor bytes are read only when a tensor is converted.
//
// Format (github.com/huggingface/safetensors, README "Format"): 8 bytes little-endian header
// length N, N bytes of UTF-8 JSON starting with '{' (optionally padded with spaces), then the
// data. The JSON maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
// (offsets relative to the data); "__metadata__" is a string-to-string map. As the reference
// library does, pescope refuses duplicate names, headers over 100,000,000 bytes, offsets that
// disagree with dtype x shape, and data with gaps, overlaps or trailing bytes; beyond it, more
// than limits::maxTensorsPerFile tensors. The header is parsed one entry at a time into a
// TensorTable: opening a 44 MB header of 600,000 tensors peaks at 2.2 times its size, the
// header's mapped pages included (Qt's whole-document parse peaked at 17 times).
#pragma once

#include "mappedfile.h"
#include "tensorinfo.h"

#include <QJsonValue>
#include <QMap>
#include <QString>

#include <optional>
#include <vector>

namespace pe {

namespace limits {
// safetensors' MAX_HEADER_SIZE (safetensors/src/tensor.rs).
constexpr qint64 maxSafetensorsHeader = 100'000'000;
} // namespace limits

// A dtype name of the safetensors format (the Dtype enum of safetensors/src/tensor.rs) and its
// size in bits; `dtype` is Unsupported for all but F32, F16, BF16 and F64.
struct SafetensorsDType
{
    QString name;
    int bits = 0;
    TensorDType dtype = TensorDType::Unsupported;
};
std::optional<SafetensorsDType> safetensorsDType(const QString &name);
// Every dtype name the format defines, in the reference library's order.
QStringList safetensorsDTypeNames();

class SafetensorsFile
{
public:
    // Maps `path` and validates its header; `error` names the file and the problem.
    [[nodiscard]] bool open(const QString &path, QString *error);

    const QString &path() const { return m_file.path(); }
    const MappedFile &file() const { return m_file; }
    // Tensors in the order of their data in the file.
    const TensorTable &tensors() const { return m_tensors; }
    std::optional<TensorInfo> find(const QString &name) const { return m_tensors.find(name); }
    // The header's "__metadata__" (e.g. {"format": "pt"}); empty when absent.
    const QMap<QString, QString> &metadata() const { return m_metadata; }
    qint64 headerSize() const { return m_headerSize; }
    qint64 dataOffset() const { return 8 + m_headerSize; }

    // Rows [firstRow, firstRow + rowCount) of tensor `name` as float32 (rowCount < 0: to the
    // end); see convertTensorRows().
    [[nodiscard]] bool readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                std::vector<float> *out, QString *error) const;
    [[nodiscard]] bool read(const QString &name, std::vector<float> *out, QString *error) const
    {
        return readRows(name, 0, -1, out, error);
    }

private:
    bool parseHeader(QString *error);
    bool parseEntry(const QString &name, const QJsonValue &value, QString *error);
    bool checkCoverage(QString *error) const;

    MappedFile m_file;
    TensorTable m_tensors;
    QMap<QString, QString> m_metadata;
    qint64 m_headerSize = 0;
};

} // namespace pe
