// T5's relative position buckets (Raffel et al.), as Hugging Face's
// T5Attention._relative_position_bucket computes them; the matrix holds bucket(key - query).
#pragma once

#include "scheme.h"

namespace pe {

struct T5Scheme
{
    static constexpr SchemeInfo info{"t5", "T5 relative buckets",
                                     "the relative position bucket of every query and key", false};
    qint64 buckets = 32;      // relative_attention_num_buckets
    qint64 maxDistance = 128; // relative_attention_max_distance
    bool causal = false;      // a decoder's buckets (HF bidirectional = false)

    static FieldTable<T5Scheme> fields();
    FieldProblem problem(const MatrixShape &) const;
    MatrixPlan plan(const MatrixShape &shape) const;
    ValueRange valueRange(const MatrixShape &) const { return {0.0, double(buckets - 1)}; }
    SchemeAxes axes() const
    {
        return {QStringLiteral("query position i"), QStringLiteral("key position j"),
                QStringLiteral("bucket")};
    }
    ColumnInfo column(qint64 column, const MatrixShape &) const
    {
        return {QStringLiteral("key j = %1").arg(column)};
    }
    QString caption(const MatrixShape &shape) const;
    QString legend() const { return QStringLiteral("T5 buckets (%1)").arg(buckets); }
    QString formula(const MatrixShape &) const;
    QString cellFormula(qint64 p, qint64 j, double value, const MatrixShape &) const
    {
        return QStringLiteral("bucket(%1 − %2 = %3) = %4")
            .arg(j)
            .arg(p)
            .arg(j - p)
            .arg(formulaValue(value));
    }
    std::vector<DataOutput> outputs(const MatrixShape &shape) const;
    bool operator==(const T5Scheme &) const = default;
};

} // namespace pe
