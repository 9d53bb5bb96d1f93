#include "commandline.h"

#include "formats/ggufconfig.h"
#include "formats/hfcache.h"
#include "io/atomicfile.h"
#include "io/userfile.h"
#include "text/unicodetext.h"

#include <QFile>

#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pe::cli {

namespace {

// The errno of the first write to standard output that failed; 0 while none has.
int stdoutErrno = 0;
// Standard streams the shell closed, now on /dev/null (guardStandardStreams).
bool stdinClosed = false;
bool stdoutClosed = false;

} // namespace

QStringList decodeArguments(int argc, char **argv, QString *invalid)
{
    QStringList out;
    for (int i = 0; i < argc; ++i) {
        qsizetype bad = -1;
        out.append(unicode::fromUtf8(QByteArrayView(argv[i]), &bad));
        if (bad >= 0 && invalid && invalid->isEmpty())
            *invalid =
                QStringLiteral("argument %1 is not valid UTF-8 (byte %2 of it)").arg(i).arg(bad);
    }
    return out;
}

void parseOrThrow(QCommandLineParser &parser, const QStringList &args)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    if (!parser.parse(args))
        throw UsageError{parser.errorText()};
    if (!parser.positionalArguments().isEmpty())
        throw UsageError{QStringLiteral("unexpected argument \"%1\"")
                             .arg(parser.positionalArguments().constFirst())};
}

void parseCommand(QCommandLineParser &parser, const QStringList &args, bool positionals)
{
    if (positionals) {
        parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
        if (!parser.parse(args))
            throw UsageError{parser.errorText()};
    } else {
        parseOrThrow(parser, args);
    }
    if (parser.isSet(QStringLiteral("help")))
        requestHelp(parser, args);
}

qint64 integerOption(const QCommandLineParser &parser, const QString &name, qint64 min, qint64 max,
                     qint64 fallback)
{
    if (!parser.isSet(name))
        return fallback;
    const QString text = parser.value(name).trimmed();
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok)
        throw UsageError{
            QStringLiteral("--%1 must be a whole number (got \"%2\")").arg(name, text)};
    if (value < min || value > max)
        throw UsageError{QStringLiteral("--%1 must be between %2 and %3 (got %4)")
                             .arg(name)
                             .arg(min)
                             .arg(max)
                             .arg(value)};
    return value;
}

double numberOption(const QCommandLineParser &parser, const QString &name, double fallback)
{
    if (!parser.isSet(name))
        return fallback;
    const QString text = parser.value(name).trimmed();
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value))
        throw UsageError{
            QStringLiteral("--%1 must be a finite number (got \"%2\")").arg(name, text)};
    return value;
}

quint64 seedOption(const QCommandLineParser &parser, const QString &name)
{
    if (!parser.isSet(name))
        return 0;
    const QString text = parser.value(name).trimmed();
    bool ok = false;
    const quint64 value = text.toULongLong(&ok);
    if (!ok)
        throw UsageError{QStringLiteral("--%1 must be a whole number from 0 to %2 (got \"%3\")")
                             .arg(name)
                             .arg(std::numeric_limits<quint64>::max())
                             .arg(text)};
    return value;
}

void addSpecOptions(OptionSet &options)
{
    EncodingSpec::addOptions(options);
    options.addPlain(backendOption());
}

EncodingSpec specFromOptions(const QCommandLineParser &parser, EncodingSpec start)
{
    if (const FieldProblem problem = start.readOptions(parser))
        throw UsageError{start.describe(problem, FieldNaming::Flag)};
    if (const FieldProblem problem = start.problem())
        throw UsageError{start.describe(problem, FieldNaming::Flag)};
    return start;
}

void addModelOptions(OptionSet &options)
{
    options.addPlain({QStringLiteral("config"),
                      QStringLiteral("A Hugging Face config.json: the model's RoPE parameters "
                                     "(rope_parameters, or rope_scaling and rope_theta)."),
                      QStringLiteral("FILE")});
    options.addPlain({QStringLiteral("model"),
                      QStringLiteral("A model folder, a .safetensors file beside its config.json, "
                                     "a .gguf file (its metadata is the config), or a repo id "
                                     "in the Hugging Face cache (gpt2, org/name). Nothing is "
                                     "downloaded."),
                      QStringLiteral("PATH|REPO_ID")});
    options.addPlain({QStringLiteral("tensor"),
                      QStringLiteral("With --model: the tensor to read as a position table "
                                     "(default: the model's learned table, e.g. GPT-2's wpe)."),
                      QStringLiteral("NAME")});
    options.addPlain({QStringLiteral("table-offset"),
                      QStringLiteral("With --model: table rows before position 0 (default: as "
                                     "config.json says; RoBERTa and OPT keep 2)."),
                      QStringLiteral("N")});
    options.addPlain({QStringLiteral("layer"),
                      QStringLiteral("The model's layer (0 = first; default: the first rotary "
                                     "layer). Layers differ in local vs global θ or NoPE."),
                      QStringLiteral("N")});
}

std::optional<ModelConfig> modelConfigFromOptions(const QCommandLineParser &parser)
{
    const QString configOption = QStringLiteral("config"), modelOption = QStringLiteral("model");
    if (parser.isSet(configOption) && parser.isSet(modelOption))
        throw UsageError{QStringLiteral("give --config or --model, not both")};
    QString error;
    std::optional<ModelConfig> config;
    if (parser.isSet(configOption)) {
        config = readHfConfig(parser.value(configOption), &error);
    } else if (parser.isSet(modelOption)) {
        const std::optional<ModelLocation> location =
            resolveModel(parser.value(modelOption), &error);
        if (!location)
            throw UsageError{error};
        // config.json, or a GGUF file's own metadata.
        config = readModelConfig(*location, &error);
        if (!config && error.isEmpty())
            throw UsageError{QStringLiteral("%1 has no config.json beside it (nor GGUF "
                                            "metadata): pescope reads a model's positions from "
                                            "it (use --config FILE)")
                                 .arg(parser.value(modelOption))};
    } else {
        return std::nullopt;
    }
    if (!config)
        throw UsageError{error};
    return config;
}

std::optional<ModelLayerSpec> modelSpecFromOptions(const QCommandLineParser &parser)
{
    const QString model = QStringLiteral("model"), config = QStringLiteral("config");
    const QString scheme = QStringLiteral("scheme"), layer = QStringLiteral("layer");
    const QString tensor = QStringLiteral("tensor"), offset = QStringLiteral("table-offset");
    const bool tableScheme =
        parser.isSet(scheme) && parser.value(scheme) == QLatin1String(TableScheme::info.id);
    if (!parser.isSet(model))
        refuseOptions(parser, {tensor, offset}, QStringLiteral("a spec without --model"));
    if (!parser.isSet(model) && !parser.isSet(config)) {
        if (tableScheme)
            throw UsageError{QStringLiteral("--scheme table needs --model PATH|REPO_ID")};
        refuseOptions(parser, {layer}, QStringLiteral("a spec without --config or --model"));
        return std::nullopt;
    }
    // --scheme table --model X: X's learned table, whatever else X has.
    if (!tableScheme || parser.isSet(config))
        refuseOptions(parser, {scheme}, QStringLiteral("a model: its files decide"));
    refuseOptions(parser, {QStringLiteral("dims")}, QStringLiteral("a model: its files decide"));
    const int layerIndex = int(integerOption(parser, layer, 0, limits::maxLayers - 1, -1));
    QString error;
    std::optional<ModelLayerSpec> spec;
    if (parser.isSet(config)) { // modelConfigFromOptions refuses --config with --model
        spec = modelLayerSpec(*modelConfigFromOptions(parser), layerIndex, &error);
    } else {
        // A tokenizer has no layer map: said as such rather than as a config missing its keys.
        if (const QString alone = PhraseModel::tokenizerAlone(parser.value(model));
            !alone.isEmpty())
            throw UsageError{QStringLiteral("%1 is a tokenizer alone (no config.json beside it): "
                                            "it has no positions to show (its tokens: `pescope "
                                            "tokens`, or `export --view tokens`)")
                                 .arg(alone)};
        ModelRequest request;
        request.source = parser.value(model);
        request.tensor = parser.value(tensor);
        request.offset = integerOption(parser, offset, 0, limits::maxPositions, -1);
        request.layer = layerIndex;
        request.table = tableScheme;
        spec = openModelSpec(request, &error);
    }
    if (!spec)
        throw UsageError{error};
    if (spec->spec.get<TableScheme>())
        refuseOptions(parser, {layer},
                      QStringLiteral("a learned position table: it is added once, at the input"));
    else
        refuseOptions(parser, {tensor, offset},
                      QStringLiteral("a rotary model (its positions are no table)"));
    spec->spec = specFromOptions(parser, spec->spec); // --positions, a rope field on top
    return spec;
}

void refuseOptions(const QCommandLineParser &parser, const QStringList &names,
                   const QString &context)
{
    for (const QString &name : names)
        if (parser.isSet(name))
            throw UsageError{QStringLiteral("--%1 does not apply to %2").arg(name, context)};
}

QCommandLineOption backendOption()
{
    return {
        QStringLiteral("backend"),
        QStringLiteral("Compute backend: %1 (default auto).").arg(choiceList(backendChoiceNames)),
        QStringLiteral("NAME")};
}

BackendChoice backendFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("backend")))
        return BackendChoice::Auto;
    const QString name = parser.value(QStringLiteral("backend"));
    const auto choice = parseAs<BackendChoice>(backendChoiceNames, name);
    if (!choice)
        throw UsageError{QStringLiteral("--backend must be %1 (got \"%2\")")
                             .arg(choiceList(backendChoiceNames), name)};
    return *choice;
}

QString outputPath(const QCommandLineParser &parser, const QStringList &extensions)
{
    if (!parser.isSet(QStringLiteral("out")) || parser.value(QStringLiteral("out")).isEmpty())
        throw UsageError{QStringLiteral("--out is required")};
    QString path = parser.value(QStringLiteral("out"));
    const QFileInfo info(path);
    // A device or pipe (/dev/null, /dev/stdout, also when the shell redirected it to a file)
    // has no extension to go by: --format decides.
    if (AtomicFile::writesInPlace(path))
        return path;
    const QString suffix = info.suffix().toLower();
    if (!extensions.contains(suffix))
        throw UsageError{QStringLiteral("--out must end in .%1 (got \"%2\")")
                             .arg(extensions.join(QStringLiteral(" or .")), path)};
    return path;
}

MatrixFormat matrixFormatFromOptions(const QCommandLineParser &parser, const QString &path)
{
    if (parser.isSet(QStringLiteral("format"))) {
        const QString name = parser.value(QStringLiteral("format"));
        if (name == QLatin1String("npy"))
            return MatrixFormat::Npy;
        if (name == QLatin1String("csv"))
            return MatrixFormat::Csv;
        throw UsageError{QStringLiteral("--format must be npy or csv (got \"%1\")").arg(name)};
    }
    return matrixFormatForPath(path).value_or(MatrixFormat::Npy);
}

QString formatName(MatrixFormat format)
{
    return format == MatrixFormat::Csv ? QStringLiteral("CSV") : QStringLiteral(".npy");
}

QString shapeText(const std::vector<qint64> &shape)
{
    QStringList parts;
    for (const qint64 n : shape)
        parts.append(QString::number(n));
    return parts.join(QStringLiteral(" x "));
}

QCommandLineOption formatOption()
{
    return {QStringLiteral("format"),
            QStringLiteral("npy or csv; by default the --out extension decides."),
            QStringLiteral("F")};
}

void requestHelp(const QCommandLineParser &parser, const QStringList &args)
{
    QString text = parser.helpText();
    // Qt names the executable's path; a subcommand's usage must name the subcommand.
    const QString usage = QStringLiteral("Usage: ");
    if (text.startsWith(usage) && !args.isEmpty()) {
        const qsizetype end = text.indexOf(QStringLiteral(" [options]"));
        if (end > 0)
            text.replace(0, end, usage + args.constFirst());
    }
    throw HelpRequest{text};
}

QCommandLineOption dryRunOption()
{
    return {QStringLiteral("dry-run"),
            QStringLiteral("Check the options and the files they name, say what would be done, "
                           "and stop: nothing is computed or written.")};
}

int reportDryRun(const QString &command, const QString &action, const QStringList &problems)
{
    for (const QString &problem : problems) {
        if (!problem.isEmpty()) {
            report(command, problem);
            return Failure;
        }
    }
    report(command, QStringLiteral("dry run: would ") + action);
    return Success;
}

const std::map<QString, Command> &commands()
{
    static const std::map<QString, Command> table = {
        {QStringLiteral("data"), runData},       {QStringLiteral("phrases"), runPhrases},
        {QStringLiteral("info"), runInfo},       {QStringLiteral("export"), runExport},
        {QStringLiteral("inspect"), runInspect}, {QStringLiteral("verify"), runVerify},
        {QStringLiteral("tokens"), runTokens},   {QStringLiteral("lesson"), runLesson},
        {QStringLiteral("context"), runContext},
    };
    return table;
}

QStringList commandNames()
{
    QStringList names;
    for (const auto &[name, command] : commands())
        names.append(name);
    return names;
}

namespace {

// Why standard input cannot be read as a text: closed, or a folder; empty when it can.
QString standardInputProblem()
{
    if (stdinClosed)
        return QStringLiteral("standard input is closed");
    struct stat st = {};
    if (::fstat(STDIN_FILENO, &st) != 0)
        return errno == EBADF
                   ? QStringLiteral("standard input is closed")
                   : QStringLiteral("standard input cannot be read: ") + errnoText(errno);
    if (S_ISDIR(st.st_mode))
        return QStringLiteral("standard input is a folder, not a text");
    return {};
}

} // namespace

QString readTextFile(const QString &path, const QString &option)
{
    QByteArray bytes;
    const QString name = path == QLatin1StringView("-") ? QStringLiteral("standard input") : path;
    if (path == QLatin1StringView("-")) {
        // A closed standard input (`<&-`) or a folder (`< dir`) would read as an empty text.
        if (const QString problem = standardInputProblem(); !problem.isEmpty())
            throw UsageError{QStringLiteral("--%1 -: %2").arg(option, problem)};
        QFile in;
        if (!in.open(stdin, QIODevice::ReadOnly))
            throw UsageError{QStringLiteral("--%1 -: standard input cannot be read").arg(option)};
        // One read returns what the pipe holds (64 KiB); read until the end.
        while (bytes.size() <= limits::maxPhraseFileBytes) {
            const QByteArray chunk = in.read(
                std::min<qint64>(qint64(1) << 20, limits::maxPhraseFileBytes + 1 - bytes.size()));
            if (chunk.isEmpty())
                break;
            bytes += chunk;
        }
        if (in.error() != QFileDevice::NoError)
            throw UsageError{QStringLiteral("--%1 -: standard input cannot be read: %2")
                                 .arg(option, in.errorString())};
        if (bytes.size() > limits::maxPhraseFileBytes)
            throw UsageError{QStringLiteral("--%1 -: standard input is longer than %2 bytes")
                                 .arg(option)
                                 .arg(limits::maxPhraseFileBytes)};
    } else {
        QString error;
        std::optional<QByteArray> read =
            readUserFile(path, limits::maxPhraseFileBytes, &error, QStringLiteral("a text file"));
        if (!read)
            throw UsageError{QStringLiteral("--%1: %2").arg(option, error)};
        bytes = std::move(*read);
    }
    // Every character as it is in the file, a U+FEFF at its start included.
    qsizetype invalid = -1;
    QString text = unicode::fromUtf8(bytes, &invalid);
    if (invalid >= 0)
        throw UsageError{QStringLiteral("--%1: %2 is not valid UTF-8: byte %3 (line %4) is 0x%5")
                             .arg(option, name)
                             .arg(invalid)
                             .arg(bytes.first(invalid).count('\n') + 1)
                             .arg(quint8(bytes[invalid]), 2, 16, QLatin1Char('0'))};
    return text;
}

QStringList textLines(const QString &text)
{
    // One text per line: "\n" or "\r\n" ends a line, and the end of the file after a line break
    // starts none.
    QStringList lines = text.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.back().isEmpty())
        lines.removeLast();
    for (QString &line : lines)
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    return lines;
}

void report(const QString &command, const QString &message)
{
    const QByteArray line =
        (QStringLiteral("pescope ") + command + QStringLiteral(": ") + message + QLatin1Char('\n'))
            .toLocal8Bit();
    std::fwrite(line.constData(), 1, std::size_t(line.size()), stderr);
    std::fflush(stderr);
}

void guardStandardStreams()
{
    // In order: open() returns the lowest free descriptor, the stream's own once those below
    // it are open.
    for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (opened >= 0 && opened != fd) {
            ::dup2(opened, fd);
            ::close(opened);
        }
        stdinClosed = stdinClosed || fd == STDIN_FILENO;
        stdoutClosed = stdoutClosed || fd == STDOUT_FILENO;
    }
}

bool writeOut(QByteArrayView bytes)
{
    if (stdoutClosed && stdoutErrno == 0 && !bytes.isEmpty())
        stdoutErrno = EBADF;
    if (stdoutErrno != 0)
        return false;
    errno = 0;
    if (std::fwrite(bytes.data(), 1, std::size_t(bytes.size()), stdout) ==
        std::size_t(bytes.size()))
        return true;
    stdoutErrno = errno != 0 ? errno : EIO;
    return false;
}

bool printOut(const QString &text)
{
    return writeOut(text.toLocal8Bit());
}

bool standardOutputFailed()
{
    return stdoutErrno != 0;
}

bool flushOut()
{
    if (stdoutErrno != 0)
        return false;
    errno = 0;
    if (std::fflush(stdout) == 0)
        return true;
    stdoutErrno = errno != 0 ? errno : EIO;
    return false;
}

QString standardOutputProblem()
{
    flushOut();
    // A write that failed outside writeOut (a QTextStream, printf) left only the stream's error
    // flag; its cause went with it.
    if (stdoutErrno == 0 && std::ferror(stdout) != 0)
        stdoutErrno = EIO;
    if (stdoutErrno == 0)
        return {};
    return QStringLiteral("cannot write to standard output: ") + errnoText(stdoutErrno);
}

} // namespace pe::cli
