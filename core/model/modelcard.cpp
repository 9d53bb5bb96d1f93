#include "model/modelcard.h"

#include "formats/ggufconfig.h"
#include "model/modelspec.h"
#include "model/positiontable.h"
#include "rope/ropeconfig.h"
#include "rope/ropefields.h"

#include <QDir>

namespace pe {

QString layerText(const ModelConfig &config, const LayerPosition &layer)
{
    QString text = layerPositionKindName(layer.position) + QStringLiteral(", ") +
                   attentionKindName(layer.attention);
    if (layer.window > 0)
        text += QStringLiteral(" %1").arg(layer.window);
    if (layer.position == LayerPositionKind::Rope) {
        QString error;
        if (const auto spec = modelLayerSpec(config, layer.index, &error))
            text += QStringLiteral(", %1, %2 rotated dims")
                        .arg(spec->spec.get<RopeScheme>()->configLabel())
                        .arg(layer.rotaryDims);
        else
            text += QStringLiteral(" (%1)").arg(error);
    }
    return text;
}

std::vector<LayerMapRow> layerMap(const ModelConfig &config)
{
    std::vector<LayerMapRow> rows;
    rows.reserve(config.layers.size());
    for (const LayerPosition &l : config.layers) {
        LayerMapRow row;
        row.layer = l.index;
        row.position = l.position;
        row.positionText = labelOf(layerPositionKindNames, l.position);
        row.attentionText = labelOf(attentionKindNames, l.attention);
        if (l.window > 0)
            row.attentionText += QStringLiteral(" %1").arg(l.window);
        row.headDims = config.headDim;
        if (l.position == LayerPositionKind::Rope) {
            row.rotatedDims = l.rotaryDims;
            row.theta = l.rope.value(ropeHfKeyOf(&RopeConfig::ropeTheta)).toDouble();
            QString error;
            if (const auto spec = modelLayerSpec(config, l.index, &error)) {
                const RopeScheme &rope = *spec->spec.get<RopeScheme>();
                row.theta = rope.ropeTheta;
                row.scaling = ropeTypeName(rope.ropeType);
                if (rope.factor)
                    row.scaling += QStringLiteral(" ×%1").arg(*rope.factor);
                if (rope.originalMaxPositionEmbeddings > 0 && rope.ropeType != RopeType::Default)
                    row.scaling +=
                        QStringLiteral(" from %1").arg(rope.originalMaxPositionEmbeddings);
            } else {
                row.scaling = error;
            }
        }
        rows.push_back(row);
    }
    return rows;
}

std::optional<ModelCard> readModelCard(const QString &source, QString *error)
{
    ModelCard card;
    card.source = source;
    const std::optional<ModelLocation> location = resolveModel(source, error);
    if (!location)
        return std::nullopt;
    card.location = *location;
    // config.json when the model has one, else a GGUF file's metadata: the window's layer map and
    // card then describe a .gguf file as `pescope inspect` does.
    QString configError;
    card.config = readModelConfig(*location, &configError);
    if (!card.config && !configError.isEmpty()) {
        if (error)
            *error = configError;
        return std::nullopt;
    }
    return card;
}

void setCardTable(ModelCard *card, const PositionTable &table)
{
    card->tableFile = table.file;
    card->tableTensor = table.tensor;
    card->tableType = table.typeName;
    card->tableRows = table.rows;
    card->tableColumns = table.columns;
    card->tableOffset = table.offset;
    card->tableOffsetReason = table.offsetReason;
}

QStringList modelCardLines(const ModelCard &card)
{
    QStringList lines;
    const ModelLocation &l = card.location;
    lines.append(
        QStringLiteral("model: %1 (%2)")
            .arg(QDir::toNativeSeparators(card.source), labelOf(modelSourceKindNames, l.kind)));
    if (!l.repoId.isEmpty())
        lines.append(QStringLiteral("cache: %1 at revision %2").arg(l.repoId, l.revision));
    if (const auto &c = card.config) {
        QString architecture =
            c->modelType.isEmpty() ? QStringLiteral("(no model_type)") : c->modelType;
        if (!c->architectures.isEmpty())
            architecture += QStringLiteral(" (%1)").arg(c->architectures.join(u", "));
        lines.append(QStringLiteral("architecture: ") + architecture);
        lines.append(QStringLiteral("sizes: hidden %1, %2 heads (%3 key/value), head_dim %4, %5 "
                                    "layers")
                         .arg(c->hiddenSize)
                         .arg(c->numAttentionHeads)
                         .arg(c->numKeyValueHeads)
                         .arg(c->headDim)
                         .arg(c->numHiddenLayers));
        lines.append(QStringLiteral("context length: %1 positions").arg(c->maxPositionEmbeddings));
        if (c->absolute.kind != AbsolutePositionKind::None)
            lines.append(QStringLiteral("absolute positions: %1, %2 positions, %3 table rows, "
                                        "offset %4")
                             .arg(labelOf(absolutePositionKindNames, c->absolute.kind))
                             .arg(c->absolute.positions)
                             .arg(c->absolute.tableRows)
                             .arg(c->absolute.offset));
        else if (c->usesRope())
            lines.append(QStringLiteral("positions: rotary (see the layer map)"));
    } else {
        lines.append(l.kind == ModelSourceKind::Gguf
                         ? QStringLiteral("architecture: unknown (the GGUF file has no "
                                          "general.architecture)")
                         : QStringLiteral("architecture: unknown (no config.json beside the "
                                          "weights)"));
    }
    if (!l.configPath.isEmpty())
        lines.append(QStringLiteral("read: config.json from %1")
                         .arg(QDir::toNativeSeparators(l.configPath)));
    if (!l.weightsPath.isEmpty())
        lines.append(QStringLiteral("read: tensor headers from %1")
                         .arg(QDir::toNativeSeparators(l.weightsPath)));
    if (!card.tableTensor.isEmpty())
        lines.append(QStringLiteral("read: tensor %1 [%2, %3] %4 from %5%6")
                         .arg(card.tableTensor)
                         .arg(card.tableRows)
                         .arg(card.tableColumns)
                         .arg(card.tableType, QDir::toNativeSeparators(card.tableFile),
                              card.tableOffset > 0 ? QStringLiteral(", positions from row %1%2")
                                                         .arg(card.tableOffset)
                                                         .arg(card.tableOffsetReason.isEmpty()
                                                                  ? QString()
                                                                  : QStringLiteral(" (%1)").arg(
                                                                        card.tableOffsetReason))
                                                   : QString()));
    if (const auto &c = card.config) {
        for (const QString &line : c->readFrom)
            lines.append(QStringLiteral("read: ") + line);
        for (const QString &line : c->assumed)
            lines.append(QStringLiteral("assumed: ") + line);
    }
    return lines;
}

} // namespace pe
