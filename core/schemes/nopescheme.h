// NoPE (Kazemnejad et al., "The Impact of Positional Encoding on Length Generalization in
// Transformers", 2023): no positional information at all, an all-zero table. Causal attention
// still tells positions apart; models with "NoPE layers" interleave them with RoPE layers.
#pragma once

#include "scheme.h"

namespace pe {

struct NopeScheme
{
    static constexpr SchemeInfo info{
        .id = "nope",
        .label = "NoPE (no positions)",
        .description = "no positional information: an all-zero table",
        .modelNotice = "This layer has no positional encoding (NoPE): no frequencies, nothing "
                       "rotates."};

    static FieldTable<NopeScheme> fields() { return {}; }
    FieldProblem problem(const MatrixShape &) const { return {}; }
    // Zero columns: step 0 and offset 0 are sin(0) at every position, on every backend.
    MatrixPlan plan(const MatrixShape &shape) const
    {
        return PhaseColumnsPlan{std::vector<kernels::ColumnPhase>(std::size_t(shape.dims))};
    }
    ValueRange valueRange(const MatrixShape &) const { return {0.0, 0.0}; }
    SchemeAxes axes() const { return {}; }
    ColumnInfo column(qint64 column, const MatrixShape &) const
    {
        return {QStringLiteral("i = %1").arg(column)};
    }
    QString caption(const MatrixShape &shape) const
    {
        return QStringLiteral("NoPE (no positional information), %1 positions × %2 dims")
            .arg(shape.positions)
            .arg(shape.dims);
    }
    QString legend() const { return QStringLiteral("NoPE"); }
    QString formula(const MatrixShape &) const
    {
        return QStringLiteral("0 everywhere: no position information; causal attention alone "
                              "tells positions apart (Kazemnejad et al.)");
    }
    QString cellFormula(qint64 p, qint64 j, double, const MatrixShape &) const
    {
        return QStringLiteral("NoPE(%1, %2) = 0: no position information").arg(p).arg(j);
    }
    std::vector<DataOutput> outputs(const MatrixShape &shape) const
    {
        return {matrixOutput(shape, shape.dims)};
    }
    bool operator==(const NopeScheme &) const = default;
};

} // namespace pe
