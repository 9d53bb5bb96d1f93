#include "encoding.h"

#include "backends/backendfactory.h"
#include "commandline.h"
#include "io/encodingexport.h"
#include "keywordparser.h"
#include "modelinput.h"
#include "pythonerror.h"
#include "qtapplication.h"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

namespace py = pybind11;

namespace pe::python {

namespace {

// One backend per choice, kept between calls (a GPU context costs tens of milliseconds to
// make), used by one call at a time: backends are not thread-safe.
struct BackendSlot
{
    std::mutex mutex;
    std::unique_ptr<Backend> backend;
    QString lastNotice;
};

std::array<BackendSlot, 3> &backendSlots()
{
    static std::array<BackendSlot, 3> kept;
    return kept;
}

// Between chunks, so that Ctrl-C stops a long computation. Called without the GIL.
bool interrupted()
{
    const py::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
}

// Rows [first, first + count) of `spec`'s matrix into `out` (count x spec.dims floats), a chunk
// at a time as `pescope data` streams them. Releases the GIL; raises what went wrong.
void encodeRows(BackendChoice choice, const EncodingSpec &spec, qint64 first, qint64 count,
                float *out)
{
    if (choice != BackendChoice::Cpu)
        startQt(); // the GPU backend's offscreen surface needs a QGuiApplication
    BackendSlot &slot = backendSlots().at(std::size_t(choice));
    QString error;
    QString notice;
    bool stopped = false;
    {
        const py::gil_scoped_release release;
        const std::lock_guard lock(slot.mutex);
        if (!slot.backend) {
            QString why;
            slot.backend = makeBackend(choice, &why);
            if (!slot.backend)
                error = QStringLiteral("the %1 backend cannot start: %2")
                            .arg(backendChoiceName(choice), why);
        }
        // 64 MiB a call: the array is in memory already (no writer to feed), so fewer, larger
        // calls (each sets the kernels up anew) while Ctrl-C still stops within ~10 ms.
        const qint64 chunk = chunkRows(spec.dims, qint64(64) << 20);
        for (qint64 done = 0; slot.backend && done < count && error.isEmpty();) {
            const qint64 rows = std::min(chunk, count - done);
            if (!slot.backend->encode(spec, first + done, rows, out + done * spec.dims, &error))
                break;
            done += rows;
            if (done < count && interrupted()) {
                stopped = true;
                break;
            }
        }
        if (slot.backend && slot.backend->notice() != slot.lastNotice)
            notice = slot.lastNotice = slot.backend->notice();
    }
    if (stopped)
        throw py::error_already_set();
    if (!notice.isEmpty()) // e.g. the GPU failed and the CPU took over
        PyErr_WarnEx(PyExc_RuntimeWarning, notice.toUtf8().constData(), 1);
    if (!error.isEmpty())
        raiseRuntimeError(error);
}

// A new C-order array of `shape` whose memory NumPy owns (and frees with the array).
template <class T> py::array_t<T> newArray(const std::vector<qint64> &shape)
{
    return py::array_t<T>(std::vector<py::ssize_t>(shape.begin(), shape.end()));
}

qint64 elementCount(const std::vector<qint64> &shape)
{
    qint64 count = 1;
    for (const qint64 n : shape)
        count *= n;
    return count;
}

// The memory budget of every in-memory matrix of pescope (limits::maxInMemoryBytes).
void checkBudget(const std::vector<qint64> &shape, qint64 elementBytes, const QString &what)
{
    const double bytes = double(elementCount(shape)) * double(elementBytes);
    if (bytes <= double(limits::maxInMemoryBytes))
        return;
    QStringList sides;
    for (const qint64 n : shape)
        sides.append(QString::number(n));
    raiseValueError(QStringLiteral("%1: %2 values need %3; pescope makes arrays of at most "
                                   "%4 (`pescope data` streams larger ones to .npy, which "
                                   "numpy.load(path, mmap_mode=\"r\") maps)")
                        .arg(what, sides.join(QStringLiteral(" x ")), formatBytes(bytes),
                             formatBytes(double(limits::maxInMemoryBytes))));
}

qint64 firstRow(py::handle first, qint64 positions)
{
    // As every integer argument: another type (text, a list, a bool) is a TypeError; a number
    // that is not a whole one in range (2.5, 1e308, 10**30) a ValueError naming the range.
    const QString got = QString::fromStdString(py::repr(first).cast<std::string>());
    const auto outOfRange = [&] {
        raiseValueError(QStringLiteral("first must be a whole number from 0 to %1 (first + "
                                       "positions at most %2) (got %3)")
                            .arg(limits::maxPositions - positions)
                            .arg(limits::maxPositions)
                            .arg(got));
    };
    if (PyBool_Check(first.ptr()) || PyUnicode_Check(first.ptr()) ||
        PyNumber_Check(first.ptr()) == 0)
        raiseTypeError(QStringLiteral("first must be a whole number, not %1 (got %2)")
                           .arg(typeNameOf(first), got));
    if (!PyIndex_Check(first.ptr()))
        outOfRange(); // a float or another number: whole numbers only
    long long value = 0;
    try {
        value = py::cast<long long>(first);
    } catch (const py::cast_error &) {
        outOfRange(); // beyond 64 bits
    }
    if (value < 0 || value > limits::maxPositions - positions)
        outOfRange();
    return value;
}

// Fills `out` with `output`'s rows, a chunk of about 16 MiB at a time, without the GIL.
template <class T> void fillRows(const DataOutput &output, T *out)
{
    const qint64 columns = output.shape.back();
    const qint64 rows = elementCount(output.shape) / columns;
    const qint64 chunk = std::max<qint64>(1, (qint64(16) << 20) / (columns * qint64(sizeof(T))));
    bool stopped = false;
    {
        const py::gil_scoped_release release;
        for (qint64 done = 0; done < rows && !stopped;) {
            const qint64 count = std::min(chunk, rows - done);
            output.rows(done, count, out + done * columns);
            done += count;
            stopped = done < rows && interrupted();
        }
    }
    if (stopped)
        throw py::error_already_set();
}

template <class T> py::array outputArray(const DataOutput &output)
{
    py::array_t<T> array = newArray<T>(output.shape);
    fillRows(output, array.mutable_data());
    return array;
}

// The caller's `out` for a rows x dims table: a writable, C-contiguous float32 NumPy array of
// exactly that shape, written in place (numpy's out= convention). Raises what does not fit.
py::array_t<float> outArray(const py::handle &out, qint64 rows, qint64 dims)
{
    if (!py::isinstance<py::array>(out))
        raiseTypeError(
            QStringLiteral("out must be a NumPy array (got %1)").arg(textOf(py::type::of(out))));
    const auto array = py::reinterpret_borrow<py::array>(out);
    if (!array.dtype().equal(py::dtype::of<float>()))
        raiseTypeError(QStringLiteral("out must hold float32 (got %1)").arg(textOf(array.dtype())));
    if (array.ndim() != 2 || array.shape(0) != rows || array.shape(1) != dims)
        raiseValueError(
            QStringLiteral("out must have shape (%1, %2), positions x dims").arg(rows).arg(dims));
    const int flags = array.flags();
    if (!(flags & py::array::c_style) || !array.writeable())
        raiseValueError(QStringLiteral("out must be writable and C-contiguous"));
    return py::reinterpret_borrow<py::array_t<float>>(out);
}

} // namespace

py::array encode(const py::object &scheme, const py::object &positions, const py::object &dims,
                 const py::object &first, const py::object &backend, const py::kwargs &params)
{
    static KeywordParser parser(QStringLiteral("encode"), cli::addSpecOptions);
    auto keywords = py::reinterpret_steal<py::dict>(PyDict_Copy(params.ptr()));
    // out= is NumPy's, not an option of the command line's.
    const py::object out = keywords.attr("pop")("out", py::none());
    keywords["scheme"] = scheme;
    keywords["positions"] = positions;
    keywords["dims"] = dims;
    keywords["backend"] = backend;
    // The last spec read, for calls that repeat the options (rows a chunk at a time with
    // first=): reading them costs more than computing a small table. The GIL guards it.
    struct ReadSpec
    {
        QStringList arguments;
        EncodingSpec spec;
        BackendChoice choice = BackendChoice::Auto;
    };
    static ReadSpec last;
    const QStringList arguments = parser.arguments(keywords);
    if (arguments != last.arguments || last.arguments.isEmpty()) {
        const QCommandLineParser &options = parser.parse(arguments);
        ReadSpec read{arguments, cli::specFromOptions(options), cli::backendFromOptions(options)};
        last = std::move(read);
    }
    EncodingSpec spec = last.spec;
    const BackendChoice choice = last.choice;
    const qint64 rows = spec.positions;
    const qint64 start = firstRow(first, rows);
    if (start > 0) { // the rows of the matrix of first + positions positions
        spec.positions += start;
        spec = spec.normalized();
        if (const FieldProblem problem = spec.problem())
            raiseValueError(spec.describe(problem, FieldNaming::Flag));
    }
    QString error;
    if (!spec.resolve(&error)) // a model's table: reads the file
        raiseValueError(error);
    checkBudget({rows, spec.dims}, sizeof(float), QStringLiteral("positions x dims"));
    py::array_t<float> array =
        out.is_none() ? newArray<float>({rows, spec.dims}) : outArray(out, rows, spec.dims);
    encodeRows(choice, spec, start, rows, array.mutable_data());
    return array;
}

py::array ropeTable(const py::object &config, const py::object &what, const py::object &positions,
                    const py::object &layer, const py::object &scaled)
{
    static KeywordParser parser(QStringLiteral("rope_table"), cli::addDataOptions);
    const ModelConfig model = modelConfigFrom(config);
    py::dict keywords;
    // The command line's names: inv-freq, attention-factor.
    keywords["what"] = py::isinstance<py::str>(what) ? py::str(what).attr("replace")("_", "-")
                                                     : py::reinterpret_borrow<py::object>(what);
    keywords["positions"] = positions;
    keywords["layer"] = layer;
    keywords["scaled_table"] = scaled;
    const QCommandLineParser &options = parser.parse(keywords);
    const int layerIndex =
        int(cli::integerOption(options, QStringLiteral("layer"), 0, limits::maxLayers - 1, -1));
    QString error;
    std::optional<ModelLayerSpec> layerSpec = modelLayerSpec(model, layerIndex, &error);
    if (!layerSpec)
        raiseValueError(error);
    EncodingSpec spec = cli::specFromOptions(options, layerSpec->spec); // --positions
    const DataOutput output = cli::dataOutputFromOptions(options, spec);
    if (!output.rows) { // the scheme's matrix, through the CPU backend
        checkBudget(output.shape, sizeof(float), QStringLiteral("matrix"));
        py::array_t<float> array = newArray<float>(output.shape);
        encodeRows(BackendChoice::Cpu, spec, 0, spec.positions, array.mutable_data());
        return array;
    }
    switch (output.type) {
    case ElementType::Float64:
        checkBudget(output.shape, sizeof(double), output.name);
        return outputArray<double>(output);
    case ElementType::Int32:
        checkBudget(output.shape, sizeof(qint32), output.name);
        return outputArray<qint32>(output);
    case ElementType::Float32:
        break;
    }
    checkBudget(output.shape, sizeof(float), output.name);
    return outputArray<float>(output);
}

void releaseBackends()
{
    // A backend still busy in another thread (which may wait for the GIL held here) is left.
    for (BackendSlot &slot : backendSlots()) {
        const std::unique_lock lock(slot.mutex, std::try_to_lock);
        if (lock.owns_lock())
            slot.backend.reset();
    }
}

} // namespace pe::python
