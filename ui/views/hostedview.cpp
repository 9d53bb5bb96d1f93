#include "views/hostedview.h"

#include "compute/computescheduler.h"
#include "figures/plottheme.h"
#include "figures/viewfigures.h"
#include "widgets/wheelcoalescer.h"
#include "widgets/windowzoom.h"

#include "figures/qcpinclude.h"

namespace pe {

HostedView::HostedView(FigureView view, ExplorerState *state, ComputeScheduler *scheduler,
                       QWidget *parent)
    : FigurePlot(parent), m_view(view), m_state(state), m_scheduler(scheduler)
{
    setObjectName(QStringLiteral("hostedPlot-") + figureViewName(view));
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    WheelCoalescer::install(this); // one replot per burst of wheel turns
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] { refresh(); });
    connect(m_state, &ExplorerState::changed, this, &HostedView::refresh);
    connect(m_state, &ExplorerState::themeChanged, this, &HostedView::refresh);
    // The window's own encoding, materialised, is what an encoding view draws; sampled (a large
    // matrix), the view's numbers are computed for it.
    connect(m_scheduler, &ComputeScheduler::encodingReady, this, [this] {
        if (!m_drawn && isVisible())
            fetch();
    });
    connect(m_scheduler, &ComputeScheduler::figureDataReady, this, &HostedView::offer);
    for (auto failed : {&ComputeScheduler::figureDataFailed, &ComputeScheduler::encodingFailed})
        connect(m_scheduler, failed, this, [this](const QString &error) {
            if (m_pending && isVisible())
                showNotice(tr("Cannot compute: %1").arg(error));
        });
    connect(m_scheduler, &ComputeScheduler::cancelled, this, [this] { m_pending = false; });
}

bool HostedView::isUpToDate() const
{
    return !isVisible() || m_drawn;
}

void HostedView::showEvent(QShowEvent *event)
{
    FigurePlot::showEvent(event);
    if (!m_drawn)
        refresh();
}

void HostedView::refresh()
{
    m_drawn = false;
    if (!isVisible())
        return; // drawn when shown
    const auto encoding = m_scheduler->encoding();
    if (viewNeeds(m_view, ViewJob::Encoding) && !(encoding && encoding->spec == m_state->spec())) {
        m_pending = true; // the window's encoding is on its way (encodingReady): not computed twice
        return;
    }
    fetch();
}

void HostedView::fetch()
{
    if (m_scheduler->requestFigureData({m_view})) {
        m_pending = false;
        drawFigure(m_scheduler->figureData({m_view}));
        return;
    }
    m_pending = true;
}

void HostedView::offer(const FigureData &data)
{
    if (m_drawn || !isVisible() || !figureDataMatches(*m_state, {m_view}, data))
        return;
    m_pending = false;
    drawFigure(data);
}

void HostedView::drawFigure(const FigureData &data)
{
    buildInWindow(m_view, this, *m_state, data);
    replot();
    m_notice.clear();
    m_drawn = true;
}

void HostedView::showNotice(const QString &text)
{
    const PlotTheme theme = plotTheme(m_state->theme());
    resetFigure(this, theme);
    auto *element = new QCPTextElement(this, text);
    element->setTextColor(theme.foreground);
    plotLayout()->addElement(0, 0, element);
    replot();
    m_notice = text;
    m_pending = false;
    m_drawn = true;
}

} // namespace pe
