// LessonExporter: a lesson (issue 40) as PDF slides (16:9, one step a page: title, the figure as
// vectors, caption, "3 / 10"), a PDF handout (2 or 4 steps a page with their captions) or an
// HTML folder that opens offline (SVG figures, animated steps as WebM with a poster frame, the
// arrow keys moving between steps). Each step's figure is the still export of its state and
// view (an animated step's first frame). `pescope lesson export` and the window's Lesson menu
// use it. Every check comes before any work: the output (lessonOutputProblem) and every step
// (lessonStepProblem, the check `pescope lesson list` shows). The PDF streams into its file
// (AtomicFile) page by page, each heatmap embedded as at most maxSlideHeatmapSide cells a side,
// so memory stays that of one step whatever the lesson's length; a caption longer than its room
// continues on pages of its own. The HTML deck is written through DeckFolder (core/io), which
// replaces only the files an earlier deck wrote. A failure or a cancel leaves nothing
// half-written and any earlier export as it was.
#pragma once

#include "state/lessonfile.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QPainter;
class QRectF;

namespace pe {

class Backend;

enum class LessonExportKind { Slides, Handout, Html };

namespace lessonlimits {
// A heatmap on a slide or handout is embedded as an image of at most 2,048 x 2,048 cells (each
// the mean of the matrix cells it covers): more than a slide's figure shows (about 1,200 x 450
// pixels at 96 dpi), and a 65,536 x 128 matrix becomes 2,048 x 128 instead of an image of
// 8 million cells. With the PDF streamed into its file, an export's memory is that of one step.
constexpr qint64 maxSlideHeatmapSide = 2048;
} // namespace lessonlimits

// Why step `index` cannot be exported or presented, starting "step N (title): ": its state does
// not open (the model files it names are read), its views need what a lesson cannot give (the
// verify view's engine table, a learned-table view without a loaded table, a Phrases-page model
// view without a model or with one that does not open), or its animation cannot play. Empty
// when it can. The one check of `pescope lesson list` and of the export (before any work).
QString lessonStepProblem(const Lesson &lesson, int index);
// The first step's problem, or empty.
QString lessonProblem(const Lesson &lesson);

struct LessonExportOptions
{
    LessonExportKind kind = LessonExportKind::Slides;
    int perPage = 2; // handout: 2 or 4 steps a page
    int fps = 30;    // HTML: animated steps' videos
    // The caller has checked every step (lessonProblem) already: write() does not again.
    bool stepsChecked = false;
};

// "slides" / "handout" / "html".
QString lessonExportKindName(LessonExportKind kind);
std::optional<LessonExportKind> parseLessonExportKind(const QString &name);
// What `path` asks for when no kind is named: a .pdf file slides, anything else a folder.
LessonExportKind defaultLessonExportKind(const QString &path);

// The files an HTML deck of the lesson writes: index.html, step-NN.svg or, for an animated
// step, step-NN.png and step-NN.webm (pescope-deck.txt, the deck's list of them, besides).
QStringList lessonDeckFiles(const Lesson &lesson);
// Why an export of `kind` cannot go to `path`: a PDF's folder (outputPathProblem), an HTML
// deck's folder (DeckFolder::problem, with the files the deck writes); empty when it can.
QString lessonOutputProblem(const Lesson &lesson, LessonExportKind kind, const QString &path);

class LessonExporter
{
public:
    // Called after each step (done of total); returning false cancels.
    using Progress = std::function<bool(int done, int total)>;

    LessonExporter(const Lesson &lesson, const LessonExportOptions &options, Backend &backend);

    // Why the export cannot go to `path`: a PDF's folder (outputPathProblem), an HTML deck's
    // folder (DeckFolder::problem, with the files this deck writes); empty when it can.
    QString outputProblem(const QString &path) const;
    // The files an HTML deck of this lesson writes: index.html, step-NN.svg or, for an animated
    // step, step-NN.png and step-NN.webm.
    QStringList deckFiles() const;

    // Writes the export to `path` (a .pdf file, or a folder for HTML); false with *error naming
    // the output or the step that failed, or "cancelled". The output and every step are checked
    // first (outputProblem, lessonProblem), so a bad one costs no rendering. Runs on the GUI
    // thread (figures are painted with QCustomPlot).
    bool write(const QString &path, const Progress &progress, QString *error);

private:
    // Step `index`'s figure painted into `target` (vectors), as its still export.
    bool paintStep(QPainter *painter, const QRectF &target, int index, QString *error);
    bool pdf(const QString &path, const Progress &progress, QString *error);
    bool html(const QString &folder, const Progress &progress, QString *error);

    const Lesson &m_lesson;
    LessonExportOptions m_options;
    Backend &m_backend;
};

} // namespace pe
