#include "state/sessionmigration.h"

#include "fields/fieldvalue.h"
#include "fields/wholenumber.h"

#include <QJsonArray>
#include <QStringList>

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

// The keys pescope 0.1 wrote (its EncodingSpec, RopeParameters and SchemeSettings::toJson):
// anything else in a format-1 file is a typo that would otherwise be dropped without a word.
const QStringList specKeys = {QStringLiteral("scheme"), QStringLiteral("positions"),
                              QStringLiteral("dims"),   QStringLiteral("base"),
                              QStringLiteral("layout"), QStringLiteral("seed"),
                              QStringLiteral("rope")};
const QStringList ropeObjectKeys = {QStringLiteral("pairing"),
                                    QStringLiteral("scaling"),
                                    QStringLiteral("factor"),
                                    QStringLiteral("originalContext"),
                                    QStringLiteral("currentLength"),
                                    QStringLiteral("lowFreqFactor"),
                                    QStringLiteral("highFreqFactor"),
                                    QStringLiteral("betaFast"),
                                    QStringLiteral("betaSlow"),
                                    QStringLiteral("yarnTruncate"),
                                    QStringLiteral("partialRotaryFactor")};
const QStringList schemesKeys = {QStringLiteral("view"),
                                 QStringLiteral("rotationPair"),
                                 QStringLiteral("rotationPosition"),
                                 QStringLiteral("decayDistance"),
                                 QStringLiteral("metric"),
                                 QStringLiteral("squarePositions"),
                                 QStringLiteral("alibiHeads"),
                                 QStringLiteral("alibiHead"),
                                 QStringLiteral("alibiCausal"),
                                 QStringLiteral("t5Buckets"),
                                 QStringLiteral("t5MaxDistance"),
                                 QStringLiteral("t5Bidirectional"),
                                 QStringLiteral("compareBase"),
                                 QStringLiteral("compareRope")};
const QStringList cellKeys = {QStringLiteral("position"), QStringLiteral("dim")};

// The checks of a format-1 state: each problem one sentence naming the key, as format 2's
// reading words them ("spec: ...").
class Format1Check
{
public:
    explicit Format1Check(QString *error) : m_error(error) {}

    bool fail(const QString &message)
    {
        if (m_error)
            *m_error = message;
        return false;
    }

    // `object[key]` when present: it must be an object holding only `keys`.
    bool object(const QJsonObject &parent, const QString &key, const QString &where,
                const QStringList &keys, const QString &what)
    {
        if (!parent.contains(key))
            return true;
        const QJsonValue value = parent.value(key);
        const QString path = where.isEmpty() ? key : where + QLatin1Char('.') + key;
        if (!value.isObject())
            return fail(
                QStringLiteral("\"%1\" must be an object (got %2)").arg(path, jsonTypeName(value)));
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!keys.contains(it.key()))
                return fail(QStringLiteral("%1: \"%2\" is not a key of %3 in session format 1 "
                                           "(%4)")
                                .arg(path, it.key(), what, keys.join(QStringLiteral(", "))));
        return true;
    }

    // A format-1 cell {"position": P, "dim": D} as format 2's "P@D"; whole numbers only (a
    // position of 1e308 is refused, as format 2 refuses "1e308@3"), then clamped to the matrix
    // as format 2's are.
    std::optional<QJsonValue> cell(const QJsonValue &cell, const QString &where)
    {
        if (!cell.isObject())
            return cell; // format 2's reading names what it is
        const QJsonObject c = cell.toObject();
        for (auto it = c.begin(); it != c.end(); ++it)
            if (!cellKeys.contains(it.key()))
                return failed(QStringLiteral("%1: \"%2\" is not a key of a cell in session "
                                             "format 1 (position, dim)")
                                  .arg(where, it.key()));
        qint64 values[2] = {0, 0};
        for (int i = 0; i < 2; ++i) {
            const QJsonValue v = c.value(cellKeys[i]);
            const std::optional<qint64> whole =
                v.isDouble() ? wholeNumberIn(v.toDouble(), 0, maxExactJsonInteger) : std::nullopt;
            if (!whole)
                return failed(QStringLiteral("%1: \"%2\" %3")
                                  .arg(where, cellKeys[i],
                                       wholeNumberMessage(0, maxExactJsonInteger,
                                                          v.isDouble() ? numberText(v.toDouble())
                                                                       : jsonTypeName(v))));
            values[i] = *whole;
        }
        return QJsonValue(QStringLiteral("%1@%2").arg(values[0]).arg(values[1]));
    }

private:
    std::optional<QJsonValue> failed(const QString &message)
    {
        fail(message);
        return std::nullopt;
    }

    QString *m_error;
};

} // namespace

std::optional<QJsonObject> migrateStateFromVersion1(const QJsonObject &state, QString *error)
{
    Format1Check check(error);
    const QString specKey = QStringLiteral("spec");
    const QString schemesKey = QStringLiteral("schemes");
    if (!check.object(state, specKey, QString(), specKeys, QStringLiteral("a spec")) ||
        !check.object(state.value(specKey).toObject(), QStringLiteral("rope"), specKey,
                      ropeObjectKeys, QStringLiteral("a RoPE object")) ||
        !check.object(state, schemesKey, QString(), schemesKeys, QStringLiteral("\"schemes\"")) ||
        !check.object(state.value(schemesKey).toObject(), QStringLiteral("compareRope"), schemesKey,
                      ropeObjectKeys, QStringLiteral("a RoPE object")))
        return std::nullopt;
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
        const QJsonValue list = state.value(QStringLiteral("crosses"));
        if (!list.isArray()) {
            check.fail(
                QStringLiteral("\"crosses\" must be a list (got %1)").arg(jsonTypeName(list)));
            return std::nullopt;
        }
        QJsonArray crosses;
        const QJsonArray items = list.toArray();
        for (qsizetype i = 0; i < items.size(); ++i) {
            const std::optional<QJsonValue> c =
                check.cell(items[i], QStringLiteral("crosses[%1]").arg(i));
            if (!c)
                return std::nullopt;
            crosses.append(*c);
        }
        out.insert(QStringLiteral("crosses"), crosses);
    }
    if (state.contains(QStringLiteral("selection"))) {
        const std::optional<QJsonValue> selection =
            check.cell(state.value(QStringLiteral("selection")), QStringLiteral("selection"));
        if (!selection)
            return std::nullopt;
        out.insert(QStringLiteral("selection"), *selection);
    }
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
