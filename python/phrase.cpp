#include "phrase.h"

#include "commandline.h"
#include "keywordparser.h"
#include "modelinput.h"
#include "pythonerror.h"

#include "analysis/attentionheads.h"
#include "analysis/forwardanalysis.h"
#include "model/phrasemodel.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

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

namespace {

// head=: None (every head), a head from 0 or "mean" (meanOfAttentionHeads); nullopt for None.
std::optional<int> headOf(const py::object &head)
{
    if (head.is_none())
        return std::nullopt;
    if (py::isinstance<py::str>(head) && head.cast<std::string>() == "mean")
        return meanOfAttentionHeads;
    if (py::isinstance<py::int_>(head) && !py::isinstance<py::bool_>(head)) {
        const long long value = head.cast<long long>();
        if (value < 0 || value > std::numeric_limits<int>::max())
            raiseValueError(QStringLiteral("head must be a head number from 0 or \"mean\" (got %1)")
                                .arg(value));
        return int(value);
    }
    raiseTypeError(
        QStringLiteral("head must be an int, \"mean\" or None (got a %1)").arg(typeNameOf(head)));
}

} // namespace

py::array phrase(const py::object &model, const py::object &text, const py::object &what,
                 const py::object &layer, bool positions, const py::object &head)
{
    static KeywordParser parser(QStringLiteral("phrase"), cli::addDataOptions);
    if (!py::isinstance<py::str>(text))
        raiseTypeError(QStringLiteral("text must be a str (got a %1)").arg(typeNameOf(text)));
    const std::optional<int> chosenHead = headOf(head);
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
    std::vector<qint64> shape = request.shape();
    if (chosenHead) {
        if (request.what != PhraseArray::Attention)
            raiseValueError(QStringLiteral("head= is for what=\"attention\""));
        if (*chosenHead >= shape[0])
            raiseValueError(QStringLiteral("head %1: the layer has %2 heads (0 to %3, or \"mean\")")
                                .arg(*chosenHead)
                                .arg(shape[0])
                                .arg(shape[0] - 1));
        shape = {shape[1], shape[2]};
    }
    py::array_t<float> array(std::vector<py::ssize_t>(shape.begin(), shape.end()));
    QString error;
    std::optional<LayerZeroArray> values;
    {
        const py::gil_scoped_release release;
        values =
            request.model->compute(request.tokens, request.what, request.withPositions, &error);
        if (values && chosenHead) // the attention view's head or mean of the heads (core's)
            values->values =
                headAttention(values->values, values->shape[0], values->shape[1], *chosenHead);
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

namespace {

py::array_t<float> numpyOf(const LayerZeroArray &a)
{
    py::array_t<float> out(std::vector<py::ssize_t>(a.shape.begin(), a.shape.end()));
    std::copy(a.values.begin(), a.values.end(), out.mutable_data());
    return out;
}

} // namespace

namespace {

// shift, scale, theta, rope_scaling as the pass takes them; ValueError naming the argument.
PositionAblation ablationOf(qint64 shift, double scale, const py::object &theta,
                            const py::object &ropeScaling, bool positions)
{
    PositionAblation a;
    if (shift < 0)
        raiseValueError(QStringLiteral("shift must be >= 0 (got %1)").arg(shift));
    a.shift = shift;
    if (!std::isfinite(scale) || !(scale > 0))
        raiseValueError(QStringLiteral("scale must be a finite number > 0 (got %1)").arg(scale));
    a.scale = scale;
    if (!theta.is_none()) {
        const double base = theta.cast<double>();
        if (!std::isfinite(base) || !(base > 0))
            raiseValueError(QStringLiteral("theta must be a finite number > 0 (got %1)").arg(base));
        a.ropeTheta = base;
    }
    if (!ropeScaling.is_none()) {
        // A dict as transformers' rope_scaling, or its JSON text.
        const py::object text = py::isinstance<py::str>(ropeScaling)
                                    ? ropeScaling
                                    : py::module_::import("json").attr("dumps")(ropeScaling);
        QJsonParseError parsed{};
        const QJsonDocument json = QJsonDocument::fromJson(
            QString::fromStdString(text.cast<std::string>()).toUtf8(), &parsed);
        if (parsed.error != QJsonParseError::NoError || !json.isObject() || json.object().isEmpty())
            raiseValueError(QStringLiteral("rope_scaling must be a dict such as {\"rope_type\": "
                                           "\"linear\", \"factor\": 2}"));
        a.ropeScaling = json.object();
    }
    if (!positions && !a.changesNothing())
        raiseValueError(QStringLiteral("positions=False removes the positions: it does not "
                                       "combine with shift, scale, theta or rope_scaling"));
    return a;
}

} // namespace

py::dict forward(const py::object &model, const py::object &text, bool positions, qint64 window,
                 qint64 topK, double ridge, int folds, qint64 shift, double scale,
                 const py::object &theta, const py::object &ropeScaling)
{
    if (!py::isinstance<py::str>(text))
        raiseTypeError(QStringLiteral("text must be a str (got a %1)").arg(typeNameOf(text)));
    // Each bad value named, as the command line names its option.
    if (window < 1)
        raiseValueError(QStringLiteral("window must be >= 1 (got %1)").arg(window));
    if (topK < 0)
        raiseValueError(QStringLiteral("top_k must be >= 0 (got %1)").arg(topK));
    if (folds < 2)
        raiseValueError(QStringLiteral("folds must be >= 2 (got %1)").arg(folds));
    if (!(ridge >= 0) || !std::isfinite(ridge))
        raiseValueError(QStringLiteral("ridge must be a finite number >= 0 (got %1)").arg(ridge));
    const QString path = readablePath(model, QStringLiteral("model"));
    QString error;
    const std::unique_ptr<PhraseModel> phraseModel = PhraseModel::open(path, &error, 0);
    if (!phraseModel)
        raiseValueError(error);
    const std::optional<TokenEncoding> tokens = phraseModel->encode(textOf(text), &error);
    if (!tokens)
        raiseValueError(error);
    const std::unique_ptr<ForwardPass> pass =
        ForwardPass::open(PhraseModel::modelOfTokenizerFile(path), &error);
    if (!pass)
        raiseValueError(error);
    std::vector<int> ids;
    for (const qint64 id : tokens->ids) // the pass refuses an id outside its token table
        ids.push_back(int(std::clamp<qint64>(id, -1, std::numeric_limits<int>::max())));
    ForwardOptions options;
    options.withPositions = positions;
    options.positions = ablationOf(shift, scale, theta, ropeScaling, positions);
    options.queriesKeys = pass->rotaryDims() > 0;
    std::optional<ForwardResult> result;
    {
        const py::gil_scoped_release release;
        result = pass->run(ids, options, &error);
    }
    if (!result)
        raiseValueError(error);
    const LayerAnalysisOptions analysisOptions{window, topK, ridge, folds};
    py::dict out = encodingDict(textOf(text), *tokens);
    out["attentions"] = numpyOf(result->attentions);
    out["hidden_states"] = numpyOf(result->hiddenStates);
    out["logits"] = numpyOf(result->logits);
    const auto add = [&](const char *key, LayerAnalysis what) {
        std::optional<LayerZeroArray> values =
            computeLayerAnalysis(*pass, *result, what, analysisOptions, &error);
        out[key] = values ? py::object(numpyOf(*values)) : py::object(py::none());
        return values;
    };
    add("distance", LayerAnalysis::Distance);
    if (const auto scores = add("head_scores", LayerAnalysis::HeadScores))
        out["sink_rate"] = numpyOf(analysis::sinkRate(*scores));
    add("frequency_atlas", LayerAnalysis::FrequencyAtlas); // None without RoPE
    add("norms", LayerAnalysis::Norms);
    add("top_activations", LayerAnalysis::TopActivations);
    add("probe", LayerAnalysis::Probe); // None with fewer tokens than folds
    for (const QString &warning : result->warnings)
        if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.toUtf8().constData(), 1) != 0)
            throw py::error_already_set();
    return out;
}

} // namespace pe::python
