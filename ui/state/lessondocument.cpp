#include "state/lessondocument.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <utility>

namespace pe {

namespace {

// One edit of the lesson: the whole lesson before and after (a lesson is small next to what
// its steps' figures compute, and a snapshot cannot go out of step with the edit).
class LessonCommand : public QUndoCommand
{
public:
    LessonCommand(LessonDocument *document, Lesson before, Lesson after, const QString &text,
                  QString mergeKey)
        : QUndoCommand(text), m_document(document), m_before(std::move(before)),
          m_after(std::move(after)), m_key(std::move(mergeKey))
    {}

    // Qt merges only commands with the same id; a key makes "typing in one field" one step.
    int id() const override { return m_key.isEmpty() ? -1 : 0x1e550; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = static_cast<const LessonCommand *>(other);
        if (next->m_key != m_key || next->m_document != m_document)
            return false;
        m_after = next->m_after;
        return true;
    }
    void undo() override { m_document->restore(m_before); }
    void redo() override { m_document->restore(m_after); }

private:
    LessonDocument *m_document;
    Lesson m_before;
    Lesson m_after;
    QString m_key;
};

bool inRange(const Lesson &lesson, int index)
{
    return index >= 0 && index < lesson.steps.size();
}

} // namespace

LessonDocument::LessonDocument(QObject *parent) : QObject(parent)
{
    m_lesson.title = tr("Untitled lesson");
}

void LessonDocument::reset(const Lesson &lesson, const QString &path)
{
    m_lesson = lesson;
    m_path = path;
    m_modified = false;
    emit changed();
}

bool LessonDocument::save(const QString &path, QString *error)
{
    if (!saveLesson(m_lesson, path, error))
        return false;
    m_path = path;
    m_modified = false;
    emit changed();
    return true;
}

void LessonDocument::restore(const Lesson &lesson)
{
    m_lesson = lesson;
    m_modified = true;
    emit changed();
}

void LessonDocument::change(Lesson after, const QString &text, const QString &mergeKey)
{
    if (after == m_lesson)
        return;
    if (!m_undo) {
        restore(after);
        return;
    }
    // QUndoStack::push runs redo(), which applies `after`.
    m_undo->push(new LessonCommand(this, m_lesson, std::move(after), text, mergeKey));
}

bool LessonDocument::setTitle(const QString &title)
{
    Lesson after = m_lesson;
    after.title = title.left(lessonlimits::maxTitleChars);
    change(std::move(after), tr("Retitle lesson"), QStringLiteral("title"));
    return true;
}

bool LessonDocument::insertStep(int at, const LessonStep &step)
{
    if (at < 0 || at > m_lesson.steps.size() || m_lesson.steps.size() >= lessonlimits::maxSteps)
        return false;
    Lesson after = m_lesson;
    after.steps.insert(at, step);
    change(std::move(after), tr("Add lesson step %1").arg(at + 1));
    return true;
}

bool LessonDocument::removeStep(int index)
{
    if (!inRange(m_lesson, index))
        return false;
    Lesson after = m_lesson;
    after.steps.removeAt(index);
    change(std::move(after), tr("Delete lesson step %1").arg(index + 1));
    return true;
}

bool LessonDocument::duplicateStep(int index)
{
    if (!inRange(m_lesson, index) || m_lesson.steps.size() >= lessonlimits::maxSteps)
        return false;
    Lesson after = m_lesson;
    after.steps.insert(index + 1, m_lesson.steps.at(index));
    change(std::move(after), tr("Duplicate lesson step %1").arg(index + 1));
    return true;
}

bool LessonDocument::moveStep(int from, int to)
{
    if (!inRange(m_lesson, from) || !inRange(m_lesson, to))
        return false;
    Lesson after = m_lesson;
    after.steps.move(from, to);
    change(std::move(after), tr("Move lesson step %1 to %2").arg(from + 1).arg(to + 1));
    return true;
}

bool LessonDocument::setStepTitle(int index, const QString &title)
{
    if (!inRange(m_lesson, index))
        return false;
    Lesson after = m_lesson;
    after.steps[index].title = title.left(lessonlimits::maxTitleChars);
    change(std::move(after), tr("Retitle lesson step %1").arg(index + 1),
           QStringLiteral("title %1").arg(index));
    return true;
}

bool LessonDocument::setStepCaption(int index, const QString &caption)
{
    if (!inRange(m_lesson, index))
        return false;
    Lesson after = m_lesson;
    after.steps[index].caption = caption.left(lessonlimits::maxCaptionChars);
    change(std::move(after), tr("Edit caption of lesson step %1").arg(index + 1),
           QStringLiteral("caption %1").arg(index));
    return true;
}

bool LessonDocument::setStepAnimation(int index, const std::optional<LessonAnimation> &animation)
{
    if (!inRange(m_lesson, index))
        return false;
    Lesson after = m_lesson;
    after.steps[index].animation = animation;
    change(std::move(after), tr("Set animation of lesson step %1").arg(index + 1));
    return true;
}

} // namespace pe
