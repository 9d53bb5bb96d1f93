// Session files: every parameter, phrase, selection and view option of the explorer as JSON
// (ExplorerState::toJson) with a format version, saved atomically and loaded all-or-nothing, so
// a bad file leaves the window's state as it was and says what is wrong in one sentence.
#pragma once

#include "state/explorerstate.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace pe {

// The format this build writes and the newest it reads. Bump when a key changes meaning, and
// teach sessionmigration.h the step. 2: keys from the field tables (pescope 0.2).
constexpr int sessionFormatVersion = 2;
// The file name filter of the session dialogs.
QString sessionFileFilter();

// {"format_version": 1, "generator": "pescope 0.1.0", "state": {...}}
QJsonObject sessionDocument(const ExplorerState &state);
QByteArray sessionBytes(const ExplorerState &state);
bool saveSession(const ExplorerState &state, const QString &path, QString *error);

// The checks sessions and lessons share: not empty, no repeated keys, JSON, an object, a whole
// "format_version" no newer than `newest` (returned in *version). `kind` names the file's kind
// in messages ("session": "... is not a pescope session", "(session format 3)"); a non-empty
// `marker` is the value the file's "format" key must hold, checked first.
std::optional<QJsonObject> parseVersionedJson(const QByteArray &bytes, const QString &name,
                                              const QString &kind, qint64 newest, qint64 *version,
                                              QString *error, const QString &marker = {});
// Checks a session document's bytes (JSON, format version, a "state" object) and returns the
// state object in the current format (older formats migrated); `name` names the file.
bool parseSession(const QByteArray &bytes, const QString &name, QJsonObject *state, QString *error);
// Reads, checks and applies a session. On any error `state` is left unchanged.
bool loadSession(const QString &path, ExplorerState *state, QString *error);
// The same on plain values (`pescope export --session`, Python): no undo step.
bool loadSession(const QString &path, ExplorerValues *values, QString *error);
// loadSession's two steps, for the window, which reads a session's model files on the
// scheduler's worker between them: the file's state object (checked, migrated), then the state
// applied as one undoable step (`loaded`: the spec's files, already read).
std::optional<QJsonObject> readSessionFile(const QString &path, QString *error);
bool applySession(const QString &path, const QJsonObject &json, ExplorerState *state,
                  QString *error, const ExplorerState::LoadedSpec *loaded = nullptr);

// The Recent sessions list, newest first, kept in QSettings (at most maxRecentSessions).
constexpr int maxRecentSessions = 8;
QStringList recentSessions();
void addRecentSession(const QString &path);
void removeRecentSession(const QString &path);
void clearRecentSessions();

} // namespace pe
