#include "compute/tabledata.h"

#include "backends/parallel.h"
#include "model/positiontable.h"
#include "schemes/tablescheme.h"

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace pe {

namespace {

const TableScheme *loadedTable(const EncodingSpec &spec)
{
    const TableScheme *scheme = spec.get<TableScheme>();
    return scheme && scheme->table ? scheme : nullptr;
}

} // namespace

bool TableInputs::operator==(const TableInputs &o) const
{
    const TableScheme *a = spec.get<TableScheme>();
    const TableScheme *b = o.spec.get<TableScheme>();
    // The same parameters may name a file read again since: the loaded values decide.
    const bool sameTable = (!a && !b) || (a && b && a->table == b->table);
    return spec == o.spec && sameTable && dim == o.dim;
}

QString tableProblem(const EncodingSpec &spec)
{
    if (!spec.get<TableScheme>())
        return QStringLiteral("the learned-table views show a model's position table: open a "
                              "model that has one (File > Open model, or --model)");
    if (!loadedTable(spec))
        return QStringLiteral("the position table is not loaded: open the model again");
    return {};
}

TableInputs tableInputs(const EncodingSpec &spec, qint64 dim)
{
    TableInputs inputs{spec, 0};
    if (const TableScheme *t = loadedTable(spec))
        inputs.dim = std::clamp<qint64>(dim, 0, std::max<qint64>(0, t->table->columns - 1));
    return inputs;
}

JobStatus computeTableData(const TableInputs &inputs, const CancelCheck &cancel,
                           TableResult *result, QString *error)
{
    if (const QString problem = tableProblem(inputs.spec); !problem.isEmpty()) {
        *error = problem;
        return JobStatus::Failed;
    }
    QElapsedTimer clock;
    clock.start();
    const std::shared_ptr<const PositionTable> table = loadedTable(inputs.spec)->table;
    const qint64 n = std::min(inputs.spec.positions, table->positions());
    const qint64 dims = table->columns;
    if (n < 2 || dims < 1) {
        *error = QStringLiteral("the table has %1 positions of %2 dims: the analyses need at "
                                "least 2 positions")
                     .arg(n)
                     .arg(dims);
        return JobStatus::Failed;
    }
    result->inputs = inputs;
    result->table = table;
    result->positions = n;

    const qint64 side = std::min(n, limits::maxTableSimilarity);
    SquareMatrix &s = result->similarity;
    s.size = side;
    s.values.resize(std::size_t(side * side));
    // In blocks of rows, so a cancel is honoured promptly.
    for (qint64 first = 0; first < side; first += 128) {
        if (cancel && cancel())
            return JobStatus::Cancelled;
        const qint64 count = std::min<qint64>(128, side - first);
        positionCosineRows(table->row(0), side, dims, first, count, s.values.data() + first * side);
    }
    const auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    s.minimum = *lo;
    s.maximum = *hi;

    if (cancel && cancel())
        return JobStatus::Cancelled;
    result->pca = positionPca(table->row(0), n, dims, int(std::min<qint64>({3, n, dims})));

    // The fits are independent per dimension: one block of dims per core (GPT-2 has 768).
    result->fits.assign(std::size_t(dims), SinusoidFit{});
    std::atomic<bool> stopped = false;
    parallelFor(0, dims, hardwareThreads(), 8, [&](qint64 begin, qint64 end) {
        for (qint64 j = begin; j < end && !stopped; ++j) {
            if (j % 8 == 0 && cancel && cancel())
                stopped = true;
            else
                result->fits[std::size_t(j)] = fitSinusoid(table->row(0) + j, n, dims);
        }
    });
    if (stopped)
        return JobStatus::Cancelled;
    result->column.resize(std::size_t(n));
    for (qint64 p = 0; p < n; ++p)
        result->column[std::size_t(p)] = double(table->row(p)[inputs.dim]);
    result->totalMs = double(clock.nsecsElapsed()) / 1e6;
    return JobStatus::Done;
}

bool tableResultMatches(const TableResult &result, const TableInputs &inputs)
{
    return result.inputs == inputs;
}

} // namespace pe
