#include "ropeverify.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace pe {

namespace {

QString number(double x)
{
    return QString::number(x, 'g', 10);
}

// Values of a candidate-shaped table under one hypothesis about how it was computed.
struct TableModel
{
    std::vector<double> theta;
    double scale = 1.0;
    RopePairing pairing = RopePairing::Half;
    RopeTableKind kind = RopeTableKind::Cos;
    bool float32Angles = false; // theta and p * theta rounded to float32, as torch's float32 does
    qint64 total = 0;           // candidate columns (>= 2 * theta.size(): cos-sin pass-through)

    double value(qint64 p, qint64 c) const
    {
        const qint64 rotary = 2 * qint64(theta.size());
        if (c >= rotary) { // pescope's pass-through block: the identity rotation, unscaled
            const qint64 k = c - rotary;
            const bool cosine =
                pairing == RopePairing::Interleaved ? k % 2 == 0 : k < (total - rotary) / 2;
            return cosine ? 1.0 : 0.0;
        }
        const RopeColumn column = ropeTableColumn(kind, pairing, qint64(theta.size()), c);
        const double t = theta[std::size_t(column.pair)];
        double angle = double(p) * t;
        if (float32Angles) {
            const float angle32 = float(p) * float(t);
            angle = double(angle32);
        }
        return (column.cosine ? std::cos(angle) : std::sin(angle)) * scale;
    }
};

using Values = std::function<double(qint64 index)>; // by row-major index

bool within(double candidate, double reference, double tolerance, bool relative)
{
    const double bound = relative && reference != 0.0 ? tolerance * std::abs(reference) : tolerance;
    return std::abs(candidate - reference) <= bound; // NaN: false
}

// True when every candidate value lies within `bound(index, reference)` of the model's value.
bool allWithin(const RopeTable &candidate, const Values &model,
               const std::function<bool(qint64, double, double)> &agrees)
{
    const qint64 n = qint64(candidate.values.size());
    for (qint64 i = 0; i < n; ++i)
        if (!agrees(i, candidate.values[std::size_t(i)], model(i)))
            return false;
    return true;
}

struct Hypothesis
{
    RopeMistake mistake;
    QString diagnosis;
    Values values;
};

RopeConfig asDefaultType(const RopeConfig &config)
{
    RopeConfig plain = config;
    plain.ropeType = RopeType::Default;
    if (config.ropeType == RopeType::Proportional)
        plain.partialRotaryFactor = 1.0; // proportional rotates the whole head
    return plain;
}

std::vector<double> defaultThetaWithBase(qint64 headDim, const RopeConfig &config, double base)
{
    RopeConfig plain = asDefaultType(config);
    plain.ropeTheta = base;
    return ropeInverseFrequencies(headDim, plain).inverseFrequencies;
}

// The attention factors other implementations compute for yarn / longrope.
struct AttentionAlternative
{
    double value;
    QString what;
};

std::vector<AttentionAlternative> attentionAlternatives(const RopeConfig &config, double reference)
{
    std::vector<AttentionAlternative> out;
    const double factor = ropeEffectiveFactor(config).value_or(1.0);
    if (config.ropeType == RopeType::Yarn) {
        const bool ratio = config.mscale && *config.mscale != 0.0 && config.mscaleAllDim &&
                           *config.mscaleAllDim != 0.0;
        double computed = ropeYarnGetMscale(factor);
        if (ratio)
            computed = ropeYarnGetMscale(factor, *config.mscale) /
                       ropeYarnGetMscale(factor, *config.mscaleAllDim);
        if (config.attentionFactor)
            out.push_back({computed, QStringLiteral("the explicit attention_factor %1 ignored: "
                                                    "matches the computed %2")
                                         .arg(number(reference), number(computed))});
        if (ratio) {
            const double plain = ropeYarnGetMscale(factor);
            out.push_back({plain, QStringLiteral("mscale / mscale_all_dim ignored: matches "
                                                 "get_mscale(factor) = %1 instead of "
                                                 "get_mscale(factor, mscale) / get_mscale(factor, "
                                                 "mscale_all_dim) = %2")
                                      .arg(number(plain), number(reference))});
            const double numerator = ropeYarnGetMscale(factor, *config.mscale);
            out.push_back({numerator, QStringLiteral("mscale_all_dim ignored: matches "
                                                     "get_mscale(factor, mscale) = %1 instead of "
                                                     "the ratio %2")
                                          .arg(number(numerator), number(reference))});
        }
    } else if (config.ropeType == RopeType::Longrope && config.attentionFactor) {
        const double computed =
            factor <= 1.0
                ? 1.0
                : std::sqrt(1.0 + std::log(factor) /
                                      std::log(double(config.originalMaxPositionEmbeddings)));
        out.push_back({computed, QStringLiteral("the explicit attention_factor %1 ignored: matches "
                                                "the computed sqrt(1 + ln s / ln L0) = %2")
                                     .arg(number(reference), number(computed))});
    }
    // Values that equal the reference or an earlier alternative would say nothing new.
    std::vector<AttentionAlternative> distinct;
    for (const AttentionAlternative &alt : out) {
        const bool seen = alt.value == reference ||
                          std::any_of(distinct.begin(), distinct.end(),
                                      [&](const auto &d) { return d.value == alt.value; });
        if (!seen)
            distinct.push_back(alt);
    }
    return distinct;
}

QString typeText(const RopeConfig &config)
{
    return QLatin1Char('"') + ropeTypeName(config.ropeType) + QLatin1Char('"');
}

} // namespace

std::optional<RopeVerifyResult> ropeVerify(qint64 headDim, const RopeConfig &config,
                                           const RopeVerifyOptions &options,
                                           const RopeTable &candidate, QString *error)
{
    const auto fail = [&](const QString &message) -> std::optional<RopeVerifyResult> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    if (const QString problem = ropeConfigProblem(headDim, config); !problem.isEmpty())
        return fail(problem);
    if (!(std::isfinite(options.tolerance) && options.tolerance >= 0.0))
        return fail(QStringLiteral("tolerance must be a finite number >= 0 (got %1)")
                        .arg(options.tolerance));
    if (candidate.rows < 0 || candidate.columns < 0 ||
        qint64(candidate.values.size()) != candidate.rows * candidate.columns)
        return fail(QStringLiteral("the candidate's %1 values do not fill %2 x %3")
                        .arg(candidate.values.size())
                        .arg(candidate.rows)
                        .arg(candidate.columns));

    const RopeFrequencies reference = ropeInverseFrequencies(headDim, config);
    const std::vector<double> &theta = reference.inverseFrequencies;
    const qint64 count = qint64(theta.size());
    const double af = reference.attentionFactor;
    const double tol = options.tolerance;
    const RopeQuantity what = options.what;
    const bool isTable =
        what == RopeQuantity::Cos || what == RopeQuantity::Sin || what == RopeQuantity::CosSin;
    const bool relative = !isTable;
    const double lnBase = std::abs(std::log(config.ropeTheta));
    constexpr double infinity = std::numeric_limits<double>::infinity();

    // Shape.
    if (what == RopeQuantity::InverseFrequencies &&
        !(candidate.values.size() == std::size_t(count) &&
          (candidate.rows == 1 || candidate.columns == 1)))
        return fail(QStringLiteral("inv_freq has %1 values (1 x %1); the candidate is %2 x %3")
                        .arg(count)
                        .arg(candidate.rows)
                        .arg(candidate.columns));
    if (what == RopeQuantity::AttentionFactor && candidate.values.size() != 1)
        return fail(QStringLiteral("the attention factor is one value; the candidate is %1 x %2")
                        .arg(candidate.rows)
                        .arg(candidate.columns));
    const qint64 width = 2 * count;
    if (isTable) {
        const bool passThrough =
            what == RopeQuantity::CosSin && headDim > width && candidate.columns == headDim;
        if (candidate.rows < 1 || (candidate.columns != width && !passThrough))
            return fail(
                QStringLiteral("expected positions x %1 (the rotary dims%2); the candidate "
                               "is %3 x %4")
                    .arg(width)
                    .arg(
                        what == RopeQuantity::CosSin && headDim > width
                            ? QStringLiteral(", or x %1 with the pass-through columns").arg(headDim)
                            : QString())
                    .arg(candidate.rows)
                    .arg(candidate.columns));
    }

    const qint64 columns = std::max<qint64>(candidate.columns, 1);
    const RopeTableKind kind = what == RopeQuantity::Sin   ? RopeTableKind::Sin
                               : what == RopeQuantity::Cos ? RopeTableKind::Cos
                                                           : RopeTableKind::CosSin;
    const auto table = [&](std::vector<double> thetas, double scale, RopePairing pairing,
                           bool float32) -> Values {
        TableModel model{std::move(thetas), scale, pairing, kind, float32, candidate.columns};
        return [model, columns](qint64 i) { return model.value(i / columns, i % columns); };
    };
    const auto vector = [](std::vector<double> values) -> Values {
        return [values = std::move(values)](qint64 i) { return values[std::size_t(i)]; };
    };
    const double refScale = options.scaled ? af : 1.0;
    Values expected;
    if (isTable)
        expected = table(theta, refScale, config.pairing, false);
    else if (what == RopeQuantity::InverseFrequencies)
        expected = vector(theta);
    else
        expected = vector({af});

    // The comparison itself.
    RopeVerifyResult result;
    result.compared = qint64(candidate.values.size());
    for (qint64 i = 0; i < result.compared; ++i) {
        const double got = candidate.values[std::size_t(i)];
        const double want = expected(i);
        const double diff = std::abs(got - want);
        result.maxAbsError = std::max(result.maxAbsError, std::isnan(diff) ? infinity : diff);
        if (want != 0.0)
            result.maxRelError =
                std::max(result.maxRelError, std::isnan(diff) ? infinity : diff / std::abs(want));
        if (!within(got, want, tol, relative)) {
            if (result.differing++ == 0) {
                result.candidateValue = got;
                result.referenceValue = want;
                if (isTable) {
                    result.position = i / columns;
                    result.column = i % columns;
                    result.pair =
                        result.column < width
                            ? ropeTableColumn(kind, config.pairing, count, result.column).pair
                            : -1;
                } else if (what == RopeQuantity::InverseFrequencies) {
                    result.pair = i;
                    result.column = i;
                }
            }
        }
    }
    result.agrees = result.differing == 0;
    if (result.agrees)
        return result;

    // Hypotheses, most specific first; the first one the candidate matches names the mistake.
    std::vector<Hypothesis> hypotheses;
    const QString type = typeText(config);
    const std::optional<double> factor = ropeEffectiveFactor(config);
    const qint64 dim = ropeRotaryDims(headDim, config);
    if (what == RopeQuantity::AttentionFactor) {
        if (af != 1.0) {
            hypotheses.push_back(
                {RopeMistake::AttentionFactorDropped,
                 QStringLiteral("attention factor dropped: got 1, but rope_type %1 "
                                "scales cos and sin by %2")
                     .arg(type, number(af)),
                 vector({1.0})});
            hypotheses.push_back({RopeMistake::AttentionFactorTwice,
                                  QStringLiteral("attention factor applied twice: %1^2 = %2")
                                      .arg(number(af), number(af * af)),
                                  vector({af * af})});
        }
        for (const AttentionAlternative &alt : attentionAlternatives(config, af))
            hypotheses.push_back(
                {RopeMistake::AttentionFactorFormula, alt.what, vector({alt.value})});
    }
    if (isTable && af != 1.0) {
        if (options.scaled) {
            hypotheses.push_back({RopeMistake::AttentionFactorDropped,
                                  QStringLiteral("attention factor dropped: the table matches cos "
                                                 "and sin without the factor %1 that HF's forward "
                                                 "multiplies them by")
                                      .arg(number(af)),
                                  table(theta, 1.0, config.pairing, false)});
            hypotheses.push_back(
                {RopeMistake::AttentionFactorTwice,
                 QStringLiteral("attention factor applied twice: the table matches "
                                "cos and sin times %1^2 = %2")
                     .arg(number(af), number(af * af)),
                 table(theta, af * af, config.pairing, false)});
            for (const AttentionAlternative &alt : attentionAlternatives(config, af))
                hypotheses.push_back({RopeMistake::AttentionFactorFormula, alt.what,
                                      table(theta, alt.value, config.pairing, false)});
        } else {
            hypotheses.push_back({RopeMistake::AttentionFactorTwice,
                                  QStringLiteral("multiplied by the attention factor %1, which "
                                                 "this comparison of the unscaled table leaves out")
                                      .arg(number(af)),
                                  table(theta, af, config.pairing, false)});
        }
    }
    if (isTable && count > 1) {
        const RopePairing other =
            config.pairing == RopePairing::Half ? RopePairing::Interleaved : RopePairing::Half;
        hypotheses.push_back(
            {RopeMistake::PairingSwapped,
             QStringLiteral("half vs interleaved pairing swapped: the table is in the %1 layout, "
                            "the reference in the %2 layout")
                 .arg(labelOf(ropePairingNames, other), labelOf(ropePairingNames, config.pairing)),
             table(theta, refScale, other, false)});
    }
    if (what != RopeQuantity::AttentionFactor) {
        const auto add = [&](RopeMistake mistake, const QString &text,
                             const std::vector<double> &t) {
            if (t.size() != theta.size())
                return;
            if (isTable) {
                hypotheses.push_back({mistake, text, table(t, 1.0, config.pairing, false)});
                if (refScale != 1.0)
                    hypotheses.push_back(
                        {mistake, text, table(t, refScale, config.pairing, false)});
            } else {
                hypotheses.push_back({mistake, text, vector(t)});
            }
        };
        if (config.ropeType != RopeType::Default)
            add(RopeMistake::ScalingIgnored,
                QStringLiteral("rope_type %1 scaling ignored: matches the default type's "
                               "frequencies (rope_theta %2, no scaling)")
                    .arg(type, number(config.ropeTheta)),
                defaultThetaWithBase(headDim, config, config.ropeTheta));
        if (factor && *factor != 1.0 && config.ropeType != RopeType::Default) {
            const double s = *factor;
            add(RopeMistake::FactorOnBase,
                QStringLiteral("factor applied to the base instead of theta: matches the default "
                               "frequencies with rope_theta x factor = %1")
                    .arg(number(config.ropeTheta * s)),
                defaultThetaWithBase(headDim, config, config.ropeTheta * s));
            if (dim > 2 && config.ropeType != RopeType::Ntk)
                add(RopeMistake::FactorOnBase,
                    QStringLiteral("factor applied to the base instead of theta: matches the "
                                   "NTK-aware base rope_theta x factor^(dim/(dim-2)) = %1")
                        .arg(number(config.ropeTheta * std::pow(s, double(dim) / double(dim - 2)))),
                    defaultThetaWithBase(headDim, config,
                                         config.ropeTheta *
                                             std::pow(s, double(dim) / double(dim - 2))));
        }
    }
    if (isTable)
        hypotheses.push_back({RopeMistake::Float32Angles,
                              QStringLiteral("float32 rounding of p*theta: the table matches one "
                                             "computed with float32 angles"),
                              table(theta, refScale, config.pairing, true)});

    const auto agreesWithin = [&](qint64, double got, double want) {
        return within(got, want, tol, relative);
    };
    for (const Hypothesis &h : hypotheses) {
        if (allWithin(candidate, h.values, agreesWithin)) {
            result.mistake = h.mistake;
            result.diagnosis = h.diagnosis;
            return result;
        }
    }

    // Float32 arithmetic in general (HF's own torch code, say): every difference within what
    // float32 explains. theta_k = base^(-x_k) loses about ln(base) x_k ulps to the float32
    // exponent x_k = 2k / dim, a few more to pow and the type's rule (ln s for its factor); the
    // angle carries that relative error times p * theta; cos / sin and the scaling round once each.
    if (what != RopeQuantity::AttentionFactor) {
        constexpr double ulp = 1.0 / 16777216.0; // 2^-24
        const double lnFactor = std::abs(std::log(factor.value_or(1.0)));
        const auto thetaUlps = [&](qint64 pair) {
            return (lnBase + lnFactor) * double(pair) / double(count) + 6.0;
        };
        const auto envelope = [&](qint64 i, double got, double want) {
            if (isTable) {
                const qint64 p = i / columns, c = i % columns;
                if (c >= width)
                    return within(got, want, tol, false);
                const qint64 pair = ropeTableColumn(kind, config.pairing, count, c).pair;
                const double angle = double(p) * theta[std::size_t(pair)];
                const double bound =
                    tol + std::abs(refScale) * ulp * (2.0 + thetaUlps(pair) * angle);
                return std::abs(got - want) <= bound;
            }
            const double bound = want == 0.0 ? tol : (tol + thetaUlps(i) * ulp) * std::abs(want);
            return std::abs(got - want) <= bound;
        };
        if (allWithin(candidate, expected, envelope)) {
            result.mistake = RopeMistake::Float32Angles;
            result.diagnosis =
                isTable ? QStringLiteral("float32 rounding of p*theta: every difference is within "
                                         "what float32 angles give (it grows with the position)")
                        : QStringLiteral("float32 rounding of theta: every difference is within "
                                         "float32 precision of the frequencies");
        }
    }
    return result;
}

QStringList ropeVerifyReport(const RopeVerifyResult &result, const RopeVerifyOptions &options)
{
    QStringList lines;
    const QString what = nameOf(ropeQuantityNames, options.what);
    const QString errors = QStringLiteral("max abs error %1, max rel error %2")
                               .arg(QString::number(result.maxAbsError, 'g', 3),
                                    QString::number(result.maxRelError, 'g', 3));
    if (result.agrees) {
        lines << QStringLiteral("%1 agrees with Hugging Face within %2 (%3 values): %4")
                     .arg(what, QString::number(options.tolerance, 'g', 3))
                     .arg(result.compared)
                     .arg(errors);
        return lines;
    }
    lines << QStringLiteral("%1 differs from Hugging Face: %2 of %3 values beyond %4; %5")
                 .arg(what)
                 .arg(result.differing)
                 .arg(result.compared)
                 .arg(QString::number(options.tolerance, 'g', 3), errors);
    QString where;
    if (result.position >= 0)
        where = result.pair >= 0 ? QStringLiteral("position %1, pair %2 (column %3)")
                                       .arg(result.position)
                                       .arg(result.pair)
                                       .arg(result.column)
                                 : QStringLiteral("position %1, column %2 (pass-through)")
                                       .arg(result.position)
                                       .arg(result.column);
    else if (result.pair >= 0)
        where = QStringLiteral("pair %1").arg(result.pair);
    else
        where = QStringLiteral("the value");
    lines << QStringLiteral("first difference at %1: got %2, expected %3")
                 .arg(where, QString::number(result.candidateValue, 'g', 17),
                      QString::number(result.referenceValue, 'g', 17));
    if (!result.diagnosis.isEmpty())
        lines << QStringLiteral("diagnosis: ") + result.diagnosis;
    return lines;
}

} // namespace pe
