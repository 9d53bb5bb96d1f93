// The encoding spec a model's config.json gives one of its layers: RoPE with that layer's own
// parameters (its θ, rotated dims and scaling rule, normalized as transformers v5 does), or NoPE
// for a rotary model's layer without rotation. Shared by every command that takes --config or
// --model, so that `data`, `verify` and the window read a model the same way.
#pragma once

#include "encodingspec.h"
#include "formats/modelconfig.h"

#include <optional>

namespace pe {

struct ModelLayerSpec
{
    EncodingSpec spec; // positions: the model's context (max_position_embeddings)
    int layer = -1;    // the layer it describes; -1 when the config has no layer map
    // "layer 3 (sliding_attention): rope, θ 10,000, 256 of 256 dims rotated": for reports.
    QString description;
};

// The spec of layer `layer` of `config`, or with `layer` < 0 of its first rotary layer (of its
// first layer when none rotates). Fails, naming the layer or the key, when the layer does not
// exist, the model's positions are not rotary (learned tables, ALiBi, T5: *error says which),
// or its RoPE parameters are invalid.
std::optional<ModelLayerSpec> modelLayerSpec(const ModelConfig &config, int layer, QString *error);

// What a user opens: a model folder, a .safetensors / .gguf / .npy file or a cached repo id.
struct ModelRequest
{
    QString source;
    QString tensor;     // a tensor to read as a position table (implies the table)
    qint64 offset = -1; // table rows before position 0; -1: as config.json says
    int layer = -1;     // the layer of a rotary model; -1: the first rotary layer
    bool table = false; // the learned table even when the model also rotates
};

// The spec `request` names: the model's learned position table (a TableScheme, loaded) when a
// table is asked for, when there is no config.json, or when the model has an absolute table and
// no rotary layers; else modelLayerSpec() of its config. Reads files: not on a busy UI thread.
std::optional<ModelLayerSpec> openModelSpec(const ModelRequest &request, QString *error);

} // namespace pe
