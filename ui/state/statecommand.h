// StateCommand: one undo step of the explorer window, the parameters before and after one
// committed change of its ExplorerState. ExplorerState pushes it (every setter goes through one
// place); its text names the change from the field tables ("Set Base to 500000", "Edit Phrase 1")
// unless the caller named the step ("Apply preset rope-decay"), and consecutive changes of the
// same field merge into one step (a slider drag, a field stepped again and again), as Qt
// Designer's property commands do, when each comes within mergeWindow of the last: two edits
// of one field with a pause between are two steps (issue 38).
#pragma once

#include "state/explorerstate.h"

#include <QString>
#include <QUndoCommand>

#include <chrono>

namespace pe {

class StateCommand : public QUndoCommand
{
public:
    // Pushed after the change was made: the stack's first redo() has nothing to do.
    StateCommand(ExplorerState *state, ExplorerState::Values before, ExplorerState::Values after,
                 const QString &text);

    // The longest pause between two changes of one field that still makes them one step.
    static constexpr std::chrono::milliseconds mergeWindow{1000};
    using Clock = std::chrono::steady_clock;
    // The clock changes are timed by: steady_clock, or a test's own, so that "a pause" in a test
    // does not depend on how fast the machine runs it.
    static inline Clock::time_point (*now)() = &Clock::now;

    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;
    void undo() override;
    void redo() override;

    // What one step changed, in words; `key` names the field when exactly one changed (the
    // merge key), else it is empty.
    struct Description
    {
        QString text;
        QString key;
    };
    static Description describe(const ExplorerState::Values &before,
                                const ExplorerState::Values &after);

private:
    ExplorerState *m_state;
    ExplorerState::Values m_before;
    ExplorerState::Values m_after;
    QString m_key; // the one field this step changed; empty: no merging
    bool m_applied = true;
    Clock::time_point m_last = now(); // last change
};

} // namespace pe
