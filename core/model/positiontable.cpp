#include "model/positiontable.h"

#include "encodingspec.h"
#include "formats/hfcache.h"
#include "formats/modelconfig.h"
#include "formats/modeltensors.h"

#include <algorithm>

namespace pe {

std::optional<PositionTableSource> locatePositionTable(const QString &source, const QString &tensor,
                                                       qint64 offset, QString *error)
{
    const std::optional<ModelLocation> location = resolveModel(source, error);
    if (!location)
        return std::nullopt;
    std::optional<ModelConfig> config;
    if (!location->configPath.isEmpty()) {
        config = readHfConfig(location->configPath, error);
        if (!config)
            return std::nullopt;
    }
    auto opened = std::make_unique<ModelTensors>();
    ModelTensors &tensors = *opened;
    if (!tensors.open(*location, error))
        return std::nullopt;
    const QStringList names = tensors.tensorNames();
    // The table config.json describes (its offset applies to it, not to other tensors).
    const QString configTable = config ? findPositionTable(*config, names) : QString();
    QString name = tensor;
    if (name.isEmpty()) {
        if (location->kind == ModelSourceKind::Npy && names.size() == 1)
            name = names.constFirst();
        else
            name = findPositionTable(config.value_or(ModelConfig{}), names);
        if (name.isEmpty()) {
            *error = QStringLiteral("%1 has no learned position table (%2); name a tensor "
                                    "with --tensor")
                         .arg(tensors.path(),
                              config && config->usesRope()
                                  ? QStringLiteral("its positions are rotary: see --config")
                                  : QStringLiteral("no tensor has a position table's name"));
            return std::nullopt;
        }
    }
    const std::optional<TensorInfo> info = tensors.find(name, error);
    if (!info)
        return std::nullopt;
    if (info->shape.size() != 2) {
        *error = QStringLiteral("%1: tensor %2 has %3 dimensions; a position table has 2 "
                                "(positions x dims)")
                     .arg(tensors.path(), name)
                     .arg(info->shape.size());
        return std::nullopt;
    }
    const qint64 rows = info->shape[0], columns = info->shape[1];
    if (rows < 1 || columns < 1 || columns > limits::maxDims ||
        rows > limits::maxTableBytes / qint64(sizeof(float)) / columns) {
        *error = QStringLiteral("%1: tensor %2 is %3 x %4; pescope reads position tables of at "
                                "most %5 and %6 columns")
                     .arg(tensors.path(), name)
                     .arg(rows)
                     .arg(columns)
                     .arg(formatBytes(double(limits::maxTableBytes)))
                     .arg(limits::maxDims);
        return std::nullopt;
    }
    if (const QString why = tensorUnreadableReason(*info); !why.isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(info->file, why);
        return std::nullopt;
    }
    PositionTableSource found;
    PositionTable *table = &found.table;
    table->source = source;
    table->file = tensors.path();
    table->tensor = name;
    table->typeName = info->typeName;
    table->rows = rows;
    table->columns = columns;
    if (offset >= 0) {
        table->offset = offset;
    } else if (config && name == configTable && config->absolute.offset > 0) {
        table->offset = config->absolute.offset;
        table->offsetReason = QStringLiteral("%1 rows before position 0 (%2 in config.json)")
                                  .arg(config->absolute.offset)
                                  .arg(config->modelType);
    }
    if (table->offset >= rows) {
        *error = QStringLiteral("%1: an offset of %2 rows leaves no position in %3's %4 rows")
                     .arg(tensors.path())
                     .arg(table->offset)
                     .arg(name)
                     .arg(rows);
        return std::nullopt;
    }
    found.tensors = std::move(opened);
    return found;
}

std::shared_ptr<const PositionTable> loadPositionTable(const QString &source, const QString &tensor,
                                                       qint64 offset, QString *error)
{
    std::optional<PositionTableSource> found = locatePositionTable(source, tensor, offset, error);
    if (!found)
        return nullptr;
    auto table = std::make_shared<PositionTable>(std::move(found->table));
    if (!found->tensors->readRows(table->tensor, 0, -1, &table->values, error))
        return nullptr;
    const auto [lo, hi] = std::minmax_element(table->values.begin(), table->values.end());
    table->minimum = *lo;
    table->maximum = *hi;
    return table;
}

} // namespace pe
