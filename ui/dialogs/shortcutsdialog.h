// ShortcutsDialog: Help > Keyboard shortcuts, a table generated from the window itself: every
// QAction and QShortcut it holds that has a key sequence, with the menu it sits in. Nothing is
// written by hand, so the list cannot fall behind the menus.
#pragma once

#include <QDialog>
#include <QList>
#include <QString>

class QTableWidget;

namespace pe {

struct ShortcutEntry
{
    QString keys;   // as the platform writes them ("Ctrl+Shift+Z"), several joined by ", "
    QString action; // "Undo", "Transpose heatmap"
    QString menu;   // "Edit", "File > Recent sessions", empty for a shortcut of no menu
};

// Every shortcut of `window` and its children, by menu in menu-bar order, then by name.
QList<ShortcutEntry> shortcutEntries(const QWidget *window);

class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget *window);
    QTableWidget *table() const { return m_table; }

private:
    QTableWidget *m_table;
};

} // namespace pe
