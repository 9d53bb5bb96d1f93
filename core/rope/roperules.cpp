#include "roperules.h"

#include "fields/fieldvalue.h"
#include "ropefrequencies.h"

#include <iterator>

namespace pe {

namespace {

using Terms = RopeRuleTerms;

QString plain(const Terms &t)
{
    return QStringLiteral("θ<sub><i>i</i></sub> = %1<sup>−2<i>i</i>/%2</sup>").arg(t.base, t.dims);
}

// clang-format off
const RopeTypeRule rules[] = {
    {RopeType::Default, "no scaling", [](const Terms &t) -> QString { return plain(t); }},
    {RopeType::Linear, "linear (position interpolation) divides every frequency",
     [](const Terms &t) -> QString {
         return plain(t) + QStringLiteral(" / <i>s</i>, <i>s</i> = %1").arg(t.factor);
     }},
    {RopeType::Dynamic, "dynamic NTK",
     [](const Terms &t) -> QString {
         return QStringLiteral("θ<sub><i>i</i></sub> = <i>b</i>′<sup>−2<i>i</i>/%1</sup> with "
                               "<i>b</i>′ = %2·(<i>s</i>·<i>L</i>/%3 − (<i>s</i> − "
                               "1))<sup>%1/(%1−2)</sup>, <i>s</i> = %4, <i>L</i> the sequence "
                               "length (at least %3)")
             .arg(t.dims, t.base)
             .arg(t.config.maxPositionEmbeddings)
             .arg(t.factor);
     }},
    {RopeType::Yarn, "YaRN",
     [](const Terms &t) -> QString {
         return plain(t) + QStringLiteral(" for fast pairs (more than β<sub>fast</sub> = %1 turns "
                                          "in %2 positions), / <i>s</i> for slow ones (fewer than "
                                          "β<sub>slow</sub> = %3), a linear ramp between; "
                                          "<i>s</i> = %4, cos and sin × the attention factor")
                               .arg(formulaValue(ropeYarnBetaFast(t.config)), t.original,
                                    formulaValue(ropeYarnBetaSlow(t.config)), t.factor);
     }},
    {RopeType::Longrope, "LongRoPE",
     [](const Terms &t) -> QString {
         return plain(t) + QStringLiteral(" / <i>f</i><sub><i>i</i></sub>, the short factors up "
                                          "to %1 positions and the long ones beyond; cos and sin "
                                          "× the attention factor")
                               .arg(t.original);
     }},
    {RopeType::Llama3, "Llama 3",
     [](const Terms &t) -> QString {
         return plain(t) + QStringLiteral(" for wavelengths 2π/θ below %1/%2, / <i>s</i> above "
                                          "%1/%3, blended smoothly between; <i>s</i> = %4")
                               .arg(t.original, formulaValue(t.config.highFreqFactor),
                                    formulaValue(t.config.lowFreqFactor), t.factor);
     }},
    {RopeType::Proportional, "proportional",
     [](const Terms &t) -> QString {
         return QStringLiteral("θ<sub><i>i</i></sub> = %1<sup>−2<i>i</i>/%2</sup> / <i>s</i> for "
                               "the first %3 of the pairs, 0 for the rest; <i>s</i> = %4")
             .arg(t.base, t.dims)
             .arg(t.config.partialRotaryFactor)
             .arg(t.factor);
     }},
    {RopeType::Ntk, "NTK-aware base",
     [](const Terms &t) -> QString {
         return QStringLiteral("θ<sub><i>i</i></sub> = (%1·<i>s</i><sup>%2/(%2−2)</sup>)"
                               "<sup>−2<i>i</i>/%2</sup>, <i>s</i> = %3")
             .arg(t.base, t.dims, t.factor);
     }},
};
// clang-format on
static_assert(std::size(rules) == std::size(ropeTypeNames), "one rule per rope type");

} // namespace

std::span<const RopeTypeRule> ropeTypeRules()
{
    return rules;
}

const RopeTypeRule &ropeTypeRule(RopeType type)
{
    for (const RopeTypeRule &rule : rules)
        if (rule.type == type)
            return rule;
    return rules[0];
}

QString ropeScalingRule(const RopeConfig &config, qint64 rotaryDims)
{
    const Terms terms{config, formulaParameter(config.ropeTheta), QString::number(rotaryDims),
                      formulaValue(ropeEffectiveFactor(config).value_or(1.0)),
                      QString::number(config.originalMaxPositionEmbeddings > 0
                                          ? config.originalMaxPositionEmbeddings
                                          : config.maxPositionEmbeddings)};
    const RopeTypeRule &rule = ropeTypeRule(config.ropeType);
    return rule.formula(terms) + QStringLiteral(": ") + QString::fromUtf8(rule.help);
}

} // namespace pe
