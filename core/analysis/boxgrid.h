// The heatmap's downsampler: a block of a materialised row-major matrix as a smaller grid whose
// every value is the mean of the whole cells it covers (a box filter, so that a zoomed-out view
// does not alias). Backend::sample does the same for matrices that are never materialised, with
// fractional cell edges; here the edges fall on whole cells. Callable from any thread.
#pragma once

#include <QtGlobal>

namespace pe {

// Rows [row0, row1) x columns [col0, col1) of a matrix whose rows are `stride` floats apart.
struct MatrixBlock
{
    const float *data = nullptr;
    qint64 stride = 0;
    qint64 row0 = 0, row1 = 0, col0 = 0, col1 = 0;
    qint64 rows() const { return row1 - row0; }
    qint64 cols() const { return col1 - col0; }
};

// out[y * outCols + x], outRows in [1, block.rows()] and outCols in [1, block.cols()]: output row
// y covers block rows [y·R/outRows, (y+1)·R/outRows) (integer division, R = block.rows()), and
// likewise for columns; each value is the mean of the cells covered, summed in float64. A grid
// as large as the block is the block itself. Rows are spread over the machine's threads.
void boxMeanGrid(const MatrixBlock &block, qint64 outRows, qint64 outCols, float *out);

} // namespace pe
