// `pescope data SPEC --out FILE.npy|FILE.csv`: the encoding matrix, streamed to disk.
#include "commandline.h"

#include "encodingexport.h"
#include "matrixwriter.h"

#include <QElapsedTimer>

#include <unistd.h>

namespace pe::cli {

int runData(const QStringList &args)
{
    const QString command = QStringLiteral("data");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes the positions x dims float32 encoding matrix to .npy or .csv, in chunks."));
    parser.addHelpOption();
    addSpecOptions(parser);
    parser.addOption({QStringLiteral("out"), QStringLiteral("Output file: .npy or .csv."),
                      QStringLiteral("FILE")});
    parser.addOption(formatOption());
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(Success);

    const EncodingSpec spec = specFromOptions(parser);
    const BackendChoice choice = backendFromOptions(parser);
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});

    QString why;
    const std::unique_ptr<Backend> backend = makeBackend(choice, &why);
    if (!backend) {
        report(command, QStringLiteral("the %1 backend cannot start: %2")
                            .arg(backendChoiceName(choice), why));
        return Failure;
    }

    MatrixWriter writer(path, matrixFormatFromOptions(parser, path), {spec.positions, spec.dims});
    QElapsedTimer timer;
    timer.start();
    // Progress only for people watching a terminal, at most once a second.
    const bool showProgress = isatty(STDERR_FILENO);
    qint64 lastShown = 0;
    const auto progress = [&](qint64 done, qint64 total) {
        if (showProgress && timer.elapsed() - lastShown >= 1000) {
            lastShown = timer.elapsed();
            std::fprintf(stderr, "\rpescope data: %3d%%", int(100 * done / total));
        }
        return true;
    };
    QString error;
    const bool ok = streamEncoding(*backend, spec, writer, &error, progress);
    if (showProgress && lastShown > 0)
        std::fprintf(stderr, "\r");
    if (!ok) {
        report(command, error);
        return Failure;
    }
    report(command, QStringLiteral("%1 x %2 %3 matrix written to %4 by the %5 backend (%6) in %7 ms")
                        .arg(spec.positions)
                        .arg(spec.dims)
                        .arg(schemeName(spec.scheme), path, backend->id(), backend->description())
                        .arg(timer.elapsed()));
    return Success;
}

} // namespace pe::cli
