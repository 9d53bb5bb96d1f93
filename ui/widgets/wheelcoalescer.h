// WheelCoalescer: merges a burst of wheel events on a plot into one. QCustomPlot replots at once
// for every wheel event it zooms by (QCPAxisRect::wheelEvent calls replot() directly), so a few
// turns of the wheel over a plot that takes a second to draw (the waves over 131,072 positions
// at scale factor 2) kept the window from answering for half a minute (the monkey test, seed 4).
// Here the events that arrive together are summed and the plot gets one event with their whole
// turn, at the next turn of the event loop: QCustomPlot zooms by the same total factor and
// replots once.
#pragma once

#include <QObject>
#include <QPoint>
#include <QPointF>
#include <QPointer>
#include <QWidget>

namespace pe {

class WheelCoalescer : public QObject
{
    Q_OBJECT
public:
    // Installs itself on `target` (as its child).
    static WheelCoalescer *install(QWidget *target);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit WheelCoalescer(QWidget *target);
    void deliver();

    QPointer<QWidget> m_target;
    bool m_pending = false;
    bool m_delivering = false;
    QPoint m_angle;
    QPoint m_pixels;
    QPointF m_position;
    QPointF m_globalPosition;
    Qt::MouseButtons m_buttons;
    Qt::KeyboardModifiers m_modifiers;
};

} // namespace pe
