// LessonExporter: a lesson (issue 40) as PDF slides (16:9, one step a page: title, the figure as
// vectors, caption, "3 / 10"), a PDF handout (2 or 4 steps a page with their captions) or an
// HTML folder that opens offline (SVG figures, animated steps as WebM with a poster frame, the
// arrow keys moving between steps). Each step's figure is the still export of its state and
// view (an animated step's first frame). `pescope lesson export` and the window's Lesson menu
// use it; a file is written atomically and a folder is built beside its target and moved into
// place, so a failure or a cancel leaves nothing half-written.
#pragma once

#include "state/lessonfile.h"

#include <QString>

#include <functional>
#include <optional>

class QPainter;
class QRectF;

namespace pe {

class Backend;

enum class LessonExportKind { Slides, Handout, Html };

struct LessonExportOptions
{
    LessonExportKind kind = LessonExportKind::Slides;
    int perPage = 2; // handout: 2 or 4 steps a page
    int fps = 30;    // HTML: animated steps' videos
};

// "slides" / "handout" / "html".
QString lessonExportKindName(LessonExportKind kind);
std::optional<LessonExportKind> parseLessonExportKind(const QString &name);
// What `path` asks for when no kind is named: a .pdf file slides, anything else a folder.
LessonExportKind defaultLessonExportKind(const QString &path);

class LessonExporter
{
public:
    // Called after each step (done of total); returning false cancels.
    using Progress = std::function<bool(int done, int total)>;

    LessonExporter(const Lesson &lesson, const LessonExportOptions &options, Backend &backend);

    // Writes the export to `path` (a .pdf file, or a folder for HTML); false with *error naming
    // the step that failed, or "cancelled". Runs on the GUI thread (figures are painted with
    // QCustomPlot).
    bool write(const QString &path, const Progress &progress, QString *error);

private:
    // Step `index`'s figure painted into `target` (vectors), as its still export.
    bool paintStep(QPainter *painter, const QRectF &target, int index, QString *error);
    QByteArray pdf(const Progress &progress, QString *error);
    bool html(const QString &folder, const Progress &progress, QString *error);

    const Lesson &m_lesson;
    LessonExportOptions m_options;
    Backend &m_backend;
};

} // namespace pe
