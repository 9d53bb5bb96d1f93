#include "model/modelspec.h"

#include "formats/ggufconfig.h"
#include "formats/hfcache.h"
#include "rope/ropeconfig.h"
#include "rope/ropefields.h"

#include <algorithm>

namespace pe {

namespace {

// The first rotary layer, else the first layer.
int defaultLayer(const ModelConfig &config)
{
    const auto rope = std::find_if(config.layers.cbegin(), config.layers.cend(), [](const auto &l) {
        return l.position == LayerPositionKind::Rope;
    });
    return rope == config.layers.cend() ? 0 : int(rope - config.layers.cbegin());
}

QString kindSentence(LayerPositionKind kind)
{
    switch (kind) {
    case LayerPositionKind::Absolute:
        return QStringLiteral("learned absolute positions (a table added at the input, not "
                              "RoPE): open its weights with --model");
    case LayerPositionKind::Alibi:
        return QStringLiteral("ALiBi biases, not RoPE: see --scheme alibi");
    case LayerPositionKind::RelativeBias:
        return QStringLiteral("T5's learned relative bias, not RoPE: see --scheme t5");
    case LayerPositionKind::None:
        return QStringLiteral("no positional scheme pescope recognises");
    case LayerPositionKind::Rope:
    case LayerPositionKind::NoPE:
        break;
    }
    return {};
}

} // namespace

std::optional<ModelLayerSpec> modelLayerSpec(const ModelConfig &config, int layer, QString *error)
{
    ModelLayerSpec out;
    out.spec.positions = std::clamp<qint64>(config.maxPositionEmbeddings, 1, limits::maxPositions);
    QJsonObject parameters;
    QString what;
    qint64 dims = config.headDim;
    if (config.layers.empty()) {
        // No layer map (the number of layers is unknown): the one set of RoPE parameters, if any.
        if (layer > 0 || config.ropeParameters.isEmpty() || config.ropeParametersPerLayerType) {
            *error = QStringLiteral("%1 has no layer map (num_hidden_layers is missing)%2")
                         .arg(config.source, config.ropeParameters.isEmpty()
                                                 ? QStringLiteral(" and no RoPE parameters")
                                                 : QString());
            return std::nullopt;
        }
        parameters = config.ropeParameters;
        what = QStringLiteral("rope");
    } else {
        out.layer = layer < 0 ? defaultLayer(config) : layer;
        if (out.layer >= int(config.layers.size())) {
            *error = QStringLiteral("%1 has %2 layers: --layer must be between 0 and %3 (got %4)")
                         .arg(config.source)
                         .arg(config.layers.size())
                         .arg(config.layers.size() - 1)
                         .arg(out.layer);
            return std::nullopt;
        }
        const LayerPosition &l = config.layers[std::size_t(out.layer)];
        what = QStringLiteral("layer %1 (%2): %3")
                   .arg(out.layer)
                   .arg(l.layerType, layerPositionKindName(l.position));
        if (l.position == LayerPositionKind::NoPE) {
            out.spec.scheme = NopeScheme{};
            out.spec.dims = std::max<qint64>(1, dims);
            out.description = what;
            return out;
        }
        if (l.position != LayerPositionKind::Rope) {
            *error = QStringLiteral("layer %1 of %2 has %3")
                         .arg(out.layer)
                         .arg(config.source, kindSentence(l.position));
            return std::nullopt;
        }
        parameters = l.rope;
        // The rotated part of each head: DeepSeek's qk_rope_head_dim, GPT-J's rotary_dim; with a
        // partial_rotary_factor the head is shown whole, its tail passing through unrotated.
        if (parameters.value(ropeHfKeyOf(&RopeConfig::partialRotaryFactor)).toDouble(1.0) == 1.0)
            dims = l.rotaryDims;
    }
    if (dims == 1) {
        *error = QStringLiteral("%1 gives a head size of 1: a rotation turns pairs of dims, so a "
                                "rotary head needs at least 2")
                     .arg(config.source);
        return std::nullopt;
    }
    if (dims < 2) {
        *error = QStringLiteral("%1 does not say the head size (head_dim, or hidden_size and "
                                "num_attention_heads)")
                     .arg(config.source);
        return std::nullopt;
    }
    // Phi-3's first configs name longrope "su", which standardize_rope_params does not give an
    // original_max_position_embeddings; the model's own top-level one (4096) is what its
    // longrope uses (Phi3Config; transformers 4.x read it from the config directly).
    const QLatin1StringView originalKey = ropeHfKeyOf(&RopeConfig::originalMaxPositionEmbeddings);
    if (!parameters.contains(originalKey) && config.originalMaxPositionEmbeddings > 0)
        parameters.insert(originalKey, config.originalMaxPositionEmbeddings);
    QString problem;
    const RopeConfig rope =
        ropeConfigFromJson(parameters, dims, config.maxPositionEmbeddings, &problem);
    if (!problem.isEmpty()) {
        *error = QStringLiteral("%1, %2: %3").arg(config.source, what, problem);
        return std::nullopt;
    }
    RopeScheme scheme;
    static_cast<RopeConfig &>(scheme) = rope;
    if (config.interleavedPairs) // the model's own pairing: its tables follow it
        scheme.pairing = RopePairing::Interleaved;
    out.spec.scheme = scheme;
    out.spec.dims = dims;
    out.description =
        QStringLiteral("%1, %2, %3 dims").arg(what, scheme.configLabel(), QString::number(dims));
    return out;
}

std::optional<ModelLayerSpec> openModelSpec(const ModelRequest &request, QString *error)
{
    const std::optional<ModelLocation> location = resolveModel(request.source, error);
    if (!location)
        return std::nullopt;
    bool table = request.table || !request.tensor.isEmpty();
    std::optional<ModelConfig> config;
    if (!table) {
        // config.json, or a GGUF file's metadata; neither: the file's table.
        QString configError;
        config = readModelConfig(*location, &configError);
        if (!config && !configError.isEmpty()) {
            if (error)
                *error = configError;
            return std::nullopt;
        }
        table =
            !config || (config->absolute.kind != AbsolutePositionKind::None && !config->usesRope());
    }
    if (!table)
        return modelLayerSpec(*config, request.layer, error);
    TableScheme scheme;
    scheme.source = request.source;
    scheme.tensor = request.tensor;
    scheme.offset = request.offset;
    ModelLayerSpec out;
    out.spec.scheme = scheme;
    if (!out.spec.resolve(error))
        return std::nullopt;
    const PositionTable &t = *out.spec.get<TableScheme>()->table;
    out.spec.positions = std::min(t.positions(), limits::maxPositions);
    out.description =
        QStringLiteral("%1 of %2: %3 x %4 %5%6")
            .arg(t.tensor, t.file)
            .arg(t.rows)
            .arg(t.columns)
            .arg(t.typeName, t.offset > 0 ? QStringLiteral(", positions from row %1").arg(t.offset)
                                          : QString());
    return out;
}

} // namespace pe
