// pescope's entry point: a subcommand (data, phrases, info) runs headless; otherwise the GUI.
#include "commandline.h"

#include "mainwindow.h"

#include <QApplication>
#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

namespace {

using Command = std::function<int(const QStringList &)>;

const std::map<QString, Command> &commands()
{
    static const std::map<QString, Command> table = {
        {QStringLiteral("data"), pe::cli::runData},
        {QStringLiteral("phrases"), pe::cli::runPhrases},
        {QStringLiteral("info"), pe::cli::runInfo},
    };
    return table;
}

int runCommand(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("pescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    QStringList args = QCoreApplication::arguments();
    const QString name = args.takeAt(1);
    args[0] = QStringLiteral("pescope ") + name; // "Usage: pescope data [options]"
    try {
        return commands().at(name)(args);
    } catch (const pe::cli::UsageError &error) {
        pe::cli::report(name, error.message);
        return pe::cli::BadUsage;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && commands().count(QString::fromLocal8Bit(argv[1])))
        return runCommand(argc, argv);

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("pescope"));
    QApplication::setOrganizationName(QStringLiteral("pescope"));
    QApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    pe::MainWindow window;
    window.show();
    return QApplication::exec();
}
