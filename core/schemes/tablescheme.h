// A learned position table read from a model file: GPT-2's wpe, BERT's, RoBERTa's and OPT's
// position embeddings (with their offsets), any 2-D tensor of a .safetensors, .gguf or .npy
// file. The parameters name the source; the table itself is loaded by resolve() (file I/O, never
// on the UI thread of a busy window) and travels with the spec.
#pragma once

#include "model/positiontable.h"
#include "scheme.h"

namespace pe {

struct TableScheme
{
    static constexpr SchemeInfo info{"table", "Table from a model file",
                                     "a learned position table read from a model file "
                                     "(safetensors, GGUF, .npy or the Hugging Face cache)"};
    QString source;     // a model folder, a file or a cached repo id
    QString tensor;     // empty: the model's position table
    qint64 offset = -1; // rows before position 0; -1: as the model's config.json says
    std::shared_ptr<const PositionTable> table; // the loaded values (not a parameter)

    static FieldTable<TableScheme> fields();
    FieldProblem problem(const MatrixShape &shape) const;
    MatrixPlan plan(const MatrixShape &shape) const;
    ValueRange valueRange(const MatrixShape &) const;
    SchemeAxes axes() const { return {}; }
    ColumnInfo column(qint64 column, const MatrixShape &) const
    {
        return {QStringLiteral("i = %1").arg(column)};
    }
    QString caption(const MatrixShape &shape) const;
    QString legend() const;
    QString formula(const MatrixShape &) const
    {
        return QStringLiteral("W[<i>p</i>, <i>i</i>]: the model's learned position table as "
                              "stored (%1)")
            .arg(legend().toHtmlEscaped());
    }
    QString cellFormula(qint64 p, qint64 j, double value, const MatrixShape &) const
    {
        return QStringLiteral("W[%1, %2] = %3 (%4)")
            .arg(p)
            .arg(j)
            .arg(formulaValue(value), legend());
    }
    std::vector<DataOutput> outputs(const MatrixShape &shape) const;
    // Equal parameters, both loaded or neither (the values follow from the parameters).
    bool operator==(const TableScheme &o) const
    {
        return source == o.source && tensor == o.tensor && offset == o.offset &&
               bool(table) == bool(o.table);
    }

    // Optional descriptor hooks (EncodingSpec calls them when a scheme has them):
    // loads the table the parameters name, once; false with *error naming the file.
    bool resolve(QString *error);
    // Columns are the table's (positions beyond its rows are a problem(), not clamped).
    void normalizeShape(MatrixShape *shape) const;
};

} // namespace pe
