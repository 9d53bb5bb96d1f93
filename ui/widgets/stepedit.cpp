#include "widgets/stepedit.h"

#include <QKeyEvent>

namespace pe {

StepEdit::StepEdit(QWidget *parent) : QLineEdit(parent) {}

void StepEdit::keyPressEvent(QKeyEvent *event)
{
    qint64 step = 0;
    switch (event->key()) {
    case Qt::Key_Up:
        step = 1;
        break;
    case Qt::Key_Down:
        step = -1;
        break;
    case Qt::Key_PageUp:
        step = 10;
        break;
    case Qt::Key_PageDown:
        step = -10;
        break;
    default:
        QLineEdit::keyPressEvent(event);
        return;
    }
    bool ok = false;
    const qint64 value = text().trimmed().toLongLong(&ok);
    if (!ok) {
        QLineEdit::keyPressEvent(event);
        return;
    }
    setText(QString::number(qBound(m_minimum, value + step, m_maximum)));
    emit stepped();
}

} // namespace pe
