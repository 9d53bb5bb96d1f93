// Shared pieces of the command-line subcommands: option parsing that names the bad option,
// and the exit-code contract (0 success, 2 bad usage, 1 failure while working).
#pragma once

#include "backends/backendfactory.h"
#include "encodingspec.h"
#include "fields/fieldoptions.h"
#include "io/matrixwriter.h"
#include "model/forwardpass.h"
#include "model/modelspec.h"
#include "model/phrasemodel.h"
#include "rope/enginecheck.h"
#include "rope/ropetables.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>

#include <array>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

namespace pe {
class ModelTensors;
}

namespace pe::cli {

// Differs: `verify` found numbers beyond the tolerance.
enum ExitCode { Success = 0, Failure = 1, BadUsage = 2, Differs = 4 };

// Thrown while reading options; main() prints "pescope <command>: <message>" and exits 2.
struct UsageError
{
    QString message;
};

// Thrown by a subcommand's --help: main() prints the text on stdout and exits 0.
// An exception rather than exit() so that everything reading a command line (the fuzz target
// included) can run a command's whole option parsing and come back.
struct HelpRequest
{
    QString text;
};

// The arguments as typed, for every command and the window: QCoreApplication::arguments()
// decodes each with QString::fromLocal8Bit, which drops a U+FEFF at an argument's start and
// turns bytes that are not UTF-8 into U+FFFD without a word. The first argument that is not
// UTF-8 is named in *invalid.
QStringList decodeArguments(int argc, char **argv, QString *invalid);

// Parses args (args[0] is "pescope <command>") and turns Qt's parse errors into UsageError.
void parseOrThrow(QCommandLineParser &parser, const QStringList &args);
// Every command's prologue: parses args as parseOrThrow does (positional arguments allowed when
// `positionals`: inspect, tokens, lesson) and answers --help (requestHelp).
void parseCommand(QCommandLineParser &parser, const QStringList &args, bool positionals = false);

qint64 integerOption(const QCommandLineParser &parser, const QString &name, qint64 min, qint64 max,
                     qint64 fallback);
double numberOption(const QCommandLineParser &parser, const QString &name, double fallback);
quint64 seedOption(const QCommandLineParser &parser, const QString &name);

// SPEC: --scheme, --positions, --dims and every scheme's own options, from the field tables.
void addSpecOptions(OptionSet &options);
// The spec the options describe on top of `start`; throws UsageError naming the option.
EncodingSpec specFromOptions(const QCommandLineParser &parser, EncodingSpec start = {});
// Throws "--NAME does not apply to <context>" for the first of `names` that is set.
void refuseOptions(const QCommandLineParser &parser, const QStringList &names,
                   const QString &context);
// MODEL: --config FILE or --model PATH|REPO_ID, and --layer N: the spec one layer of a model
// gives (core/model/modelspec.h), for the commands that read a model's positions.
void addModelOptions(OptionSet &options);
// The model's config when --config or --model is set, else nullopt. Both set, an unreadable or
// hostile file, or a model without config.json throw UsageError naming the file.
std::optional<ModelConfig> modelConfigFromOptions(const QCommandLineParser &parser);
// The spec of the --layer (default: the first rotary layer) of that model, with the spec
// options that make sense on top (--positions, a rope field to try another value); --scheme and
// --dims are refused, the model decides them. nullopt without --config / --model.
std::optional<ModelLayerSpec> modelSpecFromOptions(const QCommandLineParser &parser);
QCommandLineOption backendOption();
BackendChoice backendFromOptions(const QCommandLineParser &parser);

// The --out path, required, with one of `extensions` unless it is a device or pipe.
QString outputPath(const QCommandLineParser &parser, const QStringList &extensions);
// --format when given, else the path's extension (.npy for a device or pipe).
MatrixFormat matrixFormatFromOptions(const QCommandLineParser &parser, const QString &path);
// ".npy" or "CSV", for messages.
QString formatName(MatrixFormat format);
// "4 x 10 x 10", for messages.
QString shapeText(const std::vector<qint64> &shape);
// The --format option itself, for commands that write matrices.
QCommandLineOption formatOption();

// --help: throws HelpRequest with the parser's help, its usage line naming the subcommand
// ("Usage: pescope export [options]", from args[0]) instead of the executable's path.
[[noreturn]] void requestHelp(const QCommandLineParser &parser, const QStringList &args);

// --dry-run, for the commands that compute or write: every option and every file they name is
// read and checked as for a real run, then the command says what it would do and stops. Nothing
// is computed and nothing is written, and no backend is started. Exit 0; 1 when an output cannot
// be written (its folder, the free space); 2 for the usage a real run would refuse.
QCommandLineOption dryRunOption();
// The end of a dry run: the first of `problems` that is not empty (what a real run's writers
// would refuse: MatrixWriter::problem(), outputPathProblem()) and Failure, else
// "dry run: would <action>" and Success.
int reportDryRun(const QString &command, const QString &action, const QStringList &problems = {});

// A subcommand: its arguments (args[0] "pescope <command>") to its exit code. It throws
// UsageError for bad usage and HelpRequest for --help.
using Command = std::function<int(const QStringList &)>;
// The subcommands by name ("data", "export", ...): main's dispatch table.
const std::map<QString, Command> &commands();
QStringList commandNames();

// The text of the file --`option` names ("-": standard input), UTF-8 read exactly (a U+FEFF at
// its start is a character of the text); at most limits::maxPhraseFileBytes. Throws UsageError
// naming the option, the file and the first byte that is not UTF-8.
QString readTextFile(const QString &path, const QString &option);
// A text's lines, as --lines reads a file: "\n" or "\r\n" ends a line; no line after a final
// line break; empty lines kept (each is a text).
QStringList textLines(const QString &text);

// One line on stderr, prefixed "pescope <command>: ".
void report(const QString &command, const QString &message);

// Called first in main(), before Qt or pescope opens anything: a standard stream the shell
// closed (`<&-`, `>&-`) is reopened on /dev/null, so that no file opened later becomes
// descriptor 0, 1 or 2 (output meant for stdout would land in it), and is remembered as closed:
// `--file -` then refuses to read (readTextFile), and printing fails with EBADF (writeOut).
void guardStandardStreams();

// Standard output. What a command prints there goes through writeOut / printOut, which keep the
// cause of the first write that failed (a full disk, /dev/full, a closed descriptor); main()
// ends every command with standardOutputProblem(), so that no command exits 0 over lost output.
// Returns false once a write has failed: a command streaming a long list may stop there.
bool writeOut(QByteArrayView bytes);
// `text` in the locale's encoding (UTF-8), as QString::toLocal8Bit gives it.
bool printOut(const QString &text);
// True once a write to standard output has failed: a long listing stops formatting there.
bool standardOutputFailed();
// Flushes what was written so far (a line that should come before a message on stderr).
bool flushOut();
// Flushes standard output; "cannot write to standard output: <cause>" when a write (this one or
// an earlier one, through writeOut or any other stdio call) failed, else empty.
QString standardOutputProblem();

// The argc and argv the application object is built with: the program's name alone. Qt takes
// its own options (-session, -reverse, -style, -platform, ...) out of whatever argv it is given,
// wherever they stand; pescope reads every argument itself (decodeArguments) and refuses the
// options it does not have. Outlives the application object: Qt keeps argc by reference.
struct QtArguments
{
    explicit QtArguments(char *program) : argv{program, nullptr} {}
    int argc = 1;
    std::array<char *, 2> argv;
};

// `pescope data`'s options (SPEC, MODEL, --what, --position-ids, --out, --format...).
void addDataOptions(OptionSet &options);
// --position-ids' value: "T,H,W;T,H,W;..." or "@FILE" (the same, ';' or line breaks between
// entries, '#' comments); each entry one id p (a text token: t = h = w = p) or a (t, h, w)
// triple. Throws UsageError naming the entry.
std::vector<MropePositionIds> parsePositionIds(const QString &option);
// `pescope data --model M --phrase TEXT`'s options (--phrase, --no-positions), and the command
// itself (app/phrasedata.cpp): its exit code when --phrase is set, else nullopt after refusing
// the phrase-only options (--no-positions, --what embeddings|attention).
void addPhraseDataOptions(OptionSet &options);
std::optional<int> writePhraseData(const QCommandLineParser &parser);
// What --model, --phrase, --what, --layer and --no-positions ask for (pescope.phrase() too).
struct PhraseDataRequest
{
    std::unique_ptr<PhraseModel> model;
    TokenEncoding tokens;
    PhraseArray what = PhraseArray::Embeddings;
    bool withPositions = true;
    QString encodeError; // the tokenizer could not encode the phrase (a failure: exit 1)
    // {tokens, hidden} or {heads, tokens, tokens}.
    std::vector<qint64> shape() const;
};
// Opens the model and encodes the phrase; throws UsageError naming the option or file for the
// usage a real run refuses (other options, a bad --what or --layer, a model that cannot be read,
// a phrase longer than the model takes).
PhraseDataRequest phraseDataRequest(const QCommandLineParser &parser);
// --shift, --scale, --theta, --rope-scaling (with --no-positions, --compare where the command
// has it): the ablation they ask for (app/phrasedata.cpp; `pescope data --phrase` and `pescope
// export --view layer-attention`). Throws UsageError for a value that is no number > 0 or JSON
// object; the values the model cannot take are ForwardPass::ablationProblem's to refuse.
PositionAblation positionAblationFromOptions(const QCommandLineParser &parser);

// The output of `spec` that --what names (default: the scheme's first), multiplied by the
// attention factor with --scaled-table, one row per id with --position-ids; --positions refused
// where the output does not use it. What `pescope data` writes; pescope.rope_table() in Python.
// Without --positions a RoPE `spec` is marked to take the sequence length transformers' module
// holds once loaded (RopeScheme::lengthAsLoaded). Throws UsageError naming the option.
DataOutput dataOutputFromOptions(const QCommandLineParser &parser, EncodingSpec &spec);

// `pescope inspect --json`'s object for a model folder, file or cached repo id, and the model's
// config (nullopt when it has none) in *config when not null. With `tensors`, the weights are
// opened there and the report's "tensors" list is left empty for the caller to stream (a header
// may list a million tensors), *tensorCount the number (-1: a config alone); without, the list
// is in the report. Throws UsageError.
QJsonObject inspectReport(const QString &source, std::optional<ModelConfig> *config = nullptr,
                          ModelTensors *tensors = nullptr, qsizetype *tensorCount = nullptr);

// The tokenizer `pescope tokens` reads: a tokenizer.json (`file`), or the one of a model folder,
// a file in one, a models--ORG--NAME cache folder or a cached repo id. Throws UsageError naming
// the file and the problem.
Tokenizer readTokenizer(const QString &path, bool file);

// `verify`'s options after MODEL (--against, --what, --layout, --positions, --tolerance,
// --unscaled, --strict), shared with `export --view verify` (verifycommand.cpp), where --layout
// and --positions mean the figure's own (the table's layout is detected there).
enum class VerifyOptionSet { Verify, Export };
void addVerifyOptions(OptionSet &options, VerifyOptionSet set = VerifyOptionSet::Verify);
// The engine check those options ask for, against the rotary layer `model` read from `source`;
// throws UsageError naming the option.
EngineCheckRequest engineCheckRequest(const QCommandLineParser &parser, const ModelLayerSpec &model,
                                      const QString &source,
                                      VerifyOptionSet set = VerifyOptionSet::Verify);

int runData(const QStringList &args);
int runPhrases(const QStringList &args);
int runInfo(const QStringList &args);
int runExport(const QStringList &args);
// `pescope data --view NAME … --out X.npy|X.csv`: the view's numbers, as `pescope export` writes
// them for that --out (the view list's data export); namesView: whether `args` give --view.
bool namesView(const QStringList &args);
int runViewData(const QStringList &args);
int runVerify(const QStringList &args);
int runInspect(const QStringList &args);
int runTokens(const QStringList &args);
int runLesson(const QStringList &args);
// `pescope context`: a RoPE config at the context it claims (contextcommand.cpp).
int runContext(const QStringList &args);

} // namespace pe::cli
