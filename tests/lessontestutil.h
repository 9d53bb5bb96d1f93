// Helpers of the lesson suites (tst_lesson, tst_lessonexport).
#pragma once

#include "state/explorerstate.h"
#include "state/presets.h"

#include <QJsonObject>
#include <QString>
#include <QtGlobal>

namespace pe::test {

// The whole state a preset gives (what a step added from the window after it holds).
inline QJsonObject presetState(const QString &id)
{
    ExplorerState state;
    QString error;
    if (!applyPreset(state, id, &error))
        qFatal("preset %s: %s", qPrintable(id), qPrintable(error));
    return state.toJson();
}

} // namespace pe::test
