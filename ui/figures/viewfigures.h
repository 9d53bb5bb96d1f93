// Each view's builder, beside the view list (state/viewlist.h): one line a view, in the list's
// order. The exporter (figurepainter.cpp), the Schemes and Model pages find a view's figure here.
#pragma once

#include "compute/figuredata.h"
#include "figures/figurebuilder.h"
#include "figures/figureoptions.h"

class QCustomPlot;

namespace pe {

class SchemeFigures;
class TableFigures;

// What a builder draws from: the plot, the state's parameters, the computed numbers, the style.
struct ViewPanel
{
    FigureView view;
    QCustomPlot *plot;
    FigureBuilder &builder;
    const FigureState &state;
    const PlotTheme &theme;
    const FigureData &data;
    const FigureOptions &options;
    // The window's plot: its figures may name what a click does there; an exported figure
    // (figurepainter) is not clicked.
    bool window = true;
};

struct ViewFigure
{
    FigureView view;
    // Builds the view into the panel's plot. A heatmap comes back with a one-cell grid (the real
    // one depends on the laid-out size); every other view returns an empty figure.
    HeatmapFigure (*build)(const ViewPanel &panel);
    // The Schemes and Model pages' builders of one figure, as the pages call them.
    void (SchemeFigures::*scheme)(QCustomPlot *, const SchemeResult &) const = nullptr;
    void (TableFigures::*table)(QCustomPlot *, const TableResult &) const = nullptr;
};

const ViewFigure &viewFigure(FigureView view);

// A Schemes page (learned table) view drawn by its `scheme` (`table`) builder above; nothing for
// a view that has none. Here beside the table, not a method of SchemeFigures or TableFigures, so
// that the builders know nothing of the list that names them (tests/layering.py).
void buildSchemeView(FigureView view, const SchemeFigures &figures, QCustomPlot *plot,
                     const SchemeResult &result);
void buildTableView(FigureView view, const TableFigures &figures, QCustomPlot *plot,
                    const TableResult &result);

} // namespace pe
