#include "modeltensors.h"

#include "modelconfig.h"

#include <algorithm>
#include <memory>

#ifdef Q_OS_LINUX
#include <sys/mman.h>
#include <unistd.h>
#endif

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
                const TensorTable &table = source.tensors();
                list.reserve(table.size());
                for (const quint32 i : table.nameOrder())
                    list += table.name(i);
                return list;
            }
        },
        m_source);
    names.sort();
    return names;
}

std::optional<TensorInfo> ModelTensors::find(const QString &name, QString *error)
{
    std::optional<TensorInfo> found = std::visit(
        [&](auto &source) -> std::optional<TensorInfo> {
            using T = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<T, std::monostate>)
                return std::nullopt;
            else if constexpr (std::is_same_v<T, ShardedSafetensors>)
                return source.find(name, error);
            else if constexpr (std::is_same_v<T, NpyFile>)
                return source.tensor().name == name ? std::optional<TensorInfo>(source.tensor())
                                                    : std::nullopt;
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

const MappedFile *ModelTensors::fileHolding(const QString &name)
{
    if (auto *sharded = std::get_if<ShardedSafetensors>(&m_source)) {
        const QString shard = sharded->shardOf(name);
        const SafetensorsFile *file = shard.isEmpty() ? nullptr : sharded->shard(shard, nullptr);
        return file ? &file->file() : nullptr;
    }
    return singleFile();
}

void ModelTensors::releaseRows(const QString &name, qint64 firstRow, qint64 rowCount)
{
#ifdef Q_OS_LINUX
    const MappedFile *file = fileHolding(name); // a sharded model's: the shard the index names
    if (!file || !file->data())
        return;
    const std::optional<TensorInfo> tensor = find(name, nullptr);
    const qint64 rows = tensor ? tensor->rowCount() : 0;
    if (rows <= 0 || firstRow < 0 || firstRow >= rows || tensor->byteSize % rows != 0)
        return;
    const qint64 count = rowCount < 0 ? rows - firstRow : std::min(rowCount, rows - firstRow);
    const qint64 rowBytes = tensor->byteSize / rows;
    const qint64 begin = tensor->offset + firstRow * rowBytes, end = begin + count * rowBytes;
    if (!file->contains(begin, end - begin))
        return;
    // Whole pages inside the range only: a page shared with a neighbouring tensor stays.
    const auto page = quintptr(std::max<long>(::sysconf(_SC_PAGESIZE), 1));
    const uchar *data = file->data();
    const auto intoPage = [&](qint64 offset) {
        return qint64(reinterpret_cast<quintptr>(data + offset) % page);
    };
    const qint64 first = intoPage(begin) == 0 ? begin : begin + (qint64(page) - intoPage(begin));
    const qint64 last = end - intoPage(end);
    if (last > first)
        // The mapping is read-only and private with no page ever written: dropped pages are read
        // back from the file, the same bytes. Advice only: a failure changes nothing.
        ::madvise(const_cast<uchar *>(data + first), size_t(last - first), MADV_DONTNEED);
#else
    Q_UNUSED(name)
    Q_UNUSED(firstRow)
    Q_UNUSED(rowCount)
#endif
}

template <typename Out>
bool ModelTensors::readRowsAs(const QString &name, qint64 firstRow, qint64 rowCount,
                              std::vector<Out> *out, QString *error)
{
    if (auto *sharded = std::get_if<ShardedSafetensors>(&m_source))
        return sharded->readRows(name, firstRow, rowCount, out, error);
    const std::optional<TensorInfo> tensor = find(name, error);
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
    const std::optional<TensorInfo> tensor = find(name, error);
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

bool ModelTensors::forEachTensor(const std::function<void(const TensorInfo &)> &visit,
                                 QString *error)
{
    if (auto *sharded = std::get_if<ShardedSafetensors>(&m_source)) {
        for (const QString &name : sharded->tensorNames()) {
            const std::optional<TensorInfo> tensor = sharded->find(name, error);
            if (!tensor)
                return false;
            visit(*tensor);
        }
        return true;
    }
    if (const auto *npy = std::get_if<NpyFile>(&m_source)) {
        visit(npy->tensor());
        return true;
    }
    const TensorTable *table = std::visit(
        [](const auto &source) -> const TensorTable * {
            using T = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<T, SafetensorsFile> || std::is_same_v<T, GgufFile>)
                return &source.tensors();
            else
                return nullptr;
        },
        m_source);
    if (!table) {
        if (error)
            *error = QStringLiteral("no model is open");
        return false;
    }
    for (const quint32 i : table->nameOrder())
        visit(table->at(i));
    return true;
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
