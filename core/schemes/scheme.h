// What every scheme descriptor provides. A scheme is one struct in core/schemes/: its members are
// its parameters (with their defaults), and it has
//   static constexpr SchemeInfo info;            id, label, one-line description
//   static FieldTable<S> fields();               its parameter table (field.h)
//   FieldProblem problem(MatrixShape) const;     rules beyond each field's own range
//   MatrixPlan plan(MatrixShape) const;          how a backend computes its matrix
//   ValueRange valueRange(MatrixShape) const;    bounds of every value, known before computing
//   SchemeAxes axes() const;                     what rows and columns are
//   ColumnInfo column(qint64, MatrixShape) const; "i = 100 (sin)", drawn dashed or not
//   QString caption(MatrixShape) const;          one line for figure captions
//   QString legend() const;                      a short name in legends ("learned (seed 3)")
//   QString formula(MatrixShape) const;          its formula with its parameters (HTML, for F1)
//   QString cellFormula(qint64 p, qint64 j, double value, MatrixShape) const;
//                                                one cell's formula with its numbers, one plain
//                                                line (the heatmap's hover readout)
//   std::vector<DataOutput> outputs(MatrixShape) const;   arrays `pescope data --what` writes
//   bool operator==(const S &) const = default;
// schemelist.h names every scheme once; nothing else needs to know a scheme exists.
#pragma once

#include "backends/phasekernels.h"
#include "fields/field.h"
#include "fields/fieldvalue.h"
#include "io/matrixwriter.h"

#include <QString>

#include <functional>
#include <variant>
#include <vector>

namespace pe {

struct SchemeInfo
{
    const char *id;              // command line, sessions: "sinusoidal"
    const char *label;           // menus: "Sinusoidal (Vaswani et al.)"
    const char *description;     // its help: one sentence for --help, tooltips and F1
    bool usesDims = true;        // false: the matrix is positions x positions (bias schemes)
    const char *alias = nullptr; // an older name still read (sessions, --scheme), or none
    // What the Model page says, instead of drawing, for a model layer with this scheme, where it
    // has nothing to draw (NoPE); null: the page draws it.
    const char *modelNotice = nullptr;
};

// The matrix a spec describes: `positions` rows; `dims` columns unless the scheme's columns are
// positions too (SchemeInfo::usesDims false: then columns == positions).
struct MatrixShape
{
    qint64 positions = 0;
    qint64 dims = 0;
};

// How a backend computes a scheme's matrix, row by row (rows are positions).
// Column j of row p is sin(2 pi (p * step_j + offset_j) / 2^64), exact in fixed point
// (phasekernels.h): sinusoids, RoPE's cos/sin table, and all-zero columns (step = offset = 0).
struct PhaseColumnsPlan
{
    std::vector<kernels::ColumnPhase> columns;
};
// Keras' default Embedding initialiser, uniform in [-0.05, 0.05), from a counter-based hash of
// (seed, row, column): any cell can be computed alone, on any backend.
struct HashedUniformPlan
{
    quint64 seed = 0;
};
// A formula evaluated on the CPU, `columns` floats per row (bias matrices). Thread-safe.
struct RowsPlan
{
    qint64 columns = 0;
    std::function<void(qint64 firstRow, qint64 rowCount, float *out)> fill;
};
using MatrixPlan = std::variant<PhaseColumnsPlan, HashedUniformPlan, RowsPlan>;

inline qint64 planColumns(const MatrixPlan &plan)
{
    return std::visit(Overloaded{[](const PhaseColumnsPlan &p) { return qint64(p.columns.size()); },
                                 [](const HashedUniformPlan &) { return qint64(-1); },
                                 [](const RowsPlan &p) { return p.columns; }},
                      plan);
}

// Bounds every value of the matrix lies within (colour scales before the data is seen, and
// views that never hold the whole matrix). Masked entries (-inf) are outside.
struct ValueRange
{
    double minimum = -1.0;
    double maximum = 1.0;
};

struct SchemeAxes
{
    QString rows = QStringLiteral("position p");
    QString columns = QStringLiteral("dimension i");
    QString values = QStringLiteral("embedding value");
    // The value range is what figures scale to (the sinusoid's [-1, 1] spans every column);
    // false: scale to the data.
    bool scaleToValueRange = false;
};

// One column as figures name it: its legend label, and whether it is a cosine (drawn dashed).
struct ColumnInfo
{
    QString label;
    bool cosine = false;
};

// One array `pescope data --what NAME` writes. The first output of a scheme is its default.
struct DataOutput
{
    QString name; // "matrix", "inv-freq", "slopes"
    QString help;
    ElementType type = ElementType::Float32;
    std::vector<qint64> shape; // C order; rows are the last axis
    // Rows of the flattened array (all axes but the last); null: the scheme's matrix, computed
    // by the chosen backend. Small outputs (frequencies, slopes) come from the CPU.
    std::function<void(qint64 firstRow, qint64 rowCount, void *out)> rows;
    bool usesPositions = true; // --positions means something for this output
};

// The rows function of a matrix-shaped output computed by the plan on the CPU.
inline DataOutput matrixOutput(const MatrixShape &shape, qint64 columns)
{
    DataOutput out;
    out.name = QStringLiteral("matrix");
    out.help = QStringLiteral("the positions x columns float32 matrix");
    out.shape = {shape.positions, columns};
    return out;
}

} // namespace pe
