// Published RoPE configurations of current models, as their Hugging Face config.json files set
// rope_theta and rope_scaling, for the window's presets menu and `--preset NAME`.
#pragma once

#include "rope/ropeconfig.h"

#include <QList>
#include <QString>

#include <optional>

namespace pe {

struct RopePreset
{
    QString id;           // command-line name, e.g. "llama3.1"
    QString label;        // for menus, e.g. "Llama 3.1 (llama3 scaling, s = 8)"
    qint64 headDim = 128; // dims of one attention head
    qint64 context = 0;   // max_position_embeddings the model is used at
    RopeConfig rope;      // theta, pairing, rope type and its parameters
};

QList<RopePreset> ropePresets();
std::optional<RopePreset> findRopePreset(const QString &id);

} // namespace pe
