// FigureBuilder: builds each figure (heatmap, waves, phrase grid, phrase difference, token
// similarity) into a QCustomPlot from the state and the compute results. The window's views
// and `pescope export` use the same builders, so an exported figure equals what the window shows.
// One figure a file: heatmapfigure.cpp, wavesfigure.cpp, phrasegridfigure.cpp,
// phrasedifferencefigure.cpp, tokensimilarityfigure.cpp; the legends here (figurebuilder.cpp).
#pragma once

#include "compute/computejobs.h"
#include "figures/plottheme.h"
#include "state/figurestate.h"
#include "state/figurestyle.h"

#include <QList>
#include <QPen>
#include <QString>

#include <optional>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPLegend;
class QCPRange;

namespace pe {

// A legend for `rect`'s plottables, in the plot's font (the figure's, scaled by its font
// scale: QCPLegend starts in the application's), its entries to be added before placeLegend().
QCPLegend *addFigureLegend(QCPAxisRect *rect);
// Moves a legend built in `rect`'s inset layout to `requested`. Unset (the window) it goes in a row
// under the plot, where it never hides the data; Auto goes beside the plot when the legend takes
// at most 30% of the width, else below it. Outside the plot its frame keeps clear of the page's
// edges at any font size.
void placeLegend(QCustomPlot *plot, QCPAxisRect *rect, QCPLegend *legend,
                 std::optional<LegendPlace> requested);
// After the plot is laid out: the entries of a legend wider than its room (the axis rect for a
// legend in a corner, the page for one outside) broken into lines at spaces, and a legend
// outside the plot moved in where the layout's rounding put its frame past the page's edge.
// True when one changed, and the plot must be laid out again.
bool fitLegends(QCustomPlot *plot);

// Handles into a built heatmap, for the view's hit-testing and grid updates.
struct HeatmapFigure
{
    QCPAxisRect *rect = nullptr;
    QCPColorMap *map = nullptr;
    QCPColorScale *scale = nullptr;
    QCPAxis *positionAxis = nullptr; // y unless transposed
    QCPAxis *dimAxis = nullptr;
};

// Plot-coordinate ranges of the heatmap's two axes (cell centres are integers).
struct HeatmapRanges
{
    double positionLower = 0, positionUpper = 0;
    double dimLower = 0, dimUpper = 0;
};

struct PhraseCell
{
    QCPAxisRect *rect = nullptr;
    QCPColorMap *map = nullptr;
    int phrase = 0;
    EmbeddingMode mode = EmbeddingMode::Fixed;
};

// The heatmap rows the overlay lines of `dims` are drawn at: each dim's own row, except that a
// dim within two rows of an earlier one is drawn two rows past it (two before it when that
// would pass the last of `rowCount` rows), so both lines show (Fig 16-9).
QList<double> overlayRows(const QList<qint64> &dims, qint64 rowCount);

// How a HeatmapGrid lies on a colour map's key and value axes: cell counts (a single row or
// column doubled, as QCPColorMap needs two cells per axis) and the cells' centre ranges.
struct HeatmapGridCells
{
    qint64 keyCells = 0, valueCells = 0;   // the grid's
    int keySize = 0, valueSize = 0;        // the colour map's: at least 2 each
    double keyLower = 0, keyUpper = 0;     // centres of the first and last key cells
    double valueLower = 0, valueUpper = 0; // ... and value cells
    bool transposed = false; // keys are the grid's rows (positions), values its columns
    float value(const HeatmapGrid &grid, int key, int value) const
    {
        const qint64 k = qMin<qint64>(key, keyCells - 1);
        const qint64 v = qMin<qint64>(value, valueCells - 1);
        return transposed ? grid.at(k, v) : grid.at(v, k);
    }
};
HeatmapGridCells heatmapGridCells(const HeatmapGrid &grid, bool transposed);

// The property that marks the waves figure's plottables drawn at the first marker (its dashed
// line and its dots): what `--animate position` moves, so that an animation paints the rest once.
inline constexpr char firstMarkerProperty[] = "peFirstMarker";

class FigureBuilder
{
public:
    FigureBuilder(const FigureState &state, const PlotTheme &theme);

    // The window draws its interaction marks (the selected cell's outline and ring, the selected
    // dim's wave, the clicked token's outline); exports only when FigureStyle::showSelection.
    void setShowSelection(bool show) { m_showSelection = show; }
    // Where the waves' legend goes in an export. Unset (the window), it goes in a row under the
    // plot: beside it, the waves' x axis would be narrower than the heatmap's below it, and
    // inside it hid the curves.
    void setLegendPlace(LegendPlace place) { m_legend = place; }
    // The phrase grid's colour scales: per row (the window, the seed), per plot or shared.
    void setColorbarPlace(ColorbarPlace place) { m_colorbar = place; }
    // The dims the waves and the heatmap's overlay lines show: the wave dims, plus the selected
    // dim when the selection is shown (or when there are no wave dims, so a plot is never empty).
    QList<qint64> plottedDims() const;

    // matshow: row 0 at the top, a labelled colorbar, the state's colormap, transpose, dim limit.
    // Overlays: wave dims as lines, dashed markers with dots, the selected cell outlined.
    // `ranges` keeps a zoomed view; without it the whole (dim-limited) matrix is shown.
    HeatmapFigure buildHeatmap(QCustomPlot *plot, const EncodingResult &result,
                               const HeatmapGrid &grid,
                               const std::optional<HeatmapRanges> &ranges = std::nullopt) const;
    // Replaces only the colour map's data (a new viewport grid for the same matrix).
    void setHeatmapGrid(const HeatmapFigure &figure, const HeatmapGrid &grid) const;
    HeatmapRanges fullHeatmapRanges(const EncodingSpec &spec) const;

    // Values of the plotted dims against position, markers, dots, crosses, the selection.
    void buildWaves(QCustomPlot *plot, const EncodingResult &result) const;
    // "p = 22 shares its values in i = 100, 101 (within 0.01) with p = 60, 98, ..."
    QString shareReadout(const EncodingResult &result) const;

    // Two rows (random, fixed) x one column per phrase, a shared colour scale per row.
    QList<PhraseCell> buildPhraseGrid(QCustomPlot *plot, const PhraseResult &result) const;
    // Phrase B minus phrase A, for the random and the fixed embedding (RdBu, symmetric).
    QList<PhraseCell> buildPhraseDifference(QCustomPlot *plot, const PhraseResult &result) const;
    // Cosine similarity of the clicked token to every token of the other phrase.
    void buildTokenSimilarity(QCustomPlot *plot, const PhraseResult &result) const;
    // Which phrase the clicked token is compared with (B, or A when B itself was clicked).
    int otherPhrase() const;

    static QString tokenLabel(const PhraseResult &result, int phrase, qint64 token);

private:
    // The dashed pen of marker line `index` (the first solid black, the later ones faded).
    QPen markerPen(int index) const;

    FigureState m_state; // a copy: builders outlive no state, and need none
    PlotTheme m_theme;
    bool m_showSelection = true;
    std::optional<LegendPlace> m_legend;
    ColorbarPlace m_colorbar = ColorbarPlace::PerRow;
};

} // namespace pe
