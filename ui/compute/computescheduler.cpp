#include "compute/computescheduler.h"

#include <QElapsedTimer>

#include <algorithm>

namespace pe {

void ComputeScheduler::Lane::request()
{
    dirty = true;
    wanted->store(generation + 1);
}

quint64 ComputeScheduler::Lane::start()
{
    dirty = false;
    wanted->store(++generation);
    return generation;
}

void ComputeScheduler::Lane::drop()
{
    dirty = false;
    wanted->store(++generation);
}

CancelCheck ComputeScheduler::Lane::staleness(quint64 g) const
{
    return [wanted = wanted, g] { return wanted->load() != g; };
}

ComputeScheduler::ComputeScheduler(ExplorerState *state, QObject *parent)
    : QObject(parent), m_state(state), m_pool(std::make_unique<MatrixPool>()),
      m_phraseModels(std::make_unique<PhraseModelHolder>()),
      m_forwardModels(std::make_unique<ForwardModelHolder>())
{
    qRegisterMetaType<std::shared_ptr<const pe::EncodingResult>>();
    qRegisterMetaType<std::shared_ptr<const pe::HeatmapGrid>>();
    qRegisterMetaType<std::shared_ptr<const pe::PhraseResult>>();
    qRegisterMetaType<std::shared_ptr<const pe::SchemeResult>>();
    qRegisterMetaType<pe::FigureData>();
    qRegisterMetaType<std::shared_ptr<const pe::TableResult>>();
    qRegisterMetaType<std::shared_ptr<const pe::PhraseModelResult>>();
    qRegisterMetaType<std::shared_ptr<const pe::ForwardViewResult>>();
    qRegisterMetaType<std::shared_ptr<const pe::EngineCheck>>();
    qRegisterMetaType<std::shared_ptr<const pe::ModelRead>>();

    // The jobs run on this thread. The backends they use are made and destroyed by the scheduler
    // on the GUI thread (the GPU backend's offscreen surface must be) and are only ever called
    // from this one thread.
    m_worker = new QObject;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("pescope compute"));
    m_thread.start();

    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ComputeScheduler::dispatch);

    connect(state, &ExplorerState::specChanged, this, &ComputeScheduler::markEncodingDirty);
    connect(state, &ExplorerState::backendChoiceChanged, this, [this] {
        markEncodingDirty();
        markPhrasesDirty();
    });
    connect(state, &ExplorerState::phraseSettingsChanged, this,
            &ComputeScheduler::markPhrasesDirty);
    for (auto signal : {&ExplorerState::phraseSettingsChanged, &ExplorerState::compareChanged,
                        &ExplorerState::phraseSourceChanged})
        connect(state, signal, this, &ComputeScheduler::markPhraseModelDirty);
    // The wave view plots the wave dims and the selected one.
    connect(state, &ExplorerState::waveOptionsChanged, this, &ComputeScheduler::markColumnsDirty);
    connect(state, &ExplorerState::selectionChanged, this, &ComputeScheduler::markColumnsDirty);
    m_encode.dirty = true;
    m_phraseLane.dirty = true;
    m_phraseModelLane.dirty = state->phraseSource().tokenizer == PhraseTokenizer::Model;
    schedule();
}

ComputeScheduler::~ComputeScheduler()
{
    // Every running job goes stale and stops at its next check.
    for (Lane *lane : lanes())
        lane->drop();
    m_thread.quit();
    m_thread.wait();
    m_backends.clear(); // on the GUI thread, where they were made
}

template <class Job> void ComputeScheduler::post(Job &&job)
{
    QMetaObject::invokeMethod(m_worker, std::forward<Job>(job));
}

template <class Answer> void ComputeScheduler::reply(Answer &&answer)
{
    // The destructor waits for the worker, so `this` outlives every job that replies.
    QMetaObject::invokeMethod(this, std::forward<Answer>(answer), Qt::QueuedConnection);
}

void ComputeScheduler::reportNotice(Backend *backend)
{
    const QString notice = backend->notice();
    if (notice.isEmpty())
        return;
    reply([this, notice] {
        if (notice == m_notice)
            return;
        m_notice = notice;
        emit backendNotice(notice);
    });
}

void ComputeScheduler::setBackendForTesting(BackendChoice choice, std::unique_ptr<Backend> backend)
{
    BackendSlot slot;
    slot.backend = std::move(backend);
    m_backends[choice] = std::move(slot);
}

Backend *ComputeScheduler::backend(BackendChoice choice, QString *error)
{
    auto it = m_backends.find(choice);
    if (it == m_backends.end()) {
        BackendSlot slot;
        QString why;
        slot.backend = m_makeBackend(choice, &why);
        if (!slot.backend)
            slot.error = QStringLiteral("the %1 backend cannot start: %2")
                             .arg(backendChoiceName(choice), why);
        it = m_backends.emplace(choice, std::move(slot)).first;
    }
    if (!it->second.backend)
        *error = it->second.error;
    return it->second.backend.get();
}

bool ComputeScheduler::isIdle() const
{
    if (m_timer.isActive())
        return false;
    for (const Lane *lane : lanes())
        if (lane->busy())
            return false;
    return true;
}

bool ComputeScheduler::schemesHeld(const SchemeRequest &request) const
{
    return m_schemes && m_schemesBackend == request.backend &&
           schemeResultMatches(*m_schemes, request.inputs, request.views);
}

FigureData ComputeScheduler::heldData(const FigureInputs &inputs,
                                      const QList<FigureView> &views) const
{
    FigureData data;
    if (anyViewNeeds(views, ViewJob::Encoding))
        for (const auto &e : {m_encoding, m_figureData.encoding})
            if (e && e->matrix && e->spec == inputs.spec) {
                data.encoding = e;
                break;
            }
    if (anyViewNeeds(views, ViewJob::Phrases))
        for (const auto &p : {m_phrases, m_figureData.phrases})
            if (p && p->settings == inputs.phrases) {
                data.phrases = p;
                break;
            }
    const QList<FigureView> schemes = viewsNeeding(views, ViewJob::Schemes);
    if (!schemes.isEmpty())
        for (const auto &s : {m_schemes, m_figureData.schemes})
            if (s && schemeResultMatches(*s, SchemeInputs{inputs.spec, inputs.schemes}, schemes)) {
                data.schemes = s;
                break;
            }
    if (anyViewNeeds(views, ViewJob::Table))
        for (const auto &t : {m_table, m_figureData.table})
            if (t && tableResultMatches(*t, inputs.table())) {
                data.table = t;
                break;
            }
    if (anyViewNeeds(views, ViewJob::ModelPhrases))
        for (const auto &m : {m_phraseModel, m_figureData.modelPhrases})
            if (m && m->inputs == inputs.modelPhrases) {
                data.modelPhrases = m;
                break;
            }
    if (anyViewNeeds(views, ViewJob::ModelForward))
        for (const auto &f : {m_forward, m_figureData.modelForward})
            if (f && f->inputs == forwardViewInputs(inputs.modelPhrases, inputs.forwardAblation)) {
                data.modelForward = f;
                break;
            }
    return data;
}

FigureData ComputeScheduler::figureData(const QList<FigureView> &views) const
{
    return heldData(FigureInputs::of(*m_state), views);
}

void ComputeScheduler::requestGrid(const GridRequest &request)
{
    m_gridRequest = request;
    // A pending encode computes its grid from the newest request anyway, and one in flight is
    // followed up when it lands.
    if (m_encode.busy() || request == m_lastGridSent) {
        m_grid.dirty = false;
        return;
    }
    // Not a supersession: the grid in flight is shown, the next one follows it.
    m_grid.dirty = true;
    schedule();
}

bool ComputeScheduler::requestSchemes(const QList<FigureView> &views)
{
    const SchemeRequest request{SchemeInputs{m_state->spec(), m_state->schemeSettings()}, views,
                                m_state->backendChoice()};
    if (schemesHeld(request))
        return true;
    if (request == m_schemeRequest && m_schemeLane.busy())
        return false; // already on its way
    m_schemeRequest = request;
    m_schemeLane.request();
    schedule();
    return false;
}

bool ComputeScheduler::requestTable()
{
    const TableInputs request = FigureInputs::of(*m_state).table();
    if (m_table && tableResultMatches(*m_table, request))
        return true;
    if (request == m_tableRequest && m_tableLane.busy())
        return false;
    m_tableRequest = request;
    m_tableLane.request();
    schedule();
    return false;
}

bool ComputeScheduler::requestForward(const ForwardAblation &ablation)
{
    const ForwardViewInputs request = forwardViewInputs(phraseModelInputs(*m_state), ablation);
    if (m_forward && m_forward->inputs == request)
        return true;
    if (request == m_forwardRequest && m_forwardLane.busy())
        return false;
    m_forwardRequest = request;
    m_forwardLane.request();
    schedule();
    return false;
}

bool ComputeScheduler::requestFigureData(const QList<FigureView> &views)
{
    const FigureRequest request{FigureInputs::of(*m_state), views};
    if (figureDataMatches(request.inputs, views, heldData(request.inputs, views)))
        return true;
    if (request == m_figureRequest && m_figureLane.busy())
        return false;
    m_figureRequest = request;
    m_figureLane.request();
    schedule();
    return false;
}

void ComputeScheduler::releaseFigureData()
{
    m_figureLane.drop();
    m_figureData = {};
}

quint64 ComputeScheduler::requestFrameData(const FigureInputs &inputs,
                                           const QList<FigureView> &views, const FigureData &held)
{
    // What the window's pages or the export preview computed for these parameters is used,
    // not computed again; computeFigureData keeps the members of `held` that still match.
    FigureData start = held;
    const FigureData window = heldData(inputs, views);
    if (window.encoding)
        start.encoding = window.encoding;
    if (window.phrases)
        start.phrases = window.phrases;
    if (window.schemes)
        start.schemes = window.schemes;
    if (window.table)
        start.table = window.table;
    if (window.modelForward)
        start.modelForward = window.modelForward;
    m_frameRequest = FrameRequest{inputs, views, start};
    m_frameLane.request();
    schedule();
    return m_frameLane.generation + 1; // the generation its job will run as
}

void ComputeScheduler::cancelFrameData()
{
    m_frameLane.drop();
}

void ComputeScheduler::cancel()
{
    const bool running = !isIdle();
    m_timer.stop();
    for (Lane *lane : lanes())
        lane->drop();
    if (running)
        emit cancelled();
    emit progressChanged(-1);
}

void ComputeScheduler::markEncodingDirty()
{
    m_grid.dirty = false;
    m_columns.dirty = false; // the new encoding computes the plotted columns itself
    m_encode.request();
    schedule();
}

void ComputeScheduler::markPhrasesDirty()
{
    m_phraseLane.request();
    schedule();
}

void ComputeScheduler::markPhraseModelDirty()
{
    // TextVectorization shows nothing of the model: nothing to compute until it is chosen.
    if (m_state->phraseSource().tokenizer != PhraseTokenizer::Model)
        return;
    if (m_phraseModel && m_phraseModel->inputs == phraseModelInputs(*m_state) &&
        !m_phraseModelLane.busy())
        return;
    m_phraseModelLane.request();
    schedule();
}

void ComputeScheduler::markColumnsDirty()
{
    // A pending encode computes the plotted columns itself, and its arrival checks again.
    if (m_encode.busy() || !m_encoding ||
        m_encoding->missingColumns(m_state->plottedDims()).isEmpty())
        return;
    m_columns.request();
    schedule();
}

void ComputeScheduler::schedule()
{
    if (m_timer.isActive())
        return;
    bool working = false;
    for (const Lane *lane : lanes())
        working = working || (lane != &m_grid && lane->inFlight > 0);
    m_timer.start(working ? burstMs : 0);
}

void ComputeScheduler::failAll(const QString &error)
{
    // Nothing to run on: every page keeps its last result and says why.
    m_grid.dirty = false;
    if (m_columns.dirty)
        m_columns.drop();
    if (m_encode.dirty) {
        m_encode.drop();
        m_encodingError = error;
        emit encodingFailed(error);
    }
    if (m_phraseLane.dirty) {
        m_phraseLane.drop();
        m_phrasesError = error;
        emit phrasesFailed(error);
    }
    if (m_schemeLane.dirty) {
        m_schemeLane.drop();
        emit schemesFailed(error);
    }
    if (m_figureLane.dirty) {
        m_figureLane.drop();
        emit figureDataFailed(error);
    }
    if (m_tableLane.dirty) {
        m_tableLane.drop();
        emit tableFailed(error);
    }
    if (m_frameLane.dirty) {
        const quint64 ticket = m_frameLane.generation + 1;
        m_frameLane.drop();
        emit frameDataFailed(ticket, error);
    }
}

void ComputeScheduler::requestEngineCheck(const EngineCheckRequest &request)
{
    m_checkRequest = request;
    m_checkLane.request();
    schedule();
}

void ComputeScheduler::dispatchEngineCheck()
{
    // Reads a file and compares on the CPU: no backend needed.
    const quint64 generation = m_checkLane.start();
    ++m_checkLane.inFlight;
    post([this, generation, request = m_checkRequest, isStale = m_checkLane.staleness(generation)] {
        QString error;
        std::shared_ptr<const EngineCheck> check;
        if (!isStale()) {
            if (std::optional<EngineCheck> done = runEngineCheck(request, &error))
                check = std::make_shared<const EngineCheck>(std::move(*done));
        }
        reply([=, this] { onEngineCheckFinished(generation, check, error); });
    });
}

void ComputeScheduler::onEngineCheckFinished(quint64 generation,
                                             const std::shared_ptr<const EngineCheck> &check,
                                             const QString &error)
{
    --m_checkLane.inFlight;
    if (!m_checkLane.current(generation))
        return;
    if (check)
        emit engineCheckReady(check);
    else if (!error.isEmpty())
        emit engineCheckFailed(error);
}

ComputeScheduler::ModelReadSlot &ComputeScheduler::readSlot(ModelReadRequest::Kind kind)
{
    switch (kind) {
    case ModelReadRequest::Kind::Card:
        return m_cardRead;
    case ModelReadRequest::Kind::Spec:
        return m_specRead;
    case ModelReadRequest::Kind::Open:
        break;
    }
    return m_openRead;
}

quint64 ComputeScheduler::requestModelRead(const ModelReadRequest &request)
{
    ModelReadSlot &slot = readSlot(request.kind);
    slot.request = request;
    slot.ticket = ++m_lastReadTicket;
    slot.lane.request();
    schedule();
    return slot.ticket;
}

// File I/O on the worker, no backend needed. The read itself cannot stop halfway; a superseded
// one's answer is dropped.
void ComputeScheduler::dispatchModelReads()
{
    for (ModelReadSlot *slot : {&m_openRead, &m_cardRead, &m_specRead}) {
        if (!slot->lane.dirty)
            continue;
        const quint64 generation = slot->lane.start();
        ++slot->lane.inFlight;
        post([this, generation, request = slot->request, ticket = slot->ticket,
              isStale = slot->lane.staleness(generation)] {
            std::shared_ptr<const ModelRead> read;
            if (!isStale())
                read = std::make_shared<const ModelRead>(readModel(request));
            reply([=, this] { onModelReadFinished(request.kind, generation, ticket, read); });
        });
    }
}

void ComputeScheduler::onModelReadFinished(ModelReadRequest::Kind kind, quint64 generation,
                                           quint64 ticket,
                                           const std::shared_ptr<const ModelRead> &read)
{
    Lane &lane = readSlot(kind).lane;
    --lane.inFlight;
    if (lane.current(generation) && read)
        emit modelReadReady(ticket, read);
}

void ComputeScheduler::dispatch()
{
    dispatchModelReads();
    dispatchPhraseModel(); // CPU only, whatever the backend
    if (m_forwardLane.dirty)
        dispatchForward(); // CPU only too
    if (m_checkLane.dirty)
        dispatchEngineCheck();
    QString backendError;
    Backend *backend = this->backend(m_state->backendChoice(), &backendError);
    if (!backend) {
        failAll(backendError);
        return;
    }
    if (m_encode.dirty)
        dispatchEncode(backend);
    // One grid at a time: pan and zoom events arriving meanwhile merge into the next one, so
    // the worker never falls behind the mouse.
    if (m_grid.dirty && m_encoding && m_grid.inFlight == 0)
        dispatchGrid(backend);
    if (!m_encoding)
        m_grid.dirty = false;
    if (m_columns.dirty && !m_encode.busy())
        dispatchColumns(backend);
    if (m_phraseLane.dirty)
        dispatchPhrases(backend);
    if (m_schemeLane.dirty)
        dispatchSchemes(backend);
    if (m_tableLane.dirty)
        dispatchTable();
    dispatchFigureJobs(backend);
}

// The encoding: the whole matrix, or (larger than the heatmap can show) sampled per viewport.
void ComputeScheduler::dispatchEncode(Backend *backend)
{
    const quint64 generation = m_encode.start();
    GridRequest request = m_gridRequest;
    // A new size starts from the whole matrix; the heatmap resets its view to match.
    if (!m_encoding || m_encoding->spec.positions != m_state->spec().positions ||
        m_encoding->spec.dims != m_state->spec().dims)
        request.fullView = true;
    m_lastGridSent = request;
    ++m_encode.inFlight;
    const EncodingSpec spec = m_state->spec();
    // Larger than the heatmap's screen area (or the memory budget): sample each viewport
    // instead of materialising, and compute just the plotted wave columns.
    const bool sampled = useSampledPath(spec, request);
    const QList<qint64> columnDims = m_state->plottedDims();
    post([this, generation, spec, backend, request, sampled, columnDims,
          isStale = m_encode.staleness(generation)] {
        if (isStale()) {
            reply([=, this] { onEncodeFinished(generation, nullptr, QString()); });
            return;
        }
        QString error;
        auto result = std::make_shared<EncodingResult>();
        result->generation = generation;
        const ProgressReport progress = [this, generation](int percent) {
            reply([=, this] {
                if (generation == m_encode.generation)
                    emit progressChanged(percent);
            });
        };
        const JobStatus status =
            failingOnOutOfMemory(QStringLiteral("computing the encoding"), &error, [&] {
                return sampled ? computeSampledEncoding(*backend, spec, request, columnDims,
                                                        isStale, result.get(), &error)
                               : computeEncoding(*backend, spec, request, isStale, progress,
                                                 result.get(), &error, m_pool.get());
            });
        result->notice = backend->notice();
        reportNotice(backend);
        std::shared_ptr<const EncodingResult> done;
        if (status == JobStatus::Done)
            done = result;
        else if (status != JobStatus::Failed)
            error.clear();
        reply([=, this] { onEncodeFinished(generation, done, error); });
    });
}

// The heatmap's grid for the newest viewport, from the encoding.
void ComputeScheduler::dispatchGrid(Backend *backend)
{
    const quint64 generation = m_grid.start();
    m_lastGridSent = m_gridRequest;
    ++m_grid.inFlight;
    post([this, generation, encoding = m_encoding, request = m_gridRequest, backend,
          isStale = m_grid.staleness(generation)] {
        // A newer viewport arrived while this waited: skip to it (pan and zoom send many).
        if (isStale()) {
            reply([=, this] { onGridFinished(generation, nullptr); });
            return;
        }
        const CellWindow window = requestedWindow(request, encoding->spec);
        std::shared_ptr<HeatmapGrid> grid;
        if (encoding->matrix) {
            QElapsedTimer clock;
            clock.start();
            grid = std::make_shared<HeatmapGrid>(
                sampleGrid(*encoding->matrix, window, request.rowPixels, request.colPixels));
            grid->backendId = encoding->backendId;
            grid->computeMs = double(clock.nsecsElapsed()) / 1e6;
        } else {
            grid = std::make_shared<HeatmapGrid>();
            QString error;
            const bool ok = sampleWindowGrid(*backend, encoding->spec, window, request.rowPixels,
                                             request.colPixels, grid.get(), &error);
            reportNotice(backend);
            if (!ok)
                grid.reset();
        }
        if (grid) {
            grid->request = request;
            grid->encodingGeneration = encoding->generation;
        }
        reply([=, this] { onGridFinished(generation, grid); });
    });
}

// The plotted wave columns the encoding does not hold yet.
void ComputeScheduler::dispatchColumns(Backend *backend)
{
    const QList<qint64> dims =
        m_encoding ? m_encoding->missingColumns(m_state->plottedDims()) : QList<qint64>();
    if (dims.isEmpty()) {
        m_columns.dirty = false;
    } else {
        const quint64 generation = m_columns.start();
        ++m_columns.inFlight;
        post([this, generation, encoding = m_encoding, dims, backend,
              isStale = m_columns.staleness(generation)] {
            QString error;
            const JobStatus status =
                computeMissingColumns(*backend, *encoding, dims, isStale, &error);
            reportNotice(backend);
            reply([=, this] { onColumnsFinished(generation, encoding, status, error); });
        });
    }
}

// The compared phrases' encodings.
void ComputeScheduler::dispatchPhrases(Backend *backend)
{
    const quint64 generation = m_phraseLane.start();
    ++m_phraseLane.inFlight;
    post([this, generation, settings = m_state->phraseSettings(), backend,
          isStale = m_phraseLane.staleness(generation)] {
        if (isStale()) {
            reply([=, this] {
                onPhrasesFinished(generation, nullptr, JobStatus::Cancelled, QString());
            });
            return;
        }
        QString error;
        auto result = std::make_shared<PhraseResult>();
        result->generation = generation;
        const bool ok = computePhrases(*backend, settings, result.get(), &error);
        reportNotice(backend);
        std::shared_ptr<const PhraseResult> done;
        if (ok)
            done = result;
        reply([=, this] {
            onPhrasesFinished(generation, done, ok ? JobStatus::Done : JobStatus::Failed, error);
        });
    });
}

// The Schemes page's views.
void ComputeScheduler::dispatchSchemes(Backend *backend)
{
    const quint64 generation = m_schemeLane.start();
    ++m_schemeLane.inFlight;
    post([this, generation, request = m_schemeRequest, backend,
          isStale = m_schemeLane.staleness(generation)] {
        QString error;
        auto result = std::make_shared<SchemeResult>();
        const JobStatus status = isStale()
                                     ? JobStatus::Cancelled
                                     : computeSchemeData(request.inputs, request.views, *backend,
                                                         isStale, result.get(), &error);
        reportNotice(backend);
        std::shared_ptr<const SchemeResult> done;
        if (status == JobStatus::Done)
            done = result;
        reply([=, this] { onSchemesFinished(generation, done, status, error); });
    });
}

// The position table, on the CPU (Eigen): the table is small next to an encoding.
void ComputeScheduler::dispatchTable()
{
    const quint64 generation = m_tableLane.start();
    ++m_tableLane.inFlight;
    post([this, generation, request = m_tableRequest, isStale = m_tableLane.staleness(generation)] {
        QString error;
        auto result = std::make_shared<TableResult>();
        const JobStatus status = isStale()
                                     ? JobStatus::Cancelled
                                     : computeTableData(request, isStale, result.get(), &error);
        std::shared_ptr<const TableResult> done;
        if (status == JobStatus::Done)
            done = result;
        reply([=, this] { onTableFinished(generation, done, status, error); });
    });
}

// The model's tokenizer and layer 0 for the compared phrases, on the CPU (the model is small
// next to an encoding); the model is opened on the worker, once per model.
void ComputeScheduler::dispatchPhraseModel()
{
    if (!m_phraseModelLane.dirty)
        return;
    const quint64 generation = m_phraseModelLane.start();
    ++m_phraseModelLane.inFlight;
    post([this, generation, inputs = phraseModelInputs(*m_state),
          isStale = m_phraseModelLane.staleness(generation)] {
        QString error;
        auto result = std::make_shared<PhraseModelResult>();
        const JobStatus status =
            isStale()
                ? JobStatus::Cancelled
                : failingOnOutOfMemory(
                      QStringLiteral("tokenizing the phrases and computing layer 0"), &error, [&] {
                          return computePhraseModelData(inputs, *m_phraseModels, isStale,
                                                        result.get(), &error);
                      });
        std::shared_ptr<const PhraseModelResult> done;
        if (status == JobStatus::Done)
            done = result;
        reply([=, this] { onPhraseModelFinished(generation, done, status, error); });
    });
}

// The whole forward pass for the layer views, on the CPU (its own threads), reporting each layer.
// cancel() or a newer request makes the job stale; the pass stops at its next layer.
void ComputeScheduler::dispatchForward()
{
    const quint64 generation = m_forwardLane.start();
    ++m_forwardLane.inFlight;
    emit progressChanged(0);
    post([this, generation, inputs = m_forwardRequest, previous = m_forward,
          isStale = m_forwardLane.staleness(generation)] {
        QString error;
        auto result = std::make_shared<ForwardViewResult>();
        const ForwardProgress progress = [this, generation](int percent) {
            reply([=, this] {
                if (m_forwardLane.current(generation))
                    emit progressChanged(percent);
            });
        };
        const JobStatus status =
            isStale()
                ? JobStatus::Cancelled
                : failingOnOutOfMemory(
                      QStringLiteral("running the model's forward pass"), &error, [&] {
                          return computeForwardViewData(inputs, *m_forwardModels, isStale, progress,
                                                        result.get(), &error, previous.get());
                      });
        std::shared_ptr<const ForwardViewResult> done;
        if (status == JobStatus::Done)
            done = result;
        reply([=, this] { onForwardFinished(generation, done, status, error); });
    });
}

// The export dialog's figure and an animation's frame: what views need for given parameters.
void ComputeScheduler::dispatchFigureJobs(Backend *backend)
{
    if (m_frameLane.dirty)
        postFigureJob(m_frameLane, m_frameRequest.inputs, m_frameRequest.views, m_frameRequest.held,
                      backend, &ComputeScheduler::onFrameFinished);
    if (m_figureLane.dirty)
        postFigureJob(m_figureLane, m_figureRequest.inputs, m_figureRequest.views,
                      heldData(m_figureRequest.inputs, m_figureRequest.views), backend,
                      &ComputeScheduler::onFigureFinished);
}

void ComputeScheduler::postFigureJob(Lane &lane, const FigureInputs &inputs,
                                     const QList<FigureView> &views, const FigureData &held,
                                     Backend *backend, FigureFinished finished)
{
    const quint64 generation = lane.start();
    ++lane.inFlight;
    post([this, generation, inputs, views, held, backend, finished,
          isStale = lane.staleness(generation)] {
        QString error;
        FigureData data = held;
        const JobStatus status =
            isStale() ? JobStatus::Cancelled
                      : computeFigureData(inputs, views, *backend, isStale, &data, &error);
        reportNotice(backend);
        reply([=, this] { (this->*finished)(generation, data, status, error); });
    });
}

void ComputeScheduler::onEncodeFinished(quint64 generation,
                                        const std::shared_ptr<const EncodingResult> &result,
                                        const QString &error)
{
    --m_encode.inFlight;
    if (m_encode.current(generation)) {
        emit progressChanged(-1);
        if (result) {
            m_encoding = result;
            m_encodingError.clear();
            emit encodingReady(result);
            // The viewport moved while this ran: follow up with a grid for it.
            if (!(result->grid.request == m_gridRequest)) {
                m_grid.dirty = true;
                schedule();
            }
            // ... and the plotted dims may have changed too.
            markColumnsDirty();
        } else if (!error.isEmpty()) {
            m_encodingError = error;
            emit encodingFailed(error);
        }
    }
    // A columns request that waited for this encode is looked at again.
    if (m_columns.dirty)
        schedule();
}

void ComputeScheduler::onGridFinished(quint64 generation,
                                      const std::shared_ptr<const HeatmapGrid> &grid)
{
    --m_grid.inFlight;
    if (grid && generation == m_grid.generation && m_encoding &&
        grid->encodingGeneration == m_encoding->generation)
        emit gridReady(grid);
    if (m_grid.dirty)
        schedule();
}

void ComputeScheduler::onColumnsFinished(quint64 generation,
                                         const std::shared_ptr<const EncodingResult> &encoding,
                                         JobStatus status, const QString &error)
{
    --m_columns.inFlight;
    // Columns a superseded job finished are kept: they are right, and may be plotted again.
    if (encoding == m_encoding && status != JobStatus::Failed)
        emit columnsReady(encoding);
    if (status == JobStatus::Failed && m_columns.current(generation)) {
        m_encodingError = error;
        emit encodingFailed(error);
    }
}

void ComputeScheduler::onPhrasesFinished(quint64 generation,
                                         const std::shared_ptr<const PhraseResult> &result,
                                         JobStatus status, const QString &error)
{
    --m_phraseLane.inFlight;
    if (m_phraseLane.current(generation)) {
        if (status == JobStatus::Done) {
            m_phrases = result;
            m_phrasesError.clear();
            emit phrasesReady(result);
        } else if (status == JobStatus::Failed) {
            m_phrasesError = error;
            emit phrasesFailed(error);
        }
    }
}

void ComputeScheduler::onPhraseModelFinished(quint64 generation,
                                             const std::shared_ptr<const PhraseModelResult> &result,
                                             JobStatus status, const QString &error)
{
    --m_phraseModelLane.inFlight;
    if (!m_phraseModelLane.current(generation))
        return;
    if (status == JobStatus::Done) {
        m_phraseModel = result;
        m_phraseModelError.clear();
        emit phraseModelReady(result);
    } else if (status == JobStatus::Failed) {
        // The page shows the message alone now: the next inputs, even the last good ones again,
        // are computed rather than taken for what is shown.
        m_phraseModel.reset();
        m_phraseModelError = error;
        emit phraseModelFailed(error);
    }
}

void ComputeScheduler::onSchemesFinished(quint64 generation,
                                         const std::shared_ptr<const SchemeResult> &result,
                                         JobStatus status, const QString &error)
{
    --m_schemeLane.inFlight;
    if (m_schemeLane.current(generation)) {
        if (status == JobStatus::Done) {
            m_schemes = result;
            m_schemesBackend = m_schemeRequest.backend;
            emit schemesReady(result);
        } else if (status == JobStatus::Failed) {
            emit schemesFailed(error);
        }
    }
}

void ComputeScheduler::onTableFinished(quint64 generation,
                                       const std::shared_ptr<const TableResult> &result,
                                       JobStatus status, const QString &error)
{
    --m_tableLane.inFlight;
    if (m_tableLane.current(generation)) {
        if (status == JobStatus::Done) {
            m_table = result;
            emit tableReady(result);
        } else if (status == JobStatus::Failed) {
            emit tableFailed(error);
        }
    }
}

void ComputeScheduler::onForwardFinished(quint64 generation,
                                         const std::shared_ptr<const ForwardViewResult> &result,
                                         JobStatus status, const QString &error)
{
    --m_forwardLane.inFlight;
    if (!m_forwardLane.current(generation))
        return;
    emit progressChanged(-1);
    if (status == JobStatus::Done) {
        m_forward = result;
        emit forwardReady(result);
    } else if (status == JobStatus::Failed) {
        emit forwardFailed(error);
    }
}

void ComputeScheduler::onFrameFinished(quint64 generation, const FigureData &data, JobStatus status,
                                       const QString &error)
{
    --m_frameLane.inFlight;
    if (!m_frameLane.current(generation))
        return;
    if (status == JobStatus::Done)
        emit frameDataReady(generation, data);
    else if (status == JobStatus::Failed)
        emit frameDataFailed(generation, error);
}

void ComputeScheduler::onFigureFinished(quint64 generation, const FigureData &data,
                                        JobStatus status, const QString &error)
{
    --m_figureLane.inFlight;
    if (m_figureLane.current(generation)) {
        if (status == JobStatus::Done) {
            m_figureData = data;
            emit figureDataReady(data);
        } else if (status == JobStatus::Failed) {
            emit figureDataFailed(error);
        }
    }
}

} // namespace pe
