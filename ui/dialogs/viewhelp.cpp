#include "dialogs/viewhelp.h"

#include "rope/ropetables.h"

#include <QStringList>

#include <cmath>
#include <numbers>

namespace pe {

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

// A parameter as people write it: 500000, not the forms' shortest 5e+05.
QString parameter(double v)
{
    return QString::number(v, 'g', 12);
}

// The angular frequency of a phase column (radians per position): the plan's own fixed-point
// step, so the text shows what the backends computed with.
double columnOmega(const EncodingSpec &spec, qint64 column)
{
    const MatrixPlan plan = spec.plan();
    const auto *phases = std::get_if<PhaseColumnsPlan>(&plan);
    if (!phases || column < 0 || column >= qint64(phases->columns.size()))
        return 0.0;
    return 2.0 * std::numbers::pi *
           std::ldexp(double(phases->columns[std::size_t(column)].step), -64);
}

QString sinusoidalFormula(const SinusoidalScheme &s, qint64 dims)
{
    const QString base = parameter(s.base);
    const QString angle =
        QStringLiteral("<i>p</i> / %1<sup>2<i>i</i>/%2</sup>").arg(base).arg(dims);
    if (s.layout == Layout::Interleaved)
        return QStringLiteral("PE(<i>p</i>, 2<i>i</i>) = sin(%1), PE(<i>p</i>, 2<i>i</i> + 1) = "
                              "cos(%1)<br>(Vaswani et al.; base %2, <i>d</i> = %3)")
            .arg(angle, base)
            .arg(dims);
    return QStringLiteral("PE(<i>p</i>, <i>i</i>) = sin(%1), PE(<i>p</i>, %2 + <i>i</i>) = "
                          "cos(%1) for <i>i</i> &lt; %2 (the split layout: all sines, then all "
                          "cosines; base %3)")
        .arg(angle)
        .arg(dims / 2)
        .arg(base);
}

QString sinusoidalCell(const EncodingSpec &spec, const SinusoidalScheme &s, qint64 p, qint64 j,
                       double value)
{
    const qint64 d = spec.dims;
    const qint64 half = d / 2;
    const bool interleaved = s.layout == Layout::Interleaved;
    if (!interleaved && j >= 2 * half)
        return QStringLiteral("PE(%1, %2) = 0: the padding column of an odd d").arg(p).arg(j);
    const qint64 pair = interleaved ? j / 2 : (j < half ? j : j - half);
    const bool cosine = interleaved ? j % 2 == 1 : j >= half;
    return QStringLiteral("PE(%1, %2) = %3(%1 / %4^(%5/%6)) = %3(%1 × %7) = %8")
        .arg(p)
        .arg(j)
        .arg(cosine ? QStringLiteral("cos") : QStringLiteral("sin"), parameter(s.base))
        .arg(2 * pair)
        .arg(d)
        .arg(number(columnOmega(spec, j)), number(value));
}

QString ropeFormula(const RopeScheme &s, const EncodingSpec &spec)
{
    const qint64 rotary = ropeTableColumns(spec.dims, s.config(spec.shape()));
    const QString pairs = s.pairing == RopePairing::Interleaved
                              ? QStringLiteral("(2<i>i</i>, 2<i>i</i> + 1)")
                              : QStringLiteral("(<i>i</i>, <i>i</i> + %1)").arg(rotary / 2);
    return QStringLiteral("Pair <i>i</i> of columns %1 turns by <i>p</i>·θ<sub><i>i</i></sub>: "
                          "cos(<i>p</i>·θ<sub><i>i</i></sub>) in its first column, "
                          "sin(<i>p</i>·θ<sub><i>i</i></sub>) in its second (Su et al., "
                          "RoFormer).<br>%2")
        .arg(pairs, ropeScalingRule(s.config(spec.shape()), rotary));
}

QString ropeCell(const EncodingSpec &spec, const RopeScheme &s, qint64 p, qint64 j, double value)
{
    const RopeConfig config = s.config(spec.shape());
    const std::vector<double> theta = ropeInverseFrequencies(spec.dims, config).inverseFrequencies;
    const qint64 count = qint64(theta.size());
    if (j >= 2 * count)
        return QStringLiteral("RoPE(%1, %2) = %3: a column that does not rotate (partial rotary "
                              "factor %4)")
            .arg(p)
            .arg(j)
            .arg(number(value))
            .arg(s.partialRotaryFactor);
    const RopeColumn c = ropeTableColumn(RopeTableKind::CosSin, s.pairing, count, j);
    const QString type = config.ropeType == RopeType::Default
                             ? QString()
                             : QStringLiteral(", %1 scaling").arg(ropeTypeName(config.ropeType));
    return QStringLiteral("RoPE(%1, %2) = %3(%1·θ_%4) with θ_%4 = %5 (base %6%7) = %8")
        .arg(p)
        .arg(j)
        .arg(c.cosine ? QStringLiteral("cos") : QStringLiteral("sin"))
        .arg(c.pair)
        .arg(number(theta[std::size_t(c.pair)]), parameter(s.ropeTheta), type, number(value));
}

QString alibiFormula(const AlibiScheme &s)
{
    return QStringLiteral("bias(<i>i</i>, <i>j</i>) = −<i>m</i>·|<i>i</i> − <i>j</i>| for query "
                          "<i>i</i> and key <i>j</i>; head %1 of %2 has slope <i>m</i> = %3 "
                          "(2<sup>−8(<i>h</i>+1)/<i>n</i></sup> for <i>n</i> a power of two; Press "
                          "et al.)%4")
        .arg(s.head)
        .arg(s.heads)
        .arg(number(s.slope()),
             s.causal ? QStringLiteral("; causal: −∞ for keys after the query") : QString());
}

QString t5Formula(const T5Scheme &s)
{
    return QStringLiteral(
               "bucket(<i>j</i> − <i>i</i>): %1 buckets%2; distances below half of them get a "
               "bucket each, longer ones share logarithmic buckets up to %3, beyond which all "
               "share the last (HF's T5Attention._relative_position_bucket). Each bucket is one "
               "learned bias per head.")
        .arg(s.buckets)
        .arg(s.causal ? QStringLiteral(" (causal: keys before the query only)")
                      : QStringLiteral(", half for each direction"))
        .arg(s.maxDistance);
}

} // namespace

QString ropeScalingRule(const RopeConfig &c, qint64 rotaryDims)
{
    const QString base = parameter(c.ropeTheta);
    const QString d = QString::number(rotaryDims);
    QString plain =
        QStringLiteral("θ<sub><i>i</i></sub> = %1<sup>−2<i>i</i>/%2</sup>").arg(base, d);
    const QString s = number(ropeEffectiveFactor(c).value_or(1.0));
    const QString original =
        QString::number(c.originalMaxPositionEmbeddings > 0 ? c.originalMaxPositionEmbeddings
                                                            : c.maxPositionEmbeddings);
    switch (c.ropeType) {
    case RopeType::Default:
        return plain + QStringLiteral(" (no scaling)");
    case RopeType::Linear:
        return plain + QStringLiteral(" / <i>s</i>, <i>s</i> = %1: linear (position "
                                      "interpolation) divides every frequency")
                           .arg(s);
    case RopeType::Dynamic:
        return QStringLiteral("θ<sub><i>i</i></sub> = <i>b</i>′<sup>−2<i>i</i>/%1</sup> with "
                              "<i>b</i>′ = %2·(<i>s</i>·<i>L</i>/%3 − (<i>s</i> − "
                              "1))<sup>%1/(%1−2)</sup>, <i>s</i> = %4, <i>L</i> the sequence "
                              "length (at least %3): dynamic NTK")
            .arg(d, base)
            .arg(c.maxPositionEmbeddings)
            .arg(s);
    case RopeType::Ntk:
        return QStringLiteral("θ<sub><i>i</i></sub> = (%1·<i>s</i><sup>%2/(%2−2)</sup>)"
                              "<sup>−2<i>i</i>/%2</sup>, <i>s</i> = %3: NTK-aware base")
            .arg(base, d, s);
    case RopeType::Yarn:
        return plain + QStringLiteral(" for fast pairs (more than β<sub>fast</sub> = %1 turns "
                                      "in %2 positions), / <i>s</i> for slow ones (fewer than "
                                      "β<sub>slow</sub> = %3), a linear ramp between; "
                                      "<i>s</i> = %4, cos and sin × the attention factor: YaRN")
                           .arg(number(c.betaFast == 0 ? 32.0 : c.betaFast), original,
                                number(c.betaSlow == 0 ? 1.0 : c.betaSlow), s);
    case RopeType::Longrope:
        return plain + QStringLiteral(" / <i>f</i><sub><i>i</i></sub>, the short factors up to "
                                      "%1 positions and the long ones beyond; cos and sin × "
                                      "the attention factor: LongRoPE")
                           .arg(original);
    case RopeType::Llama3:
        return plain + QStringLiteral(" for wavelengths 2π/θ below %1/%2, / <i>s</i> above "
                                      "%1/%3, blended smoothly between; <i>s</i> = %4: Llama 3")
                           .arg(original, number(c.highFreqFactor), number(c.lowFreqFactor), s);
    case RopeType::Proportional:
        return QStringLiteral("θ<sub><i>i</i></sub> = %1<sup>−2<i>i</i>/%2</sup> / <i>s</i> for "
                              "the first %3 of the pairs, 0 for the rest; <i>s</i> = %4: "
                              "proportional")
            .arg(base, d)
            .arg(c.partialRotaryFactor)
            .arg(s);
    }
    return plain;
}

QString encodingFormula(const EncodingSpec &spec)
{
    return std::visit(
        Overloaded{
            [&](const SinusoidalScheme &s) { return sinusoidalFormula(s, spec.dims); },
            [&](const RopeScheme &s) { return ropeFormula(s, spec); },
            [&](const LearnedScheme &s) {
                return QStringLiteral("E[<i>p</i>, <i>i</i>] ~ U[−0.05, 0.05), seed %1: Keras' "
                                      "default Embedding initialiser, what a trainable "
                                      "position table starts as (nothing about order is built "
                                      "in)")
                    .arg(s.seed);
            },
            [&](const TableScheme &s) {
                return QStringLiteral("W[<i>p</i>, <i>i</i>]: the model's learned position table "
                                      "as stored (%1)")
                    .arg(s.legend().toHtmlEscaped());
            },
            [&](const NopeScheme &) {
                return QStringLiteral("0 everywhere: no position information; causal attention "
                                      "alone tells positions apart (Kazemnejad et al.)");
            },
            [&](const AlibiScheme &s) { return alibiFormula(s); },
            [&](const T5Scheme &s) { return t5Formula(s); },
        },
        spec.scheme);
}

QString cellFormula(const EncodingSpec &spec, qint64 position, qint64 column, double value)
{
    const qint64 p = position;
    const qint64 j = column;
    return std::visit(
        Overloaded{
            [&](const SinusoidalScheme &s) { return sinusoidalCell(spec, s, p, j, value); },
            [&](const RopeScheme &s) { return ropeCell(spec, s, p, j, value); },
            [&](const LearnedScheme &s) {
                return QStringLiteral("E[%1, %2] = %3, drawn from U[−0.05, 0.05) with seed %4")
                    .arg(p)
                    .arg(j)
                    .arg(number(value))
                    .arg(s.seed);
            },
            [&](const TableScheme &s) {
                return QStringLiteral("W[%1, %2] = %3 (%4)")
                    .arg(p)
                    .arg(j)
                    .arg(number(value), s.legend());
            },
            [&](const NopeScheme &) {
                return QStringLiteral("NoPE(%1, %2) = 0: no position information").arg(p).arg(j);
            },
            [&](const AlibiScheme &s) {
                if (std::isinf(value))
                    return QStringLiteral("bias(%1, %2) = −∞: key %2 comes after query %1 "
                                          "(causal mask)")
                        .arg(p)
                        .arg(j);
                return QStringLiteral("bias(%1, %2) = −m·|%1 − %2| = −%3 × %4 = %5")
                    .arg(p)
                    .arg(j)
                    .arg(number(s.slope()))
                    .arg(std::abs(p - j))
                    .arg(number(value));
            },
            [&](const T5Scheme &) {
                return QStringLiteral("bucket(%1 − %2 = %3) = %4")
                    .arg(j)
                    .arg(p)
                    .arg(j - p)
                    .arg(number(value));
            },
        },
        spec.scheme);
}

namespace {

// The formula of a view's entry with the window's parameters filled in (HTML).
QString viewFormula(FigureView view, const ExplorerState &state)
{
    const ViewEntry &entry = viewEntry(view);
    const EncodingSpec &spec = state.spec();
    QString formula = QString::fromUtf8(entry.formula);
    switch (entry.parameters) {
    case ViewFormula::None:
        break;
    case ViewFormula::Encoding:
        formula += encodingFormula(spec);
        break;
    case ViewFormula::RopeA:
        formula += encodingFormula(ropeSpecA(spec));
        break;
    case ViewFormula::RopeAB:
        formula += QStringLiteral("A: ") + encodingFormula(ropeSpecA(spec)) +
                   QStringLiteral("<br>B: ") +
                   encodingFormula(ropeSpecB(spec, state.schemeSettings()));
        break;
    case ViewFormula::Alibi:
        formula += alibiFormula(state.schemeSettings().alibi);
        break;
    case ViewFormula::T5:
        formula += t5Formula(state.schemeSettings().t5);
        break;
    }
    return formula;
}

} // namespace

ViewHelp viewHelp(FigureView view, const ExplorerState &state)
{
    const ViewEntry &entry = viewEntry(view);
    return {QString::fromUtf8(entry.helpTitle ? entry.helpTitle : entry.label),
            QString::fromUtf8(entry.help), viewFormula(view, state)};
}

QString viewHelpHtml(const QList<FigureView> &views, const ExplorerState &state)
{
    QString html;
    QStringList shown; // views of one matrix (waves, heatmap) share its formula: written once
    for (FigureView view : views) {
        const ViewHelp help = viewHelp(view, state);
        html += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(help.title.toHtmlEscaped(), help.text);
        if (!help.formula.isEmpty() && !shown.contains(help.formula))
            html += QStringLiteral("<p style=\"margin-left:1em\">%1</p>").arg(help.formula);
        shown.append(help.formula);
    }
    return html;
}

} // namespace pe
