// A GGUF file's llama.cpp metadata read as the ModelConfig a config.json would give: sizes, the
// layer map (RoPE, learned table or ALiBi; sliding-window layers) and RoPE parameters in
// transformers v5's `rope_parameters` shape, with what was read from which key and what was
// assumed. Also the one entry point that reads a located model's config, whichever file has it.
//
// Keys: gguf-py/gguf/constants.py (Keys.LLM, Keys.Attention, Keys.Rope). Scaling:
//  - rope.scaling.type "linear" / "yarn" / "longrope" with rope.scaling.factor,
//    original_context_length, yarn_beta_fast / yarn_beta_slow, yarn_attn_factor (HF's
//    attention_factor), yarn_log_multiplier (DeepSeek's 0.1 * mscale_all_dim, convert_hf_to_gguf);
//  - rope_freqs.weight (llama3 scaling: llama.cpp stores per-pair divisors of the default
//    frequencies instead of factor / low_freq_factor / high_freq_factor) and
//    rope_factors_short.weight / rope_factors_long.weight (Phi-3's longrope): expressed as
//    longrope's short_factor / long_factor, which divide the same default frequencies pair by
//    pair (with rope_freqs: both lists, attention_factor 1), so inv_freq is exactly llama.cpp's;
//  - rope.dimension_sections (Qwen-VL): mrope_section (the first three; qwen3vl interleaved).
// Sliding-window layers: attention.sliding_window with attention.sliding_window_pattern (one
// integer n: layer i slides when i % n < n - 1, llama_hparams::set_swa_pattern; or one bool per
// layer), rope.freq_base_swa and rope.dimension_count_swa for those layers.
#pragma once

#include "formats/hfcache.h"
#include "formats/modelconfig.h"

namespace pe {

class GgufFile;

// The config `file`'s metadata describes. nullopt with *error empty when the file has no
// general.architecture (a bare tensor container: no config); nullopt with *error set, naming
// the file and the key, when a key pescope reads has the wrong type or an impossible value, or
// a frequency-factor tensor has the wrong shape.
std::optional<ModelConfig> ggufModelConfig(const GgufFile &file, QString *error);

// The ModelConfig of a located model: its config.json when it has one, else a GGUF file's
// metadata. nullopt with *error empty when there is neither (weights without a config).
std::optional<ModelConfig> readModelConfig(const ModelLocation &location, QString *error);

} // namespace pe
