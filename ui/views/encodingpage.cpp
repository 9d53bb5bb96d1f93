#include "views/encodingpage.h"

#include "views/heatmapview.h"
#include "views/hostedview.h"
#include "views/wavesview.h"
#include "widgets/fittingscrollarea.h"
#include "widgets/parameterpanel.h"
#include "widgets/plotaligner.h"

#include "figures/qcpinclude.h"

#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace pe {

namespace {

// The views of the page's own panes, which are laid out by hand: the waves over the heatmap.
bool hasOwnPane(FigureView view)
{
    return view == FigureView::Heatmap || view == FigureView::Waves;
}

} // namespace

EncodingPage::EncodingPage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_panel(new ParameterPanel(state, this)),
      m_waves(new WavesView(state, scheduler, this)),
      m_heatmap(new HeatmapView(state, scheduler, this)),
      m_splitter(new QSplitter(Qt::Horizontal, this)),
      m_plotSplitter(new QSplitter(Qt::Vertical, this))
{
    setObjectName(QStringLiteral("encodingPage"));
    // As wide as the panel's widest row: no horizontal scroll bar, nothing clipped.
    auto *panelScroll = new FittingScrollArea(m_panel, 260, this);
    m_plotSplitter->setObjectName(QStringLiteral("plotSplitter"));
    m_plotSplitter->addWidget(m_waves);
    m_plotSplitter->addWidget(m_heatmap);
    m_plotSplitter->setStretchFactor(0, 1);
    m_plotSplitter->setStretchFactor(1, 1);
    // The waves' x axis over the heatmap's, pixel for pixel, as in the exported figure.
    new PlotAligner(
        m_waves->plot(), m_heatmap->plot(), [this] { return m_heatmap->positionRangeAcross(); },
        this);
    QWidget *figures = m_plotSplitter;
    if (const QList<FigureView> views = tabViews(); !views.isEmpty()) {
        m_tabs = new QTabWidget(this);
        m_tabs->setObjectName(QStringLiteral("encodingTabs"));
        m_tabs->setTabBarAutoHide(true);
        m_tabs->addTab(m_plotSplitter, tr("Waves and heatmap"));
        m_tabs->setTabToolTip(0, tr("The waves over the heatmap (Fig 16-9)"));
        for (FigureView view : views) {
            auto *plot = new HostedView(view, state, scheduler, m_tabs);
            m_hosted.append(plot);
            m_tabs->addTab(plot, figureViewTitle(view));
            m_tabs->setTabToolTip(m_tabs->count() - 1, viewTabTip(view, Page::Encoding));
        }
        figures = m_tabs;
    }
    m_splitter->setObjectName(QStringLiteral("encodingSplitter"));
    m_splitter->addWidget(panelScroll);
    m_splitter->addWidget(figures);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({300, 1000});
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_splitter);
}

QList<FigureView> EncodingPage::tabViews()
{
    QList<FigureView> views = viewsOf(Page::Encoding);
    views.removeIf(hasOwnPane);
    return views;
}

HostedView *EncodingPage::currentHosted() const
{
    return m_tabs ? qobject_cast<HostedView *>(m_tabs->currentWidget()) : nullptr;
}

QList<FigureView> EncodingPage::shownViews() const
{
    if (const HostedView *hosted = currentHosted())
        return {hosted->view()};
    QList<FigureView> views = viewsOf(Page::Encoding);
    views.removeIf([](FigureView view) { return !hasOwnPane(view); });
    return views;
}

bool EncodingPage::setCurrentView(FigureView view)
{
    if (hasOwnPane(view)) {
        if (m_tabs)
            m_tabs->setCurrentIndex(0);
        return true;
    }
    for (HostedView *hosted : m_hosted)
        if (hosted->view() == view) {
            m_tabs->setCurrentWidget(hosted);
            return true;
        }
    return false;
}

bool EncodingPage::isUpToDate() const
{
    const HostedView *hosted = currentHosted();
    return !hosted || hosted->isUpToDate();
}

ViewPage EncodingPage::viewPage() const
{
    return {.page = Page::Encoding,
            .shows = [this](FigureView view) { return shownViews().contains(view); },
            .figure = [this]() -> QList<FigureView> {
                if (const HostedView *hosted = currentHosted())
                    return {hosted->view()};
                // Fig 16-9: the waves over the heatmap, one figure.
                return {FigureView::Waves, FigureView::Heatmap};
            },
            .size =
                [this] {
                    if (const HostedView *hosted = currentHosted())
                        return hosted->size();
                    const QSize waves = m_waves->plot()->size();
                    const QSize heat = m_heatmap->plot()->size();
                    return QSize(qMax(waves.width(), heat.width()), waves.height() + heat.height());
                }};
}

} // namespace pe
