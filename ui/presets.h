// Presets: named parameter sets (resources/presets/*.json) that reproduce the seed figures in
// one click. Each file holds an id, a display name, a description and an ExplorerState JSON.
#pragma once

#include "explorerstate.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace pe {

struct Preset
{
    QString id;
    QString name;
    QString description;
    QJsonObject state;
};

// Every compiled-in preset, sorted by id.
QList<Preset> presets();
QStringList presetIds();
std::optional<Preset> findPreset(const QString &id);
// Resets the state to its defaults and applies the preset; false with *error for an unknown id.
bool applyPreset(ExplorerState &state, const QString &id, QString *error);

} // namespace pe
