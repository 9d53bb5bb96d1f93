// EngineCheckActions: File > Check engine table… and the engine-check dialog it opens, for a
// table chosen in a file dialog or dropped onto the window (FileActions asks isEngineTableDrop).
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QWidget;

namespace pe {

class ComputeScheduler;
class EngineCheckDialog;
class ExplorerState;

class EngineCheckActions : public QObject
{
    Q_OBJECT
public:
    // `parent`: the window, the dialogs' parent and this object's owner.
    EngineCheckActions(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent);
    static EngineCheckActions *of(const QObject *window);

    QAction *action() const { return m_action; }
    // Checks `against` (FILE or FILE:TENSOR) in the engine-check dialog. Null, with a message,
    // when the window shows no rotary layer.
    EngineCheckDialog *checkEngineTable(const QString &against);
    // A dump, not a model: a tensor file without config.json beside it, no larger than the
    // largest table compared, while the window shows a rotary layer to check it against.
    bool isEngineTableDrop(const QString &path) const;

signals:
    void message(const QString &text);

private:
    void report(const QString &text);

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QWidget *m_parent;
    QAction *m_action;
    QPointer<EngineCheckDialog> m_engineCheck;
};

} // namespace pe
