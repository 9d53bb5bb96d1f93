// WavesView: chosen dims of the encoding against position, with Fig 16-9's markers, dots and
// crosses, and a readout of the positions that share the selected position's values.
#pragma once

#include "compute/computescheduler.h"
#include "state/explorerstate.h"

#include <QTimer>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace pe {

class WavesView : public QWidget
{
    Q_OBJECT
public:
    WavesView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    QString shareReadout() const;
    std::shared_ptr<const EncodingResult> result() const { return m_result; }
    // Widget coordinates (of plot()) of the point (position, value of dim at position).
    QPoint curvePoint(qint64 position, qint64 dim) const;
    // False while a rebuild is pending.
    bool isUpToDate() const;
    // Room for the curves at the window's zoom (see wavesview.cpp).
    QSize minimumSizeHint() const override;

private:
    void scheduleRebuild();
    void rebuild();
    void onMousePress(QMouseEvent *event);
    void onMouseRelease(QMouseEvent *event);

    ExplorerState *m_state;
    QCustomPlot *m_plot;
    QLabel *m_readout;
    std::shared_ptr<const EncodingResult> m_result;
    QPointF m_pressPos;
    bool m_pressed = false;
    QTimer m_rebuildTimer;
};

} // namespace pe
