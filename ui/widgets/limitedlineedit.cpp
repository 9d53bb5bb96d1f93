#include "widgets/limitedlineedit.h"

#include <QAction>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QMenu>
#include <QMimeData>

#include <limits>

namespace pe {

LimitedLineEdit::LimitedLineEdit(QWidget *parent) : QLineEdit(parent) {}

void LimitedLineEdit::setLimit(qint64 limit)
{
    m_limit = limit;
    if (limit > 0)
        setMaxLength(int(qMin<qint64>(limit + 1, std::numeric_limits<int>::max())));
}

bool LimitedLineEdit::fits(const QString &text)
{
    if (m_limit <= 0)
        return true;
    const qint64 resulting =
        qint64(this->text().size()) - qint64(selectedText().size()) + qint64(text.size());
    if (resulting <= m_limit)
        return true;
    emit pasteRefused(resulting);
    return false;
}

void LimitedLineEdit::guardedPaste()
{
    if (fits(QGuiApplication::clipboard()->text()))
        paste();
}

void LimitedLineEdit::keyPressEvent(QKeyEvent *event)
{
    if (event->matches(QKeySequence::Paste) && !isReadOnly()) {
        guardedPaste();
        event->accept();
        return;
    }
    QLineEdit::keyPressEvent(event);
}

void LimitedLineEdit::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu *menu = createStandardContextMenu();
    menu->setAttribute(Qt::WA_DeleteOnClose);
    // The standard Paste action (Qt 6.4 names none of them: it is found by the shortcut its text
    // ends with, "&Paste\tCtrl+V") goes through the check.
    const QString pasteKey =
        QLatin1Char('\t') + QKeySequence(QKeySequence::Paste).toString(QKeySequence::NativeText);
    for (QAction *action : menu->actions())
        if (action->text().endsWith(pasteKey)) {
            disconnect(action, &QAction::triggered, nullptr, nullptr);
            connect(action, &QAction::triggered, this, &LimitedLineEdit::guardedPaste);
        }
    menu->popup(event->globalPos());
}

void LimitedLineEdit::mouseReleaseEvent(QMouseEvent *event)
{
    // X11's middle-click paste of the selection.
    if (event->button() == Qt::MiddleButton && !isReadOnly() &&
        QGuiApplication::clipboard()->supportsSelection() &&
        !fits(QGuiApplication::clipboard()->text(QClipboard::Selection))) {
        event->accept();
        return;
    }
    QLineEdit::mouseReleaseEvent(event);
}

void LimitedLineEdit::dropEvent(QDropEvent *event)
{
    if (event->mimeData()->hasText() && !fits(event->mimeData()->text())) {
        event->ignore();
        return;
    }
    QLineEdit::dropEvent(event);
}

} // namespace pe
