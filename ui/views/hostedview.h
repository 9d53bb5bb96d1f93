// HostedView: one view of the view list (state/viewlist.h) in a plot of its own, drawn through
// the list's builder (figures/viewfigures.h, buildInWindow) from the numbers the scheduler holds
// for the state's parameters, or computes for them (requestFigureData). It draws while it is
// shown, and again when the state, the theme or the numbers change. A page places each view it
// gives no place of its own in one of these (the Encoding page: every view but the waves and the
// heatmap), so that a view added to the list shows there without an edit of the page.
#pragma once

#include "compute/figuredata.h"
#include "state/explorerstate.h"
#include "widgets/figureplot.h"

namespace pe {

class ComputeScheduler;

class HostedView : public FigurePlot
{
    Q_OBJECT
public:
    HostedView(FigureView view, ExplorerState *state, ComputeScheduler *scheduler,
               QWidget *parent = nullptr);

    FigureView view() const { return m_view; }
    // True while hidden (it draws when shown), or when it shows the state's numbers or says why
    // it cannot.
    bool isUpToDate() const;
    // What it shows instead of a figure (an unmet need, a failed computation); empty when it
    // draws one.
    QString notice() const { return m_notice; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    // The state changed: draw anew, now if shown.
    void refresh();
    // Draws what the scheduler holds for the state, or asks for it.
    void fetch();
    // The scheduler's numbers arrived: draw them if they are the state's and not yet drawn.
    void offer(const FigureData &data);
    void drawFigure(const FigureData &data); // not draw(): QCustomPlot::draw is virtual
    void showNotice(const QString &text);

    FigureView m_view;
    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QString m_notice;
    bool m_pending = false; // its numbers are being computed
    bool m_drawn = false;   // it shows the state's current parameters
};

} // namespace pe
