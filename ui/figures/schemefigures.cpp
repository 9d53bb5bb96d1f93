#include "figures/schemefigures.h"

#include "figures/colormapgradient.h"
#include "figures/figurebuilder.h"
#include "figures/fittedaxis.h"
#include "figures/fittedtext.h"
#include "figures/minmaxband.h"

#include "analysis/ropeanalysis.h"

#include "figures/qcpinclude.h"

#include <QFontMetrics>
#include <QFontMetricsF>

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pe {

namespace {

// An axis rect that keeps one data unit as long on x as on y, so the rotation circles are
// circles at any window or export size: at every layout the longer side's range widens so that
// [-1.25, 1.25] fits on both axes.
class SquareAxisRect : public QCPAxisRect
{
public:
    using QCPAxisRect::QCPAxisRect;

protected:
    void update(UpdatePhase phase) override
    {
        QCPAxisRect::update(phase);
        if (phase != upLayout || width() <= 0 || height() <= 0)
            return;
        constexpr double half = 1.25;
        const double aspect = double(width()) / double(height());
        axis(QCPAxis::atBottom)
            ->setRange(-half * std::max(1.0, aspect), half * std::max(1.0, aspect));
        axis(QCPAxis::atLeft)
            ->setRange(-half * std::max(1.0, 1.0 / aspect), half * std::max(1.0, 1.0 / aspect));
    }
};

QCPTextElement *addTitle(QCustomPlot *plot, const QString &text, double delta = 1.0)
{
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() + delta);
    font.setBold(delta > 0.5);
    // Lines end in "…" where they are wider than the figure (at --font-scale 3 the spectrum's
    // second line ran off both sides of the page, issue 38 item 11), and the title asks for no
    // width of its own: a zoomed window's plot was as wide as its title, 1,778 px at 300%.
    auto *title = new FittedTextElement(plot, text, font);
    // No word wrap: QCPTextElement sizes its row for one line per line break.
    title->setTextFlags(Qt::AlignCenter);
    return title;
}

// The figure's layout: a title row, then a grid the builder fills.
QCPLayoutGrid *titledGrid(QCustomPlot *plot, const QString &title)
{
    plot->plotLayout()->addElement(0, 0, addTitle(plot, title));
    auto *grid = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, grid);
    plot->plotLayout()->setRowStretchFactor(0, 0.01);
    return grid;
}

QCPLegend *addLegend(QCPAxisRect *rect, Qt::Alignment where)
{
    auto *legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, where);
    rect->insetLayout()->setMargins(QMargins(10, 10, 10, 10));
    // The figure's font, scaled by its font scale: QCPLegend starts in the application's.
    legend->setFont(rect->parentPlot()->font());
    legend->setLayer(QStringLiteral("legend"));
    legend->setVisible(true);
    rect->parentPlot()->legend = legend;
    return legend;
}

void logAxis(QCPAxis *axis)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("eb"));
    axis->setNumberPrecision(0);
}

QCPItemStraightLine *addLine(QCPAxisRect *rect, double k1, double v1, double k2, double v2,
                             const QPen &pen)
{
    auto *line = new QCPItemStraightLine(rect->parentPlot());
    line->setClipAxisRect(rect);
    for (QCPItemPosition *pos : {line->point1, line->point2})
        pos->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point1->setCoords(k1, v1);
    line->point2->setCoords(k2, v2);
    line->setPen(pen);
    return line;
}

QCPItemText *addLabel(QCPAxisRect *rect, double key, double value, const QString &text,
                      const QColor &color, Qt::Alignment align)
{
    auto *label = new QCPItemText(rect->parentPlot());
    label->setClipAxisRect(rect);
    label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    label->position->setCoords(key, value);
    label->setPositionAlignment(align);
    label->setText(text);
    label->setColor(color);
    // The figure's font, scaled by its font scale: QCPItemText starts in the application's
    // (the "original context" note kept the window's size at --font-scale 3, issue 38 item 11).
    label->setFont(rect->parentPlot()->font());
    label->setPadding(QMargins(4, 2, 4, 2));
    return label;
}

QCPGraph *addGraph(QCPAxisRect *rect, const QVector<double> &x, const QVector<double> &y,
                   const QPen &pen, const QString &name)
{
    auto *graph = new QCPGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    graph->setData(x, y, true);
    graph->setPen(pen);
    graph->setName(name);
    return graph;
}

// a − b cell by cell (two squares of one size), with its finite range.
SquareMatrix differenceOf(const SquareMatrix &a, const SquareMatrix &b)
{
    SquareMatrix d;
    d.size = std::min(a.size, b.size);
    d.values.resize(std::size_t(d.size * d.size));
    bool first = true;
    for (qint64 i = 0; i < d.size; ++i)
        for (qint64 j = 0; j < d.size; ++j) {
            const float v = float(double(a.at(i, j)) - double(b.at(i, j)));
            d.values[std::size_t(i * d.size + j)] = v;
            if (!std::isfinite(v))
                continue;
            d.minimum = first ? v : std::min(d.minimum, double(v));
            d.maximum = first ? v : std::max(d.maximum, double(v));
            first = false;
        }
    return d;
}

QCPRange safeRange(double lo, double hi)
{
    if (!(hi > lo))
        return QCPRange(lo - 0.5, lo + 0.5);
    return QCPRange(lo, hi);
}

QVector<double> wavelengths(const std::vector<double> &theta)
{
    const std::vector<double> w = ropeWavelengths(theta);
    return QVector<double>(w.begin(), w.end());
}

QVector<double> pairIndices(std::size_t n)
{
    QVector<double> out;
    for (std::size_t i = 0; i < n; ++i)
        out.append(double(i));
    return out;
}

QString metricLabel(SimilarityMetric metric)
{
    return metric == SimilarityMetric::Dot ? QStringLiteral("PE(p) · PE(q)")
                                           : QStringLiteral("cos(PE(p), PE(q))");
}

// YaRN multiplies cos and sin by its attention factor; the legend says so.
QString attentionNote(const RopeConfigData &c)
{
    return c.attentionFactor != 1.0
               ? QStringLiteral(" (cos, sin × %1)").arg(c.attentionFactor, 0, 'f', 4)
               : QString();
}

} // namespace

// A square matrix as cells centred on integer positions: key (column j) along x, query (row i)
// down y from the top, as matshow draws it.
QCPColorMap *addSquareMap(QCPAxisRect *rect, const SquareMatrix &m,
                          const QCPColorGradient &gradient, const QCPRange &range,
                          const QString &keyLabel, const QString &valueLabel)
{
    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);
    x->setLabel(keyLabel);
    y->setLabel(valueLabel);
    auto *map = new QCPColorMap(x, y);
    map->setInterpolate(false);
    map->setTightBoundary(false);
    const int n = int(m.size);
    map->data()->setSize(n, n);
    map->data()->setRange(QCPRange(0, n - 1), QCPRange(0, n - 1));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const float v = m.at(i, j);
            map->data()->setCell(j, i, std::isfinite(v) ? double(v) : std::nan(""));
        }
    map->setGradient(gradient);
    map->setDataRange(range);
    x->setRange(-0.5, n - 0.5);
    y->setRange(-0.5, n - 0.5);
    for (QCPAxis *axis : {x, y})
        axis->grid()->setVisible(false);
    return map;
}

QCPColorScale *addScale(QCustomPlot *plot, QCPLayoutGrid *grid, int row, int column,
                        const QCPColorGradient &gradient, const QCPRange &range,
                        const QString &label)
{
    auto *scale = new QCPColorScale(plot);
    grid->addElement(row, column, scale);
    scale->setType(QCPAxis::atRight);
    scale->setGradient(gradient);
    scale->setDataRange(range);
    scale->setBarWidth(12);
    scale->setMinimumSize(80, 0);
    scale->setMaximumSize(80, QWIDGETSIZE_MAX);
    scale->axis()->setLabel(label);
    scale->axis()->setSubTicks(false);
    useSpacedTicks(scale->axis()); // labels a line apart on a short bar
    return scale;
}

SchemeFigures::SchemeFigures(const FigureState &state, const PlotTheme &theme)
    : m_state(state), m_theme(theme)
{}

// mrope: which position id (t, h, w) each pair turns with, as markers on A's wavelengths, one
// shape and colour per id, in the legend with its pair count (interleaved sections too).
void SchemeFigures::addMropeSections(QCPAxisRect *rect, QCPLegend *legend,
                                     const RopeConfigData &c) const
{
    if (c.mropeAxes.empty())
        return;
    const QVector<double> w = wavelengths(c.scaled);
    const QString names[] = {QStringLiteral("t: temporal id"), QStringLiteral("h: height id"),
                             QStringLiteral("w: width id")};
    const QCPScatterStyle::ScatterShape shapes[] = {
        QCPScatterStyle::ssCircle, QCPScatterStyle::ssTriangle, QCPScatterStyle::ssSquare};
    for (int axis = 0; axis < 3; ++axis) {
        QVector<double> x, y;
        for (std::size_t i = 0; i < c.mropeAxes.size() && i < std::size_t(w.size()); ++i)
            if (int(c.mropeAxes[i]) == axis) {
                x.append(double(i));
                y.append(w[qsizetype(i)]);
            }
        if (x.isEmpty())
            continue;
        QCPGraph *graph =
            addGraph(rect, x, y, Qt::NoPen,
                     QStringLiteral("mrope %1 (%2 pairs)").arg(names[axis]).arg(x.size()));
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(
            QCPScatterStyle(shapes[axis], m_theme.curve(2 + axis), m_theme.curve(2 + axis), 7));
        graph->addToLegend(legend);
    }
}

void SchemeFigures::buildSpectrum(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    QCPLayoutGrid *grid =
        titledGrid(plot, QStringLiteral("RoPE wavelength 2π/θᵢ per pair\nA = %1 · B = %2")
                             .arg(result.a.label, result.b.label));
    // Axes that thin their ticks and elide their titles to the lengths they get (at font x3 the
    // ratio's "1 1/2 1/4 1/8" overlapped, and the two titles ran into each other).
    auto *top = new FittedAxisRect(plot);
    auto *bottom = new FittedAxisRect(plot);
    grid->addElement(0, 0, top);
    grid->addElement(1, 0, bottom);
    grid->setRowStretchFactors({2.0, 1.0});
    // Each panel keeps room for two tick labels at any font size: at font x3 a third of what
    // the title, axis and legend left was one label high.
    for (QCPAxisRect *rect : {top, bottom})
        rect->setMinimumSize(50, 2 * QFontMetrics(plot->font()).height());
    auto *group = new QCPMarginGroup(plot);
    top->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    bottom->setMarginGroup(QCP::msLeft | QCP::msRight, group);

    QCPAxis *ty = top->axis(QCPAxis::atLeft);
    logAxis(ty);
    ty->setLabel(QStringLiteral("wavelength (tokens, log)"));
    // The two panels share their x axis (pairs, aligned by the margin group): its numbers and
    // title once, under the bottom panel, leave the panels the room.
    top->axis(QCPAxis::atBottom)->setTickLabels(false);
    QCPAxis *by = bottom->axis(QCPAxis::atLeft);
    logAxis(by);
    by->setLabel(QStringLiteral("θ scaled / θ original"));
    // The bottom panel is a third of the figure: where the title is longer than that (an export
    // at 1280 x 720 read "θ scaled / …", issue 46.8), a shorter one that says the same.
    if (auto *fitted = dynamic_cast<FittedAxis *>(by))
        fitted->setShorterLabels({QStringLiteral("θ scaled / orig."), QStringLiteral("θ′ / θ")});
    bottom->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("pair i"));

    const bool showB = result.b.label != result.a.label;
    drawWavelengths(top, result, showB);
    drawScaleRatios(bottom, result, showB);
    // The legend (the top's curves; the bottom's are drawn in the same colours) at the figure's
    // foot, where it hides no curve at any font size: inside the top panel, at font x3 it
    // covered the scaled wavelengths and the original context's note.
    QCPLegend *legend = plot->legend;
    top->insetLayout()->take(legend);
    top->insetLayout()->simplify();
    bottom->insetLayout()->addElement(legend, Qt::AlignLeft | Qt::AlignTop);
    placeLegend(plot, bottom, legend, std::nullopt);
    applyPlotTheme(plot, m_theme);
}

// The spectrum's top: A's (and B's) wavelengths unscaled and scaled, the mrope sections, the
// original contexts marked.
void SchemeFigures::drawWavelengths(QCPAxisRect *top, const SchemeResult &result, bool showB) const
{
    QCPLegend *legend = addLegend(top, Qt::AlignLeft | Qt::AlignTop);
    const bool sameBase =
        result.a.rope().ropeTheta == result.b.rope().ropeTheta &&
        result.a.rope().partialRotaryFactor == result.b.rope().partialRotaryFactor;
    double lo = 1e300, hi = 0;
    auto curve = [&](const std::vector<double> &frequencies, const QPen &pen, const QString &name) {
        const QVector<double> w = wavelengths(frequencies);
        for (double v : w)
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        addGraph(top, pairIndices(std::size_t(w.size())), w, pen, name)->addToLegend(legend);
    };
    // The scaled frequencies of a configuration: for longrope both factor sets, the one these
    // positions select solid (HF: long_factor once seq_len passes the original context).
    auto scaledCurves = [&](const RopeConfigData &c, const QColor &colour, const QString &who) {
        if (c.rope().ropeType == RopeType::Default)
            return;
        if (c.shortScaled.empty() || c.longScaled.empty()) {
            curve(c.scaled, QPen(colour, 2.0), who + c.label + attentionNote(c));
            return;
        }
        const QString used = QStringLiteral(" (used at %1 positions)")
                                 .arg(formatGrouped(double(c.spec.positions), 4));
        curve(c.shortScaled, QPen(colour, 2.0, c.longApplies ? Qt::DashLine : Qt::SolidLine),
              who +
                  QStringLiteral("short_factor, up to %1")
                      .arg(formatGrouped(double(c.originalContext), 4)) +
                  (c.longApplies ? QString() : used));
        curve(c.longScaled, QPen(colour, 2.0, c.longApplies ? Qt::SolidLine : Qt::DashLine),
              who + QStringLiteral("long_factor, beyond") + (c.longApplies ? used : QString()) +
                  attentionNote(c));
    };
    const QColor ca = m_theme.curve(0), cb = m_theme.curve(1);
    curve(result.a.original, QPen(m_theme.marker, 1.5, Qt::DashLine),
          QStringLiteral("unscaled, base %1").arg(formatGrouped(result.a.rope().ropeTheta, 4)));
    scaledCurves(result.a, ca, QStringLiteral("A: "));
    if (showB) {
        if (!sameBase)
            curve(result.b.original, QPen(cb, 1.5, Qt::DotLine),
                  QStringLiteral("unscaled, base %1")
                      .arg(formatGrouped(result.b.rope().ropeTheta, 4)));
        scaledCurves(result.b, cb, QStringLiteral("B: "));
    }
    addMropeSections(top, legend, result.a);
    for (qint64 context : markOriginalContexts(top, result, showB)) {
        hi = std::max(hi, double(context));
        lo = std::min(lo, double(context));
    }
    const double pairs = double(result.a.original.size());
    top->axis(QCPAxis::atBottom)->setRange(-0.5, pairs - 0.5);
    top->axis(QCPAxis::atLeft)->setRange(lo / 2.0, hi * 4.0);
}

// The contexts the scalings extend (the positions when none says one), drawn as lines: a
// wavelength longer than one never completed a turn in training, which is what each rule
// treats differently.
QList<qint64> SchemeFigures::markOriginalContexts(QCPAxisRect *top, const SchemeResult &result,
                                                  bool showB) const
{
    QList<qint64> contexts;
    for (const RopeConfigData *c : {&result.a, &result.b})
        if (c->originalContext > 0 && !contexts.contains(c->originalContext) &&
            (c == &result.a || showB))
            contexts.append(c->originalContext);
    if (contexts.isEmpty())
        contexts.append(result.a.spec.positions);
    for (qint64 context : contexts) {
        addLine(top, 0, double(context), 1, double(context),
                QPen(m_theme.foreground, 1.0, Qt::DashDotLine));
        addLabel(top, 0, double(context),
                 QStringLiteral("%1 %2 tokens")
                     .arg(result.a.originalContext > 0 || result.b.originalContext > 0
                              ? QStringLiteral("original context")
                              : QStringLiteral("positions"),
                          formatGrouped(double(context), 4)),
                 m_theme.foreground, Qt::AlignLeft | Qt::AlignBottom);
    }
    return contexts;
}

// The spectrum's bottom: θ scaled / θ original per pair, on ticks of powers of two.
void SchemeFigures::drawScaleRatios(QCPAxisRect *bottom, const SchemeResult &result,
                                    bool showB) const
{
    QCPAxis *by = bottom->axis(QCPAxis::atLeft);
    const QColor ca = m_theme.curve(0), cb = m_theme.curve(1);
    auto ratio = [&](const RopeConfigData &c, const std::vector<double> &scaled, const QPen &pen,
                     const QString &name) {
        QVector<double> r;
        for (std::size_t i = 0; i < scaled.size() && i < c.original.size(); ++i)
            r.append(scaled[i] / c.original[i]);
        addGraph(bottom, pairIndices(std::size_t(r.size())), r, pen, name);
        return r;
    };
    auto ratios = [&](const RopeConfigData &c, const QColor &colour, const QString &name) {
        if (c.shortScaled.empty() || c.longScaled.empty())
            return ratio(c, c.scaled, QPen(colour, 2.0), name);
        return ratio(c, c.shortScaled,
                     QPen(colour, 2.0, c.longApplies ? Qt::DashLine : Qt::SolidLine),
                     name + QStringLiteral(" short")) +
               ratio(c, c.longScaled,
                     QPen(colour, 2.0, c.longApplies ? Qt::SolidLine : Qt::DashLine),
                     name + QStringLiteral(" long"));
    };
    QVector<double> all = ratios(result.a, ca, QStringLiteral("A"));
    if (showB && result.b.rope().ropeType != RopeType::Default)
        all += ratios(result.b, cb, QStringLiteral("B"));
    double rlo = 1.0, rhi = 1.0;
    for (double v : all)
        if (std::isfinite(v) && v > 0) {
            rlo = std::min(rlo, v);
            rhi = std::max(rhi, v);
        }
    const double pairs = double(result.a.original.size());
    bottom->axis(QCPAxis::atBottom)->setRange(-0.5, pairs - 0.5);
    by->setRange(rlo / 1.5, rhi * 1.5);
    // Powers of two read as the factors the rules divide by: 1, 1/2, ..., 1/8.
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int k = int(std::floor(std::log2(rlo))); k <= int(std::ceil(std::log2(rhi))); ++k)
        ticks->addTick(std::ldexp(1.0, k), k >= 0
                                               ? QString::number(1 << std::min(k, 30))
                                               : QStringLiteral("1/%1").arg(1 << std::min(-k, 30)));
    by->setTicker(ticks);
    by->setSubTicks(false);
}

void SchemeFigures::buildRotation(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    const SchemeSettings &s = result.inputs.settings;
    const qint64 p = s.rotationPosition;
    QCPLayoutGrid *grid =
        titledGrid(plot, QStringLiteral("RoPE rotation (cos pθᵢ, sin pθᵢ) up to p = %1\n%2")
                             .arg(p)
                             .arg(result.a.label));
    for (int c = 0; c < result.rotation.size(); ++c) {
        const RotationPanel &panel = result.rotation[c];
        const qint64 i = panel.pair;
        const double t = panel.theta;
        auto *rect = new SquareAxisRect(plot, true);
        // Two by two: each circle gets the larger share of a landscape figure.
        const int row = 2 * (c / 2), column = c % 2;
        grid->addElement(row + 1, column, rect);
        const double degrees = panel.angle * 180.0 / std::numbers::pi;
        grid->addElement(
            row, column,
            addTitle(plot,
                     QStringLiteral("pair %1%2: θ = %3 rad/token\nλ = %4 tokens, "
                                    "angle at p = %5: %6°")
                         .arg(i)
                         .arg(i == s.rotationPair ? QStringLiteral(" (chosen)") : QString())
                         .arg(t, 0, 'g', 4)
                         .arg(formatGrouped(std::round(2.0 * std::numbers::pi / t), 4))
                         .arg(p)
                         .arg(degrees, 0, 'f', 1),
                     0.0));
        QCPAxis *x = rect->axis(QCPAxis::atBottom);
        QCPAxis *y = rect->axis(QCPAxis::atLeft);
        x->setRange(-1.25, 1.25);
        y->setRange(-1.25, 1.25);
        x->setLabel(QStringLiteral("cos"));
        y->setLabel(QStringLiteral("sin"));
        auto *circle = new QCPCurve(x, y);
        QVector<double> ts, xs, ys;
        for (int k = 0; k <= 180; ++k) {
            const double a = 2.0 * std::numbers::pi * k / 180.0;
            ts.append(k);
            xs.append(std::cos(a));
            ys.append(std::sin(a));
        }
        circle->setData(ts, xs, ys);
        circle->setPen(QPen(m_theme.grid, 1.5));
        auto *dots = new QCPCurve(x, y);
        QVector<double> dt, dx, dy;
        for (const RotationPoint &point : panel.trail) {
            dt.append(double(point.position));
            dx.append(point.cos);
            dy.append(point.sin);
        }
        dots->setData(dt, dx, dy);
        dots->setLineStyle(QCPCurve::lsNone);
        const QColor color = m_theme.curve(c);
        dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 5));
        auto *arrow = new QCPItemLine(plot);
        arrow->setClipAxisRect(rect);
        arrow->start->setAxes(x, y);
        arrow->end->setAxes(x, y);
        arrow->start->setCoords(0, 0);
        arrow->end->setCoords(panel.trail.back().cos, panel.trail.back().sin);
        arrow->setHead(QCPLineEnding::esSpikeArrow);
        arrow->setPen(QPen(color, 2.5));
        rect->setRangeDrag({});
        rect->setRangeZoom({});
    }
    // A title row and a circle row per two panels: one pair (--dims 2) has two rows, not four,
    // and QCustomPlot warns on stderr when the factors do not match the rows.
    QList<double> stretch;
    for (int row = 0; row < grid->rowCount(); ++row)
        stretch.append(row % 2 == 0 ? 0.01 : 1.0);
    if (!stretch.isEmpty())
        grid->setRowStretchFactors(stretch);
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildDecay(QCustomPlot *plot, const SchemeResult &result) const
{
    // Curves with more points than this are drawn as bands (see below).
    constexpr qsizetype envelopeAbove = 4097;
    resetFigure(plot, m_theme);
    // Longer ranges are sampled evenly (core's decayDistances), which the title says: the
    // curve's fast oscillation is then aliased.
    const std::size_t samples = result.decayDistances.size();
    const double last = samples > 0 ? result.decayDistances.back() : 0.0;
    const QString sampling = samples > 1 && last > double(samples - 1)
                                 ? QStringLiteral(" · sampled at %1 distances").arg(samples)
                                 : QString();
    QCPLayoutGrid *grid = titledGrid(
        plot, QStringLiteral("RoPE long-term decay (RoFormer §3.4.3)\nscore of q = k = 1 over "
                             "its value at distance 0 · %1 dims%2")
                  .arg(result.a.spec.dims)
                  .arg(sampling));
    auto *rect = new FittedAxisRect(plot);
    grid->addElement(0, 0, rect);
    QCPLegend *legend = addLegend(rect, Qt::AlignRight | Qt::AlignTop);
    const SchemeSettings &settings = result.inputs.settings;
    QVector<double> x(result.decayDistances.begin(), result.decayDistances.end());
    // A log axis starts at distance 1: distance 0 has no place on it.
    const qsizetype first = settings.decayLog && !x.isEmpty() && x.first() <= 0 ? 1 : 0;
    x.remove(0, first);
    double lo = 0, hi = 1;
    for (int k = 0; k < result.decay.size(); ++k) {
        const DecayCurve &c = result.decay[k];
        QVector<double> y(c.score.begin() + first, c.score.end());
        QVector<double> cx = x;
        if (settings.decayEnvelope) {
            // The envelope: the largest |score| at this distance or beyond, so a falling curve
            // says up to where a configuration can still tell positions apart. Drawn up to half
            // the range: nearer its end too few distances remain beyond, and it falls to the
            // last value whatever the configuration.
            double beyond = 0;
            for (qsizetype i = y.size() - 1; i >= 0; --i)
                y[i] = beyond = std::max(beyond, std::abs(y[i]));
            const double half = x.isEmpty() ? 0.0 : x.last() / 2;
            qsizetype keep = 0;
            while (keep < cx.size() && cx[keep] <= half)
                ++keep;
            cx.resize(keep);
            y.resize(keep);
        }
        for (double v : y) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        QString name = c.label;
        if (c.label == result.a.label)
            name = QStringLiteral("A: ") + name;
        else if (c.label == result.b.label)
            name = QStringLiteral("B: ") + name;
        QPen pen(m_theme.curve(k), k < 2 ? 1.8 : 1.2);
        if (settings.decayEnvelope || x.size() <= envelopeAbove) {
            // Qt's raster engine strokes a wide antialiased pen along thousands of zig-zags
            // slowly (a quarter second for 4,097 distances): several points a pixel are drawn
            // 1 px, aliased, which looks the same at that density.
            const bool dense = !settings.decayEnvelope &&
                               x.size() > 2 * qsizetype(qMax(400, plot->viewport().width()));
            if (dense) {
                pen.setWidthF(1.0);
                pen.setCosmetic(true);
            }
            QCPGraph *curve =
                addGraph(rect, cx, y, pen,
                         settings.decayEnvelope ? name + QStringLiteral(" (envelope)") : name);
            curve->setAntialiased(!dense);
            curve->addToLegend(legend);
            continue;
        }
        // Thousands of oscillating points take seconds to draw and alias into noise: the curve
        // is drawn as its min / max band over runs of neighbouring distances.
        constexpr qsizetype bands = 600;
        addMinMaxBand(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft),
                      minMaxBand(
                          x.size(), bands, [&x](qsizetype i) { return x[i]; },
                          [&y](qsizetype i) { return y[i]; }),
                      pen, name)
            ->addToLegend(legend);
    }
    placeLegend(plot, rect, legend, std::nullopt); // under the plot, as the spectrum's
    if (result.a.originalContext > 0 && result.a.originalContext <= x.last()) {
        addLine(rect, double(result.a.originalContext), 0, double(result.a.originalContext), 1,
                QPen(m_theme.marker, 1.2, Qt::DashLine));
        addLabel(rect, double(result.a.originalContext), lo,
                 QStringLiteral("A's original context %1")
                     .arg(formatGrouped(double(result.a.originalContext), 4)),
                 m_theme.foreground, Qt::AlignLeft | Qt::AlignBottom);
    }
    rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("relative distance m − n (tokens)"));
    QCPAxis *distance = rect->axis(QCPAxis::atBottom);
    if (settings.decayLog) {
        distance->setScaleType(QCPAxis::stLogarithmic);
        distance->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        distance->setNumberFormat(QStringLiteral("gb"));
        distance->setRange(1, x.isEmpty() ? 10.0 : std::max(10.0, x.last()));
    } else {
        distance->setRange(0, x.isEmpty() ? 1.0 : std::max(1.0, x.last()));
    }
    rect->axis(QCPAxis::atLeft)
        ->setLabel(settings.decayEnvelope ? QStringLiteral("largest |relative score| at ≥ m − n")
                                          : QStringLiteral("relative score"));
    rect->axis(QCPAxis::atLeft)->setRange(lo - 0.05, hi + 0.05);
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildSimilarity(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    const SchemeSettings &s = result.inputs.settings;
    QCPLayoutGrid *grid = titledGrid(plot, QStringLiteral("%1 over %2 positions\n%3")
                                               .arg(metricLabel(s.metric))
                                               .arg(result.similarityA.size)
                                               .arg(result.inputs.spec.legend()));
    auto *rect = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, rect);
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    const QCPRange range = safeRange(result.similarityA.minimum, result.similarityA.maximum);
    QCPColorMap *map = addSquareMap(rect, result.similarityA, gradient, range,
                                    QStringLiteral("position q"), QStringLiteral("position p"));
    map->setColorScale(addScale(plot, grid, 0, 1, gradient, range, metricLabel(s.metric)));
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildAlibi(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    const AlibiScheme &s = result.inputs.settings.alibi;
    const double slope = s.slope();
    const SquareMatrix &bias = result.square("alibi");
    QCPLayoutGrid *grid = titledGrid(
        plot,
        QStringLiteral("ALiBi bias −m·|i − j|\nhead %1 of %2, m = %3 (2^%4)%5")
            .arg(s.head + 1)
            .arg(s.heads)
            .arg(slope, 0, 'g', 6)
            .arg(std::log2(slope), 0, 'g', 4)
            .arg(s.causal ? QStringLiteral(", causal (keys after the query masked)") : QString()));
    auto *rect = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, rect);
    QCPColorGradient gradient = colormapGradient(m_state.colormap());
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(m_theme.grid);
    const QCPRange range = safeRange(bias.minimum, bias.maximum);
    QCPColorMap *map = addSquareMap(rect, bias, gradient, range, QStringLiteral("key position j"),
                                    QStringLiteral("query position i"));
    map->setColorScale(addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("bias")));
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildT5(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    const T5Scheme &t5 = result.inputs.settings.t5;
    QCPLayoutGrid *grid = titledGrid(
        plot,
        QStringLiteral("T5 relative position bucket of j − i\n%1 buckets, max distance %2, %3")
            .arg(t5.buckets)
            .arg(t5.maxDistance)
            .arg(!t5.causal ? QStringLiteral("bidirectional (encoder)")
                            : QStringLiteral("causal (decoder)")));
    auto *rect = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, rect);
    QCPColorGradient gradient = colormapGradient(m_state.colormap());
    gradient.setLevelCount(int(std::clamp<qint64>(t5.buckets, 2, 350)));
    const QCPRange range(-0.5, double(t5.buckets) - 0.5);
    QCPColorMap *map =
        addSquareMap(rect, result.square("t5"), gradient, range, QStringLiteral("key position j"),
                     QStringLiteral("query position i"));
    map->setColorScale(addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("bucket id")));
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildCompare(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    const SchemeSettings &s = result.inputs.settings;
    QCPLayoutGrid *grid =
        titledGrid(plot, QStringLiteral("%1 over %2 positions, A and B on one scale")
                             .arg(metricLabel(s.metric))
                             .arg(s.squarePositions));
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    const QCPRange range =
        safeRange(std::min(result.similarityA.minimum, result.similarityB.minimum),
                  std::max(result.similarityA.maximum, result.similarityB.maximum));
    QCPColorScale *scale = addScale(plot, grid, 1, 2, gradient, range, metricLabel(s.metric));
    auto *group = new QCPMarginGroup(plot);
    const std::pair<const SquareMatrix *, QString> panels[] = {
        {&result.similarityA, QStringLiteral("A\n") + result.inputs.spec.legend()},
        {&result.similarityB, QStringLiteral("B\nRoPE ") + result.b.label}};
    for (int c = 0; c < 2; ++c) {
        grid->addElement(0, c, addTitle(plot, panels[c].second, 0.0));
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(1, c, rect);
        QCPColorMap *map = addSquareMap(rect, *panels[c].first, gradient, range,
                                        QStringLiteral("position q"), QStringLiteral("position p"));
        map->setColorScale(scale);
        rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    }
    scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);

    // A − B on a diverging map centred at 0 (the chosen map if it diverges, else RdBu_r), so
    // nearby settings that look alike side by side show where and by how much they differ.
    const SquareMatrix diff = differenceOf(result.similarityA, result.similarityB);
    const double reach = std::max(std::abs(diff.minimum), std::abs(diff.maximum));
    const double halfRange = reach > 0 ? reach : 1.0;
    const QCPRange diffRange(-halfRange, halfRange);
    const Colormap chosen = m_state.colormap();
    const QCPColorGradient diverging =
        colormapGradient(colormapDiverging(chosen) ? chosen : Colormap::RdBuR);
    grid->addElement(
        0, 3,
        addTitle(plot, QStringLiteral("A − B\nlargest |A − B| = %1").arg(reach, 0, 'g', 3), 0.0));
    auto *diffRect = new QCPAxisRect(plot, true);
    grid->addElement(1, 3, diffRect);
    QCPColorMap *diffMap = addSquareMap(diffRect, diff, diverging, diffRange,
                                        QStringLiteral("position q"), QStringLiteral("position p"));
    QCPColorScale *diffScale =
        addScale(plot, grid, 1, 4, diverging, diffRange, QStringLiteral("A − B"));
    diffMap->setColorScale(diffScale);
    diffRect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    diffScale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    grid->setRowStretchFactors({0.01, 1.0});
    applyPlotTheme(plot, m_theme);
}

} // namespace pe

namespace pe {

namespace {

// The figure's layout when the result holds no context report (a view drawn from another job).
bool missingContext(QCustomPlot *plot, const SchemeResult &result)
{
    if (result.context)
        return false;
    titledGrid(plot, QStringLiteral("Long context: no report computed"));
    return true;
}

// A shaded column over pairs first..last (x), the whole height of `rect`.
void addBand(QCPAxisRect *rect, double first, double last, const QColor &colour)
{
    auto *band = new QCPItemRect(rect->parentPlot());
    band->setClipAxisRect(rect);
    for (QCPItemPosition *pos : {band->topLeft, band->bottomRight}) {
        pos->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        pos->setAxisRect(rect);
        pos->setTypeX(QCPItemPosition::ptPlotCoords);
        pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    band->topLeft->setCoords(first - 0.5, 0.0);
    band->bottomRight->setCoords(last + 0.5, 1.0);
    band->setPen(Qt::NoPen);
    band->setBrush(colour);
}

// A legend entry that shows a colour (a band's): an empty graph with that brush.
void addSwatch(QCPAxisRect *rect, QCPLegend *legend, const QColor &colour, const QString &name)
{
    QCPGraph *swatch = addGraph(rect, {}, {}, QPen(colour.darker(130)), name);
    swatch->setBrush(colour);
    swatch->addToLegend(legend);
}

// A horizontal line at `value` across `rect`, labelled at its left end.
void addLevel(QCPAxisRect *rect, double value, const QPen &pen, const QString &text,
              const QColor &textColour, double key = 0.0)
{
    addLine(rect, 0, value, 1, value, pen);
    addLabel(rect, key, value, text, textColour, Qt::AlignLeft | Qt::AlignBottom);
}

QString tokens(qint64 n)
{
    return formatGrouped(double(n), 12);
}

} // namespace

void SchemeFigures::buildContextPairs(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    if (missingContext(plot, result))
        return;
    const ContextReport &r = result.context->report;
    QCPLayoutGrid *grid =
        titledGrid(plot, QStringLiteral("Wavelength 2π/θᵢ per pair: trained at %1, %2 claimed\n%3")
                             .arg(tokens(r.trainingContext), tokens(r.context), result.a.label));
    auto *rect = new FittedAxisRect(plot);
    grid->addElement(0, 0, rect);
    QCPLegend *legend = addLegend(rect, Qt::AlignLeft | Qt::AlignTop);
    logAxis(rect->axis(QCPAxis::atLeft));
    rect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("wavelength (tokens, log)"));
    rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("pair i"));

    // The rule's bands first, under the curves: one shade per treatment, runs of pairs.
    const auto shade = [this](PairTreatment t) {
        QColor c = m_theme.curve(t == PairTreatment::Unchanged      ? 2
                                 : t == PairTreatment::Blended      ? 3
                                 : t == PairTreatment::Interpolated ? 4
                                                                    : 5);
        c.setAlpha(50);
        return c;
    };
    QList<PairTreatment> shown;
    std::size_t start = 0;
    for (std::size_t k = 1; k <= r.pairs.size(); ++k) {
        if (k < r.pairs.size() && r.pairs[k].treatment == r.pairs[start].treatment)
            continue;
        const PairTreatment t = r.pairs[start].treatment;
        addBand(rect, double(start), double(k - 1), shade(t));
        if (!shown.contains(t))
            shown.append(t);
        start = k;
    }
    QVector<double> x, unscaled, scaled;
    double lo = double(r.trainingContext), hi = double(r.context);
    for (const ContextPair &p : r.pairs) {
        if (!(p.scaled > 0 && p.unscaled > 0))
            continue;
        x.append(double(p.index));
        unscaled.append(2.0 * std::numbers::pi / p.unscaled);
        scaled.append(p.wavelength);
        lo = std::min({lo, unscaled.last(), scaled.last()});
        hi = std::max({hi, unscaled.last(), scaled.last()});
    }
    addGraph(rect, x, unscaled, QPen(m_theme.marker, 1.5, Qt::DashLine),
             QStringLiteral("unscaled, base %1").arg(formatGrouped(r.config.ropeTheta, 4)))
        ->addToLegend(legend);
    if (r.config.ropeType != RopeType::Default)
        addGraph(rect, x, scaled, QPen(m_theme.curve(0), 2.0),
                 QStringLiteral("scaled: %1 x%2")
                     .arg(ropeTypeName(r.config.ropeType))
                     .arg(ropeEffectiveFactor(r.config).value_or(1.0)))
            ->addToLegend(legend);
    for (PairTreatment t : shown)
        addSwatch(rect, legend, shade(t), nameOf(pairTreatmentNames, t));
    addLevel(rect, double(r.trainingContext), QPen(m_theme.foreground, 1.0, Qt::DashDotLine),
             QStringLiteral("training context %1").arg(tokens(r.trainingContext)),
             m_theme.foreground);
    if (r.context != r.trainingContext)
        addLevel(rect, double(r.context), QPen(m_theme.curve(1), 1.4, Qt::DashLine),
                 QStringLiteral("claimed context %1").arg(tokens(r.context)), m_theme.curve(1));
    placeLegend(plot, rect, legend, std::nullopt);
    rect->axis(QCPAxis::atBottom)->setRange(-0.5, double(r.pairs.size()) - 0.5);
    rect->axis(QCPAxis::atLeft)->setRange(lo / 2.0, hi * 4.0);
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildContextBaseBound(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    if (missingContext(plot, result))
        return;
    const ContextReport &r = result.context->report;
    const ContextBaseBound &b = r.bound;
    const ContextBoundCurve &curve = result.context->bound;
    const QString smallest =
        b.minimumBase > 0
            ? QStringLiteral("smallest base with B ≥ 0 to %1: %2")
                  .arg(tokens(b.distanceLimit), formatGrouped(std::round(b.minimumBase), 12))
            : QStringLiteral("smallest base not searched");
    QCPLayoutGrid *grid =
        titledGrid(plot, QStringLiteral("Base bound B(m) = Σ cos(m θᵢ) (Men et al. 2024)\n%1 "
                                        "rotated dims, base %2 · %3")
                             .arg(r.rotaryDims)
                             .arg(formatGrouped(r.config.ropeTheta, 4), smallest));
    auto *rect = new FittedAxisRect(plot);
    grid->addElement(0, 0, rect);
    QCPLegend *legend = addLegend(rect, Qt::AlignRight | Qt::AlignTop);
    const QVector<double> x(curve.distances.begin(), curve.distances.end());
    const QVector<double> y(curve.values.begin(), curve.values.end());
    QPen pen(m_theme.curve(0), 1.2);
    // Every integer distance, or a sample of them (the fast pairs' oscillation then aliases).
    const bool sampled = !x.isEmpty() && x.last() + 1.0 > double(x.size());
    addGraph(rect, x, y, pen,
             QStringLiteral("B(m) at %1 %2distances")
                 .arg(x.size())
                 .arg(sampled ? QStringLiteral("sampled ") : QString()))
        ->addToLegend(legend);
    double lo = 0, hi = 1;
    for (double v : y) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    addLine(rect, 0, 0, 1, 0, QPen(m_theme.foreground, 1.0));
    const double limit = double(b.distanceLimit);
    addLine(rect, limit, 0, limit, 1, QPen(m_theme.curve(1), 1.4, Qt::DashLine));
    addLabel(rect, limit, hi,
             QStringLiteral("%1 %2").arg(r.window > 0 ? QStringLiteral("window")
                                                      : QStringLiteral("claimed"),
                                         tokens(b.distanceLimit)),
             m_theme.curve(1), Qt::AlignRight | Qt::AlignTop);
    const bool drawn = b.firstNegative > 0 && !x.isEmpty() && double(b.firstNegative) <= x.last();
    if (drawn) {
        const auto m = double(b.firstNegative);
        addLine(rect, m, 0, m, 1, QPen(m_theme.curve(3), 1.4, Qt::DotLine));
        QCPGraph *mark =
            addGraph(rect, {m}, {0.0}, Qt::NoPen,
                     QStringLiteral("first B(m) < 0: m = %1").arg(tokens(b.firstNegative)));
        mark->setLineStyle(QCPGraph::lsNone);
        mark->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDiamond, m_theme.curve(3), m_theme.curve(3), 10));
        mark->addToLegend(legend);
    } else {
        // A legend line that says where the scan looked (no marker to draw).
        addGraph(rect, {}, {}, Qt::NoPen,
                 b.firstNegative > 0
                     ? QStringLiteral("first B(m) < 0 at m = %1").arg(tokens(b.firstNegative))
                     : QStringLiteral("B(m) ≥ 0 to %1 (scanned)").arg(tokens(b.scanEnd)))
            ->addToLegend(legend);
    }
    placeLegend(plot, rect, legend, std::nullopt);
    rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("distance m (tokens)"));
    rect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("B(m)"));
    rect->axis(QCPAxis::atBottom)->setRange(0, x.isEmpty() ? 1.0 : std::max(1.0, x.last()));
    const double pad = 0.05 * (hi - lo);
    rect->axis(QCPAxis::atLeft)->setRange(lo - pad, hi + pad);
    applyPlotTheme(plot, m_theme);
}

void SchemeFigures::buildContextPrecision(QCustomPlot *plot, const SchemeResult &result) const
{
    resetFigure(plot, m_theme);
    if (missingContext(plot, result))
        return;
    const ContextFigureNumbers &n = *result.context;
    const ContextReport &r = n.report;
    QCPLayoutGrid *grid = titledGrid(
        plot, QStringLiteral("Precision per pair at %1 claimed\nfloat32 angle error at position "
                             "%2 · bfloat16 / float16 angle collisions")
                  .arg(tokens(r.context), tokens(r.context - 1)));
    auto *top = new FittedAxisRect(plot);
    auto *bottom = new FittedAxisRect(plot);
    grid->addElement(0, 0, top);
    grid->addElement(1, 0, bottom);
    for (QCPAxisRect *rect : {top, bottom})
        rect->setMinimumSize(50, 2 * QFontMetrics(plot->font()).height());
    auto *group = new QCPMarginGroup(plot);
    top->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    bottom->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    logAxis(top->axis(QCPAxis::atLeft));
    logAxis(bottom->axis(QCPAxis::atLeft));
    top->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("float32 error (turns)"));
    bottom->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("first collision (position)"));
    bottom->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("pair i"));
    top->axis(QCPAxis::atBottom)->setTickLabels(false);
    QCPLegend *legend = addLegend(top, Qt::AlignLeft | Qt::AlignTop);

    // Errors of exactly 0 (the angle is exact in float32) have no place on a log axis.
    QVector<double> ex, ey;
    double elo = r.float32TurnLimit, ehi = r.float32TurnLimit;
    for (const ContextPair &p : r.pairs)
        if (p.float32ErrorTurns > 0) {
            ex.append(double(p.index));
            ey.append(p.float32ErrorTurns);
            elo = std::min(elo, p.float32ErrorTurns);
            ehi = std::max(ehi, p.float32ErrorTurns);
        }
    QCPGraph *error = addGraph(top, ex, ey, QPen(m_theme.curve(0), 1.5),
                               QStringLiteral("float32 angle error at the last position"));
    error->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    error->addToLegend(legend);
    addLevel(
        top, r.float32TurnLimit, QPen(m_theme.foreground, 1.0, Qt::DashDotLine),
        QStringLiteral("1/%1 turn").arg(tokens(qint64(std::llround(1.0 / r.float32TurnLimit)))),
        m_theme.foreground);

    double clo = double(r.context), chi = double(r.context);
    const auto collisions = [&](const std::vector<qint64> &at, const QColor &colour,
                                QCPScatterStyle::ScatterShape shape, const QString &name) {
        QVector<double> x, y;
        for (std::size_t k = 0; k < at.size() && k < r.pairs.size(); ++k)
            if (at[k] >= 0) {
                x.append(double(r.pairs[k].index));
                y.append(std::max(1.0, double(at[k])));
                clo = std::min(clo, y.last());
                chi = std::max(chi, y.last());
            }
        QCPGraph *graph = addGraph(bottom, x, y, Qt::NoPen, name);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(shape, colour, colour, 7));
        graph->addToLegend(legend);
    };
    collisions(n.bfloat16Collisions, m_theme.curve(1), QCPScatterStyle::ssCircle,
               QStringLiteral("bfloat16 collision (ids exact to 256)"));
    collisions(n.float16Collisions, m_theme.curve(2), QCPScatterStyle::ssTriangle,
               QStringLiteral("float16 collision (ids exact to 2,048)"));
    addLevel(bottom, double(r.context), QPen(m_theme.curve(1), 1.4, Qt::DashLine),
             QStringLiteral("claimed context %1").arg(tokens(r.context)), m_theme.curve(1));

    // The legend under both panels, as the spectrum's.
    top->insetLayout()->take(legend);
    top->insetLayout()->simplify();
    bottom->insetLayout()->addElement(legend, Qt::AlignLeft | Qt::AlignTop);
    placeLegend(plot, bottom, legend, std::nullopt);
    for (QCPAxisRect *rect : {top, bottom})
        rect->axis(QCPAxis::atBottom)->setRange(-0.5, double(r.pairs.size()) - 0.5);
    top->axis(QCPAxis::atLeft)->setRange(elo / 4.0, ehi * 4.0);
    bottom->axis(QCPAxis::atLeft)->setRange(std::max(0.5, clo / 4.0), chi * 4.0);
    applyPlotTheme(plot, m_theme);
}

} // namespace pe
