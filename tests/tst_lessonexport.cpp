// `pescope lesson export` (issue 40): PDF slides checked by their page count and size, their text
// (pdftotext: titles, captions, slide numbers, the note of an animated step), a rendered page
// (pdftoppm) and their vectors (pdfimages: a waves-only slide embeds no image); the handout's
// pages; the HTML deck's files (SVG figures, a WebM and a poster for the animated step) and its
// page opened in a real headless browser and stepped with the arrow keys
// (tests/lessons/deck_in_browser.py over Chromium's DevTools protocol); and nothing half-written
// when a step fails or the folder holds other files.
#include "lessontestutil.h"
#include "testutil.h"

#include "figures/lessonexporter.h"
#include "state/explorerstate.h"
#include "state/lessonfile.h"
#include "state/presets.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace pe;
using namespace pe::test;
using namespace Qt::StringLiterals;

namespace {

// Three steps: waves alone (vectors only), Fig 16-9 animated over 6 frames, the RoPE decay.
Lesson smallLesson()
{
    QJsonObject waves = presetState(u"geron-16-9"_s);
    Lesson lesson;
    lesson.title = u"Export check"_s;
    lesson.steps.append(LessonStep{.title = u"Waves alone"_s,
                                   .caption = u"Two *curves*: sin and cos of one frequency."_s,
                                   .view = u"waves"_s,
                                   .animation = std::nullopt,
                                   .state = waves});
    lesson.steps.append(LessonStep{
        .title = u"Fig 16-9 moving"_s,
        .caption = u"The marker walks."_s,
        .view = u"waves+heatmap"_s,
        .animation =
            LessonAnimation{.parameter = u"position"_s, .from = 22.0, .to = 27.0, .frames = 6},
        .state = waves});
    lesson.steps.append(LessonStep{.title = u"Decay"_s,
                                   .caption = u"RoPE's long-term decay."_s,
                                   .view = u"decay"_s,
                                   .animation = std::nullopt,
                                   .state = presetState(u"rope-decay"_s)});
    return lesson;
}

QByteArray tool(const QString &program, const QStringList &args, int *exitCode = nullptr)
{
    QProcess process;
    process.start(program, args);
    process.waitForFinished(120000);
    if (exitCode)
        *exitCode = process.exitCode();
    return process.readAllStandardOutput();
}

QString pdfField(const QString &pdf, const QString &field)
{
    const QString info = QString::fromUtf8(tool(u"pdfinfo"_s, {pdf}));
    for (const QString &line : info.split(QLatin1Char('\n')))
        if (line.startsWith(field + QLatin1Char(':')))
            return line.mid(field.size() + 1).trimmed();
    return {};
}

} // namespace

class TestLessonExport : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_lessonPath;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_lessonPath = m_dir.filePath(u"small.pescope-lesson.json"_s);
        QString error;
        QVERIFY2(saveLesson(smallLesson(), m_lessonPath, &error), qPrintable(error));
        for (const QString &program : {u"pdfinfo"_s, u"pdftotext"_s, u"pdftoppm"_s, u"pdfimages"_s})
            if (QStandardPaths::findExecutable(program).isEmpty())
                PE_SKIP_MISSING("poppler-utils (pdfinfo, pdftotext, pdftoppm, pdfimages) is "
                                "not installed");
    }

    void slides()
    {
        const QString pdf = m_dir.filePath(u"deck.pdf"_s);
        const RunResult run = runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, pdf});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.contains("step 3 / 3 (Decay)"), run.err.constData());
        QCOMPARE(pdfField(pdf, u"Pages"_s), u"3"_s);
        QCOMPARE(pdfField(pdf, u"Page size"_s).left(17), u"960 x 540 pts"_s.left(17));
        QCOMPARE(pdfField(pdf, u"Title"_s), u"Export check"_s);
        const QString text = QString::fromUtf8(tool(u"pdftotext"_s, {pdf, u"-"_s}));
        for (const QString &expected :
             {u"Waves alone"_s, u"Two curves: sin and cos"_s, u"Fig 16-9 moving"_s,
              u"Animated in the lesson: position from 22 to 27"_s, u"Decay"_s,
              u"RoPE's long-term decay."_s, u"position p"_s})
            QVERIFY2(text.contains(expected), qPrintable(expected + u" not in:\n"_s + text));
        // The slide numbers (pdftotext may drop the spaces around the slash).
        for (int slide = 1; slide <= 3; ++slide)
            QVERIFY2(text.contains(QRegularExpression(u"(^|\\n)%1 ?/ ?3\\n"_s.arg(slide))),
                     qPrintable(text));
        // Vectors: the waves-only slide embeds no image; the heatmap slide embeds its cells.
        const QString images = QString::fromUtf8(tool(u"pdfimages"_s, {u"-list"_s, pdf}));
        QStringList pagesWithImages;
        for (const QString &line : images.split(QLatin1Char('\n')).mid(2))
            if (!line.trimmed().isEmpty())
                pagesWithImages.append(line.simplified().section(QLatin1Char(' '), 0, 0));
        QVERIFY2(!pagesWithImages.contains(u"1"_s), qPrintable(images));
        QVERIFY2(pagesWithImages.contains(u"2"_s), qPrintable(images));
        // A rendered page: the figure's area holds the drawing (dark pixels), not a blank.
        const QString prefix = m_dir.filePath(u"page"_s);
        tool(u"pdftoppm"_s,
             {u"-r"_s, u"48"_s, u"-f"_s, u"2"_s, u"-l"_s, u"2"_s, u"-png"_s, pdf, prefix});
        const QImage page(prefix + u"-2.png"_s);
        QVERIFY(!page.isNull());
        QCOMPARE(page.size(), QSize(640, 360));
        int dark = 0;
        for (int y = 60; y < 250; ++y)
            for (int x = 20; x < 620; ++x)
                dark += qGray(page.pixel(x, y)) < 128 ? 1 : 0;
        QVERIFY2(dark > 2000, qPrintable(QString::number(dark)));
    }

    void handout()
    {
        for (const auto &[perPage, pages] : {std::pair{2, u"2"_s}, std::pair{4, u"1"_s}}) {
            const QString pdf = m_dir.filePath(u"handout-%1.pdf"_s.arg(perPage));
            const RunResult run =
                runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, pdf, u"--as"_s,
                            u"handout"_s, u"--per-page"_s, QString::number(perPage)});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QCOMPARE(pdfField(pdf, u"Pages"_s), pages);
            QVERIFY(pdfField(pdf, u"Page size"_s).contains(u"(A4)"_s));
            const QString text = QString::fromUtf8(tool(u"pdftotext"_s, {pdf, u"-"_s}));
            for (const QString &expected : {u"1. Waves alone"_s, u"2. Fig 16-9 moving"_s,
                                            u"3. Decay"_s, u"RoPE's long-term decay."_s})
                QVERIFY2(text.contains(expected), qPrintable(expected + u"\n"_s + text));
        }
    }

    void htmlDeck()
    {
        const QString deck = m_dir.filePath(u"deck"_s);
        const RunResult run =
            runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, deck});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QDir dir(deck);
        for (const QString &name : {u"index.html"_s, u"step-01.svg"_s, u"step-02.png"_s,
                                    u"step-02.webm"_s, u"step-03.svg"_s, u"pescope-deck.txt"_s})
            QVERIFY2(dir.exists(name), qPrintable(name));
        QFile webm(dir.filePath(u"step-02.webm"_s));
        QVERIFY(webm.open(QIODevice::ReadOnly));
        QCOMPARE(webm.read(4), QByteArray("\x1a\x45\xdf\xa3", 4)); // EBML (Matroska / WebM)
        QFile index(dir.filePath(u"index.html"_s));
        QVERIFY(index.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(index.readAll());
        QVERIFY(html.contains(u"<img src=\"step-01.svg\""_s));
        QVERIFY(html.contains(u"poster=\"step-02.png\""_s));
        QVERIFY(html.contains(u"Two <i>curves</i>"_s));
        // The animated step's video plays in the deck: its note says it is animated, not that
        // a first frame stands in for it (as the PDF's does).
        QVERIFY2(html.contains(u"Animated in the lesson: position from 22 to 27."_s),
                 qPrintable(html));
        QVERIFY2(!html.contains(u"first frame"_s), qPrintable(html));
        QVERIFY(!dir.entryList({u"*.partial*"_s}, QDir::AllEntries | QDir::Hidden).size());

        // Exported again, the deck's own files are replaced (tst_lessondeck: and nothing else).
        const RunResult again =
            runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, deck});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QVERIFY(QDir(deck).exists(u"index.html"_s));
        QCOMPARE(QDir(m_dir.path()).entryList({u".deck*"_s}, QDir::AllEntries | QDir::Hidden),
                 QStringList());
    }

    // The deck opened in Chromium, stepped with the arrow keys (what a clicker sends too).
    void htmlDeckInABrowser()
    {
        const QString python = pythonWithNumpy();
        const QString chromium = QStandardPaths::findExecutable(u"chromium"_s);
        if (chromium.isEmpty())
            PE_SKIP_MISSING("chromium is not installed (apt-get install chromium)");
        const QString deck = m_dir.filePath(u"browserdeck"_s);
        const RunResult run =
            runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, deck});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QProcess script;
        script.start(python.isEmpty() ? u"python3"_s : python,
                     {QStringLiteral(PE_SOURCE_DIR) + u"/tests/lessons/deck_in_browser.py"_s,
                      chromium, QDir(deck).filePath(u"index.html"_s),
                      m_dir.filePath(u"browser.png"_s)});
        QVERIFY(script.waitForFinished(180000));
        const QByteArray out = script.readAllStandardOutput();
        QVERIFY2(script.exitCode() == 0,
                 QByteArray(out + script.readAllStandardError()).constData());
        // The script prints the shown step after each key.
        QCOMPARE(out.trimmed(), QByteArray("start step-1\nArrowRight step-2\nArrowRight step-3\n"
                                           "ArrowRight step-3\nArrowLeft step-2\nHome step-1\n"
                                           "End step-3\nPageUp step-2"));
        QVERIFY(!QImage(m_dir.filePath(u"browser.png"_s)).isNull());
    }

    void nothingHalfWritten()
    {
        // A step whose state cannot open: no PDF, no folder, nothing partial.
        Lesson broken = smallLesson();
        QJsonObject spec = broken.steps[2].state.value(u"spec"_s).toObject();
        spec.insert(u"dims"_s, -4);
        broken.steps[2].state.insert(u"spec"_s, spec);
        const QString path = m_dir.filePath(u"broken.pescope-lesson.json"_s);
        QString error;
        QVERIFY(saveLesson(broken, path, &error));
        const QString pdf = m_dir.filePath(u"broken.pdf"_s);
        // Found before any step is rendered: bad input, exit 2 (issue 45).
        RunResult run = runPescope({u"lesson"_s, u"export"_s, path, u"--out"_s, pdf});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("step 3 (Decay): "), run.err.constData());
        QVERIFY2(!run.err.contains("step 1 /"), run.err.constData());
        QVERIFY(!QFile::exists(pdf));
        const QString deck = m_dir.filePath(u"brokendeck"_s);
        run = runPescope({u"lesson"_s, u"export"_s, path, u"--out"_s, deck});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(!QFile::exists(deck));
        QCOMPARE(QDir(m_dir.path()).entryList({u".brokendeck*"_s}, QDir::AllEntries | QDir::Hidden),
                 QStringList());

        // A folder of other files is not the deck's to replace.
        const QString other = m_dir.filePath(u"notes"_s);
        QVERIFY(QDir().mkpath(other));
        QFile note(other + u"/mine.txt"_s);
        QVERIFY(note.open(QIODevice::WriteOnly));
        note.write("keep me");
        note.close();
        run = runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, other});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("holds other files") && run.err.contains("mine.txt"),
                 run.err.constData());
        QCOMPARE(QDir(other).entryList(QDir::Files), QStringList{u"mine.txt"_s});

        // Usage: a handout that is not a PDF, a 3-up handout, an unknown kind.
        QCOMPARE(runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, other + u"x"_s,
                             u"--as"_s, u"handout"_s})
                     .exitCode,
                 2);
        QCOMPARE(runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, pdf, u"--as"_s,
                             u"handout"_s, u"--per-page"_s, u"3"_s})
                     .exitCode,
                 2);
        QCOMPARE(runPescope({u"lesson"_s, u"export"_s, m_lessonPath, u"--out"_s, pdf, u"--as"_s,
                             u"poster"_s})
                     .exitCode,
                 2);
        QVERIFY(!QFile::exists(pdf));
    }

    // issue 45: captions up to the 20,000-character limit, a long unbroken word among them,
    // export as slides, handout and HTML alike. In a PDF what does not fit below the figure
    // continues on pages of its own ("(continued)"), every word once (no line cut, none hidden
    // under a clip), the figure keeping its room.
    void longCaptionsContinue()
    {
        Lesson lesson = smallLesson();
        lesson.steps.removeAt(1); // no video: quicker
        QStringList words;
        for (int i = 0; i < 1500; ++i)
            words.append(u"w%1"_s.arg(i, 4, 10, QLatin1Char('0')));
        lesson.steps[0].caption = words.join(u' ');
        lesson.steps[1].caption = QString(lessonlimits::maxCaptionChars, QLatin1Char('q'));
        const QString path = m_dir.filePath(u"long.pescope-lesson.json"_s);
        QString error;
        QVERIFY(saveLesson(lesson, path, &error));
        for (const QStringList &kind :
             {QStringList{u"slides.pdf"_s}, QStringList{u"handout2.pdf"_s, u"--as"_s, u"handout"_s},
              QStringList{u"handout4.pdf"_s, u"--as"_s, u"handout"_s, u"--per-page"_s, u"4"_s}}) {
            const QString pdf = m_dir.filePath(kind.first());
            const RunResult run = runPescope(
                QStringList{u"lesson"_s, u"export"_s, path, u"--out"_s, pdf} + kind.mid(1));
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QString text = QString::fromUtf8(tool(u"pdftotext"_s, {pdf, u"-"_s}));
            QVERIFY2(text.contains(u"(continued)"_s), qPrintable(kind.first()));
            for (const QString &word : {words.first(), words.at(700), words.last()})
                QVERIFY2(text.count(word) == 1, qPrintable(kind.first() + u" "_s + word));
            const QRegularExpression anyWord(u"w\\d{4}"_s);
            QCOMPARE(text.count(anyWord), int(words.size()));
            qsizetype qs = 0; // the caption's q's (a figure's labels may hold a q or two)
            for (const QRegularExpressionMatch &m :
                 QRegularExpression(u"q{5,}"_s).globalMatch(text))
                qs += m.capturedLength();
            QCOMPARE(qs, qsizetype(lessonlimits::maxCaptionChars));
        }
        // The slides: the first step's slide still shows its figure (the figure keeps its
        // room), then its caption's continuation; 2 pages at least for the 20,000 q's.
        const QString slides = m_dir.filePath(u"slides.pdf"_s);
        QVERIFY(pdfField(slides, u"Pages"_s).toInt() >= 5);
        const QString first = QString::fromUtf8(
            tool(u"pdftotext"_s, {u"-f"_s, u"1"_s, u"-l"_s, u"1"_s, slides, u"-"_s}));
        QVERIFY2(first.contains(u"position p"_s), qPrintable(first)); // the figure's axis
        const QString deck = m_dir.filePath(u"longdeck"_s);
        const RunResult run = runPescope({u"lesson"_s, u"export"_s, path, u"--out"_s, deck});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile index(deck + u"/index.html"_s);
        QVERIFY(index.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(index.readAll());
        QVERIFY(html.contains(QString(lessonlimits::maxCaptionChars, QLatin1Char('q'))));
        QVERIFY(html.contains(u"overflow-wrap: anywhere"_s)); // the long word wraps on screen
    }

    // Issue 46.7: every slide's title in the title band, in one size. A title of three lines at
    // 36 px ran into its figure; the deck's titles are smaller where its longest needs it, the
    // same on every slide.
    void slideTitlesFitTheirBand()
    {
        Lesson lesson = smallLesson();
        lesson.steps.removeAt(1); // no video: quicker
        lesson.steps[1].title =
            u"The long-term decay of the relative scores of RoPE with reference "
            u"bases from ten thousand to a million, and what a context "
            u"window of 128k tokens makes of them"_s;
        const QString path = m_dir.filePath(u"titles.pescope-lesson.json"_s);
        QString error;
        QVERIFY(saveLesson(lesson, path, &error));
        const QString pdf = m_dir.filePath(u"titles.pdf"_s);
        const RunResult run = runPescope({u"lesson"_s, u"export"_s, path, u"--out"_s, pdf});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        // Each word's box in points on the 960 x 540 pt page, page by page.
        const QString boxes = QString::fromUtf8(tool(u"pdftotext"_s, {u"-bbox"_s, pdf, u"-"_s}));
        const QRegularExpression word(
            u"<word xMin=\"([\\d.]+)\" yMin=\"([\\d.]+)\" xMax=\"([\\d.]+)\" "
            u"yMax=\"([\\d.]+)\">([^<]*)</word>"_s);
        QList<QStringList> pages;
        for (const QString &page : boxes.split(u"<page "_s).mid(1)) {
            pages.append(QStringList());
            for (const QRegularExpressionMatch &m : word.globalMatch(page))
                pages.last().append(m.captured(0));
        }
        QCOMPARE(pages.size(), 2);
        QList<double> heights;
        for (int p = 0; p < 2; ++p) {
            const QStringList title = lesson.steps[p].title.split(u' ');
            int found = 0;
            for (const QString &box : pages[p]) {
                const QRegularExpressionMatch m = word.match(box);
                if (found >= title.size() || m.captured(5) != title[found].toHtmlEscaped())
                    continue;
                ++found;
                // The figure begins 88 pt down (slideFigureTop).
                QVERIFY2(m.captured(4).toDouble() <= 88.0,
                         qPrintable(u"slide %1: \"%2\" reaches %3 pt"_s.arg(p + 1).arg(
                             m.captured(5), m.captured(4))));
                heights.append(m.captured(4).toDouble() - m.captured(2).toDouble());
            }
            QCOMPARE(found, int(title.size()));
        }
        // One type size for every title.
        const auto [low, high] = std::minmax_element(heights.cbegin(), heights.cend());
        QVERIFY2(*high - *low < 0.5, qPrintable(u"%1 to %2 pt"_s.arg(*low).arg(*high)));
    }

    // issue 45: a 65,536 x 128 heatmap is embedded sampled to at most 2,048 cells a side (an
    // image no larger than a few million pixels), not as 8 million cells.
    void largeHeatmapsAreBounded()
    {
        QJsonObject state = presetState(u"geron-16-9"_s);
        QJsonObject spec = state.value(u"spec"_s).toObject();
        spec.insert(u"positions"_s, 65536);
        spec.insert(u"dims"_s, 128);
        state.insert(u"spec"_s, spec);
        Lesson lesson;
        lesson.title = u"Large"_s;
        lesson.steps.append(LessonStep{.title = u"Heatmap"_s,
                                       .caption = u"Cells."_s,
                                       .view = u"heatmap"_s,
                                       .animation = std::nullopt,
                                       .state = state});
        const QString path = m_dir.filePath(u"large.pescope-lesson.json"_s);
        QString error;
        QVERIFY(saveLesson(lesson, path, &error));
        const QString pdf = m_dir.filePath(u"large.pdf"_s);
        const RunResult run = runPescope({u"lesson"_s, u"export"_s, path, u"--out"_s, pdf});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString images = QString::fromUtf8(tool(u"pdfimages"_s, {u"-list"_s, pdf}));
        qint64 largest = 0;
        int longestSide = 0;
        for (const QString &line : images.split(QLatin1Char('\n')).mid(2)) {
            const QStringList fields = line.simplified().split(QLatin1Char(' '));
            if (fields.size() < 5)
                continue;
            const int width = fields.at(3).toInt(), height = fields.at(4).toInt();
            largest = std::max(largest, qint64(width) * height);
            longestSide = std::max({longestSide, width, height});
        }
        QVERIFY2(largest > 0, qPrintable(images));
        // One image pixel per device pixel at most 16x over the cells (viewers' smoothing).
        QVERIFY2(longestSide <= 2048 * 2 && largest <= qint64(1) << 22, qPrintable(images));
    }
};

QTEST_GUILESS_MAIN(TestLessonExport)
#include "tst_lessonexport.moc"
