// Lesson files (issue 40): a lecture as an ordered list of steps, each a whole explorer state
// (what a session holds), a title, a caption, the view it shows and optionally an animation.
// Saved as `*.pescope-lesson.json`, versioned like sessions, written atomically and read
// all-or-nothing: a hostile or broken file is refused with one sentence naming the file, the
// step and the key.
#pragma once

#include "state/explorerstate.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace pe {

// The lesson format this build writes and the newest it reads. Each step's state is in the
// session format (sessionFormatVersion) its file names, and migrated as sessions are.
constexpr int lessonFormatVersion = 1;

namespace lessonlimits {
constexpr int maxSteps = 500;
constexpr int maxTitleChars = 200;
constexpr int maxCaptionChars = 20000;
constexpr int maxParameterChars = 64;
} // namespace lessonlimits

// What a step animates: `pescope export --animate PARAMETER --from --to --frames`, the Motion
// bar's parameter ("position" or a scheme field's flag); from / to default to the parameter's
// whole range when absent.
struct LessonAnimation
{
    QString parameter = QStringLiteral("position");
    std::optional<double> from, to;
    int frames = 60;
    bool operator==(const LessonAnimation &) const = default;
};

struct LessonStep
{
    QString title;
    QString caption; // plain text; *emphasis* and inline math written as text
    QString view;    // figure views joined by '+', as `pescope export --view` names them
    std::optional<LessonAnimation> animation;
    QJsonObject state; // ExplorerState::toJson(), in the current session format
    bool operator==(const LessonStep &) const = default;
};

struct Lesson
{
    QString title;
    QList<LessonStep> steps;
    bool operator==(const Lesson &) const = default;
};

// The file name filter of the lesson dialogs, and the suffix a saved lesson gets.
QString lessonFileFilter();
QString lessonFileSuffix(); // ".pescope-lesson.json"

// {"format": "pescope-lesson", "format_version": 1, "session_format_version": 2,
//  "generator": "pescope 0.x", "title": "...", "steps": [{"title", "caption", "view",
//  "animation": {"parameter", "from", "to", "frames"}, "state": {...}}, ...]}
QJsonObject lessonDocument(const Lesson &lesson);
QByteArray lessonBytes(const Lesson &lesson);
bool saveLesson(const Lesson &lesson, const QString &path, QString *error);

// Checks a lesson document's bytes: JSON, the format and its version, every step's keys, types
// and bounds, its view names; the steps' states migrated to the current session format. A
// step's state is checked against the field tables by checkLessonStep (it may name model files
// that are opened later). `name` names the file in messages.
std::optional<Lesson> parseLesson(const QByteArray &bytes, const QString &name, QString *error);
std::optional<Lesson> readLessonFile(const QString &path, QString *error);

// A caption as HTML for the presentation and the exports: the text escaped, *emphasis* in
// italics, line breaks kept; math stays as typed (it is text).
QString lessonCaptionHtml(const QString &caption);

// Model files a state names (a learned table's source, the Phrases page's model folder, any
// absolute path among its strings) that are not on this machine: the lesson was made elsewhere
// or the model moved. In the order found.
QStringList missingLessonPaths(const QJsonObject &state);
// The state with every string that starts with a key of `moves` (an old folder, no trailing
// slash) starting with its value (where that folder is now) instead.
QJsonObject movedLessonState(const QJsonObject &state, const QMap<QString, QString> &moves);

// The step's line in `pescope lesson list`: "3. Title [view; animates position from 0 to 40,
// 41 frames]", always one line (control characters in the title escaped, oneLineText).
QString lessonStepLine(const Lesson &lesson, int index);
// Text for one line: a line break as \n, a carriage return \r, a tab \t, any other control
// character (U+2028 and U+2029 included) as \uXXXX; everything else as it is.
QString oneLineText(const QString &text);

// Applies step `index`'s state to a scratch state (reading the model files it names): empty when
// the step opens, else the reason, starting "step N (title): ".
QString checkLessonStep(const Lesson &lesson, int index);

} // namespace pe
