#include "compute/phrasemodeldata.h"

#include "analysis/similarity.h"
#include "state/explorerstate.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>

namespace pe {

namespace {

// cos(a's token i, b's token j) for every pair.
ValueGrid tokenCosines(const LayerZeroArray &a, const LayerZeroArray &b)
{
    ValueGrid grid;
    grid.rows = a.shape[0];
    grid.cols = b.shape[0];
    grid.values.resize(std::size_t(grid.rows * grid.cols));
    crossCosines(a.values.data(), grid.rows, b.values.data(), grid.cols, a.shape[1],
                 grid.values.data());
    return grid;
}

// The phrase's mean token vector (mean pooling).
std::vector<float> meanRow(const LayerZeroArray &rows)
{
    return meanPooled(rows.values.data(), rows.shape[0], rows.shape[1]);
}

// One phrase through the tokenizer (capped).
bool encodePhrase(const PhraseModel &model, const QString &text, qint64 cap, ModelPhrase *out,
                  QString *error)
{
    out->text = text;
    std::optional<TokenEncoding> tokens = model.encode(text, error);
    if (!tokens)
        return false;
    out->allTokens = tokens->size();
    out->tokens = PhraseModel::firstTokens(*tokens, cap);
    QString ignored; // the normalized text is for a tooltip only
    out->normalizedText = model.tokenizer().normalized(text, &ignored).value_or(QString());
    out->marks = model.tokenizer().spaceMarks();
    return true;
}

// One encoded phrase's arrays with and without positions.
JobStatus computePhrase(PhraseModel &model, const CancelCheck &cancel, ModelPhrase *out,
                        QString *error)
{
    for (const Positions p : {Positions::With, Positions::Without}) {
        for (const PhraseArray what : {PhraseArray::Embeddings, PhraseArray::Attention}) {
            if (cancel && cancel())
                return JobStatus::Cancelled;
            std::optional<LayerZeroArray> values =
                model.compute(out->tokens, what, p == Positions::With, error);
            if (!values)
                return JobStatus::Failed;
            (what == PhraseArray::Embeddings ? out->embeddings : out->attention)[at(p)] =
                std::move(*values);
        }
    }
    return JobStatus::Done;
}

} // namespace

QString PhraseModelResult::arraysProblem(const QString &view) const
{
    if (noArrays.isEmpty())
        return {};
    return QStringLiteral("the %1 view cannot be drawn: %2").arg(view, noArrays);
}

QString PhraseModelResult::capNotice() const
{
    QStringList parts;
    for (std::size_t i = 0; i < phrases.size(); ++i)
        if (phrases[i].capped())
            parts.append(QStringLiteral("phrase %1 has %2 tokens, the first %3 are shown")
                             .arg(QChar(u'A' + int(i)))
                             .arg(phrases[i].allTokens)
                             .arg(phrases[i].tokens.size()));
    if (parts.isEmpty())
        return {};
    return parts.join(QStringLiteral("; ")) +
           QStringLiteral(" (the window computes at most %1 tokens a phrase)").arg(cap);
}

PhraseModel *PhraseModelHolder::open(const QString &source, QString *error)
{
    if (source != m_source || (!m_model && m_error.isEmpty())) {
        m_source = source;
        m_error.clear();
        m_model = PhraseModel::open(source, &m_error);
    }
    if (!m_model)
        *error = m_error;
    return m_model.get();
}

QString phraseModelPath(const QString &source)
{
    return QFileInfo::exists(source) ? QFileInfo(source).absoluteFilePath() : source;
}

void setPhraseModel(ExplorerState *state, const QString &source)
{
    PhraseSource phrases = state->phraseSource();
    phrases.model = phraseModelPath(source);
    state->setPhraseSource(phrases);
}

PhraseModelInputs phraseModelInputs(const FigureState &state)
{
    const QStringList &phrases = state.phraseSettings().phrases;
    PhraseModelInputs inputs;
    inputs.model = state.phraseSource().model;
    for (const int index : {state.compareA(), state.compareB()})
        if (index >= 0 && index < phrases.size())
            inputs.phrases.append(phrases[index]);
    return inputs;
}

QString phraseModelProblem(const PhraseModelInputs &inputs)
{
    if (inputs.model.isEmpty())
        return QStringLiteral("Open a model (File > Open model) to see its own tokens, "
                              "embeddings and layer 0's attention for these phrases.");
    if (inputs.phrases.isEmpty())
        return QStringLiteral("Type a phrase.");
    return {};
}

JobStatus computePhraseModelData(const PhraseModelInputs &inputs, PhraseModelHolder &models,
                                 const CancelCheck &cancel, PhraseModelResult *result,
                                 QString *error)
{
    QElapsedTimer timer;
    timer.start();
    if (const QString problem = phraseModelProblem(inputs); !problem.isEmpty()) {
        *error = problem;
        return JobStatus::Failed;
    }
    PhraseModel *model = models.open(inputs.model, error);
    if (!model)
        return JobStatus::Failed;
    result->inputs = inputs;
    result->folder = model->folder();
    result->unappliedTokenizerSettings = model->tokenizer().unappliedSettings();
    if (model->hasWeights()) {
        const LayerZero &zero = model->layerZero();
        result->architecture = zero.architecture();
        result->positionsText = zero.positionsText();
        result->positionKind = zero.positionKind();
        result->heads = zero.heads();
        result->hidden = zero.hiddenSize();
    } else {
        result->noArrays = model->weightsNote();
    }
    result->cap = std::min(limits::maxModelPhraseTokens, model->maxTokens(PhraseArray::Attention));
    result->phrases.resize(std::size_t(inputs.phrases.size()));
    const auto phraseName = [](qsizetype i) {
        return QStringLiteral("phrase %1").arg(QChar(u'A' + int(i)));
    };
    for (qsizetype i = 0; i < inputs.phrases.size(); ++i) {
        if (cancel && cancel())
            return JobStatus::Cancelled;
        ModelPhrase &phrase = result->phrases[std::size_t(i)];
        if (!encodePhrase(*model, inputs.phrases[i], result->cap, &phrase, error)) {
            *error = QStringLiteral("%1: %2").arg(phraseName(i), *error);
            return JobStatus::Failed;
        }
        // Tokens whose ids the model has no rows for are still shown, with why nothing else is.
        if (const QString ids = model->idProblem(phrase.tokens);
            !ids.isEmpty() && result->noArrays.isEmpty())
            result->noArrays = QStringLiteral("%1: %2").arg(phraseName(i), ids);
    }
    if (!result->hasArrays()) {
        result->totalMs = double(timer.nsecsElapsed()) / 1e6;
        return JobStatus::Done;
    }
    for (qsizetype i = 0; i < inputs.phrases.size(); ++i) {
        const JobStatus status =
            computePhrase(*model, cancel, &result->phrases[std::size_t(i)], error);
        if (status == JobStatus::Failed)
            *error = QStringLiteral("%1: %2").arg(phraseName(i), *error);
        if (status != JobStatus::Done)
            return status;
    }
    if (result->phrases.size() >= 2) {
        const ModelPhrase &a = result->phrases[0], &b = result->phrases[1];
        for (const Positions p : {Positions::With, Positions::Without}) {
            result->tokenCosine[at(p)] = tokenCosines(a.embeddings[at(p)], b.embeddings[at(p)]);
            const std::vector<float> meanA = meanRow(a.embeddings[at(p)]);
            const std::vector<float> meanB = meanRow(b.embeddings[at(p)]);
            result->phraseCosine[at(p)] =
                cosineSimilarity(meanA.data(), meanB.data(), qint64(meanA.size()));
        }
    }
    result->totalMs = double(timer.nsecsElapsed()) / 1e6;
    return JobStatus::Done;
}

} // namespace pe
