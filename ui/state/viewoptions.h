// The encoding page's view options (heatmap look, waves, markers, crosses, the selected cell),
// one struct with one field table: sessions, `pescope export` options and the window's forms
// all derive from it.
#pragma once

#include "encodingspec.h"
#include "state/colormaps.h"

namespace pe {

namespace limits {
constexpr qint64 maxWaveDims = 8;
constexpr qint64 maxMarkers = 16;
} // namespace limits

// matplotlib's imshow origin: row 0 at the top (matshow) or at the bottom (Fig 16-9 in the book).
enum class Origin { Upper, Lower };
inline constexpr ChoiceName originNames[] = {
    choice(Origin::Upper, "upper", "Top (matshow)", "top"),
    choice(Origin::Lower, "lower", "Bottom (Fig 16-9)", "bottom"),
};

using Selection = MatrixCell;
using CrossMarker = MatrixCell;

struct ViewOptions
{
    Colormap colormap = Colormap::Viridis;
    bool transposed = false;
    // Where the heatmap's first row (position 0, or dim 0 when transposed) is drawn.
    Origin origin = Origin::Upper;
    // Heatmap shows only the first N dims (Fig 16-9 crops to 150); 0 shows all.
    qint64 heatmapDimLimit = 0;
    QList<qint64> waveDims{20, 21};
    QList<qint64> markers;
    QList<CrossMarker> crosses;
    double shareTolerance = 0.01;
    Selection selection{50, 20};

    static FieldTable<ViewOptions> fields();
    // Markers, crosses and wave dims inside `spec`'s matrix.
    FieldProblem problem(const EncodingSpec &spec) const;
    // Crosses written "P" (dim -1) placed on the first wave dim, else the selected dim; the
    // selection clamped into the matrix.
    ViewOptions resolved(const EncodingSpec &spec) const;
    bool operator==(const ViewOptions &) const = default;
};

} // namespace pe
