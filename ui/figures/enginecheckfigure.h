// EngineCheckFigure: an inference engine's RoPE table checked against Hugging Face
// (core/rope/enginecheck.h) as a figure, for the window's File > Check engine table and
// `pescope export --view verify` alike: the error per position and pair on a log colour scale,
// the original context marked, the worst cell ringed, the verdict and diagnosis above it.
#pragma once

#include "figures/plottheme.h"
#include "rope/enginecheck.h"
#include "state/figurestate.h"

#include <QString>

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;

namespace pe {

class EngineCheckFigure
{
public:
    EngineCheckFigure(const FigureState &state, const PlotTheme &theme);

    // Handles into the built figure, for the window's hover readout; null without an error map
    // (an attention factor, a table of another width).
    struct Handles
    {
        QCPAxisRect *rect = nullptr;
        QCPColorMap *map = nullptr;
    };
    Handles build(QCustomPlot *plot, const EngineCheck &check) const;

    // The position where the figure draws its context line (the original context of rules that
    // have one, else max_position_embeddings), -1 when it lies beyond the table.
    static qint64 boundary(const EngineCheck &check);
    // What the cursor at (pair, position) in plot coordinates shows: the cell's largest error,
    // and near the worst cell both of its values. Empty outside the grid.
    static QString readout(const EngineCheck &check, double pair, double position);

private:
    FigureState m_state; // a copy: builders outlive no state, and need none
    PlotTheme m_theme;
};

} // namespace pe
