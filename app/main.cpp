// pescope's entry point: a subcommand (data, phrases, info) runs headless; otherwise the GUI.
#include "commandline.h"
#include "guicommand.h"

#include <QApplication>
#include <QGuiApplication>

#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace {

QtMessageHandler defaultHandler = nullptr;

// Qt notes on every start that root in a container has no XDG_RUNTIME_DIR, and the xcb platform
// says so when it cannot reach the display (the offscreen platform then takes over, as meant);
// on the CLI that is noise in stderr, whose lines are a contract (one line per problem).
void commandMessageHandler(QtMsgType type, const QMessageLogContext &context,
                           const QString &message)
{
    // A display that refuses the connection (a busy Xvfb) makes the plugin loader say so too,
    // before "xcb;offscreen" falls back.
    const bool displayNoise =
        context.category &&
        (qstrcmp(context.category, "qt.qpa.xcb") == 0 ||
         (qstrcmp(context.category, "qt.qpa.plugin") == 0 &&
          message.startsWith(QLatin1String("Could not load the Qt platform plugin \"xcb\""))));
    if (!displayNoise &&
        !message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        defaultHandler(type, context, message);
}

// The command's exit code, once its output on stdout is checked: results that could not be
// written (a full disk, /dev/full) are a failure while working, named, never a silent 0.
int checkedExit(const QString &name, int code)
{
    const QString problem = pe::cli::standardOutputProblem();
    if (problem.isEmpty())
        return code;
    pe::cli::report(name, problem);
    return code == pe::cli::Success || code == pe::cli::Differs ? pe::cli::Failure : code;
}

int dispatch(const QString &name, QStringList args)
{
    args[0] = QStringLiteral("pescope ") + name; // "Usage: pescope data [options]"
    try {
        return pe::cli::commands().at(name)(args);
    } catch (const pe::cli::HelpRequest &help) {
        pe::cli::printOut(help.text);
        return pe::cli::Success;
    } catch (const pe::cli::UsageError &error) {
        pe::cli::report(name, error.message);
        return pe::cli::BadUsage;
    } catch (const std::bad_alloc &) {
        // An allocation refused anywhere in a command (a limit set by ulimit, a container's
        // memory): a failure while working, said in one line, never an abort.
        pe::cli::report(name, QStringLiteral("out of memory while running the command (the "
                                             "input needs more memory than the system gives)"));
        return pe::cli::Failure;
    }
}

int runCommand(int argc, char **argv)
{
    // Figures are QCustomPlot widgets, which need a QApplication; they render on the offscreen
    // platform whatever the display, so an export does not depend on the screen's DPI or fonts.
    const bool widgets = std::strcmp(argv[1], "export") == 0 ||
                         std::strcmp(argv[1], "lesson") == 0 ||
                         std::strcmp(argv[1], "context") == 0; // its --out report.pdf
    // Every argument is pescope's, read as typed: the application object gets the program's name
    // alone (QtArguments), so `data --session FILE` or `tokens -- -reverse` reach the command.
    QString invalid;
    QStringList args = pe::cli::decodeArguments(argc, argv, &invalid);
    if (widgets && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // A QGuiApplication, because the GPU backend's offscreen surface needs one. Headless (no
    // display named), Qt's offscreen platform keeps subcommands working, and an X display that
    // cannot be reached falls back to it too; the GPU backend then says why it cannot start.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        if (qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        else if (qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "xcb;offscreen");
    }
    defaultHandler = qInstallMessageHandler(commandMessageHandler);
    pe::cli::QtArguments qtArguments(argv[0]);
    const std::unique_ptr<QGuiApplication> app =
        widgets ? std::make_unique<QApplication>(qtArguments.argc, qtArguments.argv.data())
                : std::make_unique<QGuiApplication>(qtArguments.argc, qtArguments.argv.data());
    QCoreApplication::setApplicationName(QStringLiteral("pescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    const QString name = args.takeAt(1);
    if (!invalid.isEmpty()) {
        pe::cli::report(name, invalid);
        return pe::cli::BadUsage;
    }
    return checkedExit(name, dispatch(name, std::move(args)));
}

} // namespace

int main(int argc, char **argv)
{
    pe::cli::guardStandardStreams();
    if (argc > 1 && pe::cli::commands().count(QString::fromLocal8Bit(argv[1])))
        return runCommand(argc, argv);

    return pe::cli::runGui(argc, argv);
}
