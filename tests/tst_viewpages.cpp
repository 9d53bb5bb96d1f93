// The window's pages answer which views they show (issue 47): each page hosts the view list's
// views of its page, shows a subset of them, and hands File > Export, Export data and the Motion
// bar what the hand-written resolvers did; a view's needs (two phrases to compare) are refused
// with one message by the window's figure check and by the command line.
#include "testutil.h"
#include "windowtestutil.h"

#include "compute/computejobs.h"
#include "compute/figuredata.h"
#include "compute/phrasemodeldata.h"
#include "figures/figureexporter.h"
#include "state/explorerstate.h"
#include "state/schemesettings.h"
#include "state/viewlist.h"
#include "views/mainwindow.h"
#include "views/modelpage.h"
#include "views/viewpage.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace pe;
using pe::test::openWindow;

namespace {

bool isSubset(const QList<FigureView> &part, const QList<FigureView> &whole)
{
    return std::all_of(part.begin(), part.end(),
                       [&](FigureView view) { return whole.contains(view); });
}

// The message the view list's needs give, written out here rather than asked of pescope.
const QString oneOfTwoPhrases = QStringLiteral("the phrase-difference view needs two phrases");
const QString oneOfTwoModelPhrases = QStringLiteral("the token-cosine view needs two phrases");

} // namespace

class TestViewPages : public QObject
{
    Q_OBJECT

private slots:
    void everyPageHostsItsListsViews()
    {
        auto window = openWindow();
        for (const ChoiceName &name : pageNames) {
            const auto page = Page(name.value);
            const ViewPage &answer = window->viewPages().page(page);
            QCOMPARE(answer.page, page);
            QCOMPARE(answer.hostedViews().mid(0, viewsOf(page).size()), viewsOf(page));
            if (page != Page::Model) {
                QCOMPARE(answer.hostedViews(), viewsOf(page));
                continue;
            }
            // The Model page draws a rotary layer's spectrum, rotation and decay as the Schemes
            // page does: guests from the Schemes page's list, each a tab of the page.
            QCOMPARE(answer.guests, (QList<FigureView>{FigureView::Spectrum, FigureView::Rotation,
                                                       FigureView::Decay}));
            for (FigureView guest : answer.guests) {
                QCOMPARE(viewEntry(guest).page, Page::Schemes);
                QVERIFY(ModelPage::views().contains(guest));
            }
            QVERIFY(isSubset(ModelPage::views(), answer.hostedViews()));
        }
    }

    void viewsOnScreenAreHostedOnEveryPage()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        const auto checkCurrent = [&] {
            const ViewPage &page = window->viewPages().current();
            QCOMPARE(page.page, state->page());
            const QList<FigureView> shown = page.viewsOnScreen();
            QVERIFY(!shown.isEmpty());
            QVERIFY(isSubset(shown, page.hostedViews()));
            QVERIFY(isSubset(page.figureViews(), shown));
            QVERIFY(isSubset(page.playableViews(), shown));
        };
        for (const ChoiceName &name : pageNames) {
            state->setPage(Page(name.value));
            checkCurrent();
        }
        state->setPage(Page::Schemes);
        for (FigureView view : viewsOf(Page::Schemes)) {
            SchemeSettings settings = state->schemeSettings();
            settings.view = view;
            QVERIFY(state->setSchemeSettings(settings));
            checkCurrent();
            QCOMPARE(window->viewPages().current().viewsOnScreen(), QList<FigureView>{view});
        }
    }

    // What the resolvers of pescope 0.x answered by hand (FileActions::currentViews and
    // currentDataView, PlayBar::currentViews, MainWindow::helpViews), now from the list.
    void answersAsBeforeFromTheList()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        const ViewPages &pages = window->viewPages();
        const ViewPage &encoding = pages.page(Page::Encoding);
        QCOMPARE(encoding.viewsOnScreen(),
                 (QList<FigureView>{FigureView::Heatmap, FigureView::Waves}));
        QCOMPARE(encoding.figureViews(),
                 (QList<FigureView>{FigureView::Waves, FigureView::Heatmap}));
        QCOMPARE(encoding.dataView(), FigureView::Heatmap);
        QCOMPARE(encoding.playableViews(), encoding.viewsOnScreen());

        const ViewPage &phrases = pages.page(Page::Phrases);
        QCOMPARE(phrases.viewsOnScreen(),
                 (QList<FigureView>{FigureView::Phrases, FigureView::PhraseDifference,
                                    FigureView::TokenSimilarity}));
        QCOMPARE(phrases.figureViews(), QList<FigureView>{FigureView::Phrases});
        QCOMPARE(phrases.dataView(), FigureView::Phrases);

        // A Schemes view without data of its own leaves the heatmap's matrix to Export data; a
        // view that writes data (the long-context report) is written itself.
        state->setPage(Page::Schemes);
        SchemeSettings settings = state->schemeSettings();
        settings.view = FigureView::Spectrum;
        QVERIFY(state->setSchemeSettings(settings));
        const ViewPage &schemes = pages.current();
        QCOMPARE(schemes.figureViews(), QList<FigureView>{FigureView::Spectrum});
        QCOMPARE(schemes.playableViews(), QList<FigureView>{FigureView::Spectrum});
        QCOMPARE(schemes.dataView(), FigureView::Heatmap);
        settings.view = FigureView::ContextPairs;
        QVERIFY(state->setSchemeSettings(settings));
        QCOMPARE(schemes.dataView(), FigureView::ContextPairs);

        // A stored table has no position or field to play, nor has a rotary layer's view there
        // (a guest plays on its own page).
        state->setPage(Page::Model);
        QVERIFY(pages.current().playableViews().isEmpty());
        QCOMPARE(pages.current().figureViews(),
                 QList<FigureView>{window->modelPage()->currentView()});
    }

    // The window's figure check (File > Export, Copy figure, Python's pescope.figure) and the
    // command line refuse a two-phrase view given one phrase with the same message.
    void twoPhrasesNeededAlike()
    {
        QCOMPARE(viewNeedsProblem({FigureView::PhraseDifference}, {.phrases = 1}), oneOfTwoPhrases);
        QCOMPARE(viewNeedsProblem({FigureView::PhraseDifference}, {.phrases = 2}), QString());
        QCOMPARE(viewNeedsProblem({FigureView::ModelTokenCosine}, {.phrases = 2}),
                 QStringLiteral("the token-cosine view needs a model"));
        QCOMPARE(viewNeedsProblem({FigureView::Heatmap}, {}), QString());

        ExplorerState state;
        auto onePhrase = std::make_shared<PhraseResult>();
        onePhrase->settings = state.phraseSettings();
        onePhrase->settings.phrases = {QStringLiteral("only one")};
        FigureData data;
        data.phrases = onePhrase;
        FigureOptions options;
        options.views = {FigureView::PhraseDifference};
        QString windowError;
        QVERIFY(FigureExporter(state, data, options).renderImage(&windowError).isNull());
        QCOMPARE(windowError, oneOfTwoPhrases);

        // The model's token similarity, which compares phrase A's tokens with B's.
        auto oneModelPhrase = std::make_shared<PhraseModelResult>();
        oneModelPhrase->phrases.resize(1);
        FigureData modelData;
        modelData.modelPhrases = oneModelPhrase;
        options.views = {FigureView::ModelTokenCosine};
        QVERIFY(FigureExporter(state, modelData, options).renderImage(&windowError).isNull());
        QCOMPARE(windowError, oneOfTwoModelPhrases);

        // The command line: the same message after the option it is about. (Its tutorial
        // phrases are refused before any view is asked, by the phrase options' own check: at
        // least two phrases, as in the window.)
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("a.png"));
        const pe::test::RunResult cli = pe::test::runPescope(
            {QStringLiteral("export"), QStringLiteral("--view"), QStringLiteral("token-cosine"),
             QStringLiteral("--model"), QFINDTESTDATA("data/models/llama-tiny"),
             QStringLiteral("--text"), QStringLiteral("only one"), QStringLiteral("--out"), out});
        QCOMPARE(cli.exitCode, 2);
        QVERIFY2(cli.err.contains((QStringLiteral("--text: ") + oneOfTwoModelPhrases).toUtf8()),
                 cli.err.constData());
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_MAIN(TestViewPages)
#include "tst_viewpages.moc"
