#include "figures/layerfigures.h"

#include "figures/colormapgradient.h"
#include "figures/figureparts.h"
#include "figures/fittedtext.h"
#include "figures/schemefigures.h" // addScale

#include "figures/qcpinclude.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

constexpr int maxLabelChars = 12;

// A rows x cols grid of values, row-major.
struct Cells
{
    qint64 rows = 0;
    qint64 cols = 0;
    std::vector<double> values;
    double at(qint64 r, qint64 c) const { return values[std::size_t(r * cols + c)]; }
};

// The finite values' largest (at least a small positive number, for a scale).
double largestOf(const Cells &cells)
{
    double hi = 0;
    for (const double v : cells.values)
        if (std::isfinite(v))
            hi = std::max(hi, v);
    return hi > 0 ? hi : 1e-6;
}

// Rows labelled `labels` (thinned to fit `pixels`) down the left axis.
void labelRows(QCPAxis *axis, const QStringList &labels, double pixels, double first = 0,
               double spacing = 1)
{
    const QFontMetricsF metrics(axis->tickLabelFont());
    const qint64 n = labels.size();
    const qint64 step = std::max<qint64>(
        1, qint64(std::ceil((metrics.height() + 1) * double(n) / std::max(pixels, 40.0))));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (qint64 r = 0; r < n; r += step)
        ticker->addTick(first + double(r) * spacing, labels[qsizetype(r)]);
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

// Columns labelled along the bottom axis, thinned to fit `pixels`.
void labelColumns(QCPAxis *axis, const QStringList &labels, double pixels, double first = 0,
                  double spacing = 1)
{
    const QFontMetricsF metrics(axis->tickLabelFont());
    qsizetype longest = 1;
    for (const QString &l : labels)
        longest = std::max(longest, l.size());
    // Labels longer than a few characters are turned (60 degrees) and take a line's height.
    const bool turned = longest > 3;
    const double each = turned ? metrics.height() * 1.2 + 2
                               : metrics.horizontalAdvance(QString(longest + 1, QLatin1Char('0')));
    const qint64 n = labels.size();
    const qint64 step =
        std::max<qint64>(1, qint64(std::ceil(each * double(n) / std::max(pixels, 40.0))));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (qint64 c = 0; c < n; c += step)
        ticker->addTick(first + double(c) * spacing, labels[qsizetype(c)]);
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    if (turned)
        axis->setTickLabelRotation(60);
}

// The cells as a colour map in `rect` (figureparts.h); NaN cells transparent (the grid's gaps).
QCPColorMap *addCells(QCPAxisRect *rect, const Cells &g, QCPColorGradient gradient,
                      const QCPRange &range)
{
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    return addCellMap(rect, g.rows, g.cols, gradient, range,
                      [&g](qint64 r, qint64 c) { return g.at(r, c); });
}

QString tokenLabel(const ModelPhrase &phrase, qint64 t)
{
    QString text = phrase.shownToken(t);
    if (text.size() > maxLabelChars)
        text = text.left(maxLabelChars - 1) + QChar(0x2026);
    return text;
}

QStringList tokenLabels(const ModelPhrase &phrase)
{
    QStringList labels;
    for (qint64 t = 0; t < phrase.tokens.size(); ++t)
        labels.append(tokenLabel(phrase, t));
    return labels;
}

// "0.0", "0.1", ... "3.3": one label per layer.head row.
QStringList layerHeadLabels(qint64 layers, qint64 heads)
{
    QStringList labels;
    for (qint64 l = 0; l < layers; ++l)
        for (qint64 h = 0; h < heads; ++h)
            labels.append(QStringLiteral("%1.%2").arg(l).arg(h));
    return labels;
}

// {a, b, c} as a rows x cols grid of a * b rows: the first two axes merged (layer.head rows).
Cells mergedRows(const LayerZeroArray &array)
{
    Cells cells;
    cells.rows = array.shape[0] * array.shape[1];
    cells.cols = array.shape[2];
    cells.values.assign(array.values.begin(), array.values.end());
    return cells;
}

// The pass's first warning (weights that are not finite), as a heading's last line: the cells
// it made NaN are marked so, not left blank as if nothing were there.
QString warningLine(const ForwardViewResult &r)
{
    if (r.warnings.isEmpty())
        return {};
    return QStringLiteral("\nNaN cells are marked: %1%2")
        .arg(r.warnings.constFirst(),
             r.warnings.size() > 1 ? QStringLiteral(" (and %1 more)").arg(r.warnings.size() - 1)
                                   : QString());
}

// `text` broken at spaces into lines of at most `width` characters: a sentence that must be read
// whole (a figure's notice) is wrapped rather than elided.
QString wrapped(const QString &text, qsizetype width)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            lines.append(line);
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines.append(line);
    return lines.join(QLatin1Char('\n'));
}

// A view the pass cannot give (no RoPE, too few tokens): its title, and the whole sentence why,
// wrapped in the figure's body (the title alone is elided to a plot without axes).
void noticeFigure(QCustomPlot *plot, const QString &title, const QString &notice,
                  const PlotTheme &theme)
{
    QCPLayoutGrid *grid = fittedTitledGrid(plot, title);
    auto *text = new QCPTextElement(plot, wrapped(notice, 60), plot->font());
    text->setTextFlags(Qt::AlignCenter);
    grid->addElement(0, 0, text);
    applyPlotTheme(plot, theme);
}

// A "NaN" at each point of `at` (coordinates on `rect`'s axes): a cell the weights made NaN is
// transparent, which alone reads as "nothing there". Past a few hundred the heading's line
// (warningLine) says it alone.
void markNotFinite(QCustomPlot *plot, QCPAxisRect *rect, const std::vector<QPointF> &at,
                   const QColor &colour)
{
    constexpr std::size_t most = 200;
    if (at.size() > most)
        return;
    for (const QPointF &point : at) {
        auto *label = new QCPItemText(plot);
        label->setClipAxisRect(rect);
        label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        label->position->setCoords(point);
        label->setPositionAlignment(Qt::AlignCenter);
        label->setText(QStringLiteral("NaN"));
        label->setColor(colour);
    }
}

// The cells of `cells` that are not finite, at their centres.
std::vector<QPointF> notFiniteCells(const Cells &cells)
{
    std::vector<QPointF> at;
    for (qint64 r = 0; r < cells.rows; ++r)
        for (qint64 c = 0; c < cells.cols; ++c)
            if (!std::isfinite(cells.at(r, c)))
                at.emplace_back(double(c), double(r));
    return at;
}

// The centres of the grid's tiles (`side` cells, `pitch` apart) whose head has attention that is
// not finite: the tile is marked, its gap-like blank explained.
std::vector<QPointF> notFiniteTiles(const ForwardViewResult &r, qint64 side, qint64 pitch)
{
    std::vector<QPointF> at;
    const std::size_t each = std::size_t(r.phrase.tokens.size() * r.phrase.tokens.size());
    const double centre = double(side - 1) / 2;
    for (qint64 l = 0; l < r.layers; ++l)
        for (qint64 h = 0; h < r.heads; ++h) {
            const auto first =
                r.attentions.values.begin() + std::ptrdiff_t(std::size_t(l * r.heads + h) * each);
            if (!std::all_of(first, first + std::ptrdiff_t(each),
                             [](float v) { return std::isfinite(v); }))
                at.emplace_back(double(h * pitch) + centre, double(l * pitch) + centre);
        }
    return at;
}

// The figure's heading: the view, the model, phrase A's tokens.
QString heading(const QString &what, const ForwardViewResult &r)
{
    QString line = QStringLiteral("%1: %2, %3 layers x %4 heads, phrase A (%5 tokens)")
                       .arg(what, r.architecture)
                       .arg(r.layers)
                       .arg(r.heads)
                       .arg(r.phrase.tokens.size());
    if (r.phrase.capped())
        line += QStringLiteral(", the first %1 of %2")
                    .arg(r.phrase.tokens.size())
                    .arg(r.phrase.allTokens);
    return line + warningLine(r);
}

// Pixels the plot gives an axis: the viewport less the title and labels.
double axisPixels(const QCustomPlot *plot, bool vertical)
{
    const QRect v = plot->viewport();
    return std::max(60.0, double(vertical ? v.height() - 140 : v.width() - 200));
}

QCPAxisRect *singleRect(QCustomPlot *plot, QCPLayoutGrid *grid)
{
    auto *rect = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, rect);
    return rect;
}

// One layer.head x column heatmap with its scale: the distance profiles and the atlas.
void layerHeadHeatmap(QCustomPlot *plot, QCPLayoutGrid *grid, const ForwardViewResult &r,
                      const Cells &cells, const QStringList &columns, const QString &columnLabel,
                      const QString &valueLabel, const QCPColorGradient &gradient,
                      const PlotTheme &theme)
{
    QCPAxisRect *rect = singleRect(plot, grid);
    const QCPRange range(0, largestOf(cells));
    addCells(rect, cells, gradient, range);
    markNotFinite(plot, rect, notFiniteCells(cells), theme.foreground);
    labelRows(rect->axis(QCPAxis::atLeft), layerHeadLabels(r.layers, r.heads),
              axisPixels(plot, true));
    labelColumns(rect->axis(QCPAxis::atBottom), columns, axisPixels(plot, false));
    rect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("layer.head"));
    rect->axis(QCPAxis::atBottom)->setLabel(columnLabel);
    addScale(plot, grid, 0, 1, gradient, range, valueLabel);
}

// The enlarged head with the model's positions, ablated as r.inputs.ablation says, and their
// difference side by side, as layer 0's Positions in attention draws with / without.
void ablatedHead(QCustomPlot *plot, const ForwardViewResult &r, int layer, int head,
                 const Cells &with, const QCPColorGradient &gradient, const PlotTheme &theme)
{
    const qint64 n = r.phrase.tokens.size();
    const QString ablated = r.inputs.ablation.text();
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("Attention of layer %1, head %2").arg(layer).arg(head), r) +
                  QStringLiteral("\nablated in every layer: %1").arg(ablated));
    Cells without{n, n, std::vector<double>(std::size_t(n * n))};
    Cells difference = without;
    double extent = 0;
    const std::size_t base = std::size_t((qint64(layer) * r.heads + head) * n * n);
    for (std::size_t c = 0; c < without.values.size(); ++c) {
        without.values[c] = double(r.ablatedAttentions.values[base + c]);
        difference.values[c] = with.values[c] - without.values[c];
        if (std::isfinite(difference.values[c]))
            extent = std::max(extent, std::abs(difference.values[c]));
    }
    const QCPColorGradient signedGradient = colormapGradient(Colormap::RdBu);
    const QCPRange range(0, std::max(largestOf(with), largestOf(without)));
    const QCPRange signedRange(-std::max(extent, 1e-6), std::max(extent, 1e-6));
    const QStringList labels = tokenLabels(r.phrase);
    const struct
    {
        const Cells *cells;
        QString label;
    } panels[] = {{&with, QStringLiteral("with positions")},
                  // A rule's JSON is long: its panel says "ablated", the title what.
                  {&without, ablated.size() > 40 ? QStringLiteral("ablated") : ablated},
                  {&difference, QStringLiteral("with − ablated")}};
    int column = 0;
    for (const auto &panel : panels) {
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(0, column++, rect);
        const bool signedPanel = panel.cells == &difference;
        addCells(rect, *panel.cells, signedPanel ? signedGradient : gradient,
                 signedPanel ? signedRange : range);
        rect->axis(QCPAxis::atTop)->setVisible(true);
        rect->axis(QCPAxis::atTop)->setTicks(false);
        rect->axis(QCPAxis::atTop)->setLabel(panel.label);
        labelRows(rect->axis(QCPAxis::atLeft), labels, axisPixels(plot, true));
        labelColumns(rect->axis(QCPAxis::atBottom), labels, axisPixels(plot, false) / 3);
        rect->axis(QCPAxis::atLeft)->setLabel(column == 1 ? QStringLiteral("query") : QString());
        rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("key"));
    }
    addScale(plot, grid, 0, column, gradient, range, QStringLiteral("probability"));
    addScale(plot, grid, 0, column + 1, signedGradient, signedRange, QStringLiteral("difference"));
    applyPlotTheme(plot, theme);
}

} // namespace

LayerFigures::LayerFigures(const FigureState &state, const PlotTheme &theme, bool window)
    : m_state(state), m_theme(theme), m_window(window)
{}

std::optional<std::pair<int, int>> LayerFigures::gridCell(const ForwardViewResult &result, double x,
                                                          double y)
{
    const qint64 side = std::min(gridTile, std::max<qint64>(1, result.phrase.tokens.size()));
    const double pitch = double(side + 1);
    const double hx = std::floor((x + 0.5) / pitch), ly = std::floor((y + 0.5) / pitch);
    if (hx < 0 || ly < 0 || hx >= double(result.heads) || ly >= double(result.layers))
        return std::nullopt;
    // The gap between tiles belongs to neither.
    if (x + 0.5 - hx * pitch > double(side) || y + 0.5 - ly * pitch > double(side))
        return std::nullopt;
    return std::pair{int(ly), int(hx)};
}

void LayerFigures::buildAttentionGrid(QCustomPlot *plot, const ForwardViewResult &r, int layer,
                                      int head) const
{
    resetFigure(plot, m_theme);
    const qint64 n = r.phrase.tokens.size();
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    const auto value = [&](qint64 l, qint64 h, qint64 i, qint64 j) {
        return double(r.attentions.values[std::size_t(((l * r.heads + h) * n + i) * n + j)]);
    };
    if (layer >= 0 && head >= 0 && layer < r.layers && head < r.heads) {
        Cells cells{n, n, std::vector<double>(std::size_t(n * n))};
        for (qint64 i = 0; i < n; ++i)
            for (qint64 j = 0; j < n; ++j)
                cells.values[std::size_t(i * n + j)] = value(layer, head, i, j);
        if (r.inputs.ablation.any() && r.ablationProblem.isEmpty() &&
            r.ablatedAttentions.values.size() == r.attentions.values.size()) {
            ablatedHead(plot, r, layer, head, cells, gradient, m_theme);
            return;
        }
        QCPLayoutGrid *grid = fittedTitledGrid(
            plot,
            heading(QStringLiteral("Attention of layer %1, head %2").arg(layer).arg(head), r) +
                (!r.ablationProblem.isEmpty()
                     ? QStringLiteral("\nAblation refused: %1").arg(r.ablationProblem)
                 : m_window ? QStringLiteral("\nquery rows x key columns; Layer \"every layer\" "
                                             "shows the grid again")
                            : QStringLiteral("\nquery rows x key columns")));
        QCPAxisRect *rect = singleRect(plot, grid);
        const QCPRange range(0, largestOf(cells));
        addCells(rect, cells, gradient, range);
        markNotFinite(plot, rect, notFiniteCells(cells), m_theme.foreground);
        const QStringList labels = tokenLabels(r.phrase);
        labelRows(rect->axis(QCPAxis::atLeft), labels, axisPixels(plot, true));
        labelColumns(rect->axis(QCPAxis::atBottom), labels, axisPixels(plot, false));
        rect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("query"));
        rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("key"));
        addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("probability"));
        applyPlotTheme(plot, m_theme);
        return;
    }
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("Attention of every layer and head"), r) +
                  QStringLiteral("\neach tile query rows x key columns%1%2")
                      .arg(n > gridTile ? QStringLiteral(" (mean-pooled to %1 x %1)").arg(gridTile)
                                        : QString(),
                           m_window ? QStringLiteral("; click one to enlarge it") : QString()));
    // One colour map of tiles, a transparent row and column between them.
    const qint64 side = std::min(gridTile, std::max<qint64>(1, n)), pitch = side + 1;
    Cells cells{r.layers * pitch - 1, r.heads * pitch - 1, {}};
    cells.values.assign(std::size_t(cells.rows * cells.cols),
                        std::numeric_limits<double>::quiet_NaN());
    for (qint64 l = 0; l < r.layers; ++l)
        for (qint64 h = 0; h < r.heads; ++h)
            for (qint64 a = 0; a < side; ++a)
                for (qint64 b = 0; b < side; ++b) {
                    // The mean of the source cells the tile cell covers.
                    const qint64 i0 = a * n / side, i1 = (a + 1) * n / side;
                    const qint64 j0 = b * n / side, j1 = (b + 1) * n / side;
                    double sum = 0;
                    for (qint64 i = i0; i < i1; ++i)
                        for (qint64 j = j0; j < j1; ++j)
                            sum += value(l, h, i, j);
                    cells.values[std::size_t((l * pitch + a) * cells.cols + h * pitch + b)] =
                        sum / double((i1 - i0) * (j1 - j0));
                }
    QCPAxisRect *rect = singleRect(plot, grid);
    const QCPRange range(0, largestOf(cells));
    addCells(rect, cells, gradient, range);
    markNotFinite(plot, rect, notFiniteTiles(r, side, pitch), m_theme.foreground);
    QStringList layers, heads;
    for (qint64 l = 0; l < r.layers; ++l)
        layers.append(QStringLiteral("layer %1").arg(l));
    for (qint64 h = 0; h < r.heads; ++h)
        heads.append(QStringLiteral("head %1").arg(h));
    const double centre = double(side - 1) / 2;
    labelRows(rect->axis(QCPAxis::atLeft), layers, axisPixels(plot, true), centre, double(pitch));
    labelColumns(rect->axis(QCPAxis::atBottom), heads, axisPixels(plot, false), centre,
                 double(pitch));
    addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("probability"));
    applyPlotTheme(plot, m_theme);
}

void LayerFigures::buildDistanceProfiles(QCustomPlot *plot, const ForwardViewResult &r) const
{
    resetFigure(plot, m_theme);
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("Attention by distance"), r) +
                  QStringLiteral("\nmean attention at offset d = query − key, one row per "
                                 "layer.head"));
    QStringList offsets;
    for (qint64 d = 0; d < r.distance.shape[2]; ++d)
        offsets.append(QString::number(d));
    layerHeadHeatmap(plot, grid, r, mergedRows(r.distance), offsets, QStringLiteral("offset d"),
                     QStringLiteral("mean probability"), colormapGradient(m_state.colormap()),
                     m_theme);
    applyPlotTheme(plot, m_theme);
}

void LayerFigures::buildFrequencyAtlas(QCustomPlot *plot, const ForwardViewResult &r) const
{
    resetFigure(plot, m_theme);
    if (r.atlas.values.empty()) {
        noticeFigure(plot, heading(QStringLiteral("RoPE frequency atlas"), r), r.atlasProblem,
                     m_theme);
        return;
    }
    const qint64 pairs = r.rotaryDims / 2, columns = r.atlas.shape[2];
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("RoPE frequency atlas"), r) +
                  QStringLiteral("\neach rotary pair's share of |q·k| (Barbero et al. 2024), "
                                 "pair 0 the fastest%1")
                      .arg(columns > pairs ? QStringLiteral("; last column: the dims not rotated")
                                           : QString()));
    QStringList labels;
    for (qint64 p = 0; p < columns; ++p)
        labels.append(p < pairs ? QString::number(p) : QStringLiteral("rest"));
    layerHeadHeatmap(plot, grid, r, mergedRows(r.atlas), labels,
                     QStringLiteral("rotary pair (fast → slow)"), QStringLiteral("share of |q·k|"),
                     colormapGradient(m_state.colormap()), m_theme);
    applyPlotTheme(plot, m_theme);
}

void LayerFigures::buildSinks(QCustomPlot *plot, const ForwardViewResult &r) const
{
    resetFigure(plot, m_theme);
    const qint64 scores = r.headScores.shape[2];
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("Attention sinks"), r) +
                  QStringLiteral("\nfirst-token share of each head; outlined: above ε = %1 (Gu "
                                 "et al. 2024); left: each layer's sink rate")
                      .arg(analysis::sinkEpsilon));
    Cells cells{r.layers, r.heads, {}};
    for (qint64 i = 0; i < r.layers * r.heads; ++i)
        cells.values.push_back(
            double(r.headScores.values[std::size_t(i * scores + analysis::FirstToken)]));
    QCPAxisRect *rect = singleRect(plot, grid);
    const QCPRange range(0, 1);
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    addCells(rect, cells, gradient, range);
    markNotFinite(plot, rect, notFiniteCells(cells), m_theme.foreground);
    QStringList layers, heads;
    for (qint64 l = 0; l < r.layers; ++l)
        layers.append(QStringLiteral("%1 (rate %2)")
                          .arg(l)
                          .arg(double(r.sinkRate.values[std::size_t(l)]), 0, 'f', 2));
    for (qint64 h = 0; h < r.heads; ++h)
        heads.append(QString::number(h));
    labelRows(rect->axis(QCPAxis::atLeft), layers, axisPixels(plot, true));
    labelColumns(rect->axis(QCPAxis::atBottom), heads, axisPixels(plot, false));
    rect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("layer (sink rate)"));
    rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("head"));
    for (qint64 l = 0; l < r.layers; ++l)
        for (qint64 h = 0; h < r.heads; ++h) {
            if (!(cells.at(l, h) > analysis::sinkEpsilon))
                continue;
            auto *box = new QCPItemRect(plot);
            box->setClipAxisRect(rect);
            for (QCPItemPosition *corner : {box->topLeft, box->bottomRight})
                corner->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            box->topLeft->setCoords(double(h) - 0.45, double(l) - 0.45);
            box->bottomRight->setCoords(double(h) + 0.45, double(l) + 0.45);
            box->setPen(QPen(m_theme.selection, 2));
        }
    addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("first-token share"));
    applyPlotTheme(plot, m_theme);
}

void LayerFigures::buildHiddenNorms(QCustomPlot *plot, const ForwardViewResult &r) const
{
    resetFigure(plot, m_theme);
    const qint64 rows = r.norms.shape[0], k = r.top.shape[1];
    // The layer whose largest |activation| is the most above its median, for the heading.
    qint64 worst = 0;
    for (qint64 l = 1; l < rows; ++l)
        if (r.top.values[std::size_t(l * k * 4 + 3)] > r.top.values[std::size_t(worst * k * 4 + 3)])
            worst = l;
    const auto top = [&](qint64 l, int field) {
        return double(r.top.values[std::size_t(l * k * 4 + field)]);
    };
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("Hidden-state norms"), r) +
                  QStringLiteral("\nmassive activation (Sun et al. 2024): %1 x the median, "
                                 "%2 %3, token %4 “%5”, dim %6")
                      .arg(top(worst, 3), 0, 'f', 1)
                      .arg(top(worst, 0), 0, 'g', 4)
                      .arg(worst == 0 ? QStringLiteral("in the embeddings")
                                      : QStringLiteral("after layer %1").arg(worst))
                      .arg(qint64(top(worst, 1)))
                      .arg(tokenLabel(r.phrase, qint64(top(worst, 1))))
                      .arg(qint64(top(worst, 2))));
    Cells cells{rows, r.norms.shape[1], {r.norms.values.begin(), r.norms.values.end()}};
    QCPAxisRect *rect = singleRect(plot, grid);
    const QCPRange range(0, largestOf(cells));
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    addCells(rect, cells, gradient, range);
    markNotFinite(plot, rect, notFiniteCells(cells), m_theme.foreground);
    QStringList layers;
    for (qint64 l = 0; l < rows; ++l)
        layers.append(QStringLiteral("%1: dim %2, %3x")
                          .arg(l == 0 ? QStringLiteral("emb") : QString::number(l))
                          .arg(qint64(top(l, 2)))
                          .arg(top(l, 3), 0, 'f', 0));
    labelRows(rect->axis(QCPAxis::atLeft), layers, axisPixels(plot, true));
    labelColumns(rect->axis(QCPAxis::atBottom), tokenLabels(r.phrase), axisPixels(plot, false));
    rect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("layer: largest |activation|'s dim"));
    rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("token"));
    addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("L2 norm"));
    applyPlotTheme(plot, m_theme);
}

void LayerFigures::buildPositionProbe(QCustomPlot *plot, const ForwardViewResult &r) const
{
    resetFigure(plot, m_theme);
    if (r.probe.values.empty()) {
        noticeFigure(plot, heading(QStringLiteral("Position probe"), r), r.probeProblem, m_theme);
        return;
    }
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, heading(QStringLiteral("Position probe"), r) +
                  QStringLiteral("\nridge readout of the token position from each layer's hidden "
                                 "states, 5-fold cross-validated R² (1: exact)"));
    QCPAxisRect *rect = singleRect(plot, grid);
    QCPGraph *curve = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    QCPAxis *x = rect->axis(QCPAxis::atBottom), *y = rect->axis(QCPAxis::atLeft);
    // R² has no floor: the axis stops at -1 (worse than the mean by the data's own spread) and a
    // layer below it is drawn on that edge as a downward triangle with its value written, so no
    // point leaves the figure unseen.
    constexpr double axisFloor = -1.0;
    QCPGraph *clipped = plot->addGraph(x, y);
    double lo = 0;
    for (std::size_t l = 0; l < r.probe.values.size(); ++l) {
        const double value = double(r.probe.values[l]);
        curve->addData(double(l), std::isfinite(value) ? std::max(value, axisFloor) : value);
        if (std::isfinite(value))
            lo = std::min(lo, value);
        if (!(value < axisFloor))
            continue;
        clipped->addData(double(l), axisFloor);
        auto *label = new QCPItemText(plot);
        label->setClipAxisRect(rect);
        label->position->setAxes(x, y);
        label->position->setCoords(double(l), axisFloor);
        // Up and right of the point, on the figure's background (the curve runs under it).
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(QMargins(12, 1, 3, 6));
        label->setBrush(QBrush(m_theme.background));
        label->setText(QStringLiteral("R² = %1, below the axis")
                           .arg(value, 0, 'f', 2)
                           .replace(QLatin1Char('-'), QChar(0x2212)));
        label->setColor(m_theme.foreground);
    }
    curve->setPen(QPen(m_theme.curve(0), 2));
    curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    clipped->setLineStyle(QCPGraph::lsNone);
    clipped->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, m_theme.curve(1),
                                             m_theme.curve(1), 11));
    clipped->setName(QStringLiteral("below −1, clipped"));
    x->setRange(-0.3, double(r.probe.values.size()) - 0.7);
    y->setRange(std::max(lo, axisFloor) - 0.05, 1.05);
    QStringList layers;
    for (qint64 l = 0; l < qint64(r.probe.values.size()); ++l)
        layers.append(l == 0 ? QStringLiteral("emb") : QString::number(l));
    labelColumns(x, layers, axisPixels(plot, false));
    x->setLabel(QStringLiteral("after layer (emb: the embeddings)"));
    y->setLabel(QStringLiteral("cross-validated R²"));
    applyPlotTheme(plot, m_theme);
}

} // namespace pe
