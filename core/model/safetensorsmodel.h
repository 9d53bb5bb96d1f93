// SafetensorsModel: a model's files as layer 0 and the forward pass open them: where they are
// (a folder, a file in one, a cached repo id), its config.json read as JSON and as a
// ModelConfig, and safetensors weights (one file or shards) checked to be there. One place, so
// both refuse a model alike.
#pragma once

#include "formats/hfcache.h"
#include "formats/modelconfig.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace pe {

struct SafetensorsModel
{
    ModelLocation location;
    QJsonObject json;
    ModelConfig config;
};

// `model` opened for `what` ("layer 0", "the forward pass"), which the refusals name: no
// config.json, weights other than safetensors, a config that cannot be read. Nullopt with
// *error naming the file.
std::optional<SafetensorsModel> openSafetensorsModel(const QString &model, const QString &what,
                                                     QString *error);

} // namespace pe
