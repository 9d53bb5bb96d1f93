#include "commandline.h"

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

qint64 integerOption(const QCommandLineParser &parser, const QString &name, qint64 min,
                     qint64 max, qint64 fallback)
{
    if (!parser.isSet(name))
        return fallback;
    const QString text = parser.value(name).trimmed();
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok)
        throw UsageError{QStringLiteral("--%1 must be a whole number (got \"%2\")").arg(name, text)};
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
        throw UsageError{QStringLiteral("--%1 must be a finite number (got \"%2\")").arg(name, text)};
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
        {QStringLiteral("scheme"), QStringLiteral("sinusoidal (default) or learned."),
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
    });
}

EncodingSpec specFromOptions(const QCommandLineParser &parser)
{
    EncodingSpec spec;
    if (parser.isSet(QStringLiteral("scheme"))) {
        const QString name = parser.value(QStringLiteral("scheme"));
        const auto scheme = parseScheme(name);
        if (!scheme)
            throw UsageError{
                QStringLiteral("--scheme must be sinusoidal or learned (got \"%1\")").arg(name)};
        spec.scheme = *scheme;
    }
    for (const char *required : {"positions", "dims"})
        if (!parser.isSet(QLatin1String(required)))
            throw UsageError{QStringLiteral("--%1 is required").arg(QLatin1String(required))};
    spec.positions =
        integerOption(parser, QStringLiteral("positions"), 1, limits::maxPositions, 0);
    spec.dims = integerOption(parser, QStringLiteral("dims"), 1, limits::maxDims, 0);
    spec.base = numberOption(parser, QStringLiteral("base"), spec.base);
    if (!(spec.base > 1.0 && spec.base <= limits::maxBase))
        throw UsageError{
            QStringLiteral("--base must be greater than 1 and at most 1e12 (got %1)").arg(spec.base)};
    if (parser.isSet(QStringLiteral("layout"))) {
        const QString name = parser.value(QStringLiteral("layout"));
        const auto layout = parseLayout(name);
        if (!layout)
            throw UsageError{
                QStringLiteral("--layout must be interleaved or split (got \"%1\")").arg(name)};
        spec.layout = *layout;
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
        throw UsageError{QStringLiteral("--backend must be auto, cpu or gpu (got \"%1\")").arg(name)};
    return *choice;
}

QString outputPath(const QCommandLineParser &parser, const QStringList &extensions)
{
    if (!parser.isSet(QStringLiteral("out")) || parser.value(QStringLiteral("out")).isEmpty())
        throw UsageError{QStringLiteral("--out is required")};
    const QString path = parser.value(QStringLiteral("out"));
    const QFileInfo info(path);
    // A device or pipe (/dev/null, /dev/stdout) has no extension to go by: --format decides.
    if (info.exists() && !info.isFile() && !info.isDir())
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
    const QByteArray line = (QStringLiteral("pescope ") + command + QStringLiteral(": ") + message
                             + QLatin1Char('\n'))
                                .toLocal8Bit();
    std::fwrite(line.constData(), 1, std::size_t(line.size()), stderr);
    std::fflush(stderr);
}

} // namespace pe::cli
