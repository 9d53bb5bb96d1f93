// `pescope lesson list LESSON`: a lesson file's title and steps (issue 40), one line a step with
// its view and animation (control characters in titles escaped), and which steps cannot be
// exported or presented: lessonStepProblem, the check `lesson export` makes before any work.
// `pescope lesson export LESSON --out deck.pdf | deck/ [--as slides|handout|html]`: PDF slides,
// a PDF handout (--per-page 2 or 4) or an offline HTML folder (figures/lessonexporter.h), with
// a line of progress per step on stderr; nothing half-written on failure.
// Exit status as every command's (docs/command-line.md): 2 for bad input, found before any
// work (the usage; a lesson file that cannot be read as a lesson; a step that cannot render; an
// --out that cannot take the export), 1 for a failure while working (a full disk, a backend).
#include "commandline.h"

#include "figures/lessonexporter.h"
#include "state/lessonfile.h"

#include <QDir>
#include <QElapsedTimer>

namespace pe::cli {

namespace {

// The lesson at `path`; a file that is not one (missing, truncated, hostile) is bad input.
Lesson readLesson(const QString &path)
{
    QString error;
    std::optional<Lesson> lesson = readLessonFile(path, &error);
    if (!lesson)
        throw UsageError{error};
    return std::move(*lesson);
}

int listLesson(const QString &path)
{
    const Lesson lesson = readLesson(path);
    printOut(oneLineText(lesson.title) + QStringLiteral(" (") +
             QString::number(lesson.steps.size()) +
             (lesson.steps.size() == 1 ? QStringLiteral(" step)\n") : QStringLiteral(" steps)\n")));
    int status = Success;
    for (int i = 0; i < lesson.steps.size(); ++i) {
        printOut(lessonStepLine(lesson, i) + QLatin1Char('\n'));
        flushOut(); // each step's line before its problems on stderr
        if (const QString problem = lessonStepProblem(lesson, i); !problem.isEmpty()) {
            report(QStringLiteral("lesson"), problem);
            status = BadUsage; // what `lesson export` refuses, with the same exit status
        }
    }
    return status;
}

// --per-page: 2 or 4, one message for any other value.
int perPageOption(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("per-page")))
        return 2;
    const QString text = parser.value(QStringLiteral("per-page")).trimmed();
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || (value != 2 && value != 4))
        throw UsageError{QStringLiteral("--per-page must be 2 or 4 (got \"%1\")").arg(text)};
    return value;
}

LessonExportOptions exportOptions(const QCommandLineParser &parser, const QString &out)
{
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
    options.perPage = perPageOption(parser);
    if (parser.isSet(QStringLiteral("per-page")) && options.kind != LessonExportKind::Handout)
        throw UsageError{QStringLiteral("--per-page applies to --as handout")};
    return options;
}

int exportLesson(const QCommandLineParser &parser, const QString &lessonPath)
{
    if (!parser.isSet(QStringLiteral("out")))
        throw UsageError{QStringLiteral("export needs --out deck.pdf (slides or a handout) or "
                                        "--out FOLDER (an HTML deck)")};
    const QString out = parser.value(QStringLiteral("out"));
    if (out.isEmpty())
        throw UsageError{QStringLiteral("--out is empty: name a .pdf file or a folder")};
    LessonExportOptions options = exportOptions(parser, out);
    const BackendChoice choice =
        parser.isSet(QStringLiteral("backend")) ? backendFromOptions(parser) : BackendChoice::Cpu;
    const Lesson lesson = readLesson(lessonPath);
    // Before any work: where the export goes, then every step (as `lesson list` checks them).
    if (QString problem = lessonOutputProblem(lesson, options.kind, out); !problem.isEmpty())
        throw UsageError{problem};
    if (QString problem = lessonProblem(lesson); !problem.isEmpty())
        throw UsageError{problem};
    options.stepsChecked = true;
    QString error;
    const std::unique_ptr<Backend> backend = makeBackend(choice, &error);
    if (!backend) {
        report(QStringLiteral("lesson"), QStringLiteral("the %1 backend cannot start: %2")
                                             .arg(backendChoiceName(choice), error));
        return Failure;
    }
    QElapsedTimer timer;
    timer.start();
    LessonExporter exporter(lesson, options, *backend);
    const auto progress = [&](int done, int total) {
        report(QStringLiteral("lesson"), QStringLiteral("step %1 / %2 (%3)")
                                             .arg(done)
                                             .arg(total)
                                             .arg(oneLineText(lesson.steps.at(done - 1).title)));
        return true;
    };
    if (!exporter.write(out, progress, &error)) {
        report(QStringLiteral("lesson"), error);
        return Failure;
    }
    report(QStringLiteral("lesson"),
           QStringLiteral("%1 of \"%2\" (%3 steps) written to %4 in %5 ms")
               .arg(lessonExportKindName(options.kind), oneLineText(lesson.title))
               .arg(lesson.steps.size())
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
    parser.addOption(
        {QStringLiteral("out"),
         QStringLiteral("export: a .pdf file (slides or a handout) or a folder (HTML): "
                        "new, empty, or holding a deck written before, whose files "
                        "alone are replaced."),
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
