// `pescope info`: version, Qt, each backend (available or why not), and what auto chooses, why.
#include "commandline.h"

namespace pe::cli {

int runInfo(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints the version, Qt, each backend, and what --backend auto chooses and why (on a "
        "hardware GPU after timing the same small jobs on the CPU and the GPU)."));
    parser.addHelpOption();
    parseCommand(parser, args);

    QString out = QStringLiteral("pescope %1\nQt %2\n")
                      .arg(QStringLiteral(PE_VERSION), QString::fromLatin1(qVersion()));
    for (const BackendStatus &status : probeBackends())
        out += QStringLiteral("backend ") + status.id + QStringLiteral(": ") +
               (status.id == u"auto" ? QString()
                : status.available   ? QStringLiteral("available, ")
                                     : QStringLiteral("not available: ")) +
               status.description + QLatin1Char('\n');
    printOut(out);
    return Success;
}

} // namespace pe::cli
