#include "keywordparser.h"

#include "commandline.h"
#include "pythonerror.h"
#include "text/unicodetext.h"

namespace py = pybind11;

namespace pe::python {

namespace {

bool isText(py::handle value)
{
    return PyUnicode_Check(value.ptr()) != 0;
}

bool isBoolean(py::handle value)
{
    if (PyBool_Check(value.ptr()))
        return true;
    static const py::handle numpyBool =
        py::object(py::module_::import("numpy").attr("bool_")).release();
    return py::isinstance(value, numpyBool);
}

bool isSequence(py::handle value)
{
    return PySequence_Check(value.ptr()) != 0 && !isText(value) && !PyBytes_Check(value.ptr()) &&
           !PyByteArray_Check(value.ptr());
}

// One value as the command line writes it: whole numbers as integers, other numbers as
// Python's shortest round-trip text, a (P, D) pair as "P@D", paths through os.fspath.
QString scalarText(const QString &flag, py::handle value)
{
    if (isText(value))
        return textOf(value);
    if (PyLong_CheckExact(value.ptr())) {
        const qint64 number = PyLong_AsLongLong(value.ptr());
        if (number != -1 || !PyErr_Occurred())
            return QString::number(number);
        PyErr_Clear(); // beyond 64 bits: as Python writes it
    }
    if (isBoolean(value))
        return py::cast<bool>(value) ? QStringLiteral("true") : QStringLiteral("false");
    if (PyIndex_Check(value.ptr()))
        return textOf(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())));
    if (PyFloat_Check(value.ptr()) || PyNumber_Check(value.ptr())) {
        const py::object number = py::reinterpret_steal<py::object>(PyNumber_Float(value.ptr()));
        if (number)
            return QString::fromStdString(py::repr(number).cast<std::string>());
        PyErr_Clear();
    }
    if (py::hasattr(value, "__fspath__"))
        return pathText(value, QStringLiteral("--") + flag);
    if (isSequence(value) && py::len(value) == 2)
        return scalarText(flag, value[py::int_(0)]) + QLatin1Char('@') +
               scalarText(flag, value[py::int_(1)]);
    raiseTypeError(
        QStringLiteral("--%1 takes a number or text (got a %2)").arg(flag, typeNameOf(value)));
}

} // namespace

QString textOf(py::handle value)
{
    const py::str text(value);
    Py_ssize_t size = 0;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
    if (!utf8)
        throw py::error_already_set();
    // Every character kept: QString::fromUtf8 would drop a U+FEFF at the start.
    return unicode::fromUtf8(QByteArrayView(utf8, size));
}

QString typeNameOf(py::handle value)
{
    return textOf(py::type::handle_of(value).attr("__name__"));
}

QString pathText(py::handle value, const QString &what)
{
    if (isText(value) || py::hasattr(value, "__fspath__")) {
        const py::object path = py::module_::import("os").attr("fspath")(value);
        if (isText(path))
            return textOf(path);
    }
    raiseTypeError(QStringLiteral("%1 must be a path: a str or os.PathLike (got a %2)")
                       .arg(what, typeNameOf(value)));
}

KeywordParser::KeywordParser(const QString &function,
                             const std::function<void(OptionSet &)> &addOptions)
    : m_function(function)
{
    addOptions(m_options);
    m_options.addTo(m_parser);
}

std::optional<QString> KeywordParser::valueNameOf(const QString &flag) const
{
    auto known = m_valueNames.constFind(flag);
    if (known == m_valueNames.constEnd()) {
        const std::optional<QCommandLineOption> option = m_options.option(flag);
        known =
            m_valueNames.insert(flag, option ? std::optional(option->valueName()) : std::nullopt);
    }
    return *known;
}

QStringList KeywordParser::optionArguments(const QString &flag, py::handle value) const
{
    const QString dashed = QStringLiteral("--") + flag;
    const QString valueName = *valueNameOf(flag);
    if (valueName.isEmpty()) { // a switch
        if (!isBoolean(value))
            raiseTypeError(QStringLiteral("%1 is a switch: give True or False (got %2)")
                               .arg(dashed, textOf(py::repr(value))));
        if (py::cast<bool>(value))
            return {dashed};
        const QString off = QStringLiteral("no-") + flag;
        return valueNameOf(off) ? QStringList{QStringLiteral("--") + off} : QStringList{};
    }
    // A number option takes a Python number: "10" or [5] would be read as the number they
    // spell (the command line's text), which hides a mistake in the caller's code.
    if (valueName == QLatin1String("N") &&
        (isText(value) || isSequence(value) || PyBytes_Check(value.ptr()) != 0 ||
         PyByteArray_Check(value.ptr()) != 0))
        raiseTypeError(QStringLiteral("%1 must be a number, not %2 (got %3)")
                           .arg(QString(flag).replace(QLatin1Char('-'), QLatin1Char('_')),
                                typeNameOf(value), textOf(py::repr(value))));
    // "--flag=value", so that a value starting with '-' is not read as an option.
    const QString prefix = dashed + QLatin1Char('=');
    if (!isSequence(value) || valueName == QLatin1String("P@D"))
        return {prefix + scalarText(flag, value)};
    QStringList items;
    for (const py::handle item : value)
        items.append(scalarText(flag, item));
    if (valueName == QLatin1String("TEXT")) { // a text list: the option once per item
        QStringList arguments;
        for (const QString &item : items)
            arguments.append(prefix + item);
        return arguments;
    }
    return {prefix + items.join(QLatin1Char(','))};
}

QStringList KeywordParser::arguments(const py::dict &keywords) const
{
    QStringList arguments;
    for (const auto &[key, value] : keywords) {
        if (value.is_none())
            continue;
        const QString name = textOf(key);
        QString flag = name;
        flag.replace(QLatin1Char('_'), QLatin1Char('-'));
        if (!valueNameOf(flag))
            raiseTypeError(QStringLiteral("%1() got an unexpected keyword argument '%2'")
                               .arg(m_function, name));
        arguments += optionArguments(flag, value);
    }
    return arguments;
}

const QCommandLineParser &KeywordParser::parse(const QStringList &arguments)
{
    cli::parseOrThrow(m_parser, QStringList{QStringLiteral("pescope.") + m_function} + arguments);
    return m_parser;
}

const QCommandLineParser &KeywordParser::parse(const py::dict &keywords)
{
    return parse(arguments(keywords));
}

} // namespace pe::python
