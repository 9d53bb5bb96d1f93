#include "state/schemesettings.h"

namespace pe {

namespace {

const QString alibiKey = QStringLiteral("alibi");
const QString t5Key = QStringLiteral("t5");
const QString compareKey = QStringLiteral("compare");

// Runs `read` for the object at `key` of `json` and names the object in a problem.
template <class S> FieldProblem readObject(const QJsonObject &json, const QString &key, S *scheme)
{
    if (!json.contains(key))
        return {};
    if (!json.value(key).isObject())
        return {key, QStringLiteral("must be an object")};
    FieldProblem p = pe::readJson(S::fields(), json.value(key).toObject(), scheme);
    if (p)
        p = {key, describe(S::fields(), p, FieldNaming::Key)};
    return p;
}

} // namespace

FieldTable<SchemeSettings> SchemeSettings::fields()
{
    using S = SchemeSettings;
    static const Field<S> table[] = {
        {.key = "view",
         .label = "View",
         .help = "The Schemes page's view.",
         .kind = choiceKind<&S::view>(schemeViewNames())},
        {.key = "rotationPair",
         .flag = "rotation-pair",
         .label = "Pair",
         .help = "The RoPE pair the rotation view follows first.",
         .kind = IntegerKind<S>{&S::rotationPair, {0, limits::maxDims / 2 - 1}}},
        {.key = "rotationPosition",
         .flag = "rotation-position",
         .label = "Position",
         .help = "The rotation view draws the vector at this position, its trail up to it.",
         .kind = IntegerKind<S>{&S::rotationPosition, {0, limits::maxPositions}}},
        {.key = "decayDistance",
         .flag = "decay-distance",
         .label = "Decay up to",
         .help = "The decay view runs over relative distances 0 to N.",
         .kind = IntegerKind<S>{&S::decayDistance, {1, limits::maxDecayDistance}}},
        {.key = "decayReferences",
         .flag = "decay-references",
         .label = "Reference bases",
         .help = "The decay view also draws θ = 10,000, 500,000 and 1,000,000 unscaled.",
         .kind = BoolKind<S>{&S::decayReferences}},
        {.key = "decayEnvelope",
         .flag = "decay-envelope",
         .label = "Envelope",
         .help = "Each decay curve as its envelope, the largest |score| at that distance or "
                 "beyond: one clear falling line per configuration.",
         .kind = BoolKind<S>{&S::decayEnvelope}},
        {.key = "decayLog",
         .flag = "decay-log",
         .label = "Log distance",
         .help = "The decay view's distance axis on a log scale (from 1).",
         .kind = BoolKind<S>{&S::decayLog}},
        {.key = "metric",
         .flag = "metric",
         .label = "Metric",
         .help = "Position similarity PE(p) . PE(q): dot product or cosine.",
         .kind = choiceKind<&S::metric>(similarityMetricNames)},
        {.key = "squarePositions",
         .flag = "square-positions",
         .label = "Positions",
         .help = "Side of the similarity, ALiBi and T5 heatmaps.",
         .kind = IntegerKind<S>{&S::squarePositions, {2, limits::maxSchemeSquare}}},
    };
    return table;
}

RopeScheme SchemeSettings::defaultCompare()
{
    RopeScheme b;
    b.ropeTheta = 500000.0;
    return b;
}

FieldProblem SchemeSettings::problem(qint64 dims) const
{
    if (FieldProblem p = rangeProblem(fields(), *this))
        return p;
    const qint64 pairs = qMax<qint64>(1, dims / 2);
    if (rotationPair >= pairs)
        return {QStringLiteral("rotationPair"),
                QStringLiteral("must be below the %1 pairs (got %2)").arg(pairs).arg(rotationPair)};
    const MatrixShape square{squarePositions, squarePositions};
    const auto sub = [&](const auto &scheme, const QString &key) -> FieldProblem {
        using T = std::decay_t<decltype(scheme)>;
        FieldProblem p = rangeProblem(T::fields(), scheme);
        if (!p)
            p = scheme.problem(square);
        if (p)
            p = {key, describe(T::fields(), p, FieldNaming::Label)};
        return p;
    };
    if (FieldProblem p = sub(alibi, alibiKey))
        return p;
    if (FieldProblem p = sub(t5, t5Key))
        return p;
    const qint64 evenDims = qMax<qint64>(2, dims - dims % 2);
    FieldProblem p = rangeProblem(RopeScheme::fields(), compare);
    if (!p)
        p = compare.problem({square.positions, evenDims});
    if (p)
        return {compareKey, describe(RopeScheme::fields(), p, FieldNaming::Label)};
    return {};
}

QString SchemeSettings::validate(qint64 dims) const
{
    const FieldProblem p = problem(dims);
    return p ? describe(fields(), p, FieldNaming::Key) : QString();
}

QJsonObject SchemeSettings::toJson() const
{
    QJsonObject json = pe::toJson(fields(), *this);
    json.insert(alibiKey, pe::toJson(AlibiScheme::fields(), alibi));
    json.insert(t5Key, pe::toJson(T5Scheme::fields(), t5));
    json.insert(compareKey, pe::toJson(RopeScheme::fields(), compare));
    return json;
}

FieldProblem SchemeSettings::readJson(const QJsonObject &json)
{
    SchemeSettings next = *this;
    if (FieldProblem p = pe::readJson(fields(), json, &next, {alibiKey, t5Key, compareKey}))
        return p;
    if (FieldProblem p = readObject(json, alibiKey, &next.alibi))
        return p;
    if (FieldProblem p = readObject(json, t5Key, &next.t5))
        return p;
    if (FieldProblem p = readObject(json, compareKey, &next.compare))
        return p;
    *this = next;
    return {};
}

EncodingSpec ropeSpecA(const EncodingSpec &spec)
{
    if (spec.get<RopeScheme>())
        return spec;
    RopeScheme rope;
    if (const auto *sinusoid = spec.get<SinusoidalScheme>())
        rope.ropeTheta = sinusoid->base;
    EncodingSpec a;
    a.scheme = rope;
    a.positions = spec.positions;
    a.dims = qMax<qint64>(2, spec.dims - spec.dims % 2);
    return a;
}

EncodingSpec ropeSpecB(const EncodingSpec &spec, const SchemeSettings &settings)
{
    EncodingSpec b = ropeSpecA(spec);
    b.scheme = settings.compare;
    return b;
}

} // namespace pe
