#include "modeltensors.h"

#include "modelconfig.h"

#include <algorithm>
#include <memory>

namespace pe {

bool ModelTensors::open(const ModelLocation &location, QString *error)
{
    if (location.kind == ModelSourceKind::ConfigOnly) {
        m_source = std::monostate{};
        if (error)
            *error =
                QStringLiteral("%1: no weights beside the config (no .safetensors file)")
                    .arg(location.configPath.isEmpty() ? location.folder : location.configPath);
        return false;
    }
    return open(location.weightsPath, location.kind, error);
}

bool ModelTensors::open(const QString &weightsPath, ModelSourceKind kind, QString *error)
{
    m_kind = kind;
    const auto openAs = [&]<typename Reader>(std::in_place_type_t<Reader>) {
        Reader &reader = m_source.emplace<Reader>();
        if (reader.open(weightsPath, error))
            return true;
        m_source = std::monostate{};
        return false;
    };
    switch (kind) {
    case ModelSourceKind::Safetensors:
        return openAs(std::in_place_type<SafetensorsFile>);
    case ModelSourceKind::ShardedSafetensors:
        return openAs(std::in_place_type<ShardedSafetensors>);
    case ModelSourceKind::Gguf:
        return openAs(std::in_place_type<GgufFile>);
    case ModelSourceKind::Npy:
        return openAs(std::in_place_type<NpyFile>);
    case ModelSourceKind::ConfigOnly:
        break;
    }
    m_source = std::monostate{};
    if (error)
        *error = QStringLiteral("%1: not a tensor file").arg(weightsPath);
    return false;
}

QString ModelTensors::path() const
{
    return std::visit(
        [](const auto &source) -> QString {
            using T = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<T, std::monostate>)
                return {};
            else if constexpr (std::is_same_v<T, ShardedSafetensors>)
                return source.indexPath();
            else
                return source.path();
        },
        m_source);
}

QStringList ModelTensors::tensorNames() const
{
    QStringList names = std::visit(
        [](const auto &source) -> QStringList {
            using T = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                return {};
            } else if constexpr (std::is_same_v<T, ShardedSafetensors>) {
                return source.tensorNames();
            } else if constexpr (std::is_same_v<T, NpyFile>) {
                return {source.tensor().name};
            } else {
                QStringList list;
                for (const TensorInfo &tensor : source.tensors())
                    list += tensor.name;
                return list;
            }
        },
        m_source);
    names.sort();
    return names;
}

const TensorInfo *ModelTensors::find(const QString &name, QString *error)
{
    const TensorInfo *found = std::visit(
        [&](auto &source) -> const TensorInfo * {
            using T = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<T, std::monostate>)
                return nullptr;
            else if constexpr (std::is_same_v<T, ShardedSafetensors>)
                return source.find(name, error);
            else if constexpr (std::is_same_v<T, NpyFile>)
                return source.tensor().name == name ? &source.tensor() : nullptr;
            else
                return source.find(name);
        },
        m_source);
    if (!found && error && !std::holds_alternative<ShardedSafetensors>(m_source))
        *error = isOpen() ? QStringLiteral("%1: no tensor named %2").arg(path(), name)
                          : QStringLiteral("no model is open");
    return found;
}

// The one mapped file behind a single-file source; null for a sharded folder or nothing open.
const MappedFile *ModelTensors::singleFile() const
{
    return std::visit(
        [](const auto &source) -> const MappedFile * {
            using T = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<T, std::monostate> ||
                          std::is_same_v<T, ShardedSafetensors>)
                return nullptr;
            else
                return &source.file();
        },
        m_source);
}

template <typename Out>
bool ModelTensors::readRowsAs(const QString &name, qint64 firstRow, qint64 rowCount,
                              std::vector<Out> *out, QString *error)
{
    if (auto *sharded = std::get_if<ShardedSafetensors>(&m_source))
        return sharded->readRows(name, firstRow, rowCount, out, error);
    const TensorInfo *tensor = find(name, error);
    if (!tensor)
        return false;
    const MappedFile *file = singleFile();
    return file && readTensorRows(*file, *tensor, firstRow, rowCount, out, error);
}

bool ModelTensors::readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                            std::vector<float> *out, QString *error)
{
    return readRowsAs(name, firstRow, rowCount, out, error);
}

bool ModelTensors::readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                            std::vector<double> *out, QString *error)
{
    return readRowsAs(name, firstRow, rowCount, out, error);
}

bool ModelTensors::streamRows(const QString &name,
                              const std::function<bool(const float *, qint64)> &sink,
                              QString *error, qint64 chunkBytes)
{
    const TensorInfo *tensor = find(name, error);
    if (!tensor)
        return false;
    const qint64 rows = tensor->rowCount(), rowLength = std::max<qint64>(tensor->rowLength(), 1);
    const MappedFile *file = singleFile();
    // F32 as stored is what the sink wants: hand it the mapped bytes (little-endian hosts; the
    // readers checked the tensor's byte range against the file's size).
    if (file && tensor->dtype == TensorDType::F32 && Q_BYTE_ORDER == Q_LITTLE_ENDIAN &&
        tensor->offset >= 0 && tensor->offset + tensor->byteSize <= file->size() &&
        tensor->byteSize == tensor->elementCount() * qint64(sizeof(float))) {
        const uchar *bytes = file->data() + tensor->offset;
        if (reinterpret_cast<quintptr>(bytes) % alignof(float) == 0) {
            const auto *values = reinterpret_cast<const float *>(bytes);
            const qint64 total = tensor->elementCount();
            const qint64 step = std::max<qint64>(chunkBytes / qint64(sizeof(float)), 1);
            for (qint64 done = 0; done < total; done += step)
                if (!sink(values + done, std::min(step, total - done)))
                    return false;
            return true;
        }
    }
    const qint64 rowsPerChunk = std::clamp<qint64>(chunkBytes / qint64(sizeof(float)) / rowLength,
                                                   1, std::max<qint64>(rows, 1));
    // Not value-initialised: every element is written by the conversion before it is read.
    std::unique_ptr<float[]> buffer(new float[std::size_t(rowsPerChunk * rowLength)]);
    std::vector<float> shardRows;
    for (qint64 first = 0; first < rows; first += rowsPerChunk) {
        const qint64 count = std::min(rowsPerChunk, rows - first);
        const float *chunk = buffer.get();
        if (file) {
            if (!convertTensorRows(*file, *tensor, first, count, buffer.get(), error))
                return false;
        } else {
            if (!readRows(name, first, count, &shardRows, error))
                return false;
            chunk = shardRows.data();
        }
        if (!sink(chunk, count * rowLength))
            return false;
    }
    return true;
}

std::optional<std::vector<TensorInfo>> ModelTensors::allTensors(QString *error)
{
    std::vector<TensorInfo> all;
    for (const QString &name : tensorNames()) {
        const TensorInfo *tensor = find(name, error);
        if (!tensor)
            return std::nullopt;
        all.push_back(*tensor);
    }
    return all;
}

QString findPositionTable(const ModelConfig &config, const QStringList &tensorNames)
{
    for (const QString &candidate : config.absolute.tensorNames) {
        if (tensorNames.contains(candidate))
            return candidate;
    }
    for (const QString &candidate : config.absolute.tensorNames) {
        const QString suffix = QLatin1Char('.') + candidate;
        const auto it = std::find_if(tensorNames.cbegin(), tensorNames.cend(),
                                     [&](const QString &name) { return name.endsWith(suffix); });
        if (it != tensorNames.cend())
            return *it;
    }
    const QString gguf = QStringLiteral("position_embd.weight");
    return tensorNames.contains(gguf) ? gguf : QString();
}

} // namespace pe
