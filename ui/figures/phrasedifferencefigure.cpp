#include "figures/figurebuilder.h"

#include "analysis/phraseanalysis.h"
#include "figures/figureparts.h"
#include "figures/fittedtext.h"
#include "state/colormaps.h"

#include "figures/qcpinclude.h"

#include <limits>

namespace pe {

QList<PhraseCell> FigureBuilder::buildPhraseDifference(QCustomPlot *plot,
                                                       const PhraseResult &result) const
{
    resetFigure(plot, m_theme);
    QList<PhraseCell> cells;
    const PhraseSettings &s = result.settings;
    const int a = m_state.compareA(), b = m_state.compareB();
    if (a >= s.phrases.size() || b >= s.phrases.size())
        return cells;
    const PhraseWindow w = m_state.phrasePage().window(s);
    const qint64 dims = s.dims;
    const qint64 drawnDims = w.drawnDims();
    auto *main = plot->plotLayout();
    // Two lines, each elided to the panel: one long line overran a narrow panel on both sides.
    addTitle(plot, main, 0, 0,
             QStringLiteral("Difference: %1 − %2\n(grey rows: padding in both)")
                 .arg(s.title(b), s.title(a)),
             1.5, true);
    auto *sub = new QCPLayoutGrid;
    main->addElement(1, 0, sub);
    main->setRowStretchFactor(0, 0.01);
    int column = 0;
    for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        const PhraseDifference difference =
            phraseDifference(result.embedding(mode), a, b, w.firstToken, w.tokens());
        const double extent = difference.extent;
        // Rows where both phrases are padding differ by exactly 0 and say nothing: they are
        // masked (the theme's grid colour) instead of a white block, glaring in the dark theme.
        const std::vector<qint64> &idsA = result.embedding(mode).ids[std::size_t(a)];
        const std::vector<qint64> &idsB = result.embedding(mode).ids[std::size_t(b)];
        const auto value = [&](qint64 r, qint64 k) {
            const std::size_t token = std::size_t(w.firstToken + r);
            if (token < idsA.size() && token < idsB.size() && idsA[token] == 0 && idsB[token] == 0)
                return std::numeric_limits<float>::quiet_NaN();
            return difference.at(w.firstToken + r, sampledIndex(k, drawnDims, dims));
        };
        addTitle(plot, sub, 0, column,
                 mode == EmbeddingMode::Random ? QStringLiteral("random") : QStringLiteral("fixed"),
                 0.5, false);
        auto *rect = new QCPAxisRect(plot, true);
        sub->addElement(1, column, rect);
        // Signed data: RdBu, centred on zero.
        QCPColorMap *map = addMatrixMap(rect, w.tokens(), drawnDims, Colormap::RdBu,
                                        {-extent, extent}, value, w.firstToken, dims);
        // Two heatmaps with their colour bars side by side under a title (see the grid).
        useIntegerTicks(rect->axis(QCPAxis::atLeft), 1.0, 6);
        useIntegerTicks(rect->axis(QCPAxis::atTop), 0.3);
        QCPColorGradient masked = map->gradient();
        masked.setNanHandling(QCPColorGradient::nhNanColor);
        masked.setNanColor(m_theme.grid);
        map->setGradient(masked);
        cells.append({rect, map, b, mode});
        addColorScale(plot, sub, 1, column + 1, Colormap::RdBu, {-extent, extent}, QString());
        sub->setColumnStretchFactor(column + 1, 0.01);
        column += 2;
    }
    sub->setRowStretchFactor(0, 0.01);
    if (const QString note = phraseWindowNote(w, s, false); !note.isEmpty()) {
        addTitle(plot, main, 2, 0, note, 0.0, false);
        main->setRowStretchFactor(2, 0.01);
    }
    applyPlotTheme(plot, m_theme);
    return cells;
}

} // namespace pe
