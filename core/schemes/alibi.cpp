#include "schemes/alibi.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace pe {

namespace {

std::vector<double> slopesPowerOfTwo(qint64 n)
{
    // start = 2 ** (-2 ** -(log2(n) - 3)) = 2^(-8/n); ratio = start; [start * ratio**i].
    const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(n)) - 3.0)));
    const double ratio = start;
    std::vector<double> slopes(static_cast<std::size_t>(n));
    for (qint64 i = 0; i < n; ++i)
        slopes[std::size_t(i)] = start * std::pow(ratio, double(i));
    return slopes;
}

} // namespace

QString alibiProblem(qint64 heads)
{
    if (heads < 1 || heads > limits::maxHeads)
        return QStringLiteral("heads must be between 1 and %1 (got %2)")
            .arg(limits::maxHeads)
            .arg(heads);
    return {};
}

std::vector<double> alibiSlopes(qint64 heads)
{
    if (heads < 1)
        return {};
    if ((heads & (heads - 1)) == 0) // math.log2(n).is_integer()
        return slopesPowerOfTwo(heads);
    qint64 closest = 1; // 2 ** floor(log2(n))
    while (closest * 2 <= heads)
        closest *= 2;
    std::vector<double> slopes = slopesPowerOfTwo(closest);
    // get_slopes(2 * closest)[0::2][:n - closest]
    const std::vector<double> doubled = alibiSlopes(2 * closest);
    for (qint64 k = 0; qint64(slopes.size()) < heads; k += 2)
        slopes.push_back(doubled[std::size_t(k)]);
    return slopes;
}

double alibiBias(double slope, qint64 query, qint64 key, bool causal)
{
    if (causal && key > query)
        return -std::numeric_limits<double>::infinity();
    return -slope * double(std::llabs(query - key));
}

void alibiBiasRows(double slope, qint64 positions, qint64 firstRow, qint64 rowCount, bool causal,
                   float *out)
{
    for (qint64 r = 0; r < rowCount; ++r) {
        const qint64 i = firstRow + r;
        float *row = out + r * positions;
        for (qint64 j = 0; j < positions; ++j)
            row[j] = float(alibiBias(slope, i, j, causal));
    }
}

} // namespace pe
