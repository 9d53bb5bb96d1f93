#include "pythonerror.h"

#include "commandline.h"

#include "pybindinclude.h"

namespace py = pybind11;

namespace pe::python {

void raiseValueError(const QString &message)
{
    throw PythonError{PythonError::Kind::Value, message};
}

void raiseTypeError(const QString &message)
{
    throw PythonError{PythonError::Kind::Type, message};
}

void raiseRuntimeError(const QString &message)
{
    throw PythonError{PythonError::Kind::Runtime, message};
}

void raiseOSError(int errnum, const QString &message, const QString &path)
{
    throw PythonError{PythonError::Kind::OS, message, errnum, path};
}

namespace {

void setPythonError(const PythonError &error)
{
    const QByteArray message = error.message.toUtf8();
    switch (error.kind) {
    case PythonError::Kind::Value:
        PyErr_SetString(PyExc_ValueError, message.constData());
        return;
    case PythonError::Kind::Type:
        PyErr_SetString(PyExc_TypeError, message.constData());
        return;
    case PythonError::Kind::Runtime:
        PyErr_SetString(PyExc_RuntimeError, message.constData());
        return;
    case PythonError::Kind::NotImplemented:
        PyErr_SetString(PyExc_NotImplementedError, message.constData());
        return;
    case PythonError::Kind::OS:
        break;
    }
    if (error.errnum == 0) {
        PyErr_SetString(PyExc_OSError, message.constData());
        return;
    }
    // OSError(errno, strerror, filename) picks its subclass from errno.
    const py::tuple args = py::make_tuple(error.errnum, py::str(message.constData()),
                                          py::str(error.path.toUtf8().constData()));
    PyErr_SetObject(PyExc_OSError, args.ptr());
}

} // namespace

void registerErrorTranslators()
{
    // By value: pybind11's translators are void (*)(std::exception_ptr).
    // NOLINTNEXTLINE(performance-unnecessary-value-param)
    py::register_exception_translator([](std::exception_ptr pointer) {
        try {
            if (pointer)
                std::rethrow_exception(pointer);
        } catch (const PythonError &error) {
            setPythonError(error);
        } catch (const cli::UsageError &error) {
            PyErr_SetString(PyExc_ValueError, error.message.toUtf8().constData());
        }
    });
}

} // namespace pe::python
