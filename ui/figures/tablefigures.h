// TableFigures: the Model page's figures of a learned position table (position-position cosine
// similarity, PCA scatter plots coloured by position, per-dimension sinusoid fits) built into a
// QCustomPlot, for the window and the exporter alike, in the manner of SchemeFigures.
#pragma once

#include "compute/tabledata.h"
#include "figures/plottheme.h"
#include "state/figurestate.h"
#include "state/figurestyle.h"
#include "state/figureviews.h"

#include <QString>

#include <optional>

class QCustomPlot;

namespace pe {

class TableFigures
{
public:
    TableFigures(const FigureState &state, const PlotTheme &theme);
    // Where the sinusoid fit's legend goes in an export; unset (the window), under the plot.
    void setLegendPlace(LegendPlace place) { m_legend = place; }

    // One view of the learned table by its builder below: buildTableView (figures/viewfigures.h).
    // cos(PE(p), PE(q)) of the table's positions, matshow style, with a colour scale.
    void buildSimilarity(QCustomPlot *plot, const TableResult &result) const;
    // PC1-PC2 and PC2-PC3 of the position vectors, each point coloured by its position, the
    // explained variance of the top three components in the title and axis labels.
    void buildPca(QCustomPlot *plot, const TableResult &result) const;
    // Above: R² of each dimension's best-fitting sinusoid; below: the chosen dimension's values
    // and its fit A sin(ωp + φ) + c.
    void buildSinusoidFit(QCustomPlot *plot, const TableResult &result) const;

    // "PC1 43.1 %, PC2 20.5 %, PC3 9.8 %"
    static QString varianceText(const PositionPca &pca);

private:
    FigureState m_state; // a copy: builders outlive no state, and need none
    PlotTheme m_theme;
    std::optional<LegendPlace> m_legend;
};

} // namespace pe
