#include "state/viewoptions.h"

namespace pe {

FieldTable<ViewOptions> ViewOptions::fields()
{
    using S = ViewOptions;
    static const Field<S> table[] = {
        {.key = "colormap",
         .flag = "colormap",
         .label = "Colormap",
         .help = "The heatmap's colours, matplotlib's tables.",
         .kind = choiceKind<&S::colormap>(colormapNames)},
        {.key = "transposed",
         .flag = "transpose",
         .label = "Transpose",
         .help = "Heatmap with dims on the y axis (Fig 16-9).",
         .kind = BoolKind<S>{&S::transposed}},
        {.key = "origin",
         .flag = "origin",
         .label = "Row 0 at",
         .help = "The heatmap's row 0 at the top (upper, as matshow) or the bottom (lower).",
         .kind = choiceKind<&S::origin>(originNames)},
        {.key = "heatmapDimLimit",
         .flag = "crop-dims",
         .label = "First dims",
         .help = "The heatmap shows the first N dims only (0: all).",
         .kind = IntegerKind<S>{&S::heatmapDimLimit, {0, limits::maxDims}}},
        {.key = "waveDims",
         .flag = "mark-dims",
         .label = "Wave dims",
         .help = "Dims drawn as waves against position, e.g. 100,101.",
         .kind = IntegerListKind<S>{&S::waveDims, {0, limits::maxDims - 1}, limits::maxWaveDims}},
        {.key = "markers",
         .flag = "mark-positions",
         .label = "Markers",
         .help = "Positions marked with dashed lines and dots, e.g. 22,60.",
         .kind =
             IntegerListKind<S>{&S::markers, {0, limits::maxPositions - 1}, limits::maxMarkers}},
        {.key = "crosses",
         .flag = "cross",
         .label = "Crosses",
         .help = "Crosses on the waves, P@D (P alone: on the first wave dim), e.g. 35@100.",
         .kind = CrossListKind<S>{&S::crosses, limits::maxMarkers}},
        {.key = "shareTolerance",
         .flag = "share-tolerance",
         .label = "Share tolerance",
         .help = "Positions whose values in the wave dims lie this close share them.",
         .kind = RealKind<S>{&S::shareTolerance, {0.0, 2.0}}},
        {.key = "selection",
         .flag = "select",
         .label = "Selected cell",
         .help = "The selected cell, outlined in the figures, P@D.",
         .kind = CellKind<S>{&S::selection}},
    };
    return table;
}

FieldProblem ViewOptions::problem(const EncodingSpec &spec) const
{
    if (FieldProblem p = rangeProblem(fields(), *this))
        return p;
    for (qint64 d : waveDims)
        if (d >= spec.dims)
            return {QStringLiteral("waveDims"),
                    QStringLiteral("holds dim %1, outside the matrix (dims 0 to %2)")
                        .arg(d)
                        .arg(spec.dims - 1)};
    for (qint64 p : markers)
        if (p >= spec.positions)
            return {QStringLiteral("markers"),
                    QStringLiteral("holds position %1, outside the matrix (positions 0 to %2)")
                        .arg(p)
                        .arg(spec.positions - 1)};
    for (const CrossMarker &c : crosses)
        if (c.position >= spec.positions || c.dim >= spec.dims)
            return {QStringLiteral("crosses"),
                    QStringLiteral("holds %1, outside the matrix (positions 0 to %2, dims 0 to %3)")
                        .arg(fieldvalue::formatCross(c))
                        .arg(spec.positions - 1)
                        .arg(spec.dims - 1)};
    return {};
}

ViewOptions ViewOptions::resolved(const EncodingSpec &spec) const
{
    ViewOptions v = *this;
    const qint64 dim = v.waveDims.isEmpty() ? v.selection.dim : v.waveDims.constFirst();
    for (CrossMarker &c : v.crosses)
        if (c.dim < 0)
            c.dim = dim;
    v.selection = {qBound<qint64>(0, v.selection.position, spec.positions - 1),
                   qBound<qint64>(0, v.selection.dim, spec.dims - 1)};
    return v;
}

} // namespace pe
