// ALiBi (Press et al., "Train Short, Test Long"): no position embedding; each head adds the bias
// -m_h |i - j| to its attention scores. The matrix is one head's queries x keys.
#pragma once

#include "scheme.h"

namespace pe {

struct AlibiScheme
{
    static constexpr SchemeInfo info{"alibi", "ALiBi (linear biases)",
                                     "the attention bias -m_h |i - j| of one head", false};
    qint64 heads = 8;
    qint64 head = 0; // the head the matrix shows, 0-based
    bool causal = false;

    static FieldTable<AlibiScheme> fields();
    FieldProblem problem(const MatrixShape &) const;
    MatrixPlan plan(const MatrixShape &shape) const;
    ValueRange valueRange(const MatrixShape &shape) const;
    SchemeAxes axes() const
    {
        return {QStringLiteral("query position i"), QStringLiteral("key position j"),
                QStringLiteral("bias")};
    }
    ColumnInfo column(qint64 column, const MatrixShape &) const
    {
        return {QStringLiteral("key j = %1").arg(column)};
    }
    QString caption(const MatrixShape &shape) const;
    QString legend() const { return QStringLiteral("ALiBi head %1 of %2").arg(head).arg(heads); }
    QString formula(const MatrixShape &) const;
    QString cellFormula(qint64 p, qint64 j, double value, const MatrixShape &) const;
    std::vector<DataOutput> outputs(const MatrixShape &shape) const;
    bool operator==(const AlibiScheme &) const = default;

    double slope() const;
};

} // namespace pe
