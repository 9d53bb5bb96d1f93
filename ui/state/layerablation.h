// LayerAblation: what the layer-attention view's enlarged head compares its positions with
// (issue 48 item 3): nothing, the positions removed, shifted by k, scaled by s, another
// rope_theta, or another RoPE scaling rule. Part of the ExplorerState, so undo covers it and
// sessions and lesson steps save it ("ablation"); its field tables give the form, the JSON and
// the messages. The rule is a rope_parameters object of the types the window offers (linear,
// dynamic, yarn, llama3), written as the command line's --rope-scaling JSON.
#pragma once

#include "fields/field.h"
#include "model/forwardpass.h"
#include "rope/ropeconfig.h"

#include <QJsonObject>

namespace pe {

enum class AblationKind { None, Removed, Shift, Scale, Theta, Rule };
inline constexpr ChoiceName ablationKindNames[] = {
    choice(AblationKind::None, "none", "none"),
    choice(AblationKind::Removed, "removed", "positions removed", "no-positions"),
    choice(AblationKind::Shift, "shift", "shift by k"),
    choice(AblationKind::Scale, "scale", "scale by s"),
    choice(AblationKind::Theta, "theta", "another rope_theta"),
    choice(AblationKind::Rule, "rope-scaling", "another scaling rule", "rule"),
};

// The scaling rules the window's form offers: transformers' rules that a handful of numbers
// define. longrope (a factor per rotary pair, which depends on the model's head size) stays on
// the command line's --rope-scaling JSON.
inline constexpr ChoiceName ablationRuleTypeNames[] = {
    choice(RopeType::Linear, "linear", "linear (position interpolation)"),
    choice(RopeType::Dynamic, "dynamic", "dynamic NTK"),
    choice(RopeType::Yarn, "yarn", "YaRN"),
    choice(RopeType::Llama3, "llama3", "Llama 3"),
};

struct LayerAblation
{
    AblationKind kind = AblationKind::None;
    qint64 shift = 8;
    double scale = 2.0;
    double ropeTheta = 1e6;
    // rope_type and the keys of ablationRuleFields(); the other members keep RopeConfig's
    // defaults. Default: YaRN x4 from 2,048 tokens.
    RopeConfig rule = defaultRule();

    static RopeConfig defaultRule();
    // kind, shift, scale, rope_theta (each applying to its kind).
    static FieldTable<LayerAblation> fields();
    // The rule's rows of the RoPE field table (rope_type limited to ablationRuleTypeNames,
    // factor, original_max_position_embeddings, beta_fast, beta_slow, low_freq_factor,
    // high_freq_factor), gated by rope_type as there.
    static FieldTable<RopeConfig> ruleFields();

    // The first problem: a value out of its field's range, a rule field HF requires and the
    // form left empty, a rule core's rope_parameters reader refuses (ropeConfigFromJson). The
    // key names the field ("shift", "factor"); model-dependent checks are the pass's
    // (ForwardPass::ablationProblem).
    FieldProblem problem() const;
    // The problem as a sentence naming the field: "shift must be ...",
    // "rope_scaling: factor must be ...". `naming` as describe() takes it.
    QString describe(const FieldProblem &problem, FieldNaming naming) const;

    // The rule as transformers' rope_scaling JSON, what `--rope-scaling` takes: rope_type, the
    // keys HF requires for it and those that differ from their defaults (an
    // original_max_position_embeddings of 0 is left out: the model's max_position_embeddings).
    QJsonObject ruleJson() const;
    // What the pass does: kind Removed is ForwardOptions::withPositions false; the others fill
    // the PositionAblation's member of their kind.
    bool removesPositions() const { return kind == AblationKind::Removed; }
    PositionAblation positions() const;

    // {"kind": ..., and the kind's value: "shift", "scale", "rope_theta" or "rope_scaling"}.
    QJsonObject toJson() const;
    // Reads `json` on top of *this; the problem names the key at fault (unknown keys, values out
    // of range, a rule refused as problem() refuses it). Nothing changes on a problem.
    FieldProblem readJson(const QJsonObject &json);

    bool operator==(const LayerAblation &) const = default;
};

} // namespace pe
