#include "state/schemesettings.h"

#include "alibi.h"
#include "rope.h"

#include <QJsonValue>

#include <cmath>

namespace pe {

QList<SchemeView> allSchemeViews()
{
    return {SchemeView::Spectrum, SchemeView::Rotation, SchemeView::Decay,  SchemeView::Similarity,
            SchemeView::Alibi,    SchemeView::T5,       SchemeView::Compare};
}

QString schemeViewName(SchemeView view)
{
    switch (view) {
    case SchemeView::Spectrum:
        return QStringLiteral("spectrum");
    case SchemeView::Rotation:
        return QStringLiteral("rotation");
    case SchemeView::Decay:
        return QStringLiteral("decay");
    case SchemeView::Similarity:
        return QStringLiteral("similarity");
    case SchemeView::Alibi:
        return QStringLiteral("alibi");
    case SchemeView::T5:
        return QStringLiteral("t5");
    case SchemeView::Compare:
        return QStringLiteral("compare");
    }
    return {};
}

std::optional<SchemeView> parseSchemeView(const QString &name)
{
    for (SchemeView view : allSchemeViews())
        if (schemeViewName(view) == name)
            return view;
    return std::nullopt;
}

QString similarityMetricName(SimilarityMetric metric)
{
    return metric == SimilarityMetric::Dot ? QStringLiteral("dot") : QStringLiteral("cosine");
}

std::optional<SimilarityMetric> parseSimilarityMetric(const QString &name)
{
    if (name == QLatin1String("dot"))
        return SimilarityMetric::Dot;
    if (name == QLatin1String("cosine"))
        return SimilarityMetric::Cosine;
    return std::nullopt;
}

QString SchemeSettings::validate(qint64 dims) const
{
    const qint64 pairs = qMax<qint64>(1, dims / 2);
    if (rotationPair < 0 || rotationPair >= pairs)
        return QStringLiteral("rotation pair must be between 0 and %1 (got %2)")
            .arg(pairs - 1)
            .arg(rotationPair);
    if (rotationPosition < 0 || rotationPosition > limits::maxPositions)
        return QStringLiteral("rotation position must be between 0 and %1 (got %2)")
            .arg(limits::maxPositions)
            .arg(rotationPosition);
    if (decayDistance < 1 || decayDistance > limits::maxDecayDistance)
        return QStringLiteral("decay distance must be between 1 and %1 (got %2)")
            .arg(limits::maxDecayDistance)
            .arg(decayDistance);
    if (squarePositions < 2 || squarePositions > limits::maxSchemeSquare)
        return QStringLiteral("heatmap positions must be between 2 and %1 (got %2)")
            .arg(limits::maxSchemeSquare)
            .arg(squarePositions);
    if (const QString problem = alibiProblem(alibiHeads); !problem.isEmpty())
        return QStringLiteral("ALiBi ") + problem;
    if (alibiHead < 0 || alibiHead >= alibiHeads)
        return QStringLiteral("ALiBi head must be between 1 and %1 (got %2)")
            .arg(alibiHeads)
            .arg(alibiHead + 1);
    if (const QString problem = t5Problem(t5); !problem.isEmpty())
        return QStringLiteral("T5 ") + problem;
    if (!std::isfinite(compareBase) || compareBase <= 1.0 || compareBase > limits::maxBase)
        return QStringLiteral("compare base must be greater than 1 and at most %1 (got %2)")
            .arg(limits::maxBase)
            .arg(compareBase);
    if (const QString problem = ropeProblem(qMax<qint64>(2, dims - dims % 2), compareRope);
        !problem.isEmpty())
        return QStringLiteral("compare: ") + problem;
    return {};
}

QJsonObject ropeParametersToJson(const RopeParameters &rope)
{
    return QJsonObject{
        {QStringLiteral("pairing"), ropePairingName(rope.pairing)},
        {QStringLiteral("scaling"), ropeScalingName(rope.scaling)},
        {QStringLiteral("factor"), rope.factor},
        {QStringLiteral("originalContext"), rope.originalContext},
        {QStringLiteral("currentLength"), rope.currentLength},
        {QStringLiteral("lowFreqFactor"), rope.lowFreqFactor},
        {QStringLiteral("highFreqFactor"), rope.highFreqFactor},
        {QStringLiteral("betaFast"), rope.betaFast},
        {QStringLiteral("betaSlow"), rope.betaSlow},
        {QStringLiteral("yarnTruncate"), rope.yarnTruncate},
        {QStringLiteral("partialRotaryFactor"), rope.partialRotaryFactor},
    };
}

namespace {

bool readNumber(const QJsonObject &json, const char *key, double *out, QString *error)
{
    const QString name = QString::fromLatin1(key);
    if (!json.contains(name))
        return true;
    const QJsonValue v = json.value(name);
    if (!v.isDouble() || !std::isfinite(v.toDouble())) {
        *error = QStringLiteral("\"%1\" must be a number").arg(name);
        return false;
    }
    *out = v.toDouble();
    return true;
}

bool readWhole(const QJsonObject &json, const char *key, qint64 *out, QString *error)
{
    double d = double(*out);
    if (!readNumber(json, key, &d, error))
        return false;
    if (d != std::floor(d) || std::fabs(d) > 9.0e15) {
        *error = QStringLiteral("\"%1\" must be a whole number").arg(QString::fromLatin1(key));
        return false;
    }
    *out = qint64(d);
    return true;
}

bool readBool(const QJsonObject &json, const char *key, bool *out, QString *error)
{
    const QString name = QString::fromLatin1(key);
    if (!json.contains(name))
        return true;
    if (!json.value(name).isBool()) {
        *error = QStringLiteral("\"%1\" must be true or false").arg(name);
        return false;
    }
    *out = json.value(name).toBool();
    return true;
}

} // namespace

bool readRopeParametersJson(const QJsonObject &json, RopeParameters *rope, QString *error)
{
    if (json.contains(QStringLiteral("pairing"))) {
        const QString name = json.value(QStringLiteral("pairing")).toString();
        const auto pairing = parseRopePairing(name);
        if (!pairing) {
            *error = QStringLiteral("unknown RoPE pairing \"%1\"").arg(name);
            return false;
        }
        rope->pairing = *pairing;
    }
    if (json.contains(QStringLiteral("scaling"))) {
        const QString name = json.value(QStringLiteral("scaling")).toString();
        const auto scaling = parseRopeScaling(name);
        if (!scaling) {
            *error = QStringLiteral("unknown RoPE scaling \"%1\"").arg(name);
            return false;
        }
        rope->scaling = *scaling;
    }
    return readNumber(json, "factor", &rope->factor, error) &&
           readWhole(json, "originalContext", &rope->originalContext, error) &&
           readWhole(json, "currentLength", &rope->currentLength, error) &&
           readNumber(json, "lowFreqFactor", &rope->lowFreqFactor, error) &&
           readNumber(json, "highFreqFactor", &rope->highFreqFactor, error) &&
           readNumber(json, "betaFast", &rope->betaFast, error) &&
           readNumber(json, "betaSlow", &rope->betaSlow, error) &&
           readBool(json, "yarnTruncate", &rope->yarnTruncate, error) &&
           readNumber(json, "partialRotaryFactor", &rope->partialRotaryFactor, error);
}

QJsonObject SchemeSettings::toJson() const
{
    return QJsonObject{
        {QStringLiteral("view"), schemeViewName(view)},
        {QStringLiteral("rotationPair"), rotationPair},
        {QStringLiteral("rotationPosition"), rotationPosition},
        {QStringLiteral("decayDistance"), decayDistance},
        {QStringLiteral("metric"), similarityMetricName(metric)},
        {QStringLiteral("squarePositions"), squarePositions},
        {QStringLiteral("alibiHeads"), alibiHeads},
        {QStringLiteral("alibiHead"), alibiHead},
        {QStringLiteral("alibiCausal"), alibiCausal},
        {QStringLiteral("t5Buckets"), t5.buckets},
        {QStringLiteral("t5MaxDistance"), t5.maxDistance},
        {QStringLiteral("t5Bidirectional"), t5.bidirectional},
        {QStringLiteral("compareBase"), compareBase},
        {QStringLiteral("compareRope"), ropeParametersToJson(compareRope)},
    };
}

bool SchemeSettings::readJson(const QJsonObject &json, QString *error)
{
    if (json.contains(QStringLiteral("view"))) {
        const QString name = json.value(QStringLiteral("view")).toString();
        const auto v = parseSchemeView(name);
        if (!v) {
            *error = QStringLiteral("unknown scheme view \"%1\"").arg(name);
            return false;
        }
        view = *v;
    }
    if (json.contains(QStringLiteral("metric"))) {
        const QString name = json.value(QStringLiteral("metric")).toString();
        const auto m = parseSimilarityMetric(name);
        if (!m) {
            *error = QStringLiteral("unknown similarity metric \"%1\" (dot or cosine)").arg(name);
            return false;
        }
        metric = *m;
    }
    if (!readWhole(json, "rotationPair", &rotationPair, error) ||
        !readWhole(json, "rotationPosition", &rotationPosition, error) ||
        !readWhole(json, "decayDistance", &decayDistance, error) ||
        !readWhole(json, "squarePositions", &squarePositions, error) ||
        !readWhole(json, "alibiHeads", &alibiHeads, error) ||
        !readWhole(json, "alibiHead", &alibiHead, error) ||
        !readBool(json, "alibiCausal", &alibiCausal, error) ||
        !readWhole(json, "t5Buckets", &t5.buckets, error) ||
        !readWhole(json, "t5MaxDistance", &t5.maxDistance, error) ||
        !readBool(json, "t5Bidirectional", &t5.bidirectional, error) ||
        !readNumber(json, "compareBase", &compareBase, error))
        return false;
    if (json.contains(QStringLiteral("compareRope")) &&
        !readRopeParametersJson(json.value(QStringLiteral("compareRope")).toObject(), &compareRope,
                                error))
        return false;
    return true;
}

EncodingSpec ropeSpecA(const EncodingSpec &spec)
{
    if (spec.scheme == Scheme::Rope)
        return spec;
    EncodingSpec a = spec;
    a.scheme = Scheme::Rope;
    a.rope = RopeParameters{};
    a.dims = qMax<qint64>(2, spec.dims - spec.dims % 2);
    return a;
}

EncodingSpec ropeSpecB(const EncodingSpec &spec, const SchemeSettings &settings)
{
    EncodingSpec b = ropeSpecA(spec);
    b.base = settings.compareBase;
    b.rope = settings.compareRope;
    return b;
}

} // namespace pe
