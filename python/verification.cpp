#include "verification.h"

#include "commandline.h"
#include "keywordparser.h"
#include "modelinput.h"
#include "pythonerror.h"
#include "rope/enginecheck.h"

namespace py = pybind11;

namespace pe::python {

namespace {

void addVerifyOptions(OptionSet &options)
{
    options.addPlain({QStringLiteral("what"), QString(), QStringLiteral("NAME")});
    options.addPlain({QStringLiteral("positions"), QString(), QStringLiteral("N")});
    options.addPlain({QStringLiteral("tolerance"), QString(), QStringLiteral("T")});
    options.addPlain({QStringLiteral("layout"), QString(), QStringLiteral("NAME")});
    options.addPlain({QStringLiteral("strict"), QString()});
    options.addPlain({QStringLiteral("unscaled"), QString()});
}

// The array behind `table`: NumPy's DLPack import for objects with __dlpack__ (PyTorch, JAX;
// no copy for CPU memory), else numpy.asarray (__array__, the buffer protocol, lists).
py::array arrayOf(py::handle table)
{
    const py::module_ numpy = py::module_::import("numpy");
    if (py::isinstance<py::array>(table))
        return py::reinterpret_borrow<py::array>(table);
    if (py::hasattr(table, "__dlpack__")) {
        try {
            return numpy.attr("from_dlpack")(table);
        } catch (const py::error_already_set &) {
            // A device or type DLPack cannot hand over: __array__ may still convert it.
            if (!py::hasattr(table, "__array__"))
                throw;
        }
    }
    return numpy.attr("asarray")(table);
}

// Reads `array`'s values in place whatever its strides (float32 and float64 are read without a
// copy; other real types are converted to float64 first).
template <class T> void readValues(const py::array &array, std::vector<double> *values)
{
    const auto typed = py::reinterpret_borrow<py::array_t<T>>(array);
    if (array.ndim() == 0) {
        values->push_back(double(*typed.data()));
    } else if (array.ndim() == 1) {
        const auto view = typed.template unchecked<1>();
        for (py::ssize_t i = 0; i < view.shape(0); ++i)
            values->push_back(double(view(i)));
    } else {
        const auto view = typed.template unchecked<2>();
        for (py::ssize_t i = 0; i < view.shape(0); ++i)
            for (py::ssize_t j = 0; j < view.shape(1); ++j)
                values->push_back(double(view(i, j)));
    }
}

// The precision an array of `type` holds, as a file of that type would be read (float16 and
// bfloat16 widen exactly; integers are exact in float64).
TensorDType precisionOf(const py::dtype &type)
{
    const QString name = textOf(type.attr("name"));
    if (type.kind() == 'f' && type.itemsize() == 2)
        return TensorDType::F16;
    if (name == QLatin1String("bfloat16")) // ml_dtypes' (JAX, torch via NumPy)
        return TensorDType::BF16;
    if ((type.kind() == 'f' && type.itemsize() == 4) ||
        (type.kind() == 'c' && type.itemsize() == 8))
        return TensorDType::F32;
    return TensorDType::F64;
}

// `table` as the command line reads a file given with --against (core/rope/enginecheck.h): its
// shape turned into a table (leading dimensions of 1 dropped; complex numbers are (cos, sin)
// pairs, as a complex .npy is), read at its own precision: float32 and float64 in place, float16
// and bfloat16 widened exactly and compared at their precision, integers as float64.
RopeCandidate candidateFrom(py::handle table)
{
    py::array array = arrayOf(table);
    py::dtype type = array.dtype();
    const char kind = type.kind();
    const bool bfloat16 = textOf(type.attr("name")) == QLatin1String("bfloat16");
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'c' && !bfloat16)
        raiseValueError(
            QStringLiteral("table must hold real numbers or complex (cos, sin) pairs (got an "
                           "array of %1)")
                .arg(textOf(type)));
    const TensorDType precision = precisionOf(type);
    RopeCandidate out;
    out.typeName = textOf(type);
    for (py::ssize_t i = 0; i < array.ndim(); ++i)
        out.shape.push_back(array.shape(i));
    qint64 count = 1;
    for (const qint64 n : out.shape)
        count *= n;
    if (kind == 'c') // (real, imag) per pair: the trailing dimension of 2 of a complex .npy
        count *= 2;
    if (count > maxRopeCandidateValues)
        raiseValueError(QStringLiteral("table has %1 values; verify compares at most %2 (fewer "
                                       "positions will do)")
                            .arg(count)
                            .arg(maxRopeCandidateValues));
    const py::module_ numpy = py::module_::import("numpy");
    if (kind == 'c') {
        out.shape.push_back(2);
        array = numpy.attr("stack")(py::make_tuple(array.attr("real"), array.attr("imag")), -1);
        type = array.dtype();
    } else if (precision == TensorDType::F16 || precision == TensorDType::BF16) {
        array = array.attr("astype")(py::dtype::of<float>()); // exact
        type = array.dtype();
    }
    // The command line's shape rules and messages (a complex array is the command line's
    // complex .npy: the trailing 2 above).
    QString error;
    if (!ropeCandidateShape(&out, &error))
        raiseValueError(error);
    out.tensor = QStringLiteral("table");
    array = array.attr("reshape")(py::make_tuple(-1)); // row-major, as the table's values
    out.values.values.reserve(std::size_t(array.size()));
    if (type.equal(py::dtype::of<float>())) {
        out.dtype = precision == TensorDType::F64 ? TensorDType::F32 : precision;
        readValues<float>(array, &out.values.values);
    } else {
        out.dtype = TensorDType::F64;
        if (!type.equal(py::dtype::of<double>()))
            array = array.attr("astype")(py::dtype::of<double>());
        readValues<double>(array, &out.values.values);
    }
    return out;
}

template <class Enum, std::size_t N>
std::optional<Enum> choiceOption(const QCommandLineParser &options, const QString &name,
                                 const ChoiceName (&names)[N])
{
    if (!options.isSet(name))
        return std::nullopt;
    const QString value = options.value(name);
    const auto chosen = parseAs<Enum>(names, value);
    if (!chosen)
        raiseValueError(
            QStringLiteral("--%1 must be %2 (got \"%3\")").arg(name, choiceList(names), value));
    return chosen;
}

// The adapter to the command line's verify: the model's first rotary layer and the same check
// `pescope verify` runs (core/rope/enginecheck.h), so the report is the command line's.
Verification verifyAgainstReference(const ModelConfig &config, RopeCandidate candidate,
                                    const QCommandLineParser &options)
{
    QString error;
    const std::optional<ModelLayerSpec> model = modelLayerSpec(config, -1, &error);
    if (!model)
        raiseValueError(error);
    const RopeScheme *rope = model->spec.get<RopeScheme>();
    if (!rope)
        raiseValueError(QStringLiteral("%1 has no rotation to verify").arg(model->description));
    EngineCheckRequest request;
    request.headDim = model->spec.dims;
    request.config = *rope;
    request.reference = QStringLiteral("%1 (%2)").arg(model->description, config.source);
    request.what = choiceOption<RopeQuantity>(options, QStringLiteral("what"), ropeQuantityNames);
    if (const auto layout =
            choiceOption<RopeLayout>(options, QStringLiteral("layout"), ropeLayoutNames))
        request.options.layout = *layout;
    if (options.isSet(QStringLiteral("positions")))
        request.sequenceLength =
            cli::integerOption(options, QStringLiteral("positions"), 1, ropeMaxContext, 0);
    request.options.tolerance =
        cli::numberOption(options, QStringLiteral("tolerance"), ropeDefaultTolerance);
    if (!(request.options.tolerance >= 0))
        raiseValueError(QStringLiteral("--tolerance must be at least 0 (got %1)")
                            .arg(request.options.tolerance));
    request.options.scaled = !options.isSet(QStringLiteral("unscaled"));
    request.options.strict = options.isSet(QStringLiteral("strict"));
    const std::optional<EngineCheck> check =
        checkRopeCandidate(request, std::move(candidate), &error);
    if (!check)
        raiseValueError(error);

    const RopeVerifyResult &result = check->result;
    Verification out;
    out.agrees = result.agrees;
    out.what = nameOf(ropeQuantityNames, check->options.what);
    out.compared = result.compared;
    out.differing = result.differing;
    out.maxAbsError = result.maxAbsError;
    out.maxRelError = result.maxRelError;
    if (!result.agrees && !result.diagnosis.isEmpty())
        out.diagnosis = result.diagnosis;
    out.report = check->lines;
    out.firstDifference = py::none();
    if (!result.agrees && result.differing > 0) {
        py::dict first;
        for (const auto &[key, index] :
             {std::pair{"position", result.first.position},
              std::pair{"column", result.first.column}, std::pair{"pair", result.first.pair}})
            if (index >= 0)
                first[key] = index;
        first["value"] = result.first.candidate;
        first["expected"] = result.first.reference;
        out.firstDifference = first;
    }
    return out;
}

} // namespace

Verification verify(const py::object &config, const py::object &table, const py::object &what,
                    const py::object &positions, const py::object &tolerance,
                    const py::object &layout, const py::object &strict, const py::object &unscaled)
{
    static KeywordParser parser(QStringLiteral("verify"), addVerifyOptions);
    const ModelConfig model = modelConfigFrom(config);
    RopeCandidate candidate = candidateFrom(table);
    py::dict keywords;
    keywords["what"] = py::isinstance<py::str>(what) ? py::str(what).attr("replace")("_", "-")
                                                     : py::reinterpret_borrow<py::object>(what);
    keywords["layout"] = layout;
    keywords["positions"] = positions;
    keywords["tolerance"] = tolerance;
    keywords["strict"] = strict;
    keywords["unscaled"] = unscaled;
    return verifyAgainstReference(model, std::move(candidate), parser.parse(keywords));
}

void bindVerification(py::module_ &module)
{
    const auto text = [](const QString &s) { return py::str(s.toUtf8().constData()); };
    py::class_<Verification>(module, "Verification",
                             "The result of pescope.verify(): true when the table agrees with "
                             "Hugging Face's reference within the tolerance. str() gives "
                             "`pescope verify`'s report.")
        .def_readonly("agrees", &Verification::agrees,
                      "True when every value is within the tolerance.")
        .def_property_readonly(
            "what", [text](const Verification &v) { return text(v.what); },
            "The quantity compared: inv-freq, attention-factor, cos, sin or cos-sin.")
        .def_readonly("compared", &Verification::compared, "Values compared.")
        .def_readonly("differing", &Verification::differing, "Values beyond the tolerance.")
        .def_readonly("max_abs_error", &Verification::maxAbsError,
                      "The largest |table - reference|.")
        .def_readonly("max_rel_error", &Verification::maxRelError,
                      "Tables: the largest |table - reference| relative to the pair's magnitude "
                      "(the attention factor), meaningful at zero crossings; inv_freq and the "
                      "attention factor: relative to each non-zero reference.")
        .def_readonly("first_difference", &Verification::firstDifference,
                      "None when the table agrees; else the first value beyond the tolerance in "
                      "row-major order: a dict of position, column and pair (those that apply), "
                      "value (the table's) and expected (the reference's).")
        .def_property_readonly(
            "diagnosis",
            [text](const Verification &v) -> py::object {
                return v.diagnosis ? py::object(text(*v.diagnosis)) : py::none();
            },
            "The known mistake the difference matches, one line; None when none does.")
        .def("__bool__", [](const Verification &v) { return v.agrees; })
        .def("__str__",
             [text](const Verification &v) { return text(v.report.join(QLatin1Char('\n'))); })
        .def("__repr__", [text](const Verification &v) {
            return text(
                QStringLiteral("<pescope.Verification %1: %2, max abs error %3>")
                    .arg(v.agrees ? QStringLiteral("agrees") : QStringLiteral("differs"), v.what)
                    .arg(v.maxAbsError, 0, 'g', 3));
        });
}

} // namespace pe::python
