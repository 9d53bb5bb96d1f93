// Errors the module raises in Python: each failure is one C++ exception carrying the Python
// exception type and one message. The command line's UsageError becomes a ValueError with the
// command line's own message; registerErrorTranslators() installs the translation.
#pragma once

#include <QString>

#include <utility>

namespace pe::python {

struct PythonError
{
    enum class Kind { Value, Type, OS, Runtime, NotImplemented };
    PythonError(Kind kind, QString message, int errnum = 0, QString path = {})
        : kind(kind), message(std::move(message)), errnum(errnum), path(std::move(path))
    {}
    Kind kind = Kind::Value;
    QString message;
    int errnum = 0; // Kind::OS: ENOENT, EACCES, ... (0: a plain OSError)
    QString path;   // Kind::OS: the file named
};

[[noreturn]] void raiseValueError(const QString &message);
[[noreturn]] void raiseTypeError(const QString &message);
[[noreturn]] void raiseRuntimeError(const QString &message);
// OSError(errnum, message, path): Python makes it FileNotFoundError for ENOENT, PermissionError
// for EACCES.
[[noreturn]] void raiseOSError(int errnum, const QString &message, const QString &path);

// Translates PythonError and pe::cli::UsageError for every function of the module.
void registerErrorTranslators();

} // namespace pe::python
