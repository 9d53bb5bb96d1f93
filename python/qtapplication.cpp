#include "qtapplication.h"

#include "pythonerror.h"

#include <QApplication>
#include <QThread>

namespace pe::python {

namespace {

QtMessageHandler previousHandler = nullptr;

// Qt says on every start that root in a container has no XDG_RUNTIME_DIR: noise under a cell of
// a notebook, as the command line finds it in stderr (app/main.cpp).
void messageHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (!message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        previousHandler(type, context, message);
}

} // namespace

void startQt()
{
    if (QCoreApplication::instance())
        return;
    // Offscreen whatever the display: figures render without one, exactly as `pescope export`
    // renders them, and a platform that cannot reach its display would abort the interpreter.
    // The variable is put back afterwards, so programs started later do not inherit it.
    const QByteArray previous = qgetenv("QT_QPA_PLATFORM");
    const bool wasSet = qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
    qputenv("QT_QPA_PLATFORM", "offscreen");
    previousHandler = qInstallMessageHandler(messageHandler);
    static int argc = 1;
    static char name[] = "pescope";
    static char *argv[] = {name, nullptr};
    // Lives as long as the process: Python gives no point after the last use at which Qt could
    // be shut down safely.
    new QApplication(argc, argv); // NOLINT(bugprone-unused-return-value)
    QCoreApplication::setApplicationName(QStringLiteral("pescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PE_VERSION));
    if (wasSet)
        qputenv("QT_QPA_PLATFORM", previous);
    else
        qunsetenv("QT_QPA_PLATFORM");
}

void requireFigureThread()
{
    startQt();
    const QCoreApplication *app = QCoreApplication::instance();
    if (!qobject_cast<const QApplication *>(app))
        raiseRuntimeError(QStringLiteral("figures need a QApplication, and this process already "
                                         "has a Qt application of another kind (%1)")
                              .arg(QString::fromLatin1(app->metaObject()->className())));
    if (QThread::currentThread() != app->thread())
        raiseRuntimeError(QStringLiteral("figures are drawn on the thread Qt started on (the "
                                         "first to make a figure or use the GPU backend); this "
                                         "call came from another thread"));
}

} // namespace pe::python
