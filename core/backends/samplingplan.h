// SamplingPlan: the backend-independent half of Backend::sample(): which cells each pixel covers
// and with what weight, and, for phase schemes, the per-column closed-form tables.
//
// Why a plan: the CPU and GPU backends then differ only in how they evaluate sines, so they
// agree to float rounding, and the edge weights are decided (and tested) in one place.
#pragma once

#include "backends/backend.h"
#include "backends/phasekernels.h"
#include "encodingspec.h"

#include <optional>
#include <vector>

namespace pe {

// One pixel's footprint [lo, hi) along one axis, in cells: cells [first, first + count) are
// covered whole, cell first - 1 by lowWeight and cell first + count by highWeight (each 0 when
// the footprint does not reach into it); scale = 1 / (hi - lo). A footprint inside a single
// cell c is first = c + 1, count = 0, lowWeight = 1, scale = 1: the pixel shows that cell.
struct AxisSpan
{
    qint64 first = 0;
    qint64 count = 0;
    double lowWeight = 0.0;
    double highWeight = 0.0;
    double scale = 1.0;
};

// `pixels` equal footprints tiling [start, start + length).
std::vector<AxisSpan> axisSpans(double start, double length, int pixels);

// The closed form for one distinct count n of whole rows (pixel rows share a few such counts):
// the sum over rows a .. a+n-1 of sin(2 pi (p s + o)) is D_n(s) sin(2 pi ((a + (n-1)/2) s + o))
// with the Dirichlet kernel D_n(s) = sin(pi n s) / sin(pi s). Per window column:
struct PhaseRun
{
    qint64 count = 0;                  // n
    std::vector<std::uint64_t> centre; // (n-1) s / 2, exact in 2^-64 turns
    std::vector<std::uint64_t> span;   // n s, the phase from row a to row a + n
    std::vector<float> dirichlet;      // D_n(s), computed in float64
};

struct SamplingPlan
{
    int width = 0;
    int height = 0;
    std::vector<AxisSpan> rows;    // height entries, absolute positions
    std::vector<AxisSpan> columns; // width entries, absolute dims
    qint64 firstColumn = 0; // the window touches dims [firstColumn, firstColumn + columnCount)
    qint64 columnCount = 0;

    // How the scheme computes its matrix (the row-sampled path evaluates it per row).
    MatrixPlan matrix;

    // A PhaseColumnsPlan (sinusoidal, RoPE, zero columns): exact closed form.
    bool closedForm = false;
    std::vector<kernels::ColumnPhase> phases; // columnCount entries, the window's columns
    std::vector<PhaseRun> runs;               // one per distinct whole-row count
    std::vector<int> rowRun;                  // height entries: index into runs

    // Other schemes: pixel row y averages matrix rows sampleRows[sampleBegin[y] ..
    // sampleBegin[y+1]) with sampleWeights (already divided by the footprint). Exact (every
    // covered row, weighted by coverage) while a pixel row covers at most rowsPerPixel rows;
    // beyond that, rowsPerPixel rows at the centres of equal slices of the footprint.
    int rowsPerPixel = 0;
    std::vector<qint64> sampleRows;
    std::vector<float> sampleWeights;
    std::vector<int> sampleBegin; // height + 1 entries
};

namespace limits {
// Largest sampled image a backend produces in one call.
constexpr int maxSampleSide = 16384;
constexpr qint64 maxSamplePixels = qint64(1) << 26;
// Cells a non-closed-form sample may evaluate (about 0.1 s on two cores).
constexpr qint64 sampleCellBudget = qint64(1) << 25;
} // namespace limits

// Empty when sample(spec, window, width, height) is a valid request, else the reason.
QString sampleRequestProblem(const EncodingSpec &spec, const MatrixWindow &window, int width,
                             int height);

// nullopt with *error set when the request is invalid.
std::optional<SamplingPlan> buildSamplingPlan(const EncodingSpec &spec, const MatrixWindow &window,
                                              int width, int height, QString *error,
                                              qint64 cellBudget = limits::sampleCellBudget);

// Empty when encode(spec, firstRow, rowCount) is a valid request, else the reason.
QString encodeRequestProblem(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount);

} // namespace pe
