// TableData: the numbers behind the learned-table views (position-position cosine similarity,
// PCA of the position vectors, each dimension's best-fitting sinusoid) as one job: a spec whose
// scheme is a loaded TableScheme in, a TableResult out. The ComputeScheduler runs it on its
// worker; `pescope export` calls it on its own thread. The formulas are core's
// (analysis/positionanalysis).
#pragma once

#include "compute/computejobs.h" // JobStatus, CancelCheck
#include "compute/schemedata.h"  // SquareMatrix

#include "analysis/positionanalysis.h"
#include "encodingspec.h"

#include <QMetaType>
#include <QString>

#include <memory>
#include <vector>

namespace pe {

struct PositionTable;

namespace limits {
// The similarity view's side: the first this many positions (GPT-2's 1024 fit whole).
constexpr qint64 maxTableSimilarity = 2048;
} // namespace limits

struct TableInputs
{
    EncodingSpec spec; // a TableScheme, loaded
    qint64 dim = 0;    // the dimension whose data and fit are drawn
    bool operator==(const TableInputs &o) const;
};

struct TableResult
{
    TableInputs inputs;
    std::shared_ptr<const PositionTable> table;
    qint64 positions = 0;    // rows analysed (from the table's offset)
    SquareMatrix similarity; // cosine of the first min(positions, maxTableSimilarity) positions
    PositionPca pca;         // up to three components over every position analysed
    std::vector<SinusoidFit> fits; // one per dimension
    std::vector<double> column;    // inputs.dim's values over the positions
    double totalMs = 0;
};

// The inputs the learned-table views need from a spec and a chosen dimension; the dimension is
// clamped into the table.
TableInputs tableInputs(const EncodingSpec &spec, qint64 dim);
// Empty when `spec` holds a loaded table; else why the views cannot show it.
QString tableProblem(const EncodingSpec &spec);

// Failed with *error when the spec is no loaded table; Cancelled when `cancel` says stop.
JobStatus computeTableData(const TableInputs &inputs, const CancelCheck &cancel,
                           TableResult *result, QString *error);
bool tableResultMatches(const TableResult &result, const TableInputs &inputs);

} // namespace pe

Q_DECLARE_METATYPE(std::shared_ptr<const pe::TableResult>)
