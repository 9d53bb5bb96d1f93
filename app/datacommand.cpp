// `pescope data SPEC [--what NAME] --out FILE.npy|FILE.csv`: one of the scheme's arrays (its
// outputs()), streamed to disk. The matrix is computed by the chosen backend in chunks; the
// other arrays (frequencies, slopes, bias stacks) by the scheme's own formula on the CPU.
#include "commandline.h"

#include "formats/modeltensors.h"
#include "io/encodingexport.h"
#include "io/matrixwriter.h"
#include "io/userfile.h"
#include "model/positiontable.h"
#include "rope/ropetables.h"
#include "rope/ropeverify.h"

#include <QElapsedTimer>

#include <QRegularExpression>

#include <algorithm>

#include <unistd.h>

namespace pe::cli {

namespace {

const QString dataCommand = QStringLiteral("data");

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

// --position-ids: at most this many rows, and a file of ids at most this large.
constexpr qint64 maxPositionIds = qint64(1) << 22;
constexpr qint64 maxPositionIdBytes = qint64(64) << 20;

// HF's cos or sin table for the given position ids, one row each: pair i turns with the id of
// its mrope axis (all pairs with t when the config has no mrope_section). As HF's forward does
// (dynamic_rope_update), the rules that read the sequence length see max(id) + 1.
DataOutput positionIdsTable(const EncodingSpec &spec, const QString &what,
                            std::vector<MropePositionIds> ids, bool scaled)
{
    const RopeScheme *rope = spec.get<RopeScheme>();
    const std::optional<RopeTableKind> kind = parseAs<RopeTableKind>(ropeTableKindNames, what);
    if (!rope || !kind || *kind == RopeTableKind::CosSin)
        throw UsageError{QStringLiteral("--position-ids applies to --what cos or sin of a rotary "
                                        "spec (got --what %1 of --scheme %2)")
                             .arg(what, spec.schemeId())};
    RopeConfig config = *rope;
    qint64 longest = 0;
    for (const MropePositionIds &id : ids)
        longest = std::max({longest, id.temporal, id.height, id.width});
    config.sequenceLength = longest + 1;
    if (const QString note = ropeSequenceLengthNote(spec.dims, config,
                                                    QStringLiteral("--position-ids: max(id) + 1"));
        !note.isEmpty())
        report(dataCommand, note);
    DataOutput out;
    out.name = what;
    out.help = QStringLiteral("HF's %1 table for the given (t, h, w) position ids").arg(what);
    out.type = ElementType::Float64;
    out.shape = {qint64(ids.size()), ropeTableColumns(spec.dims, config)};
    out.usesPositions = false;
    out.rows = [ids = std::move(ids), config, dims = spec.dims, kind = *kind,
                scaled](qint64 first, qint64 count, void *values) {
        const RopeTable table = ropeMropeTable(
            dims, config, kind,
            std::span<const MropePositionIds>(ids).subspan(std::size_t(first), std::size_t(count)),
            scaled);
        std::copy(table.values.begin(), table.values.end(), static_cast<double *>(values));
    };
    return out;
}

// ", positions from row 2 (rows 0-1 are no positions: padding_idx + 1 ...)" for a table whose
// position 0 is not its first row.
QString offsetText(const PositionTable &t)
{
    return QStringLiteral(", positions from row %1 (rows 0-%2 are no positions%3)")
        .arg(t.offset)
        .arg(t.offset - 1)
        .arg(t.offsetReason.isEmpty() ? QString() : QStringLiteral(": ") + t.offsetReason);
}

// `--model M [--tensor T] [--table-offset N] --what positions --out F`: the stored table's
// positions (its rows from the offset on), straight from the mapped file to the output (F32) or
// converted a chunk at a time, never held whole in memory. nullopt when other options are set: the
// general path checks and refuses them.
std::optional<int> writeStoredTable(const QCommandLineParser &parser)
{
    const QStringList plain = {QStringLiteral("model"),        QStringLiteral("tensor"),
                               QStringLiteral("table-offset"), QStringLiteral("what"),
                               QStringLiteral("out"),          QStringLiteral("format"),
                               QStringLiteral("dry-run")};
    if (parser.value(QStringLiteral("what")) != QLatin1String("positions") ||
        !parser.isSet(QStringLiteral("model")))
        return std::nullopt;
    for (const QString &name : parser.optionNames())
        if (!plain.contains(name))
            return std::nullopt;
    QElapsedTimer timer;
    timer.start();
    QString error;
    const qint64 offset =
        integerOption(parser, QStringLiteral("table-offset"), 0, limits::maxPositions, -1);
    std::optional<PositionTableSource> found =
        locatePositionTable(parser.value(QStringLiteral("model")),
                            parser.value(QStringLiteral("tensor")), offset, &error);
    if (!found)
        throw UsageError{error};
    const PositionTable &t = found->table;
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);
    // Positions only: rows before the offset (OPT's 2, RoBERTa's padding_idx + 1) are none.
    const qint64 positions = t.positions();
    report(dataCommand, QStringLiteral("%1 of %2: %3 x %4 %5%6")
                            .arg(t.tensor, t.file)
                            .arg(t.rows)
                            .arg(t.columns)
                            .arg(t.typeName, t.offset > 0 ? offsetText(t) : QString()));
    MatrixWriter writer(path, format, {positions, t.columns}, ElementType::Float32);
    if (parser.isSet(QStringLiteral("dry-run")))
        return reportDryRun(dataCommand,
                            QStringLiteral("write the %1 x %2 table of positions (float32) to %3 "
                                           "as %4")
                                .arg(positions)
                                .arg(t.columns)
                                .arg(path, formatName(format)),
                            {writer.problem()});
    bool ok = writer.open(&error);
    if (ok) {
        // CSV rows must reach the writer whole: chunks are a multiple of the row length.
        const qint64 chunk =
            std::max<qint64>(1, (qint64(4) << 20) / (t.columns * 4)) * t.columns * 4;
        qint64 skip = t.offset * t.columns; // values before position 0
        ok = found->tensors->streamRows(
                 t.tensor,
                 [&](const float *values, qint64 count) {
                     const qint64 skipped = std::min(skip, count);
                     skip -= skipped;
                     return count == skipped ||
                            writer.write(values + skipped, count - skipped, &error);
                 },
                 &error, chunk) &&
             writer.commit(&error);
    }
    if (!ok) {
        report(dataCommand, error);
        return Failure;
    }
    report(dataCommand,
           QStringLiteral("%1 x %2 table of positions (float32) written to %3 as %4%5, "
                          "read from the file in %6 ms")
               .arg(positions)
               .arg(t.columns)
               .arg(path, formatName(format),
                    t.offset > 0 ? QStringLiteral(" (rows %1 to %2 of the stored %3)")
                                       .arg(t.offset)
                                       .arg(t.rows - 1)
                                       .arg(t.rows)
                                 : QString())
               .arg(timer.elapsed()));
    return Success;
}

// The sequence length the dynamic and longrope rules saw and what it gave, and the layout of
// HF's cos / sin tables: every output that depends on them says so.
void reportRopeLength(const RopeScheme &rope, const EncodingSpec &spec, const DataOutput &output,
                      bool positionIds)
{
    const bool table = output.name == QLatin1String("cos") || output.name == QLatin1String("sin");
    if (table)
        report(dataCommand, QStringLiteral("layout: %1%2")
                                .arg(ropeLayoutDescription(rope.pairing == RopePairing::Half
                                                               ? RopeLayout::Half
                                                               : RopeLayout::Interleaved,
                                                           ropeFrequencyCount(spec.dims, rope)),
                                     rope.pairing == RopePairing::Interleaved
                                         ? QStringLiteral(", the model's own pairing")
                                         : QString()));
    if (positionIds)
        return; // positionIdsTable says max(id) + 1 in its help
    RopeConfig config = rope.config({spec.positions, spec.dims});
    const QString origin = rope.lengthAsLoaded
                               ? QStringLiteral("no --positions")
                               : QStringLiteral("--positions: HF's forward over positions 0..%1")
                                     .arg(spec.positions - 1);
    if (const QString note = ropeSequenceLengthNote(spec.dims, config, origin); !note.isEmpty())
        report(dataCommand, note);
}

int writeMatrix(BackendChoice choice, const EncodingSpec &spec, const QString &path,
                MatrixFormat format)
{
    QString why;
    // Auto weighs starting the GPU against the whole matrix.
    const std::unique_ptr<Backend> backend = makeBackend(choice, &why, {spec.byteCount()});
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

void addDataOptions(OptionSet &options)
{
    addSpecOptions(options);
    options.addPlain({QStringLiteral("what"),
                      QStringLiteral("Which array: matrix (default); rope: inv-freq; alibi: "
                                     "slopes. The first array of each scheme is its default. "
                                     "With --phrase: embeddings (default), attention, or a "
                                     "layer analysis: distance, head-scores, sinks, "
                                     "frequency-atlas, norms, top-activations, probe; "
                                     "logits (--logits all|last)."),
                      QStringLiteral("NAME")});
    addModelOptions(options);
    addPhraseDataOptions(options);
    options.addPlain({QStringLiteral("scaled-table"),
                      QStringLiteral("rope: --what cos and sin multiplied by the attention factor, "
                                     "as Hugging Face's rotary forward returns them.")});
    options.addPlain(
        {QStringLiteral("position-ids"),
         QStringLiteral("rope, --what cos or sin: one row per position id instead of 0..N-1. "
                        "IDS is \"T,H,W;T,H,W;...\" - mrope's temporal, height and width ids "
                        "(Qwen-VL); one number p is a text token, t = h = w = p - or @FILE with "
                        "the same entries, one per line (# comments). The sequence length HF's "
                        "rules see is max(id) + 1."),
         QStringLiteral("IDS|@FILE")});
    options.addPlain({QStringLiteral("out"), QStringLiteral("Output file: .npy or .csv."),
                      QStringLiteral("FILE")});
    options.addPlain(formatOption());
    options.addPlain(dryRunOption());
}

std::vector<MropePositionIds> parsePositionIds(const QString &option)
{
    QString text = option;
    QString origin = QStringLiteral("--position-ids");
    if (option.startsWith(QLatin1Char('@'))) {
        QString error;
        const std::optional<QByteArray> bytes =
            readUserFile(option.mid(1), maxPositionIdBytes, &error,
                         QStringLiteral("a file of "
                                        "position ids"));
        if (!bytes)
            throw UsageError{QStringLiteral("--position-ids: %1").arg(error)};
        text = QString::fromUtf8(*bytes);
        origin = option.mid(1);
    }
    std::vector<MropePositionIds> ids;
    static const QRegularExpression entrySeparator(QStringLiteral("[;\\n]"));
    static const QRegularExpression numberSeparator(QStringLiteral("[,\\s]+"));
    const QStringList entries = text.split(entrySeparator);
    for (qsizetype e = 0; e < entries.size(); ++e) {
        QString entry = entries[e];
        if (const qsizetype hash = entry.indexOf(QLatin1Char('#')); hash >= 0)
            entry.truncate(hash);
        entry = entry.trimmed();
        if (entry.isEmpty())
            continue;
        const QStringList numbers = entry.split(numberSeparator, Qt::SkipEmptyParts);
        std::vector<qint64> values;
        for (const QString &n : numbers) {
            bool ok = false;
            const qint64 v = n.toLongLong(&ok);
            if (!ok || v < 0 || v >= ropeMaxContext)
                throw UsageError{QStringLiteral("%1: entry %2 (\"%3\"): \"%4\" is not a position "
                                                "id (a whole number from 0 to %5)")
                                     .arg(origin)
                                     .arg(ids.size() + 1)
                                     .arg(entry.left(80), n.left(40))
                                     .arg(ropeMaxContext - 1)};
            values.push_back(v);
        }
        if (values.size() != 1 && values.size() != 3)
            throw UsageError{QStringLiteral("%1: entry %2 (\"%3\") has %4 numbers; give one id "
                                            "(t = h = w) or three: t,h,w")
                                 .arg(origin)
                                 .arg(ids.size() + 1)
                                 .arg(entry.left(80))
                                 .arg(values.size())};
        if (qint64(ids.size()) >= maxPositionIds)
            throw UsageError{
                QStringLiteral("%1: more than %2 position ids").arg(origin).arg(maxPositionIds)};
        ids.push_back(values.size() == 1 ? MropePositionIds{values[0], values[0], values[0]}
                                         : MropePositionIds{values[0], values[1], values[2]});
    }
    if (ids.empty())
        throw UsageError{QStringLiteral("%1: no position ids").arg(origin)};
    return ids;
}

DataOutput dataOutputFromOptions(const QCommandLineParser &parser, EncodingSpec &spec)
{
    const QString positions = QStringLiteral("positions");
    // Without --positions the rules that read the sequence length see what transformers'
    // rotary module holds once loaded (seq_len None): longrope's short factors, dynamic's base.
    if (auto *rope = std::get_if<RopeScheme>(&spec.scheme))
        rope->lengthAsLoaded = !parser.isSet(positions);
    DataOutput output = chosenOutput(parser, spec);
    if (parser.isSet(QStringLiteral("position-ids"))) {
        refuseOptions(parser, {positions},
                      QStringLiteral("--position-ids (the ids are the rows; HF's sequence length "
                                     "is max(id) + 1)"));
        output = positionIdsTable(spec, output.name,
                                  parsePositionIds(parser.value(QStringLiteral("position-ids"))),
                                  parser.isSet(QStringLiteral("scaled-table")));
    } else if (parser.isSet(QStringLiteral("scaled-table"))) {
        output = scaledTable(spec, output);
    }
    // Without --positions / --dims the window's defaults hold (EncodingSpec's 200 x 128; ALiBi
    // and T5 draw 200 x 200), so `pescope data --out F` writes what the window first shows.
    if (!output.usesPositions)
        refuseOptions(parser, {positions}, QStringLiteral("--what ") + output.name);
    return output;
}

int runData(const QStringList &args)
{
    if (namesView(args))
        return runViewData(args);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes one array of a positional scheme to .npy or .csv, in chunks: by default the "
        "positions x dims float32 matrix; --what names another (RoPE's inverse frequencies, "
        "ALiBi's slopes). Without --positions and --dims: the window's 200 x 128 (ALiBi and "
        "T5: 200 x 200).\n"
        "--view NAME writes a view's numbers instead, with `pescope export`'s options (see "
        "`pescope export --help`): pescope data --view heatmap --out H.npy."));
    parser.addHelpOption();
    OptionSet options;
    addDataOptions(options);
    options.addTo(parser);
    parseCommand(parser, args);

    if (const std::optional<int> phrase = writePhraseData(parser))
        return *phrase;
    if (const std::optional<int> stored = writeStoredTable(parser))
        return *stored;
    const std::optional<ModelLayerSpec> model = modelSpecFromOptions(parser);
    EncodingSpec spec = model ? model->spec : specFromOptions(parser);
    const DataOutput output = dataOutputFromOptions(parser, spec);
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);
    if (model)
        report(dataCommand, model->description);
    if (const RopeScheme *rope = spec.get<RopeScheme>())
        reportRopeLength(*rope, spec, output, parser.isSet(QStringLiteral("position-ids")));
    const BackendChoice choice = backendFromOptions(parser);
    // The scheme's formula, on the CPU: `--backend gpu` is refused rather than quietly ignored.
    if (output.rows && choice == BackendChoice::Gpu)
        throw UsageError{QStringLiteral("--backend gpu is not available for --what %1 of --scheme "
                                        "%2: it is computed on the CPU")
                             .arg(output.name, spec.schemeId())};
    if (parser.isSet(QStringLiteral("dry-run"))) {
        if (!output.rows)
            return reportDryRun(
                dataCommand,
                QStringLiteral("write the %1 x %2 %3 matrix to %4 as %5 "
                               "(backend: %6)")
                    .arg(spec.positions)
                    .arg(spec.dims)
                    .arg(spec.schemeId(), path, formatName(format), backendChoiceName(choice)),
                {MatrixWriter(path, format, {spec.positions, spec.dims}).problem()});
        return reportDryRun(dataCommand,
                            QStringLiteral("write %1 %2 %3 (%4) to %5 as %6, computed on the CPU")
                                .arg(shapeText(output.shape), spec.schemeId(), output.name,
                                     typeName(output.type), path, formatName(format)),
                            {MatrixWriter(path, format, output.shape, output.type).problem()});
    }
    if (!output.rows) // the matrix itself, through a backend
        return writeMatrix(choice, spec, path, format);

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
