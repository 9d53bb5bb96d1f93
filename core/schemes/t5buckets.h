// T5 relative position buckets (Raffel et al.), exactly as Hugging Face's
// T5Attention._relative_position_bucket computes them: a few exact buckets for short distances,
// logarithmic ones up to max_distance, one shared bucket beyond.
#pragma once

#include <QString>
#include <QtGlobal>

namespace pe {

struct T5BucketParameters
{
    qint64 buckets = 32;       // relative_attention_num_buckets
    qint64 maxDistance = 128;  // relative_attention_max_distance
    bool bidirectional = true; // encoder: true; decoder (causal): false
    bool operator==(const T5BucketParameters &) const = default;
};

namespace limits {
constexpr qint64 maxT5Buckets = 65536;
constexpr qint64 maxT5Distance = qint64(1) << 31;
} // namespace limits

// Empty when the parameters give every bucket a meaning; otherwise one sentence naming the field.
// Needs max_exact = (bidirectional ? buckets / 2 : buckets) / 2 >= 1 and max_distance > max_exact
// (HF would divide by zero or take log(0) otherwise).
QString t5Problem(const T5BucketParameters &parameters);

// The bucket of relative position key - query, in [0, buckets).
qint32 t5RelativePositionBucket(qint64 relativePosition, const T5BucketParameters &parameters);

// Rows [firstRow, firstRow + rowCount) of the positions x positions bucket matrix: row = query,
// column = key, value = bucket(key - query).
void t5BucketRows(const T5BucketParameters &parameters, qint64 positions, qint64 firstRow,
                  qint64 rowCount, qint32 *out);

} // namespace pe
