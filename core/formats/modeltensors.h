// ModelTensors: one interface over whatever holds a model's tensors (a .safetensors file, a
// sharded safetensors model, a GGUF file, a .npy array), as resolveModel() found them, plus the
// lookup of a model's learned position table by the names its config suggests.
#pragma once

#include "gguffile.h"
#include "hfcache.h"
#include "npyfile.h"
#include "safetensorsfile.h"
#include "shardedsafetensors.h"

#include <QStringList>

#include <functional>

#include <optional>
#include <variant>
#include <vector>

namespace pe {

struct ModelConfig;

class ModelTensors
{
public:
    // Opens location.weightsPath as location.kind says (headers only; a sharded model reads its
    // index only). A ConfigOnly location has no tensors: open() fails and says so.
    [[nodiscard]] bool open(const ModelLocation &location, QString *error);
    [[nodiscard]] bool open(const QString &weightsPath, ModelSourceKind kind, QString *error);

    bool isOpen() const { return !std::holds_alternative<std::monostate>(m_source); }
    ModelSourceKind kind() const { return m_kind; }
    QString path() const;
    // Sorted names; a sharded model's come from its index, without opening any shard.
    QStringList tensorNames() const;
    // The descriptor; for a sharded model this opens (once) the one shard that holds it.
    std::optional<TensorInfo> find(const QString &name, QString *error);
    [[nodiscard]] bool readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                std::vector<float> *out, QString *error);
    // At the stored precision: F64 as F64, F32 / F16 / BF16 widened exactly.
    [[nodiscard]] bool readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                std::vector<double> *out, QString *error);
    // Passes the rows of `name` to `sink` as float32, in chunks of about `chunkBytes`, without
    // materialising the tensor: aligned F32 rows straight from the mapped file, other types (and
    // a sharded model's) converted one chunk at a time. `sink(values, count)` returns false to
    // stop (then streamRows returns false and leaves *error as the sink set it).
    [[nodiscard]] bool streamRows(const QString &name,
                                  const std::function<bool(const float *, qint64)> &sink,
                                  QString *error, qint64 chunkBytes = qint64(4) << 20);
    // Tells the system that rows [firstRow, firstRow + rowCount) of `name` (-1: to the end) are
    // not needed for now: their whole pages of a single mapped file leave the process's resident
    // memory (the page cache keeps them; a later read maps them in again, the same bytes). What
    // lets the forward pass hold one layer of the mapped weights instead of all it has read. A
    // no-op outside Linux or for a name the model lacks.
    void releaseRows(const QString &name, qint64 firstRow = 0, qint64 rowCount = -1);
    // Every descriptor in name order, one at a time (a sharded model's shard headers
    // all get parsed, no tensor data is read), for listings such as `pescope inspect`: memory
    // stays that of the open files' tables. False with *error when a shard cannot be read.
    [[nodiscard]] bool forEachTensor(const std::function<void(const TensorInfo &)> &visit,
                                     QString *error);
    // The GGUF file's metadata, when the source is GGUF; null otherwise.
    const GgufFile *gguf() const { return std::get_if<GgufFile>(&m_source); }

private:
    const MappedFile *singleFile() const;
    // The mapped file holding `name`: a sharded model's shard, else the single file (or null).
    const MappedFile *fileHolding(const QString &name);
    template <typename Out>
    bool readRowsAs(const QString &name, qint64 firstRow, qint64 rowCount, std::vector<Out> *out,
                    QString *error);
    ModelSourceKind m_kind = ModelSourceKind::ConfigOnly;
    std::variant<std::monostate, SafetensorsFile, ShardedSafetensors, GgufFile, NpyFile> m_source;
};

// The name of the model's learned absolute position table among `tensors`: the config's
// candidates (absolute.tensorNames) exactly, then a tensor whose name ends in "." plus one of
// them (checkpoints saved from wrapper classes add prefixes), then GGUF's position_embd.weight.
// Empty when there is none.
QString findPositionTable(const ModelConfig &config, const QStringList &tensorNames);

} // namespace pe
