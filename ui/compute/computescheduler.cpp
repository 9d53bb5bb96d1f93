#include "compute/computescheduler.h"

#include <QElapsedTimer>

namespace pe {

// Lives on the scheduler's thread and runs the jobs there. The backends it uses are made and
// destroyed by the scheduler on the GUI thread (the GPU backend's offscreen surface must be) and
// are only ever called from this one thread.
class ComputeWorker : public QObject
{
    Q_OBJECT
public:
    ComputeWorker(std::shared_ptr<std::atomic<quint64>> wantedEncode,
                  std::shared_ptr<std::atomic<quint64>> wantedGrid)
        : m_wantedEncode(std::move(wantedEncode)), m_wantedGrid(std::move(wantedGrid))
    {}

    void encode(quint64 generation, const EncodingSpec &spec, Backend *b,
                const GridRequest &request, bool sampled, const QList<qint64> &columnDims)
    {
        auto isStale = [&] { return m_wantedEncode->load() != generation; };
        if (isStale()) {
            emit encodeFinished(generation, nullptr, QString());
            return;
        }
        QString error;
        auto result = std::make_shared<EncodingResult>();
        result->generation = generation;
        const JobStatus status = sampled
                                     ? computeSampledEncoding(*b, spec, request, columnDims,
                                                              isStale, result.get(), &error)
                                     : computeEncoding(
                                           *b, spec, request, isStale,
                                           [&](int percent) { emit progress(generation, percent); },
                                           result.get(), &error, &m_pool);
        result->notice = b->notice();
        reportNotice(b);
        if (status == JobStatus::Done)
            emit encodeFinished(generation, result, QString());
        else
            emit encodeFinished(generation, nullptr,
                                status == JobStatus::Failed ? error : QString());
    }

    void grid(quint64 generation, std::shared_ptr<const EncodingResult> encoding,
              const GridRequest &request, Backend *b)
    {
        // A newer viewport arrived while this waited: skip to it (pan and zoom send many).
        if (m_wantedGrid->load() != generation) {
            emit gridFinished(generation, nullptr);
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
            const bool ok = sampleWindowGrid(*b, encoding->spec, window, request.rowPixels,
                                             request.colPixels, grid.get(), &error);
            reportNotice(b);
            if (!ok) {
                emit gridFinished(generation, nullptr);
                return;
            }
        }
        grid->request = request;
        grid->encodingGeneration = encoding->generation;
        emit gridFinished(generation, grid);
    }

    void phrases(quint64 generation, const PhraseSettings &settings, Backend *b)
    {
        QString error;
        auto result = std::make_shared<PhraseResult>();
        result->generation = generation;
        const bool ok = computePhrases(*b, settings, result.get(), &error);
        reportNotice(b);
        if (ok)
            emit phrasesFinished(generation, result, QString());
        else
            emit phrasesFinished(generation, nullptr, error);
    }

signals:
    void encodeFinished(quint64 generation, std::shared_ptr<const pe::EncodingResult> result,
                        const QString &error);
    void gridFinished(quint64 generation, std::shared_ptr<const pe::HeatmapGrid> grid);
    void phrasesFinished(quint64 generation, std::shared_ptr<const pe::PhraseResult> result,
                         const QString &error);
    void progress(quint64 generation, int percent);
    void noticeSeen(const QString &notice);

private:
    void reportNotice(Backend *b)
    {
        const QString notice = b->notice();
        if (!notice.isEmpty())
            emit noticeSeen(notice);
    }

    std::shared_ptr<std::atomic<quint64>> m_wantedEncode;
    std::shared_ptr<std::atomic<quint64>> m_wantedGrid;
    MatrixPool m_pool;
};

ComputeScheduler::ComputeScheduler(ExplorerState *state, QObject *parent)
    : QObject(parent), m_state(state), m_wantedEncode(std::make_shared<std::atomic<quint64>>(0)),
      m_wantedGrid(std::make_shared<std::atomic<quint64>>(0))
{
    qRegisterMetaType<std::shared_ptr<const pe::EncodingResult>>();
    qRegisterMetaType<std::shared_ptr<const pe::HeatmapGrid>>();
    qRegisterMetaType<std::shared_ptr<const pe::PhraseResult>>();

    m_worker = new ComputeWorker(m_wantedEncode, m_wantedGrid);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &ComputeWorker::encodeFinished, this, &ComputeScheduler::onEncodeFinished);
    connect(m_worker, &ComputeWorker::gridFinished, this, &ComputeScheduler::onGridFinished);
    connect(m_worker, &ComputeWorker::phrasesFinished, this, &ComputeScheduler::onPhrasesFinished);
    connect(m_worker, &ComputeWorker::progress, this, &ComputeScheduler::onProgress);
    connect(m_worker, &ComputeWorker::noticeSeen, this, [this](const QString &notice) {
        if (notice == m_notice)
            return;
        m_notice = notice;
        emit backendNotice(notice);
    });
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
    schedule();
}

ComputeScheduler::~ComputeScheduler()
{
    m_wantedEncode->store(0); // stops a running encode at its next chunk
    m_thread.quit();
    m_thread.wait();
    m_backends.clear(); // on the GUI thread, where they were made
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
        slot.backend = makeBackend(choice, &why);
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
    return !m_timer.isActive() && !m_encodeDirty && !m_gridDirty && !m_phrasesDirty &&
           m_encodeInFlight == 0 && m_gridInFlight == 0 && m_phrasesInFlight == 0;
}

void ComputeScheduler::requestGrid(const GridRequest &request)
{
    m_gridRequest = request;
    // A pending encode computes its grid from the newest request anyway, and one in flight is
    // followed up when it lands.
    if (m_encodeDirty || m_encodeInFlight > 0 || request == m_lastGridSent) {
        m_gridDirty = false;
        return;
    }
    m_gridDirty = true;
    schedule();
}

void ComputeScheduler::cancel()
{
    const bool running = m_encodeInFlight > 0 || m_timer.isActive() || m_encodeDirty;
    m_timer.stop();
    m_encodeDirty = false;
    m_gridDirty = false;
    m_phrasesDirty = false;
    ++m_encodeGeneration;
    m_wantedEncode->store(m_encodeGeneration);
    ++m_phraseGeneration;
    m_wantedGrid->store(++m_gridGeneration);
    if (running)
        emit cancelled();
    emit progressChanged(-1);
    updateBusy();
}

void ComputeScheduler::markEncodingDirty()
{
    m_encodeDirty = true;
    m_gridDirty = false;
    // Supersede the running encode now, so the worker stops at its next chunk.
    m_wantedEncode->store(m_encodeGeneration + 1);
    schedule();
}

void ComputeScheduler::markPhrasesDirty()
{
    m_phrasesDirty = true;
    schedule();
}

void ComputeScheduler::schedule()
{
    updateBusy();
    if (m_timer.isActive())
        return;
    const bool working = m_encodeInFlight > 0 || m_phrasesInFlight > 0;
    m_timer.start(working ? m_burstMs : 0);
}

void ComputeScheduler::dispatch()
{
    QString backendError;
    Backend *backend = this->backend(m_state->backendChoice(), &backendError);
    if (!backend && (m_encodeDirty || m_phrasesDirty)) {
        // Nothing to run on: both pages keep their last results and say why.
        const bool encode = m_encodeDirty, phrases = m_phrasesDirty;
        m_encodeDirty = m_phrasesDirty = m_gridDirty = false;
        ++m_encodeGeneration;
        ++m_phraseGeneration;
        m_wantedEncode->store(m_encodeGeneration);
        if (encode) {
            m_encodingError = backendError;
            emit encodingFailed(backendError);
        }
        if (phrases) {
            m_phrasesError = backendError;
            emit phrasesFailed(backendError);
        }
        updateBusy();
        return;
    }
    if (m_encodeDirty) {
        m_encodeDirty = false;
        const quint64 generation = ++m_encodeGeneration;
        m_wantedEncode->store(generation);
        GridRequest request = m_gridRequest;
        // A new size starts from the whole matrix; the heatmap resets its view to match.
        if (!m_encoding || m_encoding->spec.positions != m_state->spec().positions ||
            m_encoding->spec.dims != m_state->spec().dims)
            request.fullView = true;
        m_lastGridSent = request;
        ++m_encodeInFlight;
        const EncodingSpec spec = m_state->spec();
        // Larger than the heatmap's screen area (or the memory budget): sample each viewport
        // instead of materialising, and compute just the plotted wave columns.
        const bool sampled = useSampledPath(spec, request);
        const QList<qint64> columnDims = m_state->plottedDims();
        QMetaObject::invokeMethod(
            m_worker, [w = m_worker, generation, spec, backend, request, sampled, columnDims] {
                w->encode(generation, spec, backend, request, sampled, columnDims);
            });
    }
    // One grid at a time: pan and zoom events arriving meanwhile merge into the next one, so
    // the worker never falls behind the mouse.
    if (m_gridDirty && m_encoding && m_gridInFlight == 0 && backend) {
        m_gridDirty = false;
        const quint64 generation = ++m_gridGeneration;
        m_wantedGrid->store(generation);
        m_lastGridSent = m_gridRequest;
        ++m_gridInFlight;
        QMetaObject::invokeMethod(
            m_worker, [w = m_worker, generation, enc = m_encoding, request = m_gridRequest,
                       backend] { w->grid(generation, enc, request, backend); });
    }
    if (!m_encoding)
        m_gridDirty = false;
    if (m_phrasesDirty) {
        m_phrasesDirty = false;
        const quint64 generation = ++m_phraseGeneration;
        ++m_phrasesInFlight;
        QMetaObject::invokeMethod(m_worker,
                                  [w = m_worker, generation, settings = m_state->phraseSettings(),
                                   backend] { w->phrases(generation, settings, backend); });
    }
    updateBusy();
}

void ComputeScheduler::onEncodeFinished(quint64 generation,
                                        std::shared_ptr<const EncodingResult> result,
                                        const QString &error)
{
    --m_encodeInFlight;
    if (generation == m_encodeGeneration && !m_encodeDirty) {
        emit progressChanged(-1);
        if (result) {
            m_encoding = result;
            m_encodingError.clear();
            emit encodingReady(result);
            // The viewport moved while this ran: follow up with a grid for it.
            if (!(result->grid.request == m_gridRequest)) {
                m_gridDirty = true;
                schedule();
            }
        } else if (!error.isEmpty()) {
            m_encodingError = error;
            emit encodingFailed(error);
        }
    }
    updateBusy();
}

void ComputeScheduler::onGridFinished(quint64 generation, std::shared_ptr<const HeatmapGrid> grid)
{
    --m_gridInFlight;
    if (grid && generation == m_gridGeneration && m_encoding &&
        grid->encodingGeneration == m_encoding->generation)
        emit gridReady(grid);
    if (m_gridDirty)
        schedule();
    updateBusy();
}

void ComputeScheduler::onPhrasesFinished(quint64 generation,
                                         std::shared_ptr<const PhraseResult> result,
                                         const QString &error)
{
    --m_phrasesInFlight;
    if (generation == m_phraseGeneration && !m_phrasesDirty) {
        if (result) {
            m_phrases = result;
            m_phrasesError.clear();
            emit phrasesReady(result);
        } else {
            m_phrasesError = error;
            emit phrasesFailed(error);
        }
    }
    updateBusy();
}

void ComputeScheduler::onProgress(quint64 generation, int percent)
{
    if (generation == m_encodeGeneration)
        emit progressChanged(percent);
}

void ComputeScheduler::updateBusy()
{
    const bool busy = !isIdle();
    if (busy != m_busy) {
        m_busy = busy;
        emit busyChanged(busy);
        if (!busy)
            emit idle();
    }
}

} // namespace pe

#include "computescheduler.moc"
