// Each rope type as people read it: one row per type (in ropeTypeNames' order) with a help line
// naming the rule and its θᵢ written out with the config's numbers. F1 and the scheme's formula
// read these rows; nothing else spells a type's rule.
#pragma once

#include "ropeconfig.h"

#include <QString>

#include <span>

namespace pe {

// The numbers a rule is written with, already formatted.
struct RopeRuleTerms
{
    const RopeConfig &config;
    QString base;     // rope_theta as people write it
    QString dims;     // rotary dims d
    QString factor;   // the factor the type's formula uses (1 when none)
    QString original; // the context the type scales from
};

struct RopeTypeRule
{
    RopeType type;
    const char *help;                          // "YaRN", "linear (position interpolation) ..."
    QString (*formula)(const RopeRuleTerms &); // θᵢ with the numbers (HTML)
};

// One row per rope type, in ropeTypeNames' order.
std::span<const RopeTypeRule> ropeTypeRules();
const RopeTypeRule &ropeTypeRule(RopeType type);

// RoPE's θᵢ under the config's rope type with its numbers, then the type's help:
// "θᵢ = 500000^(−2i/128) for wavelengths ...: Llama 3". HTML.
QString ropeScalingRule(const RopeConfig &config, qint64 rotaryDims);

} // namespace pe
