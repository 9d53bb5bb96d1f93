#include "schemes/t5buckets.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pe {

QString t5Problem(const T5BucketParameters &parameters)
{
    const qint64 buckets = parameters.buckets;
    if (buckets < 2 || buckets > limits::maxT5Buckets)
        return QStringLiteral("buckets must be between 2 and %1 (got %2)")
            .arg(limits::maxT5Buckets)
            .arg(buckets);
    if (parameters.bidirectional && buckets < 4)
        return QStringLiteral("buckets must be at least 4 when bidirectional: each direction gets "
                              "half, and half of those are exact (got %1)")
            .arg(buckets);
    const qint64 perDirection = parameters.bidirectional ? buckets / 2 : buckets;
    const qint64 maxExact = perDirection / 2;
    if (parameters.maxDistance <= maxExact || parameters.maxDistance > limits::maxT5Distance)
        return QStringLiteral("max distance must be greater than the %1 exact buckets and at most "
                              "%2 (got %3)")
            .arg(maxExact)
            .arg(limits::maxT5Distance)
            .arg(parameters.maxDistance);
    return {};
}

qint32 t5RelativePositionBucket(qint64 relativePosition, const T5BucketParameters &parameters)
{
    qint64 numBuckets = parameters.buckets;
    qint64 bucket = 0;
    qint64 distance = 0;
    if (parameters.bidirectional) {
        numBuckets /= 2;
        if (relativePosition > 0)
            bucket += numBuckets; // keys after the query use the upper half
        distance = relativePosition < 0 ? -relativePosition : relativePosition;
    } else {
        distance = relativePosition < 0 ? -relativePosition : 0; // keys after the query: 0
    }
    const qint64 maxExact = numBuckets / 2;
    if (distance < maxExact)
        return qint32(bucket + distance);
    // HF evaluates the logarithmic part in float32 (relative_position.float()); so do we, in
    // the same order, so that values on a bucket boundary truncate the same way.
    const float ratio = float(distance) / float(maxExact);
    const auto logRange = float(std::log(double(parameters.maxDistance) / double(maxExact)));
    const float scaled = std::log(ratio) / logRange * float(numBuckets - maxExact);
    const qint64 large = std::min(maxExact + qint64(scaled), numBuckets - 1);
    return qint32(bucket + large);
}

void t5BucketRows(const T5BucketParameters &parameters, qint64 positions, qint64 firstRow,
                  qint64 rowCount, qint32 *out)
{
    if (rowCount <= 0)
        return;
    // The bucket depends only on key - query: compute each relative position once (a logarithm
    // apiece), then every row is a slice of that table.
    const qint64 lowest = -(firstRow + rowCount - 1); // key 0, last query
    const qint64 highest = positions - 1 - firstRow;  // last key, first query
    std::vector<qint32> table(std::size_t(highest - lowest + 1));
    for (qint64 relative = lowest; relative <= highest; ++relative)
        table[std::size_t(relative - lowest)] = t5RelativePositionBucket(relative, parameters);
    for (qint64 r = 0; r < rowCount; ++r) {
        const qint32 *slice = table.data() + (-(firstRow + r) - lowest); // key 0 of this query
        std::copy(slice, slice + positions, out + r * positions);
    }
}

} // namespace pe
