// The known mistakes `pescope verify` names: each is a hypothesis about how the candidate was
// computed, recomputed from the config and checked against the candidate under each float32
// computation of the error model (an engine that makes a mistake usually computes in float32 as
// well, HF's way or ggml's). The hypothesis that explains the candidate under the tightest
// computation names the mistake; among equals, the most specific (tried first).
#include "ropeverifymodel.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pe::verifymodel {

namespace {

QString number(double x)
{
    return QString::number(x, 'g', 10);
}

QString typeText(RopeType type)
{
    return QLatin1Char('"') + ropeTypeName(type) + QLatin1Char('"');
}

// The base fitted from a candidate's frequencies (see otherBases).
struct FittedBases
{
    std::optional<double> firstTwo;
    std::optional<double> firstLast; // the first and a far pair (the one best resolved)
};

// Frequencies another computation gives, and what to call that computation.
struct ThetaHypothesis
{
    RopeMistake mistake;
    QString text;
    std::vector<double> theta;
    std::vector<double> scales; // attention factors to try (tables only), besides the reference's
};

bool sameFrequencies(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::abs(a[i] - b[i]) <= 1e-12 * std::abs(b[i])))
            return false;
    return true;
}

std::vector<double> frequencies(qint64 headDim, const RopeConfig &config)
{
    return ropeInverseFrequencies(headDim, config).inverseFrequencies;
}

RopeConfig asType(const RopeConfig &config, RopeType type)
{
    RopeConfig other = config;
    other.ropeType = type;
    if (config.ropeType == RopeType::Proportional)
        other.partialRotaryFactor = 1.0; // proportional rotates the whole head
    return other;
}

// The default type's frequencies for `base` (scaling ignored, the factor on the base).
std::vector<double> defaultWithBase(qint64 headDim, const RopeConfig &config, double base)
{
    RopeConfig plain = asType(config, RopeType::Default);
    plain.ropeTheta = base;
    return frequencies(headDim, plain);
}

// The other longrope factor set: long_factor within the original context, short beyond it.
void longropeSet(const Context &c, std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    if (config.ropeType != RopeType::Longrope)
        return;
    RopeConfig other = config;
    const bool usesLong = ropeUsesLongFactors(config);
    other.sequenceLength = usesLong ? 0 : config.originalMaxPositionEmbeddings + 1;
    const qint64 length = config.sequenceLength;
    const QString seen = length > 0 ? QStringLiteral("sequence length %1").arg(length)
                                    : QStringLiteral("seq_len None (the module as loaded)");
    const QString text =
        usesLong ? QStringLiteral("the other longrope factor set: the table matches short_factor, "
                                  "but at %1 (> original_max_position_embeddings %2) HF's forward "
                                  "uses long_factor")
                       .arg(seen)
                       .arg(config.originalMaxPositionEmbeddings)
                 : QStringLiteral("the other longrope factor set: the table matches long_factor, "
                                  "but at %1 (<= original_max_position_embeddings %2) HF uses "
                                  "short_factor")
                       .arg(seen)
                       .arg(config.originalMaxPositionEmbeddings);
    out->push_back({RopeMistake::LongropeFactorSet, text, frequencies(c.headDim, other), {}});
}

// The config's factor under another rope type's rule (linear, dynamic, yarn, llama3).
void otherRules(const Context &c, std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    const std::optional<double> factor = ropeEffectiveFactor(config);
    if (!factor || config.ropeType == RopeType::Default)
        return;
    // (The NTK-aware base is factorOnBase's second hypothesis.)
    for (RopeType type : {RopeType::Linear, RopeType::Dynamic, RopeType::Yarn, RopeType::Llama3}) {
        if (type == config.ropeType)
            continue;
        RopeConfig other = asType(config, type);
        other.factor = *factor;
        if (other.originalMaxPositionEmbeddings < 1 && config.maxPositionEmbeddings > 0)
            other.originalMaxPositionEmbeddings =
                std::max<qint64>(1, qint64(std::llround(config.maxPositionEmbeddings / *factor)));
        if (config.ropeType != RopeType::Llama3) { // Llama 3.1's published values
            other.lowFreqFactor = 1.0;
            other.highFreqFactor = 4.0;
        }
        if (config.ropeType != RopeType::Yarn) {
            other.attentionFactor.reset();
            other.mscale.reset();
            other.mscaleAllDim.reset();
        }
        if (!ropeConfigProblem(c.headDim, other).isEmpty())
            continue;
        const RopeFrequencies f = ropeInverseFrequencies(c.headDim, other);
        out->push_back({RopeMistake::ScalingRuleSwapped,
                        QStringLiteral("another scaling rule: the table matches rope_type %1 with "
                                       "factor %2 (the config says %3)")
                            .arg(typeText(type), number(*factor), typeText(config.ropeType)),
                        f.inverseFrequencies,
                        {f.attentionFactor}});
    }
}

void factorOnBase(const Context &c, std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    const std::optional<double> factor = ropeEffectiveFactor(config);
    if (!factor || *factor == 1.0 || config.ropeType == RopeType::Default)
        return;
    const double s = *factor;
    const double base = config.ropeTheta;
    out->push_back({RopeMistake::FactorOnBase,
                    QStringLiteral("factor applied to the base instead of theta: matches the "
                                   "default frequencies with rope_theta x factor = %1")
                        .arg(number(base * s)),
                    defaultWithBase(c.headDim, config, base * s),
                    {}});
    const qint64 dim = ropeRotaryDims(c.headDim, config);
    if (dim > 2 && config.ropeType != RopeType::Ntk) {
        const double ntk = base * std::pow(s, double(dim) / double(dim - 2));
        out->push_back({RopeMistake::FactorOnBase,
                        QStringLiteral("factor applied to the base instead of theta: matches the "
                                       "NTK-aware base rope_theta x factor^(dim/(dim-2)) = %1")
                            .arg(number(ntk)),
                        defaultWithBase(c.headDim, config, ntk),
                        {}});
    }
}

// x rounded to `digits` significant digits.
double significant(double x, int digits)
{
    const double scale = std::pow(10.0, digits - 1 - int(std::floor(std::log10(x))));
    return std::round(x * scale) / scale;
}

// Another rope_theta: the base fitted from the ratio of the first two frequencies (which every
// rule but longrope leaves unscaled), rounded to a few significant digits, the base fitted from
// the first and a far one (a low frequency measured over the whole table: a real number, as a
// dynamic or otherwise computed base is) and HF's default.
void otherBases(const Context &c, const FittedBases &fittedBases, std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    std::vector<double> bases;
    const auto valid = [](std::optional<double> b) { return b && std::isfinite(*b) && *b > 1.0; };
    const std::optional<double> fitted =
        valid(fittedBases.firstTwo) ? fittedBases.firstTwo : fittedBases.firstLast;
    if (valid(fitted)) {
        for (int digits = 1; digits <= 5; ++digits)
            bases.push_back(significant(*fitted, digits));
        bases.push_back(std::round(*fitted));
    }
    if (valid(fittedBases.firstLast)) {
        bases.push_back(std::round(*fittedBases.firstLast));
        // The real number, to the 7 digits a float32 table resolves (see fittedBases()), and as
        // fitted.
        bases.push_back(significant(*fittedBases.firstLast, 7));
        bases.push_back(*fittedBases.firstLast);
    }
    bases.push_back(10000.0); // transformers' default_theta
    // A base this close to the config's is float32's own noise, not a mistake: theta_scale's
    // rounding in ggml's recurrence (up to about 3 units, theta_i off by i times that) is what a
    // base off by 3u * d/2 relative gives.
    const double pairs = double(c.reference.inverseFrequencies.size());
    const double floatBaseShift = 4.0 * std::ldexp(1.0, -24) * pairs;
    // Bases tried are kept apart by what a ggml table at a round base fits to: theta_scale =
    // powf(base, -2/d) rounded to float32 (half a unit, 2^-24 relative at most, and a little for
    // powf) is a base off by 2^-24 * d/2 relative; so a ggml table at 30000 is named 30000, not its
    // fit 29999.98, while HF's product at 30527.74 (8.6e-6 from 30528, beyond 3.8e-6 at d = 128)
    // is tried at its real base and, explained there under the tighter product, named by it.
    const double roundingBaseShift = 1.25 * std::ldexp(1.0, -24) * pairs;
    std::vector<double> tried;
    for (double base : bases) {
        const bool seen = std::any_of(tried.begin(), tried.end(), [&](double b) {
            return std::abs(b - base) <= roundingBaseShift * b;
        });
        if (seen || std::abs(base - config.ropeTheta) <= floatBaseShift * config.ropeTheta ||
            base <= 1.0)
            continue;
        tried.push_back(base);
        RopeConfig other = config;
        other.ropeTheta = base;
        if (!ropeConfigProblem(c.headDim, other).isEmpty())
            continue;
        out->push_back({RopeMistake::BaseChanged,
                        QStringLiteral("another base theta: the table matches rope_theta %1 (the "
                                       "config says %2)%3")
                            .arg(number(base), number(config.ropeTheta),
                                 fitted ? QStringLiteral("; fitted from the ratio of its first two "
                                                         "frequencies: %1")
                                              .arg(QString::number(*fitted, 'g', 7))
                                        : QString()),
                        frequencies(c.headDim, other),
                        {}});
        // Two mistakes at once: the scaling ignored as well (10000 without scaling is the
        // config ignored altogether, configIgnored's).
        if (config.ropeType != RopeType::Default && base != 10000.0)
            out->push_back(
                {RopeMistake::ScalingIgnored,
                 QStringLiteral("two mistakes: rope_type %1 scaling ignored and another "
                                "base: the table matches the default type's "
                                "frequencies with rope_theta %2 (the config says %3)")
                     .arg(typeText(config.ropeType), number(base), number(config.ropeTheta)),
                 defaultWithBase(c.headDim, config, base),
                 {}});
    }
}

void otherWidthsUnmerged(const Context &c, qint64 pairs, std::vector<ThetaHypothesis> *out);

// Frequencies of another rotary width: `pairs` is the candidate's pair count. Explanations that
// give the same frequencies (head_dim 64, or partial_rotary_factor 0.5 of 128) are named together.
void otherWidths(const Context &c, qint64 pairs, std::vector<ThetaHypothesis> *out)
{
    std::vector<ThetaHypothesis> found;
    otherWidthsUnmerged(c, pairs, &found);
    const QString prefix = QStringLiteral("another rotary width: ");
    for (ThetaHypothesis &h : found) {
        const auto same = std::find_if(out->begin(), out->end(), [&](const ThetaHypothesis &o) {
            return o.mistake == RopeMistake::RotaryWidth && sameFrequencies(o.theta, h.theta);
        });
        if (same == out->end())
            out->push_back(std::move(h));
        else
            same->text += QStringLiteral("; or, the same frequencies: ") +
                          h.text.mid(h.text.startsWith(prefix) ? prefix.size() : 0);
    }
}

void otherWidthsUnmerged(const Context &c, qint64 pairs, std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    const qint64 headDim = c.headDim;
    const qint64 dims = ropeRotaryDims(headDim, config);
    const auto add = [&](qint64 dim, const RopeConfig &other, const QString &text) {
        std::vector<double> theta = frequencies(dim, other);
        if (qint64(theta.size()) < pairs)
            return;
        theta.resize(std::size_t(pairs)); // the exponent over another width, fewer pairs kept
        out->push_back({RopeMistake::RotaryWidth, text, theta, {}});
    };
    const QString configured =
        QStringLiteral("the config rotates %1 dims (head_dim %2 x partial_rotary_factor %3)")
            .arg(dims)
            .arg(headDim)
            .arg(number(config.partialRotaryFactor));
    if (config.ropeType == RopeType::Proportional) {
        RopeConfig partial = config;
        partial.ropeType = RopeType::Default;
        add(headDim, partial,
            QStringLiteral("another rotary width: the table matches partial rotary over %1 of "
                           "the head's %2 dims (exponent 2i/%1); proportional RoPE rotates "
                           "frequencies 2i/%2 and zeros")
                .arg(ropeRotaryDims(headDim, partial))
                .arg(headDim));
    }
    if (config.partialRotaryFactor < 1.0) {
        RopeConfig whole = config;
        whole.partialRotaryFactor = 1.0;
        add(headDim, whole,
            QStringLiteral("another rotary width: partial_rotary_factor %1 ignored: the table "
                           "matches frequencies over all %2 dims of the head; %3")
                .arg(number(config.partialRotaryFactor))
                .arg(headDim)
                .arg(configured));
    } else if (2 * pairs < headDim) {
        RopeConfig part = config;
        part.partialRotaryFactor = double(2 * pairs) / double(headDim);
        add(headDim, part,
            QStringLiteral("another rotary width: the table rotates %1 of the head's %2 dims "
                           "(partial_rotary_factor %3); the config rotates all %2")
                .arg(2 * pairs)
                .arg(headDim)
                .arg(number(part.partialRotaryFactor)));
    }
    // Another head_dim: hidden_size / heads where the config gives head_dim, or the reverse.
    const double perPart = config.partialRotaryFactor;
    for (const qint64 other : {qint64(std::llround(double(2 * pairs) / perPart)), 2 * pairs}) {
        if (other < 2 || other == headDim || other > ropeMaxHeadDim)
            continue;
        add(other, config,
            QStringLiteral("another rotary width: the table matches head_dim %1 (%2 rotary "
                           "dims); %3")
                .arg(other)
                .arg(ropeRotaryDims(other, config))
                .arg(configured));
    }
}

// The candidate's angle p * theta of `pair` at `row`, from its cos and / or sin columns.
std::optional<double> angleAt(const RopeTable &t, const std::vector<ColumnRole> &roles, qint64 pair,
                              qint64 row, double scale)
{
    std::optional<double> cosine, sine;
    for (std::size_t c = 0; c < roles.size(); ++c)
        if (roles[c].pair == pair)
            (roles[c].cosine ? cosine : sine) = t.at(row, qint64(c)) / scale;
    if (cosine && sine)
        return std::atan2(*sine, *cosine);
    if (cosine)
        return std::acos(std::clamp(*cosine, -1.0, 1.0));
    if (sine)
        return std::asin(std::clamp(*sine, -1.0, 1.0));
    return std::nullopt;
}

// theta of `pair` read from the table: the angle at position 1, refined at the furthest row
// whose angle stays below a half turn (a quarter for sin alone).
std::optional<double> thetaOf(const RopeTable &t, const std::vector<ColumnRole> &roles, qint64 pair,
                              double scale)
{
    if (t.rows < 2)
        return std::nullopt;
    // The angle per row, roughly: at row 1, or (a low frequency whose float32 cos at row 1 is
    // 1) at the first row of 2, 4, 8, ... where it is measurable; doubling from below 0.01 rad
    // cannot pass pi.
    qint64 probe = 1;
    std::optional<double> rough = angleAt(t, roles, pair, probe, scale);
    while (rough && *rough < 0.01 && probe < t.rows - 1) {
        probe = std::min(2 * probe, t.rows - 1);
        rough = angleAt(t, roles, pair, probe, scale);
    }
    if (!rough || !(*rough > 0.0))
        return std::nullopt;
    *rough /= double(probe);
    const bool sinOnly = std::none_of(roles.begin(), roles.end(), [&](const ColumnRole &r) {
        return r.pair == pair && r.cosine;
    });
    const double reach = (sinOnly ? 0.45 : 0.9) * std::numbers::pi;
    const qint64 row = std::clamp<qint64>(qint64(std::floor(reach / *rough)), 1, t.rows - 1);
    const std::optional<double> far = angleAt(t, roles, pair, row, scale);
    return far ? std::optional(*far / double(row)) : std::nullopt;
}

// The base whose frequencies have the ratio theta0 / theta_k: theta_i = base^(-2i/d).
std::optional<double> baseFromRatio(const Context &c, double theta0, double thetaK, qint64 k)
{
    if (!(theta0 > 0.0 && thetaK > 0.0 && theta0 > thetaK && k > 0))
        return std::nullopt;
    const double d = c.config.ropeType == RopeType::Proportional
                         ? double(c.headDim)
                         : double(ropeRotaryDims(c.headDim, c.config));
    return std::pow(theta0 / thetaK, d / (2.0 * double(k)));
}

// The config ignored altogether: HF's defaults (rope_theta 10000, no scaling, factor 1).
void configIgnored(const Context &c, std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    if (config.ropeType == RopeType::Default || config.ropeTheta == 10000.0)
        return; // scaling ignored, or another base, says it
    out->push_back({RopeMistake::ConfigIgnored,
                    QStringLiteral("the config ignored altogether: the table matches the defaults "
                                   "(rope_theta 10000, no scaling), not rope_type %1 with "
                                   "rope_theta %2")
                        .arg(typeText(config.ropeType), number(config.ropeTheta)),
                    defaultWithBase(c.headDim, config, 10000.0),
                    {}});
}

// Dynamic NTK's base computed at another sequence length (vLLM's old rule computed it once, at
// max_position_embeddings x factor): the length whose HF dynamic base is the fitted one.
void dynamicLength(const Context &c, std::optional<double> fitted,
                   std::vector<ThetaHypothesis> *out)
{
    const RopeConfig &config = c.config;
    if (config.ropeType != RopeType::Dynamic || !fitted || !(*fitted > config.ropeTheta) ||
        config.maxPositionEmbeddings < 1)
        return;
    const double s = ropeEffectiveFactor(config).value_or(1.0);
    const double d = double(ropeRotaryDims(c.headDim, config));
    if (!(s > 1.0) || d <= 2.0)
        return;
    const double m = double(config.maxPositionEmbeddings);
    const double solved = m * (std::pow(*fitted / config.ropeTheta, (d - 2.0) / d) + s - 1.0) / s;
    std::vector<qint64> lengths{qint64(std::llround(solved)), qint64(std::llround(m * s))};
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    for (const qint64 length : lengths) {
        if (length <= config.maxPositionEmbeddings || length > ropeMaxContext ||
            length == std::max(config.sequenceLength, config.maxPositionEmbeddings))
            continue;
        RopeConfig other = config;
        other.sequenceLength = length;
        const double base = ropeDynamicBase(c.headDim, other);
        out->push_back({RopeMistake::BaseChanged,
                        QStringLiteral("dynamic NTK's base computed at sequence length %1: the "
                                       "table matches base %2, HF's dynamic rule at %1 positions; "
                                       "at this table's %3 HF uses base %4")
                            .arg(length)
                            .arg(number(base))
                            .arg(config.sequenceLength > 0
                                     ? QStringLiteral("%1 positions").arg(config.sequenceLength)
                                     : QStringLiteral("length (none given)"))
                            .arg(number(ropeDynamicBase(c.headDim, config))),
                        frequencies(c.headDim, other),
                        {}});
    }
}

// The frequency hypotheses for a candidate of the config's width, most specific first.
std::vector<ThetaHypothesis> frequencyHypotheses(const Context &c, const FittedBases &fitted)
{
    std::vector<ThetaHypothesis> out;
    longropeSet(c, &out);
    configIgnored(c, &out);
    dynamicLength(c, fitted.firstLast ? fitted.firstLast : fitted.firstTwo, &out);
    if (c.config.ropeType != RopeType::Default)
        out.push_back({RopeMistake::ScalingIgnored,
                       QStringLiteral("rope_type %1 scaling ignored: matches the default type's "
                                      "frequencies (rope_theta %2, no scaling)")
                           .arg(typeText(c.config.ropeType), number(c.config.ropeTheta)),
                       defaultWithBase(c.headDim, c.config, c.config.ropeTheta),
                       {}});
    otherRules(c, &out);
    factorOnBase(c, &out);
    // Before the bases: exponents over another width are also another base's (10000^(2i/64) is
    // 10^(2i/16)); the width is the likelier mistake.
    otherWidths(c, qint64(c.reference.inverseFrequencies.size()), &out);
    otherBases(c, fitted, &out);
    // A hypothesis that computes the reference's own frequencies says nothing.
    std::erase_if(out, [&](const ThetaHypothesis &h) {
        return sameFrequencies(h.theta, c.reference.inverseFrequencies);
    });
    return out;
}

// Scale-only hypotheses: the attention factor dropped, doubled, computed another way.
struct ScaleHypothesis
{
    RopeMistake mistake;
    QString text;
    double scale;
};

// The attention factors other implementations compute for yarn / longrope.
std::vector<ScaleHypothesis> attentionAlternatives(const RopeConfig &config, double reference)
{
    std::vector<ScaleHypothesis> out;
    const double factor = ropeEffectiveFactor(config).value_or(1.0);
    const RopeMistake formula = RopeMistake::AttentionFactorFormula;
    if (config.ropeType == RopeType::Yarn) {
        const bool ratio = config.mscale && *config.mscale != 0.0 && config.mscaleAllDim &&
                           *config.mscaleAllDim != 0.0;
        double computed = ropeYarnGetMscale(factor);
        if (ratio)
            computed = ropeYarnGetMscale(factor, *config.mscale) /
                       ropeYarnGetMscale(factor, *config.mscaleAllDim);
        if (config.attentionFactor)
            out.push_back({formula,
                           QStringLiteral("the explicit attention_factor %1 ignored: matches the "
                                          "computed %2")
                               .arg(number(reference), number(computed)),
                           computed});
        if (ratio) {
            const double plain = ropeYarnGetMscale(factor);
            out.push_back({formula,
                           QStringLiteral("mscale / mscale_all_dim ignored: matches "
                                          "get_mscale(factor) = %1 instead of get_mscale(factor, "
                                          "mscale) / get_mscale(factor, mscale_all_dim) = %2")
                               .arg(number(plain), number(reference)),
                           plain});
            const double numerator = ropeYarnGetMscale(factor, *config.mscale);
            out.push_back({formula,
                           QStringLiteral("mscale_all_dim ignored: matches get_mscale(factor, "
                                          "mscale) = %1 instead of the ratio %2")
                               .arg(number(numerator), number(reference)),
                           numerator});
        }
    } else if (config.ropeType == RopeType::Longrope && config.attentionFactor) {
        const double computed =
            factor <= 1.0
                ? 1.0
                : std::sqrt(1.0 + std::log(factor) /
                                      std::log(double(config.originalMaxPositionEmbeddings)));
        out.push_back({formula,
                       QStringLiteral("the explicit attention_factor %1 ignored: matches the "
                                      "computed sqrt(1 + ln s / ln L0) = %2")
                           .arg(number(reference), number(computed)),
                       computed});
    }
    // Values that equal the reference or an earlier alternative would say nothing new.
    std::vector<ScaleHypothesis> distinct;
    for (const ScaleHypothesis &alt : out) {
        const bool seen = alt.scale == reference ||
                          std::any_of(distinct.begin(), distinct.end(),
                                      [&](const auto &d) { return d.scale == alt.scale; });
        if (!seen)
            distinct.push_back(alt);
    }
    return distinct;
}

std::vector<ScaleHypothesis> scaleHypotheses(const Context &c)
{
    const double af = c.reference.attentionFactor;
    std::vector<ScaleHypothesis> out;
    if (af == 1.0)
        return out;
    if (!c.options.scaled) {
        out.push_back({RopeMistake::AttentionFactorTwice,
                       QStringLiteral("multiplied by the attention factor %1, which this "
                                      "comparison of the unscaled table leaves out")
                           .arg(number(af)),
                       af});
        return out;
    }
    out.push_back({RopeMistake::AttentionFactorDropped,
                   QStringLiteral("attention factor dropped: the table matches cos and sin "
                                  "without the factor %1 that HF's forward multiplies them by (an "
                                  "engine that applies it elsewhere: pass --unscaled)")
                       .arg(number(af)),
                   1.0});
    out.push_back({RopeMistake::AttentionFactorTwice,
                   QStringLiteral("attention factor applied twice: the table matches cos and sin "
                                  "times %1^2 = %2")
                       .arg(number(af), number(af * af)),
                   af * af});
    for (const ScaleHypothesis &alt : attentionAlternatives(c.config, af))
        out.push_back(alt);
    return out;
}

// Tables: the hypotheses above, each checked against the candidate.
class TableDiagnoser
{
public:
    TableDiagnoser(const Context &context, const RopeTable &candidate)
        : m_c(context), m_t(candidate),
          m_roles(columnRoles(context.options.what, context.layout, context.candidatePairs,
                              candidate.columns))
    {}

    std::optional<Diagnosis> run()
    {
        const std::vector<double> &theta = m_c.reference.inverseFrequencies;
        if (m_c.candidatePairs != qint64(theta.size())) {
            std::vector<ThetaHypothesis> widths;
            otherWidths(m_c, m_c.candidatePairs, &widths);
            rankTheta(widths);
            return m_best;
        }
        halfPrecision();
        for (const ScaleHypothesis &h : scaleHypotheses(m_c))
            if (!settled())
                consider(method(theta, h.scale, 0, m_roles), {h.mistake, h.text});
        pairingSwapped();
        if (!settled())
            rankTheta(frequencyHypotheses(m_c, fittedBases()));
        if (!settled())
            shifted();
        return m_best;
    }

private:
    Float32Method method(const std::vector<double> &theta, double scale, qint64 shift,
                         const std::vector<ColumnRole> &roles) const
    {
        return tableMethod(m_t, TableModel{theta, scale, shift, roles}, m_c.allowance);
    }

    // Keeps `d` when it explains the table under a tighter computation than the best so far.
    void consider(Float32Method found, Diagnosis d)
    {
        if (found == Float32Method::None || (m_best && m_best->method <= found))
            return;
        d.method = found;
        m_best = std::move(d);
    }
    // Nothing can explain the table better than the values' own rounding.
    bool settled() const { return m_best && m_best->method <= Float32Method::Values; }

    void rankTheta(const std::vector<ThetaHypothesis> &hypotheses)
    {
        const double reference = m_c.referenceScale;
        for (const ThetaHypothesis &h : hypotheses) {
            std::vector<double> scales{reference, 1.0};
            scales.insert(scales.end(), h.scales.begin(), h.scales.end());
            for (double scale : scales) {
                if (settled())
                    return;
                const Float32Method found = method(h.theta, scale, 0, m_roles);
                if (found == Float32Method::None)
                    continue;
                QString text = h.text;
                if (scale != reference)
                    text += QStringLiteral(" (times %1, not the attention factor %2)")
                                .arg(number(scale), number(reference));
                consider(found, {h.mistake, text});
                break;
            }
        }
    }

    // Values that are all float16 (or bfloat16) numbers in a wider file, and HF's values rounded
    // to that type: the engine rounded them (a float16 cache, a bfloat16 forward) and widened.
    void halfPrecision()
    {
        const TensorDType stored = m_c.options.precision;
        if (stored != TensorDType::F32 && stored != TensorDType::F64)
            return;
        for (const TensorDType half : {TensorDType::F16, TensorDType::BF16}) {
            const bool all = std::all_of(m_t.values.begin(), m_t.values.end(),
                                         [&](double v) { return roundTo(half, v) == v; });
            if (!all)
                continue;
            Allowance rounded = m_c.allowance.with(Float32Method::Values);
            rounded.precision = half;
            const TableModel model{m_c.reference.inverseFrequencies, m_c.referenceScale, 0,
                                   m_roles};
            if (!tableMatches(m_t, model, rounded))
                continue;
            consider(Float32Method::Values,
                     {RopeMistake::HalfPrecisionValues,
                      QStringLiteral("values rounded to %1 and stored as %2: every value is a %1 "
                                     "number, HF's values rounded to %1 (keep the table in "
                                     "float32, or save it as %1 to compare it at that precision)")
                          .arg(half == TensorDType::F16 ? QStringLiteral("float16")
                                                        : QStringLiteral("bfloat16"),
                               stored == TensorDType::F32 ? QStringLiteral("float32")
                                                          : QStringLiteral("float64"))});
            return;
        }
    }

    // Against an explicit layout: the other of half and interleaved.
    void pairingSwapped()
    {
        const RopeLayout layout = m_c.layout;
        if (settled() || m_c.options.layout == RopeLayout::Auto || m_c.candidatePairs < 2 ||
            (layout != RopeLayout::Half && layout != RopeLayout::Interleaved))
            return;
        const RopeLayout other =
            layout == RopeLayout::Half ? RopeLayout::Interleaved : RopeLayout::Half;
        const auto roles = columnRoles(m_c.options.what, other, m_c.candidatePairs, m_t.columns);
        consider(
            method(m_c.reference.inverseFrequencies, m_c.referenceScale, 0, roles),
            Diagnosis{RopeMistake::PairingSwapped,
                      QStringLiteral("half vs interleaved pairing swapped: the table is in the "
                                     "%1 layout, the comparison asked for the %2 layout")
                          .arg(nameOf(ropeLayoutNames, other), nameOf(ropeLayoutNames, layout))});
    }

    // The base fitted from the table: from the ratio of its first two frequencies, and (a real
    // number to the table's precision) from the first and the far one best resolved.
    FittedBases fittedBases() const
    {
        const qint64 n = m_c.candidatePairs;
        if (n < 2)
            return {};
        // The scale read from position 0's cos, where there is one.
        double scale = m_c.referenceScale;
        for (std::size_t c = 0; c < m_roles.size(); ++c)
            if (m_roles[c].pair == 0 && m_roles[c].cosine && m_t.at(0, qint64(c)) > 0.0)
                scale = m_t.at(0, qint64(c));
        const auto t0 = thetaOf(m_t, m_roles, 0, scale);
        const auto t1 = thetaOf(m_t, m_roles, 1, scale);
        FittedBases out;
        if (t0 && t1)
            out.firstTwo = baseFromRatio(m_c, *t0, *t1, 1);
        if (!t0 || n <= 2)
            return out;
        // The far frequency best resolved: pair k's angle a at the row it is read at, through
        // acos where the table has no sin (error ~ u / sin a), gives the base to u / (k a sin a)
        // relative; the last pair's angle is small in a short table (0.16 rad at 4096 positions
        // for base 30,000), a middle one's reaches 0.9 pi.
        double best = 0;
        for (qint64 k = n / 2; k < n; ++k) {
            const auto tk = thetaOf(m_t, m_roles, k, scale);
            if (!tk || !(*tk > 0.0))
                continue;
            const double a = std::min(0.9 * std::numbers::pi, *tk * double(m_t.rows - 1));
            const double resolution = double(k) * a * std::max(std::sin(a), 0.3);
            if (resolution > best) {
                best = resolution;
                out.firstLast = baseFromRatio(m_c, *t0, *tk, k);
            }
        }
        return out;
    }

    // Row p holds position p + k: k searched exactly, row 0 first, then the whole table.
    void shifted()
    {
        const std::vector<double> &theta = m_c.reference.inverseFrequencies;
        const TableModel probe{theta, m_c.referenceScale, 0, m_roles};
        const qint64 reach = std::clamp<qint64>(4 * m_t.rows, 64, qint64(1) << 16);
        const qint64 columns = std::min<qint64>(m_t.columns, 16);
        const Allowance widest = m_c.allowance.with(Float32Method::FastTrig);
        for (qint64 k = 1; k <= reach; ++k) {
            for (const qint64 shift : {k, -k}) {
                TableModel model = probe;
                model.shift = shift;
                bool close = true;
                for (qint64 c = 0; c < columns && close; ++c)
                    close = std::abs(m_t.at(0, c) - model.value(0, c)) <= widest.bound(model, 0, c);
                if (!close)
                    continue;
                const Float32Method found = tableMethod(m_t, model, m_c.allowance);
                if (found == Float32Method::None)
                    continue;
                consider(found,
                         Diagnosis{RopeMistake::PositionsShifted,
                                   QStringLiteral("positions shifted by %1%2: row p holds position "
                                                  "p %3 %4 (HF's row p is position p)")
                                       .arg(shift > 0 ? QStringLiteral("+") : QString())
                                       .arg(shift)
                                       .arg(shift > 0 ? QStringLiteral("+") : QStringLiteral("-"))
                                       .arg(std::abs(shift))});
                return;
            }
        }
    }

    const Context &m_c;
    const RopeTable &m_t;
    std::vector<ColumnRole> m_roles;
    std::optional<Diagnosis> m_best;
};

} // namespace

std::optional<Diagnosis> diagnoseTable(const Context &context, const RopeTable &candidate)
{
    return TableDiagnoser(context, candidate).run();
}

std::optional<Diagnosis> diagnoseFrequencies(const Context &context,
                                             std::span<const double> candidate)
{
    const std::vector<double> &theta = context.reference.inverseFrequencies;
    std::vector<ThetaHypothesis> hypotheses;
    if (qint64(candidate.size()) != qint64(theta.size())) {
        otherWidths(context, qint64(candidate.size()), &hypotheses);
    } else {
        FittedBases fitted;
        const std::size_t n = candidate.size();
        if (n >= 2)
            fitted.firstTwo = baseFromRatio(context, candidate[0], candidate[1], 1);
        if (n > 2)
            fitted.firstLast =
                baseFromRatio(context, candidate[0], candidate[n - 1], qint64(n) - 1);
        hypotheses = frequencyHypotheses(context, fitted);
    }
    std::optional<Diagnosis> best;
    for (const ThetaHypothesis &h : hypotheses) {
        const Float32Method found = vectorMethod(candidate, h.theta, context.allowance);
        if (found != Float32Method::None && (!best || found < best->method))
            best = Diagnosis{h.mistake, h.text, found};
    }
    return best;
}

std::optional<Diagnosis> diagnoseAttentionFactor(const Context &context, double candidate)
{
    const double af = context.reference.attentionFactor;
    std::vector<ScaleHypothesis> hypotheses;
    if (af != 1.0) {
        hypotheses.push_back({RopeMistake::AttentionFactorDropped,
                              QStringLiteral("attention factor dropped: got 1, but rope_type %1 "
                                             "scales cos and sin by %2")
                                  .arg(typeText(context.config.ropeType), number(af)),
                              1.0});
        hypotheses.push_back({RopeMistake::AttentionFactorTwice,
                              QStringLiteral("attention factor applied twice: %1^2 = %2")
                                  .arg(number(af), number(af * af)),
                              af * af});
    }
    for (const ScaleHypothesis &alt : attentionAlternatives(context.config, af))
        hypotheses.push_back(alt);
    for (const ScaleHypothesis &h : hypotheses) {
        const double bound = context.options.tolerance * std::abs(h.scale) +
                             precisionSpacing(TensorDType::F32, std::abs(h.scale));
        if (std::abs(candidate - h.scale) <= bound)
            return Diagnosis{h.mistake, h.text};
    }
    return std::nullopt;
}

} // namespace pe::verifymodel
