// The window's own shortcuts from every field (issue 46). A focused text field answers Qt's
// ShortcutOverride for the keys it uses, and on X11 a QLineEdit takes Emacs-style keys too:
// Ctrl+E moved the cursor to the end of the line instead of opening Export. The window claims
// its shortcuts back, except the keys that edit the field itself: undo and redo (MainWindow
// decides those), cut, copy, paste, select all, delete, and moving or selecting by word or to
// the start or end of the text (Ctrl+Home stays the field's). Keys without Ctrl, Alt or Meta
// (typing, Escape, Delete) and function keys are untouched: typing stays typing, and F1, F5
// reach the window anyway.
#pragma once

#include <QList>

class QAction;
class QKeyEvent;
class QWidget;

namespace pe {

// The actions of `window` whose shortcuts hold Ctrl, Alt or Meta, shortcut context Window or
// Application: the ones a field could swallow. Also given to the window's non-modal helper
// dialogs (F1's help), where Ctrl+1…4 keep switching pages.
QList<QAction *> windowShortcutActions(const QWidget *window);

// True for a key a text field keeps even where the window has a shortcut on it.
bool fieldEditingKey(const QKeyEvent *key);

// True when `key` (a ShortcutOverride) is one of the shortcuts of windowShortcutActions(window),
// enabled, and no editing key of a field: the window's action is meant. Every key typed comes
// here: the actions are looked up only for a key with Ctrl, Alt or Meta.
bool claimsForWindow(const QWidget *window, const QKeyEvent *key);

} // namespace pe
