#include "state/schemesettings.h"

namespace pe {

namespace {

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
    FieldProblem found;
    forEachSchemePart([&](const auto &part) {
        using P = typename std::decay_t<decltype(part)>::Scheme;
        const P &scheme = this->*part.member;
        FieldProblem p = rangeProblem(P::fields(), scheme);
        if (!p)
            p = scheme.problem(part.shape(squarePositions, dims));
        if (p && !found)
            found = {QString::fromUtf8(part.key), describe(P::fields(), p, FieldNaming::Label)};
    });
    return found;
}

QString SchemeSettings::validate(qint64 dims) const
{
    const FieldProblem p = problem(dims);
    return p ? describe(fields(), p, FieldNaming::Key) : QString();
}

QJsonObject SchemeSettings::toJson() const
{
    QJsonObject json = pe::toJson(fields(), *this);
    forEachSchemePart([&](const auto &part) {
        using P = typename std::decay_t<decltype(part)>::Scheme;
        json.insert(QString::fromUtf8(part.key), pe::toJson(P::fields(), this->*part.member));
    });
    return json;
}

FieldProblem SchemeSettings::readJson(const QJsonObject &json)
{
    SchemeSettings next = *this;
    if (FieldProblem p = pe::readJson(fields(), json, &next, schemePartKeys()))
        return p;
    FieldProblem found;
    forEachSchemePart([&](const auto &part) {
        if (!found)
            found = readObject(json, QString::fromUtf8(part.key), &(next.*part.member));
    });
    if (found)
        return found;
    *this = next;
    return {};
}

QStringList schemePartKeys()
{
    QStringList keys;
    forEachSchemePart([&keys](const auto &part) { keys.append(QString::fromUtf8(part.key)); });
    return keys;
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
