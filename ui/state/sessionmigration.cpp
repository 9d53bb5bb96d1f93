#include "state/sessionmigration.h"

#include <QJsonArray>

namespace pe {

namespace {

// Format 1's RoPE object ({"pairing", "scaling", "factor", "originalContext", ...}) with its
// base, as RopeScheme's keys (Hugging Face v5's). Format 1's dynamic scaling read its
// "originalContext" where v5 reads max_position_embeddings. "currentLength" has no successor:
// dynamic scaling now sees the positions shown (HF's seq_len).
QJsonObject ropeKeys(const QJsonObject &rope, const QJsonValue &base)
{
    // Format 2's keys as that format was frozen, written out on purpose rather than taken from
    // the RoPE field table: a later rename there comes with format 3 and its own step.
    static const std::pair<const char *, const char *> renames[] = {
        {"pairing", "pairing"},
        {"scaling", "rope_type"},
        {"factor", "factor"},
        {"originalContext", "original_max_position_embeddings"},
        {"lowFreqFactor", "low_freq_factor"},
        {"highFreqFactor", "high_freq_factor"},
        {"betaFast", "beta_fast"},
        {"betaSlow", "beta_slow"},
        {"yarnTruncate", "truncate"},
        {"partialRotaryFactor", "partial_rotary_factor"},
    };
    QJsonObject out;
    if (!base.isUndefined())
        out.insert(QStringLiteral("rope_theta"), base);
    const QString type = rope.value(QStringLiteral("scaling")).toString(QStringLiteral("none"));
    for (const auto &[from, to] : renames) {
        const QString key = QString::fromLatin1(from);
        if (!rope.contains(key))
            continue;
        // Format 1 wrote every field whatever the scaling; only those of the type carry over.
        const bool always = key == QLatin1String("pairing") || key == QLatin1String("scaling") ||
                            key == QLatin1String("partialRotaryFactor");
        const bool scaled = type != QLatin1String("none");
        const bool llama3 = type == QLatin1String("llama3");
        const bool yarn = type == QLatin1String("yarn");
        const bool original = llama3 || yarn || type == QLatin1String("dynamic-ntk");
        const bool keep =
            always || (key == QLatin1String("factor") && scaled) ||
            (key == QLatin1String("originalContext") && original) ||
            (key.endsWith(QLatin1String("FreqFactor")) && llama3) ||
            ((key.startsWith(QLatin1String("beta")) || key == QLatin1String("yarnTruncate")) &&
             yarn);
        if (!keep)
            continue;
        if (key == QLatin1String("originalContext") && type == QLatin1String("dynamic-ntk"))
            out.insert(QStringLiteral("max_position_embeddings"), rope.value(key));
        else
            out.insert(QString::fromLatin1(to), rope.value(key));
    }
    return out;
}

QJsonValue cellText(const QJsonValue &cell)
{
    const QJsonObject c = cell.toObject();
    if (!cell.isObject())
        return cell;
    return QStringLiteral("%1@%2")
        .arg(c.value(QStringLiteral("position")).toInteger())
        .arg(c.value(QStringLiteral("dim")).toInteger());
}

} // namespace

QJsonObject migrateStateFromVersion1(const QJsonObject &state)
{
    QJsonObject out = state;
    if (state.contains(QStringLiteral("spec"))) {
        const QJsonObject s = state.value(QStringLiteral("spec")).toObject();
        const QString scheme =
            s.value(QStringLiteral("scheme")).toString(QStringLiteral("sinusoidal"));
        QJsonObject spec;
        for (const char *key : {"scheme", "positions", "dims"})
            if (s.contains(QLatin1String(key)))
                spec.insert(QLatin1String(key), s.value(QLatin1String(key)));
        if (scheme == QLatin1String("sinusoidal")) {
            for (const char *key : {"base", "layout"})
                if (s.contains(QLatin1String(key)))
                    spec.insert(QLatin1String(key), s.value(QLatin1String(key)));
        } else if (scheme == QLatin1String("learned") || scheme == QLatin1String("random")) {
            if (s.contains(QStringLiteral("seed")))
                spec.insert(QStringLiteral("seed"), s.value(QStringLiteral("seed")));
        } else if (scheme == QLatin1String("rope")) {
            const QJsonObject rope = ropeKeys(s.value(QStringLiteral("rope")).toObject(),
                                              s.value(QStringLiteral("base")));
            for (auto it = rope.begin(); it != rope.end(); ++it)
                spec.insert(it.key(), it.value());
        }
        out.insert(QStringLiteral("spec"), spec);
    }
    if (state.contains(QStringLiteral("crosses"))) {
        QJsonArray crosses;
        for (const QJsonValue c : state.value(QStringLiteral("crosses")).toArray())
            crosses.append(cellText(c));
        out.insert(QStringLiteral("crosses"), crosses);
    }
    if (state.contains(QStringLiteral("selection")))
        out.insert(QStringLiteral("selection"), cellText(state.value(QStringLiteral("selection"))));
    if (state.contains(QStringLiteral("schemes"))) {
        const QJsonObject s = state.value(QStringLiteral("schemes")).toObject();
        QJsonObject schemes;
        for (const char *key : {"view", "rotationPair", "rotationPosition", "decayDistance",
                                "metric", "squarePositions"})
            if (s.contains(QLatin1String(key)))
                schemes.insert(QLatin1String(key), s.value(QLatin1String(key)));
        QJsonObject alibi, t5;
        const auto move = [&](QJsonObject &to, const char *from, const char *key) {
            if (s.contains(QLatin1String(from)))
                to.insert(QLatin1String(key), s.value(QLatin1String(from)));
        };
        move(alibi, "alibiHeads", "heads");
        move(alibi, "alibiHead", "head");
        move(alibi, "alibiCausal", "causal");
        move(t5, "t5Buckets", "buckets");
        move(t5, "t5MaxDistance", "max_distance");
        if (s.contains(QStringLiteral("t5Bidirectional")))
            t5.insert(QStringLiteral("causal"),
                      !s.value(QStringLiteral("t5Bidirectional")).toBool());
        schemes.insert(QStringLiteral("alibi"), alibi);
        schemes.insert(QStringLiteral("t5"), t5);
        if (s.contains(QStringLiteral("compareRope")) || s.contains(QStringLiteral("compareBase")))
            schemes.insert(QStringLiteral("compare"),
                           ropeKeys(s.value(QStringLiteral("compareRope")).toObject(),
                                    s.value(QStringLiteral("compareBase"))));
        out.insert(QStringLiteral("schemes"), schemes);
    }
    return out;
}

} // namespace pe
