#include "state/lessonfile.h"

#include "fields/fieldvalue.h"
#include "fields/wholenumber.h"
#include "io/atomicfile.h"
#include "io/userfile.h"
#include "media/videoencoder.h"
#include "state/figureviews.h"
#include "state/sessionfile.h"
#include "state/sessionmigration.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <cmath>

namespace pe {

namespace {

const QString formatKey = QStringLiteral("format");
const QString formatName = QStringLiteral("pescope-lesson");
const QString sessionVersionKey = QStringLiteral("session_format_version");

// Reading one lesson: each problem is one sentence naming the file, the step and the key.
class LessonReader
{
public:
    LessonReader(const QString &name, QString *error) : m_name(name), m_error(error) {}

    bool fail(const QString &where, const QString &problem)
    {
        *m_error = QStringLiteral("%1: %2 %3").arg(m_name, where, problem);
        return false;
    }

    // A string of at most `maxChars` characters; `required` refuses a missing key.
    bool text(const QJsonObject &object, const QString &key, const QString &where, int maxChars,
              bool required, QString *out)
    {
        const QJsonValue value = object.value(key);
        if (value.isUndefined() && !required)
            return true;
        const QString at = QStringLiteral("%1\"%2\"").arg(where, key);
        if (!value.isString())
            return fail(at, value.isUndefined() ? QStringLiteral("is missing")
                                                : QStringLiteral("must be a string"));
        if (value.toString().size() > maxChars)
            return fail(at, QStringLiteral("is longer than %1 characters").arg(maxChars));
        *out = value.toString();
        return true;
    }

    bool number(const QJsonObject &object, const QString &key, const QString &where,
                std::optional<double> *out)
    {
        const QJsonValue value = object.value(key);
        if (value.isUndefined())
            return true;
        if (!value.isDouble() || !std::isfinite(value.toDouble()))
            return fail(QStringLiteral("%1\"%2\"").arg(where, key),
                        QStringLiteral("must be a number"));
        *out = value.toDouble();
        return true;
    }

    bool animation(const QJsonValue &value, const QString &where, LessonAnimation *out)
    {
        if (!value.isObject())
            return fail(where, QStringLiteral("must be an object"));
        const QJsonObject object = value.toObject();
        const QString inside = where + QStringLiteral(".");
        for (auto it = object.begin(); it != object.end(); ++it)
            if (!QStringList{QStringLiteral("parameter"), QStringLiteral("from"),
                             QStringLiteral("to"), QStringLiteral("frames")}
                     .contains(it.key()))
                return fail(QStringLiteral("%1\"%2\"").arg(inside, it.key()),
                            QStringLiteral("is not a key of a step's animation (parameter, from, "
                                           "to, frames)"));
        if (!text(object, QStringLiteral("parameter"), inside, lessonlimits::maxParameterChars,
                  true, &out->parameter) ||
            !number(object, QStringLiteral("from"), inside, &out->from) ||
            !number(object, QStringLiteral("to"), inside, &out->to))
            return false;
        if (out->parameter.isEmpty())
            return fail(inside + QStringLiteral("\"parameter\""),
                        QStringLiteral("is empty: name \"position\" or a scheme field"));
        const QJsonValue frames = object.value(QStringLiteral("frames"));
        if (frames.isUndefined())
            return true;
        const std::optional<qint64> n =
            frames.isDouble()
                ? wholeNumberIn(frames.toDouble(), videolimits::minFrames, videolimits::maxFrames)
                : std::nullopt;
        if (!n)
            return fail(inside + QStringLiteral("\"frames\""),
                        wholeNumberMessage(videolimits::minFrames, videolimits::maxFrames,
                                           frames.isDouble() ? numberText(frames.toDouble())
                                                             : QStringLiteral("not a number")));
        out->frames = int(*n);
        return true;
    }

    bool step(const QJsonValue &value, int index, qint64 sessionVersion, LessonStep *out)
    {
        const QString where = QStringLiteral("step %1: ").arg(index + 1);
        if (!value.isObject())
            return fail(QStringLiteral("step %1").arg(index + 1),
                        QStringLiteral("is not an object"));
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            if (!QStringList{QStringLiteral("title"), QStringLiteral("caption"),
                             QStringLiteral("view"), QStringLiteral("animation"),
                             QStringLiteral("state")}
                     .contains(it.key()))
                return fail(QStringLiteral("%1\"%2\"").arg(where, it.key()),
                            QStringLiteral("is not a key of a lesson step (title, caption, view, "
                                           "animation, state)"));
        if (!text(object, QStringLiteral("title"), where, lessonlimits::maxTitleChars, true,
                  &out->title) ||
            !text(object, QStringLiteral("caption"), where, lessonlimits::maxCaptionChars, false,
                  &out->caption) ||
            !text(object, QStringLiteral("view"), where, 200, true, &out->view))
            return false;
        QString viewError;
        if (!parseFigureViews(out->view, &viewError))
            return fail(where + QStringLiteral("\"view\""), viewError);
        if (object.contains(QStringLiteral("animation"))) {
            LessonAnimation animation;
            if (!this->animation(object.value(QStringLiteral("animation")),
                                 where + QStringLiteral("\"animation\""), &animation))
                return false;
            out->animation = animation;
        }
        const QJsonValue state = object.value(QStringLiteral("state"));
        if (!state.isObject())
            return fail(where + QStringLiteral("\"state\""),
                        QStringLiteral("is missing or not an object"));
        if (sessionVersion >= 2) {
            out->state = state.toObject();
            return true;
        }
        QString problem;
        const std::optional<QJsonObject> migrated =
            migrateStateFromVersion1(state.toObject(), &problem);
        if (!migrated)
            return fail(where + QStringLiteral("\"state\""), problem);
        out->state = *migrated;
        return true;
    }

    std::optional<Lesson> lesson(const QJsonObject &root, qint64 sessionVersion)
    {
        for (auto it = root.begin(); it != root.end(); ++it)
            if (!QStringList{formatKey, QStringLiteral("format_version"), sessionVersionKey,
                             QStringLiteral("generator"), QStringLiteral("title"),
                             QStringLiteral("steps")}
                     .contains(it.key())) {
                fail(QStringLiteral("\"%1\"").arg(it.key()),
                     QStringLiteral("is not a key of a lesson (format, format_version, "
                                    "session_format_version, generator, title, steps)"));
                return std::nullopt;
            }
        Lesson lesson;
        if (!text(root, QStringLiteral("title"), QString(), lessonlimits::maxTitleChars, true,
                  &lesson.title))
            return std::nullopt;
        const QJsonValue steps = root.value(QStringLiteral("steps"));
        if (!steps.isArray()) {
            fail(QStringLiteral("\"steps\""), QStringLiteral("is missing or not a list"));
            return std::nullopt;
        }
        const QJsonArray list = steps.toArray();
        if (list.isEmpty() || list.size() > lessonlimits::maxSteps) {
            fail(QStringLiteral("\"steps\""), QStringLiteral("holds %1 steps; a lesson has 1 to %2")
                                                  .arg(list.size())
                                                  .arg(lessonlimits::maxSteps));
            return std::nullopt;
        }
        for (int i = 0; i < list.size(); ++i) {
            LessonStep step;
            if (!this->step(list.at(i), i, sessionVersion, &step))
                return std::nullopt;
            lesson.steps.append(std::move(step));
        }
        return lesson;
    }

private:
    QString m_name;
    QString *m_error;
};

} // namespace

QString lessonFileFilter()
{
    return QStringLiteral("pescope lessons (*.pescope-lesson.json);;All files (*)");
}

QString lessonFileSuffix()
{
    return QStringLiteral(".pescope-lesson.json");
}

QJsonObject lessonDocument(const Lesson &lesson)
{
    QJsonArray steps;
    for (const LessonStep &step : lesson.steps) {
        QJsonObject object{{QStringLiteral("title"), step.title},
                           {QStringLiteral("caption"), step.caption},
                           {QStringLiteral("view"), step.view},
                           {QStringLiteral("state"), step.state}};
        if (step.animation) {
            QJsonObject animation{{QStringLiteral("parameter"), step.animation->parameter},
                                  {QStringLiteral("frames"), step.animation->frames}};
            if (step.animation->from)
                animation.insert(QStringLiteral("from"), *step.animation->from);
            if (step.animation->to)
                animation.insert(QStringLiteral("to"), *step.animation->to);
            object.insert(QStringLiteral("animation"), animation);
        }
        steps.append(object);
    }
    return QJsonObject{
        {formatKey, formatName},
        {QStringLiteral("format_version"), lessonFormatVersion},
        {sessionVersionKey, sessionFormatVersion},
        {QStringLiteral("generator"), QStringLiteral("pescope " PE_VERSION)},
        {QStringLiteral("title"), lesson.title},
        {QStringLiteral("steps"), steps},
    };
}

QByteArray lessonBytes(const Lesson &lesson)
{
    return QJsonDocument(lessonDocument(lesson)).toJson(QJsonDocument::Indented);
}

bool saveLesson(const Lesson &lesson, const QString &path, QString *error)
{
    return writeFileAtomically(path, lessonBytes(lesson), error);
}

std::optional<Lesson> parseLesson(const QByteArray &bytes, const QString &name, QString *error)
{
    qint64 version = 0;
    const std::optional<QJsonObject> root = parseVersionedJson(
        bytes, name, QStringLiteral("lesson"), lessonFormatVersion, &version, error, formatName);
    if (!root)
        return std::nullopt;
    const QJsonValue session = root->value(sessionVersionKey);
    const std::optional<qint64> sessionVersion =
        session.isDouble() ? wholeNumberIn(session.toDouble(), 1, sessionFormatVersion)
                           : std::nullopt;
    if (!sessionVersion) {
        *error = QStringLiteral("%1: \"%2\" %3")
                     .arg(name, sessionVersionKey,
                          wholeNumberMessage(1, sessionFormatVersion,
                                             session.isDouble() ? numberText(session.toDouble())
                                             : session.isUndefined() ? QStringLiteral("missing")
                                                                     : jsonTypeName(session)));
        return std::nullopt;
    }
    return LessonReader(name, error).lesson(*root, *sessionVersion);
}

std::optional<Lesson> readLessonFile(const QString &path, QString *error)
{
    // The shipped lessons are compiled in (":/lessons/..."): Qt's resource system, not a file.
    if (path.startsWith(QStringLiteral(":/"))) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1: no such lesson is built in").arg(path);
            return std::nullopt;
        }
        return parseLesson(file.readAll(), path, error);
    }
    const std::optional<QByteArray> bytes =
        readUserFile(path, limits::maxSessionBytes, error, QStringLiteral("a lesson file"));
    if (!bytes)
        return std::nullopt;
    return parseLesson(*bytes, QDir::toNativeSeparators(path), error);
}

QString lessonCaptionHtml(const QString &caption)
{
    static const QRegularExpression emphasis(QStringLiteral("\\*([^*\\n]+)\\*"));
    QString html = caption.toHtmlEscaped();
    html.replace(emphasis, QStringLiteral("<i>\\1</i>"));
    html.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    return html;
}

namespace {

bool looksLikeAbsolutePath(const QString &text)
{
    return text.size() > 1 && text.size() <= 4096 && QDir::isAbsolutePath(text) &&
           !text.contains(QLatin1Char('\n'));
}

void collectMissing(const QJsonValue &value, QStringList *out)
{
    if (value.isString()) {
        const QString text = value.toString();
        if (looksLikeAbsolutePath(text) && !QFileInfo::exists(text) && !out->contains(text))
            out->append(text);
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (const auto &item : array)
            collectMissing(item, out);
    } else if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            collectMissing(it.value(), out);
    }
}

QJsonValue moved(const QJsonValue &value, const QMap<QString, QString> &moves)
{
    if (value.isString()) {
        const QString text = value.toString();
        for (auto it = moves.begin(); it != moves.end(); ++it)
            if (text == it.key() || text.startsWith(it.key() + QLatin1Char('/')))
                return QString(it.value() + text.mid(it.key().size()));
        return value;
    }
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            array.replace(i, moved(array.at(i), moves));
        return array;
    }
    if (value.isObject()) {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            it.value() = moved(it.value(), moves);
        return object;
    }
    return value;
}

} // namespace

QStringList missingLessonPaths(const QJsonObject &state)
{
    QStringList out;
    collectMissing(state, &out);
    return out;
}

QJsonObject movedLessonState(const QJsonObject &state, const QMap<QString, QString> &moves)
{
    return moves.isEmpty() ? state : moved(state, moves).toObject();
}

QString oneLineText(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (c == QLatin1Char('\n'))
            out += QStringLiteral("\\n");
        else if (c == QLatin1Char('\r'))
            out += QStringLiteral("\\r");
        else if (c == QLatin1Char('\t'))
            out += QStringLiteral("\\t");
        else if (c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
                 c == QChar::ParagraphSeparator)
            out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

QString lessonStepLine(const Lesson &lesson, int index)
{
    const LessonStep &step = lesson.steps.at(index);
    QString line =
        QStringLiteral("%1. %2 [%3").arg(index + 1).arg(oneLineText(step.title), step.view);
    if (step.animation) {
        const LessonAnimation &a = *step.animation;
        line += QStringLiteral("; animates %1").arg(oneLineText(a.parameter));
        if (a.from && a.to)
            line += QStringLiteral(" from %1 to %2").arg(numberText(*a.from), numberText(*a.to));
        line += QStringLiteral(", %1 frames").arg(a.frames);
    }
    return line + QLatin1Char(']');
}

QString checkLessonStep(const Lesson &lesson, int index)
{
    const LessonStep &step = lesson.steps.at(index);
    ExplorerValues scratch = ExplorerValues::defaults();
    QString problem;
    if (scratch.applyJson(step.state, &problem))
        return {};
    return QStringLiteral("step %1 (%2): %3").arg(index + 1).arg(step.title, problem);
}

} // namespace pe
