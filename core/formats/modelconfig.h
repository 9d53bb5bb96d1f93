// ModelConfig: what a Hugging Face config.json says about a model's positions: its sizes, its
// absolute position table (a learned 1-D table, or a 2-D patch grid with a class token), and per
// layer whether it rotates (RoPE or NoPE), how it attends (full, sliding window, chunked) and the
// RoPE parameters that apply, normalized to transformers v5's `rope_parameters` shape. It also
// records what was read from which key and what was assumed, for the model card.
//
// RoPE normalization follows transformers v5 (RotaryEmbeddingConfigMixin in
// modeling_rope_utils.py: convert_rope_params_to_dict and standardize_rope_params, and the
// overrides of Gemma3TextConfig, ModernBertConfig, Phi3Config, GPTNeoXConfig, DeepseekV3Config):
// the legacy rope_scaling (taking precedence over rope_parameters, as there), rope_theta and
// partial_rotary_factor merge into one object with rope_type (from `type` when only that is
// given; the legacy `type` key is kept, as v5 keeps it) and rope_theta; llama3, yarn and
// longrope get original_max_position_embeddings (Phi-3: the top-level key). Models with
// per-layer-type parameters get one object per layer type ({"full_attention": {...},
// "sliding_attention": {...}}); Gemma 3's rope_local_base_freq and ModernBERT's
// local_rope_theta become the sliding layers' rope_theta. No frequency is computed here.
#pragma once

#include "fields/choicenames.h"
#include "io/userfile.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace pe {

// How one layer knows positions: it rotates queries and keys (Rope), it is a rotary model's layer
// without rotation (NoPE), positions were added once at the input (Absolute: a learned table or
// patch grid), a linear bias (Alibi), a learned bucketed bias (RelativeBias, T5), or nothing known.
enum class LayerPositionKind { None, Rope, NoPE, Absolute, Alibi, RelativeBias };
enum class AttentionKind { Full, SlidingWindow, Chunked, Other };
enum class AbsolutePositionKind { None, Learned, PatchGrid };

inline constexpr ChoiceName layerPositionKindNames[] = {
    choice(LayerPositionKind::None, "none", "no positions known"),
    choice(LayerPositionKind::Rope, "rope", "RoPE"),
    choice(LayerPositionKind::NoPE, "nope", "NoPE (no rotation)"),
    choice(LayerPositionKind::Absolute, "absolute", "absolute (added at the input)"),
    choice(LayerPositionKind::Alibi, "alibi", "ALiBi"),
    choice(LayerPositionKind::RelativeBias, "relative-bias", "relative bias (T5)"),
};
inline constexpr ChoiceName attentionKindNames[] = {
    choice(AttentionKind::Full, "full", "full attention"),
    choice(AttentionKind::SlidingWindow, "sliding-window", "sliding window"),
    choice(AttentionKind::Chunked, "chunked", "chunked attention"),
    choice(AttentionKind::Other, "other", "other"),
};
inline constexpr ChoiceName absolutePositionKindNames[] = {
    choice(AbsolutePositionKind::None, "none", "none"),
    choice(AbsolutePositionKind::Learned, "learned", "learned table"),
    choice(AbsolutePositionKind::PatchGrid, "patch-grid", "learned patch grid"),
};
inline QString layerPositionKindName(LayerPositionKind kind)
{
    return nameOf(layerPositionKindNames, kind);
}
inline QString attentionKindName(AttentionKind kind)
{
    return nameOf(attentionKindNames, kind);
}
inline QString absolutePositionKindName(AbsolutePositionKind kind)
{
    return nameOf(absolutePositionKindNames, kind);
}

struct AbsolutePositions
{
    AbsolutePositionKind kind = AbsolutePositionKind::None;
    qint64 tableRows = 0;  // rows of the stored table (OPT: max_position_embeddings + 2)
    qint64 positions = 0;  // positions the model addresses
    qint64 offset = 0;     // table row of position 0: RoBERTa padding_idx + 1, OPT 2, else 0
    qint64 gridHeight = 0; // patch grid (rows of patches), row-major after the prefix tokens
    qint64 gridWidth = 0;
    qint64 prefixTokens = 0; // class token rows before the grid (ViT, CLIP: 1)
    // Names checkpoints store the table under, most likely first.
    QStringList tensorNames;
};

struct LayerPosition
{
    int index = 0;
    LayerPositionKind position = LayerPositionKind::None;
    AttentionKind attention = AttentionKind::Full;
    // The layer type as transformers names it ("full_attention", "sliding_attention",
    // "chunked_attention", or the config's own string).
    QString layerType;
    qint64 window = 0;     // sliding window or attention chunk, in tokens; 0 for full attention
    qint64 rotaryDims = 0; // Rope: rotated columns of each head
    // Rope: the normalized parameters that apply to this layer (rope_type, rope_theta, factor,
    // ...); empty for other kinds.
    QJsonObject rope;
};

struct ModelConfig
{
    QString source;    // the file read
    QString modelType; // model_type of the part described (gemma3_text inside a gemma3 config)
    QString wrapperModelType; // the top-level model_type when a text_config/vision_config was read
    QStringList architectures;
    qint64 hiddenSize = 0;
    qint64 numAttentionHeads = 0;
    qint64 numKeyValueHeads = 0;
    qint64 headDim = 0;
    qint64 numHiddenLayers = 0;
    qint64 maxPositionEmbeddings = 0;
    // The top-level original_max_position_embeddings (Phi-3's pre-training context), when the
    // config has one; the RoPE parameters carry their own where transformers puts it there.
    qint64 originalMaxPositionEmbeddings = 0;
    qint64 imageSize = 0; // vision models; the grid side when image_size/patch_size are lists
    qint64 patchSize = 0;
    AbsolutePositions absolute;
    // transformers v5's rope_parameters: one object, or one per layer type (see
    // ropeParametersPerLayerType); empty for models without rotary positions.
    QJsonObject ropeParameters;
    bool ropeParametersPerLayerType = false;
    // How the checkpoint's q and k pair their rotary columns: false, halves (rotate_half, HF's
    // default); true, consecutive pairs (Llama 4's apply_rotary_emb; DeepSeek-V3's
    // rope_interleave). Not a rope_parameters key in transformers: a fact of the model class.
    bool interleavedPairs = false;
    std::vector<LayerPosition> layers;
    QStringList readFrom; // "hidden_size = 768 (config.json n_embd)"
    QStringList assumed;  // "rope_theta = 10000: ... (LlamaConfig's default in transformers v5)"

    bool usesRope() const;
    // The flat parameters for layers of `layerType` (the one object when not per layer type).
    QJsonObject ropeParametersFor(const QString &layerType) const;
};

namespace limits {
// maxConfigBytes (config.json files are a few KB) is in io/userfile.h.
// Bounds the per-layer map a config can ask for.
constexpr qint64 maxLayers = 100000;
} // namespace limits

// Reads config.json at `path`. Fails, with one sentence naming the file and the key, on
// unreadable or hostile input (bad JSON, nesting, a count that is not a whole number, a
// layer_types list of the wrong length, ...); a config merely lacking keys succeeds, with the
// gaps listed in `assumed`.
std::optional<ModelConfig> readHfConfig(const QString &path, QString *error);
// The same from a config.json's text (pasted in the window); `source` names it in messages.
std::optional<ModelConfig> parseHfConfigText(QByteArrayView text, const QString &source,
                                             QString *error);
// The same from parsed JSON; `source` names the file in messages and in readFrom.
std::optional<ModelConfig> parseHfConfig(const QJsonObject &config, const QString &source,
                                         QString *error);

} // namespace pe
