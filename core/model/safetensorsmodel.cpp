#include "model/safetensorsmodel.h"

#include "fields/choicenames.h"
#include "formats/safejson.h"
#include "io/userfile.h"
#include "model/ggufmodel.h"

namespace pe {

namespace {

std::optional<QJsonObject> readConfigJson(const QString &path, QString *error)
{
    const std::optional<QByteArray> text =
        readUserFile(path, limits::maxConfigBytes, error, QStringLiteral("a config.json"));
    if (!text)
        return std::nullopt;
    return parseJsonObject(*text, path, error, 32);
}

} // namespace

std::optional<SafetensorsModel> openSafetensorsModel(const QString &model, const QString &what,
                                                     QString *error)
{
    std::optional<ModelLocation> location = resolveModel(model, error);
    if (!location)
        return std::nullopt;
    if (location->kind == ModelSourceKind::Gguf)
        return openGgufModel(std::move(*location), what, error);
    if (location->configPath.isEmpty()) {
        *error = QStringLiteral("%1: no config.json beside the weights; %2 needs the model's "
                                "config")
                     .arg(location->folder, what);
        return std::nullopt;
    }
    if (location->kind != ModelSourceKind::Safetensors &&
        location->kind != ModelSourceKind::ShardedSafetensors) {
        *error = QStringLiteral("%1: %2 is computed from safetensors or GGUF weights; this model "
                                "has %3")
                     .arg(location->folder, what, labelOf(modelSourceKindNames, location->kind));
        return std::nullopt;
    }
    std::optional<QJsonObject> json = readConfigJson(location->configPath, error);
    if (!json)
        return std::nullopt;
    std::optional<ModelConfig> config = parseHfConfig(*json, location->configPath, error);
    if (!config)
        return std::nullopt;
    return SafetensorsModel{std::move(*location), std::move(*json), std::move(*config)};
}

} // namespace pe
