// Command-line options derived from field tables: each field with a flag becomes one option whose
// --help line says what it is, its domain, its default and where it applies; reading checks the
// value with the field's own parser, refuses options that do not apply to what was chosen, and
// insists on required ones. Several tables may share a flag (--base, --seed, --causal).
#pragma once

#include "field.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QHash>
#include <QList>
#include <QMap>

#include <optional>

namespace pe {

// A command's own spelling of some of a table's flags ("phrase-dims" -> "dims" for
// `pescope phrases`, whose --dims can only mean the phrase embedding's).
using FlagRenames = QHash<QString, QString>;

inline QString flagFor(const char *flag, const FlagRenames &renames)
{
    const QString name = QString::fromUtf8(flag);
    return renames.value(name, name);
}

// Options gathered from several tables; add them all, then addTo() a parser.
class OptionSet
{
public:
    // `context` prefixes the help of shared flags ("rope: ..."); empty for unshared tables.
    template <class P>
    void add(FieldTable<P> table, const QString &context = {}, const FlagRenames &renames = {})
    {
        const P defaults{};
        for (const Field<P> &f : table) {
            if (!f.flag)
                continue;
            const QString flag = flagFor(f.flag, renames);
            if (flag.isEmpty()) // renamed away: this command does not offer it
                continue;
            const bool isSwitch = OptionSet::isSwitch(f, defaults);
            add(flag, isSwitch, valueName(f), helpLine(table, f, defaults), context);
            if (isSwitch) // so a command line can turn off what a session or preset turned on
                add(QStringLiteral("no-") + flag, true, QString(),
                    QStringLiteral("Turns --%1 off.").arg(flag), context);
        }
    }
    // A hand-made option (not a parameter of any struct: --out, --format, --what).
    void addPlain(const QCommandLineOption &option);
    void addTo(QCommandLineParser &parser) const;
    bool contains(const QString &flag) const { return m_entries.contains(flag); }
    // The option named `flag` as addTo() gives it to a parser, table-made or plain; nullopt
    // when the set has none. For programs that build a command line (the Python module): whether
    // an option takes a value, and which kind (valueName()).
    std::optional<QCommandLineOption> option(const QString &flag) const;

private:
    struct Entry
    {
        bool isSwitch = false;
        QString valueName;
        QStringList help;
    };
    void add(const QString &flag, bool isSwitch, const QString &valueName, const QString &help,
             const QString &context);
    QCommandLineOption tableOption(const QString &flag) const;

    template <class P> static bool isSwitch(const Field<P> &f, const P &defaults)
    {
        // A boolean that defaults to false is a plain switch (--causal); one that defaults to
        // true takes a value (--truncate false), so the command line can say both.
        const auto *b = std::get_if<BoolKind<P>>(&f.kind);
        return b && !(defaults.*(b->member));
    }
    template <class P> static QString valueName(const Field<P> &f)
    {
        if (std::holds_alternative<ChoiceKind<P>>(f.kind))
            return QStringLiteral("NAME");
        if (std::holds_alternative<TextKind<P>>(f.kind) ||
            std::holds_alternative<TextListKind<P>>(f.kind))
            return QStringLiteral("TEXT");
        if (std::holds_alternative<IntegerListKind<P>>(f.kind) ||
            std::holds_alternative<RealListKind<P>>(f.kind) ||
            std::holds_alternative<CrossListKind<P>>(f.kind))
            return QStringLiteral("LIST");
        if (std::holds_alternative<CellKind<P>>(f.kind))
            return QStringLiteral("P@D");
        if (std::holds_alternative<BoolKind<P>>(f.kind))
            return QStringLiteral("BOOL");
        return QStringLiteral("N");
    }
    template <class P> static QString helpLine(FieldTable<P> table, const Field<P> &f, const P &d)
    {
        QString line = QString::fromUtf8(f.help);
        const QString domain = fieldDomain(f);
        if (!domain.isEmpty() && !std::holds_alternative<BoolKind<P>>(f.kind))
            line +=
                QStringLiteral(" ") + domain.left(1).toUpper() + domain.mid(1) + QLatin1Char('.');
        if (f.gate.by) {
            if (f.gate.applies != ~0u)
                line += QStringLiteral(" With %1 %2.")
                            .arg(QString::fromUtf8(f.gate.by),
                                 gateDescription(table, f, f.gate.applies));
            if (f.gate.required)
                line += QStringLiteral(" Required with %1.")
                            .arg(gateDescription(table, f, f.gate.required));
        } else if (f.gate.required) {
            line += QStringLiteral(" Required.");
        }
        const QString defaultText = fieldText(f, d);
        if (!f.gate.required && !defaultText.isEmpty() &&
            !std::holds_alternative<TextListKind<P>>(f.kind))
            line += QStringLiteral(" Default %1.").arg(defaultText);
        return line;
    }

    QMap<QString, Entry> m_entries; // by flag
    QStringList m_order;            // flags in the order they were first added
    QList<QCommandLineOption> m_plain;
};

// "--scheme rope --rope-type llama3": what was chosen, for "does not apply to ..." messages.
template <class P>
QString gateContext(FieldTable<P> table, const Field<P> &field, const P &p, const QString &context)
{
    const Field<P> *by =
        field.gate.by ? findField(table, std::string_view(field.gate.by)) : nullptr;
    if (!by)
        return context;
    const QString gate = fieldName(*by, FieldNaming::Flag) + QLatin1Char(' ') + fieldText(*by, p);
    return context.isEmpty() ? gate : context + QLatin1Char(' ') + gate;
}

// Reads the options of `table` that are set into *p (choice fields first: they gate the rest).
// Problems name the option: a bad value, an option that does not apply (`context` says to
// what: "--scheme rope"; a gated field adds its gate, "--rope-type yarn"), a required option
// missing.
template <class P>
FieldProblem readOptions(FieldTable<P> table, const QCommandLineParser &parser, P *p,
                         const QString &context, const FlagRenames &renames = {})
{
    const auto flagOf = [&](const Field<P> &f) { return flagFor(f.flag, renames); };
    // optionNames() lists what the command line gave; isSet() would warn about flags this
    // command did not register (another table's).
    const QStringList given = parser.optionNames();
    const auto isSet = [&](const QString &flag) { return given.contains(flag); };
    for (int pass = 0; pass < 2; ++pass)
        for (const Field<P> &f : table) {
            if (!f.flag || flagOf(f).isEmpty() ||
                std::holds_alternative<ChoiceKind<P>>(f.kind) != (pass == 0))
                continue;
            const auto *b = std::get_if<BoolKind<P>>(&f.kind);
            const bool isSwitch = b && !(P{}.*(b->member));
            const QString off = QStringLiteral("no-") + flagOf(f);
            if (isSwitch && isSet(off)) {
                if (isSet(flagOf(f)))
                    return {QString::fromUtf8(f.key),
                            QStringLiteral("and --%1 cannot both be given").arg(off)};
                if (fieldApplies(table, f, *p))
                    p->*(b->member) = false;
                continue;
            }
            if (!isSet(flagOf(f)))
                continue;
            if (!fieldApplies(table, f, *p))
                return {
                    QString::fromUtf8(f.key),
                    QStringLiteral("does not apply to %1").arg(gateContext(table, f, *p, context))};
            QString message;
            if (const auto *k = std::get_if<TextListKind<P>>(&f.kind))
                message = setFieldTextList(*k, *p, parser.values(flagOf(f)));
            else if (isSwitch)
                p->*(b->member) = true;
            else
                message = setFieldText(f, *p, parser.value(flagOf(f)));
            if (!message.isEmpty())
                return {QString::fromUtf8(f.key), message};
        }
    // A required field must come with the choice that requires it: a type chosen here needs its
    // values here; one that came from a session or preset brought its values along.
    for (const Field<P> &f : table) {
        if (!f.flag || flagOf(f).isEmpty() || !fieldRequired(table, f, *p) || isSet(flagOf(f)))
            continue;
        const Field<P> *by = f.gate.by ? findField(table, std::string_view(f.gate.by)) : nullptr;
        if (by && !(by->flag && isSet(flagFor(by->flag, renames))))
            continue;
        return {QString::fromUtf8(f.key),
                QStringLiteral("is required with %1").arg(gateContext(table, f, *p, context))};
    }
    return {};
}

// Throws nothing; the caller turns a problem into its usage error with describe(.., Flag).
template <class P>
bool anyOptionSet(FieldTable<P> table, const QCommandLineParser &parser,
                  const FlagRenames &renames = {})
{
    const QStringList given = parser.optionNames();
    for (const Field<P> &f : table)
        if (f.flag && !flagFor(f.flag, renames).isEmpty() &&
            (given.contains(flagFor(f.flag, renames)) ||
             given.contains(QStringLiteral("no-") + flagFor(f.flag, renames))))
            return true;
    return false;
}

} // namespace pe
