#include "encodingspec.h"

#include "fields/fieldoptions.h"

#include <cmath>

namespace pe {

namespace {

int schemeIndex(const EncodingSpec &s)
{
    return int(s.scheme.index());
}

void setSchemeIndex(EncodingSpec &s, int index)
{
    if (index != int(s.scheme.index()))
        s.scheme = defaultScheme(std::size_t(index));
}

template <class F> auto visitScheme(const EncodingSpec &spec, F &&f)
{
    return std::visit(std::forward<F>(f), spec.scheme);
}

} // namespace

QString formatBytes(double bytes)
{
    const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 5) {
        bytes /= 1024.0;
        ++unit;
    }
    return unit == 0
               ? QStringLiteral("%1 bytes").arg(qint64(bytes))
               : QStringLiteral("%1 %2").arg(bytes, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

FieldTable<EncodingSpec> EncodingSpec::fields()
{
    using S = EncodingSpec;
    static const Field<S> table[] = {
        {.key = "scheme",
         .flag = "scheme",
         .label = "Scheme",
         .help = "The positional encoding.",
         .kind = ChoiceKind<S>{schemeIndex, setSchemeIndex, schemeNames}},
        {.key = "positions",
         .flag = "positions",
         .label = "Positions",
         .help = "Rows of the matrix: positions 0 to N - 1.",
         .kind = IntegerKind<S>{&S::positions, {1, limits::maxPositions}}},
        {.key = "dims",
         .flag = "dims",
         .label = "Dims",
         .help = "Columns of the matrix: the model (or head) dimension.",
         .kind = IntegerKind<S>{&S::dims, {1, limits::maxDims}},
         .gate = {.by = "scheme", .applies = schemesWithDims}},
    };
    return table;
}

EncodingSpec EncodingSpec::normalized() const
{
    EncodingSpec s = *this;
    if (!s.info().usesDims)
        s.dims = s.positions;
    // A scheme whose shape comes from data (a model's table: its columns) says so.
    std::visit(
        [&](const auto &scheme) {
            if constexpr (requires(MatrixShape * shape) { scheme.normalizeShape(shape); }) {
                MatrixShape shape = s.shape();
                scheme.normalizeShape(&shape);
                s.positions = shape.positions;
                s.dims = shape.dims;
            }
        },
        s.scheme);
    return s;
}

bool EncodingSpec::resolve(QString *error)
{
    const bool ok = std::visit(
        [&](auto &scheme) {
            if constexpr (requires { scheme.resolve(error); })
                return scheme.resolve(error);
            else
                return true;
        },
        scheme);
    if (ok)
        *this = normalized();
    return ok;
}

FieldProblem EncodingSpec::problem() const
{
    if (FieldProblem p = rangeProblem(fields(), *this))
        return p;
    if (!info().usesDims && dims != positions)
        return {QStringLiteral("dims"),
                QStringLiteral("must equal positions for %1: its columns are positions too")
                    .arg(schemeId())};
    return visitScheme(*this, [&](const auto &s) {
        using S = std::decay_t<decltype(s)>;
        if (FieldProblem p = rangeProblem(S::fields(), s))
            return p;
        return s.problem(shape());
    });
}

QString EncodingSpec::describe(const FieldProblem &problem, FieldNaming naming) const
{
    if (problem.isEmpty())
        return {};
    if (findField(fields(), problem.key))
        return pe::describe(fields(), problem, naming);
    return visitScheme(*this, [&](const auto &s) {
        using S = std::decay_t<decltype(s)>;
        return pe::describe(S::fields(), problem, naming);
    });
}

QString EncodingSpec::validate() const
{
    return describe(problem(), FieldNaming::Bare);
}

MatrixPlan EncodingSpec::plan() const
{
    return visitScheme(*this, [&](const auto &s) { return s.plan(shape()); });
}

ValueRange EncodingSpec::valueRange() const
{
    return visitScheme(*this, [&](const auto &s) { return s.valueRange(shape()); });
}

SchemeAxes EncodingSpec::axes() const
{
    return visitScheme(*this, [](const auto &s) { return s.axes(); });
}

ColumnInfo EncodingSpec::column(qint64 column) const
{
    return visitScheme(*this, [&](const auto &s) { return s.column(column, shape()); });
}

QString EncodingSpec::caption() const
{
    return visitScheme(*this, [&](const auto &s) { return s.caption(shape()); });
}

QString EncodingSpec::legend() const
{
    return visitScheme(*this, [](const auto &s) { return s.legend(); });
}

QString EncodingSpec::formula() const
{
    return visitScheme(*this, [&](const auto &s) { return s.formula(shape()); });
}

QString EncodingSpec::cellFormula(qint64 position, qint64 column, double value) const
{
    return visitScheme(
        *this, [&](const auto &s) { return s.cellFormula(position, column, value, shape()); });
}

std::vector<DataOutput> EncodingSpec::outputs() const
{
    return visitScheme(*this, [&](const auto &s) { return s.outputs(shape()); });
}

QJsonObject EncodingSpec::toJson() const
{
    QJsonObject json = pe::toJson(fields(), *this);
    visitScheme(*this, [&](const auto &s) {
        using S = std::decay_t<decltype(s)>;
        const QJsonObject own = pe::toJson(S::fields(), s);
        for (auto it = own.begin(); it != own.end(); ++it)
            json.insert(it.key(), it.value());
    });
    return json;
}

FieldProblem EncodingSpec::readJson(const QJsonObject &json)
{
    EncodingSpec next = *this;
    QStringList schemeKeys;
    QStringList ownKeys;
    for (const Field<EncodingSpec> &f : fields())
        ownKeys.append(QString::fromUtf8(f.key));
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!ownKeys.contains(it.key()))
            schemeKeys.append(it.key());
    if (FieldProblem p = pe::readJson(fields(), json, &next, schemeKeys))
        return p;
    FieldProblem problem = std::visit(
        [&](auto &s) {
            using S = std::decay_t<decltype(s)>;
            return pe::readJson(S::fields(), json, &s, ownKeys);
        },
        next.scheme);
    if (problem)
        return problem;
    *this = next.normalized();
    return {};
}

void EncodingSpec::addOptions(OptionSet &options)
{
    options.add(fields());
    forEachScheme([&](const auto &s) {
        using S = std::decay_t<decltype(s)>;
        options.add(S::fields(), QString::fromUtf8(S::info.id));
    });
}

FieldProblem EncodingSpec::readOptions(const QCommandLineParser &parser)
{
    EncodingSpec next = *this;
    if (FieldProblem p = pe::readOptions(fields(), parser, &next, QString()))
        return p;
    const QString context = QStringLiteral("--scheme ") + next.schemeId();
    // Options of the other schemes are refused: they would be silently ignored otherwise.
    FieldProblem problem;
    forEachScheme([&](const auto &other) {
        using S = std::decay_t<decltype(other)>;
        if (problem || std::holds_alternative<S>(next.scheme))
            return;
        const QStringList given = parser.optionNames();
        for (const Field<S> &f : S::fields()) {
            if (!f.flag || !given.contains(QString::fromUtf8(f.flag)))
                continue;
            bool sharedWithChosen = false;
            std::visit(
                [&](const auto &chosen) {
                    using C = std::decay_t<decltype(chosen)>;
                    for (const Field<C> &g : C::fields())
                        if (g.flag && std::string_view(g.flag) == f.flag)
                            sharedWithChosen = true;
                },
                next.scheme);
            if (!sharedWithChosen) {
                // Named by another scheme's table, so the message names the flag itself.
                problem = {QString(), QStringLiteral("--%1 does not apply to %2")
                                          .arg(QString::fromUtf8(f.flag), context)};
                return;
            }
        }
    });
    if (problem)
        return problem;
    problem = std::visit(
        [&](auto &s) -> FieldProblem {
            using S = std::decay_t<decltype(s)>;
            const FieldProblem p = pe::readOptions(S::fields(), parser, &s, context);
            // Named now, by the table of the scheme the options chose.
            return p ? FieldProblem{QString(), pe::describe(S::fields(), p, FieldNaming::Flag)} : p;
        },
        next.scheme);
    if (problem)
        return problem;
    *this = next.normalized();
    return {};
}

bool EncodingSpec::anyOptionSet(const QCommandLineParser &parser)
{
    bool any = pe::anyOptionSet(fields(), parser);
    forEachScheme([&](const auto &s) {
        using S = std::decay_t<decltype(s)>;
        any = any || pe::anyOptionSet(S::fields(), parser);
    });
    return any;
}

} // namespace pe
