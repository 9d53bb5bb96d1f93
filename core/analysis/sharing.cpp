#include "analysis/sharing.h"

#include <algorithm>
#include <cmath>

namespace pe {

QList<qint64> sharingPositions(const QList<ColumnView> &columns, qint64 position, double tolerance)
{
    QList<qint64> shared;
    if (columns.isEmpty() || std::any_of(columns.begin(), columns.end(),
                                         [](const ColumnView &c) { return !c.isValid(); }))
        return shared;
    const qint64 rows = columns.first().rows;
    if (position < 0 || position >= rows)
        return shared;
    for (qint64 q = 0; q < rows; ++q) {
        if (q == position)
            continue;
        const bool all = std::all_of(columns.begin(), columns.end(), [&](const ColumnView &c) {
            return std::abs(double(c.at(q)) - double(c.at(position))) <= tolerance;
        });
        if (all)
            shared.append(q);
    }
    return shared;
}

} // namespace pe
