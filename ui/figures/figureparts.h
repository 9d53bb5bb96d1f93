// The pieces the figure builders share (heatmapfigure.cpp, wavesfigure.cpp, phrasegridfigure.cpp,
// phrasedifferencefigure.cpp, tokensimilarityfigure.cpp, attentionfigures.cpp, layerfigures.cpp):
// matshow axes and cell maps, titles, colour scales, outlines, and what a capped phrase figure
// leaves out.
#pragma once

#include "state/colormaps.h"
#include "state/explorervalues.h"

#include <QString>

#include <functional>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPColorGradient;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPLayoutGrid;
class QCPRange;
class QPen;

namespace pe {

class FittedTextElement;

// matplotlib-style ticks: outward, no minor ticks, no grid (matshow).
void matshowAxis(QCPAxis *axis, bool labels);
// A title whose lines are elided to the width its column gets (fittedtext.h): a long title
// never widens its column past the figure.
FittedTextElement *addTitle(QCustomPlot *plot, QCPLayoutGrid *grid, int row, int column,
                            const QString &text, double pointSizeDelta, bool bold);
QCPColorScale *addColorScale(QCustomPlot *plot, QCPLayoutGrid *grid, int row, int column,
                             Colormap map, const ColorRange &range, const QString &label);
// A matshow cell plot: columns on the top axis, rows down the left axis, row 0 at the top.
// The first drawn row is matrix row `rowStart`; the `cols` drawn columns cover `colSpan` matrix
// columns evenly (more than `cols`: sampled, see sampledIndex). value(r, k) takes drawn indices.
QCPColorMap *addMatrixMap(QCPAxisRect *rect, qint64 rows, qint64 cols, Colormap map,
                          const ColorRange &range,
                          const std::function<float(qint64, qint64)> &value, qint64 rowStart = 0,
                          qint64 colSpan = 0);
// A rows x cols heatmap on the bottom and left axes of `rect`, row 0 at the top, cells centred
// on whole numbers, no grid lines (the Phrases page's attention and layer figures). cell(r, c)
// is the colour map's value for row r, column c.
QCPColorMap *addCellMap(QCPAxisRect *rect, qint64 rows, qint64 cols,
                        const QCPColorGradient &gradient, const QCPRange &range,
                        const std::function<double(qint64, qint64)> &cell);
// The matrix index drawn cell k of `drawn` cells shows when they cover `span` indices: the one
// at the cell's centre (nearest-neighbour sampling; k itself when drawn == span).
qint64 sampledIndex(qint64 k, qint64 drawn, qint64 span);
// "Phrases 9–16 of 40 · tokens 257–512 of 1000 · every 2nd of 1024 dims": what a capped phrase
// figure leaves out; empty when it draws everything.
QString phraseWindowNote(const PhraseWindow &w, const PhraseSettings &s, bool phrases);
QCPItemRect *addOutline(QCPAxisRect *rect, QCPAxis *keyAxis, QCPAxis *valueAxis, double k0,
                        double v0, double k1, double v1, const QPen &pen);
// `text` cut to `length` characters, the last an ellipsis.
QString shortText(const QString &text, int length);

} // namespace pe
