// `pescope lesson list LESSON`: a lesson file's title and steps (issue 40), one line a step with
// its view and animation, and which steps cannot open (their state checked as the window opens
// it, model files read) or cannot play their animation. Exit 0 when every step opens, 1 when a step
// or the file cannot, 2 for bad usage.
#include "commandline.h"

#include "fields/wholenumber.h"
#include "figures/figureanimation.h"
#include "state/lessonfile.h"

#include <QTextStream>

namespace pe::cli {

namespace {

QString stepLine(const LessonStep &step, int index)
{
    QString line = QStringLiteral("%1. %2 [%3").arg(index + 1).arg(step.title, step.view);
    if (step.animation) {
        const LessonAnimation &a = *step.animation;
        line += QStringLiteral("; animates %1").arg(a.parameter);
        if (a.from && a.to)
            line += QStringLiteral(" from %1 to %2").arg(numberText(*a.from), numberText(*a.to));
        line += QStringLiteral(", %1 frames").arg(a.frames);
    }
    return line + QLatin1Char(']');
}

// Whether the step's animation can play on its views and state (as the window and export
// would plan it); empty when it can or the step has none.
QString animationProblem(const Lesson &lesson, int index)
{
    const LessonStep &step = lesson.steps.at(index);
    ExplorerState state;
    QString error;
    if (!step.animation || !state.applyJson(step.state, &error))
        return {}; // a state that cannot open is reported by checkLessonStep
    const std::optional<QList<FigureView>> views = parseFigureViews(step.view, &error);
    AnimationOptions options;
    options.parameter = step.animation->parameter;
    options.from = step.animation->from;
    options.to = step.animation->to;
    options.frames = step.animation->frames;
    if (views && FigureAnimation::plan(state, *views, options, &error))
        return {};
    return QStringLiteral("step %1 (%2): its animation cannot play: %3")
        .arg(index + 1)
        .arg(step.title, error);
}

int listLesson(const QString &path)
{
    QString error;
    const std::optional<Lesson> lesson = readLessonFile(path, &error);
    if (!lesson) {
        report(QStringLiteral("lesson"), error);
        return Failure;
    }
    QTextStream out(stdout);
    out << lesson->title << " (" << lesson->steps.size()
        << (lesson->steps.size() == 1 ? " step)\n" : " steps)\n");
    int status = Success;
    for (int i = 0; i < lesson->steps.size(); ++i) {
        out << stepLine(lesson->steps[i], i) << '\n';
        out.flush();
        for (const QString &problem : {checkLessonStep(*lesson, i), animationProblem(*lesson, i)})
            if (!problem.isEmpty()) {
                report(QStringLiteral("lesson"), problem);
                status = Failure;
            }
    }
    return status;
}

} // namespace

int runLesson(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Reads a lesson (*.pescope-lesson.json, made in the window's Lesson "
                       "panel).\n  list LESSON   prints its title and steps (view, animation) and "
                       "names each step whose state cannot open."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("list"));
    parser.addPositionalArgument(QStringLiteral("lesson"), QStringLiteral("The lesson file."));
    parseOrThrow(parser, args, 2);
    if (parser.isSet(QStringLiteral("help")))
        requestHelp(parser, args);
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        throw UsageError{QStringLiteral("name an action: list LESSON")};
    if (positional.first() != u"list")
        throw UsageError{
            QStringLiteral("\"%1\" is not an action; the action is list").arg(positional.first())};
    if (positional.size() != 2)
        throw UsageError{QStringLiteral("list takes one lesson file (got %1 arguments)")
                             .arg(positional.size() - 1)};
    return listLesson(positional.at(1));
}

} // namespace pe::cli
