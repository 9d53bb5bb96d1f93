#include "compute/computejobs.h"

#include "analysis/boxgrid.h"
#include "backends/cpusampler.h"
#include "backends/parallel.h"
#include "backends/samplingplan.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace pe {

namespace {
// A quarter million floats (1 MiB) per chunk: the min/max pass then reads the chunk from cache,
// and cancelling is prompt.
constexpr qint64 chunkElements = qint64(1) << 18;
// Buffers up to this size are kept for reuse; three of them at most.
constexpr qint64 maxPooledElements = qint64(64) << 20;
constexpr std::size_t maxPooledBuffers = 3;
} // namespace

std::shared_ptr<Matrix> MatrixPool::take(qint64 rows, qint64 cols)
{
    const qint64 needed = rows * cols;
    // A buffer only the pool holds can be reused: the view that showed it has moved on.
    for (const std::shared_ptr<Matrix> &m : m_buffers)
        if (m.use_count() == 1 && m->capacity >= needed && m->capacity <= 2 * needed) {
            m->rows = rows;
            m->cols = cols;
            return m;
        }
    auto fresh = std::make_shared<Matrix>();
    fresh->rows = rows;
    fresh->cols = cols;
    const bool pooled = needed <= maxPooledElements;
    // Some slack, so that stepping dims or positions by a few reuses the same buffers.
    fresh->capacity = pooled ? needed + needed / 8 : needed;
    // new float[] leaves the memory uninitialised: the backend writes every element.
    fresh->data.reset(new float[std::size_t(fresh->capacity)]);
    if (pooled) {
        if (m_buffers.size() >= maxPooledBuffers) {
            // Make room by dropping a buffer nobody uses; if all are in use, do not pool.
            const auto unused = std::find_if(m_buffers.begin(), m_buffers.end(),
                                             [](const auto &m) { return m.use_count() == 1; });
            if (unused != m_buffers.end())
                m_buffers.erase(unused);
        }
        if (m_buffers.size() < maxPooledBuffers)
            m_buffers.push_back(fresh);
    }
    return fresh;
}

QString inMemoryProblem(const EncodingSpec &spec)
{
    QString invalid = spec.validate();
    if (!invalid.isEmpty())
        return invalid;
    if (spec.byteCount() > limits::maxInMemoryBytes)
        return QStringLiteral("%1 positions x %2 dims need %3; the explorer holds at most %4 in "
                              "memory (use `pescope data` to stream larger matrices)")
            .arg(spec.positions)
            .arg(spec.dims)
            .arg(formatBytes(double(spec.byteCount())),
                 formatBytes(double(limits::maxInMemoryBytes)));
    return {};
}

bool useSampledPath(const EncodingSpec &spec, const GridRequest &request)
{
    if (spec.byteCount() > limits::maxInMemoryBytes)
        return true;
    const qint64 pixels = qMax<qint64>(1, request.rowPixels) * qMax<qint64>(1, request.colPixels);
    return spec.elementCount() > pixels;
}

float exactValue(const EncodingSpec &spec, qint64 position, qint64 dim)
{
    // A 1 x 1 sample inside one cell is that cell, bit for bit what encode() gives.
    float v = std::numeric_limits<float>::quiet_NaN();
    QString error;
    if (!sampleOnCpu(spec, {double(position), double(dim), 1.0, 1.0}, 1, 1, &v, &error, 1))
        return std::numeric_limits<float>::quiet_NaN();
    return v;
}

JobStatus computeColumn(Backend &backend, const EncodingSpec &spec, qint64 dim,
                        const CancelCheck &cancel, std::vector<float> *out, QString *error)
{
    if (dim < 0 || dim >= spec.dims) {
        *error =
            QStringLiteral("dim %1 is outside the matrix (0 to %2)").arg(dim).arg(spec.dims - 1);
        return JobStatus::Failed;
    }
    out->resize(std::size_t(spec.positions));
    // One pixel per cell, a column of pixels at a time (a sample is at most maxSampleSide tall).
    for (qint64 row = 0; row < spec.positions; row += limits::maxSampleSide) {
        if (cancel && cancel())
            return JobStatus::Cancelled;
        const qint64 rows = qMin<qint64>(limits::maxSampleSide, spec.positions - row);
        if (!backend.sample(spec, {double(row), double(dim), double(rows), 1.0}, 1, int(rows),
                            out->data() + row, error))
            return JobStatus::Failed;
    }
    return JobStatus::Done;
}

JobStatus computeMissingColumns(Backend &backend, const EncodingResult &result,
                                const QList<qint64> &dims, const CancelCheck &cancel,
                                QString *error)
{
    if (!result.columns)
        return JobStatus::Done;
    for (qint64 dim : result.missingColumns(dims)) {
        std::vector<float> values;
        const JobStatus status = computeColumn(backend, result.spec, dim, cancel, &values, error);
        if (status != JobStatus::Done)
            return status;
        result.columns->insert(dim, std::move(values));
    }
    return JobStatus::Done;
}

const float *SampledColumns::find(qint64 dim) const
{
    const std::lock_guard lock(m_mutex);
    const auto it = m_columns.find(dim);
    return it == m_columns.end() ? nullptr : it->second.data();
}

void SampledColumns::insert(qint64 dim, std::vector<float> values)
{
    const std::lock_guard lock(m_mutex);
    m_columns.emplace(dim, std::move(values));
}

float EncodingResult::value(qint64 position, qint64 dim) const
{
    if (matrix)
        return matrix->at(position, dim);
    if (columns)
        if (const float *column = columns->find(dim))
            return column[position];
    return exactValue(spec, position, dim);
}

ColumnView EncodingResult::column(qint64 dim) const
{
    if (dim < 0 || dim >= spec.dims)
        return {};
    if (matrix)
        return {matrix->data.get() + dim, matrix->rows, matrix->cols};
    if (!columns)
        return {};
    const float *data = columns->find(dim);
    return data ? ColumnView{data, spec.positions, 1} : ColumnView{};
}

QList<qint64> EncodingResult::missingColumns(const QList<qint64> &dims) const
{
    QList<qint64> missing;
    if (matrix || !columns)
        return missing;
    for (qint64 dim : dims)
        if (dim >= 0 && dim < spec.dims && !columns->contains(dim) && !missing.contains(dim))
            missing.append(dim);
    return missing;
}

bool sampleWindowGrid(Backend &backend, const EncodingSpec &spec, const CellWindow &window,
                      qint64 rowPixels, qint64 colPixels, HeatmapGrid *grid, QString *error)
{
    QElapsedTimer clock;
    clock.start();
    grid->window = window;
    grid->rows = qBound<qint64>(1, qMin<qint64>(rowPixels, limits::maxSampleSide), window.rows());
    grid->cols = qBound<qint64>(1, qMin<qint64>(colPixels, limits::maxSampleSide), window.cols());
    grid->values.resize(std::size_t(grid->rows * grid->cols));
    const MatrixWindow w{double(window.row0), double(window.col0), double(window.rows()),
                         double(window.cols())};
    if (!backend.sample(spec, w, int(grid->cols), int(grid->rows), grid->values.data(), error))
        return false;
    grid->sampled = true;
    grid->backendId = backend.id();
    grid->computeMs = double(clock.nsecsElapsed()) / 1e6;
    return true;
}

CellWindow fullWindow(const EncodingSpec &spec, qint64 visibleDims)
{
    const qint64 cols = visibleDims > 0 ? qMin(visibleDims, spec.dims) : spec.dims;
    return {0, spec.positions, 0, cols};
}

CellWindow requestedWindow(const GridRequest &request, const EncodingSpec &spec)
{
    const CellWindow full = fullWindow(spec, request.visibleDims);
    if (request.fullView)
        return full;
    CellWindow w = request.window;
    w.row0 = qBound(full.row0, w.row0, full.row1 - 1);
    w.row1 = qBound(w.row0 + 1, w.row1, full.row1);
    w.col0 = qBound(full.col0, w.col0, full.col1 - 1);
    w.col1 = qBound(w.col0 + 1, w.col1, full.col1);
    return w;
}

JobStatus encodeMatrix(Backend &backend, const EncodingSpec &spec, Matrix *out, float *minimum,
                       float *maximum, const CancelCheck &cancel, const ProgressReport &progress,
                       QString *error)
{
    if (out->rows != spec.positions || out->cols != spec.dims || !out->data) {
        out->rows = spec.positions;
        out->cols = spec.dims;
        out->capacity = spec.elementCount();
        out->data.reset(new float[std::size_t(spec.elementCount())]);
    }
    const qint64 chunkRows = qMax<qint64>(1, chunkElements / spec.dims);
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    for (qint64 row = 0; row < spec.positions; row += chunkRows) {
        if (cancel && cancel())
            return JobStatus::Cancelled;
        const qint64 rows = qMin(chunkRows, spec.positions - row);
        float *chunk = out->data.get() + row * spec.dims;
        if (!backend.encode(spec, row, rows, chunk, error))
            return JobStatus::Failed;
        // Min and max over the chunk on every core (a single-threaded pass costs as much as
        // the encode itself on large matrices).
        std::mutex merge;
        parallelFor(0, rows * spec.dims, hardwareThreads(), 1 << 16, [&](qint64 b, qint64 e) {
            const auto [mn, mx] = std::minmax_element(chunk + b, chunk + e);
            const std::lock_guard lock(merge);
            lo = std::min(lo, *mn);
            hi = std::max(hi, *mx);
        });
        if (progress && spec.positions > chunkRows)
            progress(int(100 * (row + rows) / spec.positions));
    }
    *minimum = lo;
    *maximum = hi;
    return JobStatus::Done;
}

HeatmapGrid sampleGrid(const Matrix &matrix, const CellWindow &window, qint64 rowPixels,
                       qint64 colPixels)
{
    HeatmapGrid grid;
    grid.window = window;
    grid.rows = qBound<qint64>(1, rowPixels, window.rows());
    grid.cols = qBound<qint64>(1, colPixels, window.cols());
    grid.values.resize(std::size_t(grid.rows * grid.cols));
    boxMeanGrid(
        {matrix.data.get(), matrix.cols, window.row0, window.row1, window.col0, window.col1},
        grid.rows, grid.cols, grid.values.data());
    return grid;
}

JobStatus computeEncoding(Backend &backend, const EncodingSpec &spec, const GridRequest &request,
                          const CancelCheck &cancel, const ProgressReport &progress,
                          EncodingResult *result, QString *error, MatrixPool *pool)
{
    QElapsedTimer clock;
    clock.start();
    const QString problem = inMemoryProblem(spec);
    if (!problem.isEmpty()) {
        *error = problem;
        return JobStatus::Failed;
    }
    auto matrix = pool ? pool->take(spec.positions, spec.dims) : std::make_shared<Matrix>();
    const JobStatus status = encodeMatrix(backend, spec, matrix.get(), &result->minimum,
                                          &result->maximum, cancel, progress, error);
    if (status != JobStatus::Done)
        return status;
    result->encodeMs = double(clock.nsecsElapsed()) / 1e6;
    result->spec = spec;
    result->matrix = matrix;
    result->grid =
        sampleGrid(*matrix, requestedWindow(request, spec), request.rowPixels, request.colPixels);
    result->grid.request = request;
    result->backendId = backend.id();
    result->backendDescription = backend.description();
    result->totalMs = double(clock.nsecsElapsed()) / 1e6;
    return JobStatus::Done;
}

JobStatus computeSampledEncoding(Backend &backend, const EncodingSpec &spec,
                                 const GridRequest &request, const QList<qint64> &columnDims,
                                 const CancelCheck &cancel, EncodingResult *result, QString *error)
{
    QElapsedTimer clock;
    clock.start();
    const QString invalid = spec.validate();
    if (!invalid.isEmpty()) {
        *error = invalid;
        return JobStatus::Failed;
    }
    result->spec = spec;
    // The colour scale spans the scheme's value range: the matrix is never seen whole, and a
    // zoomed-out grid's box means would shrink it.
    const ValueRange range = spec.valueRange();
    result->minimum = float(range.minimum);
    result->maximum = float(range.maximum);
    if (!sampleWindowGrid(backend, spec, requestedWindow(request, spec), request.rowPixels,
                          request.colPixels, &result->grid, error))
        return JobStatus::Failed;
    result->grid.request = request;
    result->encodeMs = double(clock.nsecsElapsed()) / 1e6;
    result->columns = std::make_shared<SampledColumns>();
    if (const JobStatus status = computeMissingColumns(backend, *result, columnDims, cancel, error);
        status != JobStatus::Done)
        return status;
    result->backendId = backend.id();
    result->backendDescription = backend.description();
    result->totalMs = double(clock.nsecsElapsed()) / 1e6;
    return JobStatus::Done;
}

bool computePhrases(Backend &backend, const PhraseSettings &settings, PhraseResult *result,
                    QString *error)
{
    QElapsedTimer clock;
    clock.start();
    result->settings = settings;
    for (const EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        PhraseSpec spec = settings;
        spec.mode = mode;
        if (!embedPhrases(backend, spec, &result->embedding(mode), error))
            return false;
    }
    result->backendId = backend.id();
    result->backendDescription = backend.description();
    result->totalMs = double(clock.nsecsElapsed()) / 1e6;
    return true;
}

QList<qint64> sharingPositions(const EncodingResult &result, qint64 position,
                               const QList<qint64> &dims, double tolerance)
{
    QList<ColumnView> columns;
    for (qint64 d : dims)
        columns.append(result.column(d));
    return sharingPositions(columns, position, tolerance);
}

} // namespace pe
