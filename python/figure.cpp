#include "figure.h"

#include "figures/figureexporter.h"
#include "io/atomicfile.h"
#include "keywordparser.h"
#include "media/outputformats.h"
#include "pythonerror.h"
#include "qtapplication.h"

namespace py = pybind11;

namespace pe::python {

namespace {

void addOptions(OptionSet &options)
{
    options.addPlain(cli::figureViewOption());
    cli::addFigureOptions(options);
}

// The figure's numbers for the request, without the GIL (a large heatmap takes a while);
// Ctrl-C cancels.
FigureData computeData(const cli::FigureRequest &request)
{
    QString error;
    const std::unique_ptr<Backend> backend = makeBackend(request.backend, &error);
    if (!backend)
        raiseRuntimeError(QStringLiteral("the %1 backend cannot start: %2")
                              .arg(backendChoiceName(request.backend), error));
    const FigureInputs inputs = request.inputs();
    FigureData data;
    JobStatus status = JobStatus::Done;
    {
        const py::gil_scoped_release release;
        const CancelCheck cancel = [] {
            const py::gil_scoped_acquire gil;
            return PyErr_CheckSignals() != 0;
        };
        status = computeFigureData(inputs, request.figure.views, *backend, cancel, &data, &error);
    }
    if (status == JobStatus::Cancelled)
        throw py::error_already_set();
    if (const QString notice = backend->notice(); !notice.isEmpty())
        PyErr_WarnEx(PyExc_RuntimeWarning, notice.toUtf8().constData(), 1);
    if (status == JobStatus::Failed)
        raiseRuntimeError(error);
    return data;
}

py::bytes bytesOf(const QByteArray &bytes)
{
    return {bytes.constData(), std::size_t(bytes.size())};
}

} // namespace

Figure::Figure(cli::FigureRequest request, FigureData data)
    : m_request(std::move(request)), m_data(std::move(data))
{}

QByteArray Figure::render(FigureFormat format) const
{
    requireFigureThread();
    QString error;
    QByteArray bytes = FigureExporter(FigureState(m_request.state), m_data, m_request.figure)
                           .render(format, &error);
    if (bytes.isEmpty())
        raiseRuntimeError(error);
    return bytes;
}

void Figure::save(py::handle path) const
{
    const QString file = pathText(path, QStringLiteral("path"));
    const std::optional<FigureFormat> format = figureFormatForPath(file);
    if (!format)
        raiseValueError(QStringLiteral("path must end in %1 (got \"%2\")")
                            .arg(outputExtensionList(OutputKind::Figure), file));
    if (const QString problem = outputPathProblem(file); !problem.isEmpty())
        raiseOSError(0, problem, file);
    const QByteArray bytes = render(*format);
    QString error;
    if (!writeFileAtomically(file, bytes, &error))
        raiseOSError(0, error, file);
}

Figure makeFigure(const py::object &view, const py::kwargs &options)
{
    requireFigureThread();
    static KeywordParser parser(QStringLiteral("figure"), addOptions);
    auto keywords = py::reinterpret_steal<py::dict>(PyDict_Copy(options.ptr()));
    keywords["view"] = view;
    const QCommandLineParser &parsed = parser.parse(keywords);
    const QList<FigureView> views = cli::figureViewsFromOptions(parsed);
    cli::FigureRequest request =
        cli::figureRequestFromOptions(parsed, cli::figureOptionsFromOptions(parsed, views));
    // layer-attention's shift=, scale=, theta=, rope_scaling=, no_positions=: its enlarged head
    // drawn with, ablated and the difference, as `pescope export` draws them.
    request.forwardAblation = cli::forwardAblationFromOptions(parsed, request.figure, false);
    cli::checkForwardModel(request);
    FigureData data = computeData(request);
    // A view that cannot be drawn (no RoPE, too few tokens): ValueError with the sentence.
    cli::checkForwardData(data, request.figure);
    if (data.modelForward)
        for (const QString &warning : data.modelForward->warnings)
            if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.toUtf8().constData(), 1) != 0)
                throw py::error_already_set();
    return {std::move(request), std::move(data)};
}

void bindFigure(py::module_ &module)
{
    // The formats from their table (media/outputformats.h); pybind11 keeps the pointers.
    static const std::string classDoc =
        QStringLiteral("A figure of pescope export's views, drawn on demand: inline in Jupyter "
                       "(_repr_png_, _repr_svg_) or saved as %1.")
            .arg(outputLabelList(OutputKind::Figure))
            .toStdString();
    static const std::string saveDoc =
        QStringLiteral("Writes the figure to path, as %1 by its extension; nothing is left at "
                       "path when writing fails (OSError).")
            .arg(outputLabelList(OutputKind::Figure))
            .toStdString();
    py::class_<Figure>(module, "Figure", classDoc.c_str())
        .def(
            "_repr_png_", [](const Figure &f) { return bytesOf(f.render(FigureFormat::Png)); },
            "The PNG file's bytes, width x height pixels.")
        .def(
            "_repr_svg_",
            [](const Figure &f) {
                const QByteArray svg = f.render(FigureFormat::Svg);
                return py::str(svg.constData(), std::size_t(svg.size()));
            },
            "The SVG document.")
        .def("save", &Figure::save, py::arg("path"), saveDoc.c_str())
        .def_property_readonly(
            "width", [](const Figure &f) { return f.options().width; }, "Pixels of the PNG.")
        .def_property_readonly(
            "height", [](const Figure &f) { return f.options().height; }, "Pixels of the PNG.")
        .def_property_readonly("dpi", [](const Figure &f) { return f.options().dpi; })
        .def_property_readonly(
            "view",
            [](const Figure &f) {
                return py::str(figureViewsName(f.options().views).toUtf8().constData());
            },
            "The views, joined by + as --view takes them.")
        .def("__repr__", [](const Figure &f) {
            const QString text = QStringLiteral("<pescope.Figure %1, %2 x %3 px, %4 dpi>")
                                     .arg(figureViewsName(f.options().views))
                                     .arg(f.options().width)
                                     .arg(f.options().height)
                                     .arg(f.options().dpi);
            return py::str(text.toUtf8().constData());
        });
}

} // namespace pe::python
