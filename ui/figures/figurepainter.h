// Paints a figure: the title, the stacked panels each built by FigureBuilder or SchemeFigures
// (their axes lined up), heatmaps sampled for the size they are drawn at, and the caption. The
// FigureExporter turns the painting into PNG, SVG or PDF; it runs on the GUI thread (the builders
// draw into QCustomPlot widgets) and computes nothing but the heatmaps' box filter.
#pragma once

#include "compute/figuredata.h"
#include "figures/figureoptions.h"
#include "state/figurestate.h"

#include <QString>

#include <functional>
#include <utility>

class QCPPainter;
class QCustomPlot;

namespace pe {

// A raster target gets one heatmap value per device pixel; a vector target gets the heatmap's
// cells as an embedded image at full resolution (up to figurelimits::maxEmbeddedCells).
enum class FigureTarget { Raster, Vector };

// The figure's layout size in the window's logical pixels: the requested device pixels at the
// requested DPI, laid out as the screen would at its own DPI.
std::pair<int, int> figureLayoutSize(const FigureOptions &options);

// For animations that paint the still part of a figure once and the moving part per frame
// (issue 13): what to leave out, and a look at each panel's plot after it is built and laid out,
// before it is painted (to hide layers or plottables).
struct FigurePaintHooks
{
    bool background = true;      // fill the figure's background
    bool titleAndCaption = true; // draw them (their room is kept either way)
    std::function<void(int panel, QCustomPlot *plot)> beforePaint;
    // Raster heatmaps drawn by their QCPColorMap, a plottable beforePaint can hide, instead of
    // straight from the sampled grid (the same pixels, faster).
    bool heatmapsAsColorMaps = false;
    // A vector target embeds a heatmap's cells as an image of at most this many cells a side
    // (0: only figurelimits::maxEmbeddedCells in all); larger matrices are sampled down, each
    // image cell the mean of the matrix cells it covers. A lesson's slides bound it.
    qint64 maxEmbeddedSide = 0;
};

// Paints the figure into a painter whose coordinates are the layout size's logical pixels.
// `data` must hold what options.views need; false with *error when the title and caption leave
// no room.
bool paintFigure(QCPPainter *painter, FigureTarget target, const FigureState &state,
                 const FigureData &data, const FigureOptions &options, QString *error,
                 const FigurePaintHooks &hooks = {});

} // namespace pe
