#include "widgets/wheelcoalescer.h"

#include <QCoreApplication>
#include <QTimer>
#include <QWheelEvent>

namespace pe {

WheelCoalescer::WheelCoalescer(QWidget *target) : QObject(target), m_target(target) {}

WheelCoalescer *WheelCoalescer::install(QWidget *target)
{
    auto *coalescer = new WheelCoalescer(target);
    target->installEventFilter(coalescer);
    return coalescer;
}

bool WheelCoalescer::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_target || event->type() != QEvent::Wheel || m_delivering)
        return QObject::eventFilter(watched, event);
    const auto *wheel = static_cast<const QWheelEvent *>(event);
    // A turn elsewhere or with other keys held is a zoom of its own.
    if (m_pending && (wheel->position() != m_position || wheel->modifiers() != m_modifiers))
        deliver();
    m_angle += wheel->angleDelta();
    m_pixels += wheel->pixelDelta();
    m_position = wheel->position();
    m_globalPosition = wheel->globalPosition();
    m_buttons = wheel->buttons();
    m_modifiers = wheel->modifiers();
    if (!m_pending) {
        m_pending = true;
        QTimer::singleShot(0, this, &WheelCoalescer::deliver);
    }
    event->accept();
    return true;
}

void WheelCoalescer::deliver()
{
    if (!m_pending || !m_target)
        return;
    m_pending = false;
    QWheelEvent merged(m_position, m_globalPosition, m_pixels, m_angle, m_buttons, m_modifiers,
                       Qt::NoScrollPhase, false);
    m_angle = {};
    m_pixels = {};
    m_delivering = true;
    QCoreApplication::sendEvent(m_target, &merged);
    m_delivering = false;
}

} // namespace pe
