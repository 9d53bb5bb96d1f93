#include "figures/tablefigures.h"

#include "figures/colormapgradient.h"
#include "figures/figurebuilder.h"
#include "figures/fittedtext.h"
#include "figures/schemefigures.h"
#include "model/positiontable.h"

#include "figures/qcpinclude.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pe {

namespace {

QCPRange safeRange(double lo, double hi)
{
    return hi > lo ? QCPRange(lo, hi) : QCPRange(lo - 0.5, lo + 0.5);
}

QString tableLegend(const TableResult &result)
{
    const PositionTable &t = *result.table;
    return QStringLiteral("%1 of %2, %3 positions × %4 dims")
        .arg(t.tensor, t.source)
        .arg(result.positions)
        .arg(t.columns);
}

QString percent(double fraction)
{
    return QStringLiteral("%1 %").arg(100.0 * fraction, 0, 'f', 1);
}

// Points (x_p, y_p) coloured by position p: one scatter curve per band of positions, over a thin
// line through them all in order (the path of the helix).
void addPositionScatter(QCPAxisRect *rect, const std::vector<double> &x,
                        const std::vector<double> &y, const QCPColorGradient &gradient,
                        const QColor &lineColor)
{
    QCPAxis *keyAxis = rect->axis(QCPAxis::atBottom);
    QCPAxis *valueAxis = rect->axis(QCPAxis::atLeft);
    const qint64 n = qint64(x.size());
    auto *path = new QCPCurve(keyAxis, valueAxis);
    path->setData(QVector<double>(x.begin(), x.end()), QVector<double>(y.begin(), y.end()));
    path->setPen(QPen(lineColor, 0.8));
    const qint64 bands = std::min<qint64>(n, 64);
    QCPColorGradient g = gradient;
    const QCPRange range(0, double(std::max<qint64>(1, n - 1)));
    for (qint64 b = 0; b < bands; ++b) {
        const qint64 first = b * n / bands, last = (b + 1) * n / bands;
        if (last <= first)
            continue;
        auto *band = new QCPCurve(keyAxis, valueAxis);
        band->setData(QVector<double>(x.begin() + first, x.begin() + last),
                      QVector<double>(y.begin() + first, y.begin() + last));
        band->setLineStyle(QCPCurve::lsNone);
        const QColor color = QColor::fromRgb(g.color(0.5 * double(first + last - 1), range));
        band->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 5));
        band->setPen(QPen(color));
    }
    double lo = 0, hi = 0;
    for (const auto *v : {&x, &y})
        for (double d : *v) {
            lo = std::min(lo, d);
            hi = std::max(hi, d);
        }
    const double pad = 0.05 * (hi - lo > 0 ? hi - lo : 1.0);
    const auto [xlo, xhi] = std::minmax_element(x.begin(), x.end());
    const auto [ylo, yhi] = std::minmax_element(y.begin(), y.end());
    keyAxis->setRange(*xlo - pad, *xhi + pad);
    valueAxis->setRange(*ylo - pad, *yhi + pad);
}

} // namespace

TableFigures::TableFigures(const FigureState &state, const PlotTheme &theme)
    : m_state(state), m_theme(theme)
{}

QString TableFigures::varianceText(const PositionPca &pca)
{
    QStringList parts;
    for (int c = 0; c < pca.components; ++c)
        parts.append(QStringLiteral("PC%1 %2").arg(c + 1).arg(percent(pca.explainedVariance[c])));
    return parts.join(QStringLiteral(", "));
}

void TableFigures::buildSimilarity(QCustomPlot *plot, const TableResult &result) const
{
    resetFigure(plot, m_theme);
    const SquareMatrix &m = result.similarity;
    QCPLayoutGrid *grid =
        fittedTitledGrid(plot, QStringLiteral("Cosine similarity of positions, first %1\n%2")
                                   .arg(m.size)
                                   .arg(tableLegend(result)));
    auto *rect = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, rect);
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    const QCPRange range = safeRange(m.minimum, m.maximum);
    QCPColorMap *map = addSquareMap(rect, m, gradient, range, QStringLiteral("position q"),
                                    QStringLiteral("position p"));
    map->setColorScale(
        addScale(plot, grid, 0, 1, gradient, range, QStringLiteral("cos(PE(p), PE(q))")));
    applyPlotTheme(plot, m_theme);
}

void TableFigures::buildPca(QCustomPlot *plot, const TableResult &result) const
{
    resetFigure(plot, m_theme);
    const PositionPca &pca = result.pca;
    QCPLayoutGrid *grid = fittedTitledGrid(
        plot, QStringLiteral("PCA of the position vectors: explained variance %1\n%2")
                  .arg(varianceText(pca), tableLegend(result)));
    const qint64 n = result.positions;
    const int k = pca.components;
    const auto scores = [&](int c) {
        std::vector<double> v(static_cast<std::size_t>(n));
        for (qint64 p = 0; p < n; ++p)
            v[std::size_t(p)] = pca.scores[std::size_t(p * k + c)];
        return v;
    };
    const auto label = [&](int c) {
        return QStringLiteral("PC%1 (%2)").arg(c + 1).arg(percent(pca.explainedVariance[c]));
    };
    const QCPColorGradient gradient = colormapGradient(m_state.colormap());
    int column = 0;
    for (const auto &[a, b] : {std::pair{0, 1}, std::pair{1, 2}}) {
        if (b >= k)
            break;
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(0, column++, rect);
        rect->axis(QCPAxis::atBottom)->setLabel(label(a));
        rect->axis(QCPAxis::atLeft)->setLabel(label(b));
        addPositionScatter(rect, scores(a), scores(b), gradient, m_theme.grid);
    }
    if (column == 0) { // a single component: PC1 against position
        auto *rect = new QCPAxisRect(plot, true);
        grid->addElement(0, column++, rect);
        std::vector<double> p(static_cast<std::size_t>(n));
        for (qint64 i = 0; i < n; ++i)
            p[std::size_t(i)] = double(i);
        rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("position p"));
        rect->axis(QCPAxis::atLeft)->setLabel(label(0));
        addPositionScatter(rect, p, scores(0), gradient, m_theme.grid);
    }
    addScale(plot, grid, 0, column, gradient, QCPRange(0, double(std::max<qint64>(1, n - 1))),
             QStringLiteral("position p"));
    applyPlotTheme(plot, m_theme);
}

void TableFigures::buildSinusoidFit(QCustomPlot *plot, const TableResult &result) const
{
    resetFigure(plot, m_theme);
    const qint64 dim = result.inputs.dim;
    const SinusoidFit &f = result.fits[std::size_t(dim)];
    const double mean = meanRSquared(result.fits);
    QCPLayoutGrid *grid =
        fittedTitledGrid(plot, QStringLiteral("Best-fitting sinusoid per dimension: mean R² %1\n%2")
                                   .arg(mean, 0, 'f', 3)
                                   .arg(tableLegend(result)));
    auto *top = new QCPAxisRect(plot, true);
    auto *bottom = new QCPAxisRect(plot, true);
    grid->addElement(0, 0, top);
    grid->addElement(1, 0, bottom);
    auto *group = new QCPMarginGroup(plot);
    top->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    bottom->setMarginGroup(QCP::msLeft | QCP::msRight, group);

    QVector<double> dims, r2;
    for (std::size_t j = 0; j < result.fits.size(); ++j) {
        dims.append(double(j));
        r2.append(result.fits[j].rSquared);
    }
    auto *bars = new QCPGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
    bars->setData(dims, r2, true);
    bars->setLineStyle(QCPGraph::lsImpulse);
    bars->setPen(QPen(m_theme.curve(0), 1.2));
    auto *chosen = new QCPGraph(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
    chosen->setData({double(dim)}, {f.rSquared});
    chosen->setLineStyle(QCPGraph::lsNone);
    chosen->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, m_theme.curve(1), m_theme.curve(1), 9));
    top->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("dimension i"));
    top->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("R² of the best sinusoid"));
    top->axis(QCPAxis::atBottom)->setRange(-0.5, double(result.fits.size()) - 0.5);
    top->axis(QCPAxis::atLeft)
        ->setRange(std::min(0.0, *std::min_element(r2.begin(), r2.end())), 1.05);

    const qint64 n = result.positions;
    QVector<double> p, data, fit;
    for (qint64 i = 0; i < n; ++i) {
        p.append(double(i));
        data.append(result.column[std::size_t(i)]);
        fit.append(f.at(double(i)));
    }
    auto *values = new QCPGraph(bottom->axis(QCPAxis::atBottom), bottom->axis(QCPAxis::atLeft));
    values->setData(p, data, true);
    values->setPen(QPen(m_theme.curve(0), 1.5));
    values->setName(QStringLiteral("table, i = %1").arg(dim));
    auto *curve = new QCPGraph(bottom->axis(QCPAxis::atBottom), bottom->axis(QCPAxis::atLeft));
    curve->setData(p, fit, true);
    curve->setPen(QPen(m_theme.curve(1), 1.5, Qt::DashLine));
    curve->setName(QStringLiteral("fit: ω = %1 (period %2), φ = %3, R² = %4")
                       .arg(f.angularFrequency, 0, 'g', 4)
                       .arg(2 * std::numbers::pi / f.angularFrequency, 0, 'f', 1)
                       .arg(f.phase, 0, 'f', 3)
                       .arg(f.rSquared, 0, 'f', 4));
    QCPLegend *legend = addFigureLegend(bottom);
    values->addToLegend(legend);
    curve->addToLegend(legend);
    // Beside or below the plot, never over the table's values (inside, it covered them).
    placeLegend(plot, bottom, legend, m_legend);
    bottom->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("position p"));
    bottom->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("value of dimension %1").arg(dim));
    bottom->axis(QCPAxis::atBottom)->setRange(0, double(std::max<qint64>(1, n - 1)));
    values->rescaleValueAxis(false, true);
    curve->rescaleValueAxis(true, true);
    applyPlotTheme(plot, m_theme);
}

} // namespace pe
