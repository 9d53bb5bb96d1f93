// HeatmapView: the matshow-style encoding matrix. It observes ExplorerState and the scheduler's
// results, asks the scheduler for a grid that fits its viewport, and reports hover and clicks
// back to the state (never to another view).
#pragma once

#include "compute/computescheduler.h"
#include "figures/figurebuilder.h"
#include "figures/qcpinclude.h"
#include "state/explorerstate.h"

#include <QWidget>

#include <memory>

class QCustomPlot;
class QLabel;
class QMouseEvent;
class QWheelEvent;

namespace pe {

class HeatmapView : public QWidget
{
    Q_OBJECT
public:
    HeatmapView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    // The hovered cell's p, i and value (its formula goes to the status bar), or a hint while
    // none is: recomputed whenever the matrix or its layout changes under a still mouse.
    QString readout() const;
    static QString hint(); // the readout while no cell is hovered
    std::shared_ptr<const EncodingResult> result() const { return m_result; }
    std::shared_ptr<const HeatmapGrid> grid() const { return m_grid; }
    // Widget coordinates (of plot()) of the centre of cell (position, dim) in the current view.
    QPoint cellCentre(qint64 position, qint64 dim) const;
    // The cell under a plot() pixel, if any.
    std::optional<Selection> cellAt(const QPointF &pixel) const;
    double lastRenderMs() const { return m_lastRenderMs; }
    // The position axis's range when positions run across (transposed, as Fig 16-9), for the
    // waves above to share; nullopt when positions run down or nothing is drawn yet.
    std::optional<QCPRange> positionRangeAcross() const;

public slots:
    void resetView();

signals:
    // After a replot that shows new data; ms is the time spent building and drawing it.
    void rendered(double milliseconds);

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void onEncoding(const std::shared_ptr<const EncodingResult> &result);
    void onGrid(const std::shared_ptr<const HeatmapGrid> &grid);
    void rebuild(bool keepView);
    void requestGrid();
    GridRequest currentRequest() const;
    void onMouseMove(QMouseEvent *event);
    // The readout and the status bar's formula for the cell under m_hover.
    void updateReadout();
    void onMousePress(QMouseEvent *event);
    void onMouseRelease(QMouseEvent *event);
    void finishRender(qint64 startNs);

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QCustomPlot *m_plot;
    QLabel *m_readout;
    HeatmapFigure m_figure;
    std::shared_ptr<const EncodingResult> m_result;
    std::shared_ptr<const HeatmapGrid> m_grid;
    QPointF m_pressPos;
    std::optional<QPointF> m_hover; // the mouse over the plot, in its pixels
    bool m_formulaShown = false;    // the status bar shows a cell's formula of ours
    // What the readout describes now.
    std::optional<Selection> m_readoutCell;
    std::shared_ptr<const EncodingResult> m_readoutResult;
    bool m_pressed = false;
    bool m_building = false;
    double m_lastRenderMs = 0.0;
};

} // namespace pe
