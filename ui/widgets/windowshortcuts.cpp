#include "widgets/windowshortcuts.h"

#include <QAction>
#include <QKeyEvent>
#include <QKeySequence>
#include <QWidget>

#include <algorithm>
#include <iterator>

namespace pe {

namespace {

QKeySequence pressedSequence(const QKeyEvent *key)
{
    const Qt::KeyboardModifiers modifiers = key->modifiers() & ~Qt::KeypadModifier;
    return {QKeyCombination(modifiers, Qt::Key(key->key()))};
}

bool hasCommandModifier(QKeyCombination key)
{
    constexpr Qt::KeyboardModifiers command =
        Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier;
    return (key.keyboardModifiers() & command) != 0;
}

} // namespace

QList<QAction *> windowShortcutActions(const QWidget *window)
{
    QList<QAction *> out;
    for (QAction *action : window->findChildren<QAction *>()) {
        const Qt::ShortcutContext context = action->shortcutContext();
        if (context != Qt::WindowShortcut && context != Qt::ApplicationShortcut)
            continue;
        const QList<QKeySequence> keys = action->shortcuts();
        if (std::any_of(keys.begin(), keys.end(), [](const QKeySequence &k) {
                return k.count() == 1 && hasCommandModifier(k[0]);
            }))
            out.append(action);
    }
    return out;
}

bool fieldEditingKey(const QKeyEvent *key)
{
    static constexpr QKeySequence::StandardKey editing[] = {
        QKeySequence::Undo,
        QKeySequence::Redo,
        QKeySequence::Cut,
        QKeySequence::Copy,
        QKeySequence::Paste,
        QKeySequence::SelectAll,
        QKeySequence::Delete,
        QKeySequence::Backspace,
        QKeySequence::DeleteStartOfWord,
        QKeySequence::DeleteEndOfWord,
        QKeySequence::MoveToNextWord,
        QKeySequence::MoveToPreviousWord,
        QKeySequence::SelectNextWord,
        QKeySequence::SelectPreviousWord,
        QKeySequence::MoveToStartOfDocument,
        QKeySequence::MoveToEndOfDocument,
        QKeySequence::SelectStartOfDocument,
        QKeySequence::SelectEndOfDocument,
    };
    // Not key->matches(): a standard key's platform bindings include X11's Emacs keys
    // (MoveToEndOfLine is Ctrl+E there), which are exactly the ones the window takes back.
    const QKeySequence pressed = pressedSequence(key);
    return std::any_of(std::begin(editing), std::end(editing), [&](QKeySequence::StandardKey k) {
        return QKeySequence::keyBindings(k).contains(pressed);
    });
}

bool claimsForWindow(const QWidget *window, const QKeyEvent *key)
{
    const QKeySequence pressed = pressedSequence(key);
    if (pressed.isEmpty() || !hasCommandModifier(pressed[0]) || fieldEditingKey(key))
        return false;
    const QList<QAction *> actions = windowShortcutActions(window);
    return std::any_of(actions.begin(), actions.end(), [&](const QAction *action) {
        return action->isEnabled() && action->shortcuts().contains(pressed);
    });
}

} // namespace pe
