// EncodingPage: the Encoding page. The parameter panel beside the waves over the heatmap (Fig
// 16-9), the two panes of their own (WavesView, HeatmapView); every other view the view list puts
// on this page (viewsOf(Page::Encoding)) gets a tab of its own, a HostedView drawn through the
// list's builder, so a view added to the list shows here without an edit of this page. With no
// other view there is no tab widget at all: the page is the panel and the two panes, as ever.
#pragma once

#include "state/explorerstate.h"
#include "views/viewpage.h"

#include <QList>
#include <QWidget>

class QSplitter;
class QTabWidget;

namespace pe {

class ComputeScheduler;
class HeatmapView;
class HostedView;
class ParameterPanel;
class WavesView;

class EncodingPage : public QWidget
{
    Q_OBJECT
public:
    EncodingPage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    ParameterPanel *parameterPanel() const { return m_panel; }
    WavesView *wavesView() const { return m_waves; }
    HeatmapView *heatmapView() const { return m_heatmap; }
    // The panel beside the figures ("encodingSplitter"), the waves over the heatmap
    // ("plotSplitter"): the window keeps their sizes in its settings.
    QSplitter *splitter() const { return m_splitter; }
    QSplitter *plotSplitter() const { return m_plotSplitter; }
    // The views the page places in tabs after the two panes' tab, in the list's order; their
    // plots; null when the page has no tabs (no view but the two panes).
    static QList<FigureView> tabViews();
    QList<HostedView *> hostedViews() const { return m_hosted; }
    QTabWidget *tabs() const { return m_tabs; }
    // The views shown now: the heatmap and the waves, or the current tab's.
    QList<FigureView> shownViews() const;
    // Shows the tab of `view` (the waves' and the heatmap's is one); false if the page hosts no
    // such view.
    bool setCurrentView(FigureView view);
    // True when the current tab shows the state's numbers (the two panes answer for themselves).
    bool isUpToDate() const;
    // What the page shows, for those who ask the current page (viewpage.h).
    ViewPage viewPage() const;

private:
    HostedView *currentHosted() const;

    ParameterPanel *m_panel;
    WavesView *m_waves;
    HeatmapView *m_heatmap;
    QSplitter *m_splitter;
    QSplitter *m_plotSplitter;
    QTabWidget *m_tabs = nullptr;
    QList<HostedView *> m_hosted;
};

} // namespace pe
