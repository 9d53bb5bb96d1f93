// Field tables: one table per parameter struct names each parameter once, with its key (sessions,
// presets, config files), command-line flag, label, help, range and when it applies. Validation,
// JSON, command-line options and --help, the window's forms and captions are all derived from the
// table, so a parameter's name, default and limits live in one place. Defaults are the struct's
// own default member initialisers.
//
// Tables are written with designated initialisers:
//   Field<P>{.key = "base", .flag = "base", .label = "Base", .help = "...",
//            .kind = RealKind<P>{&P::base, {1.0, 1e12, true}}}
#pragma once

#include "choicenames.h"
#include "fieldvalue.h"

#include <QJsonObject>
#include <QString>

#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace pe {

template <class P> struct IntegerKind
{
    qint64 P::*member;
    IntegerRange range;
};
template <class P> struct SeedKind
{
    quint64 P::*member;
};
template <class P> struct RealKind
{
    double P::*member;
    RealRange range;
};
// A number that may be absent (HF's optional keys such as yarn's attention_factor).
template <class P> struct OptionalRealKind
{
    std::optional<double> P::*member;
    RealRange range;
};
template <class P> struct BoolKind
{
    bool P::*member;
};
// An enum, through its name table; choiceKind<&P::member>(names) builds one.
template <class P> struct ChoiceKind
{
    int (*get)(const P &);
    void (*set)(P &, int);
    ChoiceNames names;
};
template <class P> struct IntegerListKind
{
    QList<qint64> P::*member;
    IntegerRange range;
    qint64 maxCount;
};
template <class P> struct RealListKind
{
    std::vector<double> P::*member;
    RealRange range;
    qint64 maxCount;
};
template <class P> struct TextKind
{
    QString P::*member;
    qint64 maxLength;
};
// On the command line a text list is a repeated option (--text A --text B).
template <class P> struct TextListKind
{
    QStringList P::*member;
    qint64 maxCount;
    qint64 maxLength;
};
template <class P> struct CrossListKind
{
    QList<MatrixCell> P::*member;
    qint64 maxCount;
};

// One cell, "P@D" (the selection).
template <class P> struct CellKind
{
    MatrixCell P::*member;
};

template <class P>
using FieldKind = std::variant<IntegerKind<P>, SeedKind<P>, RealKind<P>, OptionalRealKind<P>,
                               BoolKind<P>, ChoiceKind<P>, IntegerListKind<P>, RealListKind<P>,
                               TextKind<P>, TextListKind<P>, CrossListKind<P>, CellKind<P>>;

namespace detail {
template <class M> struct MemberTraits;
template <class C, class V> struct MemberTraits<V C::*>
{
    using Class = C;
    using Value = V;
};
} // namespace detail

// P may be named to bind a member inherited from a base (choiceKind<&S::pairing, S>).
template <auto Member, class P = typename detail::MemberTraits<decltype(Member)>::Class>
ChoiceKind<P> choiceKind(ChoiceNames names)
{
    using E = typename detail::MemberTraits<decltype(Member)>::Value;
    return ChoiceKind<P>{[](const P &p) { return int(p.*Member); },
                         [](P &p, int v) { p.*Member = E(v); }, names};
}

// When a field applies, decided by a choice field of the same table (e.g. RoPE's rope_type):
// bit v of `applies` / `required` stands for the choice value v. Without `by` a field always
// applies, and is required when `required` is non-zero.
struct FieldGate
{
    const char *by = nullptr;
    quint32 applies = ~0u;
    quint32 required = 0;
};

template <class... E> constexpr quint32 bitsOf(E... values)
{
    return ((quint32(1) << int(values)) | ... | 0u);
}

template <class P> struct Field
{
    const char *key;            // JSON key; also the field's identity in messages and forms
    const char *flag = nullptr; // command-line option without "--"; null: none
    const char *label = "";     // form label
    const char *help = "";      // one sentence for --help and tooltips
    FieldKind<P> kind;
    FieldGate gate = {};
    const char *unit = ""; // shown after values in forms ("tokens")
};

template <class P> using FieldTable = std::span<const Field<P>>;

// A problem with one field: the key names it; `message` is a fragment ("must be ...") that the
// caller prefixes with the field's name in its own terms (describe()).
struct FieldProblem
{
    QString key;
    QString message;
    bool isEmpty() const { return message.isEmpty(); }
    explicit operator bool() const { return !message.isEmpty(); }
};

// How a message names a field: --flag (command line), "key" (JSON files), its label (forms),
// or its bare key (sentences such as "positions must be ...").
enum class FieldNaming { Flag, Key, Label, Bare };

template <class P> const Field<P> *findField(FieldTable<P> table, QStringView key)
{
    for (const Field<P> &f : table)
        if (key == QString::fromUtf8(f.key))
            return &f;
    return nullptr;
}

template <class P> const Field<P> *findField(FieldTable<P> table, std::string_view key)
{
    for (const Field<P> &f : table)
        if (key == f.key)
            return &f;
    return nullptr;
}

template <class P> QString fieldName(const Field<P> &field, FieldNaming naming)
{
    switch (naming) {
    case FieldNaming::Flag:
        if (field.flag)
            return QStringLiteral("--") + QString::fromUtf8(field.flag);
        break;
    case FieldNaming::Label:
        return QString::fromUtf8(field.label);
    case FieldNaming::Bare:
        return QString::fromUtf8(field.key);
    case FieldNaming::Key:
        break;
    }
    return QLatin1Char('"') + QString::fromUtf8(field.key) + QLatin1Char('"');
}

// "--factor must be greater than 0 (got -1)"; a problem whose key is not in the table (a
// whole-struct rule) is returned as it is.
template <class P>
QString describe(FieldTable<P> table, const FieldProblem &problem, FieldNaming naming)
{
    if (const Field<P> *f = findField(table, problem.key))
        return fieldName(*f, naming) + QLatin1Char(' ') + problem.message;
    return problem.message;
}

// The value of the choice field that gates `field`, or -1 when the gate is unconditional.
template <class P> int gateValue(FieldTable<P> table, const Field<P> &field, const P &p)
{
    if (!field.gate.by)
        return -1;
    const Field<P> *by = findField(table, std::string_view(field.gate.by));
    const auto *choice = by ? std::get_if<ChoiceKind<P>>(&by->kind) : nullptr;
    return choice ? choice->get(p) : -1;
}

template <class P> bool fieldApplies(FieldTable<P> table, const Field<P> &field, const P &p)
{
    const int v = gateValue(table, field, p);
    return v < 0 ? true : (field.gate.applies >> v) & 1u;
}

template <class P> bool fieldRequired(FieldTable<P> table, const Field<P> &field, const P &p)
{
    const int v = gateValue(table, field, p);
    return v < 0 ? field.gate.required != 0 : (field.gate.required >> v) & 1u;
}

// The choice names a gate mask stands for ("yarn, longrope"), for --help.
template <class P> QString gateDescription(FieldTable<P> table, const Field<P> &field, quint32 mask)
{
    const Field<P> *by =
        field.gate.by ? findField(table, std::string_view(field.gate.by)) : nullptr;
    const auto *choice = by ? std::get_if<ChoiceKind<P>>(&by->kind) : nullptr;
    if (!choice)
        return {};
    QStringList names;
    for (const ChoiceName &n : choice->names)
        if ((mask >> n.value) & 1u)
            names.append(QString::fromUtf8(n.name));
    return names.join(QStringLiteral(", "));
}

template <class... F> struct Overloaded : F...
{
    using F::operator()...;
};
template <class... F> Overloaded(F...) -> Overloaded<F...>;

// The value as its one text syntax (command line, forms, captions).
template <class P> QString fieldText(const Field<P> &field, const P &p)
{
    return std::visit(
        Overloaded{
            [&](const IntegerKind<P> &k) { return QString::number(p.*k.member); },
            [&](const SeedKind<P> &k) { return QString::number(p.*k.member); },
            [&](const RealKind<P> &k) { return formatReal(p.*k.member); },
            [&](const OptionalRealKind<P> &k) {
                return (p.*k.member) ? formatReal(*(p.*k.member)) : QString();
            },
            [&](const BoolKind<P> &k) {
                return (p.*k.member) ? QStringLiteral("true") : QStringLiteral("false");
            },
            [&](const ChoiceKind<P> &k) { return choiceName(k.names, k.get(p)); },
            [&](const IntegerListKind<P> &k) { return fieldvalue::formatIntegerList(p.*k.member); },
            [&](const RealListKind<P> &k) { return fieldvalue::formatRealList(p.*k.member); },
            [&](const TextKind<P> &k) { return p.*k.member; },
            [&](const TextListKind<P> &k) { return (p.*k.member).join(QLatin1Char('\n')); },
            [&](const CrossListKind<P> &k) { return fieldvalue::formatCrossList(p.*k.member); },
            [&](const CellKind<P> &k) { return fieldvalue::formatCross(p.*k.member); },
        },
        field.kind);
}

template <class P>
QString setFieldTextList(const TextListKind<P> &k, P &p, const QStringList &items)
{
    if (items.size() > k.maxCount)
        return QStringLiteral("takes at most %1 values (got %2)").arg(k.maxCount).arg(items.size());
    for (const QString &item : items)
        if (item.size() > k.maxLength)
            return QStringLiteral("takes values of at most %1 characters (got one of %2)")
                .arg(k.maxLength)
                .arg(item.size());
    p.*k.member = items;
    return {};
}

// Parses `text` into the field; an empty string on success, else a fragment ("must be ...").
// An empty text clears an optional number; a text list takes one item per line.
template <class P> QString setFieldText(const Field<P> &field, P &p, QStringView text)
{
    return std::visit(
        Overloaded{
            [&](const IntegerKind<P> &k) {
                return fieldvalue::parseInteger(text, k.range, &(p.*k.member));
            },
            [&](const SeedKind<P> &k) { return fieldvalue::parseSeed(text, &(p.*k.member)); },
            [&](const RealKind<P> &k) {
                return fieldvalue::parseReal(text, k.range, &(p.*k.member));
            },
            [&](const OptionalRealKind<P> &k) {
                if (text.trimmed().isEmpty()) {
                    p.*k.member = std::nullopt;
                    return QString();
                }
                double v = 0;
                QString problem = fieldvalue::parseReal(text, k.range, &v);
                if (problem.isEmpty())
                    p.*k.member = v;
                return problem;
            },
            [&](const BoolKind<P> &k) { return fieldvalue::parseBool(text, &(p.*k.member)); },
            [&](const ChoiceKind<P> &k) {
                const std::optional<int> v = parseChoice(k.names, text);
                if (!v)
                    return QStringLiteral("must be %1 (got \"%2\")")
                        .arg(choiceList(k.names), text.toString());
                k.set(p, *v);
                return QString();
            },
            [&](const IntegerListKind<P> &k) {
                return fieldvalue::parseIntegerList(text, k.range, k.maxCount, &(p.*k.member));
            },
            [&](const RealListKind<P> &k) {
                return fieldvalue::parseRealList(text, k.range, k.maxCount, &(p.*k.member));
            },
            [&](const TextKind<P> &k) {
                if (text.size() > k.maxLength)
                    return QStringLiteral("must be at most %1 characters long (got %2)")
                        .arg(k.maxLength)
                        .arg(text.size());
                p.*k.member = text.toString();
                return QString();
            },
            [&](const TextListKind<P> &k) {
                QStringList items;
                for (QStringView line : text.split(QLatin1Char('\n')))
                    if (!line.trimmed().isEmpty())
                        items.append(line.trimmed().toString());
                return setFieldTextList(k, p, items);
            },
            [&](const CrossListKind<P> &k) {
                return fieldvalue::parseCrossList(text, k.maxCount, &(p.*k.member));
            },
            [&](const CellKind<P> &k) { return fieldvalue::parseCell(text, &(p.*k.member)); },
        },
        field.kind);
}

template <class P> QJsonValue fieldJson(const Field<P> &field, const P &p)
{
    return std::visit(
        Overloaded{
            [&](const IntegerKind<P> &k) { return QJsonValue(p.*k.member); },
            [&](const SeedKind<P> &k) { return fieldvalue::seedJson(p.*k.member); },
            [&](const RealKind<P> &k) { return QJsonValue(p.*k.member); },
            [&](const OptionalRealKind<P> &k) {
                return (p.*k.member) ? QJsonValue(*(p.*k.member)) : QJsonValue(QJsonValue::Null);
            },
            [&](const BoolKind<P> &k) { return QJsonValue(p.*k.member); },
            [&](const ChoiceKind<P> &k) { return QJsonValue(choiceName(k.names, k.get(p))); },
            [&](const IntegerListKind<P> &k) { return fieldvalue::integerListJson(p.*k.member); },
            [&](const RealListKind<P> &k) { return fieldvalue::realListJson(p.*k.member); },
            [&](const TextKind<P> &k) { return QJsonValue(p.*k.member); },
            [&](const TextListKind<P> &k) { return fieldvalue::textListJson(p.*k.member); },
            [&](const CrossListKind<P> &k) { return fieldvalue::crossListJson(p.*k.member); },
            [&](const CellKind<P> &k) { return QJsonValue(fieldvalue::formatCross(p.*k.member)); },
        },
        field.kind);
}

template <class P> QString setFieldJson(const Field<P> &field, P &p, const QJsonValue &json)
{
    return std::visit(
        Overloaded{
            [&](const IntegerKind<P> &k) {
                return fieldvalue::readInteger(json, k.range, &(p.*k.member));
            },
            [&](const SeedKind<P> &k) { return fieldvalue::readSeed(json, &(p.*k.member)); },
            [&](const RealKind<P> &k) {
                return fieldvalue::readReal(json, k.range, &(p.*k.member));
            },
            [&](const OptionalRealKind<P> &k) {
                if (json.isNull()) {
                    p.*k.member = std::nullopt;
                    return QString();
                }
                double v = 0;
                QString problem = fieldvalue::readReal(json, k.range, &v);
                if (problem.isEmpty())
                    p.*k.member = v;
                return problem;
            },
            [&](const BoolKind<P> &k) { return fieldvalue::readBool(json, &(p.*k.member)); },
            [&](const ChoiceKind<P> &k) {
                const std::optional<int> v =
                    json.isString() ? parseChoice(k.names, json.toString()) : std::nullopt;
                if (!v)
                    return QStringLiteral("must be %1 (got %2)")
                        .arg(choiceList(k.names),
                             json.isString() ? QLatin1Char('"') + json.toString() + QLatin1Char('"')
                                             : QStringLiteral("a value of another type"));
                k.set(p, *v);
                return QString();
            },
            [&](const IntegerListKind<P> &k) {
                return fieldvalue::readIntegerList(json, k.range, k.maxCount, &(p.*k.member));
            },
            [&](const RealListKind<P> &k) {
                return fieldvalue::readRealList(json, k.range, k.maxCount, &(p.*k.member));
            },
            [&](const TextKind<P> &k) {
                return fieldvalue::readText(json, k.maxLength, &(p.*k.member));
            },
            [&](const TextListKind<P> &k) {
                return fieldvalue::readTextList(json, k.maxCount, k.maxLength, &(p.*k.member));
            },
            [&](const CrossListKind<P> &k) {
                return fieldvalue::readCrossList(json, k.maxCount, &(p.*k.member));
            },
            [&](const CellKind<P> &k) { return fieldvalue::readCell(json, &(p.*k.member)); },
        },
        field.kind);
}

// Whether the field's current value is within its static range (a struct built in code, or
// edited through a path that bypassed parsing, is checked with this).
template <class P> QString fieldRangeProblem(const Field<P> &field, const P &p)
{
    const auto listProblem = [](qint64 count, qint64 maxCount) {
        return count > maxCount
                   ? QStringLiteral("takes at most %1 values (got %2)").arg(maxCount).arg(count)
                   : QString();
    };
    return std::visit(
        Overloaded{
            [&](const IntegerKind<P> &k) {
                return k.range.contains(p.*k.member) ? QString()
                                                     : QStringLiteral("must be %1 (got %2)")
                                                           .arg(k.range.describe())
                                                           .arg(p.*k.member);
            },
            [&](const SeedKind<P> &) { return QString(); },
            [&](const RealKind<P> &k) {
                return k.range.contains(p.*k.member)
                           ? QString()
                           : QStringLiteral("must be %1 (got %2)")
                                 .arg(k.range.describe(), formatReal(p.*k.member));
            },
            [&](const OptionalRealKind<P> &k) {
                const std::optional<double> v = p.*k.member;
                return !v || k.range.contains(*v) ? QString()
                                                  : QStringLiteral("must be %1 (got %2)")
                                                        .arg(k.range.describe(), formatReal(*v));
            },
            [&](const BoolKind<P> &) { return QString(); },
            [&](const ChoiceKind<P> &k) {
                return choiceName(k.names, k.get(p)).isEmpty()
                           ? QStringLiteral("must be %1").arg(choiceList(k.names))
                           : QString();
            },
            [&](const IntegerListKind<P> &k) {
                QString problem = listProblem((p.*k.member).size(), k.maxCount);
                for (qint64 v : p.*k.member)
                    if (problem.isEmpty() && !k.range.contains(v))
                        problem = QStringLiteral("must hold whole numbers %1 (got %2)")
                                      .arg(k.range.describe())
                                      .arg(v);
                return problem;
            },
            [&](const RealListKind<P> &k) {
                QString problem = listProblem(qint64((p.*k.member).size()), k.maxCount);
                for (double v : p.*k.member)
                    if (problem.isEmpty() && !k.range.contains(v))
                        problem = QStringLiteral("must hold numbers %1 (got %2)")
                                      .arg(k.range.describe(), formatReal(v));
                return problem;
            },
            [&](const TextKind<P> &k) {
                return (p.*k.member).size() > k.maxLength
                           ? QStringLiteral("must be at most %1 characters long").arg(k.maxLength)
                           : QString();
            },
            [&](const TextListKind<P> &k) {
                QString problem = listProblem((p.*k.member).size(), k.maxCount);
                for (const QString &v : p.*k.member)
                    if (problem.isEmpty() && v.size() > k.maxLength)
                        problem = QStringLiteral("takes values of at most %1 characters")
                                      .arg(k.maxLength);
                return problem;
            },
            [&](const CrossListKind<P> &k) {
                return listProblem((p.*k.member).size(), k.maxCount);
            },
            [&](const CellKind<P> &) { return QString(); },
        },
        field.kind);
}

// The first applicable field whose value is outside its range.
template <class P> FieldProblem rangeProblem(FieldTable<P> table, const P &p)
{
    for (const Field<P> &f : table)
        if (fieldApplies(table, f, p))
            if (QString message = fieldRangeProblem(f, p); !message.isEmpty())
                return {QString::fromUtf8(f.key), message};
    return {};
}

// "from 1 to 16777216", "interleaved or split", "true or false": for --help and tooltips.
template <class P> QString fieldDomain(const Field<P> &field)
{
    return std::visit(
        Overloaded{
            [](const IntegerKind<P> &k) { return k.range.describe(); },
            [](const SeedKind<P> &) { return QStringLiteral("from 0 to 2^64 - 1"); },
            [](const RealKind<P> &k) { return k.range.describe(); },
            [](const OptionalRealKind<P> &k) { return k.range.describe(); },
            [](const BoolKind<P> &) { return QStringLiteral("true or false"); },
            [](const ChoiceKind<P> &k) { return choiceList(k.names); },
            [](const IntegerListKind<P> &k) {
                return QStringLiteral("up to %1 whole numbers %2, comma-separated")
                    .arg(k.maxCount)
                    .arg(k.range.describe());
            },
            [](const RealListKind<P> &k) {
                return QStringLiteral("up to %1 numbers %2, comma-separated")
                    .arg(k.maxCount)
                    .arg(k.range.describe());
            },
            [](const TextKind<P> &k) {
                return QStringLiteral("text of up to %1 characters").arg(k.maxLength);
            },
            [](const TextListKind<P> &k) {
                return QStringLiteral("up to %1 texts (repeat the option)").arg(k.maxCount);
            },
            [](const CrossListKind<P> &k) {
                return QStringLiteral("up to %1 crosses P@D, comma-separated").arg(k.maxCount);
            },
            [](const CellKind<P> &) { return QStringLiteral("a cell P@D"); },
        },
        field.kind);
}

// Every field of the table as JSON; fields that do not apply are left out.
template <class P> QJsonObject toJson(FieldTable<P> table, const P &p)
{
    QJsonObject json;
    for (const Field<P> &f : table)
        if (fieldApplies(table, f, p))
            json.insert(QString::fromUtf8(f.key), fieldJson(f, p));
    return json;
}

// Reads the keys `json` has on top of *p (choice fields first, since they gate the others).
// Keys of `ignored` are skipped (another table reads them); any other unknown key is a problem.
template <class P>
FieldProblem readJson(FieldTable<P> table, const QJsonObject &json, P *p,
                      const QStringList &ignored = {})
{
    for (auto it = json.begin(); it != json.end(); ++it)
        if (!findField(table, it.key()) && !ignored.contains(it.key()))
            return {it.key(), QStringLiteral("\"%1\" is not a known setting here").arg(it.key())};
    for (int pass = 0; pass < 2; ++pass)
        for (const Field<P> &f : table) {
            const bool isChoice = std::holds_alternative<ChoiceKind<P>>(f.kind);
            if (isChoice != (pass == 0))
                continue;
            const QString key = QString::fromUtf8(f.key);
            if (!json.contains(key))
                continue;
            // A key the chosen variant does not read would be silently ignored: refuse it.
            if (!fieldApplies(table, f, *p))
                return {key,
                        QStringLiteral("does not apply with %1 %2")
                            .arg(QString::fromUtf8(f.gate.by),
                                 fieldText(*findField(table, std::string_view(f.gate.by)), *p))};
            if (QString message = setFieldJson(f, *p, json.value(key)); !message.isEmpty())
                return {key, message};
        }
    return {};
}

// "base 10000, layout interleaved": the applicable fields that differ from the defaults of
// `defaults` (all applicable fields when `all`), for captions and legends.
template <class P> QString fieldSummary(FieldTable<P> table, const P &p, bool all = false)
{
    const P defaults{};
    QStringList parts;
    for (const Field<P> &f : table) {
        if (!fieldApplies(table, f, p) || std::holds_alternative<TextListKind<P>>(f.kind))
            continue;
        const QString text = fieldText(f, p);
        if (text.isEmpty() || (!all && text == fieldText(f, defaults)))
            continue;
        parts.append(QString::fromUtf8(f.label).toLower() + QLatin1Char(' ') + text);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace pe
