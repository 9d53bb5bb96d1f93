#include "commandline.h"

#include "io/atomicfile.h"
#include "rope.h"

#include <QFileInfo>

#include <cmath>
#include <cstdio>
#include <limits>

namespace pe::cli {

void parseOrThrow(QCommandLineParser &parser, const QStringList &args)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    if (!parser.parse(args))
        throw UsageError{parser.errorText()};
    if (!parser.positionalArguments().isEmpty())
        throw UsageError{QStringLiteral("unexpected argument \"%1\"")
                             .arg(parser.positionalArguments().constFirst())};
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

void addSpecOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("scheme"),
         QStringLiteral("sinusoidal (default), learned or rope; data also takes alibi and t5."),
         QStringLiteral("NAME")},
        {QStringLiteral("positions"), QStringLiteral("Rows: 1 to 16777216."), QStringLiteral("N")},
        {QStringLiteral("dims"), QStringLiteral("Columns: 1 to 65536."), QStringLiteral("D")},
        {QStringLiteral("base"), QStringLiteral("Sinusoid base, > 1 and <= 1e12 (default 10000)."),
         QStringLiteral("B")},
        {QStringLiteral("layout"),
         QStringLiteral("interleaved (sin, cos, sin, ...; default) or split ([sin | cos])."),
         QStringLiteral("L")},
        {QStringLiteral("seed"), QStringLiteral("Seed of the learned scheme (default 0)."),
         QStringLiteral("S")},
        {QStringLiteral("backend"), QStringLiteral("auto (default), cpu or gpu."),
         QStringLiteral("NAME")},
        // RoPE: each as Hugging Face's rope_type of the same name computes inv_freq.
        {QStringLiteral("pairing"),
         QStringLiteral("rope: interleaved (GPT-J, columns 2i, 2i+1; default) or half "
                        "(GPT-NeoX / Llama, columns i, i + d/2)."),
         QStringLiteral("P")},
        {QStringLiteral("partial-rotary-factor"),
         QStringLiteral("rope: rotate the first int(dims x F) columns only (default 1)."),
         QStringLiteral("F")},
        {QStringLiteral("rope-scaling"),
         QStringLiteral("rope: none (default), linear, ntk, dynamic-ntk, yarn or llama3."),
         QStringLiteral("TYPE")},
        {QStringLiteral("factor"), QStringLiteral("rope scaling factor s > 0 (llama3: default 8)."),
         QStringLiteral("S")},
        {QStringLiteral("original-context"),
         QStringLiteral("rope: the pretrained context, original_max_position_embeddings "
                        "(dynamic-ntk, yarn, llama3: default 8192)."),
         QStringLiteral("L")},
        {QStringLiteral("current-length"),
         QStringLiteral("dynamic-ntk: the sequence length to scale for (default: --positions)."),
         QStringLiteral("N")},
        {QStringLiteral("low-freq-factor"), QStringLiteral("llama3 (default 1)."),
         QStringLiteral("F")},
        {QStringLiteral("high-freq-factor"), QStringLiteral("llama3 (default 4)."),
         QStringLiteral("F")},
        {QStringLiteral("beta-fast"), QStringLiteral("yarn (default 32)."), QStringLiteral("B")},
        {QStringLiteral("beta-slow"), QStringLiteral("yarn (default 1)."), QStringLiteral("B")},
    });
}

QStringList ropeOptionNames()
{
    return {QStringLiteral("pairing"),          QStringLiteral("partial-rotary-factor"),
            QStringLiteral("rope-scaling"),     QStringLiteral("factor"),
            QStringLiteral("original-context"), QStringLiteral("current-length"),
            QStringLiteral("low-freq-factor"),  QStringLiteral("high-freq-factor"),
            QStringLiteral("beta-fast"),        QStringLiteral("beta-slow")};
}

void refuseOptions(const QCommandLineParser &parser, const QStringList &names,
                   const QString &context)
{
    for (const QString &name : names)
        if (parser.isSet(name))
            throw UsageError{QStringLiteral("--%1 does not apply to %2").arg(name, context)};
}

RopeParameters ropeFromOptions(const QCommandLineParser &parser, qint64 positions)
{
    RopeParameters rope;
    if (parser.isSet(QStringLiteral("pairing"))) {
        const QString name = parser.value(QStringLiteral("pairing"));
        const auto pairing = parseRopePairing(name);
        if (!pairing)
            throw UsageError{
                QStringLiteral("--pairing must be interleaved or half (got \"%1\")").arg(name)};
        rope.pairing = *pairing;
    }
    rope.partialRotaryFactor = numberOption(parser, QStringLiteral("partial-rotary-factor"), 1.0);
    if (!(rope.partialRotaryFactor > 0.0 && rope.partialRotaryFactor <= 1.0))
        throw UsageError{
            QStringLiteral("--partial-rotary-factor must be greater than 0 and at most 1 (got %1)")
                .arg(rope.partialRotaryFactor)};
    if (parser.isSet(QStringLiteral("rope-scaling"))) {
        const QString name = parser.value(QStringLiteral("rope-scaling"));
        const auto scaling = parseRopeScaling(name);
        if (!scaling)
            throw UsageError{
                QStringLiteral("--rope-scaling must be none, linear, ntk, dynamic-ntk, "
                               "yarn or llama3 (got \"%1\")")
                    .arg(name)};
        rope.scaling = *scaling;
    }

    // Options the chosen rule does not read are refused rather than silently ignored.
    const RopeScaling scaling = rope.scaling;
    const QString with = QStringLiteral("--rope-scaling ") + ropeScalingName(scaling);
    if (scaling == RopeScaling::None)
        refuseOptions(parser, {QStringLiteral("factor")}, with);
    if (scaling != RopeScaling::DynamicNtk && scaling != RopeScaling::Yarn &&
        scaling != RopeScaling::Llama3)
        refuseOptions(parser, {QStringLiteral("original-context")}, with);
    if (scaling != RopeScaling::DynamicNtk)
        refuseOptions(parser, {QStringLiteral("current-length")}, with);
    if (scaling != RopeScaling::Llama3)
        refuseOptions(
            parser, {QStringLiteral("low-freq-factor"), QStringLiteral("high-freq-factor")}, with);
    if (scaling != RopeScaling::Yarn)
        refuseOptions(parser, {QStringLiteral("beta-fast"), QStringLiteral("beta-slow")}, with);
    if (scaling == RopeScaling::None)
        return rope;

    if (scaling == RopeScaling::Llama3) {
        // The values HF's llama3 type was written for (Llama 3.1's config.json).
        rope.factor = 8.0;
        rope.originalContext = 8192;
    } else {
        if (!parser.isSet(QStringLiteral("factor")))
            throw UsageError{QStringLiteral("--factor is required with %1").arg(with)};
        if ((scaling == RopeScaling::DynamicNtk || scaling == RopeScaling::Yarn) &&
            !parser.isSet(QStringLiteral("original-context")))
            throw UsageError{QStringLiteral("--original-context is required with %1").arg(with)};
    }
    rope.factor = numberOption(parser, QStringLiteral("factor"), rope.factor);
    if (!(rope.factor > 0.0))
        throw UsageError{
            QStringLiteral("--factor must be greater than 0 (got %1)").arg(rope.factor)};
    rope.originalContext = integerOption(parser, QStringLiteral("original-context"), 1,
                                         limits::maxRopeContext, rope.originalContext);
    if (scaling == RopeScaling::DynamicNtk)
        rope.currentLength = integerOption(parser, QStringLiteral("current-length"), 1,
                                           limits::maxRopeContext, positions);
    if (scaling == RopeScaling::Llama3) {
        rope.lowFreqFactor = numberOption(parser, QStringLiteral("low-freq-factor"), 1.0);
        rope.highFreqFactor = numberOption(parser, QStringLiteral("high-freq-factor"), 4.0);
        if (!(rope.lowFreqFactor > 0.0))
            throw UsageError{QStringLiteral("--low-freq-factor must be greater than 0 (got %1)")
                                 .arg(rope.lowFreqFactor)};
        if (!(rope.highFreqFactor > rope.lowFreqFactor))
            throw UsageError{QStringLiteral("--high-freq-factor must be greater than "
                                            "--low-freq-factor %1 (got %2)")
                                 .arg(rope.lowFreqFactor)
                                 .arg(rope.highFreqFactor)};
    }
    if (scaling == RopeScaling::Yarn) {
        rope.betaFast = numberOption(parser, QStringLiteral("beta-fast"), 32.0);
        rope.betaSlow = numberOption(parser, QStringLiteral("beta-slow"), 1.0);
        if (!(rope.betaFast > 0.0))
            throw UsageError{
                QStringLiteral("--beta-fast must be greater than 0 (got %1)").arg(rope.betaFast)};
        if (!(rope.betaSlow > 0.0))
            throw UsageError{
                QStringLiteral("--beta-slow must be greater than 0 (got %1)").arg(rope.betaSlow)};
        if (rope.betaFast < rope.betaSlow)
            throw UsageError{QStringLiteral("--beta-fast (%1) must be at least --beta-slow (%2)")
                                 .arg(rope.betaFast)
                                 .arg(rope.betaSlow)};
    }
    return rope;
}

EncodingSpec specFromOptions(const QCommandLineParser &parser)
{
    EncodingSpec spec;
    if (parser.isSet(QStringLiteral("scheme"))) {
        const QString name = parser.value(QStringLiteral("scheme"));
        const auto scheme = parseScheme(name);
        if (!scheme)
            throw UsageError{
                QStringLiteral("--scheme must be sinusoidal, learned or rope (got \"%1\")")
                    .arg(name)};
        spec.scheme = *scheme;
    }
    for (const char *required : {"positions", "dims"})
        if (!parser.isSet(QLatin1String(required)))
            throw UsageError{QStringLiteral("--%1 is required").arg(QLatin1String(required))};
    spec.positions = integerOption(parser, QStringLiteral("positions"), 1, limits::maxPositions, 0);
    spec.dims = integerOption(parser, QStringLiteral("dims"), 1, limits::maxDims, 0);
    spec.base = numberOption(parser, QStringLiteral("base"), spec.base);
    if (!(spec.base > 1.0 && spec.base <= limits::maxBase))
        throw UsageError{QStringLiteral("--base must be greater than 1 and at most 1e12 (got %1)")
                             .arg(spec.base)};
    if (parser.isSet(QStringLiteral("layout"))) {
        const QString name = parser.value(QStringLiteral("layout"));
        const auto layout = parseLayout(name);
        if (!layout)
            throw UsageError{
                QStringLiteral("--layout must be interleaved or split (got \"%1\")").arg(name)};
        spec.layout = *layout;
    }
    if (spec.scheme == Scheme::Rope) {
        refuseOptions(parser, {QStringLiteral("layout")},
                      QStringLiteral("--scheme rope (its pairs are set by --pairing)"));
        if (spec.dims % 2 != 0)
            throw UsageError{QStringLiteral("--dims must be even for --scheme rope: each rotation "
                                            "turns a pair of columns (got %1)")
                                 .arg(spec.dims)};
        spec.rope = ropeFromOptions(parser, spec.positions);
    } else {
        refuseOptions(parser, ropeOptionNames(),
                      QStringLiteral("--scheme ") + schemeName(spec.scheme));
    }
    spec.seed = seedOption(parser, QStringLiteral("seed"));
    if (const QString problem = spec.validate(); !problem.isEmpty())
        throw UsageError{problem};
    return spec;
}

BackendChoice backendFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("backend")))
        return BackendChoice::Auto;
    const QString name = parser.value(QStringLiteral("backend"));
    const auto choice = parseBackendChoice(name);
    if (!choice)
        throw UsageError{
            QStringLiteral("--backend must be auto, cpu or gpu (got \"%1\")").arg(name)};
    return *choice;
}

QString outputPath(const QCommandLineParser &parser, const QStringList &extensions)
{
    if (!parser.isSet(QStringLiteral("out")) || parser.value(QStringLiteral("out")).isEmpty())
        throw UsageError{QStringLiteral("--out is required")};
    const QString path = parser.value(QStringLiteral("out"));
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

QCommandLineOption formatOption()
{
    return {QStringLiteral("format"),
            QStringLiteral("npy or csv; by default the --out extension decides."),
            QStringLiteral("F")};
}

void report(const QString &command, const QString &message)
{
    const QByteArray line =
        (QStringLiteral("pescope ") + command + QStringLiteral(": ") + message + QLatin1Char('\n'))
            .toLocal8Bit();
    std::fwrite(line.constData(), 1, std::size_t(line.size()), stderr);
    std::fflush(stderr);
}

} // namespace pe::cli
