// `pescope lesson list LESSON`: a lesson file's title and steps (issue 40), one line a step with
// its view and animation, and which steps cannot open (their state checked as the window opens
// it, model files read) or cannot play their animation. Exit 0 when every step opens, 1 when a
// step or the file cannot, 2 for bad usage.
// `pescope lesson export LESSON --out deck.pdf | deck/ [--as slides|handout|html]`: PDF slides,
// a PDF handout (--per-page 2 or 4) or an offline HTML folder (figures/lessonexporter.h), with
// a line of progress per step on stderr; nothing half-written on failure.
#include "commandline.h"

#include "fields/wholenumber.h"
#include "figures/figureanimation.h"
#include "figures/lessonexporter.h"
#include "state/lessonfile.h"

#include <QDir>
#include <QElapsedTimer>

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
    ExplorerValues state = ExplorerValues::defaults();
    QString error;
    if (!step.animation || !state.applyJson(step.state, &error))
        return {}; // a state that cannot open is reported by checkLessonStep
    const std::optional<QList<FigureView>> views = parseFigureViews(step.view, &error);
    AnimationOptions options;
    options.parameter = step.animation->parameter;
    options.from = step.animation->from;
    options.to = step.animation->to;
    options.frames = step.animation->frames;
    if (views && FigureAnimation::plan(FigureState(state), *views, options, &error))
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
    printOut(lesson->title + QStringLiteral(" (") + QString::number(lesson->steps.size()) +
             (lesson->steps.size() == 1 ? QStringLiteral(" step)\n") : QStringLiteral(" steps)\n")));
    int status = Success;
    for (int i = 0; i < lesson->steps.size(); ++i) {
        printOut(stepLine(lesson->steps[i], i) + QLatin1Char('\n'));
        flushOut(); // each step's line before its problems on stderr
        for (const QString &problem : {checkLessonStep(*lesson, i), animationProblem(*lesson, i)})
            if (!problem.isEmpty()) {
                report(QStringLiteral("lesson"), problem);
                status = Failure;
            }
    }
    return status;
}

int exportLesson(const QCommandLineParser &parser, const QString &lessonPath)
{
    if (!parser.isSet(QStringLiteral("out")))
        throw UsageError{QStringLiteral("export needs --out deck.pdf (slides or a handout) or "
                                        "--out FOLDER (an HTML deck)")};
    const QString out = parser.value(QStringLiteral("out"));
    LessonExportOptions options;
    options.kind = defaultLessonExportKind(out);
    if (parser.isSet(QStringLiteral("as"))) {
        const std::optional<LessonExportKind> kind =
            parseLessonExportKind(parser.value(QStringLiteral("as")));
        if (!kind)
            throw UsageError{QStringLiteral("--as must be slides, handout or html (got \"%1\")")
                                 .arg(parser.value(QStringLiteral("as")))};
        options.kind = *kind;
    }
    const bool pdf = out.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive);
    if (options.kind != LessonExportKind::Html && !pdf)
        throw UsageError{QStringLiteral("--out %1: %2 are a .pdf file")
                             .arg(out, lessonExportKindName(options.kind))};
    if (options.kind == LessonExportKind::Html && pdf)
        throw UsageError{QStringLiteral("--out %1: an HTML deck is a folder").arg(out)};
    options.perPage = int(integerOption(parser, QStringLiteral("per-page"), 2, 4, 2));
    if (options.perPage == 3)
        throw UsageError{QStringLiteral("--per-page must be 2 or 4 (got 3)")};
    if (parser.isSet(QStringLiteral("per-page")) && options.kind != LessonExportKind::Handout)
        throw UsageError{QStringLiteral("--per-page applies to --as handout")};
    const BackendChoice choice =
        parser.isSet(QStringLiteral("backend")) ? backendFromOptions(parser) : BackendChoice::Cpu;

    QString error;
    const std::optional<Lesson> lesson = readLessonFile(lessonPath, &error);
    if (!lesson) {
        report(QStringLiteral("lesson"), error);
        return Failure;
    }
    const std::unique_ptr<Backend> backend = makeBackend(choice, &error);
    if (!backend) {
        report(QStringLiteral("lesson"), QStringLiteral("the %1 backend cannot start: %2")
                                             .arg(backendChoiceName(choice), error));
        return Failure;
    }
    QElapsedTimer timer;
    timer.start();
    LessonExporter exporter(*lesson, options, *backend);
    const auto progress = [&](int done, int total) {
        report(QStringLiteral("lesson"), QStringLiteral("step %1 / %2 (%3)")
                                             .arg(done)
                                             .arg(total)
                                             .arg(lesson->steps.at(done - 1).title));
        return true;
    };
    if (!exporter.write(out, progress, &error)) {
        report(QStringLiteral("lesson"), error);
        return Failure;
    }
    report(QStringLiteral("lesson"),
           QStringLiteral("%1 of \"%2\" (%3 steps) written to %4 in %5 ms")
               .arg(lessonExportKindName(options.kind), lesson->title)
               .arg(lesson->steps.size())
               .arg(QDir::toNativeSeparators(out))
               .arg(timer.elapsed()));
    return Success;
}

} // namespace

int runLesson(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Reads a lesson (*.pescope-lesson.json, made in the window's Lesson panel).\n"
        "  list LESSON     prints its title and steps (view, animation) and names each step "
        "whose state cannot open or whose animation cannot play.\n"
        "  export LESSON --out deck.pdf | FOLDER   writes PDF slides (16:9, vector figures), a "
        "PDF handout (--as handout) or an HTML deck that opens offline (a folder)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("list or export"));
    parser.addPositionalArgument(QStringLiteral("lesson"), QStringLiteral("The lesson file."));
    parser.addOption({QStringLiteral("out"),
                      QStringLiteral("export: a .pdf file (slides or a handout) or a new or empty "
                                     "folder (HTML; a deck written before is replaced)."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("as"),
                      QStringLiteral("export: slides, handout or html (default: slides for a "
                                     ".pdf, html for a folder)."),
                      QStringLiteral("KIND")});
    parser.addOption({QStringLiteral("per-page"),
                      QStringLiteral("export --as handout: 2 or 4 steps a page (default 2)."),
                      QStringLiteral("N")});
    parser.addOption(backendOption());
    parseCommand(parser, args, true); // list / export and the lesson: checked below
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        throw UsageError{QStringLiteral("name an action: list LESSON or export LESSON --out PATH")};
    const QString &action = positional.first();
    if (action != u"list" && action != u"export")
        throw UsageError{
            QStringLiteral("\"%1\" is not an action; the actions are list and export").arg(action)};
    if (positional.size() != 2)
        throw UsageError{QStringLiteral("%1 takes one lesson file (got %2 arguments)")
                             .arg(action)
                             .arg(positional.size() - 1)};
    if (action == u"export")
        return exportLesson(parser, positional.at(1));
    for (const QString &option :
         {QStringLiteral("out"), QStringLiteral("as"), QStringLiteral("per-page")})
        if (parser.isSet(option))
            throw UsageError{QStringLiteral("--%1 applies to export").arg(option)};
    return listLesson(positional.at(1));
}

} // namespace pe::cli
