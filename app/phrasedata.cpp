// `pescope data --model M --phrase TEXT --what embeddings|attention [--layer N] [--no-positions]
// --out FILE.npy`: a typed phrase through the model's own tokenizer (its default special tokens)
// and its layers (core/model/phrasemodel.h): transformers' hidden_states[0] (tokens x hidden) or
// layer N's attention probabilities (heads x tokens x tokens; N > 0 through the whole forward
// pass up to layer N), float32. A phrase longer than the
// model takes is refused (exit 2) rather than cut: a script gets the array of the text it gave
// or none. The window caps instead, saying so.
// `--what distance|head-scores|sinks|frequency-atlas|norms|top-activations|probe`: a layer
// analysis of the whole forward pass (core/analysis/layeranalysis.h), every layer or --layer N's.
// `--shift K | --scale S | --theta B | --rope-scaling JSON` (attention and the layer analyses):
// the pass with its positions ablated in every layer (core/model/forwardpass.h, PositionAblation);
// `--compare`: with positions, ablated (or without, --no-positions) and the difference, stacked.
// `--what logits [--logits all|last]`: the whole pass's logits, every token's (tokens x
// vocabulary, transformers' plain forward) or the last token's (1 x vocabulary, its
// logits_to_keep=1); the other arrays are computed without logits.
#include "commandline.h"

#include "analysis/forwardanalysis.h"
#include "model/logitskept.h"
#include "model/phrasemodel.h"
#include "rope/ropefrequencies.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pe::cli {

namespace {

const QString dataCommand = QStringLiteral("data");

// --phrase TEXT or --phrase-file PATH: either gives the phrase.
bool phraseGiven(const QCommandLineParser &parser)
{
    return parser.isSet(QStringLiteral("phrase")) || parser.isSet(QStringLiteral("phrase-file"));
}

QString phraseText(const QCommandLineParser &parser)
{
    if (parser.isSet(QStringLiteral("phrase")) && parser.isSet(QStringLiteral("phrase-file")))
        throw UsageError{QStringLiteral("give --phrase TEXT or --phrase-file PATH, not both")};
    if (parser.isSet(QStringLiteral("phrase-file")))
        return readTextFile(parser.value(QStringLiteral("phrase-file")),
                            QStringLiteral("phrase-file"));
    return parser.value(QStringLiteral("phrase"));
}

// Every option --phrase accepts; the others (a scheme's, a table's, --position-ids...) are
// refused by name rather than ignored.
void refuseOtherOptions(const QCommandLineParser &parser)
{
    const QStringList accepted = {
        QStringLiteral("model"),  QStringLiteral("phrase"),       QStringLiteral("phrase-file"),
        QStringLiteral("what"),   QStringLiteral("layer"),        QStringLiteral("no-positions"),
        QStringLiteral("out"),    QStringLiteral("format"),       QStringLiteral("dry-run"),
        QStringLiteral("window"), QStringLiteral("top-k"),        QStringLiteral("ridge"),
        QStringLiteral("folds"),  QStringLiteral("shift"),        QStringLiteral("scale"),
        QStringLiteral("theta"),  QStringLiteral("rope-scaling"), QStringLiteral("compare"),
        QStringLiteral("logits")};
    for (const QString &name : parser.optionNames())
        if (!accepted.contains(name))
            throw UsageError{QStringLiteral("--%1 does not apply to --phrase (the model's own "
                                            "tokenizer and weights decide)")
                                 .arg(name)};
    if (!parser.isSet(QStringLiteral("model")))
        throw UsageError{QStringLiteral("--phrase needs --model PATH|REPO_ID: a model folder "
                                        "with tokenizer.json, config.json and safetensors")};
}

// `--what logits`: the whole pass's logits (--logits all|last).
QString logitsWhat()
{
    return QStringLiteral("logits");
}

// --shift, --scale, --theta, --rope-scaling: what the pass does to the positions; and --compare.
QStringList ablationOptionNames()
{
    return {QStringLiteral("shift"), QStringLiteral("scale"), QStringLiteral("theta"),
            QStringLiteral("rope-scaling"), QStringLiteral("compare")};
}

} // namespace

PositionAblation positionAblationFromOptions(const QCommandLineParser &parser)
{
    PositionAblation a;
    a.shift = integerOption(parser, QStringLiteral("shift"), 0, ropeMaxContext, 0);
    a.scale = numberOption(parser, QStringLiteral("scale"), 1.0);
    if (!(a.scale > 0))
        throw UsageError{QStringLiteral("--scale must be a number > 0 (got %1)")
                             .arg(parser.value(QStringLiteral("scale")))};
    if (parser.isSet(QStringLiteral("theta"))) {
        const double theta = numberOption(parser, QStringLiteral("theta"), 0);
        if (!(theta > 0))
            throw UsageError{QStringLiteral("--theta must be a number > 0 (got %1)")
                                 .arg(parser.value(QStringLiteral("theta")))};
        a.ropeTheta = theta;
    }
    if (parser.isSet(QStringLiteral("rope-scaling"))) {
        QJsonParseError parsed{};
        const QJsonDocument json =
            QJsonDocument::fromJson(parser.value(QStringLiteral("rope-scaling")).toUtf8(), &parsed);
        if (parsed.error != QJsonParseError::NoError || !json.isObject() || json.object().isEmpty())
            throw UsageError{QStringLiteral("--rope-scaling must be a JSON object such as "
                                            "'{\"rope_type\": \"linear\", \"factor\": 2}' "
                                            "(got \"%1\")")
                                 .arg(parser.value(QStringLiteral("rope-scaling")))};
        a.ropeScaling = json.object();
    }
    if (parser.isSet(QStringLiteral("no-positions")) && !a.changesNothing())
        throw UsageError{QStringLiteral("--no-positions removes the positions: it does not "
                                        "combine with --shift, --scale, --theta or "
                                        "--rope-scaling")};
    // optionNames(): `pescope export` takes the ablation without --compare.
    if (parser.optionNames().contains(QStringLiteral("compare")) && a.changesNothing() &&
        !parser.isSet(QStringLiteral("no-positions")))
        throw UsageError{QStringLiteral("--compare needs what to compare with: --shift K, "
                                        "--scale S, --theta B, --rope-scaling JSON or "
                                        "--no-positions")};
    return a;
}

namespace {

// Whether the options ask for the pass with its positions ablated, or for a comparison.
bool ablationAsked(const QCommandLineParser &parser)
{
    const QStringList names = ablationOptionNames();
    return std::any_of(names.cbegin(), names.cend(),
                       [&](const QString &name) { return parser.isSet(name); });
}

PhraseArray phraseArrayFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("what")))
        return PhraseArray::Embeddings;
    const QString what = parser.value(QStringLiteral("what"));
    const std::optional<PhraseArray> array = parseAs<PhraseArray>(phraseArrayNames, what);
    if (!array)
        throw UsageError{QStringLiteral("--what must be %1 with --phrase (got \"%2\")")
                             .arg(choiceList(phraseArrayNames), what)};
    return *array;
}

// --what names a layer analysis: which (the command line's other names, refused here, list
// them; pescope.phrase() reads only the phrase arrays and says so).
std::optional<LayerAnalysis> layerAnalysisFromOptions(const QCommandLineParser &parser)
{
    const QString what = parser.value(QStringLiteral("what"));
    const std::optional<LayerAnalysis> analysis = parseAs<LayerAnalysis>(layerAnalysisNames, what);
    if (!analysis && parser.isSet(QStringLiteral("what")) &&
        !parseAs<PhraseArray>(phraseArrayNames, what)) {
        QStringList names = choiceNameList(phraseArrayNames) + choiceNameList(layerAnalysisNames) +
                            QStringList{logitsWhat()};
        const QString last = names.takeLast();
        throw UsageError{QStringLiteral("--what must be %1 or %2 with --phrase (got \"%3\")")
                             .arg(names.join(QStringLiteral(", ")), last, what)};
    }
    return analysis;
}

std::unique_ptr<PhraseModel> openPhraseModel(const QCommandLineParser &parser)
{
    // The layer the attention is of: layer 0's input is the embedding output; a later one is
    // computed through every layer before it (a layer the model lacks is refused by name).
    const int layer =
        int(integerOption(parser, QStringLiteral("layer"), 0, limits::maxLayers - 1, 0));
    QString error;
    std::unique_ptr<PhraseModel> model =
        PhraseModel::open(parser.value(QStringLiteral("model")), &error, layer);
    if (!model)
        throw UsageError{error};
    return model;
}

// Which files were read and what they are, and the phrase's tokens.
void reportInputs(const PhraseModel &model, const TokenEncoding &tokens)
{
    const LayerZero &zero = model.layerZero();
    report(dataCommand,
           QStringLiteral("model %1 (%2, %3 heads, hidden %4; positions: %5); tokenizer %6 (%7)")
               .arg(model.folder(), zero.architecture())
               .arg(zero.heads())
               .arg(zero.hiddenSize())
               .arg(zero.positionsText(), model.tokenizer().source(), model.tokenizer().summary()));
    report(dataCommand, QStringLiteral("%1 tokens: %2")
                            .arg(tokens.size())
                            .arg(tokens.tokens.join(QLatin1Char(' ')).left(400)));
}

} // namespace

void addPhraseDataOptions(OptionSet &options)
{
    options.addPlain({QStringLiteral("phrase"),
                      QStringLiteral("With --model: a typed phrase through the model's own "
                                     "tokenizer (its default special tokens) and layers. --what "
                                     "embeddings (default): hidden_states[0], tokens x hidden; "
                                     "attention: the probabilities of layer --layer N (default "
                                     "0), heads x tokens x tokens. A phrase longer than the "
                                     "model takes is refused."),
                      QStringLiteral("TEXT")});
    options.addPlain({QStringLiteral("phrase-file"),
                      QStringLiteral("The same as --phrase with the phrase read from a UTF-8 "
                                     "file, exactly as it is (\"-\": standard input)."),
                      QStringLiteral("PATH")});
    options.addPlain({QStringLiteral("window"),
                      QStringLiteral("--what head-scores or sinks: the local window, the query's "
                                     "own token and the N - 1 before it (default 8)."),
                      QStringLiteral("N")});
    options.addPlain({QStringLiteral("top-k"),
                      QStringLiteral("--what top-activations: the largest K per layer (default "
                                     "5)."),
                      QStringLiteral("K")});
    options.addPlain({QStringLiteral("ridge"),
                      QStringLiteral("--what probe: the ridge penalty lambda (default 1)."),
                      QStringLiteral("LAMBDA")});
    options.addPlain({QStringLiteral("folds"),
                      QStringLiteral("--what probe: cross-validation folds, token r in fold r mod "
                                     "K (default 5)."),
                      QStringLiteral("K")});
    options.addPlain({QStringLiteral("no-positions"),
                      QStringLiteral("With --phrase: the same without the model's positions (no "
                                     "rotation in a RoPE layer, no position table added at an "
                                     "absolute model's input), in every layer up to --layer N.")});
    options.addPlain({QStringLiteral("shift"),
                      QStringLiteral("With --phrase, --what attention or a layer analysis: "
                                     "position ids K .. K + L - 1 in every layer (transformers' "
                                     "position_ids): RoPE turns by (p + K) theta, a learned "
                                     "table adds row p + K (refused past its last row)."),
                      QStringLiteral("K")});
    options.addPlain({QStringLiteral("scale"),
                      QStringLiteral("With --phrase: RoPE positions p -> p / S in every layer "
                                     "(linear interpolation, transformers' rope_type linear); "
                                     "refused for a learned position table."),
                      QStringLiteral("S")});
    options.addPlain({QStringLiteral("theta"),
                      QStringLiteral("With --phrase: another rope_theta in every RoPE layer."),
                      QStringLiteral("B")});
    options.addPlain({QStringLiteral("rope-scaling"),
                      QStringLiteral("With --phrase: another RoPE rule in every RoPE layer, a "
                                     "rope_scaling object: '{\"rope_type\": \"yarn\", "
                                     "\"factor\": 4}' (linear, dynamic, yarn, llama3, "
                                     "longrope, default); rope_theta is the model's unless "
                                     "given."),
                      QStringLiteral("JSON")});
    options.addPlain({QStringLiteral("logits"),
                      QStringLiteral("With --phrase and --what logits: all (default), every "
                                     "token's logits, tokens x vocabulary, as transformers' "
                                     "plain forward; last, the last token's, 1 x vocabulary, as "
                                     "its logits_to_keep=1."),
                      QStringLiteral("all|last")});
    options.addPlain({QStringLiteral("compare"),
                      QStringLiteral("With --phrase and --shift, --scale, --theta, "
                                     "--rope-scaling or --no-positions: write 3 x the array: "
                                     "with positions, ablated, and with - ablated.")});
}

PhraseDataRequest phraseDataRequest(const QCommandLineParser &parser)
{
    refuseOtherOptions(parser);
    PhraseDataRequest request;
    request.what = phraseArrayFromOptions(parser);
    refuseOptions(parser, {QStringLiteral("logits")},
                  QStringLiteral("--what ") + nameOf(phraseArrayNames, request.what));
    request.withPositions = !parser.isSet(QStringLiteral("no-positions"));
    request.model = openPhraseModel(parser);
    std::optional<TokenEncoding> tokens =
        request.model->encode(phraseText(parser), &request.encodeError);
    if (!tokens)
        return request;
    if (const QString problem = request.model->problem(*tokens, request.what); !problem.isEmpty())
        throw UsageError{QStringLiteral("--phrase: ") + problem};
    request.tokens = std::move(*tokens);
    return request;
}

std::vector<qint64> PhraseDataRequest::shape() const
{
    const LayerZero &zero = model->layerZero();
    const qint64 n = tokens.size();
    return what == PhraseArray::Attention ? std::vector<qint64>{zero.heads(), n, n}
                                          : std::vector<qint64>{n, zero.hiddenSize()};
}

namespace {

// The layer analyses' own options: --window, --top-k, --ridge, --folds.
QStringList analysisOptionNames()
{
    return {QStringLiteral("window"), QStringLiteral("top-k"), QStringLiteral("ridge"),
            QStringLiteral("folds")};
}

LayerAnalysisOptions layerAnalysisOptions(const QCommandLineParser &parser)
{
    LayerAnalysisOptions options;
    options.window = integerOption(parser, QStringLiteral("window"), 1, limits::maxLayerZeroTokens,
                                   options.window);
    options.topK = integerOption(parser, QStringLiteral("top-k"), 0, 10000, options.topK);
    options.ridge = numberOption(parser, QStringLiteral("ridge"), options.ridge);
    if (!(options.ridge >= 0) || !std::isfinite(options.ridge))
        throw UsageError{QStringLiteral("--ridge must be a finite number >= 0 (got %1)")
                             .arg(parser.value(QStringLiteral("ridge")))};
    options.folds = int(integerOption(parser, QStringLiteral("folds"), 2, 1000, options.folds));
    return options;
}

// Layer N's part of `values` (the first axis is the layer: 0 .. layers - 1 for the attention's
// analyses, 0 .. layers for the hidden states', 0 being the embeddings).
LayerZeroArray oneLayer(const LayerZeroArray &values, qint64 layer)
{
    const qint64 layers = values.shape.at(0);
    if (layer >= layers)
        throw UsageError{QStringLiteral("--layer %1: this analysis has layers 0 to %2")
                             .arg(layer)
                             .arg(layers - 1)};
    LayerZeroArray out;
    out.shape.assign(values.shape.begin() + 1, values.shape.end());
    const auto each = qint64(values.values.size()) / std::max<qint64>(layers, 1);
    out.values.assign(values.values.begin() + layer * each,
                      values.values.begin() + (layer + 1) * each);
    return out;
}

// The options that set the ablation, as typed ("--shift 5 --theta 1000"), for messages.
QString ablationFlags(const QCommandLineParser &parser)
{
    QStringList flags;
    for (const QString &name : ablationOptionNames())
        if (parser.isSet(name) && name != QLatin1String("compare"))
            flags.append(QStringLiteral("--%1 %2").arg(name, parser.value(name)));
    return flags.join(QLatin1Char(' '));
}

// {with, ablated, with - ablated} stacked on a new first axis (the view's "with positions,
// without, and with - without").
LayerZeroArray stackComparison(const LayerZeroArray &with, const LayerZeroArray &ablated)
{
    LayerZeroArray out;
    out.shape = with.shape;
    out.shape.insert(out.shape.begin(), 3);
    out.values = with.values;
    out.values.insert(out.values.end(), ablated.values.begin(), ablated.values.end());
    for (std::size_t i = 0; i < with.values.size(); ++i)
        out.values.push_back(with.values[i] - ablated.values[i]);
    return out;
}

// What a run of the pass gives for the command: the analysis, or one layer's attention.
using PassArray =
    std::function<LayerZeroArray(ForwardPass &, std::span<const int>, bool withPositions,
                                 const PositionAblation &, QStringList *warnings)>;

// The phrase through the model's tokenizer (the checks of --what attention) and the whole
// forward pass, positions as the options say (--compare: also plain, stacked), to `path`.
std::optional<int> writeForwardArray(const QCommandLineParser &parser, const QString &name,
                                     const PassArray &compute, const QString &path,
                                     MatrixFormat format)
{
    const PositionAblation ablation = positionAblationFromOptions(parser);
    const bool withPositions = !parser.isSet(QStringLiteral("no-positions"));
    const bool compare = parser.isSet(QStringLiteral("compare"));
    QString error;
    const std::unique_ptr<PhraseModel> model =
        PhraseModel::open(parser.value(QStringLiteral("model")), &error, 0);
    if (!model)
        throw UsageError{error};
    const std::optional<TokenEncoding> tokens = model->encode(phraseText(parser), &error);
    if (!tokens) {
        report(dataCommand, QStringLiteral("--phrase: %1").arg(error));
        return Failure;
    }
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(
        PhraseModel::modelOfTokenizerFile(parser.value(QStringLiteral("model"))), &error);
    if (!pass)
        throw UsageError{error};
    if (const QString problem = pass->ablationProblem(ablation, tokens->size()); !problem.isEmpty())
        throw UsageError{QStringLiteral("%1: %2").arg(ablationFlags(parser), problem)};
    reportInputs(*model, *tokens);
    const QString ablated = !withPositions              ? QStringLiteral("without positions")
                            : ablation.changesNothing() ? QStringLiteral("with positions")
                                                        : positionAblationText(ablation);
    const QString what =
        compare ? QStringLiteral("%1 (float32: with positions, %2, with - %2)").arg(name, ablated)
                : QStringLiteral("%1 (float32, %2)").arg(name, ablated);
    if (parser.isSet(QStringLiteral("dry-run")))
        return reportDryRun(dataCommand,
                            QStringLiteral("write the %1 of %2 tokens to %3 as %4")
                                .arg(what)
                                .arg(tokens->size())
                                .arg(path, formatName(format)),
                            {});
    QElapsedTimer timer;
    timer.start();
    std::vector<int> ids;
    for (const qint64 id : tokens->ids) // the pass refuses an id outside its token table
        ids.push_back(int(std::clamp<qint64>(id, -1, std::numeric_limits<int>::max())));
    QStringList warnings;
    LayerZeroArray values = compute(*pass, ids, withPositions, ablation, &warnings);
    if (compare)
        values = stackComparison(compute(*pass, ids, true, {}, &warnings), values);
    MatrixWriter writer(path, format, values.shape);
    if (!writer.open(&error) ||
        !writer.write(values.values.data(), qint64(values.values.size()), &error) ||
        !writer.commit(&error)) {
        report(dataCommand, error);
        return Failure;
    }
    warnings.removeDuplicates();
    for (const QString &warning : warnings)
        report(dataCommand, QStringLiteral("warning: ") + warning);
    report(dataCommand, QStringLiteral("%1 %2 written to %3 in %4 ms")
                            .arg(shapeText(values.shape), what, path)
                            .arg(timer.elapsed()));
    return Success;
}

// The pass over phrase A's ids with `options`, its warnings added to `warnings`; a refusal is
// bad input named by --phrase. What every --what array's compute function runs.
ForwardResult runPhrasePass(ForwardPass &pass, std::span<const int> ids,
                            const ForwardOptions &options, QStringList *warnings)
{
    QString error;
    std::optional<ForwardResult> result = pass.run(ids, options, &error);
    if (!result)
        throw UsageError{QStringLiteral("--phrase: ") + error};
    *warnings += result->warnings;
    return std::move(*result);
}

std::optional<int> writeLayerAnalysis(const QCommandLineParser &parser, LayerAnalysis what,
                                      const QString &path, MatrixFormat format)
{
    const LayerAnalysisOptions analysisOptions = layerAnalysisOptions(parser);
    const bool oneLayerOnly = parser.isSet(QStringLiteral("layer"));
    const qint64 layer = integerOption(parser, QStringLiteral("layer"), 0, limits::maxLayers, 0);
    const PassArray compute = [&](ForwardPass &pass, std::span<const int> ids, bool with,
                                  const PositionAblation &ablation, QStringList *warnings) {
        ForwardOptions options = forwardOptionsFor(what, with);
        options.positions = ablation;
        const ForwardResult result = runPhrasePass(pass, ids, options, warnings);
        QString error;
        std::optional<LayerZeroArray> values =
            computeLayerAnalysis(pass, result, what, analysisOptions, &error);
        if (!values)
            throw UsageError{error};
        return oneLayerOnly ? oneLayer(*values, layer) : std::move(*values);
    };
    return writeForwardArray(parser, nameOf(layerAnalysisNames, what), compute, path, format);
}

// --what attention with an ablation or --compare: layer N's probabilities (heads x tokens x
// tokens) from the whole pass, layer 0 included, so that every array compared is computed alike.
std::optional<int> writeAblatedAttention(const QCommandLineParser &parser, const QString &path,
                                         MatrixFormat format)
{
    const qint64 layer =
        integerOption(parser, QStringLiteral("layer"), 0, limits::maxLayers - 1, 0);
    const PassArray compute = [&](ForwardPass &pass, std::span<const int> ids, bool with,
                                  const PositionAblation &ablation, QStringList *warnings) {
        ForwardOptions options;
        options.attentionLayer = layer;
        options.hiddenStates = false;
        options.logits = false;
        options.withPositions = with;
        options.positions = ablation;
        LayerZeroArray out = runPhrasePass(pass, ids, options, warnings).attentions;
        out.shape.erase(out.shape.begin()); // {1, heads, n, n} -> {heads, n, n}
        return out;
    };
    return writeForwardArray(parser, QStringLiteral("attention of layer %1").arg(layer), compute,
                             path, format);
}

// --logits all|last (none is no array to write: refused by name, as any other value).
LogitsKept logitsKeptFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("logits")))
        return LogitsKept::All;
    const QString value = parser.value(QStringLiteral("logits"));
    const std::optional<LogitsKept> kept = parseAs<LogitsKept>(logitsKeptNames, value);
    if (!kept || *kept == LogitsKept::None)
        throw UsageError{QStringLiteral("--logits must be all or last with --what logits (got "
                                        "\"%1\"; the other --what arrays are computed without "
                                        "logits)")
                             .arg(value)};
    return *kept;
}

// --what logits: every token's logits or the last token's, from the whole pass (ablated or
// compared as the options say); a model without an output matrix (BERT's encoder) is refused.
std::optional<int> writeLogits(const QCommandLineParser &parser, const QString &path,
                               MatrixFormat format)
{
    refuseOptions(parser, analysisOptionNames() + QStringList{QStringLiteral("layer")},
                  QStringLiteral("--what logits"));
    const LogitsKept kept = logitsKeptFromOptions(parser);
    const PassArray compute = [&](ForwardPass &pass, std::span<const int> ids, bool with,
                                  const PositionAblation &ablation, QStringList *warnings) {
        if (pass.outputRows() == 0)
            throw UsageError{QStringLiteral("--what logits: %1 has no output matrix, so no "
                                            "logits")
                                 .arg(pass.architecture())};
        ForwardOptions options;
        options.attentions = false;
        options.hiddenStates = false;
        keepLogits(&options, kept);
        options.withPositions = with;
        options.positions = ablation;
        return runPhrasePass(pass, ids, options, warnings).logits;
    };
    const QString name = kept == LogitsKept::Last ? QStringLiteral("logits of the last token")
                                                  : QStringLiteral("logits");
    return writeForwardArray(parser, name, compute, path, format);
}

} // namespace

std::optional<int> writePhraseData(const QCommandLineParser &parser)
{
    if (!phraseGiven(parser)) {
        refuseOptions(parser,
                      QStringList{QStringLiteral("no-positions"), QStringLiteral("logits")} +
                          analysisOptionNames() + ablationOptionNames(),
                      QStringLiteral("a spec without --phrase"));
        const QString what = parser.value(QStringLiteral("what"));
        if (parseAs<PhraseArray>(phraseArrayNames, what) ||
            parseAs<LayerAnalysis>(layerAnalysisNames, what) || what == logitsWhat())
            throw UsageError{
                QStringLiteral("--what %1 needs --model PATH --phrase TEXT").arg(what)};
        return std::nullopt;
    }
    // The output first, as every command checks it: a bad --out is named before files are read.
    refuseOtherOptions(parser);
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);
    if (parser.value(QStringLiteral("what")) == logitsWhat())
        return writeLogits(parser, path, format);
    refuseOptions(parser, {QStringLiteral("logits")},
                  QStringLiteral("--what ") + (parser.isSet(QStringLiteral("what"))
                                                   ? parser.value(QStringLiteral("what"))
                                                   : QStringLiteral("embeddings")));
    if (const std::optional<LayerAnalysis> analysis = layerAnalysisFromOptions(parser))
        return writeLayerAnalysis(parser, *analysis, path, format);
    const PhraseArray asked = phraseArrayFromOptions(parser);
    refuseOptions(parser, analysisOptionNames(),
                  QStringLiteral("--what ") + nameOf(phraseArrayNames, asked));
    if (ablationAsked(parser)) {
        if (asked != PhraseArray::Attention)
            refuseOptions(parser, ablationOptionNames(),
                          QStringLiteral("--what ") + nameOf(phraseArrayNames, asked));
        return writeAblatedAttention(parser, path, format);
    }
    const PhraseDataRequest request = phraseDataRequest(parser);
    if (!request.encodeError.isEmpty()) {
        report(dataCommand, QStringLiteral("--phrase: %1").arg(request.encodeError));
        return Failure;
    }
    reportInputs(*request.model, request.tokens);
    const std::vector<qint64> shape = request.shape();
    const QString array =
        QStringLiteral("%1 %2 (float32, %3 positions)")
            .arg(shapeText(shape), nameOf(phraseArrayNames, request.what),
                 request.withPositions ? QStringLiteral("with") : QStringLiteral("without"));
    MatrixWriter writer(path, format, shape);
    if (parser.isSet(QStringLiteral("dry-run")))
        return reportDryRun(
            dataCommand,
            QStringLiteral("write the %1 to %2 as %3").arg(array, path, formatName(format)),
            {writer.problem()});
    QElapsedTimer timer;
    timer.start();
    QString error;
    const std::optional<LayerZeroArray> values =
        request.model->compute(request.tokens, request.what, request.withPositions, &error);
    if (!values || !writer.open(&error) ||
        !writer.write(values->values.data(), qint64(values->values.size()), &error) ||
        !writer.commit(&error)) {
        report(dataCommand, error);
        return Failure;
    }
    // NaN or infinite values are written (they are what the weights give) but never in silence:
    // layer 0's result names the rows or tensors it read, a later layer's pass the tensors.
    for (const QString &warning : values->warnings)
        report(dataCommand, QStringLiteral("warning: the %1 holds NaN or infinite values: %2")
                                .arg(nameOf(phraseArrayNames, request.what), warning));
    for (const QString &warning : request.model->warnings())
        report(dataCommand, QStringLiteral("warning: ") + warning);
    report(dataCommand,
           QStringLiteral("%1 written to %2 in %3 ms").arg(array, path).arg(timer.elapsed()));
    return Success;
}

} // namespace pe::cli
