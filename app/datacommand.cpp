// `pescope data SPEC --out FILE.npy|FILE.csv`: the encoding matrix, streamed to disk; and the
// arrays of the schemes that are not position x dims matrices (RoPE inverse frequencies, ALiBi
// slopes and biases, T5 buckets).
#include "commandline.h"

#include "alibi.h"
#include "encodingexport.h"
#include "matrixwriter.h"
#include "rope.h"
#include "t5buckets.h"

#include <QElapsedTimer>

#include <unistd.h>

namespace pe::cli {

namespace {

const QString dataCommand = QStringLiteral("data");

QString optionValue(const QCommandLineParser &parser, const QString &name, const QString &fallback)
{
    return parser.isSet(name) ? parser.value(name) : fallback;
}

// Options only the bias schemes read, refused elsewhere.
QStringList biasOptionNames()
{
    return {QStringLiteral("heads"), QStringLiteral("buckets"), QStringLiteral("max-distance"),
            QStringLiteral("causal")};
}

// ALiBi, T5 and the inverse frequencies are computed here on the CPU (they are tiny or
// integer); `--backend gpu` is refused rather than quietly ignored.
void requireCpu(const QCommandLineParser &parser, const QString &what)
{
    if (backendFromOptions(parser) == BackendChoice::Gpu)
        throw UsageError{
            QStringLiteral("--backend gpu is not available for %1: it is computed on the CPU")
                .arg(what)};
}

QString formatName(MatrixFormat format)
{
    return format == MatrixFormat::Csv ? QStringLiteral("CSV") : QStringLiteral(".npy");
}

// Writes rows of a (leading..., rows, columns) array in ~16 MiB chunks; fill(first, count, out)
// produces `count` rows of `columns` values each. Nothing is left at the path on failure.
template <typename T, typename Fill>
bool streamRows(MatrixWriter &writer, qint64 blocks, qint64 rows, qint64 columns, Fill fill,
                QString *error)
{
    if (!writer.open(error))
        return false;
    const qint64 rowsPerChunk =
        std::clamp<qint64>((qint64(16) << 20) / (columns * qint64(sizeof(T))), 1, rows);
    std::vector<T> buffer(std::size_t(rowsPerChunk * columns));
    for (qint64 block = 0; block < blocks; ++block)
        for (qint64 first = 0; first < rows; first += rowsPerChunk) {
            const qint64 count = std::min(rowsPerChunk, rows - first);
            fill(block, first, count, buffer.data());
            if (!writer.write(buffer.data(), count * columns, error))
                return false;
        }
    return writer.commit(error);
}

int runRopeInverseFrequencies(const QCommandLineParser &parser)
{
    const QString context = QStringLiteral("--what inv-freq");
    refuseOptions(parser,
                  {QStringLiteral("positions"), QStringLiteral("layout"), QStringLiteral("seed")},
                  context + QStringLiteral(" (dynamic-ntk takes --current-length)"));
    requireCpu(parser, context);
    if (!parser.isSet(QStringLiteral("dims")))
        throw UsageError{QStringLiteral("--dims is required")};
    const qint64 dims = integerOption(parser, QStringLiteral("dims"), 2, limits::maxDims, 0);
    if (dims % 2 != 0)
        throw UsageError{QStringLiteral("--dims must be even for --scheme rope: each rotation "
                                        "turns a pair of columns (got %1)")
                             .arg(dims)};
    const double base = numberOption(parser, QStringLiteral("base"), 10000.0);
    if (!(base > 1.0 && base <= limits::maxBase))
        throw UsageError{
            QStringLiteral("--base must be greater than 1 and at most 1e12 (got %1)").arg(base)};
    const RopeParameters rope = ropeFromOptions(parser, 0);
    if (const QString problem = ropeProblem(dims, rope); !problem.isEmpty())
        throw UsageError{problem};
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);

    const RopeFrequencies frequencies = ropeInverseFrequencies(base, dims, rope);
    const auto count = qint64(frequencies.inverseFrequencies.size());
    MatrixWriter writer(path, format, {count}, ElementType::Float64);
    QString error;
    if (!writer.open(&error) ||
        !writer.write(frequencies.inverseFrequencies.data(), count, &error) ||
        !writer.commit(&error)) {
        report(dataCommand, error);
        return Failure;
    }
    QString note;
    if (rope.scaling == RopeScaling::Yarn)
        note = QStringLiteral("; YaRN attention factor %1")
                   .arg(frequencies.attentionFactor, 0, 'g', 17);
    report(dataCommand,
           QStringLiteral("%1 rope inverse frequencies (float64, %2 scaling%3) written to "
                          "%4 as %5, computed on the CPU")
               .arg(count)
               .arg(ropeScalingName(rope.scaling), note, path, formatName(format)));
    return Success;
}

int runAlibi(const QCommandLineParser &parser, const QString &what)
{
    const QString context = QStringLiteral("--scheme alibi");
    refuseOptions(parser,
                  ropeOptionNames() + QStringList{QStringLiteral("dims"), QStringLiteral("base"),
                                                  QStringLiteral("layout"), QStringLiteral("seed"),
                                                  QStringLiteral("buckets"),
                                                  QStringLiteral("max-distance")},
                  context);
    requireCpu(parser, context);
    if (what != QLatin1String("matrix") && what != QLatin1String("slopes"))
        throw UsageError{
            QStringLiteral("--what must be matrix or slopes for --scheme alibi (got \"%1\")")
                .arg(what)};
    if (!parser.isSet(QStringLiteral("heads")))
        throw UsageError{QStringLiteral("--heads is required with --scheme alibi")};
    const qint64 heads = integerOption(parser, QStringLiteral("heads"), 1, limits::maxHeads, 0);
    const bool slopesOnly = what == QLatin1String("slopes");
    if (slopesOnly)
        refuseOptions(parser, {QStringLiteral("positions"), QStringLiteral("causal")},
                      QStringLiteral("--what slopes"));
    else if (!parser.isSet(QStringLiteral("positions")))
        throw UsageError{QStringLiteral("--positions is required with --scheme alibi")};
    const qint64 positions =
        slopesOnly ? 0
                   : integerOption(parser, QStringLiteral("positions"), 1, limits::maxPositions, 0);
    const bool causal = parser.isSet(QStringLiteral("causal"));
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);

    const std::vector<double> slopes = alibiSlopes(heads);
    QElapsedTimer timer;
    timer.start();
    QString error;
    bool ok = false;
    if (slopesOnly) {
        MatrixWriter writer(path, format, {heads}, ElementType::Float64);
        ok = writer.open(&error) && writer.write(slopes.data(), heads, &error) &&
             writer.commit(&error);
    } else {
        // H x N x N float32, streamed a few rows at a time: memory stays flat whatever N is.
        MatrixWriter writer(path, format, {heads, positions, positions});
        ok = streamRows<float>(
            writer, heads, positions, positions,
            [&](qint64 head, qint64 first, qint64 count, float *out) {
                alibiBiasRows(slopes[std::size_t(head)], positions, first, count, causal, out);
            },
            &error);
    }
    if (!ok) {
        report(dataCommand, error);
        return Failure;
    }
    report(dataCommand,
           slopesOnly
               ? QStringLiteral("%1 ALiBi slopes (float64) written to %2, computed on the CPU")
                     .arg(heads)
                     .arg(path)
               : QStringLiteral("%1 x %2 x %2 %3ALiBi biases (float32) written to %4, computed on "
                                "the CPU in %5 ms")
                     .arg(heads)
                     .arg(positions)
                     .arg(causal ? QStringLiteral("causal ") : QString(), path)
                     .arg(timer.elapsed()));
    return Success;
}

int runT5(const QCommandLineParser &parser, const QString &what)
{
    const QString context = QStringLiteral("--scheme t5");
    refuseOptions(parser,
                  ropeOptionNames() + QStringList{QStringLiteral("dims"), QStringLiteral("base"),
                                                  QStringLiteral("layout"), QStringLiteral("seed"),
                                                  QStringLiteral("heads")},
                  context);
    requireCpu(parser, context);
    if (what != QLatin1String("matrix"))
        throw UsageError{
            QStringLiteral("--what must be matrix for --scheme t5 (got \"%1\")").arg(what)};
    if (!parser.isSet(QStringLiteral("positions")))
        throw UsageError{QStringLiteral("--positions is required with --scheme t5")};
    const qint64 positions =
        integerOption(parser, QStringLiteral("positions"), 1, limits::maxPositions, 0);
    T5BucketParameters buckets;
    buckets.buckets =
        integerOption(parser, QStringLiteral("buckets"), 2, limits::maxT5Buckets, buckets.buckets);
    buckets.maxDistance = integerOption(parser, QStringLiteral("max-distance"), 1,
                                        limits::maxT5Distance, buckets.maxDistance);
    buckets.bidirectional = !parser.isSet(QStringLiteral("causal"));
    if (buckets.bidirectional && buckets.buckets < 4)
        throw UsageError{QStringLiteral("--buckets must be at least 4 without --causal: each "
                                        "direction gets half, and half of those are exact (got %1)")
                             .arg(buckets.buckets)};
    const qint64 maxExact = (buckets.bidirectional ? buckets.buckets / 2 : buckets.buckets) / 2;
    if (buckets.maxDistance <= maxExact)
        throw UsageError{QStringLiteral("--max-distance must be greater than the %1 exact buckets "
                                        "(got %2)")
                             .arg(maxExact)
                             .arg(buckets.maxDistance)};
    if (const QString problem = t5Problem(buckets); !problem.isEmpty())
        throw UsageError{problem};
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
    const MatrixFormat format = matrixFormatFromOptions(parser, path);

    QElapsedTimer timer;
    timer.start();
    MatrixWriter writer(path, format, {positions, positions}, ElementType::Int32);
    QString error;
    const bool ok = streamRows<qint32>(
        writer, 1, positions, positions,
        [&](qint64, qint64 first, qint64 count, qint32 *out) {
            t5BucketRows(buckets, positions, first, count, out);
        },
        &error);
    if (!ok) {
        report(dataCommand, error);
        return Failure;
    }
    report(dataCommand, QStringLiteral("%1 x %1 T5 bucket ids (int32, %2 buckets, max distance %3, "
                                       "%4) written to %5, computed on the CPU in %6 ms")
                            .arg(positions)
                            .arg(buckets.buckets)
                            .arg(buckets.maxDistance)
                            .arg(buckets.bidirectional ? QStringLiteral("bidirectional")
                                                       : QStringLiteral("causal"),
                                 path)
                            .arg(timer.elapsed()));
    return Success;
}

} // namespace

int runData(const QStringList &args)
{
    const QString command = QStringLiteral("data");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes the positions x dims float32 encoding matrix to .npy or .csv, in chunks; or "
        "RoPE's float64 inverse frequencies (--what inv-freq), ALiBi's heads x N x N float32 "
        "biases or float64 slopes (--what slopes), T5's N x N int32 bucket ids."));
    parser.addHelpOption();
    addSpecOptions(parser);
    parser.addOption({QStringLiteral("out"), QStringLiteral("Output file: .npy or .csv."),
                      QStringLiteral("FILE")});
    parser.addOption(formatOption());
    parser.addOptions({
        {QStringLiteral("what"),
         QStringLiteral("matrix (default); rope: inv-freq (float64 inverse frequencies); alibi: "
                        "slopes (float64)."),
         QStringLiteral("WHAT")},
        {QStringLiteral("heads"), QStringLiteral("alibi: attention heads, 1 to 4096."),
         QStringLiteral("H")},
        {QStringLiteral("buckets"), QStringLiteral("t5: relative position buckets (default 32)."),
         QStringLiteral("N")},
        {QStringLiteral("max-distance"),
         QStringLiteral("t5: distances from here on share the last bucket (default 128)."),
         QStringLiteral("N")},
        {QStringLiteral("causal"),
         QStringLiteral("t5: decoder buckets; alibi: mask keys after the query with -inf.")},
    });
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(Success);

    // The bias schemes and RoPE's frequencies are arrays of their own shapes; the matrix
    // schemes (sinusoidal, learned, rope) share the streaming path below.
    const QString scheme =
        optionValue(parser, QStringLiteral("scheme"), QStringLiteral("sinusoidal"));
    const QString what = optionValue(parser, QStringLiteral("what"), QStringLiteral("matrix"));
    if (scheme == QLatin1String("alibi"))
        return runAlibi(parser, what);
    if (scheme == QLatin1String("t5"))
        return runT5(parser, what);
    if (!parseScheme(scheme))
        throw UsageError{
            QStringLiteral("--scheme must be sinusoidal, learned, rope, alibi or t5 (got \"%1\")")
                .arg(scheme)};
    refuseOptions(parser, biasOptionNames(), QStringLiteral("--scheme ") + scheme);
    if (scheme == QLatin1String("rope") && what == QLatin1String("inv-freq"))
        return runRopeInverseFrequencies(parser);
    if (what != QLatin1String("matrix"))
        throw UsageError{QStringLiteral("--what must be %1 for --scheme %2 (got \"%3\")")
                             .arg(scheme == QLatin1String("rope")
                                      ? QStringLiteral("matrix or inv-freq")
                                      : QStringLiteral("matrix"),
                                  scheme, what)};

    const EncodingSpec spec = specFromOptions(parser);
    const BackendChoice choice = backendFromOptions(parser);
    const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});

    QString why;
    const std::unique_ptr<Backend> backend = makeBackend(choice, &why);
    if (!backend) {
        report(
            command,
            QStringLiteral("the %1 backend cannot start: %2").arg(backendChoiceName(choice), why));
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
    if (const QString notice = backend->notice(); !notice.isEmpty())
        report(command, notice); // e.g. the GPU failed and the CPU took over
    if (!ok) {
        report(command, error);
        return Failure;
    }
    // HF multiplies YaRN's cos and sin by its attention factor; the table holds them unscaled.
    const QString note = spec.scheme == Scheme::Rope && spec.rope.scaling == RopeScaling::Yarn
                             ? QStringLiteral(" (cos/sin not multiplied by YaRN's attention "
                                              "factor %1)")
                                   .arg(ropeYarnAttentionFactor(spec.rope.factor), 0, 'g', 17)
                             : QString();
    report(command,
           QStringLiteral("%1 x %2 %3 matrix written to %4 by the %5 backend (%6) in %7 ms%8")
               .arg(spec.positions)
               .arg(spec.dims)
               .arg(schemeName(spec.scheme), path, backend->id(), backend->description())
               .arg(timer.elapsed())
               .arg(note));
    return Success;
}

} // namespace pe::cli
