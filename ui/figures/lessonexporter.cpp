#include "figures/lessonexporter.h"

#include "backends/backend.h"
#include "compute/figuredata.h"
#include "compute/phrasemodeldata.h"
#include "compute/tabledata.h"
#include "fields/wholenumber.h"
#include "figures/animationexporter.h"
#include "figures/figureanimation.h"
#include "figures/figureexporter.h"
#include "figures/figurepainter.h"
#include "figures/qcpinclude.h"
#include "io/atomicfile.h"
#include "io/deckfolder.h"
#include "state/viewlist.h"

#include <QCoreApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QIODevice>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextLayout>

#include <algorithm>
#include <memory>
#include <vector>

namespace pe {

namespace {

// Pages are laid out in 96-dpi pixels: a 16:9 slide of 13.33 x 7.5 inches (PowerPoint's
// widescreen) is 1280 x 720; an A4 handout page 794 x 1123.
constexpr double layoutDpi = 96.0;
constexpr QSizeF slidePoints{960.0, 540.0};

// A step's state opened, its first animation frame applied, and its figure's numbers.
struct StepFigure
{
    FigureState state{ExplorerValues::defaults()};
    FigureState stepState{ExplorerValues::defaults()}; // before the first frame: the video's
    QList<FigureView> views;
    std::optional<FigureAnimation> animation; // planned on the step's own state
    FigureOptions options;
    FigureData data;
};

QString stepName(const Lesson &lesson, int index)
{
    return QStringLiteral("step %1 (%2)")
        .arg(index + 1)
        .arg(oneLineText(lesson.steps.at(index).title));
}

AnimationOptions animationOptions(const LessonAnimation &a)
{
    AnimationOptions options;
    options.parameter = a.parameter;
    options.from = a.from;
    options.to = a.to;
    options.frames = a.frames;
    return options;
}

// The step's state opened (reading the model files it names), its views parsed and its
// animation planned; false with *problem (without the step's name).
bool openStep(const LessonStep &step, StepFigure *out, QString *problem)
{
    if (!out->state.values().applyJson(step.state, problem))
        return false;
    const std::optional<QList<FigureView>> views = parseFigureViews(step.view, problem);
    if (!views)
        return false;
    out->views = *views;
    if (step.animation) {
        out->animation =
            FigureAnimation::plan(out->state, *views, animationOptions(*step.animation), problem);
        if (!out->animation) {
            *problem = QStringLiteral("its animation cannot play: ") + *problem;
            return false;
        }
    }
    return true;
}

// What the views need that the step's state cannot give; empty when nothing. Numbers computed
// from the parameters (encodings, scheme figures) are not checked: they cannot fail on a state
// that opened, but for a backend that fails while working.
QString viewDataProblem(const FigureState &state, const QList<FigureView> &views)
{
    // The export draws every cell of the matrix: one the explorer cannot hold is refused here,
    // as `pescope export` refuses it, not after the steps before it were drawn.
    if (anyViewNeeds(views, ViewJob::Encoding))
        if (QString problem = inMemoryProblem(state.spec()); !problem.isEmpty())
            return problem;
    if (anyViewNeeds(views, ViewJob::EngineCheck))
        return QStringLiteral("the verify view checks an engine's table, which a lesson cannot "
                              "hold (use `pescope export --view verify --against`)");
    if (anyViewNeeds(views, ViewJob::Table))
        if (QString problem = tableProblem(state.spec()); !problem.isEmpty())
            return problem;
    if (anyViewReadsModelPhrases(views)) {
        const PhraseModelInputs inputs = phraseModelInputs(state);
        if (QString problem = phraseModelProblem(inputs); !problem.isEmpty())
            return problem;
        PhraseModelHolder models;
        QString problem;
        const PhraseModel *model = models.open(inputs.model, &problem);
        if (!model)
            return problem;
        // A tokenizer without weights: only the tokens view has something to draw.
        for (const FigureView view : views)
            if (!model->hasWeights() && viewReadsModelPhrases(view) &&
                view != FigureView::ModelTokens)
                return QStringLiteral("the %1 view: %2")
                    .arg(figureViewName(view), model->weightsNote());
    }
    return {};
}

// The step ready to paint at `size` layout pixels; false with *error naming what failed.
bool prepareStep(const Lesson &lesson, int index, QSize size, Backend &backend, StepFigure *out,
                 QString *error)
{
    QString problem;
    const auto fail = [&](const QString &what) {
        *error = QStringLiteral("%1: %2").arg(stepName(lesson, index), what);
        return false;
    };
    if (!openStep(lesson.steps.at(index), out, &problem))
        return fail(problem);
    out->stepState = out->state;
    if (out->animation && !out->animation->apply(out->state, 0, &problem))
        return fail(QStringLiteral("its animation: ") + problem);
    out->options.views = out->views;
    out->options.width = size.width();
    out->options.height = size.height();
    out->options.dpi = figureBaseDpi();
    out->options.style = out->state.figureStyle();
    if (const QString bad = out->options.validate(); !bad.isEmpty())
        return fail(bad);
    if (!computeFigureData(out->state, out->views, out->options.choices, backend, &out->data,
                           &problem))
        return fail(problem);
    return true;
}

// Where a step's animation can be seen: a PDF page holds its first frame, the HTML deck its video.
enum class StepMedia { FirstFrame, Video };

QString animationNote(const LessonStep &step, StepMedia media)
{
    if (!step.animation)
        return {};
    const LessonAnimation &a = *step.animation;
    QString range;
    if (a.from && a.to)
        range = QStringLiteral(" from %1 to %2").arg(numberText(*a.from), numberText(*a.to));
    const char *text = media == StepMedia::FirstFrame
                           ? "Animated in the lesson: %1%2 (the first frame is shown)."
                           : "Animated in the lesson: %1%2.";
    return QCoreApplication::translate("LessonExporter", text).arg(a.parameter, range);
}

// Rich text (a caption) laid out at a width, in the font given: its height, where it must be cut
// to fit a given height (between lines, so no line is split or hidden under a clip), the rest,
// and the whole cut into pieces of a given height (pages of their own).
class CaptionText
{
public:
    CaptionText(const QString &html, const QFont &font, double width) : m_font(font)
    {
        m_document.setDefaultFont(font);
        m_document.setDocumentMargin(0);
        // A long word (a URL, a formula without spaces) breaks anywhere rather than running out
        // of the page.
        QTextOption option;
        option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        m_document.setDefaultTextOption(option);
        m_document.setTextWidth(width);
        m_document.setHtml(html);
    }

    double height() const { return m_document.size().height(); }

    // The height of the lines that fit in `room` (the first line always: a line taller than the
    // room runs over it rather than never being drawn) and the position of the first character
    // of the first line that does not (-1 when every line fits).
    std::pair<double, int> cut(double room) const
    {
        const double total = height(); // lays the text out first (QTextDocument does it lazily)
        double fits = 0;
        for (QTextBlock block = m_document.begin(); block.isValid(); block = block.next()) {
            const QTextLayout *layout = block.layout();
            if (!layout)
                continue;
            for (int i = 0; i < layout->lineCount(); ++i) {
                const QTextLine line = layout->lineAt(i);
                const double bottom = layout->position().y() + line.y() + line.height();
                if (bottom > room && fits > 0)
                    return {fits, block.position() + line.textStart()};
                fits = bottom;
            }
        }
        return {total, -1};
    }

    // The text from `position` on.
    QTextDocumentFragment fragmentFrom(int position)
    {
        QTextCursor cursor(&m_document);
        cursor.setPosition(position);
        cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
        return cursor.selection();
    }

    // `heading` (HTML; none when empty) and `text` added at the end, each a paragraph.
    void append(const QString &heading, const QTextDocumentFragment &text)
    {
        QTextCursor cursor(&m_document);
        cursor.movePosition(QTextCursor::End);
        if (!m_document.isEmpty())
            cursor.insertBlock();
        if (!heading.isEmpty()) {
            cursor.insertHtml(heading);
            cursor.insertBlock();
        }
        cursor.insertFragment(text);
    }

    // The first `height` pixels of the text (the lines cut() kept), at `topLeft`. QTextDocument
    // draws every line the clip touches, the next one starting right at its edge included
    // (hidden, but in the PDF for search, copy and screen readers): the clip stops a hair short.
    void draw(QPainter *painter, QPointF topLeft, double height)
    {
        painter->save();
        painter->translate(topLeft);
        m_document.drawContents(painter, QRectF(0, 0, m_document.textWidth(), height - clipSlack));
        painter->restore();
    }

    // The text cut into pieces of at most `room` high (a line is never split), each a text of
    // its own with the height it takes.
    static std::vector<std::pair<std::unique_ptr<CaptionText>, double>>
    pieces(std::unique_ptr<CaptionText> text, double room)
    {
        std::vector<std::pair<std::unique_ptr<CaptionText>, double>> out;
        while (text) {
            const auto [used, rest] = text->cut(room);
            std::unique_ptr<CaptionText> next;
            if (rest >= 0) {
                next = std::make_unique<CaptionText>(QString(), text->m_font,
                                                     text->m_document.textWidth());
                next->append(QString(), text->fragmentFrom(rest));
            }
            out.emplace_back(std::move(text), used);
            text = std::move(next);
        }
        return out;
    }

private:
    static constexpr double clipSlack = 0.01; // pixels
    QFont m_font;
    QTextDocument m_document;
};

QFont textFont(const QPainter &painter, int pixelSize, bool bold = false)
{
    QFont font = painter.font();
    font.setPixelSize(pixelSize);
    font.setBold(bold);
    return font;
}

void drawText(QPainter *painter, const QRectF &rect, const QString &text, int pixelSize, bool bold,
              Qt::Alignment align)
{
    painter->setFont(textFont(*painter, pixelSize, bold));
    painter->setPen(Qt::black);
    painter->drawText(rect, int(align) | Qt::TextWordWrap, text);
}

QString stepCaptionHtml(const LessonStep &step, StepMedia media = StepMedia::FirstFrame)
{
    QString text = step.caption;
    if (const QString note = animationNote(step, media); !note.isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + note;
    return lessonCaptionHtml(text);
}

// The deck's page: every step a section, one shown at a time; arrow keys, Page Up / Down,
// Space, Home and End move (as a clicker does), the address's #step-N keeps the place.
const char *deckScript = R"JS(
const steps = Array.from(document.querySelectorAll('section.step'));
let current = 0;
function show(index) {
  current = Math.max(0, Math.min(steps.length - 1, index));
  steps.forEach((s, i) => s.classList.toggle('current', i === current));
  document.querySelectorAll('video').forEach(v => v.pause());
  history.replaceState(null, '', '#step-' + (current + 1));
  document.title = steps[current].dataset.title + ' (' + (current + 1) + ' / ' + steps.length + ')';
}
document.addEventListener('keydown', e => {
  const forward = ['ArrowRight', 'ArrowDown', 'PageDown', ' ', 'n'];
  const back = ['ArrowLeft', 'ArrowUp', 'PageUp', 'Backspace', 'p'];
  if (forward.includes(e.key)) show(current + 1);
  else if (back.includes(e.key)) show(current - 1);
  else if (e.key === 'Home') show(0);
  else if (e.key === 'End') show(steps.length - 1);
  else if (e.key === 'Enter') {
    const v = steps[current].querySelector('video');
    if (v) { v.paused ? v.play() : v.pause(); }
  } else return;
  e.preventDefault();
});
const m = /^#step-(\d+)$/.exec(location.hash);
show(m ? Number(m[1]) - 1 : 0);
)JS";

const char *deckStyle = R"CSS(
body { margin: 0; font-family: sans-serif; background: #fff; color: #111; }
section.step { display: none; height: 100vh; box-sizing: border-box; padding: 2vh 3vw;
  flex-direction: column; }
section.step.current { display: flex; }
h1 { font-size: 5vh; margin: 0 0 1vh 0; overflow-wrap: anywhere; }
.figure { flex: 1; min-height: 0; display: flex; justify-content: center; }
.figure img, .figure video { max-width: 100%; max-height: 100%; object-fit: contain; }
.caption { font-size: 2.6vh; line-height: 1.35; margin: 1vh 0; overflow-wrap: anywhere;
  max-height: 40vh; overflow-y: auto; flex-shrink: 0; }
.counter { font-size: 2vh; text-align: right; color: #555; }
)CSS";

// A deck's own files (DeckFolder replaces these and nothing else) and its manifest's header.
const QRegularExpression &deckFileNames()
{
    static const QRegularExpression names(QRegularExpression::anchoredPattern(
        QStringLiteral("index\\.html|step-[0-9]{2,3}\\.(svg|png|webm)")));
    return names;
}

QString deckHeader()
{
    return QStringLiteral("An HTML deck written by pescope " PE_VERSION
                          " (`pescope lesson export`); open index.html.\n"
                          "Exporting again replaces the files listed below and nothing else.");
}

QString deckFileBase(int index)
{
    return QStringLiteral("step-%1").arg(index + 1, 2, 10, QLatin1Char('0'));
}

// The PDF writer's output: straight into an AtomicFile in 1 MiB pieces, so that a long lesson
// never sits whole in memory; the first error is kept for finish().
class AtomicFileDevice : public QIODevice
{
public:
    explicit AtomicFileDevice(const QString &path) : m_file(path) {}

    bool start(QString *error)
    {
        return m_file.open(error) && QIODevice::open(QIODevice::WriteOnly);
    }
    // True with *error once a write failed.
    bool failed(QString *error) const
    {
        if (m_error.isEmpty())
            return false;
        *error = m_error;
        return true;
    }
    bool finish(QString *error)
    {
        if (m_error.isEmpty() && m_file.write(m_buffer, &m_error))
            m_buffer.clear();
        if (!m_error.isEmpty()) {
            *error = m_error;
            return false;
        }
        return m_file.commit(error);
    }

protected:
    qint64 readData(char * /*data*/, qint64 /*size*/) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override
    {
        if (!m_error.isEmpty())
            return -1;
        m_buffer.append(data, size);
        if (m_buffer.size() >= pieceBytes) {
            if (!m_file.write(m_buffer, &m_error))
                return -1;
            m_buffer.clear();
        }
        return size;
    }

private:
    static constexpr qsizetype pieceBytes = qsizetype(1) << 20;
    AtomicFile m_file;
    QByteArray m_buffer;
    QString m_error;
};

} // namespace

QString lessonStepProblem(const Lesson &lesson, int index)
{
    StepFigure figure;
    QString problem;
    if (openStep(lesson.steps.at(index), &figure, &problem))
        problem = viewDataProblem(figure.state, figure.views);
    if (problem.isEmpty())
        return {};
    return QStringLiteral("%1: %2").arg(stepName(lesson, index), problem);
}

QString lessonProblem(const Lesson &lesson)
{
    for (int index = 0; index < lesson.steps.size(); ++index)
        if (QString problem = lessonStepProblem(lesson, index); !problem.isEmpty())
            return problem;
    return {};
}

QString lessonExportKindName(LessonExportKind kind)
{
    switch (kind) {
    case LessonExportKind::Slides:
        return QStringLiteral("slides");
    case LessonExportKind::Handout:
        return QStringLiteral("handout");
    case LessonExportKind::Html:
        return QStringLiteral("html");
    }
    return {};
}

std::optional<LessonExportKind> parseLessonExportKind(const QString &name)
{
    for (LessonExportKind kind :
         {LessonExportKind::Slides, LessonExportKind::Handout, LessonExportKind::Html})
        if (lessonExportKindName(kind) == name)
            return kind;
    return std::nullopt;
}

LessonExportKind defaultLessonExportKind(const QString &path)
{
    return path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive) ? LessonExportKind::Slides
                                                                      : LessonExportKind::Html;
}

LessonExporter::LessonExporter(const Lesson &lesson, const LessonExportOptions &options,
                               Backend &backend)
    : m_lesson(lesson), m_options(options), m_backend(backend)
{}

QStringList lessonDeckFiles(const Lesson &lesson)
{
    QStringList names{QStringLiteral("index.html")};
    for (int index = 0; index < lesson.steps.size(); ++index) {
        const QString base = deckFileBase(index);
        if (lesson.steps.at(index).animation)
            names << base + QStringLiteral(".png") << base + QStringLiteral(".webm");
        else
            names << base + QStringLiteral(".svg");
    }
    return names;
}

QString lessonOutputProblem(const Lesson &lesson, LessonExportKind kind, const QString &path)
{
    if (kind == LessonExportKind::Html)
        return DeckFolder(path, deckHeader(), deckFileNames()).problem(lessonDeckFiles(lesson));
    return outputPathProblem(path);
}

bool LessonExporter::paintStep(QPainter *painter, const QRectF &target, int index, QString *error)
{
    StepFigure figure;
    // A small target (a handout's quarter page) is laid out larger and drawn scaled down, as a
    // slide shrunk onto paper: figures need room for their axes (figurelimits).
    const double grow = std::max({1.0, 800.0 / target.width(), 450.0 / target.height()});
    const QSize size(int(target.width() * grow), int(target.height() * grow));
    if (!prepareStep(m_lesson, index, size, m_backend, &figure, error))
        return false;
    const auto [width, height] = figureLayoutSize(figure.options);
    FigurePaintHooks hooks;
    hooks.maxEmbeddedSide = lessonlimits::maxSlideHeatmapSide;
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / width, target.height() / height);
    const bool painted = paintFigure(static_cast<QCPPainter *>(painter), FigureTarget::Vector,
                                     figure.state, figure.data, figure.options, error, hooks);
    painter->restore();
    if (!painted)
        *error = QStringLiteral("%1: %2").arg(stepName(m_lesson, index), *error);
    return painted;
}

namespace {

// The figure of step `index` painted into `target`.
using PaintFigure = std::function<bool(const QRectF &target, int index)>;
// After step `done` (1-based): false to stop (a cancel, a failed write), *error set.
using StepDone = std::function<bool(int done)>;

// The PDF's pages: a break before each but the first.
struct PdfPages
{
    QPdfWriter &writer;
    QPainter &painter;
    QSizeF size;
    int titleSize = 36; // the slides' title type, the same on every slide (slideTitleSize)
    bool started = false;
    void next()
    {
        if (started)
            writer.newPage();
        started = true;
    }
};

constexpr double slideMargin = 40;
constexpr double slideFigureTop = 88;
constexpr double slideFoot = 40;

constexpr double slideTitleTop = 16;
constexpr double slideTitleHeight = slideFigureTop - slideTitleTop - 8;

// The slides' title type (issue 46.7): 36 px, or smaller where the deck's longest title would not
// fit the title band at that size (a two-line title ran into its figure); one size for every
// slide, so that the band looks the same on each.
int slideTitleSize(const PdfPages &pages, const Lesson &lesson)
{
    const double width = pages.size.width() - 2 * slideMargin;
    int size = 36;
    for (; size > 12; size -= 2) {
        const QFontMetricsF metrics(textFont(pages.painter, size, true), &pages.writer);
        const bool fits =
            std::all_of(lesson.steps.begin(), lesson.steps.end(), [&](const LessonStep &step) {
                return metrics
                           .boundingRect(QRectF(0, 0, width, 1e6), int(Qt::TextWordWrap),
                                         step.title)
                           .height() <= slideTitleHeight;
            });
        if (fits)
            break;
    }
    return size;
}

void slideFrame(PdfPages &pages, const QString &title, int index, int total)
{
    pages.next();
    const double width = pages.size.width() - 2 * slideMargin;
    drawText(&pages.painter, QRectF(slideMargin, slideTitleTop, width, slideTitleHeight), title,
             pages.titleSize, true, Qt::AlignLeft | Qt::AlignVCenter);
    drawText(&pages.painter, QRectF(slideMargin, pages.size.height() - 36, width, 30),
             QStringLiteral("%1 / %2").arg(index + 1).arg(total), 16, false,
             Qt::AlignRight | Qt::AlignVCenter);
}

// One step's slide: title, figure, caption and number; a caption taller than the room the
// figure leaves (the figure keeps 45% of the slide) continues on slides of its own.
bool slideStep(PdfPages &pages, const Lesson &lesson, int index, const PaintFigure &paint)
{
    const LessonStep &step = lesson.steps.at(index);
    const int total = int(lesson.steps.size());
    const QSizeF page = pages.size;
    const double width = page.width() - 2 * slideMargin;
    slideFrame(pages, step.title, index, total);
    const QFont font = textFont(pages.painter, 20);
    CaptionText caption(stepCaptionHtml(step), font, width);
    const double room = page.height() - slideFoot - slideFigureTop - 12 - 0.45 * page.height();
    const auto [used, rest] = caption.cut(room);
    const double captionTop = page.height() - slideFoot - used;
    caption.draw(&pages.painter, QPointF(slideMargin, captionTop), used);
    if (!paint(QRectF(slideMargin, slideFigureTop, width, captionTop - slideFigureTop - 12), index))
        return false;
    if (rest < 0)
        return true;
    auto more = std::make_unique<CaptionText>(QString(), font, width);
    more->append(QString(), caption.fragmentFrom(rest));
    const QString title =
        QCoreApplication::translate("LessonExporter", "%1 (continued)").arg(step.title);
    for (auto &[text, height] :
         CaptionText::pieces(std::move(more), page.height() - slideFoot - slideFigureTop - 12)) {
        slideFrame(pages, title, index, total);
        text->draw(&pages.painter, QPointF(slideMargin, slideFigureTop), height);
    }
    return true;
}

// A handout page's grid: 2 steps one above the other, or 4 two by two.
struct HandoutGrid
{
    HandoutGrid(QSizeF page, int perPage)
        : perPage(perPage), columns(perPage == 4 ? 2 : 1), rows(perPage / columns),
          cellWidth((page.width() - 2 * margin - (columns - 1) * gap) / columns),
          cellHeight((page.height() - 2 * margin - 24 - (rows - 1) * gap) / rows),
          figureHeight(qMin(cellWidth * 9.0 / 16.0, cellHeight * 0.62)),
          captionHeight(cellHeight - 30 - figureHeight - 8)
    {}
    QPointF origin(int slot) const
    {
        const int row = slot / columns; // whole rows above the slot's cell
        return {margin + (slot % columns) * (cellWidth + gap), margin + row * (cellHeight + gap)};
    }
    static constexpr double margin = 48, gap = 24;
    int perPage, columns, rows;
    double cellWidth, cellHeight, figureHeight, captionHeight;
    int captionSize() const { return perPage == 4 ? 10 : 12; }
};

using CaptionPieces = std::vector<std::pair<std::unique_ptr<CaptionText>, double>>;

// What of the captions of the steps on handout page `pageIndex` does not fit their cells, under
// "N. Title (continued)", cut into whole pages; empty when everything fits.
CaptionPieces handoutOverflow(const Lesson &lesson, const HandoutGrid &grid,
                              const QPainter &painter, QSizeF page, int pageIndex)
{
    const QFont font = textFont(painter, grid.captionSize());
    std::unique_ptr<CaptionText> more;
    const int first = pageIndex * grid.perPage;
    const int end = std::min<int>(first + grid.perPage, int(lesson.steps.size()));
    for (int index = first; index < end; ++index) {
        const LessonStep &step = lesson.steps.at(index);
        CaptionText caption(stepCaptionHtml(step), font, grid.cellWidth);
        const int rest = caption.cut(grid.captionHeight).second;
        if (rest < 0)
            continue;
        if (!more)
            more = std::make_unique<CaptionText>(QString(), font,
                                                 page.width() - 2 * HandoutGrid::margin);
        more->append(QStringLiteral("<b>%1. %2</b>")
                         .arg(index + 1)
                         .arg(QCoreApplication::translate("LessonExporter", "%1 (continued)")
                                  .arg(step.title)
                                  .toHtmlEscaped()),
                     caption.fragmentFrom(rest));
    }
    if (!more)
        return {};
    return CaptionText::pieces(std::move(more), page.height() - 2 * HandoutGrid::margin - 24);
}

void handoutFoot(PdfPages &pages, const QString &title, int page, int count)
{
    const double margin = HandoutGrid::margin;
    drawText(&pages.painter,
             QRectF(margin, pages.size.height() - margin, pages.size.width() - 2 * margin, 24),
             QStringLiteral("%1 — %2 / %3").arg(title).arg(page).arg(count), 11, false,
             Qt::AlignRight | Qt::AlignVCenter);
}

bool handoutPages(PdfPages &pages, const Lesson &lesson, int perPage, const PaintFigure &paint,
                  const StepDone &done)
{
    const HandoutGrid grid(pages.size, perPage);
    const int total = int(lesson.steps.size());
    const int gridPages = (total + perPage - 1) / perPage;
    // Laid out first, so that the foot can say "3 / 7" counting the continued captions' pages.
    std::vector<CaptionPieces> overflow;
    int count = gridPages;
    for (int p = 0; p < gridPages; ++p) {
        overflow.push_back(handoutOverflow(lesson, grid, pages.painter, pages.size, p));
        count += int(overflow.back().size());
    }
    int pageNumber = 0;
    for (int p = 0; p < gridPages; ++p) {
        pages.next();
        handoutFoot(pages, lesson.title, ++pageNumber, count);
        for (int index = p * perPage; index < std::min(total, (p + 1) * perPage); ++index) {
            const LessonStep &step = lesson.steps.at(index);
            const QPointF origin = grid.origin(index % perPage);
            drawText(&pages.painter, QRectF(origin, QSizeF(grid.cellWidth, 28)),
                     QStringLiteral("%1. %2").arg(index + 1).arg(step.title),
                     perPage == 4 ? 13 : 16, true, Qt::AlignLeft | Qt::AlignVCenter);
            const QRectF figure(origin.x(), origin.y() + 30, grid.cellWidth, grid.figureHeight);
            CaptionText caption(stepCaptionHtml(step), textFont(pages.painter, grid.captionSize()),
                                grid.cellWidth);
            const double used = caption.cut(grid.captionHeight).first;
            caption.draw(&pages.painter, QPointF(origin.x(), figure.bottom() + 8), used);
            if (!paint(figure, index) || !done(index + 1))
                return false;
        }
        for (auto &[text, height] : overflow[std::size_t(p)]) {
            pages.next();
            handoutFoot(pages, lesson.title, ++pageNumber, count);
            text->draw(&pages.painter, QPointF(HandoutGrid::margin, HandoutGrid::margin), height);
        }
    }
    return true;
}

// One step of the HTML deck: its figure (an SVG, or a poster PNG and a WebM for an animated
// step) written into the deck, its section appended to *sections.
bool htmlStep(DeckFolder &deck, const Lesson &lesson, int index, Backend &backend, int fps,
              QString *sections, QString *error)
{
    const LessonStep &step = lesson.steps.at(index);
    const QString name = deckFileBase(index);
    StepFigure figure;
    if (!prepareStep(lesson, index, QSize(1280, 720), backend, &figure, error))
        return false;
    const FigureExporter exporter(figure.state, figure.data, figure.options);
    QString media;
    if (!figure.animation) {
        const QByteArray svg = exporter.renderSvg(error);
        if (svg.isEmpty() || !deck.write(name + QStringLiteral(".svg"), svg, error))
            return false;
        media =
            QStringLiteral("<img src=\"%1.svg\" alt=\"%2\">").arg(name, step.title.toHtmlEscaped());
    } else {
        const QByteArray poster = exporter.render(FigureFormat::Png, error);
        if (poster.isEmpty() || !deck.write(name + QStringLiteral(".png"), poster, error))
            return false;
        FigureOptions video = figure.options;
        video.width = 960;
        video.height = 540;
        // The animation from the step's own state (prepareStep applied frame 0 to its copy).
        AnimationExporter animation(figure.stepState, video, *figure.animation);
        const QString webm = name + QStringLiteral(".webm");
        QString problem;
        if (animation.write(deck.stagedPath(webm), fps, backend, {}, &problem) !=
            VideoEncoder::Status::Done) {
            *error = QStringLiteral("%1: its video: %2").arg(stepName(lesson, index), problem);
            return false;
        }
        deck.wrote(webm);
        media = QStringLiteral("<video controls preload=\"metadata\" poster=\"%1.png\">"
                               "<source src=\"%1.webm\" type=\"video/webm\"></video>")
                    .arg(name);
    }
    *sections +=
        QStringLiteral("<section class=\"step\" id=\"step-%1\" data-title=\"%2\">\n"
                       "<h1>%2</h1>\n<div class=\"figure\">%3</div>\n"
                       "<div class=\"caption\">%4</div>\n"
                       "<div class=\"counter\">%1 / %5</div>\n</section>\n")
            .arg(index + 1)
            .arg(step.title.toHtmlEscaped(), media,
                 stepCaptionHtml(step, figure.animation ? StepMedia::Video : StepMedia::FirstFrame))
            .arg(lesson.steps.size());
    return true;
}

} // namespace

bool LessonExporter::pdf(const QString &path, const Progress &progress, QString *error)
{
    const bool slides = m_options.kind == LessonExportKind::Slides;
    const int total = int(m_lesson.steps.size());
    AtomicFileDevice device(path);
    if (!device.start(error))
        return false;
    QPdfWriter writer(&device);
    writer.setCreator(QStringLiteral("pescope " PE_VERSION));
    writer.setTitle(m_lesson.title);
    writer.setResolution(int(layoutDpi));
    writer.setPageLayout(slides ? QPageLayout(QPageSize(slidePoints, QPageSize::Point, QString(),
                                                        QPageSize::ExactMatch),
                                              QPageLayout::Portrait, QMarginsF(0, 0, 0, 0))
                                : QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                              QMarginsF(0, 0, 0, 0)));
    QCPPainter painter;
    if (!painter.begin(&writer)) {
        *error = QStringLiteral("cannot write %1: the PDF writer did not start").arg(path);
        return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.setRenderHint(QPainter::LosslessImageRendering, true);
    PdfPages pages{writer, painter, QSizeF(writer.width(), writer.height())};
    pages.titleSize = slideTitleSize(pages, m_lesson);
    const PaintFigure paint = [&](const QRectF &target, int index) {
        return paintStep(&painter, target, index, error);
    };
    const StepDone done = [&](int step) {
        if (device.failed(error)) // a full disk stops the export at once
            return false;
        if (progress && !progress(step, total)) {
            *error = QStringLiteral("cancelled");
            return false;
        }
        return true;
    };
    bool painted = true;
    if (slides) {
        for (int index = 0; index < total && painted; ++index)
            painted = slideStep(pages, m_lesson, index, paint) && done(index + 1);
    } else {
        painted = handoutPages(pages, m_lesson, m_options.perPage, paint, done);
    }
    painter.end();
    return painted && device.finish(error);
}

bool LessonExporter::write(const QString &path, const Progress &progress, QString *error)
{
    if (m_options.kind == LessonExportKind::Handout && m_options.perPage != 2 &&
        m_options.perPage != 4) {
        *error = QStringLiteral("--per-page must be 2 or 4 (got %1)").arg(m_options.perPage);
        return false;
    }
    // Checked before any work: a typo in the output or a step that cannot render costs nothing.
    if (QString problem = lessonOutputProblem(m_lesson, m_options.kind, path); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (!m_options.stepsChecked)
        if (QString problem = lessonProblem(m_lesson); !problem.isEmpty()) {
            *error = problem;
            return false;
        }
    return m_options.kind == LessonExportKind::Html ? html(path, progress, error)
                                                    : pdf(path, progress, error);
}

bool LessonExporter::html(const QString &folder, const Progress &progress, QString *error)
{
    DeckFolder deck(folder, deckHeader(), deckFileNames());
    if (!deck.begin(error))
        return false;
    // Messages name the deck the user named, never its hidden staging folder.
    const auto fail = [&](const QString &problem) {
        *error = deck.shown(problem);
        return false;
    };
    const int total = int(m_lesson.steps.size());
    QString sections;
    QString problem;
    for (int index = 0; index < total; ++index) {
        if (!htmlStep(deck, m_lesson, index, m_backend, m_options.fps, &sections, &problem))
            return fail(problem);
        if (progress && !progress(index + 1, total))
            return fail(QStringLiteral("cancelled"));
    }
    const QString page =
        QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"generator\" content=\"pescope %1\">\n<title>%2</title>\n"
                       "<style>%3</style>\n</head>\n<body>\n%4<script>%5</script>\n</body>\n"
                       "</html>\n")
            .arg(QStringLiteral(PE_VERSION), m_lesson.title.toHtmlEscaped(),
                 QString::fromUtf8(deckStyle), sections, QString::fromUtf8(deckScript));
    if (!deck.write(QStringLiteral("index.html"), page.toUtf8(), &problem) ||
        !deck.commit(&problem))
        return fail(problem);
    return true;
}

} // namespace pe
