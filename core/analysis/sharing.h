// Which positions share a position's values: Fig 16-9 marks p = 22 and p = 60, whose values in
// dims 100 and 101 agree although they are 38 positions apart.
#pragma once

#include <QList>
#include <QtGlobal>

namespace pe {

// One column of an encoding matrix (every position of one dim), wherever it lives: at(p) for p in
// [0, rows), `stride` floats apart (a column of a row-major matrix, or a column of its own).
struct ColumnView
{
    const float *data = nullptr;
    qint64 rows = 0;
    qint64 stride = 1;
    bool isValid() const { return data != nullptr; }
    float at(qint64 p) const { return data[std::size_t(p * stride)]; }
};

// Positions q != position whose value in every column lies within `tolerance` of position's
// value there, ascending. Empty when there are no columns, one is invalid, or position is out of
// range; the columns must have the same number of rows.
QList<qint64> sharingPositions(const QList<ColumnView> &columns, qint64 position, double tolerance);

} // namespace pe
