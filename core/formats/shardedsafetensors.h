// ShardedSafetensors: a model whose tensors are spread over several .safetensors files, as
// Hugging Face saves large checkpoints: model.safetensors.index.json maps each tensor name to
// its shard ({"metadata": {...}, "weight_map": {"name": "model-00001-of-00004.safetensors"}}).
// Opening reads the index only; a shard is mapped and its header parsed the first time one of
// its tensors is looked up. Not for concurrent use: find() may open a shard.
#pragma once

#include "safetensorsfile.h"

#include <QDir>
#include <QHash>
#include <QJsonObject>
#include <QSet>
#include <QStringList>

#include <map>
#include <memory>

namespace pe {

namespace limits {
// An index lists every tensor once (DeepSeek-V3's ~92k tensors take about 9 MB).
constexpr qint64 maxShardIndexBytes = qint64(64) * 1024 * 1024;
} // namespace limits

class ShardedSafetensors
{
public:
    ShardedSafetensors();
    ~ShardedSafetensors();
    ShardedSafetensors(ShardedSafetensors &&) noexcept;
    ShardedSafetensors &operator=(ShardedSafetensors &&) noexcept;

    // Reads and validates the index. Shard names must be plain file names in the index's
    // folder (no separators, no "..").
    [[nodiscard]] bool open(const QString &indexPath, QString *error);

    const QString &indexPath() const { return m_indexPath; }
    QStringList tensorNames() const; // sorted
    QStringList shardFiles() const;  // sorted, file names relative to the index's folder
    QString shardOf(const QString &tensorName) const; // empty when the index does not list it
    // The index's "metadata" object (e.g. {"total_size": ...}); empty when absent.
    const QJsonObject &metadata() const { return m_metadata; }

    // The tensor's descriptor, opening (once) only the shard the index names for it. Null
    // with `error` set when the tensor is unknown, its shard is bad, or the shard lacks it.
    const TensorInfo *find(const QString &name, QString *error);
    [[nodiscard]] bool readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                std::vector<float> *out, QString *error);
    [[nodiscard]] bool readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                std::vector<double> *out, QString *error);
    // The shard `fileName` (as listed in shardFiles()), opened on first use.
    const SafetensorsFile *shard(const QString &fileName, QString *error);
    int openShardCount() const { return int(m_shards.size()); }

private:
    QString m_indexPath;
    QDir m_folder;
    QHash<QString, QString> m_weightMap;
    QSet<QString> m_shardNames;
    QJsonObject m_metadata;
    std::map<QString, std::unique_ptr<SafetensorsFile>> m_shards;
};

} // namespace pe
