#include "widgets/screenfit.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QScreen>
#include <QWidget>
#include <QWindow>

namespace pe {

namespace {

// A window manager's frame before the window has one: a title bar and thin borders (the
// decorations of GNOME, KDE and Xfce are 24 to 38 px high).
constexpr QMargins typicalFrame{8, 38, 8, 8};

QMargins frameOf(const QWidget *window)
{
    if (window->isVisible()) {
        const QRect frame = window->frameGeometry();
        const QRect inner = window->geometry();
        return {inner.left() - frame.left(), inner.top() - frame.top(),
                frame.right() - inner.right(), frame.bottom() - inner.bottom()};
    }
    return typicalFrame;
}

// Keeps each window on screen as it is shown.
class ScreenKeeper : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Show && watched->isWidgetType()) {
            auto *widget = static_cast<QWidget *>(watched);
            // Dialogs: the main window fits itself when it is built and restored, and a size
            // asked for on purpose (`pescope --size`, a test's) stays.
            if (widget->isWindow() && widget->windowType() == Qt::Dialog) {
                widenForTitle(widget);
                keepOnScreen(widget);
            }
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

int titleWidth(const QWidget *window)
{
    // Window managers draw titles in a bold face of about the desktop's size, beside an icon
    // and three buttons (minimize, maximize, close) each about a title bar square, with some
    // room at both ends.
    QFont font = window->font();
    font.setBold(true);
    const QFontMetrics metrics(font);
    const int square = metrics.height() + 8;
    return metrics.horizontalAdvance(window->windowTitle()) + 6 * square;
}

void widenForTitle(QWidget *window)
{
    const int wanted = titleWidth(window);
    if (window->width() >= wanted || window->windowTitle().isEmpty())
        return;
    const QRect room = roomFor(window, screenOf(window));
    const int width = room.isEmpty() ? wanted : qMin(wanted, room.width());
    window->resize(qMax(window->width(), qMin(width, window->maximumWidth())), window->height());
}

QScreen *screenOf(const QWidget *window)
{
    if (window->isVisible() && window->screen())
        return window->screen();
    if (const QWidget *parent = window->parentWidget())
        if (QScreen *screen = parent->window()->screen())
            return screen;
    if (QScreen *screen = window->screen())
        return screen;
    return QGuiApplication::primaryScreen();
}

QRect roomFor(const QWidget *window, const QScreen *screen)
{
    if (!screen)
        return {};
    return screen->availableGeometry().marginsRemoved(frameOf(window));
}

void fitToScreen(QWidget *window, QSize wanted)
{
    const QScreen *screen = screenOf(window);
    const QRect room = roomFor(window, screen);
    if (room.isEmpty()) {
        window->resize(wanted);
        return;
    }
    const QSize size = wanted.boundedTo(room.size()).expandedTo(window->minimumSize());
    window->resize(size);
    const QWidget *parent = window->parentWidget() ? window->parentWidget()->window() : nullptr;
    QRect placed(QPoint(), size);
    placed.moveCenter(parent && parent->isVisible() ? parent->geometry().center() : room.center());
    // Within the room: the top-left corner wins when the window is larger (its title bar).
    placed.moveLeft(qMax(room.left(), qMin(placed.left(), room.right() - size.width() + 1)));
    placed.moveTop(qMax(room.top(), qMin(placed.top(), room.bottom() - size.height() + 1)));
    window->move(placed.topLeft() - QPoint(frameOf(window).left(), frameOf(window).top()));
}

void keepOnScreen(QWidget *window)
{
    const QScreen *screen = screenOf(window);
    const QRect room = roomFor(window, screen);
    if (room.isEmpty())
        return;
    if (window->isMaximized() || window->isFullScreen())
        return; // the window manager keeps those on screen
    const QRect inner = window->geometry();
    if (room.contains(inner))
        return;
    const QSize size = inner.size().boundedTo(room.size()).expandedTo(window->minimumSize());
    QRect placed(inner.topLeft(), size);
    placed.moveLeft(qMax(room.left(), qMin(placed.left(), room.right() - size.width() + 1)));
    placed.moveTop(qMax(room.top(), qMin(placed.top(), room.bottom() - size.height() + 1)));
    window->resize(size);
    const QMargins frame = frameOf(window);
    window->move(placed.topLeft() - QPoint(frame.left(), frame.top()));
}

} // namespace pe

namespace pe {

ContentScrollArea::ContentScrollArea(QWidget *content, QWidget *parent) : QScrollArea(parent)
{
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setWidget(content);
}

QSize ContentScrollArea::sizeHint() const
{
    const QWidget *content = widget();
    return content ? content->sizeHint() + QSize(2 * frameWidth(), 2 * frameWidth())
                   : QScrollArea::sizeHint();
}

void keepWindowsOnScreen(QObject *owner)
{
    QCoreApplication::instance()->installEventFilter(new ScreenKeeper(owner));
}

} // namespace pe
