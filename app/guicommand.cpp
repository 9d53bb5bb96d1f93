#include "guicommand.h"

#include "buildinfo.h"
#include "commandline.h"
#include "dialogs/aboutdialog.h"
#include "io/atomicfile.h"
#include "state/presets.h"
#include "views/mainwindow.h"
#include "views/modelpage.h"

#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QImageWriter>
#include <QRegularExpression>
#include <QTimer>
#include <QUndoStack>

#include <cstdio>
#include <optional>

namespace pe::cli {

namespace {

// A screenshot waits this long at most for the views to settle.
constexpr int screenshotTimeoutMs = 120000;

void printLine(FILE *stream, const QString &text)
{
    const QByteArray bytes = (text + QLatin1Char('\n')).toLocal8Bit();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stream);
    std::fflush(stream);
}

int usageError(const QString &message)
{
    printLine(stderr, QStringLiteral("pescope: ") + message);
    return BadUsage;
}

QString presetList()
{
    QStringList lines;
    for (const Preset &p : presets())
        lines.append(QStringLiteral("  %1  %2").arg(p.id, -20).arg(p.name));
    return lines.join(QLatin1Char('\n'));
}

// The Model page's views drawn from `job` (all with none), from the view list:
// "pca, table-similarity or sinusoid-fit".
QString modelViewList(std::optional<ViewJob> job = std::nullopt)
{
    QStringList names;
    for (FigureView view : ModelPage::views())
        if (!job || viewNeeds(view, *job))
            names.append(figureViewName(view));
    const QString last = names.takeLast();
    return names.isEmpty() ? last
                           : names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

} // namespace

void addGuiOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(
        QStringLiteral("pescope: a microscope for transformer positional encodings.\n"
                       "Without a subcommand it opens the explorer window.\n\n"
                       "Subcommands (pescope <command> --help for each): %1.\n\n"
                       "Presets (--preset):\n")
            .arg(commandNames().join(QStringLiteral(", "))) +
        presetList());
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({
        {QStringLiteral("preset"),
         QStringLiteral("Apply a preset on start: ") + presetIds().join(QStringLiteral(", ")) +
             QLatin1Char('.'),
         QStringLiteral("NAME")},
        {QStringLiteral("page"),
         QStringLiteral("Show the encoding, phrases, schemes or model page."),
         QStringLiteral("encoding|phrases|schemes|model")},
        {QStringLiteral("theme"), QStringLiteral("light or dark."), QStringLiteral("light|dark")},
        {QStringLiteral("size"), QStringLiteral("Window size in pixels, e.g. 1600x1000."),
         QStringLiteral("WxH")},
        {QStringLiteral("screenshot"),
         QStringLiteral("Wait until every view has its result, save a PNG of the window to FILE "
                        "and exit. Saved settings are neither read nor written."),
         QStringLiteral("FILE")},
        {QStringLiteral("session"), QStringLiteral("Open a saved session (JSON) on start."),
         QStringLiteral("FILE")},
        {QStringLiteral("model"),
         QStringLiteral("Open a model on start (a folder, a file or a cached repo id), as File > "
                        "Open model does."),
         QStringLiteral("PATH|REPO_ID")},
        {QStringLiteral("model-view"),
         QStringLiteral("The Model page's view: %1 (a learned table); %2 (a rotary layer).")
             .arg(modelViewList(ViewJob::Table), modelViewList(ViewJob::Schemes)),
         QStringLiteral("NAME")},
        {QStringLiteral("phrase-tokenizer"),
         QStringLiteral("The Phrases page's tokenizer: textvectorization (the Keras tutorial's) "
                        "or model (the open model's own, with its embeddings and layer 0)."),
         QStringLiteral("NAME")},
    });
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A session file to open, as --session does."),
                                 QStringLiteral("[FILE]"));
}

GuiRequest guiRequest(const QCommandLineParser &parser)
{
    GuiRequest request;
    // A bare path is a session file (a double-click in a file manager runs `pescope FILE`).
    request.session = parser.value(QStringLiteral("session"));
    const QStringList positional = parser.positionalArguments();
    if (positional.size() == 1 && !parser.isSet(QStringLiteral("session")) &&
        QFileInfo(positional[0]).isFile())
        request.session = positional[0];
    else if (!positional.isEmpty())
        throw UsageError{
            QStringLiteral("unknown command \"%1\" (%2, or options for the window; "
                           "see --help)")
                .arg(positional.constFirst(), cli::commandNames().join(QStringLiteral(", ")))};
    request.preset = parser.value(QStringLiteral("preset"));
    if (parser.isSet(QStringLiteral("preset")) && !findPreset(request.preset))
        throw UsageError{QStringLiteral("--preset: unknown preset \"%1\" (known: %2)")
                             .arg(request.preset, presetIds().join(QStringLiteral(", ")))};
    if (parser.isSet(QStringLiteral("page"))) {
        const QString name = parser.value(QStringLiteral("page"));
        request.page = parseAs<Page>(pageNames, name);
        if (!request.page)
            throw UsageError{
                QStringLiteral("--page must be %1 (got \"%2\")").arg(choiceList(pageNames), name)};
    }
    if (parser.isSet(QStringLiteral("theme"))) {
        const QString name = parser.value(QStringLiteral("theme"));
        request.theme = parseAs<Theme>(themeNames, name);
        if (!request.theme)
            throw UsageError{QStringLiteral("--theme must be %1 (got \"%2\")")
                                 .arg(choiceList(themeNames), name)};
    }
    if (parser.isSet(QStringLiteral("size"))) {
        static const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})[xX](\\d{1,5})$"));
        const QString text = parser.value(QStringLiteral("size"));
        const QRegularExpressionMatch m = pattern.match(text);
        const int w = m.hasMatch() ? m.captured(1).toInt() : 0;
        const int h = m.hasMatch() ? m.captured(2).toInt() : 0;
        if (w < 400 || h < 300 || w > 8192 || h > 8192)
            throw UsageError{QStringLiteral("--size: \"%1\" is not WxH with a width of 400 to "
                                            "8192 and a height of 300 to 8192 pixels")
                                 .arg(text)};
        request.size = QSize(w, h);
    }
    request.screenshot = parser.value(QStringLiteral("screenshot"));
    if (parser.isSet(QStringLiteral("screenshot")) &&
        !request.screenshot.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        throw UsageError{
            QStringLiteral("--screenshot: \"%1\" must be a .png file").arg(request.screenshot)};
    request.model = parser.value(QStringLiteral("model"));
    if (parser.isSet(QStringLiteral("model")) && request.model.isEmpty())
        throw UsageError{QStringLiteral("--model: name a model: a folder, a file or a repo id")};
    if (parser.isSet(QStringLiteral("model-view"))) {
        const QString name = parser.value(QStringLiteral("model-view"));
        const std::optional<QList<FigureView>> views = parseFigureViews(name, nullptr);
        if (!views || views->size() != 1 || !ModelPage::views().contains(views->constFirst()))
            throw UsageError{
                QStringLiteral("--model-view must be %1 (got \"%2\")").arg(modelViewList(), name)};
        request.modelView = views->constFirst();
    }
    if (parser.isSet(QStringLiteral("phrase-tokenizer"))) {
        const QString name = parser.value(QStringLiteral("phrase-tokenizer"));
        request.phraseTokenizer = parseAs<PhraseTokenizer>(phraseTokenizerNames, name);
        if (!request.phraseTokenizer)
            throw UsageError{QStringLiteral("--phrase-tokenizer must be %1 (got \"%2\")")
                                 .arg(choiceList(phraseTokenizerNames), name)};
    }
    return request;
}

namespace {

// --help or --version: printed through an application object (helpText() needs one), no window.
int printHelpOrVersion(const QCommandLineParser &parser, char *program)
{
    QtArguments qtArguments(program);
    QCoreApplication app(qtArguments.argc, qtArguments.argv.data());
    QCoreApplication::setApplicationName(QStringLiteral("pescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    printOut((parser.isSet(QStringLiteral("help")) ? parser.helpText() : buildInfoText()) +
             QLatin1Char('\n'));
    // Checked as every command's output is (main.cpp): a text that did not arrive is no success.
    if (const QString problem = standardOutputProblem(); !problem.isEmpty()) {
        printLine(stderr, QStringLiteral("pescope: ") + problem);
        return Failure;
    }
    return Success;
}

// Without a display Qt would abort with a core dump; say so in one line instead. (A named
// but unreachable X display still ends in Qt's own message: only connecting tells.)
bool displayReachable()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        printLine(stderr, QStringLiteral("pescope: no display to open the window on (DISPLAY and "
                                         "WAYLAND_DISPLAY are unset): run it in a desktop "
                                         "session or under xvfb-run, or use pescope export / "
                                         "data to write files"));
        return false;
    }
    return true;
}

// --screenshot: the shown window, once its views have settled, as a PNG at `path`; the exit
// code. Settled three times in a row, 100 ms apart: a late resize may still ask for a finer grid.
int saveScreenshot(QApplication &app, MainWindow &window, const QString &path)
{
    int settledTicks = 0;
    int exitCode = Failure;
    QTimer poll;
    poll.setInterval(100);
    QObject::connect(&poll, &QTimer::timeout, &app, [&] {
        settledTicks = window.isSettled() ? settledTicks + 1 : 0;
        if (settledTicks < 3)
            return;
        poll.stop();
        const QImage image = window.grab().toImage();
        QByteArray png;
        QBuffer buffer(&png);
        QString error;
        if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG")) {
            printLine(stderr, QStringLiteral("pescope: cannot encode the screenshot as PNG"));
            exitCode = Failure;
        } else if (!writeFileAtomically(path, png, &error)) {
            printLine(stderr, QStringLiteral("pescope: %1").arg(error));
            exitCode = Failure;
        } else {
            printLine(stderr, QStringLiteral("pescope: saved %1 (%2 x %3); %4")
                                  .arg(path)
                                  .arg(image.width())
                                  .arg(image.height())
                                  .arg(window.computeInfo()));
            exitCode = Success;
        }
        QApplication::exit(exitCode);
    });
    QTimer::singleShot(screenshotTimeoutMs, &app, [&] {
        printLine(stderr, QStringLiteral("pescope: the views did not settle within %1 s; no "
                                         "screenshot written")
                              .arg(screenshotTimeoutMs / 1000));
        QApplication::exit(Failure);
    });
    poll.start();
    QApplication::exec();
    return exitCode;
}

} // namespace

int runGui(int argc, char **argv)
{
    // Decoded as the commands decode theirs: a --session path or a --phrase-tokenizer's
    // argument keeps a leading U+FEFF, and bytes that are not UTF-8 are refused, named.
    QString invalid;
    const QStringList args = decodeArguments(argc, argv, &invalid);
    if (!invalid.isEmpty())
        return usageError(invalid);

    QCommandLineParser parser;
    addGuiOptions(parser);
    if (!parser.parse(args))
        return usageError(parser.errorText());
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("version")))
        return printHelpOrVersion(parser, argv[0]);
    GuiRequest request;
    try {
        request = guiRequest(parser);
    } catch (const UsageError &error) {
        return usageError(error.message);
    }

    if (!displayReachable())
        return Failure;
    // Qt sees none of the arguments: it would take --session FILE (ours) for X session
    // management, and -style, -reverse or -platform from wherever they stand (QtArguments).
    // Those are refused above as options the window does not have; Qt's environment variables
    // (QT_STYLE_OVERRIDE, QT_QPA_PLATFORM, QT_SCALE_FACTOR) still reach it.
    QtArguments qtArguments(argv[0]);
    QApplication app(qtArguments.argc, qtArguments.argv.data());
    QApplication::setApplicationName(QStringLiteral("pescope"));
    QApplication::setOrganizationName(QStringLiteral("pescope"));
    QApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral(PE_APP_ID));
    QApplication::setWindowIcon(applicationIcon());

    MainWindowOptions options;
    // A screenshot shows the preset as shipped, not the user's last session.
    options.persistent = request.screenshot.isEmpty();
    MainWindow window(options);
    if (request.theme)
        window.state()->setTheme(*request.theme);
    if (!request.preset.isEmpty()) {
        QString error;
        if (!window.applyPreset(request.preset, &error))
            return usageError(QStringLiteral("--preset: ") + error);
    }
    if (!request.session.isEmpty()) {
        QString error;
        if (!openSessionInWindow(&window, request.session, &error))
            return usageError(QStringLiteral("--session: ") + error);
    }
    if (!request.model.isEmpty()) {
        // Read on the scheduler's worker before the window shows, so that a screenshot waits.
        QString error;
        if (!openModelInWindow(&window, request.model, &error))
            return usageError(QStringLiteral("--model: ") + error);
    }
    if (request.modelView)
        window.modelPage()->setCurrentView(*request.modelView);
    if (request.phraseTokenizer) {
        PhraseSource source = window.state()->phraseSource();
        source.tokenizer = *request.phraseTokenizer;
        window.state()->setPhraseSource(source);
    }
    if (request.page)
        window.state()->setPage(*request.page);
    // What the command line asked for is where the session starts: nothing to undo, not modified.
    window.undoStack()->clear();
    if (request.size.isValid())
        window.resize(request.size);
    window.show();
    if (request.screenshot.isEmpty())
        return QApplication::exec();
    return saveScreenshot(app, window, request.screenshot);
}

} // namespace pe::cli
