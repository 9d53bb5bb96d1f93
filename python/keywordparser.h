// KeywordParser: Python keyword arguments read by a command's own options. A keyword names the
// long option with `_` for `-` (rope_type= is --rope-type), so the field tables of core/fields
// and the command line's option readers parse and check every value, and a bad value raises
// ValueError with the command line's message.
#pragma once

#include "fields/fieldoptions.h"

#include <QCommandLineParser>

#include "pybindinclude.h"

#include <QHash>

#include <functional>
#include <optional>

namespace pe::python {

class KeywordParser
{
public:
    // `addOptions` adds the command's options (built once: their help texts cost more than a call).
    KeywordParser(const QString &function, const std::function<void(OptionSet &)> &addOptions);

    // Reads `keywords` (those whose value is None are left out) as options: True is a switch
    // given (False gives --no-NAME where there is one), a number or a str is the value, a list
    // joins with commas (text options repeat instead), a (P, D) pair is "P@D". Raises TypeError
    // for a keyword that names no option or a value of no usable type, ValueError (the command
    // line's message) for a bad value. Not thread-safe: the GIL serialises the calls.
    const QCommandLineParser &parse(const pybind11::dict &keywords);
    // The command line parse() reads (after the program name): the same checks of the keywords,
    // without parsing.
    QStringList arguments(const pybind11::dict &keywords) const;
    // Parses a command line made by arguments().
    const QCommandLineParser &parse(const QStringList &arguments);

private:
    // The option's value name ("N", "LIST", "TEXT"; empty for a switch), nullopt when there is
    // no such option; looked up once per flag.
    std::optional<QString> valueNameOf(const QString &flag) const;
    QStringList optionArguments(const QString &flag, pybind11::handle value) const;

    QString m_function;
    OptionSet m_options;
    QCommandLineParser m_parser;
    mutable QHash<QString, std::optional<QString>> m_valueNames;
};

// str(value), and the name of value's type, for messages.
QString textOf(pybind11::handle value);
QString typeNameOf(pybind11::handle value);

// A value of a Python str or os.PathLike as text; TypeError naming `what` otherwise.
QString pathText(pybind11::handle value, const QString &what);

} // namespace pe::python
