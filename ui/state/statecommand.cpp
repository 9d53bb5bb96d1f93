#include "state/statecommand.h"

#include <QStringList>

#include <cmath>
#include <variant>

namespace pe {

namespace {

// Steps of one kind, so that QUndoStack offers them to each other's mergeWith().
constexpr int stateCommandId = 0x7065; // "pe"
constexpr int maxValueChars = 40;

// One changed parameter: its key (sessions' spelling; empty where a step of it must not merge with
// the next, as adding a phrase), its label and its new value; `text` is a whole step's wording
// where the field's kind needs its own.
struct Change
{
    QString key;
    QString label;
    QString value;
    bool isBool = false;
    QString text;
};

// A value as people read it: whole numbers written out (500000, not the forms' 5e+05).
template <class P> QString valueText(const Field<P> &f, const P &p)
{
    const QJsonValue json = fieldJson(f, p);
    const bool real = std::holds_alternative<RealKind<P>>(f.kind) ||
                      std::holds_alternative<OptionalRealKind<P>>(f.kind);
    if (real && json.isDouble()) {
        const double v = json.toDouble();
        return std::abs(v) < 1e15 && v == std::floor(v) ? QString::number(qint64(v))
                                                        : QString::number(v, 'g', 10);
    }
    return fieldText(f, p).replace(QLatin1Char('\n'), QStringLiteral(", "));
}

template <class P>
void collect(FieldTable<P> table, const P &a, const P &b, const QString &keyPrefix,
             const QString &labelSuffix, QList<Change> *out, const QStringList &skip = {})
{
    for (const Field<P> &f : table) {
        const QString key = QString::fromUtf8(f.key);
        if (skip.contains(key) || fieldJson(f, a) == fieldJson(f, b))
            continue;
        out->append({keyPrefix + key, QString::fromUtf8(f.label) + labelSuffix, valueText(f, b),
                     std::holds_alternative<BoolKind<P>>(f.kind), QString()});
    }
}

void collectSpec(const EncodingSpec &a, const EncodingSpec &b, QList<Change> *out)
{
    const QString prefix = QStringLiteral("spec.");
    collect(EncodingSpec::fields(), a, b, prefix, QString(), out);
    if (a.scheme.index() != b.scheme.index())
        return; // a new scheme brings its own parameters: "Set Scheme to rope" says it
    std::visit(
        [&](const auto &schemeA) {
            using S = std::decay_t<decltype(schemeA)>;
            collect(S::fields(), schemeA, std::get<S>(b.scheme), prefix, QString(), out);
        },
        a.scheme);
}

// Phrases are rows of their own: "Edit Phrase 2", "Add Phrase 3", "Remove Phrase 1".
std::optional<Change> phraseChange(const PhraseSettings &a, const PhraseSettings &b)
{
    const QStringList &x = a.phrases;
    const QStringList &y = b.phrases;
    if (x == y)
        return std::nullopt;
    const QString key = QStringLiteral("phrases.phrases");
    const QString label = QStringLiteral("Phrases");
    if (x.size() == y.size()) {
        QList<int> edited;
        for (int i = 0; i < x.size(); ++i)
            if (x[i] != y[i])
                edited.append(i);
        if (edited.size() == 1)
            return Change{QStringLiteral("%1[%2]").arg(key).arg(edited.constFirst()),
                          label,
                          {},
                          false,
                          QStringLiteral("Edit %1").arg(b.title(edited.constFirst()))};
        return Change{QString(), label, {}, false, QStringLiteral("Edit phrases")};
    }
    qsizetype first = 0;
    while (first < qMin(x.size(), y.size()) && x[first] == y[first])
        ++first;
    if (y.size() == x.size() + 1 && x.mid(first) == y.mid(first + 1))
        return Change{
            QString(), label, {}, false, QStringLiteral("Add %1").arg(b.title(int(first)))};
    if (x.size() == y.size() + 1 && x.mid(first + 1) == y.mid(first))
        return Change{
            QString(), label, {}, false, QStringLiteral("Remove %1").arg(a.title(int(first)))};
    return Change{QString(), label, {}, false, QStringLiteral("Replace the phrases")};
}

QList<Change> changes(const ExplorerValues &a, const ExplorerValues &b)
{
    QList<Change> out;
    collectSpec(a.spec, b.spec, &out);
    collect(ViewOptions::fields(), a.view, b.view, QString(), QString(), &out,
            {QStringLiteral("selection")});
    collect(WindowOptions::fields(), a.window, b.window, QString(), QString(), &out,
            {QStringLiteral("page")});
    const QString phrases = QStringLiteral("phrases.");
    if (const std::optional<Change> c = phraseChange(a.phrases, b.phrases))
        out.append(*c);
    // A phrase's title goes with it when phrases are added or removed.
    QStringList skip{QStringLiteral("phrases"), QStringLiteral("embedding")};
    if (a.phrases.phrases != b.phrases.phrases)
        skip.append(QStringLiteral("titles"));
    collect(PhraseSettings::fields(), a.phrases, b.phrases, phrases, QString(), &out, skip);
    collect(PhraseSource::fields(), a.phraseSource, b.phraseSource, phrases, QString(), &out);
    if (a.compareA != b.compareA || a.compareB != b.compareB)
        out.append({QStringLiteral("phrases.compare"),
                    QStringLiteral("Compared phrases"),
                    {},
                    false,
                    QStringLiteral("Compare %1 with %2")
                        .arg(b.phrases.title(b.compareA), b.phrases.title(b.compareB))});
    const QString schemes = QStringLiteral("schemes.");
    collect(SchemeSettings::fields(), a.schemes, b.schemes, schemes, QString(), &out);
    forEachSchemePart([&](const auto &part) {
        using P = typename std::decay_t<decltype(part)>::Scheme;
        collect(P::fields(), a.schemes.*part.member, b.schemes.*part.member,
                schemes + QString::fromUtf8(part.key) + QLatin1Char('.'),
                QStringLiteral(" (%1)").arg(QString::fromUtf8(part.change)), &out);
    });
    collect(FigureStyle::fields(), a.figure, b.figure, QStringLiteral("figure."),
            QStringLiteral(" (figures)"), &out);
    collect(LayerAblation::fields(), a.ablation, b.ablation, QStringLiteral("ablation."), QString(),
            &out);
    collect(LayerAblation::ruleFields(), a.ablation.rule, b.ablation.rule,
            QStringLiteral("ablation.rope_scaling."), QStringLiteral(" (ablation)"), &out);
    return out;
}

QString stepText(const Change &c)
{
    if (!c.text.isEmpty())
        return c.text;
    if (c.isBool)
        return (c.value == QLatin1String("true") ? QStringLiteral("Turn on %1")
                                                 : QStringLiteral("Turn off %1"))
            .arg(c.label);
    if (c.value.isEmpty())
        return QStringLiteral("Clear %1").arg(c.label);
    QString value = c.value;
    if (value.size() > maxValueChars)
        value = value.left(maxValueChars - 1) + QChar(0x2026);
    return QStringLiteral("Set %1 to %2").arg(c.label, value);
}

} // namespace

StateCommand::StateCommand(Target target, ExplorerValues before, ExplorerValues after,
                           const QString &text)
    : m_target(std::move(target)), m_before(std::move(before)), m_after(std::move(after))
{
    if (!text.isEmpty()) {
        setText(text);
        return;
    }
    const Description d = describe(m_before, m_after);
    setText(d.text);
    m_key = d.key;
}

StateCommand::Description StateCommand::describe(const ExplorerValues &before,
                                                 const ExplorerValues &after)
{
    const QList<Change> all = changes(before, after);
    if (all.isEmpty())
        return {QStringLiteral("Change settings"), QString()};
    if (all.size() == 1)
        return {stepText(all.constFirst()), all.constFirst().key};
    QStringList labels;
    for (const Change &c : all)
        if (!labels.contains(c.label))
            labels.append(c.label);
    if (labels.size() == 1)
        return {QStringLiteral("Change %1").arg(labels.constFirst()), QString()};
    if (labels.size() <= 3) {
        const QString last = labels.takeLast();
        return {QStringLiteral("Change %1 and %2").arg(labels.join(QStringLiteral(", ")), last),
                QString()};
    }
    return {QStringLiteral("Change %1, %2 and %3 more")
                .arg(labels[0], labels[1])
                .arg(labels.size() - 2),
            QString()};
}

int StateCommand::id() const
{
    return m_key.isEmpty() ? -1 : stateCommandId;
}

bool StateCommand::mergeWith(const QUndoCommand *other)
{
    const auto *next = dynamic_cast<const StateCommand *>(other);
    if (!next || next->m_key != m_key || next->m_target.state != m_target.state ||
        next->m_last - m_last > mergeWindow)
        return false;
    m_last = next->m_last;
    m_after = next->m_after;
    const Description d = describe(m_before, m_after);
    setText(d.text);
    // Dragged back to where it started: no step at all (QUndoStack drops it).
    setObsolete(m_target.sameParameters(m_before, m_after));
    return true;
}

void StateCommand::undo()
{
    m_target.restore(m_before);
    m_applied = false;
}

void StateCommand::redo()
{
    if (m_applied)
        return; // pushed after the change: the state holds it already
    m_target.restore(m_after);
    m_applied = true;
}

} // namespace pe
