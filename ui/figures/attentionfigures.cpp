#include "figures/attentionfigures.h"

#include "figures/colormapgradient.h"
#include "figures/figureparts.h"
#include "figures/fittedtext.h"
#include "figures/schemefigures.h" // addScale

#include "figures/qcpinclude.h"

#include "analysis/attentionheads.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pe {

namespace {

constexpr int maxLabelChars = 12;

QString phraseName(int phrase)
{
    return QStringLiteral("phrase %1").arg(QChar(u'A' + phrase));
}

// The tokens of `phrase` as the labels of `axis`, thinned so that they do not overlap along
// `pixels` of axis.
void labelTokens(QCPAxis *axis, const ModelPhrase &phrase, double pixels)
{
    const qint64 n = phrase.tokens.size();
    const QFontMetricsF metrics(axis->tickLabelFont());
    const bool vertical = axis->orientation() == Qt::Vertical;
    const double labelSpan = vertical ? metrics.height() + 1 : metrics.height() * 1.2 + 2;
    const qint64 step =
        std::max<qint64>(1, qint64(std::ceil(labelSpan * double(n) / std::max(pixels, 40.0))));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (qint64 t = 0; t < n; t += step) {
        QString text = AttentionFigures::tokenText(phrase, t);
        if (text.size() > maxLabelChars)
            text = text.left(maxLabelChars - 1) + QChar(0x2026);
        ticker->addTick(double(t), text);
    }
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    if (!vertical)
        axis->setTickLabelRotation(60);
}

// A rows x cols heatmap in `rect` (figureparts.h); infinities drawn in the NaN colour.
QCPColorMap *addGridMap(QCPAxisRect *rect, const ValueGrid &g, const QCPColorGradient &gradient,
                        const QCPRange &range)
{
    return addCellMap(rect, g.rows, g.cols, gradient, range,
                      [&g](qint64 r, qint64 c) { return colormapCell(double(g.at(r, c))); });
}

ValueGrid gridOf(const LayerZeroArray &rows)
{
    return {rows.shape[0], rows.shape[1], rows.values};
}

QCPRange rangeOf(const std::vector<const ValueGrid *> &grids)
{
    float lo = 0, hi = 0;
    bool first = true;
    for (const ValueGrid *g : grids)
        for (const float v : g->values) {
            if (!std::isfinite(v))
                continue; // drawn in the NaN colour, outside the scale
            lo = first ? v : std::min(lo, v);
            hi = first ? v : std::max(hi, v);
            first = false;
        }
    return hi > lo ? QCPRange(lo, hi) : QCPRange(lo - 0.5, lo + 0.5);
}

// A last line for a title whose grids hold NaN or infinite values (a model whose weights hold
// them): those cells are drawn magenta, and the title says so. Empty otherwise.
QString nonFiniteLine(const std::vector<const ValueGrid *> &grids,
                      const ByPositions<LayerZeroArray> &arrays)
{
    qint64 count = 0, total = 0;
    for (const ValueGrid *g : grids) {
        count += nonFiniteCount(g->values);
        total += qint64(g->values.size());
    }
    QString note = nonFiniteNote(count, total);
    if (note.isEmpty())
        return note;
    QStringList causes;
    for (const LayerZeroArray &a : arrays)
        for (const QString &w : a.warnings)
            if (!causes.contains(w))
                causes.append(w);
    return QLatin1Char('\n') + note +
           (causes.isEmpty() ? QString()
                             : QStringLiteral(" (%1)").arg(causes.join(QStringLiteral("; "))));
}

QString positionsWord(Positions p)
{
    return p == Positions::With ? QStringLiteral("with positions")
                                : QStringLiteral("without positions");
}

// Height in pixels the plot gives an axis rect: the viewport less the title and tick labels.
double axisPixels(const QCustomPlot *plot, bool vertical)
{
    const QRect v = plot->viewport();
    return std::max(60.0, double(vertical ? v.height() - 120 : v.width() / 3 - 60));
}

// A result without arrays (a tokenizer without weights): the figure says why, and draws no
// empty axes. True when it did.
bool drewNoArrays(QCustomPlot *plot, const PhraseModelResult &result, const QString &view,
                  const PlotTheme &theme)
{
    if (result.hasArrays())
        return false;
    fittedTitledGrid(plot, result.arraysProblem(view));
    applyPlotTheme(plot, theme);
    return true;
}

} // namespace

AttentionFigures::AttentionFigures(const FigureState &state, const PlotTheme &theme)
    : m_state(state), m_theme(theme)
{}

QString AttentionFigures::tokenText(const ModelPhrase &phrase, qint64 token)
{
    return phrase.shownToken(token);
}

ValueGrid AttentionFigures::headAttention(const LayerZeroArray &attention, int head)
{
    static_assert(meanOfHeads == meanOfAttentionHeads);
    const qint64 heads = attention.shape[0], n = attention.shape[1];
    ValueGrid g{n, n, pe::headAttention(attention.values, heads, n, head)};
    if (g.values.empty()) // no such head: drawn in the NaN colour rather than read past the end
        g.values.assign(std::size_t(n * n), std::numeric_limits<float>::quiet_NaN());
    return g;
}

void AttentionFigures::buildTokens(QCustomPlot *plot, const PhraseModelResult &result) const
{
    resetFigure(plot, m_theme);
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, result.architecture.isEmpty()
                  ? QStringLiteral("Tokens as the tokenizer splits them (piece over id)")
                  : QStringLiteral("Tokens of %1 as its tokenizer splits them (piece over id)")
                        .arg(result.architecture));
    auto *rect = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, rect);
    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);
    x->setLabel(QStringLiteral("token"));
    qint64 longest = 1;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t row = 0; row < result.phrases.size(); ++row) {
        const ModelPhrase &p = result.phrases[row];
        ticker->addTick(double(row), phraseName(int(row)));
        longest = std::max<qint64>(longest, p.tokens.size());
        for (qint64 t = 0; t < p.tokens.size(); ++t) {
            auto *text = new QCPItemText(plot);
            text->setClipToAxisRect(true);
            text->setClipAxisRect(rect);
            text->position->setAxes(x, y);
            text->position->setCoords(double(t), double(row));
            QString piece = tokenText(p, t);
            if (piece.size() > maxLabelChars)
                piece = piece.left(maxLabelChars - 1) + QChar(0x2026);
            text->setText(piece + QLatin1Char('\n') +
                          QString::number(p.tokens.ids[std::size_t(t)]));
            text->setColor(m_theme.foreground);
            text->setPen(QPen(m_theme.grid));
            text->setPadding(QMargins(2, 1, 2, 1));
        }
    }
    y->setTicker(ticker);
    y->setSubTicks(false);
    x->setRange(-0.6, double(longest) - 0.4);
    y->setRange(-0.6, double(std::max<std::size_t>(1, result.phrases.size())) - 0.4);
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    applyPlotTheme(plot, m_theme);
}

void AttentionFigures::buildEmbeddings(QCustomPlot *plot, const PhraseModelResult &result,
                                       int phrase) const
{
    resetFigure(plot, m_theme);
    if (drewNoArrays(plot, result, QStringLiteral("embeddings"), m_theme))
        return;
    const ModelPhrase &p = result.phrases.at(std::size_t(phrase));
    const QString note = result.positionKind == LayerPositionKind::Absolute
                             ? QStringLiteral("the position table is added at the input")
                             : QStringLiteral("%1: positions act inside attention, so the two "
                                              "are the same")
                                   .arg(labelOf(layerPositionKindNames, result.positionKind));
    const ByPositions<ValueGrid> grids{gridOf(p.embeddings[at(Positions::With)]),
                                       gridOf(p.embeddings[at(Positions::Without)])};
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, QStringLiteral("Embeddings of %1, hidden_states[0] of %2\n%3")
                      .arg(phraseName(phrase), result.architecture, note) +
                  nonFiniteLine({&grids[at(Positions::With)], &grids[at(Positions::Without)]},
                                p.embeddings));
    const QCPRange range = rangeOf({&grids[at(Positions::With)], &grids[at(Positions::Without)]});
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    int column = 0;
    for (const Positions which : {Positions::With, Positions::Without}) {
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(0, column++, rect);
        addGridMap(rect, grids[at(which)], gradient, range);
        rect->axis(QCPAxis::atBottom)
            ->setLabel(QStringLiteral("dim (%1)").arg(positionsWord(which)));
        labelTokens(rect->axis(QCPAxis::atLeft), p, axisPixels(plot, true));
    }
    addScale(plot, grid, 0, column, gradient, range, QStringLiteral("value"));
    applyPlotTheme(plot, m_theme);
}

void AttentionFigures::buildTokenCosine(QCustomPlot *plot, const PhraseModelResult &result) const
{
    resetFigure(plot, m_theme);
    if (drewNoArrays(plot, result, QStringLiteral("token-cosine"), m_theme) ||
        result.phrases.size() < 2)
        return;
    const QString note = result.positionKind == LayerPositionKind::Absolute
                             ? QString()
                             : QStringLiteral(" (%1 adds none here)")
                                   .arg(labelOf(layerPositionKindNames, result.positionKind));
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, QStringLiteral("Cosine of every token pair, phrase A (rows) and B (columns)\nwhole "
                             "phrases (mean vectors): %1 with positions, %2 without%3")
                  .arg(result.phraseCosine[at(Positions::With)], 0, 'f', 3)
                  .arg(result.phraseCosine[at(Positions::Without)], 0, 'f', 3)
                  .arg(note));
    const QCPRange range(-1.0, 1.0);
    const QCPColorGradient gradient = colormapGradient(Colormap::RdBu);
    int column = 0;
    for (const Positions which : {Positions::With, Positions::Without}) {
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(0, column++, rect);
        addGridMap(rect, result.tokenCosine[at(which)], gradient, range);
        rect->axis(QCPAxis::atTop)->setVisible(true);
        rect->axis(QCPAxis::atTop)->setTicks(false);
        rect->axis(QCPAxis::atTop)->setLabel(positionsWord(which));
        labelTokens(rect->axis(QCPAxis::atLeft), result.phrases[0], axisPixels(plot, true));
        labelTokens(rect->axis(QCPAxis::atBottom), result.phrases[1], axisPixels(plot, false));
    }
    addScale(plot, grid, 0, column, gradient, range, QStringLiteral("cosine"));
    applyPlotTheme(plot, m_theme);
}

void AttentionFigures::buildAttention(QCustomPlot *plot, const PhraseModelResult &result,
                                      int phrase, int head) const
{
    resetFigure(plot, m_theme);
    if (drewNoArrays(plot, result, QStringLiteral("attention"), m_theme))
        return;
    const ModelPhrase &p = result.phrases.at(std::size_t(phrase));
    const QString heads = head == meanOfHeads
                              ? QStringLiteral("mean of %1 heads").arg(result.heads)
                              : QStringLiteral("head %1 of %2").arg(head).arg(result.heads);
    const ValueGrid with = headAttention(p.attention[at(Positions::With)], head);
    const ValueGrid without = headAttention(p.attention[at(Positions::Without)], head);
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, QStringLiteral("Positions in attention: layer 0 of %1, %2, %3\n%4")
                      .arg(result.architecture, heads, phraseName(phrase), result.positionsText) +
                  nonFiniteLine({&with, &without}, p.attention));
    const ValueGrid difference{with.rows, with.cols,
                               attentionDifference(with.values, without.values)};
    float extent = 0;
    for (const float d : difference.values)
        if (std::isfinite(d))
            extent = std::max(extent, std::abs(d));
    const QCPRange probabilities = rangeOf({&with, &without});
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    const QCPColorGradient signedGradient = colormapGradient(Colormap::RdBu);
    const QCPRange signedRange(-std::max(extent, 1e-6f), std::max(extent, 1e-6f));
    const struct
    {
        const ValueGrid *grid;
        QString label;
    } panels[] = {{&with, positionsWord(Positions::With)},
                  {&without, positionsWord(Positions::Without)},
                  {&difference, QStringLiteral("with − without")}};
    int column = 0;
    for (const auto &panel : panels) {
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(0, column++, rect);
        const bool signedPanel = panel.grid == &difference;
        addGridMap(rect, *panel.grid, signedPanel ? signedGradient : gradient,
                   signedPanel ? signedRange : probabilities);
        rect->axis(QCPAxis::atTop)->setVisible(true);
        rect->axis(QCPAxis::atTop)->setTicks(false);
        rect->axis(QCPAxis::atTop)->setLabel(panel.label);
        rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("key"));
        rect->axis(QCPAxis::atLeft)->setLabel(column == 1 ? QStringLiteral("query") : QString());
        labelTokens(rect->axis(QCPAxis::atLeft), p, axisPixels(plot, true));
        labelTokens(rect->axis(QCPAxis::atBottom), p, axisPixels(plot, false) * 0.7);
    }
    addScale(plot, grid, 0, column, gradient, probabilities, QStringLiteral("probability"));
    addScale(plot, grid, 0, column + 1, signedGradient, signedRange, QStringLiteral("difference"));
    applyPlotTheme(plot, m_theme);
}

} // namespace pe
