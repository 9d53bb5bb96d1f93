// The window's pages answer which views they show (issue 47): each page hosts the view list's
// views of its page, shows a subset of them, and hands File > Export, Export data and the Motion
// bar what the hand-written resolvers did; a view's needs (two phrases to compare) are refused
// with one message by the window's figure check and by the command line.
#include "testutil.h"
#include "windowtestutil.h"

#include "compute/computejobs.h"
#include "compute/computescheduler.h"
#include "compute/figuredata.h"
#include "compute/phrasemodeldata.h"
#include "figures/figureexporter.h"
#include "state/explorerstate.h"
#include "state/presets.h"
#include "state/schemesettings.h"
#include "state/viewlist.h"
#include "views/encodingpage.h"
#include "views/hostedview.h"
#include "views/mainwindow.h"
#include "views/modelpage.h"
#include "views/viewpage.h"

#include "figures/qcpinclude.h"

#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

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

QCPGraph *graphNamed(QCustomPlot *plot, const QString &name)
{
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name() == name)
            return plot->graph(i);
    return nullptr;
}

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

    // Issue 47: the Encoding page's widget hosts exactly the list's Encoding views: the waves
    // and the heatmap in their own panes, every other one in a tab drawn by the list's builder.
    // With no other view (the list of today) there is no tab widget: nothing on screen changes.
    void encodingPageHostsItsListsViews()
    {
        auto window = openWindow();
        EncodingPage *page = window->encodingPage();
        QCOMPARE(window->pages()->widget(int(Page::Encoding)), page);
        QList<FigureView> hosted{FigureView::Heatmap, FigureView::Waves};
        for (const HostedView *plot : page->findChildren<HostedView *>())
            hosted.append(plot->view());
        std::sort(hosted.begin(), hosted.end());
        QCOMPARE(hosted, viewsOf(Page::Encoding));
        QCOMPARE(window->viewPages().page(Page::Encoding).hostedViews(), viewsOf(Page::Encoding));
        const QList<FigureView> tabbed = EncodingPage::tabViews();
        auto *tabs = page->findChild<QTabWidget *>();
        if (tabbed.isEmpty()) {
            QVERIFY(!tabs);
            QCOMPARE(page->shownViews(),
                     (QList<FigureView>{FigureView::Heatmap, FigureView::Waves}));
            return;
        }
        // A view added to the list (the recipe's trial): its tab, its entry's tooltip, its
        // figure on screen, and the page's answers follow the tab.
        QVERIFY(tabs);
        QCOMPARE(tabs->count(), 1 + tabbed.size());
        for (int i = 0; i < tabbed.size(); ++i) {
            QCOMPARE(tabs->tabText(i + 1), figureViewTitle(tabbed[i]));
            QCOMPARE(tabs->tabToolTip(i + 1), viewTabTip(tabbed[i], Page::Encoding));
            QVERIFY(page->setCurrentView(tabbed[i]));
            QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
            const auto *plot = qobject_cast<HostedView *>(tabs->currentWidget());
            QVERIFY(plot && plot->isVisible());
            QCOMPARE(plot->view(), tabbed[i]);
            QVERIFY2(plot->notice().isEmpty(), qPrintable(plot->notice()));
            QVERIFY(plot->plottableCount() > 0);
            const ViewPage &answer = window->viewPages().current();
            QCOMPARE(answer.viewsOnScreen(), QList<FigureView>{tabbed[i]});
            QCOMPARE(answer.figureViews(), QList<FigureView>{tabbed[i]});
            QCOMPARE(answer.figureSize(), plot->size());
        }
        QVERIFY(page->setCurrentView(FigureView::Heatmap));
        QCOMPARE(window->viewPages().current().figureViews(),
                 (QList<FigureView>{FigureView::Waves, FigureView::Heatmap}));
    }

    // Issue 47: the Model page's tabs are the list's Model views, then its guests (the Schemes
    // page's rotary views), in the list's order, titled and tipped by their entries; the order
    // and texts are those the page wrote by hand before, written out here.
    void modelPageTabsFromTheList()
    {
        auto window = openWindow();
        auto *tabs = window->modelPage()->findChild<QTabWidget *>(QStringLiteral("modelTabs"));
        QVERIFY(tabs);
        const QList<FigureView> hosted = window->viewPages().page(Page::Model).hostedViews();
        QCOMPARE(hosted, viewsOf(Page::Model) + guestsOf(Page::Model));
        QCOMPARE(ModelPage::views(), hosted);
        QCOMPARE(tabs->count(), hosted.size());
        for (int i = 0; i < hosted.size(); ++i) {
            QCOMPARE(tabs->tabText(i), figureViewTitle(hosted[i]));
            QCOMPARE(tabs->tabToolTip(i), viewTabTip(hosted[i], Page::Model));
            QVERIFY(!tabs->tabToolTip(i).isEmpty());
            QCOMPARE(tabs->widget(i)->objectName(),
                     QStringLiteral("modelPlot-") + figureViewName(hosted[i]));
        }
        // The tabs of pescope 0.x, in their order (a view added to the list may come between).
        const QList<FigureView> before{FigureView::Pca,         FigureView::TableSimilarity,
                                       FigureView::SinusoidFit, FigureView::Spectrum,
                                       FigureView::Rotation,    FigureView::Decay};
        QList<FigureView> kept = hosted;
        kept.removeIf([&before](FigureView view) { return !before.contains(view); });
        QCOMPARE(kept, before);
        const QStringList titles{u"PCA"_qs,           u"Position similarity"_qs,
                                 u"Sinusoid fit"_qs,  u"RoPE spectrum"_qs,
                                 u"RoPE rotation"_qs, u"RoPE long-term decay"_qs};
        const QStringList tips{
            u"Principal components of the position vectors, coloured by position: GPT-2's table "
            "draws a helix"_qs,
            u"Cosine similarity of every pair of positions of the learned table"_qs,
            u"For each dimension the best-fitting sinusoid (frequency, phase, R²): how close the "
            "learned table is to the formula"_qs,
            u"The chosen layer's wavelength 2π/θ per pair, unscaled and scaled, and its original "
            "context (B: the Schemes page's comparison, when it differs)"_qs,
            u"The chosen layer's rotating vector of a few pairs as the position advances"_qs,
            u"RoFormer §3.4.3: the chosen layer's score of identical all-ones q and k against "
            "relative distance"_qs};
        for (int i = 0; i < before.size(); ++i) {
            const int tab = int(hosted.indexOf(before[i]));
            QCOMPARE(tabs->tabText(tab), titles[i]);
            QCOMPARE(tabs->tabToolTip(tab), tips[i]);
        }
        // The Schemes page keeps its own tooltips for the same views.
        QCOMPARE(viewTabTip(FigureView::Rotation, Page::Schemes),
                 u"The rotating vector of a few pairs as the position advances"_qs);
    }

    // A HostedView draws its view through the list's builder from numbers the scheduler
    // computes for it: RoFormer's decay, 2 Σ cos(nθ_i) / d, as a float64 loop writes it.
    void hostedViewDrawsThroughTheList()
    {
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("rope-decay"), &error), qPrintable(error));
        ComputeScheduler scheduler(&state);
        HostedView plot(FigureView::Decay, &state, &scheduler);
        plot.resize(800, 500);
        QVERIFY(plot.isUpToDate()); // hidden: drawn when shown
        plot.show();
        QTRY_VERIFY_WITH_TIMEOUT(plot.isUpToDate() && scheduler.isIdle(), 60000);
        QVERIFY2(plot.notice().isEmpty(), qPrintable(plot.notice()));
        QCPGraph *a = graphNamed(&plot, QStringLiteral("A: base 10,000"));
        QVERIFY(a);
        for (int distance : {0, 1, 10, 100, 1000}) {
            double sum = 0;
            for (int i = 0; i < 64; ++i)
                sum += std::cos(distance * std::pow(10000.0, -2.0 * i / 128.0));
            PE_COMPARE_NEAR(a->data()->at(distance)->value, sum / 64.0, 1e-12);
        }
        // A change of the state draws anew.
        SchemeSettings settings = state.schemeSettings();
        settings.decayDistance = 200;
        QVERIFY(state.setSchemeSettings(settings));
        QTRY_VERIFY_WITH_TIMEOUT(plot.isUpToDate() && scheduler.isIdle(), 60000);
        a = graphNamed(&plot, QStringLiteral("A: base 10,000"));
        QVERIFY(a);
        QCOMPARE(a->data()->size(), 201);
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
