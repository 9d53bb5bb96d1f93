// A learned ("random") position table as Keras' Embedding initialises it: uniform in
// [-0.05, 0.05), seeded, each cell from a counter-based hash so any cell is reproducible alone.
#pragma once

#include "scheme.h"

namespace pe {

struct LearnedScheme
{
    // "random" was its name in seed 001 and early sessions: still read.
    static constexpr SchemeInfo info{"learned", "Learned (random init)",
                                     "a trainable table at Keras' default initialisation, "
                                     "uniform in [-0.05, 0.05)",
                                     true, "random"};
    quint64 seed = 0;

    static FieldTable<LearnedScheme> fields();
    FieldProblem problem(const MatrixShape &) const { return {}; }
    MatrixPlan plan(const MatrixShape &) const { return HashedUniformPlan{seed}; }
    ValueRange valueRange(const MatrixShape &) const { return {-0.05, 0.05}; }
    SchemeAxes axes() const { return {}; }
    ColumnInfo column(qint64 column, const MatrixShape &) const
    {
        return {QStringLiteral("i = %1").arg(column)};
    }
    QString caption(const MatrixShape &shape) const
    {
        return QStringLiteral("learned, %1 positions × %2 dims, seed %3")
            .arg(shape.positions)
            .arg(shape.dims)
            .arg(seed);
    }
    QString legend() const { return QStringLiteral("learned (seed %1)").arg(seed); }
    QString formula(const MatrixShape &) const
    {
        return QStringLiteral("E[<i>p</i>, <i>i</i>] ~ U[−0.05, 0.05), seed %1: Keras' default "
                              "Embedding initialiser, what a trainable position table starts as "
                              "(nothing about order is built in)")
            .arg(seed);
    }
    QString cellFormula(qint64 p, qint64 j, double value, const MatrixShape &) const
    {
        return QStringLiteral("E[%1, %2] = %3, drawn from U[−0.05, 0.05) with seed %4")
            .arg(p)
            .arg(j)
            .arg(formulaValue(value))
            .arg(seed);
    }
    std::vector<DataOutput> outputs(const MatrixShape &shape) const
    {
        return {matrixOutput(shape, shape.dims)};
    }
    bool operator==(const LearnedScheme &) const = default;
};

inline FieldTable<LearnedScheme> LearnedScheme::fields()
{
    using S = LearnedScheme;
    static const Field<S> table[] = {
        {.key = "seed",
         .flag = "seed",
         .label = "Seed",
         .help = "Seed of the random table; the same seed gives the same table on every backend.",
         .kind = SeedKind<S>{&S::seed}},
    };
    return table;
}

} // namespace pe
