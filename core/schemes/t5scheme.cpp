#include "t5scheme.h"

#include "schemes/t5buckets.h"

#include <vector>

namespace pe {

namespace {

T5BucketParameters bucketParameters(const T5Scheme &s)
{
    return {s.buckets, s.maxDistance, !s.causal};
}

} // namespace

FieldTable<T5Scheme> T5Scheme::fields()
{
    using S = T5Scheme;
    static const Field<S> table[] = {
        {.key = "buckets",
         .flag = "buckets",
         .label = "Buckets",
         .help = "relative_attention_num_buckets.",
         .kind = IntegerKind<S>{&S::buckets, {2, limits::maxT5Buckets}}},
        {.key = "max_distance",
         .flag = "max-distance",
         .label = "Max distance",
         .help = "relative_attention_max_distance: distances from here on share the last bucket.",
         .kind = IntegerKind<S>{&S::maxDistance, {1, limits::maxT5Distance}}},
        {.key = "causal",
         .flag = "causal",
         .label = "Causal",
         .help = "A decoder's buckets (HF's bidirectional = False).",
         .kind = BoolKind<S>{&S::causal}},
    };
    return table;
}

FieldProblem T5Scheme::problem(const MatrixShape &) const
{
    if (!causal && buckets < 4)
        return {QStringLiteral("buckets"),
                QStringLiteral("must be at least 4 unless causal: each direction gets half, and "
                               "half of those are exact (got %1)")
                    .arg(buckets)};
    const qint64 maxExact = (causal ? buckets : buckets / 2) / 2;
    if (maxDistance <= maxExact)
        return {QStringLiteral("max_distance"),
                QStringLiteral("must be greater than the %1 exact buckets (got %2)")
                    .arg(maxExact)
                    .arg(maxDistance)};
    return {};
}

MatrixPlan T5Scheme::plan(const MatrixShape &shape) const
{
    const qint64 n = shape.positions;
    return RowsPlan{n, [n, p = bucketParameters(*this)](qint64 first, qint64 count, float *out) {
                        std::vector<qint32> ids(static_cast<std::size_t>(n));
                        for (qint64 r = 0; r < count; ++r) {
                            t5BucketRows(p, n, first + r, 1, ids.data());
                            std::copy(ids.begin(), ids.end(), out + r * n);
                        }
                    }};
}

QString T5Scheme::caption(const MatrixShape &shape) const
{
    return QStringLiteral("T5 buckets (%1 buckets, max distance %2, %3), %4 x %4 positions")
        .arg(buckets)
        .arg(maxDistance)
        .arg(causal ? QStringLiteral("causal") : QStringLiteral("bidirectional"))
        .arg(shape.positions);
}

std::vector<DataOutput> T5Scheme::outputs(const MatrixShape &shape) const
{
    const qint64 n = shape.positions;
    DataOutput ids;
    ids.name = QStringLiteral("matrix");
    ids.help = QStringLiteral("positions x positions int32 bucket ids");
    ids.type = ElementType::Int32;
    ids.shape = {n, n};
    ids.rows = [n, p = bucketParameters(*this)](qint64 first, qint64 count, void *out) {
        t5BucketRows(p, n, first, count, static_cast<qint32 *>(out));
    };
    return {ids};
}

QString T5Scheme::formula(const MatrixShape &) const
{
    return QStringLiteral(
               "bucket(<i>j</i> − <i>i</i>): %1 buckets%2; distances below half of them get a "
               "bucket each, longer ones share logarithmic buckets up to %3, beyond which all "
               "share the last (HF's T5Attention._relative_position_bucket). Each bucket is one "
               "learned bias per head.")
        .arg(buckets)
        .arg(causal ? QStringLiteral(" (causal: keys before the query only)")
                    : QStringLiteral(", half for each direction"))
        .arg(maxDistance);
}

} // namespace pe
