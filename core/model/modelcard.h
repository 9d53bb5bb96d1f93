// What the window's Model page and `pescope inspect` say about a model: its layer map (layer ->
// RoPE or NoPE, sliding window or global, θ, rotated dims, scaling rule) and its model card
// (architecture, context length, what was read from which file or tensor, what was assumed).
// One place, so the command line and the window describe a model alike.
#pragma once

#include "formats/hfcache.h"
#include "formats/modelconfig.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace pe {

struct PositionTable;

// One layer of a model's layer map.
struct LayerMapRow
{
    int layer = 0;
    LayerPositionKind position = LayerPositionKind::None;
    QString positionText;  // "RoPE", "NoPE (no rotation)"
    QString attentionText; // "sliding window 4096", "full attention"
    double theta = 0;      // RoPE layers: rope_theta
    qint64 rotatedDims = 0;
    qint64 headDims = 0;
    QString scaling; // RoPE layers: "default", "llama3 s = 8 from 8,192", ...; or the problem
};

// "rope, full attention, base 10,000, 128 rotated dims": one line per layer (inspect's runs).
QString layerText(const ModelConfig &config, const LayerPosition &layer);
// Every layer of the config's map, in order; empty when the config has none.
std::vector<LayerMapRow> layerMap(const ModelConfig &config);

// A model as opened: where it is, its config (when it has one), and the table read (if any).
struct ModelCard
{
    QString source; // what the user named
    ModelLocation location;
    std::optional<ModelConfig> config;
    // The learned table read, when one was.
    QString tableFile;
    QString tableTensor;
    QString tableType;
    qint64 tableRows = 0;
    qint64 tableColumns = 0;
    qint64 tableOffset = 0;
    QString tableOffsetReason;
};

// Resolves `source` and reads its config.json, if any (headers only; no tensor data). Null with
// *error naming the file.
std::optional<ModelCard> readModelCard(const QString &source, QString *error);
// Records the learned table read from the model.
void setCardTable(ModelCard *card, const PositionTable &table);
// The card as lines: "architecture: ...", "context length: ...", "read: ...", "assumed: ...".
QStringList modelCardLines(const ModelCard &card);

} // namespace pe
