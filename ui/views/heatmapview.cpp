#include "views/heatmapview.h"

#include "figures/plottheme.h"
#include "widgets/plotpane.h"

#include "figures/qcpinclude.h"
#include "widgets/figureplot.h"
#include "widgets/windowzoom.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QStatusTipEvent>

#include <cmath>

namespace pe {

namespace {
// A press and release closer than this is a click, not a drag.
constexpr double clickSlop = 4.0;

qint64 monotonicNs()
{
    static QElapsedTimer clock = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return clock.nsecsElapsed();
}
} // namespace

HeatmapView::HeatmapView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_scheduler(scheduler), m_plot(new FigurePlot(this)),
      m_readout(new QLabel(this))
{
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] { rebuild(true); });
    setUpPlotPane(
        this, m_plot, m_readout, {200, 150},
        {QStringLiteral("heatmapPlot"),
         tr("Encoding matrix. Hover for p, i and the value; click a cell to select it; wheel to "
            "zoom, drag to pan; Ctrl+Home resets the view."),
         QStringLiteral("heatmapReadout"),
         tr("The cell under the mouse: position p, dimension i and its value")});
    m_readout->setMinimumWidth(1); // a hover's text must not widen the window (phraseview.cpp)
    m_readout->setText(tr("Computing…"));

    connect(scheduler, &ComputeScheduler::encodingReady, this, &HeatmapView::onEncoding);
    connect(scheduler, &ComputeScheduler::gridReady, this, &HeatmapView::onGrid);
    connect(scheduler, &ComputeScheduler::encodingFailed, this, [this](const QString &message) {
        if (!m_result)
            m_readout->setText(message);
    });
    for (auto signal : {&ExplorerState::colormapChanged, &ExplorerState::selectionChanged,
                        &ExplorerState::waveOptionsChanged, &ExplorerState::themeChanged})
        connect(state, signal, this, [this] { rebuild(true); });
    connect(state, &ExplorerState::transposedChanged, this, [this] { rebuild(false); });
    connect(state, &ExplorerState::heatmapDimLimitChanged, this, [this] {
        rebuild(false);
        requestGrid();
    });
    // A new scheme, model or size makes the hovered numbers false until its matrix arrives.
    connect(state, &ExplorerState::specChanged, this, [this] {
        m_readout->setText(hint());
        m_readoutResult.reset(); // the next matrix is read afresh
        if (m_formulaShown) {
            m_formulaShown = false;
            QStatusTipEvent clear{QString()};
            QCoreApplication::sendEvent(m_plot, &clear);
        }
    });
    m_plot->installEventFilter(this);
    // Once drawn (the layout final), the pixel under a still mouse may be another cell or hold
    // another value.
    connect(m_plot, &QCustomPlot::afterReplot, this, &HeatmapView::updateReadout);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapView::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &HeatmapView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &HeatmapView::onMouseRelease);
    // The scheduler dispatches on its next timer tick, after this constructor has run.
    m_scheduler->requestGrid(currentRequest());
}

QString HeatmapView::hint()
{
    return tr("Hover over the matrix for p, i and the value; click to select");
}

QString HeatmapView::readout() const
{
    return m_readout->text();
}

void HeatmapView::onEncoding(const std::shared_ptr<const EncodingResult> &result)
{
    const bool sameSize = m_result && m_result->spec.positions == result->spec.positions &&
                          m_result->spec.dims == result->spec.dims;
    m_result = result;
    m_grid = std::make_shared<HeatmapGrid>(result->grid);
    rebuild(sameSize);
    if (!sameSize)
        requestGrid();
}

void HeatmapView::onGrid(const std::shared_ptr<const HeatmapGrid> &grid)
{
    if (!m_result || !m_figure.map || grid->encodingGeneration != m_result->generation)
        return;
    const qint64 start = monotonicNs();
    m_grid = grid;
    FigureBuilder(*m_state, plotTheme(m_state->theme())).setHeatmapGrid(m_figure, *grid);
    finishRender(start);
}

void HeatmapView::rebuild(bool keepView)
{
    if (!m_result || !m_grid)
        return;
    const qint64 start = monotonicNs();
    std::optional<HeatmapRanges> ranges;
    if (keepView && m_figure.positionAxis)
        ranges = HeatmapRanges{m_figure.positionAxis->range().lower,
                               m_figure.positionAxis->range().upper,
                               m_figure.dimAxis->range().lower, m_figure.dimAxis->range().upper};
    m_building = true;
    const FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    m_figure = builder.buildHeatmap(m_plot, *m_result, *m_grid, ranges);
    m_building = false;
    for (QCPAxis *axis : {m_figure.positionAxis, m_figure.dimAxis})
        connect(axis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] {
            if (!m_building)
                requestGrid();
        });
    finishRender(start);
}

void HeatmapView::finishRender(qint64 startNs)
{
    m_plot->replot(QCustomPlot::rpQueuedRefresh);
    m_lastRenderMs = double(monotonicNs() - startNs) / 1e6;
    emit rendered(m_lastRenderMs);
}

std::optional<QCPRange> HeatmapView::positionRangeAcross() const
{
    if (!m_state->transposed() || !m_figure.positionAxis)
        return std::nullopt;
    return m_figure.positionAxis->range();
}

void HeatmapView::resetView()
{
    if (!m_result || !m_figure.positionAxis)
        return;
    const HeatmapRanges full =
        FigureBuilder(*m_state, plotTheme(m_state->theme())).fullHeatmapRanges(m_result->spec);
    m_figure.positionAxis->setRange(full.positionLower, full.positionUpper);
    m_figure.dimAxis->setRange(full.dimLower, full.dimUpper);
    m_plot->replot(QCustomPlot::rpQueuedRefresh);
    requestGrid();
}

void HeatmapView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    requestGrid();
}

GridRequest HeatmapView::currentRequest() const
{
    GridRequest request;
    request.visibleDims = m_state->heatmapDimLimit();
    const double dpr = devicePixelRatioF();
    QRect area = m_figure.rect ? m_figure.rect->rect() : m_plot->rect();
    if (area.width() < 16 || area.height() < 16)
        area = QRect(0, 0, 512, 512);
    const qint64 wide = qint64(std::ceil(area.width() * dpr));
    const qint64 high = qint64(std::ceil(area.height() * dpr));
    const bool transposed = m_state->transposed();
    request.rowPixels = transposed ? wide : high;
    request.colPixels = transposed ? high : wide;
    if (!m_result || !m_figure.positionAxis)
        return request;
    const CellWindow full = fullWindow(m_result->spec, m_state->heatmapDimLimit());
    const QCPRange p = m_figure.positionAxis->range();
    const QCPRange d = m_figure.dimAxis->range();
    CellWindow w;
    w.row0 = qBound<qint64>(0, qint64(std::floor(p.lower + 0.5)), full.row1 - 1);
    w.row1 = qBound<qint64>(w.row0 + 1, qint64(std::ceil(p.upper + 0.5)), full.row1);
    w.col0 = qBound<qint64>(0, qint64(std::floor(d.lower + 0.5)), full.col1 - 1);
    w.col1 = qBound<qint64>(w.col0 + 1, qint64(std::ceil(d.upper + 0.5)), full.col1);
    request.fullView = full.contains(w) && w.contains(full);
    if (!request.fullView)
        request.window = w;
    return request;
}

void HeatmapView::requestGrid()
{
    const GridRequest request = currentRequest();
    // A full-resolution grid that already covers the window needs no refinement.
    if (m_result && m_grid && m_grid->isFullResolution() &&
        m_grid->request.visibleDims == request.visibleDims &&
        m_grid->window.contains(requestedWindow(request, m_result->spec)))
        return;
    m_scheduler->requestGrid(request);
}

std::optional<Selection> HeatmapView::cellAt(const QPointF &pixel) const
{
    if (!m_result || !m_figure.rect || !m_figure.rect->rect().contains(pixel.toPoint()))
        return std::nullopt;
    const bool transposed = m_state->transposed();
    const double key =
        (transposed ? m_figure.positionAxis : m_figure.dimAxis)->pixelToCoord(pixel.x());
    const double value =
        (transposed ? m_figure.dimAxis : m_figure.positionAxis)->pixelToCoord(pixel.y());
    const qint64 position = qint64(std::floor((transposed ? key : value) + 0.5));
    const qint64 dim = qint64(std::floor((transposed ? value : key) + 0.5));
    const CellWindow full = fullWindow(m_result->spec, m_state->heatmapDimLimit());
    if (position < 0 || position >= full.row1 || dim < 0 || dim >= full.col1)
        return std::nullopt;
    return Selection{position, dim};
}

QPoint HeatmapView::cellCentre(qint64 position, qint64 dim) const
{
    if (!m_figure.positionAxis)
        return {};
    const double p = m_figure.positionAxis->coordToPixel(double(position));
    const double d = m_figure.dimAxis->coordToPixel(double(dim));
    return m_state->transposed() ? QPoint(int(std::lround(p)), int(std::lround(d)))
                                 : QPoint(int(std::lround(d)), int(std::lround(p)));
}

void HeatmapView::onMouseMove(QMouseEvent *event)
{
    m_hover = event->position();
    updateReadout();
}

bool HeatmapView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::Leave) {
        m_hover.reset();
        updateReadout();
    }
    return QWidget::eventFilter(watched, event);
}

void HeatmapView::updateReadout()
{
    if (!m_result)
        return;
    const std::optional<Selection> cell = m_hover ? cellAt(*m_hover) : std::nullopt;
    // Replots come often (a drag, a zoom): the same cell of the same matrix says nothing new.
    if (cell == m_readoutCell && m_result == m_readoutResult)
        return;
    m_readoutCell = cell;
    m_readoutResult = m_result;
    QString formula;
    if (!cell) {
        m_readout->setText(hint());
    } else {
        const double value = double(m_result->value(cell->position, cell->dim));
        m_readout->setText(tr("p = %1, i = %2, value = %3")
                               .arg(cell->position)
                               .arg(cell->dim)
                               .arg(value, 0, 'f', 6));
        formula = m_result->spec.cellFormula(cell->position, cell->dim, value);
    }
    // The window's status bar shows it (QMainWindow takes status tips from its children);
    // other messages stay unless a formula of ours is there to replace or clear.
    if (formula.isEmpty() && !m_formulaShown)
        return;
    m_formulaShown = !formula.isEmpty();
    QStatusTipEvent tip(formula);
    QCoreApplication::sendEvent(m_plot, &tip);
}

void HeatmapView::onMousePress(QMouseEvent *event)
{
    m_pressed = event->button() == Qt::LeftButton;
    m_pressPos = event->position();
}

void HeatmapView::onMouseRelease(QMouseEvent *event)
{
    if (!m_pressed || event->button() != Qt::LeftButton)
        return;
    m_pressed = false;
    if ((event->position() - m_pressPos).manhattanLength() > clickSlop)
        return; // a drag that panned the view
    if (const std::optional<Selection> cell = cellAt(event->position()))
        m_state->setSelection(*cell);
}

} // namespace pe
