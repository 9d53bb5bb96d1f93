// The numbers behind a figure, as .npy or .csv through core's MatrixWriter (File → Export data
// of the current view, and `pescope export --out FILE.npy|FILE.csv`).
#pragma once

#include "compute/figuredata.h"

#include <QString>

#include <vector>

namespace pe {

// A view's numbers: one array of `shape`, C order (what each view's data function fills).
struct ViewArray
{
    std::vector<qint64> shape;
    std::vector<float> values;
};

// Whether `view` exports its numbers (File → Export data, `pescope data --view`).
bool hasViewData(FigureView view);
// What writeViewData() writes for `view` (its entry's dataShape).
QString viewDataDescription(FigureView view);
// Why `view` has no data export (a figure only), naming what to use instead; empty when it has.
QString noDataExport(FigureView view);

// heatmap: the shown matrix (positions x visible dims; dims x positions when transposed);
// waves: positions x (1 + plotted dims), column 0 the position p; phrases: 2 x phrases x L x D,
// random then fixed; phrase-difference: 2 x L x D (B - A), token-similarity: 2 x L cosines.
// Atomic: a failure leaves no file.
bool writeViewData(const FigureState &state, const FigureData &data, FigureView view,
                   const QString &path, QString *error, const ViewChoices &choices = {});

} // namespace pe
