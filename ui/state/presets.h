// Presets: named parameter sets (resources/presets/*.json) that reproduce the seed figures in
// one click. Each file holds an id, a display name, a description and an ExplorerState JSON.
#pragma once

#include "state/explorerstate.h"

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
    // Menu order (then the id): the seed figures first (0), the Schemes page's presets (10),
    // the published RoPE configurations (20).
    int order = 0;
};

// Every compiled-in preset, sorted by order, then id.
QList<Preset> presets();
QStringList presetIds();
std::optional<Preset> findPreset(const QString &id);
// Resets the state to its defaults and applies the preset, keeping the state's phrases when the
// preset names none; one undo step. False with *error for an unknown id.
bool applyPreset(ExplorerState &state, const QString &id, QString *error);
// The same on plain values (`pescope export --preset`, Python).
bool applyPreset(ExplorerValues &values, const QString &id, QString *error);

} // namespace pe
