#include "compute/forwardviewdata.h"

#include "analysis/forwardanalysis.h"

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

namespace pe {

namespace {

// NaN equals NaN here: a typed "nan" (refused by the pass) must find its own result.
bool sameNumber(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

} // namespace

bool ForwardAblation::operator==(const ForwardAblation &other) const
{
    const PositionAblation &a = positions, &b = other.positions;
    return withoutPositions == other.withoutPositions && a.shift == b.shift &&
           sameNumber(a.scale, b.scale) && a.ropeTheta.has_value() == b.ropeTheta.has_value() &&
           (!a.ropeTheta || sameNumber(*a.ropeTheta, *b.ropeTheta)) &&
           a.ropeScaling == b.ropeScaling;
}

QString ForwardAblation::text() const
{
    return withoutPositions ? QStringLiteral("without positions") : positionAblationText(positions);
}

ForwardAblation forwardAblationOf(const LayerAblation &ablation)
{
    ForwardAblation a;
    a.withoutPositions = ablation.removesPositions();
    a.positions = ablation.positions();
    return a;
}

ForwardAblation drawnAblation(const ForwardAblation &ablation, const QList<FigureView> &views,
                              const ViewChoices &choices)
{
    // LayerFigures::buildAttentionGrid enlarges a head for a layer and a head, not their mean.
    const bool enlarged = views.contains(FigureView::LayerAttention) && choices.modelLayer >= 0 &&
                          choices.modelHead >= 0;
    return enlarged ? ablation : ForwardAblation{};
}

ForwardViewInputs forwardViewInputs(const PhraseModelInputs &inputs,
                                    const ForwardAblation &ablation)
{
    return {inputs.model, inputs.phrases.value(0), ablation};
}

ForwardModelHolder::ForwardModelHolder() = default;
ForwardModelHolder::~ForwardModelHolder() = default;

bool ForwardModelHolder::open(const QString &source, PhraseModel **tokenizer, ForwardPass **pass,
                              QString *error)
{
    if (source != m_source || (!m_pass && m_error.isEmpty())) {
        m_source = source;
        m_error.clear();
        m_pass.reset();
        m_tokenizer = PhraseModel::open(source, &m_error, 0);
        if (m_tokenizer && !m_tokenizer->hasWeights())
            m_error = m_tokenizer->weightsNote();
        else if (m_tokenizer) // a tokenizer.json beside the weights names its folder
            m_pass = ForwardPass::open(PhraseModel::modelOfTokenizerFile(source), &m_error);
    }
    if (!m_pass) {
        *error = m_error;
        return false;
    }
    *tokenizer = m_tokenizer.get();
    *pass = m_pass.get();
    return true;
}

namespace {

// Phrase A's tokens, capped as the other model phrase views cap them.
bool encodePhrase(const PhraseModel &model, const ForwardPass &pass, const QString &text,
                  ModelPhrase *out, QString *error)
{
    out->text = text;
    std::optional<TokenEncoding> tokens = model.encode(text, error);
    if (!tokens)
        return false;
    if (tokens->size() == 0) {
        *error = QStringLiteral("the phrase has no tokens");
        return false;
    }
    out->allTokens = tokens->size();
    out->tokens =
        PhraseModel::firstTokens(*tokens, std::min(limits::maxModelPhraseTokens, pass.maxTokens()));
    out->marks = model.tokenizer().spaceMarks();
    return true;
}

// Every analysis of the views from the pass's arrays.
bool analyse(const ForwardPass &pass, const ForwardResult &run, ForwardViewResult *result,
             QString *error)
{
    LayerAnalysisOptions options;
    options.window = result->window;
    const auto compute = [&](LayerAnalysis what, LayerZeroArray *out, QString *problem) {
        QString why;
        std::optional<LayerZeroArray> values = computeLayerAnalysis(pass, run, what, options, &why);
        if (values)
            *out = std::move(*values);
        else if (problem)
            *problem = why;
        else
            *error = why;
        return values.has_value() || problem != nullptr;
    };
    // Without RoPE the pass kept no queries and keys: core's sentence for such a model.
    const bool rotary = pass.rotaryDims() > 0;
    if (!rotary)
        result->atlasProblem =
            QStringLiteral("%1 has no rotary positions: the frequency atlas is of RoPE models")
                .arg(pass.architecture());
    return compute(LayerAnalysis::Distance, &result->distance, nullptr) &&
           compute(LayerAnalysis::HeadScores, &result->headScores, nullptr) &&
           compute(LayerAnalysis::Sinks, &result->sinkRate, nullptr) &&
           (!rotary ||
            compute(LayerAnalysis::FrequencyAtlas, &result->atlas, &result->atlasProblem)) &&
           compute(LayerAnalysis::Norms, &result->norms, nullptr) &&
           compute(LayerAnalysis::TopActivations, &result->top, nullptr) &&
           compute(LayerAnalysis::Probe, &result->probe, &result->probeProblem);
}

// Every layer's attention with the positions as `ablation` says, into the result; a value the
// model cannot take (or a pass that fails) leaves the reason instead. False when cancelled.
bool ablate(ForwardPass &pass, const std::vector<int> &ids, const ForwardAblation &ablation,
            const CancelCheck &cancel, ForwardViewResult *result)
{
    result->ablatedAttentions = {};
    result->ablationProblem.clear();
    if (!ablation.any())
        return true;
    if (!ablation.withoutPositions) {
        result->ablationProblem = pass.ablationProblem(ablation.positions, qint64(ids.size()));
        if (!result->ablationProblem.isEmpty())
            return true;
    }
    std::atomic<bool> stop{false};
    ForwardOptions options;
    options.hiddenStates = false;
    options.logits = false;
    options.withPositions = !ablation.withoutPositions;
    if (!ablation.withoutPositions)
        options.positions = ablation.positions;
    options.cancel = &stop;
    options.progress = [&](qint64, qint64) {
        if (cancel && cancel())
            stop = true;
    };
    QString why;
    std::optional<ForwardResult> run = pass.run(ids, options, &why);
    if (cancel && cancel())
        return false;
    if (run)
        result->ablatedAttentions = std::move(run->attentions);
    else
        result->ablationProblem = why;
    return true;
}

std::vector<int> tokenIds(const ModelPhrase &phrase)
{
    std::vector<int> ids;
    for (const qint64 id : phrase.tokens.ids) // the pass refuses an id outside its table
        ids.push_back(int(std::clamp<qint64>(id, -1, std::numeric_limits<int>::max())));
    return ids;
}

} // namespace

JobStatus computeForwardViewData(const ForwardViewInputs &inputs, ForwardModelHolder &models,
                                 const CancelCheck &cancel, const ForwardProgress &progress,
                                 ForwardViewResult *result, QString *error,
                                 const ForwardViewResult *previous)
{
    QElapsedTimer timer;
    timer.start();
    if (const QString problem = phraseModelProblem({inputs.model, {inputs.phrase}});
        !problem.isEmpty()) {
        *error = problem;
        return JobStatus::Failed;
    }
    PhraseModel *tokenizer = nullptr;
    ForwardPass *pass = nullptr;
    if (!models.open(inputs.model, &tokenizer, &pass, error))
        return JobStatus::Failed;
    // The same model and phrase under another ablation: its arrays, and the ablated pass only.
    if (previous && previous->inputs.model == inputs.model &&
        previous->inputs.phrase == inputs.phrase && !previous->attentions.values.empty()) {
        *result = *previous;
        result->inputs = inputs;
        if (!ablate(*pass, tokenIds(result->phrase), inputs.ablation, cancel, result))
            return JobStatus::Cancelled;
        result->totalMs = double(timer.nsecsElapsed()) / 1e6;
        return JobStatus::Done;
    }
    result->inputs = inputs;
    result->folder = tokenizer->folder();
    result->architecture = pass->architecture();
    result->layers = pass->layers();
    result->heads = pass->heads();
    result->kvHeads = pass->kvHeads();
    result->rotaryDims = pass->rotaryDims();
    if (!encodePhrase(*tokenizer, *pass, inputs.phrase, &result->phrase, error)) {
        *error = QStringLiteral("phrase A: %1").arg(*error);
        return JobStatus::Failed;
    }
    const std::vector<int> ids = tokenIds(result->phrase);
    // One pass gives every array the views read; cancel is checked between layers.
    std::atomic<bool> stop{false};
    ForwardOptions options;
    options.logits = false;
    options.queriesKeys = pass->rotaryDims() > 0;
    options.cancel = &stop;
    options.progress = [&](qint64 done, qint64 total) {
        if (cancel && cancel())
            stop = true;
        if (progress)
            progress(int(100 * done / std::max<qint64>(total, 1)));
    };
    std::optional<ForwardResult> run = pass->run(ids, options, error);
    if (cancel && cancel())
        return JobStatus::Cancelled;
    if (!run) {
        *error = QStringLiteral("phrase A: %1").arg(*error);
        return JobStatus::Failed;
    }
    if (!analyse(*pass, *run, result, error))
        return JobStatus::Failed;
    result->attentions = std::move(run->attentions);
    result->warnings = run->warnings;
    if (!ablate(*pass, ids, inputs.ablation, cancel, result))
        return JobStatus::Cancelled;
    result->totalMs = double(timer.nsecsElapsed()) / 1e6;
    return JobStatus::Done;
}

} // namespace pe
