// StateCommand: one undo step of the explorer window, the parameters before and after one
// committed change of its ExplorerState. ExplorerState pushes it (every setter goes through one
// place) and hands it what it needs of the state (Target), so that the command knows the values
// and not the state: neither includes the other (tests/layering.py). Its text names the change
// from the field tables ("Set Base to 500000", "Edit Phrase 1") unless the caller named the step
// ("Apply preset rope-decay"), and consecutive changes of the same field merge into one step (a
// slider drag, a field stepped again and again), as Qt Designer's property commands do, when
// each comes within mergeWindow of the last: two edits of one field with a pause between are two
// steps (issue 38).
#pragma once

#include "state/explorervalues.h"

#include <QString>
#include <QUndoCommand>

#include <chrono>
#include <functional>

namespace pe {

class StateCommand : public QUndoCommand
{
public:
    // What a step needs of the state it was made on: which state (only one state's steps
    // merge), how to put parameters back (undo, redo), and whether two values differ in
    // parameters at all (a step merged back to where it started is none).
    struct Target
    {
        const void *state = nullptr;
        std::function<void(const ExplorerValues &parameters)> restore;
        bool (*sameParameters)(const ExplorerValues &a, const ExplorerValues &b) = nullptr;
    };

    // Pushed after the change was made: the stack's first redo() has nothing to do.
    StateCommand(Target target, ExplorerValues before, ExplorerValues after, const QString &text);

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
    static Description describe(const ExplorerValues &before, const ExplorerValues &after);

private:
    Target m_target;
    ExplorerValues m_before;
    ExplorerValues m_after;
    QString m_key; // the one field this step changed; empty: no merging
    bool m_applied = true;
    Clock::time_point m_last = now(); // last change
};

} // namespace pe
