// libFuzzer target: the command line of every subcommand and of the window. The input is the
// arguments, separated by NUL bytes; the first names the command ("data", "export", "phrases",
// "verify", "inspect", or "gui" for the window's options). Each runs as pescope runs it:
// - data, export and phrases with --dry-run, so every option and every file they name is read
//   and checked and nothing is computed or written;
// - verify, inspect and tokens whole: they only read files and print;
// - the window's options through guiRequest(), everything it checks before a window exists.
// `info` is left out: it has no options of its own and probes the GPU. Beyond not crashing: a
// refusal is a UsageError with a message, --help gives a text, and a command's exit code is
// one of the contract's.
#include "commandline.h"
#include "fuzzinput.h"
#include "guicommand.h"

#include <QApplication>

#include <cstddef>
#include <cstdint>

using pe::fuzz::check;

namespace {

// Export's figure settings hold fonts, which need a QGuiApplication; the offscreen platform, as
// `pescope export` uses, needs no display.
void ensureApplication()
{
    static int argc = 1;
    static char name[] = "pescope-fuzz";
    static char *argv[] = {name, nullptr};
    static const bool platform = qputenv("QT_QPA_PLATFORM", "offscreen");
    static QApplication app(argc, argv);
    (void)platform;
}

void fuzzGuiOptions(const QStringList &args)
{
    QCommandLineParser parser;
    pe::cli::addGuiOptions(parser);
    if (!parser.parse(args)) {
        check(!parser.errorText().isEmpty());
        return;
    }
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("version")))
        return; // a text, then exit: nothing else is read
    try {
        const pe::cli::GuiRequest request = pe::cli::guiRequest(parser);
        check(request.size.isEmpty() ||
              (request.size.width() >= 400 && request.size.height() >= 300));
    } catch (const pe::cli::UsageError &error) {
        check(!error.message.isEmpty());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ensureApplication();
    using namespace pe::cli;

    const QList<QByteArray> fields =
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)).split('\0');
    const QString name = QString::fromUtf8(fields.constFirst());
    QStringList args{name == QLatin1String("gui") ? QStringLiteral("pescope")
                                                  : QStringLiteral("pescope ") + name};
    for (qsizetype i = 1; i < fields.size(); ++i)
        args.append(QString::fromUtf8(fields[i]));

    if (name == QLatin1String("gui")) {
        fuzzGuiOptions(args);
        return 0;
    }
    if (name == QLatin1String("info") || !commands().count(name))
        return 0;
    // Right after the command's name, so that no "--" in the input can make it an argument.
    if (name == QLatin1String("data") || name == QLatin1String("export") ||
        name == QLatin1String("phrases"))
        args.insert(1, QStringLiteral("--dry-run"));
    try {
        const int code = commands().at(name)(args);
        check(code == Success || code == Failure || code == Differs);
    } catch (const UsageError &error) {
        check(!error.message.isEmpty());
    } catch (const HelpRequest &help) {
        check(!help.text.isEmpty());
    }
    return 0;
}
