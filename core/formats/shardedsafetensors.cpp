#include "shardedsafetensors.h"

#include "safejson.h"

#include <QFileInfo>
#include <QSet>

#include <algorithm>

namespace pe {

ShardedSafetensors::ShardedSafetensors() = default;
ShardedSafetensors::~ShardedSafetensors() = default;
ShardedSafetensors::ShardedSafetensors(ShardedSafetensors &&) noexcept = default;
ShardedSafetensors &ShardedSafetensors::operator=(ShardedSafetensors &&) noexcept = default;

bool ShardedSafetensors::open(const QString &indexPath, QString *error)
{
    m_weightMap.clear();
    m_shardNames.clear();
    m_metadata = {};
    m_shards.clear();
    m_indexPath = QDir::toNativeSeparators(indexPath);
    m_folder = QFileInfo(indexPath).absoluteDir();
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(m_indexPath, why);
        m_weightMap.clear();
        m_shardNames.clear();
        m_metadata = {};
        return false;
    };

    MappedFile file;
    if (!file.open(indexPath, error))
        return false;
    if (file.size() > limits::maxShardIndexBytes)
        return fail(QStringLiteral("%1 bytes is too large for a shard index (the limit is %2)")
                        .arg(file.size())
                        .arg(limits::maxShardIndexBytes));
    const std::optional<QJsonObject> json =
        parseJsonObject(QByteArrayView(file.data(), file.size()), m_indexPath, error, 16);
    if (!json)
        return false;
    const QJsonValue metadata = json->value(QLatin1String("metadata"));
    if (!metadata.isUndefined() && !metadata.isNull() && !metadata.isObject())
        return fail(QStringLiteral("\"metadata\" is not a JSON object"));
    const QJsonValue weightMap = json->value(QLatin1String("weight_map"));
    if (!weightMap.isObject())
        return fail(QStringLiteral("there is no \"weight_map\" object"));
    const QJsonObject map = weightMap.toObject();
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it.value().isString())
            return fail(QStringLiteral("weight_map entry for %1 is not a file name").arg(it.key()));
        const QString shard = it.value().toString();
        // A shard beside the index, nowhere else: a hostile index must not reach other files.
        if (shard.isEmpty() || shard == QLatin1String(".") || shard == QLatin1String("..") ||
            shard.contains(QLatin1Char('/')) || shard.contains(QLatin1Char('\\')) ||
            shard.contains(QChar(0)))
            return fail(QStringLiteral("weight_map names \"%1\" as the shard of %2; shards "
                                       "must be plain file names beside the index")
                            .arg(shard, it.key()));
        m_weightMap.insert(it.key(), shard);
        m_shardNames.insert(shard);
    }
    m_metadata = metadata.toObject();
    return true;
}

QStringList ShardedSafetensors::tensorNames() const
{
    QStringList names = m_weightMap.keys();
    names.sort();
    return names;
}

QStringList ShardedSafetensors::shardFiles() const
{
    QStringList files = m_shardNames.values();
    files.sort();
    return files;
}

QString ShardedSafetensors::shardOf(const QString &tensorName) const
{
    return m_weightMap.value(tensorName);
}

const SafetensorsFile *ShardedSafetensors::shard(const QString &fileName, QString *error)
{
    if (const auto it = m_shards.find(fileName); it != m_shards.end())
        return it->second.get();
    if (!m_shardNames.contains(fileName)) {
        if (error)
            *error = QStringLiteral("%1: the index lists no shard %2").arg(m_indexPath, fileName);
        return nullptr;
    }
    auto file = std::make_unique<SafetensorsFile>();
    if (!file->open(m_folder.filePath(fileName), error))
        return nullptr;
    return m_shards.emplace(fileName, std::move(file)).first->second.get();
}

const TensorInfo *ShardedSafetensors::find(const QString &name, QString *error)
{
    const QString shardName = m_weightMap.value(name);
    if (shardName.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1: the index lists no tensor %2").arg(m_indexPath, name);
        return nullptr;
    }
    const SafetensorsFile *file = shard(shardName, error);
    if (!file)
        return nullptr;
    const TensorInfo *tensor = file->find(name);
    if (!tensor && error)
        *error = QStringLiteral("%1: the index places tensor %2 in %3, which has no such tensor")
                     .arg(m_indexPath, name, shardName);
    return tensor;
}

namespace {

template <typename Out>
bool readShardRows(ShardedSafetensors &model, const QString &name, qint64 firstRow, qint64 rowCount,
                   std::vector<Out> *out, QString *error)
{
    const TensorInfo *tensor = model.find(name, error);
    if (!tensor)
        return false;
    const SafetensorsFile *file = model.shard(model.shardOf(name), error);
    return file && readTensorRows(file->file(), *tensor, firstRow, rowCount, out, error);
}

} // namespace

bool ShardedSafetensors::readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                  std::vector<float> *out, QString *error)
{
    return readShardRows(*this, name, firstRow, rowCount, out, error);
}

bool ShardedSafetensors::readRows(const QString &name, qint64 firstRow, qint64 rowCount,
                                  std::vector<double> *out, QString *error)
{
    return readShardRows(*this, name, firstRow, rowCount, out, error);
}

} // namespace pe
