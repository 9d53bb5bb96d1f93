// LessonDocument: the lesson being built in the window (issue 40), its file and whether it has
// unsaved changes. Every edit (add, retitle, caption, reorder, duplicate, delete) is one undo
// step on the window's stack, beside the explorer's own steps; typing into one step's caption
// or title is one step until another edit comes between.
#pragma once

#include "state/lessonfile.h"

#include <QObject>
#include <QString>

class QUndoStack;

namespace pe {

class LessonDocument : public QObject
{
    Q_OBJECT

public:
    explicit LessonDocument(QObject *parent = nullptr);

    // Edits are pushed here; without a stack they apply at once and cannot be undone.
    void setUndoStack(QUndoStack *stack) { m_undo = stack; }

    const Lesson &lesson() const { return m_lesson; }
    int stepCount() const { return int(m_lesson.steps.size()); }
    const LessonStep &step(int index) const { return m_lesson.steps.at(index); }
    QString path() const { return m_path; }
    bool isModified() const { return m_modified; }

    // A new or opened lesson (not undoable: the stack's steps before it stay the window's).
    void reset(const Lesson &lesson, const QString &path);
    bool save(const QString &path, QString *error);

    // Each one undo step; indexes out of range are refused (false) and change nothing.
    bool setTitle(const QString &title);
    bool insertStep(int at, const LessonStep &step);
    bool removeStep(int index);
    bool duplicateStep(int index);
    bool moveStep(int from, int to);
    bool setStepTitle(int index, const QString &title);
    bool setStepCaption(int index, const QString &caption);
    bool setStepAnimation(int index, const std::optional<LessonAnimation> &animation);

    // Used by the undo commands: the whole lesson as it was or will be.
    void restore(const Lesson &lesson);

signals:
    void changed();

private:
    // Pushes the change from the current lesson to `after`; `mergeKey` (non-empty) makes
    // consecutive edits with the same key one step.
    void change(Lesson after, const QString &text, const QString &mergeKey = {});

    Lesson m_lesson;
    QString m_path;
    bool m_modified = false;
    QUndoStack *m_undo = nullptr;
};

} // namespace pe
