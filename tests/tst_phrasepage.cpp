// The Phrases page as a user drives it (issues 25 and 32): the phrase rows always show the
// state's phrases (after a removal, a preset, a session), the phrase fields take as many
// characters as the command line does, and the page stays readable at 1280 x 720.
#include "testutil.h"
#include "windowtestutil.h"

#include "compute/computescheduler.h"
#include "figures/figurebuilder.h"
#include "figures/fittedtext.h"
#include "figures/plottheme.h"
#include "figures/qcpinclude.h"
#include "state/sessionfile.h"
#include "views/fileactions.h"
#include "views/mainwindow.h"
#include "views/phraseview.h"
#include "widgets/fieldform.h"

#include <QApplication>
#include <QClipboard>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include <QToolButton>
#include <cmath>

using namespace pe;
using pe::test::openWindow;
using pe::test::typeInto;

namespace {

constexpr int settleTimeoutMs = 30000;

// Why the page's rows are not the state's phrases (each at its place, no other row); empty
// when they are.
QString rowsProblem(MainWindow *window)
{
    PhraseView *view = window->phraseView();
    const PhraseSettings &s = window->state()->phraseSettings();
    const PhraseWindow w = window->state()->phraseWindow();
    if (view->phraseEditCount() != int(w.phrases()))
        return QStringLiteral("%1 rows for %2 phrases")
            .arg(view->phraseEditCount())
            .arg(w.phrases());
    for (int row = 0; row < view->phraseEditCount(); ++row)
        if (view->phraseEdit(row)->text() != s.phrases[w.firstPhrase + row])
            return QStringLiteral("row %1 shows \"%2\", the state \"%3\"")
                .arg(row)
                .arg(view->phraseEdit(row)->text().left(40),
                     s.phrases[w.firstPhrase + row].left(40));
    // Nothing more by name either (a dropped row's widgets lose their names).
    if (view->findChild<QLineEdit *>(QStringLiteral("phrase%1").arg(w.phrases())) ||
        view->findChild<QToolButton *>(QStringLiteral("phrase%1Remove").arg(w.phrases())))
        return QStringLiteral("a row past the phrases is still named");
    return {};
}

// Adds a phrase as a user does: the Add phrase button, typing, Enter. Empty when the state took
// it, else what went wrong.
QString addPhraseByHand(MainWindow *window, const QString &text)
{
    PhraseView *view = window->phraseView();
    const qsizetype before = window->state()->phraseSettings().phrases.size();
    QTest::mouseClick(view->addPhraseButton(), Qt::LeftButton);
    QLineEdit *edit = view->phraseEdit(view->phraseEditCount() - 1);
    if (!edit)
        return QStringLiteral("no new row");
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
    const QStringList &phrases = window->state()->phraseSettings().phrases;
    if (phrases.size() != before + 1 || phrases.last() != text)
        return QStringLiteral("the state holds %1 phrases, the last \"%2\"")
            .arg(phrases.size())
            .arg(phrases.last());
    return {};
}

// A phrase of exactly `length` characters: words of "abcdefg " and a tail.
QString longPhrase(qsizetype length)
{
    QString text;
    text.reserve(length);
    while (text.size() + 8 <= length)
        text += QStringLiteral("abcdefg ");
    text += QString(length - text.size(), QLatin1Char('z'));
    return text;
}

bool waitSettled(MainWindow &window)
{
    for (int round = 0; round < 2; ++round) {
        if (!QTest::qWaitFor([&] { return window.isSettled(); }, settleTimeoutMs))
            return false;
        QTest::qWait(50);
    }
    return window.isSettled();
}

QList<FittedTextElement *> fittedTexts(QCustomPlot *plot)
{
    QList<FittedTextElement *> out;
    for (QCPLayoutElement *element : plot->plotLayout()->elements(true))
        if (auto *text = dynamic_cast<FittedTextElement *>(element))
            out.append(text);
    return out;
}

// Every title and note of a figure as drawn, one per line.
QString figureText(QCustomPlot *plot)
{
    plot->replot();
    QStringList all;
    for (FittedTextElement *text : fittedTexts(plot))
        all.append(text->shownText());
    return all.join(QLatin1Char('\n'));
}

// Why a title of `plot` overruns the figure or takes more than two lines; empty when each fits.
QString titlesProblem(QCustomPlot *plot)
{
    const QList<FittedTextElement *> texts = fittedTexts(plot);
    if (texts.isEmpty())
        return QStringLiteral("%1: no titles").arg(plot->objectName());
    for (FittedTextElement *text : texts) {
        const QString shown = text->shownText();
        const QFontMetrics metrics(text->font());
        for (const QString &line : shown.split(QLatin1Char('\n')))
            if (metrics.horizontalAdvance(line) > text->outerRect().width() ||
                !plot->viewport().contains(text->outerRect()))
                return QStringLiteral("%1: \"%2\" overruns its place")
                    .arg(plot->objectName(), line);
        if (shown.count(QLatin1Char('\n')) > 1)
            return QStringLiteral("%1: %2 lines")
                .arg(plot->objectName())
                .arg(shown.count(u'\n') + 1);
    }
    return {};
}

} // namespace

class TestPhrasePage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    static std::unique_ptr<MainWindow> phrasesWindow()
    {
        auto window = openWindow();
        if (!QTest::qWaitForWindowExposed(window.get()))
            qWarning("the window was not exposed");
        // Shortcuts reach only the active window (on a loaded machine it may take a while).
        window->activateWindow();
        if (!QTest::qWaitForWindowActive(window.get()))
            qWarning("the window did not become active");
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        if (window->state()->page() != Page::Phrases)
            qWarning("Ctrl+2 did not show the Phrases page");
        return window;
    }

private slots:
    void initTestCase()
    {
        if (QGuiApplication::platformName() == QLatin1String("minimal"))
            PE_SKIP_MISSING("needs a display or the offscreen platform to render widgets");
        QVERIFY(m_dir.isValid());
    }

    // Issue 25 observation 2: with three phrases, × on Phrase 3 left its row, text and an
    // active ×, and editing it added the phrase back.
    void removingAPhraseDropsItsRow()
    {
        auto window = phrasesWindow();
        PhraseView *view = window->phraseView();
        // The default phrases are three (resources/phrases); the third made by hand.
        PhraseSettings s = window->state()->phraseSettings();
        s.phrases.resize(2);
        QVERIFY(window->state()->setPhraseSettings(s));
        QCOMPARE(addPhraseByHand(window.get(), QStringLiteral("zebras dance at night")), QString());
        QCOMPARE(rowsProblem(window.get()), QString());
        auto *remove = view->findChild<QToolButton *>(QStringLiteral("phrase2Remove"));
        QVERIFY(remove && remove->isEnabled());
        QTest::mouseClick(remove, Qt::LeftButton);
        QCOMPARE(window->state()->phraseSettings().phrases.size(), 2);
        QCOMPARE(rowsProblem(window.get()), QString());
        for (int row = 0; row < view->phraseEditCount(); ++row)
            QVERIFY(!view->phraseEdit(row)->text().contains(QLatin1String("zebras")));
        // Two phrases left: neither can go.
        for (int row = 0; row < 2; ++row)
            QVERIFY(!view->findChild<QToolButton *>(QStringLiteral("phrase%1Remove").arg(row))
                         ->isEnabled());
        // Editing a row changes that phrase and brings nothing back.
        typeInto(view->phraseEdit(1), QStringLiteral("giraffes sing"));
        QCOMPARE(window->state()->phraseSettings().phrases,
                 (QStringList{window->state()->phraseSettings().phrases[0],
                              QStringLiteral("giraffes sing")}));
        QCOMPARE(rowsProblem(window.get()), QString());

        // The middle one of three: the rows below move up.
        QCOMPARE(addPhraseByHand(window.get(), QStringLiteral("lions sleep")), QString());
        QTest::mouseClick(view->findChild<QToolButton *>(QStringLiteral("phrase1Remove")),
                          Qt::LeftButton);
        QCOMPARE(window->state()->phraseSettings().phrases.value(1), QStringLiteral("lions sleep"));
        QCOMPARE(rowsProblem(window.get()), QString());
    }

    // Issue 32 item 6: three phrases, then a preset with two (Ctrl+Alt+2, keras-phrases): the
    // rows are the preset's, even with text typed in Phrase 3 and a new phrase's row open.
    void aPresetReplacesTheRows()
    {
        auto window = phrasesWindow();
        PhraseView *view = window->phraseView();
        QCOMPARE(addPhraseByHand(window.get(), QStringLiteral("zebras dance at night")), QString());
        QVERIFY(window->state()->phraseSettings().phrases.size() >= 3);
        // Typed, not committed, in Phrase 3.
        QLineEdit *third = view->phraseEdit(2);
        third->setFocus();
        QTest::keyClicks(third, QStringLiteral(" and day"));
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier | Qt::AltModifier);
        QCOMPARE(window->state()->phraseSettings().phrases.size(), 2);
        QVERIFY(window->state()->phraseSettings().phrases[0].startsWith(u"to understand"_qs));
        QCOMPARE(rowsProblem(window.get()), QString());
        // Editing the rows now changes the preset's phrases, never adds Phrase 3 back.
        typeInto(view->phraseEdit(1), QStringLiteral("patrick henry spoke"));
        QCOMPARE(window->state()->phraseSettings().phrases.size(), 2);
        QCOMPARE(rowsProblem(window.get()), QString());

        // A new phrase's row, empty and refused, goes too when a preset replaces the phrases.
        QTest::mouseClick(view->addPhraseButton(), Qt::LeftButton);
        QCOMPARE(view->phraseEditCount(), 3);
        QTest::keyClick(view->phraseEdit(2), Qt::Key_Return);
        QVERIFY(view->message().contains(QLatin1String("empty")));
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier | Qt::AltModifier);
        QCOMPARE(rowsProblem(window.get()), QString());
        QVERIFY2(view->message().isEmpty(), qPrintable(view->message()));
        // A change that leaves the phrases alone (a reseed) keeps a new phrase's row open.
        QTest::mouseClick(view->addPhraseButton(), Qt::LeftButton);
        QCOMPARE(view->phraseEditCount(), 3);
        window->state()->reseedPhrases();
        QCOMPARE(view->phraseEditCount(), 3);
        QTest::keyClicks(view->phraseEdit(2), QStringLiteral("owls hoot"));
        QTest::keyClick(view->phraseEdit(2), Qt::Key_Return);
        QCOMPARE(window->state()->phraseSettings().phrases.value(2), QStringLiteral("owls hoot"));
        QCOMPARE(rowsProblem(window.get()), QString());
    }

    // Issue 32 item 6: File > Open session (and --session, the same loader) with fewer phrases.
    void aSessionReplacesTheRows()
    {
        const QString path = m_dir.filePath(QStringLiteral("two.pescope.json"));
        {
            auto source = phrasesWindow();
            PhraseSettings s = source->state()->phraseSettings();
            s.phrases = {QStringLiteral("cats purr"), QStringLiteral("dogs bark")};
            QVERIFY(source->state()->setPhraseSettings(s));
            QString error;
            QVERIFY2(saveSession(*source->state(), path, &error), qPrintable(error));
        }
        auto window = phrasesWindow();
        QCOMPARE(addPhraseByHand(window.get(), QStringLiteral("zebras dance at night")), QString());
        QCOMPARE(addPhraseByHand(window.get(), QStringLiteral("lions sleep")), QString());
        QVERIFY(window->state()->phraseSettings().phrases.size() >= 4);
        QCOMPARE(rowsProblem(window.get()), QString());
        QString error;
        QVERIFY2(openSessionInWindow(window.get(), path, &error), qPrintable(error));
        QCOMPARE(window->state()->phraseSettings().phrases,
                 (QStringList{QStringLiteral("cats purr"), QStringLiteral("dogs bark")}));
        QCOMPARE(rowsProblem(window.get()), QString());
        // And the command line's --session at start.
        const QString shot = m_dir.filePath(QStringLiteral("session.png"));
        const test::RunResult r =
            test::runPescope({QStringLiteral("--session"), path, QStringLiteral("--page"),
                              QStringLiteral("phrases"), QStringLiteral("--screenshot"), shot,
                              QStringLiteral("--size"), QStringLiteral("1280x720")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    // Issue 32 item 2: pasting 1 MiB into Phrase 1 and pressing Enter kept 32,767 characters.
    void aPastedMebibyteIsKeptWhole()
    {
        auto window = phrasesWindow();
        PhraseView *view = window->phraseView();
        QLineEdit *edit = view->phraseEdit(0);
        const QString mebibyte = longPhrase(limits::maxPhraseLength);
        QGuiApplication::clipboard()->setText(mebibyte);
        edit->setFocus();
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(edit, Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(edit->text().size(), limits::maxPhraseLength);
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY2(view->message().isEmpty(), qPrintable(view->message()));
        QCOMPARE(window->state()->phraseSettings().phrases[0].size(), limits::maxPhraseLength);
        QCOMPARE(window->state()->phraseSettings().phrases[0], mebibyte);

        // One character more is refused with a message; the state keeps the whole mebibyte.
        QGuiApplication::clipboard()->setText(mebibyte + QStringLiteral("abc"));
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(edit, Qt::Key_V, Qt::ControlModifier);
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY2(view->message().contains(
                     QStringLiteral("longer than %1 characters").arg(limits::maxPhraseLength)),
                 qPrintable(view->message().left(300)));
        QCOMPARE(window->state()->phraseSettings().phrases[0], mebibyte);
        // Typing past the limit is refused the same way, not ignored key by key.
        edit->setText(mebibyte);
        QTest::keyClick(edit, Qt::Key_End);
        QTest::keyClick(edit, Qt::Key_Q);
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY(view->message().contains(QLatin1String("longer than")));
    }

    // Issue 32 item 2: a session's 116,899-character phrase, edited (End, Backspace, Enter) and
    // saved, kept 32,766 characters.
    void aLongSessionPhraseSurvivesAnEdit()
    {
        const qsizetype length = 116899;
        const QString phrase = longPhrase(length);
        const QString in = m_dir.filePath(QStringLiteral("long.pescope.json"));
        const QString out = m_dir.filePath(QStringLiteral("long-edited.pescope.json"));
        {
            auto source = phrasesWindow();
            PhraseSettings s = source->state()->phraseSettings();
            s.phrases[0] = phrase;
            QString error;
            QVERIFY2(source->state()->setPhraseSettings(s, &error), qPrintable(error));
            QVERIFY2(saveSession(*source->state(), in, &error), qPrintable(error));
        }
        auto window = phrasesWindow();
        QString error;
        QVERIFY2(openSessionInWindow(window.get(), in, &error), qPrintable(error));
        QLineEdit *edit = window->phraseView()->phraseEdit(0);
        QCOMPARE(edit->text().size(), length);
        edit->setFocus();
        QTest::keyClick(edit, Qt::Key_End);
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY2(saveSession(*window->state(), out, &error), qPrintable(error));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject saved = QJsonDocument::fromJson(file.readAll()).object();
        // Read with Qt's JSON, not pescope's session reader.
        const QString kept = saved.value(u"state"_qs)
                                 .toObject()
                                 .value(u"phrases"_qs)
                                 .toObject()
                                 .value(u"phrases"_qs)
                                 .toArray()
                                 .at(0)
                                 .toString();
        QCOMPARE(kept.size(), length - 1);
        QCOMPARE(kept, phrase.left(length - 1));
    }

    // Issue 25: a refused phrase, or a refused setting, shows its message without moving the
    // controls below it.
    void aMessageMovesNoControl()
    {
        auto window = phrasesWindow();
        window->resize(1280, 720);
        PhraseView *view = window->phraseView();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        FieldForm *settings = view->settingsForm();
        const QList<QWidget *> watched{view->addPhraseButton(),
                                       view->phraseEdit(1),
                                       settings->editor(QStringLiteral("sequenceLength")),
                                       settings->editor(QStringLiteral("dims")),
                                       settings->editor(QStringLiteral("seed")),
                                       view->findChild<QPushButton *>(QStringLiteral("reseed"))};
        const auto places = [&] {
            QApplication::processEvents();
            QList<QRect> out;
            for (QWidget *w : watched)
                out.append(QRect(w->mapTo(window.get(), QPoint()), w->size()));
            return out;
        };
        const QList<QRect> before = places();
        typeInto(view->phraseEdit(0), QStringLiteral("?!"));
        QVERIFY2(view->message().contains(QLatin1String("phrase 1")), qPrintable(view->message()));
        QCOMPARE(places(), before);
        typeInto(view->phraseEdit(0), QStringLiteral("back to words"));
        QVERIFY2(view->message().isEmpty(), qPrintable(view->message()));
        QCOMPARE(places(), before);
        // Max tokens refused: Output dims, below it, stays where it was.
        typeInto(settings->editor(QStringLiteral("maxTokens")), QStringLiteral("2"));
        QVERIFY2(!settings->messages().isEmpty(), "max tokens 2 was not refused");
        QCOMPARE(places(), before);
    }

    // Issue 25: at 1280 x 720 the similarity title wrapped to five lines and squashed its axis;
    // the token axes had ticks at 2.5 and 7.5. Titles take at most two lines inside the figure,
    // and token and dim ticks are whole numbers.
    void figuresReadableAt1280x720()
    {
        auto window = openWindow();
        window->resize(1280, 720);
        QString error;
        QVERIFY2(window->applyPreset(QStringLiteral("keras-phrases"), &error), qPrintable(error));
        QVERIFY(waitSettled(*window));
        PhraseView *view = window->phraseView();
        QTest::mouseClick(view->gridPlot(), Qt::LeftButton, {},
                          view->gridCellCentre(1, EmbeddingMode::Random, 5, 10));
        QVERIFY(waitSettled(*window));
        for (QCustomPlot *plot : view->findChildren<QCustomPlot *>()) {
            if (!plot->isVisible()) // the model's own figures, shown only with its tokenizer
                continue;
            plot->replot();
            QCOMPARE(titlesProblem(plot), QString());
            for (QCPAxisRect *rect : plot->axisRects())
                for (QCPAxis *axis : rect->axes())
                    if (axis->visible() && axis->tickLabels() &&
                        !qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker()) &&
                        axis->label() != QLatin1String("cosine similarity"))
                        for (double tick : axis->tickVector())
                            QVERIFY2(tick == std::round(tick),
                                     qPrintable(QStringLiteral("%1: tick %2")
                                                    .arg(plot->objectName())
                                                    .arg(tick)));
        }
        QCustomPlot *similarity = view->similarityPlot();
        QCOMPARE(similarity->axisRectCount(), 1);
        QVERIFY2(similarity->axisRect()->height() >= similarity->height() / 3,
                 qPrintable(QStringLiteral("axis %1 px of %2")
                                .arg(similarity->axisRect()->height())
                                .arg(similarity->height())));
    }

    // Issue 25: at scale factor 2 the Difference title was cut on both sides. In a panel too
    // narrow for a title, each line is elided ("…") inside the figure.
    void titlesElideInNarrowPanels()
    {
        auto window = openWindow();
        PhraseSettings s = window->state()->phraseSettings();
        s.titles = {QStringLiteral("A rather long title for the first phrase"),
                    QStringLiteral("Another long title, for the second phrase")};
        QVERIFY(window->state()->setPhraseSettings(s));
        window->state()->setPhraseSelection({0, 3, EmbeddingMode::Fixed});
        QVERIFY(waitSettled(*window));
        const std::shared_ptr<const PhraseResult> result = window->scheduler()->phrases();
        QVERIFY(result);
        const FigureBuilder builder(*window->state(), plotTheme(Theme::Light));
        for (int width : {180, 260}) {
            QCustomPlot plot;
            plot.resize(width, 320);
            builder.buildPhraseDifference(&plot, *result);
            plot.replot();
            QCOMPARE(titlesProblem(&plot), QString());
            QString title = fittedTexts(&plot).constFirst()->shownText();
            QVERIFY2(title.contains(QChar(0x2026)), qPrintable(title));
            QVERIFY2(title.startsWith(u"Difference"_qs), qPrintable(title));
            QCustomPlot similarity;
            similarity.resize(width, 320);
            builder.buildTokenSimilarity(&similarity, *result);
            similarity.replot();
            QCOMPARE(titlesProblem(&similarity), QString());
            title = fittedTexts(&similarity).constFirst()->shownText();
            QVERIFY2(title.startsWith(u"Cosine similarity"_qs), qPrintable(title));
        }
    }

    // Issue 25: a 10,000-character phrase was cut to 20 tokens without a word. The grid says
    // which phrase was cut, to how many of its tokens.
    void aCutPhraseIsNoted()
    {
        auto window = phrasesWindow();
        PhraseView *view = window->phraseView();
        // 1,250 words of "abcdefg ": 10,000 characters, 1,250 tokens.
        QGuiApplication::clipboard()->setText(longPhrase(10000));
        QLineEdit *edit = view->phraseEdit(0);
        edit->setFocus();
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(edit, Qt::Key_V, Qt::ControlModifier);
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY(waitSettled(*window));
        QCOMPARE(window->state()->phraseSettings().sequenceLength, 20);
        const QString notes = figureText(view->gridPlot());
        QVERIFY2(notes.contains(u"Phrase 1 cut to its first 20 of 1,250 tokens"_qs),
                 qPrintable(notes + QStringLiteral("\nplot %1 x %2")
                                        .arg(view->gridPlot()->width())
                                        .arg(view->gridPlot()->height())));
        QVERIFY2(!notes.contains(u"Phrase 2 cut"_qs), qPrintable(notes));
        // A sequence length that holds the whole phrase: no note.
        typeInto(view->settingsForm()->editor(QStringLiteral("sequenceLength")),
                 QStringLiteral("1250"));
        QVERIFY(waitSettled(*window));
        QVERIFY2(!figureText(view->gridPlot()).contains(u"cut to"_qs),
                 qPrintable(figureText(view->gridPlot())));
    }
};

QTEST_MAIN(TestPhrasePage)
#include "tst_phrasepage.moc"
