#include "compute/figuredata.h"

#include "backends/backend.h"

#include <algorithm>

namespace pe {

namespace {

bool encodingMatches(const FigureInputs &inputs, const std::shared_ptr<const EncodingResult> &e)
{
    return e && e->matrix && e->spec == inputs.spec;
}

bool phrasesMatch(const FigureInputs &inputs, const std::shared_ptr<const PhraseResult> &p)
{
    return p && p->settings == inputs.phrases;
}

bool schemesMatch(const FigureInputs &inputs, const QList<FigureView> &views,
                  const std::shared_ptr<const SchemeResult> &s)
{
    return s && schemeResultMatches(*s, SchemeInputs{inputs.spec, inputs.schemes}, views);
}

} // namespace

FigureInputs FigureInputs::of(const FigureState &state)
{
    return {
        state.spec(),          state.phraseSettings(),   state.schemeSettings(),
        state.selection().dim, phraseModelInputs(state), forwardAblationOf(state.layerAblation())};
}

bool figureDataMatches(const FigureInputs &inputs, const QList<FigureView> &views,
                       const FigureData &data)
{
    if (anyViewNeeds(views, ViewJob::Encoding) && !encodingMatches(inputs, data.encoding))
        return false;
    if (anyViewNeeds(views, ViewJob::Phrases) && !phrasesMatch(inputs, data.phrases))
        return false;
    if (anyViewNeeds(views, ViewJob::Table) &&
        !(data.table && tableResultMatches(*data.table, inputs.table())))
        return false;
    if (anyViewNeeds(views, ViewJob::EngineCheck) && !data.engineCheck)
        return false;
    if (anyViewNeeds(views, ViewJob::ModelPhrases) &&
        !(data.modelPhrases && data.modelPhrases->inputs == inputs.modelPhrases))
        return false;
    if (anyViewNeeds(views, ViewJob::ModelForward) &&
        !(data.modelForward && data.modelForward->inputs ==
                                   forwardViewInputs(inputs.modelPhrases, inputs.forwardAblation)))
        return false;
    const QList<FigureView> schemes = viewsNeeding(views, ViewJob::Schemes);
    return schemes.isEmpty() || schemesMatch(inputs, schemes, data.schemes);
}

JobStatus computeFigureData(const FigureInputs &inputs, const QList<FigureView> &views,
                            Backend &backend, const CancelCheck &cancel, FigureData *data,
                            QString *error)
{
    if (anyViewNeeds(views, ViewJob::Encoding) && !encodingMatches(inputs, data->encoding)) {
        auto result = std::make_shared<EncodingResult>();
        // The exporter samples its own grids from the matrix for the size it draws at; the
        // job's grid is kept minimal.
        GridRequest request;
        request.rowPixels = 1;
        request.colPixels = 1;
        const JobStatus status =
            computeEncoding(backend, inputs.spec, request, cancel, {}, result.get(), error);
        if (status != JobStatus::Done)
            return status;
        data->encoding = result;
    }
    if (cancel && cancel())
        return JobStatus::Cancelled;
    if (anyViewNeeds(views, ViewJob::Phrases) && !phrasesMatch(inputs, data->phrases)) {
        auto result = std::make_shared<PhraseResult>();
        if (!computePhrases(backend, inputs.phrases, result.get(), error))
            return JobStatus::Failed;
        data->phrases = result;
    }
    const QList<FigureView> schemes = viewsNeeding(views, ViewJob::Schemes);
    if (!schemes.isEmpty() && !schemesMatch(inputs, schemes, data->schemes)) {
        auto result = std::make_shared<SchemeResult>();
        const JobStatus status = computeSchemeData(SchemeInputs{inputs.spec, inputs.schemes},
                                                   schemes, backend, cancel, result.get(), error);
        if (status != JobStatus::Done)
            return status;
        data->schemes = result;
    }
    if (anyViewNeeds(views, ViewJob::EngineCheck) && !data->engineCheck) {
        *error = QStringLiteral("the verify view checks an engine's table: give it with --against "
                                "(pescope export) or File > Check engine table (the window)");
        return JobStatus::Failed;
    }
    if (anyViewNeeds(views, ViewJob::Table) &&
        !(data->table && tableResultMatches(*data->table, inputs.table()))) {
        auto result = std::make_shared<TableResult>();
        const JobStatus status = computeTableData(inputs.table(), cancel, result.get(), error);
        if (status != JobStatus::Done)
            return status;
        data->table = result;
    }
    if (anyViewNeeds(views, ViewJob::ModelPhrases) &&
        !(data->modelPhrases && data->modelPhrases->inputs == inputs.modelPhrases)) {
        if (const QString problem = phraseModelProblem(inputs.modelPhrases); !problem.isEmpty()) {
            *error = problem;
            return JobStatus::Failed;
        }
        PhraseModelHolder models; // opened for this figure only
        auto result = std::make_shared<PhraseModelResult>();
        const JobStatus status =
            computePhraseModelData(inputs.modelPhrases, models, cancel, result.get(), error);
        if (status != JobStatus::Done)
            return status;
        data->modelPhrases = result;
    }
    if (anyViewNeeds(views, ViewJob::ModelForward) &&
        !(data->modelForward &&
          data->modelForward->inputs ==
              forwardViewInputs(inputs.modelPhrases, inputs.forwardAblation))) {
        ForwardModelHolder models; // opened for this figure only
        auto result = std::make_shared<ForwardViewResult>();
        // A result for another ablation lends its arrays: the ablated pass alone runs.
        const JobStatus status = computeForwardViewData(
            forwardViewInputs(inputs.modelPhrases, inputs.forwardAblation), models, cancel, {},
            result.get(), error, data->modelForward.get());
        if (status != JobStatus::Done)
            return status;
        data->modelForward = result;
    }
    return JobStatus::Done;
}

FigureInputs drawnFigureInputs(const FigureState &state, const QList<FigureView> &views,
                               const ViewChoices &choices)
{
    FigureInputs inputs = FigureInputs::of(state);
    inputs.forwardAblation = drawnAblation(inputs.forwardAblation, views, choices);
    return inputs;
}

bool computeFigureData(const FigureState &state, const QList<FigureView> &views,
                       const ViewChoices &choices, Backend &backend, FigureData *data,
                       QString *error)
{
    return computeFigureData(drawnFigureInputs(state, views, choices), views, backend, {}, data,
                             error) == JobStatus::Done;
}

} // namespace pe
