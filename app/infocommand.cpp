// `pescope info`: version, Qt, and each backend: available or why not.
#include "commandline.h"

#include <QTextStream>

namespace pe::cli {

int runInfo(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Prints the version, Qt and each backend."));
    parser.addHelpOption();
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help")))
        requestHelp(parser, args);

    QTextStream out(stdout);
    out << "pescope " << PE_VERSION << '\n' << "Qt " << qVersion() << '\n';
    for (const BackendStatus &status : probeBackends())
        out << "backend " << status.id << ": "
            << (status.available ? QStringLiteral("available, ")
                                 : QStringLiteral("not available: "))
            << status.description << '\n';
    return Success;
}

} // namespace pe::cli
