// Every window and dialog fits the screen it opens on (issue 38): a size wanted at design time
// (1400 x 900 for the main window, 1000 x 780 for Check engine table…) is bounded by the
// available geometry of that screen, less room for the window manager's frame, and a window
// restored from settings or grown by its content is moved and shrunk back inside it. The one
// helper every top-level of the window uses.
#pragma once

#include <QRect>
#include <QScrollArea>
#include <QSize>

class QObject;
class QScreen;
class QWidget;

namespace pe {

// The screen `window` opens on: its parent's, its own once shown, else the primary screen.
QScreen *screenOf(const QWidget *window);

// The room a window may take on `screen`: its available geometry less the frame a window
// manager adds (the frame's real size once the window has one, else a typical title bar).
QRect roomFor(const QWidget *window, const QScreen *screen);

// Resizes `window` to `wanted` bounded by its screen's room (and no smaller than its minimum
// size allows), and centres it there, on its parent when it has one. Call before show().
void fitToScreen(QWidget *window, QSize wanted);

// Moves and shrinks a window (restored geometry, content that grew) so that its frame lies
// within its screen's available geometry; leaves a window that fits where it is.
void keepOnScreen(QWidget *window);

// A frameless scroll area around a dialog's content whose size hint is the content's whole size
// (QScrollArea caps its hint at 24 lines): the dialog is as large as its content where the
// screen has room and scrolls where it has not.
class ContentScrollArea : public QScrollArea
{
    Q_OBJECT
public:
    explicit ContentScrollArea(QWidget *content, QWidget *parent = nullptr);
    QSize sizeHint() const override;
};

// The width a window needs for its whole title in a window manager's title bar (a bold title
// beside an icon and three buttons): a narrow QInputDialog's "Export handout" was drawn as
// "Export… ndout" (issue 46.8).
int titleWidth(const QWidget *window);
// Widens `window` (not yet shown) to titleWidth where its screen has the room.
void widenForTitle(QWidget *window);

// From now on every dialog of the application is kept on its screen as it is shown
// (keepOnScreen), and as wide as its title (widenForTitle): message boxes and file dialogs
// included. The filter lives as long as `owner`.
void keepWindowsOnScreen(QObject *owner);

} // namespace pe
