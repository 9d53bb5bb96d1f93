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

} // namespace pe
