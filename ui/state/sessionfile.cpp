#include "state/sessionfile.h"

#include "fields/fieldvalue.h"
#include "fields/wholenumber.h"
#include "formats/safejson.h"
#include "io/atomicfile.h"
#include "io/userfile.h"
#include "state/explorerstate.h"
#include "state/sessionmigration.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSettings>

#include <cmath>

namespace pe {

namespace {

const QString formatKey = QStringLiteral("format_version");
const QString recentKey = QStringLiteral("sessions/recent");

// A cut-off file fails where its bytes end; a malformed one fails somewhere inside.
bool looksTruncated(const QJsonParseError &error, const QByteArray &bytes)
{
    return error.offset >= bytes.trimmed().size() - 1;
}

} // namespace

QString sessionFileFilter()
{
    return QStringLiteral("pescope sessions (*.json);;All files (*)");
}

QJsonObject sessionDocument(const ExplorerState &state)
{
    return QJsonObject{
        {formatKey, sessionFormatVersion},
        {QStringLiteral("generator"), QStringLiteral("pescope " PE_VERSION)},
        {QStringLiteral("state"), state.toJson()},
    };
}

QByteArray sessionBytes(const ExplorerState &state)
{
    return QJsonDocument(sessionDocument(state)).toJson(QJsonDocument::Indented);
}

bool saveSession(const ExplorerState &state, const QString &path, QString *error)
{
    return writeFileAtomically(path, sessionBytes(state), error);
}

std::optional<QJsonObject> parseVersionedJson(const QByteArray &bytes, const QString &name,
                                              const QString &kind, qint64 newest, qint64 *version,
                                              QString *error, const QString &marker)
{
    if (bytes.trimmed().isEmpty()) {
        *error = QStringLiteral("%1 is empty, not a pescope %2").arg(name, kind);
        return std::nullopt;
    }
    // Qt's parser keeps the last of repeated keys: a session with "state" twice would load the
    // second silently. The pre-scan refuses repeated keys, naming the first, and bounds depth;
    // its lists may be long (10,000 short phrases): the state bounds them itself.
    if (const QString problem = jsonTextProblem(bytes, 64, DuplicateKeys::Refuse, false);
        !problem.isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(name, problem);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = jsonDocumentKeepingFeff(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        if (looksTruncated(parseError, bytes))
            *error = QStringLiteral("%1 ends before its JSON is complete (%2 at byte %3): the "
                                    "file looks truncated")
                         .arg(name, parseError.errorString())
                         .arg(parseError.offset);
        else
            *error = QStringLiteral("%1 is not valid JSON: %2 at byte %3")
                         .arg(name, parseError.errorString())
                         .arg(parseError.offset);
        return std::nullopt;
    }
    if (!document.isObject()) {
        *error = QStringLiteral("%1 is not a pescope %2: it holds a JSON %3, not an object")
                     .arg(name, kind,
                          document.isArray() ? QStringLiteral("array") : QStringLiteral("value"));
        return std::nullopt;
    }
    QJsonObject root = document.object();
    // A file of another kind (a session opened as a lesson) is named as such before its
    // version is read: its version counts in another format.
    if (!marker.isEmpty() && root.value(QStringLiteral("format")).toString() != marker) {
        *error = QStringLiteral("%1 is not a pescope %2: \"format\" must be \"%3\"")
                     .arg(name, kind, marker);
        return std::nullopt;
    }
    const QJsonValue value = root.value(formatKey);
    if (value.isUndefined()) {
        *error =
            QStringLiteral("%1 is not a pescope %2: it has no \"%3\"").arg(name, kind, formatKey);
        return std::nullopt;
    }
    // Any whole number a JSON number holds exactly is a format version, past or future.
    const std::optional<qint64> v =
        value.isDouble() ? wholeNumberIn(value.toDouble(), 1, maxExactJsonInteger) : std::nullopt;
    if (!v) {
        *error = QStringLiteral("%1: \"%2\" %3")
                     .arg(name, formatKey,
                          wholeNumberMessage(1, maxExactJsonInteger,
                                             value.isDouble() ? numberText(value.toDouble())
                                                              : jsonTypeName(value)));
        return std::nullopt;
    }
    if (*v > newest) {
        *error = QStringLiteral("%1 was saved by a newer pescope (%2 format %3); this "
                                "version reads format %4 and older")
                     .arg(name, kind)
                     .arg(*v)
                     .arg(newest);
        return std::nullopt;
    }
    *version = *v;
    return root;
}

bool parseSession(const QByteArray &bytes, const QString &name, QJsonObject *state, QString *error)
{
    qint64 version = 0;
    const std::optional<QJsonObject> root = parseVersionedJson(
        bytes, name, QStringLiteral("session"), sessionFormatVersion, &version, error);
    if (!root)
        return false;
    const QJsonValue body = root->value(QStringLiteral("state"));
    if (!body.isObject()) {
        *error = QStringLiteral("%1 is not a pescope session: \"state\" is missing or not an "
                                "object")
                     .arg(name);
        return false;
    }
    if (version >= 2) {
        *state = body.toObject();
        return true;
    }
    QString problem;
    const std::optional<QJsonObject> migrated = migrateStateFromVersion1(body.toObject(), &problem);
    if (!migrated) {
        *error = QStringLiteral("%1: %2").arg(name, problem);
        return false;
    }
    *state = *migrated;
    return true;
}

std::optional<QJsonObject> readSessionFile(const QString &path, QString *error)
{
    // Regular files only, read within the limit: /dev/zero or a FIFO is refused at once.
    const std::optional<QByteArray> bytes =
        readUserFile(path, limits::maxSessionBytes, error, QStringLiteral("a session file"));
    if (!bytes)
        return std::nullopt;
    QJsonObject json;
    if (!parseSession(*bytes, QDir::toNativeSeparators(path), &json, error))
        return std::nullopt;
    return json;
}

bool applySession(const QString &path, const QJsonObject &json, ExplorerState *state,
                  QString *error, const ExplorerState::LoadedSpec *loaded)
{
    QString problem;
    const QString step = QStringLiteral("Open session %1").arg(QFileInfo(path).fileName());
    if (!state->asOneStep(step, [&] { return state->applyJson(json, &problem, loaded); })) {
        *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), problem);
        return false;
    }
    return true;
}

bool loadSession(const QString &path, ExplorerState *state, QString *error)
{
    const std::optional<QJsonObject> json = readSessionFile(path, error);
    return json && applySession(path, *json, state, error);
}

bool loadSession(const QString &path, ExplorerValues *values, QString *error)
{
    const std::optional<QJsonObject> json = readSessionFile(path, error);
    if (!json)
        return false;
    QString problem;
    if (!values->applyJson(*json, &problem)) {
        *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), problem);
        return false;
    }
    return true;
}

QStringList recentSessions()
{
    return QSettings().value(recentKey).toStringList();
}

void addRecentSession(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = recentSessions();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > maxRecentSessions)
        list.removeLast();
    QSettings().setValue(recentKey, list);
}

void removeRecentSession(const QString &path)
{
    QStringList list = recentSessions();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    QSettings().setValue(recentKey, list);
}

void clearRecentSessions()
{
    QSettings().remove(recentKey);
}

} // namespace pe
