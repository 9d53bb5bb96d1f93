// pescope's entry point: a subcommand (data, phrases, info) runs headless; otherwise the GUI.
#include "commandline.h"
#include "guicommand.h"

#include <QApplication>
#include <QGuiApplication>

#include <cstdio>
#include <cstring>
#include <memory>

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

int runCommand(int argc, char **argv)
{
    // Figures are QCustomPlot widgets, which need a QApplication; they render on the offscreen
    // platform whatever the display, so an export does not depend on the screen's DPI or fonts.
    const bool widgets = std::strcmp(argv[1], "export") == 0 || std::strcmp(argv[1], "lesson") == 0 || std::strcmp(argv[1], "context") == 0;
    // Taken before the application object exists: QGuiApplication removes "--session FILE"
    // (X session management) from argv, and `export --session` is ours.
    QString invalid;
    const QStringList rawArgs = pe::cli::decodeArguments(argc, argv, &invalid);
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
    const std::unique_ptr<QGuiApplication> app =
        widgets ? std::make_unique<QApplication>(argc, argv)
                : std::make_unique<QGuiApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("pescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    // QGuiApplication took its own options (-platform ...) out of argc and argv.
    QStringList args = widgets ? rawArgs : pe::cli::decodeArguments(argc, argv, nullptr);
    const QString name = args.takeAt(1);
    if (!invalid.isEmpty()) {
        pe::cli::report(name, invalid);
        return pe::cli::BadUsage;
    }
    args[0] = QStringLiteral("pescope ") + name; // "Usage: pescope data [options]"
    try {
        return pe::cli::commands().at(name)(args);
    } catch (const pe::cli::HelpRequest &help) {
        const QByteArray bytes = help.text.toLocal8Bit();
        std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stdout);
        std::fflush(stdout);
        return pe::cli::Success;
    } catch (const pe::cli::UsageError &error) {
        pe::cli::report(name, error.message);
        return pe::cli::BadUsage;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && pe::cli::commands().count(QString::fromLocal8Bit(argv[1])))
        return runCommand(argc, argv);

    return pe::cli::runGui(argc, argv);
}
