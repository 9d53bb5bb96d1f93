#include "state/layerablation.h"

#include "rope/ropefields.h"
#include "speclimits.h"

#include <algorithm>
#include <vector>

namespace pe {

namespace {

const QString ruleKey = QStringLiteral("rope_scaling");

// What the rule is checked against without a model: core's reader wants a head size and a
// context; the pass checks the model's own (ForwardPass::ablationProblem).
constexpr qint64 nominalHeadDim = 128;
constexpr qint64 nominalContext = 4096;

} // namespace

RopeConfig LayerAblation::defaultRule()
{
    RopeConfig rule;
    rule.ropeType = RopeType::Yarn;
    rule.factor = 4.0;
    rule.originalMaxPositionEmbeddings = 2048;
    return rule;
}

FieldTable<LayerAblation> LayerAblation::fields()
{
    using A = LayerAblation;
    static const Field<A> table[] = {
        {.key = "kind",
         .label = "Ablation",
         .help = "What the enlarged head is compared with, in every layer: the model's positions "
                 "removed, shifted, scaled, under another rope_theta or another scaling rule.",
         .kind = choiceKind<&A::kind>(ablationKindNames)},
        {.key = "shift",
         .label = "Shift k",
         .help = "Position ids k .. k + L - 1 instead of 0 .. L - 1 (transformers' position_ids): "
                 "a RoPE layer turns token p by (p + k) theta_i, a learned table adds its row "
                 "p + k.",
         .kind = IntegerKind<A>{&A::shift, {0, ropeMaxContext}},
         .gate = {.by = "kind", .applies = bitsOf(AblationKind::Shift)},
         .unit = "positions"},
        {.key = "scale",
         .label = "Scale s",
         .help = "A RoPE layer turns token p as position p / s: linear interpolation, "
                 "transformers' rope_type linear with factor s.",
         .kind = RealKind<A>{&A::scale, {0.0, 1e12, true}},
         .gate = {.by = "kind", .applies = bitsOf(AblationKind::Scale)}},
        {.key = "rope_theta",
         .label = "rope_theta B",
         .help = "Another base of the rotation frequencies in every RoPE layer (Gemma's local "
                 "layers included).",
         .kind = RealKind<A>{&A::ropeTheta, {0.0, limits::maxBase, true}},
         .gate = {.by = "kind", .applies = bitsOf(AblationKind::Theta)}},
    };
    return table;
}

FieldTable<RopeConfig> LayerAblation::ruleFields()
{
    static const std::vector<Field<RopeConfig>> table = [] {
        const char *keys[] = {
            "rope_type",       "factor",           "original_max_position_embeddings",
            "low_freq_factor", "high_freq_factor", "beta_fast",
            "beta_slow"};
        std::vector<Field<RopeConfig>> rows;
        for (const char *key : keys) {
            const FieldTable<RopeConfig> rope = ropeFieldTable<RopeConfig>();
            const Field<RopeConfig> *f = findField(rope, std::string_view(key));
            Q_ASSERT(f);
            Field<RopeConfig> row = *f;
            if (std::string_view(key) == "rope_type")
                row.kind = choiceKind<&RopeConfig::ropeType>(ablationRuleTypeNames);
            rows.push_back(row);
        }
        return rows;
    }();
    return table;
}

FieldProblem LayerAblation::problem() const
{
    if (FieldProblem p = rangeProblem(fields(), *this))
        return p;
    if (kind != AblationKind::Rule)
        return {};
    const FieldTable<RopeConfig> table = ruleFields();
    if (FieldProblem p = rangeProblem(table, rule))
        return p;
    for (const Field<RopeConfig> &f : table) {
        const auto *optional = std::get_if<OptionalRealKind<RopeConfig>>(&f.kind);
        if (optional && !(rule.*optional->member) && fieldApplies(table, f, rule) &&
            fieldRequired(table, f, rule))
            return {QString::fromUtf8(f.key),
                    QStringLiteral("is required by rope_type %1").arg(ropeTypeName(rule.ropeType))};
    }
    // The object the pass reads, read here by core's own reader (ablatedRope gives it the
    // layer's rope_theta as here).
    QJsonObject json = ruleJson();
    json.insert(QStringLiteral("rope_theta"), RopeConfig().ropeTheta);
    const qint64 context = std::max(rule.originalMaxPositionEmbeddings, nominalContext);
    QString error;
    ropeConfigFromJson(json, nominalHeadDim, context, &error);
    return {error.isEmpty() ? QString() : ruleKey, error};
}

QString LayerAblation::describe(const FieldProblem &problem, FieldNaming naming) const
{
    const QString prefix =
        naming == FieldNaming::Label ? QString() : ruleKey + QStringLiteral(": ");
    if (problem.key == ruleKey) // the rule as a whole, or a key it does not take
        return prefix + problem.message;
    if (findField(ruleFields(), problem.key))
        return prefix + pe::describe(ruleFields(), problem, naming);
    return pe::describe(fields(), problem, naming);
}

QJsonObject LayerAblation::ruleJson() const
{
    // core's writer decides what HF requires and what differs from its default; only the keys
    // of the rule's rows are kept (not rope_theta, which is the layer's, nor the pairing).
    const QJsonObject all = ropeConfigToJson(rule);
    const FieldTable<RopeConfig> table = ruleFields();
    QJsonObject out;
    for (const Field<RopeConfig> &f : table) {
        const QString key = QString::fromUtf8(f.key);
        if (all.contains(key) && fieldApplies(table, f, rule))
            out.insert(key, all.value(key));
    }
    return out;
}

PositionAblation LayerAblation::positions() const
{
    PositionAblation a;
    switch (kind) {
    case AblationKind::None:
    case AblationKind::Removed:
        break;
    case AblationKind::Shift:
        a.shift = shift;
        break;
    case AblationKind::Scale:
        a.scale = scale;
        break;
    case AblationKind::Theta:
        a.ropeTheta = ropeTheta;
        break;
    case AblationKind::Rule:
        a.ropeScaling = ruleJson();
        break;
    }
    return a;
}

QJsonObject LayerAblation::toJson() const
{
    QJsonObject json = pe::toJson(fields(), *this);
    if (kind == AblationKind::Rule)
        json.insert(ruleKey, ruleJson());
    return json;
}

FieldProblem LayerAblation::readJson(const QJsonObject &json)
{
    LayerAblation read = *this;
    if (FieldProblem p = pe::readJson(fields(), json, &read, {ruleKey}))
        return p;
    if (json.contains(ruleKey)) {
        if (read.kind != AblationKind::Rule)
            return {ruleKey, QStringLiteral("\"%1\" does not apply with kind %2")
                                 .arg(ruleKey, choiceName(ablationKindNames, int(read.kind)))};
        if (!json.value(ruleKey).isObject())
            return {ruleKey, QStringLiteral("\"%1\" must be an object").arg(ruleKey)};
        // A rule starts from RopeConfig's defaults: the keys it lacks are HF's defaults.
        const QJsonObject ruleJson = json.value(ruleKey).toObject();
        const QString type = QStringLiteral("rope_type");
        if (!ruleJson.contains(type))
            return {type, QStringLiteral("is required")};
        RopeConfig rule;
        rule.ropeType = RopeType::Linear;
        if (FieldProblem p = pe::readJson(ruleFields(), ruleJson, &rule)) {
            // A key the rule does not take ("rope_theta" is the layer's): about the rule.
            if (!findField(ruleFields(), p.key))
                p.key = ruleKey;
            return p;
        }
        read.rule = rule;
    }
    if (FieldProblem p = read.problem())
        return p;
    *this = read;
    return {};
}

} // namespace pe
