// `pescope data --model M --phrase TEXT --what embeddings|attention [--layer 0] [--no-positions]
// --out FILE.npy`: a typed phrase through the model's own tokenizer (its default special tokens)
// and layer 0 (core/model/phrasemodel.h): transformers' hidden_states[0] (tokens x hidden) or
// layer 0's attention probabilities (heads x tokens x tokens), float32. A phrase longer than the
// model takes is refused (exit 2) rather than cut: a script gets the array of the text it gave
// or none. The window caps instead, saying so.
#include "commandline.h"

#include "model/phrasemodel.h"

#include <QElapsedTimer>

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
        QStringLiteral("model"), QStringLiteral("phrase"), QStringLiteral("phrase-file"),
        QStringLiteral("what"),  QStringLiteral("layer"),  QStringLiteral("no-positions"),
        QStringLiteral("out"),   QStringLiteral("format"), QStringLiteral("dry-run")};
    for (const QString &name : parser.optionNames())
        if (!accepted.contains(name))
            throw UsageError{QStringLiteral("--%1 does not apply to --phrase (the model's own "
                                            "tokenizer and weights decide)")
                                 .arg(name)};
    if (!parser.isSet(QStringLiteral("model")))
        throw UsageError{QStringLiteral("--phrase needs --model PATH|REPO_ID: a model folder "
                                        "with tokenizer.json, config.json and safetensors")};
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

std::unique_ptr<PhraseModel> openPhraseModel(const QCommandLineParser &parser)
{
    // The layer the attention is of: layer 0's input is the embedding output; a later one needs
    // every layer before it, which pescope does not compute (LayerZero says so).
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
                                     "tokenizer (its default special tokens) and layer 0. --what "
                                     "embeddings (default): hidden_states[0], tokens x hidden; "
                                     "attention: layer 0's probabilities, heads x tokens x "
                                     "tokens. A phrase longer than the model takes is refused."),
                      QStringLiteral("TEXT")});
    options.addPlain({QStringLiteral("phrase-file"),
                      QStringLiteral("The same as --phrase with the phrase read from a UTF-8 "
                                     "file, exactly as it is (\"-\": standard input)."),
                      QStringLiteral("PATH")});
    options.addPlain({QStringLiteral("no-positions"),
                      QStringLiteral("With --phrase: the same without the model's positions (no "
                                     "rotation in a RoPE layer, no position table added at an "
                                     "absolute model's input).")});
}

PhraseDataRequest phraseDataRequest(const QCommandLineParser &parser)
{
    refuseOtherOptions(parser);
    PhraseDataRequest request;
    request.what = phraseArrayFromOptions(parser);
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

std::optional<int> writePhraseData(const QCommandLineParser &parser)
{
    if (!phraseGiven(parser)) {
        refuseOptions(parser, {QStringLiteral("no-positions")},
                      QStringLiteral("a spec without --phrase"));
        const QString what = parser.value(QStringLiteral("what"));
        if (parseAs<PhraseArray>(phraseArrayNames, what))
            throw UsageError{
                QStringLiteral("--what %1 needs --model PATH --phrase TEXT").arg(what)};
        return std::nullopt;
    }
    // The output first, as every command checks it: a bad --out is named before files are read.
    refuseOtherOptions(parser);
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);
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
    // NaN or infinite values are written (they are what the weights give) but never in silence.
    for (const QString &warning : values->warnings)
        report(dataCommand, QStringLiteral("warning: the %1 holds NaN or infinite values: %2")
                                .arg(nameOf(phraseArrayNames, request.what), warning));
    report(dataCommand,
           QStringLiteral("%1 written to %2 in %3 ms").arg(array, path).arg(timer.elapsed()));
    return Success;
}

} // namespace pe::cli
