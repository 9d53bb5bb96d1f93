#include "analysis/boxgrid.h"

#include "backends/parallel.h"

#include <algorithm>
#include <vector>

namespace pe {

void boxMeanGrid(const MatrixBlock &block, qint64 outRows, qint64 outCols, float *out)
{
    const qint64 nr = block.rows();
    const qint64 nc = block.cols();
    // Column boundaries of each output column, shared by all rows.
    std::vector<qint64> colStart(std::size_t(outCols + 1));
    for (qint64 x = 0; x <= outCols; ++x)
        colStart[std::size_t(x)] = block.col0 + x * nc / outCols;
    const bool fullColumns = outCols == nc;
    parallelFor(0, outRows, hardwareThreads(), 16, [&](qint64 begin, qint64 end) {
        std::vector<double> acc(static_cast<std::size_t>(outCols));
        for (qint64 y = begin; y < end; ++y) {
            const qint64 r0 = block.row0 + y * nr / outRows;
            const qint64 r1 = block.row0 + (y + 1) * nr / outRows;
            float *outRow = out + y * outCols;
            if (r1 - r0 == 1 && fullColumns) {
                std::copy_n(block.data + r0 * block.stride + block.col0, outCols, outRow);
                continue;
            }
            std::fill(acc.begin(), acc.end(), 0.0);
            for (qint64 r = r0; r < r1; ++r) {
                const float *in = block.data + r * block.stride;
                if (fullColumns) { // one column per output value: a straight, vectorisable sum
                    const float *row = in + block.col0;
                    for (qint64 x = 0; x < outCols; ++x)
                        acc[std::size_t(x)] += double(row[x]);
                    continue;
                }
                for (qint64 x = 0; x < outCols; ++x) {
                    double sum = 0.0;
                    for (qint64 c = colStart[std::size_t(x)]; c < colStart[std::size_t(x + 1)]; ++c)
                        sum += in[c];
                    acc[std::size_t(x)] += sum;
                }
            }
            for (qint64 x = 0; x < outCols; ++x) {
                const double cells = double(r1 - r0) * double(colStart[std::size_t(x + 1)] -
                                                              colStart[std::size_t(x)]);
                outRow[x] = float(acc[std::size_t(x)] / cells);
            }
        }
    });
}

} // namespace pe
