// Rotary position embedding (Su et al., RoFormer) as a table: pair i of the rotary dims turns by
// p theta_i, its cos in the first column of the pair and its sin in the second, with every rope
// type of Hugging Face transformers v5 for the frequencies (core/rope/).
#pragma once

#include "rope/ropefrequencies.h"
#include "scheme.h"

namespace pe {

struct RopeScheme : RopeConfig
{
    static constexpr SchemeInfo info{"rope", "RoPE (rotary)",
                                     "the cos/sin table of rotary embeddings, with every rope "
                                     "type of Hugging Face transformers v5"};

    static FieldTable<RopeScheme> fields();
    FieldProblem problem(const MatrixShape &shape) const;
    MatrixPlan plan(const MatrixShape &shape) const;
    ValueRange valueRange(const MatrixShape &) const { return {-1.0, 1.0}; }
    SchemeAxes axes() const { return {}; }
    ColumnInfo column(qint64 column, const MatrixShape &) const
    {
        return {QStringLiteral("i = %1").arg(column)};
    }
    QString caption(const MatrixShape &shape) const;
    QString legend() const { return QStringLiteral("RoPE ") + configLabel(); }
    // "base 500,000, llama3 s = 8 from 8,192": one configuration in the RoPE views' legends.
    QString configLabel() const;
    QString formula(const MatrixShape &shape) const;
    QString cellFormula(qint64 p, qint64 j, double value, const MatrixShape &shape) const;
    std::vector<DataOutput> outputs(const MatrixShape &shape) const;
    bool operator==(const RopeScheme &) const = default;

    // The parameters the frequency rules see for `shape`: HF's seq_len is the positions shown,
    // or None (transformers' module as loaded: longrope's short factors, dynamic's own base)
    // when lengthAsLoaded.
    RopeConfig config(const MatrixShape &shape) const;

    // What the rope type needs and lacks, filled in (ropeWithNeededValues): a form calls this
    // when one of its choices changed, so that the choice and its needs are one valid edit.
    void fillNeeded();

    // Not a field: `pescope data` without --positions asks for the module as loaded.
    bool lengthAsLoaded = false;
};

} // namespace pe
