#include "state/presets.h"

#include "formats/safejson.h"
#include "rope/ropepresets.h"
#include "state/schemesettings.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>

#include <algorithm>

namespace pe {

QList<Preset> presets()
{
    QList<Preset> list;
    const QDir dir(QStringLiteral(":/presets"));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString &name : files) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QJsonObject json = jsonDocumentKeepingFeff(file.readAll()).object();
        Preset preset;
        preset.id = json.value(QStringLiteral("id")).toString();
        preset.name = json.value(QStringLiteral("name")).toString(preset.id);
        preset.description = json.value(QStringLiteral("description")).toString();
        preset.state = json.value(QStringLiteral("state")).toObject();
        preset.order = json.value(QStringLiteral("order")).toInt(0);
        if (!preset.id.isEmpty())
            list.append(preset);
    }
    // The published RoPE configurations (core/rope/ropepresets), on the Schemes page's spectrum
    // with the same model unscaled as configuration B.
    for (const RopePreset &rope : ropePresets()) {
        Preset preset;
        preset.id = rope.id;
        preset.name = rope.label;
        preset.description =
            QStringLiteral("%1: RoPE over %2-dim heads, %3 positions; the spectrum against the "
                           "unscaled base")
                .arg(rope.label)
                .arg(rope.headDim)
                .arg(rope.context);
        preset.order = 20;
        SchemeSettings schemes;
        schemes.compare = RopeScheme{};
        schemes.compare.ropeTheta = rope.rope.ropeTheta;
        schemes.compare.pairing = rope.rope.pairing;
        EncodingSpec spec;
        spec.scheme = RopeScheme{rope.rope};
        spec.positions = 1024;
        spec.dims = rope.headDim;
        preset.state = QJsonObject{
            {QStringLiteral("page"), QStringLiteral("schemes")},
            {QStringLiteral("spec"), spec.toJson()},
            {QStringLiteral("schemes"), schemes.toJson()},
        };
        list.append(preset);
    }
    std::sort(list.begin(), list.end(), [](const Preset &a, const Preset &b) {
        return a.order != b.order ? a.order < b.order : a.id < b.id;
    });
    return list;
}

QStringList presetIds()
{
    QStringList ids;
    for (const Preset &p : presets())
        ids.append(p.id);
    return ids;
}

std::optional<Preset> findPreset(const QString &id)
{
    for (const Preset &p : presets())
        if (p.id == id)
            return p;
    return std::nullopt;
}

namespace {

// The preset's state to apply over `current`; nothing, with *error, when no preset has that id.
std::optional<QJsonObject> presetState(const QString &id, const QJsonObject &current,
                                       QString *error)
{
    const std::optional<Preset> preset = findPreset(id);
    if (!preset) {
        if (error)
            *error = QStringLiteral("unknown preset \"%1\" (known: %2)")
                         .arg(id, presetIds().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    // A preset is about its figure: phrases typed on the phrase page stay unless it brings its
    // own (the Keras phrases).
    QJsonObject json = preset->state;
    if (!json.contains(QStringLiteral("phrases")))
        json.insert(QStringLiteral("phrases"), current.value(QStringLiteral("phrases")));
    return json;
}

} // namespace

bool applyPreset(ExplorerState &state, const QString &id, QString *error)
{
    const std::optional<QJsonObject> json = presetState(id, state.toJson(), error);
    // The whole preset is one undo step.
    return json && state.asOneStep(QStringLiteral("Apply preset %1").arg(id),
                                   [&] { return state.applyJson(*json, error); });
}

bool applyPreset(ExplorerValues &values, const QString &id, QString *error)
{
    const std::optional<QJsonObject> json = presetState(id, values.toJson(), error);
    return json && values.applyJson(*json, error);
}

} // namespace pe
