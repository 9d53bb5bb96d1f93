// The explorer's compute jobs as plain functions and result types: encode a matrix in chunks
// (cancellable), box-filter it into a heatmap grid, compute the plotted columns of a sampled
// matrix, embed phrases. The ComputeScheduler runs them on its worker thread; `pescope export`
// calls them directly on its own thread.
#pragma once

#include "state/explorervalues.h"

#include "analysis/sharing.h" // ColumnView
#include "backends/backend.h"
#include "encodingspec.h"
#include "text/phrases.h"

#include <QMetaType>
#include <QString>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace pe {

// A half-open block of cells: rows [row0, row1) x columns [col0, col1) of positions x dims.
struct CellWindow
{
    qint64 row0 = 0;
    qint64 row1 = 0;
    qint64 col0 = 0;
    qint64 col1 = 0;
    qint64 rows() const { return row1 - row0; }
    qint64 cols() const { return col1 - col0; }
    bool isEmpty() const { return rows() <= 0 || cols() <= 0; }
    bool contains(const CellWindow &other) const
    {
        return other.row0 >= row0 && other.row1 <= row1 && other.col0 >= col0 && other.col1 <= col1;
    }
    bool operator==(const CellWindow &) const = default;
};

// What the heatmap wants to show: a window (or the whole visible matrix) at a pixel budget.
struct GridRequest
{
    bool fullView = true;
    CellWindow window;      // ignored when fullView
    qint64 rowPixels = 512; // device pixels available along the position axis
    qint64 colPixels = 512; // ... and along the dim axis
    qint64 visibleDims = 0; // the heatmap's dim limit (0: all dims)
    bool operator==(const GridRequest &) const = default;
};

// The heatmap's image: `rows` x `cols` values covering `window`; each value is the mean of the
// cells it covers (box filter), so a grid smaller than the window does not alias.
struct HeatmapGrid
{
    quint64 encodingGeneration = 0;
    GridRequest request;
    CellWindow window;
    qint64 rows = 0;
    qint64 cols = 0;
    std::vector<float> values; // rows x cols, row-major
    bool sampled = false;      // computed by Backend::sample, not from a materialised matrix
    QString backendId;         // who computed a sampled grid
    double computeMs = 0.0;    // ... and how long it took
    bool isFullResolution() const { return rows == window.rows() && cols == window.cols(); }
    float at(qint64 r, qint64 c) const { return values[std::size_t(r * cols + c)]; }
};

struct Matrix
{
    qint64 rows = 0;
    qint64 cols = 0;
    qint64 capacity = 0; // floats allocated in data (a recycled buffer may be larger)
    std::unique_ptr<float[]> data;
    float at(qint64 r, qint64 c) const { return data[std::size_t(r * cols + c)]; }
};

// Whole columns (every position of one dim) of a matrix that is not materialised: the wave view
// and the share readout need only the plotted dims. The worker adds the dims plotted when its
// job ran, and later ones in a columns job; readers on any thread see a column once it is
// complete, and it never changes or moves after that.
class SampledColumns
{
public:
    // spec.positions floats, or nullptr while the column has not been computed.
    const float *find(qint64 dim) const;
    bool contains(qint64 dim) const { return find(dim) != nullptr; }
    // The worker's side: adds a complete column (a dim already present is kept).
    void insert(qint64 dim, std::vector<float> values);

private:
    mutable std::mutex m_mutex;
    std::map<qint64, std::vector<float>> m_columns; // nodes never move
};

struct EncodingResult
{
    quint64 generation = 0;
    EncodingSpec spec;
    // Null on the sampled path (the matrix is larger than the heatmap's screen area or the
    // memory budget): the grid then comes from Backend::sample and values from `columns`.
    std::shared_ptr<const Matrix> matrix;
    std::shared_ptr<SampledColumns> columns; // filled by the worker only

    float minimum = 0.0f;
    float maximum = 0.0f;
    HeatmapGrid grid;
    QString backendId;
    QString backendDescription;
    double encodeMs = 0.0; // the backend's encode
    double totalMs = 0.0;  // encode + min/max + grid
    QString notice;        // the backend's notice() after the job (a GPU failure), if any
    bool isSampled() const { return !matrix; }
    // The exact value of one cell (on the sampled path from its column, or computed for that
    // cell alone).
    float value(qint64 position, qint64 dim) const;
    // Column `dim` over every position; invalid while a sampled result lacks it.
    ColumnView column(qint64 dim) const;
    // The dims of `dims` a sampled result has no column for yet (none when materialised).
    QList<qint64> missingColumns(const QList<qint64> &dims) const;
};

struct PhraseResult
{
    quint64 generation = 0;
    PhraseSettings settings;
    PhraseEmbedding random;
    PhraseEmbedding fixed;
    QString backendId;
    QString backendDescription;
    double totalMs = 0.0;
    const PhraseEmbedding &embedding(EmbeddingMode mode) const
    {
        return mode == EmbeddingMode::Random ? random : fixed;
    }
    PhraseEmbedding &embedding(EmbeddingMode mode)
    {
        return mode == EmbeddingMode::Random ? random : fixed;
    }
    // Pointer to the dims floats of token `token` of phrase `phrase`.
    const float *vector(EmbeddingMode mode, int phrase, qint64 token) const
    {
        return embedding(mode).vector(phrase, token);
    }
};

// Returns true when the job should stop (a newer request superseded it, or the user cancelled).
using CancelCheck = std::function<bool()>;
using ProgressReport = std::function<void(int percent)>;

enum class JobStatus { Done, Cancelled, Failed };

// `job()` (a JobStatus), with an allocation that fails in it turned into Failed and "out of memory
// while <what>" in *error: the window says so and keeps its last result, rather than ending.
template <class Job> JobStatus failingOnOutOfMemory(const QString &what, QString *error, Job job)
{
    try {
        return job();
    } catch (const std::bad_alloc &) {
        *error = QStringLiteral("out of memory while %1").arg(what);
        return JobStatus::Failed;
    }
}

// Empty when the explorer can hold the spec's matrix in memory; else why not. Larger matrices
// take the sampled (viewport) path, computeSampledEncoding().
QString inMemoryProblem(const EncodingSpec &spec);

// True when the heatmap should be sampled per viewport rather than materialised: the matrix has
// more cells than the heatmap has device pixels, or does not fit the memory budget.
bool useSampledPath(const EncodingSpec &spec, const GridRequest &request);

// The exact value of cell (position, dim), computed for that cell alone (CPU, any thread): a
// hover readout's one cell of a sampled matrix.
float exactValue(const EncodingSpec &spec, qint64 position, qint64 dim);
// Every position of column `dim`, without the rest of the matrix: Backend::sample at one pixel
// per cell, which is that cell's value.
JobStatus computeColumn(Backend &backend, const EncodingSpec &spec, qint64 dim,
                        const CancelCheck &cancel, std::vector<float> *out, QString *error);
// Adds the columns of `dims` that `result` (sampled) lacks.
JobStatus computeMissingColumns(Backend &backend, const EncodingResult &result,
                                const QList<qint64> &dims, const CancelCheck &cancel,
                                QString *error);
// The box-filtered grid of `window` at most rowPixels x colPixels, by Backend::sample.
bool sampleWindowGrid(Backend &backend, const EncodingSpec &spec, const CellWindow &window,
                      qint64 rowPixels, qint64 colPixels, HeatmapGrid *grid, QString *error);

// The window that shows the whole matrix, cropped to the first visibleDims columns.
CellWindow fullWindow(const EncodingSpec &spec, qint64 visibleDims);
// The window a request asks for, clipped to the matrix (and to visibleDims).
CellWindow requestedWindow(const GridRequest &request, const EncodingSpec &spec);

// Recycles matrix buffers between jobs: a fresh 32 MiB allocation costs more in page faults than
// encoding into it. Buffers come back once nothing else holds them. Not thread-safe; one per
// worker.
class MatrixPool
{
public:
    std::shared_ptr<Matrix> take(qint64 rows, qint64 cols);

private:
    std::vector<std::shared_ptr<Matrix>> m_buffers;
};

// The whole matrix, in row chunks so that `cancel` is honoured within a few milliseconds.
JobStatus encodeMatrix(Backend &backend, const EncodingSpec &spec, Matrix *out, float *minimum,
                       float *maximum, const CancelCheck &cancel, const ProgressReport &progress,
                       QString *error);

// Box-filters `window` of the matrix into at most rowPixels x colPixels values (core's
// boxMeanGrid).
HeatmapGrid sampleGrid(const Matrix &matrix, const CellWindow &window, qint64 rowPixels,
                       qint64 colPixels);

// Encode + min/max + the grid for `request`, as one job (the materialised path). Specs above the
// in-memory budget are refused here (inMemoryProblem); computeSampledEncoding() shows them.
// `pool` may be null (a fresh buffer each time).
JobStatus computeEncoding(Backend &backend, const EncodingSpec &spec, const GridRequest &request,
                          const CancelCheck &cancel, const ProgressReport &progress,
                          EncodingResult *result, QString *error, MatrixPool *pool = nullptr);

// The sampled path: no matrix; the value range, the grid for `request` by Backend::sample and
// the columns of `columnDims` (the plotted wave dims).
JobStatus computeSampledEncoding(Backend &backend, const EncodingSpec &spec,
                                 const GridRequest &request, const QList<qint64> &columnDims,
                                 const CancelCheck &cancel, EncodingResult *result, QString *error);

// Random and fixed embeddings of the phrase settings (both from the same vectorizer).
bool computePhrases(Backend &backend, const PhraseSettings &settings, PhraseResult *result,
                    QString *error);

// core's sharingPositions over the columns of `dims` of a result, materialised or sampled (Fig
// 16-9: p = 22 and p = 60 share i = 100 and 101). Empty when a column is missing.
QList<qint64> sharingPositions(const EncodingResult &result, qint64 position,
                               const QList<qint64> &dims, double tolerance);

} // namespace pe

Q_DECLARE_METATYPE(std::shared_ptr<const pe::EncodingResult>)
Q_DECLARE_METATYPE(std::shared_ptr<const pe::HeatmapGrid>)
Q_DECLARE_METATYPE(std::shared_ptr<const pe::PhraseResult>)
