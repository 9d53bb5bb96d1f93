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

// `config` with the values its rope type cannot do without filled in where it lacks them, as the
// published configurations of that type set them: llama3 as Llama 3.1 (factor 8 from 8,192),
// yarn as Qwen 2.5's model card (original context 32,768, factor 4), longrope as Phi-3-mini-128k
// (original 4,096, context 131,072; one factor of 1 for every pair, which changes nothing until
// edited), dynamic as transformers' LlamaConfig docstring (factor 2, context 4,096: Llama 2), and
// linear and ntk with factor 2. Values already given stay: the ones last used for another type
// carry over. A form applies this when the rope type changes, so that the type's change and what
// it needs are one valid edit (one undo step), and every later edit of one field is checked
// against a configuration the user can reach.
RopeConfig ropeWithNeededValues(RopeConfig config);

} // namespace pe
