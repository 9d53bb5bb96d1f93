#include "dialogs/shortcutsdialog.h"
#include "widgets/screenfit.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QShortcut>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pe {

namespace {

QString keysText(const QList<QKeySequence> &keys)
{
    QStringList texts;
    for (const QKeySequence &k : keys)
        texts.append(k.toString(QKeySequence::NativeText));
    return texts.join(QStringLiteral(", "));
}

// The name a person reads in the menu, without its mnemonic or trailing ellipsis. Actions whose
// text follows the window (Undo names the step) give their fixed icon text.
QString actionName(const QAction *action)
{
    QString name = action->iconText();
    name.remove(QChar(0x2026));
    return name.trimmed();
}

QString menuTitle(const QMenu *menu)
{
    return menu->title().remove(QLatin1Char('&'));
}

// The menus in menu-bar order, depth first, each action in its place.
void collectMenu(const QMenu *menu, const QString &path, QSet<const QAction *> *seen,
                 QList<ShortcutEntry> *out)
{
    const QList<QAction *> actions = menu->actions();
    for (const QAction *action : actions) {
        if (action->menu()) {
            collectMenu(action->menu(), path + QStringLiteral(" > ") + menuTitle(action->menu()),
                        seen, out);
            continue;
        }
        if (action->isSeparator() || seen->contains(action) || action->shortcuts().isEmpty())
            continue;
        seen->insert(action);
        out->append({keysText(action->shortcuts()), actionName(action), path});
    }
}

} // namespace

QList<ShortcutEntry> shortcutEntries(const QWidget *window)
{
    QList<ShortcutEntry> out;
    QSet<const QAction *> seen;
    for (const QMenuBar *bar : window->findChildren<QMenuBar *>()) {
        const QList<QAction *> menus = bar->actions();
        for (const QAction *top : menus)
            if (top->menu())
                collectMenu(top->menu(), menuTitle(top->menu()), &seen, &out);
    }
    // Actions of no menu (toolbars, widgets) and QShortcuts, after the menus.
    const QList<QAction *> actions = window->findChildren<QAction *>();
    for (const QAction *action : actions)
        if (!seen.contains(action) && !action->shortcuts().isEmpty()) {
            seen.insert(action);
            out.append({keysText(action->shortcuts()), actionName(action), QString()});
        }
    const QList<QShortcut *> shortcuts = window->findChildren<QShortcut *>();
    for (const QShortcut *shortcut : shortcuts)
        if (!shortcut->keys().isEmpty())
            out.append(
                {keysText(shortcut->keys()),
                 shortcut->whatsThis().isEmpty() ? shortcut->objectName() : shortcut->whatsThis(),
                 QString()});
    return out;
}

ShortcutsDialog::ShortcutsDialog(QWidget *window) : QDialog(window), m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    const QList<ShortcutEntry> entries = shortcutEntries(window);
    m_table->setObjectName(QStringLiteral("shortcutsTable"));
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Shortcut"), tr("Action"), tr("Menu")});
    m_table->setRowCount(int(entries.size()));
    for (int r = 0; r < entries.size(); ++r) {
        const ShortcutEntry &e = entries[r];
        const QStringList cells{e.keys, e.action, e.menu};
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(r, c, new QTableWidgetItem(cells[c]));
    }
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->resizeColumnsToContents();
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // What a text field keeps (widgets/windowshortcuts.h), said where the keys are listed.
    auto *note = new QLabel(
        tr("These work from any field too: in a text field only its own editing keys stay the "
           "field's (undo and redo of what was typed, cut, copy, paste, select all, Ctrl+Home / "
           "Ctrl+End and moving by word)."),
        this);
    note->setObjectName(QStringLiteral("shortcutsNote"));
    note->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    fitToScreen(this, {620, 560});
}

} // namespace pe
