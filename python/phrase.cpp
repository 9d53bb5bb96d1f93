#include "phrase.h"

#include "commandline.h"
#include "keywordparser.h"
#include "modelinput.h"
#include "pythonerror.h"

#include <QFileInfo>

namespace py = pybind11;

namespace pe::python {

namespace {

// The texts of `text`: one str, or a list or tuple of them.
QStringList textsOf(const py::object &text, bool *single)
{
    *single = py::isinstance<py::str>(text);
    if (*single)
        return {textOf(text)};
    QStringList texts;
    if (py::isinstance<py::list>(text) || py::isinstance<py::tuple>(text)) {
        for (const py::handle item : text) {
            if (!py::isinstance<py::str>(item))
                raiseTypeError(QStringLiteral("text must be a str or a list of str (got a %1 in "
                                              "the list)")
                                   .arg(typeNameOf(item)));
            texts.append(textOf(item));
        }
        return texts;
    }
    raiseTypeError(
        QStringLiteral("text must be a str or a list of str (got a %1)").arg(typeNameOf(text)));
}

py::dict encodingDict(const QString &text, const TokenEncoding &e)
{
    py::list ids, tokens, offsets;
    for (const qint64 id : e.ids)
        ids.append(id);
    for (const QString &token : e.tokens)
        tokens.append(py::str(token.toStdString()));
    for (const auto &[start, end] : e.offsets)
        offsets.append(py::make_tuple(start, end));
    py::dict out;
    out["text"] = py::str(text.toStdString());
    out["ids"] = ids;
    out["tokens"] = tokens;
    out["offsets"] = offsets;
    return out;
}

} // namespace

py::object tokens(const py::object &model, const py::object &text, bool noSpecialTokens)
{
    const QString path = readablePath(model, QStringLiteral("model"));
    bool single = false;
    const QStringList texts = textsOf(text, &single);
    // A .json other than config.json is a tokenizer.json itself (`tokens --tokenizer FILE`).
    const QFileInfo info(path);
    const bool tokenizerFile = info.isFile() &&
                               info.suffix().compare(u"json", Qt::CaseInsensitive) == 0 &&
                               info.fileName() != QLatin1String("config.json");
    const Tokenizer tokenizer = cli::readTokenizer(path, tokenizerFile);
    py::list out;
    for (qsizetype i = 0; i < texts.size(); ++i) {
        QString error;
        std::optional<TokenEncoding> e;
        {
            const py::gil_scoped_release release;
            e = tokenizer.encode(texts[i], !noSpecialTokens, &error);
        }
        if (!e)
            raiseValueError(single ? error : QStringLiteral("text %1: %2").arg(i + 1).arg(error));
        out.append(encodingDict(texts[i], *e));
    }
    return single ? py::object(out[0]) : py::object(out);
}

py::array phrase(const py::object &model, const py::object &text, const py::object &what,
                 const py::object &layer, bool positions)
{
    static KeywordParser parser(QStringLiteral("phrase"), cli::addDataOptions);
    if (!py::isinstance<py::str>(text))
        raiseTypeError(QStringLiteral("text must be a str (got a %1)").arg(typeNameOf(text)));
    py::dict keywords;
    keywords["model"] = py::str(readablePath(model, QStringLiteral("model")).toStdString());
    keywords["phrase"] = text;
    keywords["what"] = what;
    keywords["layer"] = layer;
    keywords["no_positions"] = py::bool_(!positions);
    const QCommandLineParser &options = parser.parse(keywords);
    cli::PhraseDataRequest request = cli::phraseDataRequest(options);
    if (!request.encodeError.isEmpty())
        raiseValueError(request.encodeError);
    const std::vector<qint64> shape = request.shape();
    py::array_t<float> array(std::vector<py::ssize_t>(shape.begin(), shape.end()));
    QString error;
    std::optional<LayerZeroArray> values;
    {
        const py::gil_scoped_release release;
        values =
            request.model->compute(request.tokens, request.what, request.withPositions, &error);
        if (values)
            std::copy(values->values.begin(), values->values.end(), array.mutable_data());
    }
    if (!values)
        raiseRuntimeError(error);
    // NaN or infinite values come back as the weights give them, with a RuntimeWarning naming
    // the tensor (as the command line's stderr does).
    for (const QString &warning : values->warnings)
        if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.toUtf8().constData(), 1) != 0)
            throw py::error_already_set();
    return array;
}

} // namespace pe::python
