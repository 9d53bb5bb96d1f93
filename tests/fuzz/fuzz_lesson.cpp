// libFuzzer target: a lesson file's bytes as Lesson > Open lesson reads them (lessonfile's
// parseLesson: JSON, format, versions, every step's keys and bounds, migration of older session
// formats) and each step's state opened as the window opens it (checkLessonStep, up to four
// steps). Beyond not crashing, the contract: a refused lesson names its file; an accepted one
// saves and reads back as the same lesson, and `pescope lesson list` shows it one line a step
// (lessonStepLine, whatever its titles hold: issue 45). Findings: tests/fuzz/findings/lesson/.
#include "fuzzinput.h"
#include "state/lessonfile.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

using pe::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pe::fuzz::ensureCoreApplication();

    const QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
    const std::optional<pe::Lesson> lesson =
        pe::parseLesson(bytes, QStringLiteral("fuzz.pescope-lesson.json"), &error);
    if (!lesson) {
        check(error.startsWith(QStringLiteral("fuzz.pescope-lesson.json")));
        return 0;
    }
    const auto oneLine = [](const QString &text) {
        return std::none_of(text.begin(), text.end(), [](QChar c) {
            return c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
                   c == QChar::ParagraphSeparator;
        });
    };
    check(oneLine(pe::oneLineText(lesson->title)));
    for (int i = 0; i < std::min<int>(4, int(lesson->steps.size())); ++i) {
        const QString problem = pe::checkLessonStep(*lesson, i);
        check(problem.isEmpty() || problem.startsWith(QStringLiteral("step ")));
        check(oneLine(pe::lessonStepLine(*lesson, i)));
    }
    const std::optional<pe::Lesson> again =
        pe::parseLesson(pe::lessonBytes(*lesson), QStringLiteral("again"), &error);
    check(again.has_value() && *again == *lesson);
    return 0;
}
