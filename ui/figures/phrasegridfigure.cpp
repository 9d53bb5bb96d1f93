#include "figures/figurebuilder.h"

#include "figures/figureparts.h"
#include "figures/fittedtext.h"
#include "state/colormaps.h"

#include "figures/qcpinclude.h"

#include <QLocale>

#include <limits>
#include <optional>

namespace pe {

namespace {

// "Phrase 1 cut to its first 20 of 1,666 tokens": the phrases of the page that the sequence length
// truncated (Keras keeps the first output_sequence_length tokens); empty when none was.
QString truncationNote(const PhraseResult &result, const PhraseWindow &w)
{
    const std::vector<qint64> &counts = result.fixed.tokenCounts;
    const qint64 length = result.settings.sequenceLength;
    QStringList cut;
    qint64 more = 0;
    for (qint64 b = w.firstPhrase; b < w.endPhrase && b < qint64(counts.size()); ++b) {
        if (counts[std::size_t(b)] <= length)
            continue;
        if (cut.size() == 2) {
            ++more;
            continue;
        }
        cut.append(QStringLiteral("%1 cut to its first %2 of %3 tokens")
                       .arg(shortText(result.settings.title(int(b)), 24))
                       .arg(length)
                       .arg(QLocale(QLocale::English).toString(counts[std::size_t(b)])));
    }
    if (cut.isEmpty())
        return {};
    QString text = cut.join(QStringLiteral(" · "));
    if (more > 0)
        text += QStringLiteral(" · %1 more cut").arg(more);
    return text + QStringLiteral(" (sequence length %1)").arg(length);
}

} // namespace

QList<PhraseCell> FigureBuilder::buildPhraseGrid(QCustomPlot *plot,
                                                 const PhraseResult &result) const
{
    resetFigure(plot, m_theme);
    QList<PhraseCell> cells;
    const PhraseSettings &s = result.settings;
    // One page of phrases and tokens, the dims sampled: the cost is bounded by the figure.
    const PhraseWindow w = m_state.phrasePage().window(s);
    const int phrases = int(w.phrases());
    const qint64 length = s.sequenceLength;
    const qint64 dims = s.dims;
    const qint64 drawnDims = w.drawnDims();
    const EmbeddingMode modes[] = {EmbeddingMode::Random, EmbeddingMode::Fixed};
    const auto valueAt = [&](EmbeddingMode mode, qint64 b, qint64 r, qint64 k) {
        return result.embedding(mode).values[std::size_t((b * length + w.firstToken + r) * dims +
                                                         sampledIndex(k, drawnDims, dims))];
    };
    // The value range of one plot (phrase b; all phrases when b < 0), of one mode or both.
    const auto rangeOf = [&](std::optional<EmbeddingMode> mode, qint64 b) {
        float mn = std::numeric_limits<float>::infinity(), mx = -mn;
        for (EmbeddingMode m : modes) {
            if (mode && m != *mode)
                continue;
            for (qint64 p = b < 0 ? w.firstPhrase : b; p < (b < 0 ? w.endPhrase : b + 1); ++p)
                for (qint64 r = 0; r < w.tokens(); ++r)
                    for (qint64 k = 0; k < drawnDims; ++k) {
                        mn = qMin(mn, valueAt(m, p, r, k));
                        mx = qMax(mx, valueAt(m, p, r, k));
                    }
        }
        return colorRangeFor(mn, mx);
    };
    const ColorRange shared =
        m_colorbar == ColorbarPlace::Shared ? rangeOf(std::nullopt, -1) : ColorRange{0, 1};
    // Shared: the rows in a grid of their own, one bar beside all of them.
    auto *main = plot->plotLayout();
    QCPLayoutGrid *body = main;
    if (m_colorbar == ColorbarPlace::Shared) {
        body = new QCPLayoutGrid;
        main->addElement(0, 0, body);
        QCPColorScale *scale =
            addColorScale(plot, main, 0, 1, m_state.colormap(), shared, QString());
        scale->axis()->axisRect()->setMinimumMargins(QMargins(0, 0, 64, 0));
        main->setColumnStretchFactor(1, 0.01);
    }
    auto *group = new QCPMarginGroup(plot);
    // Each colour bar shares its row's top and bottom margins: as tall as the plots.
    const PhraseSelection sel = m_state.phraseSelection();
    const bool perPlot = m_colorbar == ColorbarPlace::PerPlot;
    int row = 0;
    for (EmbeddingMode mode : modes) {
        auto *rowGroup = new QCPMarginGroup(plot);
        const ColorRange rowRange =
            m_colorbar == ColorbarPlace::Shared ? shared : rangeOf(mode, -1);
        addTitle(plot, body, row++, 0,
                 mode == EmbeddingMode::Random
                     ? QStringLiteral("Random Embedding")
                     : QStringLiteral("Fixed Weight Embedding from Attention is All You Need"),
                 2.0, true);
        auto *sub = new QCPLayoutGrid;
        body->addElement(row++, 0, sub);
        // Reserve the same label room beside every bar: QCPColorScale sizes itself to its bar
        // plus its tick labels, so rows with narrower labels ("-1" vs "-0.05") got wider plots
        // and a bar further right, its labels cut at the figure's edge.
        const auto addBar = [&](int column, const ColorRange &range) {
            QCPColorScale *scale =
                addColorScale(plot, sub, 1, column, m_state.colormap(), range, QString());
            scale->setMarginGroup(QCP::msTop | QCP::msBottom, rowGroup);
            scale->axis()->axisRect()->setMinimumMargins(QMargins(0, 0, 64, 0));
            sub->setColumnStretchFactor(column, 0.01);
        };
        for (int c = 0; c < phrases; ++c) {
            const qint64 b = w.firstPhrase + c;
            const int column = perPlot ? 2 * c : c;
            const ColorRange range = perPlot ? rangeOf(mode, b) : rowRange;
            addTitle(plot, sub, 0, column, s.title(int(b)), 0.5, false);
            auto *rect = new QCPAxisRect(plot, true);
            sub->addElement(1, column, rect);
            rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
            rect->setMarginGroup(QCP::msTop | QCP::msBottom, rowGroup);
            QCPColorMap *map = addMatrixMap(
                rect, w.tokens(), drawnDims, m_state.colormap(), range,
                [&](qint64 r, qint64 k) { return valueAt(mode, b, r, k); }, w.firstToken, dims);
            // Tokens and dims are counted: no tick at 2.5. Before the first layout, a heatmap
            // is taken as half the figure's height less about ten lines of titles, tick labels
            // and the note, and its share of the width (a colour bar beside each row or plot).
            useIntegerTicks(rect->axis(QCPAxis::atLeft), 0.5, 10);
            useIntegerTicks(rect->axis(QCPAxis::atTop),
                            0.8 / double(perPlot ? 2 * phrases : phrases));
            cells.append({rect, map, int(b), mode});
            if (m_showSelection && sel.phrase == b && sel.mode == mode &&
                w.containsToken(sel.token))
                addOutline(rect, rect->axis(QCPAxis::atTop), rect->axis(QCPAxis::atLeft), -0.5,
                           double(sel.token) - 0.5, double(dims) - 0.5, double(sel.token) + 0.5,
                           QPen(m_theme.selection, 2));
            if (perPlot)
                addBar(column + 1, range);
        }
        if (m_colorbar == ColorbarPlace::PerRow)
            addBar(phrases, rowRange);
        sub->setRowStretchFactor(0, 0.01);
    }
    body->setRowStretchFactor(0, 0.01);
    body->setRowStretchFactor(2, 0.01);
    QStringList notes{phraseWindowNote(w, s, true), truncationNote(result, w)};
    notes.removeAll(QString());
    if (!notes.isEmpty()) {
        addTitle(plot, body, row, 0, notes.join(QLatin1Char('\n')), 0.0, false);
        body->setRowStretchFactor(row, 0.01);
    }
    applyPlotTheme(plot, m_theme);
    return cells;
}

} // namespace pe
