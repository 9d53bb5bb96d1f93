// `pescope data SPEC [--what NAME] --out FILE.npy|FILE.csv`: one of the scheme's arrays (its
// outputs()), streamed to disk. The matrix is computed by the chosen backend in chunks; the
// other arrays (frequencies, slopes, bias stacks) by the scheme's own formula on the CPU.
#include "commandline.h"

#include "encodingexport.h"
#include "matrixwriter.h"

#include <QElapsedTimer>

#include <algorithm>

#include <unistd.h>

namespace pe::cli {

namespace {

const QString dataCommand = QStringLiteral("data");

QString formatName(MatrixFormat format)
{
    return format == MatrixFormat::Csv ? QStringLiteral("CSV") : QStringLiteral(".npy");
}

QString typeName(ElementType type)
{
    switch (type) {
    case ElementType::Float64:
        return QStringLiteral("float64");
    case ElementType::Int32:
        return QStringLiteral("int32");
    case ElementType::Float32:
        break;
    }
    return QStringLiteral("float32");
}

QString shapeText(const std::vector<qint64> &shape)
{
    QStringList parts;
    for (qint64 n : shape)
        parts.append(QString::number(n));
    return parts.join(QStringLiteral(" x "));
}

// Streams an output computed by its rows() function in ~16 MiB chunks: memory stays flat
// whatever the shape. Nothing is left at the path on failure.
template <typename T>
bool streamOutput(MatrixWriter &writer, const DataOutput &output, QString *error)
{
    if (!writer.open(error))
        return false;
    const qint64 columns = output.shape.back();
    qint64 rows = 1;
    for (std::size_t i = 0; i + 1 < output.shape.size(); ++i)
        rows *= output.shape[i];
    const qint64 rowsPerChunk =
        std::clamp<qint64>((qint64(16) << 20) / (columns * qint64(sizeof(T))), 1, rows);
    std::vector<T> buffer(std::size_t(rowsPerChunk * columns));
    for (qint64 first = 0; first < rows; first += rowsPerChunk) {
        const qint64 count = std::min(rowsPerChunk, rows - first);
        output.rows(first, count, buffer.data());
        if (!writer.write(buffer.data(), count * columns, error))
            return false;
    }
    return writer.commit(error);
}

bool writeOutput(MatrixWriter &writer, const DataOutput &output, QString *error)
{
    switch (output.type) {
    case ElementType::Float64:
        return streamOutput<double>(writer, output, error);
    case ElementType::Int32:
        return streamOutput<qint32>(writer, output, error);
    case ElementType::Float32:
        break;
    }
    return streamOutput<float>(writer, output, error);
}

// The output `--what` names, or the scheme's first.
DataOutput chosenOutput(const QCommandLineParser &parser, const EncodingSpec &spec)
{
    const std::vector<DataOutput> outputs = spec.outputs();
    if (!parser.isSet(QStringLiteral("what")))
        return outputs.front();
    const QString what = parser.value(QStringLiteral("what"));
    QStringList names;
    for (const DataOutput &output : outputs) {
        if (output.name == what)
            return output;
        names.append(output.name);
    }
    throw UsageError{QStringLiteral("--what must be %1 for --scheme %2 (got \"%3\")")
                         .arg(names.join(QStringLiteral(" or ")), spec.schemeId(), what)};
}

// `output` (HF's cos or sin table) multiplied by the spec's attention factor, as HF's rotary
// forward returns it (`cos = emb.cos() * self.attention_scaling`).
DataOutput scaledTable(const EncodingSpec &spec, DataOutput output)
{
    const std::vector<DataOutput> outputs = spec.outputs();
    const auto factor = std::find_if(outputs.cbegin(), outputs.cend(), [](const DataOutput &o) {
        return o.name == QLatin1String("attention-factor");
    });
    const bool table = output.name == QLatin1String("cos") || output.name == QLatin1String("sin");
    if (factor == outputs.cend() || !table)
        throw UsageError{QStringLiteral("--scaled-table applies to --what cos or sin of --scheme "
                                        "rope (got --what %1 of --scheme %2)")
                             .arg(output.name, spec.schemeId())};
    double scale = 1.0;
    factor->rows(0, 1, &scale);
    output.help += QStringLiteral(", times the attention factor");
    output.rows = [rows = output.rows, columns = output.shape.back(),
                   scale](qint64 first, qint64 count, void *out) {
        rows(first, count, out);
        auto *values = static_cast<double *>(out);
        std::transform(values, values + count * columns, values,
                       [scale](double v) { return v * scale; });
    };
    return output;
}

int writeMatrix(const QCommandLineParser &parser, const EncodingSpec &spec, const QString &path,
                MatrixFormat format)
{
    const BackendChoice choice = backendFromOptions(parser);
    QString why;
    const std::unique_ptr<Backend> backend = makeBackend(choice, &why);
    if (!backend) {
        report(
            dataCommand,
            QStringLiteral("the %1 backend cannot start: %2").arg(backendChoiceName(choice), why));
        return Failure;
    }
    MatrixWriter writer(path, format, {spec.positions, spec.dims});
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
    if (const QString notice = backend->notice(); !notice.isEmpty())
        report(dataCommand, notice); // e.g. the GPU failed and the CPU took over
    if (!ok) {
        report(dataCommand, error);
        return Failure;
    }
    report(dataCommand,
           QStringLiteral("%1 x %2 %3 matrix written to %4 by the %5 backend (%6) in %7 ms")
               .arg(spec.positions)
               .arg(spec.dims)
               .arg(spec.schemeId(), path, backend->id(), backend->description())
               .arg(timer.elapsed()));
    return Success;
}

} // namespace

int runData(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes one array of a positional scheme to .npy or .csv, in chunks: by default the "
        "positions x dims float32 matrix; --what names another (RoPE's inverse frequencies, "
        "ALiBi's slopes)."));
    parser.addHelpOption();
    OptionSet options;
    addSpecOptions(options);
    options.addPlain({QStringLiteral("what"),
                      QStringLiteral("Which array: matrix (default); rope: inv-freq; alibi: "
                                     "slopes. The first array of each scheme is its default."),
                      QStringLiteral("NAME")});
    addModelOptions(options);
    options.addPlain({QStringLiteral("scaled-table"),
                      QStringLiteral("rope: --what cos and sin multiplied by the attention factor, "
                                     "as Hugging Face's rotary forward returns them.")});
    options.addPlain({QStringLiteral("out"), QStringLiteral("Output file: .npy or .csv."),
                      QStringLiteral("FILE")});
    options.addPlain(formatOption());
    options.addTo(parser);
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help")))
        showHelp(parser, args);

    const std::optional<ModelLayerSpec> model = modelSpecFromOptions(parser);
    const EncodingSpec spec = model ? model->spec : specFromOptions(parser);
    DataOutput output = chosenOutput(parser, spec);
    if (parser.isSet(QStringLiteral("scaled-table")))
        output = scaledTable(spec, output);
    const QString positions = QStringLiteral("positions");
    if (output.usesPositions && !parser.isSet(positions) && !model) // a model has its own
        throw UsageError{QStringLiteral("--positions is required")};
    if (!output.usesPositions)
        refuseOptions(parser, {positions}, QStringLiteral("--what ") + output.name);
    if (!model && spec.info().usesDims && !parser.isSet(QStringLiteral("dims")))
        throw UsageError{QStringLiteral("--dims is required")};
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);
    if (model)
        report(dataCommand, model->description);
    if (!output.rows) // the matrix itself, through a backend
        return writeMatrix(parser, spec, path, format);

    // The scheme's formula, on the CPU: `--backend gpu` is refused rather than quietly ignored.
    if (backendFromOptions(parser) == BackendChoice::Gpu)
        throw UsageError{QStringLiteral("--backend gpu is not available for --what %1 of --scheme "
                                        "%2: it is computed on the CPU")
                             .arg(output.name, spec.schemeId())};
    QElapsedTimer timer;
    timer.start();
    MatrixWriter writer(path, format, output.shape, output.type);
    QString error;
    if (!writeOutput(writer, output, &error)) {
        report(dataCommand, error);
        return Failure;
    }
    report(dataCommand, QStringLiteral("%1 %2 %3 (%4) written to %5 as %6, computed on the CPU in "
                                       "%7 ms")
                            .arg(shapeText(output.shape), spec.schemeId(), output.name,
                                 typeName(output.type), path, formatName(format))
                            .arg(timer.elapsed()));
    return Success;
}

} // namespace pe::cli
