// `pescope info`: version, Qt, each backend (available or why not), and what auto chooses, why.
#include "commandline.h"

#include <QTextStream>

namespace pe::cli {

int runInfo(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints the version, Qt, each backend, and what --backend auto chooses and why (on a "
        "hardware GPU after timing the same small jobs on the CPU and the GPU)."));
    parser.addHelpOption();
    parseCommand(parser, args);

    QTextStream out(stdout);
    out << "pescope " << PE_VERSION << '\n' << "Qt " << qVersion() << '\n';
    for (const BackendStatus &status : probeBackends())
        out << "backend " << status.id << ": "
            << (status.id == u"auto" ? QString()
                : status.available   ? QStringLiteral("available, ")
                                     : QStringLiteral("not available: "))
            << status.description << '\n';
    return Success;
}

} // namespace pe::cli
