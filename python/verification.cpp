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

// `table` as the command line reads a file given with --against (core/rope/enginecheck.h): its
// shape turned into a table, read at its own precision (float32 and float64 in place; other real
// types as float64).
RopeCandidate candidateFrom(py::handle table)
{
    py::array array = arrayOf(table);
    const py::dtype type = array.dtype();
    const char kind = type.kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        raiseValueError(
            QStringLiteral("table must hold real numbers (got an array of %1)").arg(textOf(type)));
    if (array.ndim() > 2)
        raiseValueError(QStringLiteral("table has %1 dimensions; a RoPE table has 2, inv_freq 1")
                            .arg(array.ndim()));
    if (array.size() > maxRopeCandidateValues)
        raiseValueError(QStringLiteral("table has %1 values; verify compares at most %2 (fewer "
                                       "positions will do)")
                            .arg(array.size())
                            .arg(maxRopeCandidateValues));
    if (array.size() == 0)
        raiseValueError(QStringLiteral("table is empty"));
    RopeCandidate out;
    out.tensor = QStringLiteral("table");
    out.typeName = textOf(type);
    for (py::ssize_t i = 0; i < array.ndim(); ++i)
        out.shape.push_back(array.shape(i));
    out.values.rows = array.ndim() == 2 ? array.shape(0) : 1;
    out.values.columns = array.ndim() == 0 ? 1 : array.shape(array.ndim() - 1);
    out.values.values.reserve(std::size_t(array.size()));
    if (type.equal(py::dtype::of<float>())) {
        out.dtype = TensorDType::F32;
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
                      "The largest |table - reference| / |reference| over non-zero references.")
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
