// Helpers of the suites that drive the main window (GUI suites linking pe::ui).
#pragma once

#include "views/mainwindow.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QString>
#include <QTest>
#include <QUndoStack>
#include <QWidget>

#include <memory>

namespace pe::test {

// A window on the CPU backend, shown at a fixed size, its undo stack empty; it touches no
// settings file unless `settingsFile` names one.
inline std::unique_ptr<MainWindow> openWindow(const QString &settingsFile = QString())
{
    MainWindowOptions options;
    options.persistent = !settingsFile.isEmpty();
    options.settingsFile = settingsFile;
    auto window = std::make_unique<MainWindow>(options);
    window->state()->setBackendChoice(BackendChoice::Cpu);
    window->undoStack()->clear(); // the test's own set-up is no step of the user's
    window->resize(1400, 900);
    window->show();
    window->activateWindow();
    return window;
}

// Types `text` into a field as a user does, key by key, and commits it with Enter.
inline void typeInto(QWidget *field, const QString &text)
{
    field->setFocus();
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(field, Qt::Key_Delete);
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Return);
}

// Picks the item whose data (or else text) is `data` as a user does by keyboard: F4 opens the
// list, the arrow keys move to the item, Enter takes it.
inline bool pickWithKeys(QComboBox *combo, const QString &data)
{
    int target = combo ? combo->findData(data) : -1;
    if (combo && target < 0)
        target = combo->findText(data);
    if (target < 0)
        return false;
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_F4);
    QAbstractItemView *list = combo->view();
    if (!QTest::qWaitFor([&] { return list->isVisible(); }, 5000))
        return false;
    for (int guard = 0; list->currentIndex().row() != target && guard < 64; ++guard)
        QTest::keyClick(list, list->currentIndex().row() < target ? Qt::Key_Down : Qt::Key_Up);
    QTest::keyClick(list, Qt::Key_Return);
    return combo->currentIndex() == target;
}

} // namespace pe::test
