// PositionTable: a learned position table read from a user's model file (GPT-2's wpe, BERT's
// position embeddings, a .npy) as float32, with where it came from; loadPositionTable() finds,
// checks and reads it. Only that tensor's bytes are read.
#pragma once

#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace pe {

class ModelTensors;

namespace limits {
// Largest table read into memory (a 1M x 8192 float32 table is 32 GiB; real ones are MBs).
constexpr qint64 maxTableBytes = qint64(1) << 30;
} // namespace limits

struct PositionTable
{
    QString source;   // what the user named: a path or a repo id
    QString file;     // the file the tensor was read from
    QString tensor;   // its name in that file
    QString typeName; // the stored type ("F16", "<f4", ...)
    qint64 rows = 0;  // rows as stored
    qint64 columns = 0;
    // Row of position 0: RoBERTa keeps padding_idx + 1 = 2 rows before it, OPT 2.
    qint64 offset = 0;
    std::vector<float> values; // rows x columns, as stored
    float minimum = 0;
    float maximum = 0;
    QString offsetReason; // "padding_idx + 1 (RoBERTa, config.json)", or empty

    qint64 positions() const { return rows - offset; }
    const float *row(qint64 position) const
    {
        return values.data() + std::size_t((position + offset) * columns);
    }
};

// Reads the position table of `source` (a model folder, a .safetensors/.gguf/.npy file or a
// Hugging Face cache repo id): the tensor named `tensor`, or when empty the model's learned
// position table (config.json's absolute table, GGUF's position_embd.weight, the .npy's only
// array). The offset is the config's unless `offset` >= 0. 2-D tensors only. Null with *error
// naming the file and the problem.
std::shared_ptr<const PositionTable> loadPositionTable(const QString &source, const QString &tensor,
                                                       qint64 offset, QString *error);

// What loadPositionTable() reads, found and checked but not read: the table's description
// (values empty, minimum and maximum 0) and the opened tensors that hold it, for streaming its
// rows straight from the mapped file (`pescope data --what positions`).
struct PositionTableSource
{
    PositionTable table;
    std::unique_ptr<ModelTensors> tensors;
};
std::optional<PositionTableSource> locatePositionTable(const QString &source, const QString &tensor,
                                                       qint64 offset, QString *error);

} // namespace pe
