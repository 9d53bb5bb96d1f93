// LayerFigures: the Phrases page's layer views (compute/forwardviewdata.h) built into a
// QCustomPlot, for the window and the exporter alike: the attention grid (every layer x head as
// small multiples, or one layer's head enlarged), attention by distance and the RoPE frequency
// atlas (one row per layer.head), sinks (layers x heads), hidden-state norms (layers x tokens,
// each layer's largest activation named) and the position probe's curve over the layers.
#pragma once

#include "compute/forwardviewdata.h"
#include "figures/plottheme.h"
#include "state/figurestate.h"

#include <optional>
#include <utility>

class QCustomPlot;

namespace pe {

class LayerFigures
{
public:
    // `window`: the figure is the window's, so its title may say what a click on it does.
    LayerFigures(const FigureState &state, const PlotTheme &theme, bool window = false);

    // Every layer (rows) x head (columns), each tile that head's tokens x tokens attention
    // (pooled to at most gridTile cells a side); layer >= 0 with head >= 0: that one enlarged,
    // and with an ablation in the result, beside it ablated and the difference.
    void buildAttentionGrid(QCustomPlot *plot, const ForwardViewResult &result, int layer,
                            int head) const;
    void buildDistanceProfiles(QCustomPlot *plot, const ForwardViewResult &result) const;
    void buildFrequencyAtlas(QCustomPlot *plot, const ForwardViewResult &result) const;
    void buildSinks(QCustomPlot *plot, const ForwardViewResult &result) const;
    void buildHiddenNorms(QCustomPlot *plot, const ForwardViewResult &result) const;
    void buildPositionProbe(QCustomPlot *plot, const ForwardViewResult &result) const;

    // The cells a grid tile has a side at most (longer phrases are mean-pooled to it).
    static constexpr qint64 gridTile = 48;
    // The (layer, head) of the grid's tile at plot coordinates (x, y); nullopt between tiles
    // or outside them.
    static std::optional<std::pair<int, int>> gridCell(const ForwardViewResult &result, double x,
                                                       double y);

private:
    FigureState m_state; // a copy: builders outlive no state, and need none
    PlotTheme m_theme;
    bool m_window = false;
};

} // namespace pe
