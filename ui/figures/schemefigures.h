// SchemeFigures: builds the Schemes page's figures (RoPE spectrum, rotation, decay, position
// similarity, ALiBi and T5 bias heatmaps, compare) into a QCustomPlot, for the window and the
// exporter alike, in the manner of FigureBuilder.
#pragma once

#include "compute/schemedata.h"
#include "figures/plottheme.h"
#include "state/figurestate.h"

#include <QList>
#include <QString>

class QCustomPlot;
class QCPAxisRect;
class QCPLegend;
class QCPColorMap;
class QCPColorScale;
class QCPColorGradient;
class QCPLayoutGrid;
class QCPRange;

namespace pe {

class SchemeFigures
{
public:
    SchemeFigures(const FigureState &state, const PlotTheme &theme);

    // One view of the Schemes page by its builder below: buildSchemeView (figures/viewfigures.h).
    // Wavelength 2 pi / theta_i per pair on a log axis, A and B unscaled and scaled, the
    // original context marked; below, theta scaled / theta original per pair.
    // For longrope both factor sets (the one the positions select solid); for mrope the pairs
    // each position id (t, h, w) turns, as bands.
    void buildSpectrum(QCustomPlot *plot, const SchemeResult &result) const;
    // Unit circles of four pairs with the trail of (cos p theta, sin p theta) up to the chosen
    // position and the vector at it.
    void buildRotation(QCustomPlot *plot, const SchemeResult &result) const;
    // Relative score of all-ones q and k against relative distance, several configurations.
    void buildDecay(QCustomPlot *plot, const SchemeResult &result) const;
    void buildSimilarity(QCustomPlot *plot, const SchemeResult &result) const;
    void buildAlibi(QCustomPlot *plot, const SchemeResult &result) const;
    void buildT5(QCustomPlot *plot, const SchemeResult &result) const;
    // A and B similarity side by side with one colour scale.
    void buildCompare(QCustomPlot *plot, const SchemeResult &result) const;
    // The long-context report of A (result.context): per pair the wavelength unscaled and
    // scaled (log) over the rule's bands, the training and claimed contexts as lines.
    void buildContextPairs(QCustomPlot *plot, const SchemeResult &result) const;
    // Men et al.'s B(m) up to the claimed context, zero, the context and the first negative m.
    void buildContextBaseBound(QCustomPlot *plot, const SchemeResult &result) const;
    // Top: the float32 angle error at the last position per pair (turns, log); bottom: the
    // first bfloat16 / float16 angle collision per pair (log), the claimed context.
    void buildContextPrecision(QCustomPlot *plot, const SchemeResult &result) const;

private:
    // buildSpectrum's top and bottom.
    void drawWavelengths(QCPAxisRect *top, const SchemeResult &result, bool showB) const;
    QList<qint64> markOriginalContexts(QCPAxisRect *top, const SchemeResult &result,
                                       bool showB) const;
    void drawScaleRatios(QCPAxisRect *bottom, const SchemeResult &result, bool showB) const;
    void addMropeSections(QCPAxisRect *rect, QCPLegend *legend, const RopeConfigData &c) const;

    FigureState m_state; // a copy: builders outlive no state, and need none
    PlotTheme m_theme;
};

// A colour bar in `grid` at (row, column), on the right, 80 px wide, labelled: the one style
// every heatmap figure's scale uses (scheme views and learned-table views alike).
QCPColorScale *addScale(QCustomPlot *plot, QCPLayoutGrid *grid, int row, int column,
                        const QCPColorGradient &gradient, const QCPRange &range,
                        const QString &label);

// A square matrix as cells centred on integer positions, key (column j) along x and query (row i)
// down y from the top, as matshow draws it; non-finite cells left empty. The one square heatmap
// of the scheme and learned-table views.
QCPColorMap *addSquareMap(QCPAxisRect *rect, const SquareMatrix &m,
                          const QCPColorGradient &gradient, const QCPRange &range,
                          const QString &keyLabel, const QString &valueLabel);

} // namespace pe
