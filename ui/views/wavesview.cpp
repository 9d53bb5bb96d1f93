#include "views/wavesview.h"

#include "figures/figurebuilder.h"
#include "figures/plottheme.h"
#include "widgets/plotpane.h"

#include "figures/qcpinclude.h"
#include "widgets/figureplot.h"
#include "widgets/windowzoom.h"

#include <QLabel>

#include <cmath>

namespace pe {

WavesView::WavesView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_plot(new FigurePlot(this)), m_readout(new QLabel(this))
{
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] { rebuild(); });
    setUpPlotPane(this, m_plot, m_readout, {200, 120},
                  {QStringLiteral("wavesPlot"),
                   tr("Chosen dims against position, each in its own colour. Click near a curve "
                      "to select that position and dim; wheel zooms, drag pans."),
                   QStringLiteral("shareReadout"),
                   tr("Positions whose values in every plotted dim lie within the share "
                      "tolerance of the selected position's values")});
    m_readout->setWordWrap(true);

    // A sampled matrix's columns are computed by the scheduler for the plotted dims; a dim
    // plotted later arrives through columnsReady.
    for (auto signal : {&ComputeScheduler::encodingReady, &ComputeScheduler::columnsReady})
        connect(scheduler, signal, this, [this](std::shared_ptr<const EncodingResult> result) {
            m_result = std::move(result);
            scheduleRebuild();
        });
    for (auto signal : {&ExplorerState::selectionChanged, &ExplorerState::waveOptionsChanged,
                        &ExplorerState::themeChanged})
        connect(state, signal, this, &WavesView::scheduleRebuild);
    // Several changes in one event (a preset, a click) rebuild once, after the heatmap has had
    // its turn to draw.
    m_rebuildTimer.setSingleShot(true);
    m_rebuildTimer.setInterval(0);
    connect(&m_rebuildTimer, &QTimer::timeout, this, &WavesView::rebuild);
    connect(m_plot, &QCustomPlot::mousePress, this, &WavesView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &WavesView::onMouseRelease);
}

void WavesView::scheduleRebuild()
{
    if (!m_rebuildTimer.isActive())
        m_rebuildTimer.start();
}

bool WavesView::isUpToDate() const
{
    return !m_rebuildTimer.isActive();
}

QSize WavesView::minimumSizeHint() const
{
    // The plot's x tick labels and title, its legend's row and margins take about seven lines of
    // its font, and five value labels a line apart five more: at 150% zoom the plot's fixed
    // 120 px least height, shared with the heatmap, left the curves 50 to 76 px and their labels
    // on top of each other (issue 46.8). QSplitter gives the view this much before it shares
    // the rest; at most 55% of the splitter's current height, so that the heatmap keeps its own
    // least height and the window never grows for it (1024 x 600 at 150% has no room to spare).
    // At 100% the plots are taller than this anyway.
    QSize size = QWidget::minimumSizeHint();
    const int rest = size.height() - m_plot->minimumHeight(); // the readout and spacing
    const int wanted = 12 * fontMetrics().height();
    const QWidget *splitter = parentWidget();
    const int most = splitter ? splitter->height() * 55 / 100 - rest : wanted;
    size.setHeight(rest + qMax(m_plot->minimumHeight(), qMin(wanted, most)));
    return size;
}

QString WavesView::shareReadout() const
{
    return m_readout->text();
}

void WavesView::rebuild()
{
    if (!m_result)
        return;
    const FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    builder.buildWaves(m_plot, *m_result);
    m_readout->setText(builder.shareReadout(*m_result));
    m_plot->replot(QCustomPlot::rpQueuedRefresh);
}

QPoint WavesView::curvePoint(qint64 position, qint64 dim) const
{
    if (!m_result || !m_plot->axisRect())
        return {};
    QCPAxis *x = m_plot->axisRect()->axis(QCPAxis::atBottom);
    QCPAxis *y = m_plot->axisRect()->axis(QCPAxis::atLeft);
    return QPoint(int(std::lround(x->coordToPixel(double(position)))),
                  int(std::lround(y->coordToPixel(double(m_result->value(position, dim))))));
}

void WavesView::onMousePress(QMouseEvent *event)
{
    m_pressed = event->button() == Qt::LeftButton;
    m_pressPos = event->position();
}

void WavesView::onMouseRelease(QMouseEvent *event)
{
    if (!m_pressed || event->button() != Qt::LeftButton || !m_result || !m_plot->axisRect())
        return;
    m_pressed = false;
    if ((event->position() - m_pressPos).manhattanLength() > 4.0)
        return;
    QCPAxisRect *rect = m_plot->axisRect();
    if (!rect->rect().contains(event->position().toPoint()))
        return;
    const double x = rect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
    const double y = rect->axis(QCPAxis::atLeft)->pixelToCoord(event->position().y());
    const qint64 position = qBound<qint64>(0, qint64(std::lround(x)), m_result->spec.positions - 1);
    // The curve nearest to the click at that position becomes the selected dim.
    qint64 best = m_state->selection().dim;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (qint64 dim : m_state->plottedDims()) {
        const double distance = std::abs(double(m_result->value(position, dim)) - y);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = dim;
        }
    }
    m_state->setSelection({position, best});
}

} // namespace pe
