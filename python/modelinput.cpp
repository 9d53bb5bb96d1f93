#include "modelinput.h"

#include "commandline.h"
#include "formats/hfcache.h"
#include "keywordparser.h"
#include "pythonerror.h"

#include <QFileInfo>
#include <QJsonDocument>

#include <cerrno>

namespace py = pybind11;

namespace pe::python {

QString readablePath(py::handle path, const QString &what)
{
    QString text = pathText(path, what);
    const QFileInfo info(text);
    if (info.exists()) {
        if (!info.isReadable())
            raiseOSError(EACCES, QStringLiteral("%1: %2 cannot be read").arg(what, text), text);
        return text;
    }
    // Not a file or folder: a repo id in the Hugging Face cache, or nothing.
    QString error;
    if (!resolveModel(text, &error)) {
        // OSError adds the path itself.
        if (error.startsWith(text + QStringLiteral(": ")))
            error.remove(0, text.size() + 2);
        raiseOSError(ENOENT, QStringLiteral("%1: %2").arg(what, error), text);
    }
    return text;
}

ModelConfig modelConfigFrom(const py::object &config)
{
    QString error;
    if (py::isinstance<py::dict>(config)) {
        // allow_nan=False: JSON has no NaN, and config.json never holds one.
        const std::string json = py::module_::import("json")
                                     .attr("dumps")(config, py::arg("allow_nan") = false)
                                     .cast<std::string>();
        std::optional<ModelConfig> parsed =
            parseHfConfigText(QByteArrayView(json.data(), qsizetype(json.size())),
                              QStringLiteral("config (a dict)"), &error);
        if (!parsed)
            raiseValueError(error);
        return std::move(*parsed);
    }
    if (!py::isinstance<py::str>(config) && !py::hasattr(config, "__fspath__"))
        raiseTypeError(QStringLiteral("config must be a path (str or os.PathLike) or a dict of "
                                      "config.json (got a %1)")
                           .arg(typeNameOf(config)));
    const QString path = readablePath(config, QStringLiteral("config"));
    const QFileInfo info(path);
    // The command line's own reading: --config for a .json file, --model for the rest.
    const bool configFile =
        info.isFile() && info.suffix().compare(u"json", Qt::CaseInsensitive) == 0;
    QCommandLineParser parser;
    OptionSet options;
    cli::addModelOptions(options);
    options.addTo(parser);
    cli::parseOrThrow(
        parser, {QStringLiteral("pescope"),
                 (configFile ? QStringLiteral("--config=") : QStringLiteral("--model=")) + path});
    return *cli::modelConfigFromOptions(parser);
}

py::dict inspectModel(const py::object &path)
{
    const QString source = readablePath(path, QStringLiteral("path"));
    const QJsonObject report = cli::inspectReport(source);
    // Through JSON text, so the dict equals json.loads() of `pescope inspect --json`'s output.
    const QByteArray json = QJsonDocument(report).toJson(QJsonDocument::Compact);
    return py::module_::import("json").attr("loads")(py::str(json.constData(), json.size()));
}

} // namespace pe::python
