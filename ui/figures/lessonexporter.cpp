#include "figures/lessonexporter.h"

#include "backends/backend.h"
#include "compute/figuredata.h"
#include "fields/wholenumber.h"
#include "figures/animationexporter.h"
#include "figures/figureanimation.h"
#include "figures/figureexporter.h"
#include "figures/figurepainter.h"
#include "figures/qcpinclude.h"
#include "io/atomicfile.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPdfWriter>
#include <QScopeGuard>
#include <QTextDocument>

#include <algorithm>

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
    FigureOptions options;
    FigureData data;
};

QString stepName(const Lesson &lesson, int index)
{
    return QStringLiteral("step %1 (%2)").arg(index + 1).arg(lesson.steps.at(index).title);
}

// The step ready to paint at `size` layout pixels; false with *error naming what failed.
bool prepareStep(const Lesson &lesson, int index, QSize size, Backend &backend, StepFigure *out,
                 QString *error)
{
    const LessonStep &step = lesson.steps.at(index);
    QString problem;
    const auto fail = [&](const QString &what) {
        *error = QStringLiteral("%1: %2").arg(stepName(lesson, index), what);
        return false;
    };
    if (!out->state.values().applyJson(step.state, &problem))
        return fail(problem);
    const std::optional<QList<FigureView>> views = parseFigureViews(step.view, &problem);
    if (!views)
        return fail(problem);
    if (step.animation) {
        AnimationOptions animation;
        animation.parameter = step.animation->parameter;
        animation.from = step.animation->from;
        animation.to = step.animation->to;
        animation.frames = step.animation->frames;
        const std::optional<FigureAnimation> plan =
            FigureAnimation::plan(out->state, *views, animation, &problem);
        if (!plan || !plan->apply(out->state, 0, &problem))
            return fail(QStringLiteral("its animation: ") + problem);
    }
    out->options.views = *views;
    out->options.width = size.width();
    out->options.height = size.height();
    out->options.dpi = figureBaseDpi();
    out->options.style = out->state.figureStyle();
    if (const QString bad = out->options.validate(); !bad.isEmpty())
        return fail(bad);
    if (!computeFigureData(out->state, *views, backend, &out->data, &problem))
        return fail(problem);
    return true;
}

QString animationNote(const LessonStep &step)
{
    if (!step.animation)
        return {};
    const LessonAnimation &a = *step.animation;
    QString range;
    if (a.from && a.to)
        range = QStringLiteral(" from %1 to %2").arg(numberText(*a.from), numberText(*a.to));
    return QCoreApplication::translate("LessonExporter",
                                       "Animated in the lesson: %1%2 (the first frame is shown).")
        .arg(a.parameter, range);
}

// Rich text (lessonCaptionHtml) drawn in `rect` at `pixelSize`; returns the height it took.
double drawCaption(QPainter *painter, const QRectF &rect, const QString &html, int pixelSize,
                   bool measureOnly = false)
{
    QTextDocument document;
    QFont font = painter->font();
    font.setPixelSize(pixelSize);
    font.setBold(false);
    document.setDefaultFont(font);
    document.setDocumentMargin(0);
    document.setTextWidth(rect.width());
    document.setHtml(html);
    const double height = document.size().height();
    if (!measureOnly) {
        painter->save();
        painter->translate(rect.topLeft());
        document.drawContents(painter, QRectF(0, 0, rect.width(), rect.height()));
        painter->restore();
    }
    return height;
}

void drawText(QPainter *painter, const QRectF &rect, const QString &text, int pixelSize, bool bold,
              Qt::Alignment align)
{
    QFont font = painter->font();
    font.setPixelSize(pixelSize);
    font.setBold(bold);
    painter->setFont(font);
    painter->setPen(Qt::black);
    painter->drawText(rect, int(align) | Qt::TextWordWrap, text);
}

QString stepCaptionHtml(const LessonStep &step)
{
    QString text = step.caption;
    if (const QString note = animationNote(step); !note.isEmpty())
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
h1 { font-size: 5vh; margin: 0 0 1vh 0; }
.figure { flex: 1; min-height: 0; display: flex; justify-content: center; }
.figure img, .figure video { max-width: 100%; max-height: 100%; object-fit: contain; }
.caption { font-size: 2.6vh; line-height: 1.35; margin: 1vh 0; }
.counter { font-size: 2vh; text-align: right; color: #555; }
)CSS";

// The marker that says a folder is a deck pescope wrote (and may be replaced by a new one).
const QString deckMarker = QStringLiteral("pescope-deck.txt");

bool writeBytes(const QString &path, const QByteArray &bytes, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) {
        *error = QStringLiteral("%1 cannot be written: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

// Where the deck may go: a new or empty folder, or a deck written before; empty when fine.
QString deckTargetProblem(const QFileInfo &target)
{
    if (target.exists() && !target.isDir())
        return QStringLiteral("%1 is a file; an HTML deck is a folder (name a .pdf for slides)")
            .arg(target.filePath());
    if (!target.absoluteDir().exists())
        return QStringLiteral("the folder %1 does not exist").arg(target.absolutePath());
    if (target.isDir()) {
        const QDir dir(target.filePath());
        const bool empty =
            dir.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
        if (!empty && !dir.exists(deckMarker))
            return QStringLiteral("%1 holds other files; name a new or empty folder")
                .arg(target.filePath());
    }
    return {};
}

} // namespace

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
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / width, target.height() / height);
    const bool painted = paintFigure(static_cast<QCPPainter *>(painter), FigureTarget::Vector,
                                     figure.state, figure.data, figure.options, error);
    painter->restore();
    if (!painted)
        *error = QStringLiteral("%1: %2").arg(stepName(m_lesson, index), *error);
    return painted;
}

QByteArray LessonExporter::pdf(const Progress &progress, QString *error)
{
    const bool slides = m_options.kind == LessonExportKind::Slides;
    const int total = int(m_lesson.steps.size());
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
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
        *error = QStringLiteral("cannot start the PDF writer");
        return {};
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.setRenderHint(QPainter::LosslessImageRendering, true);
    const QSizeF page(writer.width(), writer.height());
    const int perPage = slides ? 1 : m_options.perPage;
    const int pages = (total + perPage - 1) / perPage;
    for (int index = 0; index < total; ++index) {
        const LessonStep &step = m_lesson.steps.at(index);
        const int slot = index % perPage;
        if (index > 0 && slot == 0)
            writer.newPage();
        if (slides) {
            const double margin = 40;
            drawText(&painter, QRectF(margin, 20, page.width() - 2 * margin, 60), step.title, 36,
                     true, Qt::AlignLeft | Qt::AlignVCenter);
            const QRectF captionRect(margin, 0, page.width() - 2 * margin, 0);
            const double captionHeight =
                drawCaption(&painter, captionRect, stepCaptionHtml(step), 20, true);
            const double captionTop = page.height() - 40 - captionHeight;
            drawCaption(&painter, QRectF(margin, captionTop, captionRect.width(), captionHeight),
                        stepCaptionHtml(step), 20);
            drawText(&painter, QRectF(margin, page.height() - 36, page.width() - 2 * margin, 30),
                     QStringLiteral("%1 / %2").arg(index + 1).arg(total), 16, false,
                     Qt::AlignRight | Qt::AlignVCenter);
            const QRectF figure(margin, 88, page.width() - 2 * margin, captionTop - 88 - 12);
            if (!paintStep(&painter, figure, index, error))
                return {};
        } else {
            const int columns = perPage == 4 ? 2 : 1;
            const int rows = perPage / columns;
            const double margin = 48, gap = 24;
            const double cellWidth = (page.width() - 2 * margin - (columns - 1) * gap) / columns;
            const double cellHeight = (page.height() - 2 * margin - 24 - (rows - 1) * gap) / rows;
            const int row = slot / columns; // whole rows above this step's cell
            const int column = slot % columns;
            const QPointF origin(margin + column * (cellWidth + gap),
                                 margin + row * (cellHeight + gap));
            const int titleSize = perPage == 4 ? 13 : 16;
            drawText(&painter, QRectF(origin, QSizeF(cellWidth, 28)),
                     QStringLiteral("%1. %2").arg(index + 1).arg(step.title), titleSize, true,
                     Qt::AlignLeft | Qt::AlignVCenter);
            const double figureHeight = qMin(cellWidth * 9.0 / 16.0, cellHeight * 0.62);
            const QRectF figure(origin.x(), origin.y() + 30, cellWidth, figureHeight);
            const QRectF caption(origin.x(), figure.bottom() + 8, cellWidth,
                                 cellHeight - 30 - figureHeight - 8);
            drawCaption(&painter, caption, stepCaptionHtml(step), perPage == 4 ? 10 : 12);
            if (slot == 0)
                drawText(&painter,
                         QRectF(margin, page.height() - margin, page.width() - 2 * margin, 24),
                         QStringLiteral("%1 — %2 / %3")
                             .arg(m_lesson.title)
                             .arg(index / perPage + 1)
                             .arg(pages),
                         11, false, Qt::AlignRight | Qt::AlignVCenter);
            if (!paintStep(&painter, figure, index, error))
                return {};
        }
        if (progress && !progress(index + 1, total)) {
            *error = QStringLiteral("cancelled");
            return {};
        }
    }
    painter.end();
    return buffer.data();
}

bool LessonExporter::write(const QString &path, const Progress &progress, QString *error)
{
    if (m_options.kind == LessonExportKind::Html)
        return html(path, progress, error);
    if (m_options.kind == LessonExportKind::Handout && m_options.perPage != 2 &&
        m_options.perPage != 4) {
        *error =
            QStringLiteral("a handout has 2 or 4 steps a page (got %1)").arg(m_options.perPage);
        return false;
    }
    const QByteArray bytes = pdf(progress, error);
    return !bytes.isEmpty() && writeFileAtomically(path, bytes, error);
}

bool LessonExporter::html(const QString &folder, const Progress &progress, QString *error)
{
    const QFileInfo target(folder);
    if (const QString problem = deckTargetProblem(target); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    // Built beside the target and moved into place at the end: a failure leaves no deck.
    const QString partial =
        target.absoluteDir().filePath(QStringLiteral(".%1.partial-%2")
                                          .arg(target.fileName())
                                          .arg(QCoreApplication::applicationPid()));
    QDir(partial).removeRecursively();
    if (!QDir().mkpath(partial)) {
        *error = QStringLiteral("cannot make the folder %1").arg(partial);
        return false;
    }
    bool finished = false;
    const auto cleanup = qScopeGuard([&] {
        if (!finished)
            QDir(partial).removeRecursively();
    });
    const QDir dir(partial);
    const int total = int(m_lesson.steps.size());
    QString sections;
    for (int index = 0; index < total; ++index) {
        const LessonStep &step = m_lesson.steps.at(index);
        const QString name = QStringLiteral("step-%1").arg(index + 1, 2, 10, QLatin1Char('0'));
        StepFigure figure;
        if (!prepareStep(m_lesson, index, QSize(1280, 720), m_backend, &figure, error))
            return false;
        const FigureExporter exporter(figure.state, figure.data, figure.options);
        QString media;
        if (!step.animation) {
            const QByteArray svg = exporter.renderSvg(error);
            if (svg.isEmpty() ||
                !writeBytes(dir.filePath(name + QStringLiteral(".svg")), svg, error))
                return false;
            media = QStringLiteral("<img src=\"%1.svg\" alt=\"%2\">")
                        .arg(name, step.title.toHtmlEscaped());
        } else {
            const QByteArray poster = exporter.render(FigureFormat::Png, error);
            if (poster.isEmpty() ||
                !writeBytes(dir.filePath(name + QStringLiteral(".png")), poster, error))
                return false;
            // The animation from the step's own state (prepareStep applied frame 0 to its copy).
            FigureState state{ExplorerValues::defaults()};
            QString problem;
            AnimationOptions options;
            options.parameter = step.animation->parameter;
            options.from = step.animation->from;
            options.to = step.animation->to;
            options.frames = step.animation->frames;
            state.values().applyJson(step.state, &problem);
            const std::optional<FigureAnimation> plan =
                FigureAnimation::plan(state, figure.options.views, options, &problem);
            FigureOptions video = figure.options;
            video.width = 960;
            video.height = 540;
            if (!plan) {
                *error =
                    QStringLiteral("%1: its animation: %2").arg(stepName(m_lesson, index), problem);
                return false;
            }
            AnimationExporter animation(state, video, *plan);
            const VideoEncoder::Status status =
                animation.write(dir.filePath(name + QStringLiteral(".webm")), m_options.fps,
                                m_backend, {}, &problem);
            if (status != VideoEncoder::Status::Done) {
                *error =
                    QStringLiteral("%1: its video: %2").arg(stepName(m_lesson, index), problem);
                return false;
            }
            media = QStringLiteral("<video controls preload=\"metadata\" poster=\"%1.png\">"
                                   "<source src=\"%1.webm\" type=\"video/webm\"></video>")
                        .arg(name);
        }
        sections += QStringLiteral("<section class=\"step\" id=\"step-%1\" data-title=\"%2\">\n"
                                   "<h1>%2</h1>\n<div class=\"figure\">%3</div>\n"
                                   "<div class=\"caption\">%4</div>\n"
                                   "<div class=\"counter\">%1 / %5</div>\n</section>\n")
                        .arg(index + 1)
                        .arg(step.title.toHtmlEscaped(), media, stepCaptionHtml(step))
                        .arg(total);
        if (progress && !progress(index + 1, total)) {
            *error = QStringLiteral("cancelled");
            return false;
        }
    }
    const QString page =
        QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"generator\" content=\"pescope %1\">\n<title>%2</title>\n"
                       "<style>%3</style>\n</head>\n<body>\n%4<script>%5</script>\n</body>\n"
                       "</html>\n")
            .arg(QStringLiteral(PE_VERSION), m_lesson.title.toHtmlEscaped(),
                 QString::fromUtf8(deckStyle), sections, QString::fromUtf8(deckScript));
    if (!writeBytes(dir.filePath(QStringLiteral("index.html")), page.toUtf8(), error) ||
        !writeBytes(dir.filePath(deckMarker),
                    QByteArrayLiteral("An HTML deck written by pescope " PE_VERSION
                                      " (`pescope lesson export`); open index.html.\n"),
                    error))
        return false;
    // Into place: a deck written before is replaced whole.
    const QString old = partial + QStringLiteral(".old");
    if (target.exists() && !QDir().rename(target.absoluteFilePath(), old)) {
        *error = QStringLiteral("%1 cannot be replaced").arg(target.filePath());
        return false;
    }
    if (!QDir().rename(partial, target.absoluteFilePath())) {
        if (target.exists())
            QDir().rename(old, target.absoluteFilePath());
        *error = QStringLiteral("cannot move the deck to %1").arg(target.filePath());
        return false;
    }
    QDir(old).removeRecursively();
    finished = true;
    return true;
}

} // namespace pe
