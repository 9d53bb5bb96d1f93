// Lessons in the window (issue 40), driven by keys on the real widgets under Xvfb: a lesson built
// from the window's views (Ctrl+Shift+A), retitled, captioned, reordered by Alt+Up / Alt+Down,
// duplicated and deleted, each edit one undo step; a step opened restores its state exactly; the
// lesson saved and opened again; presented full screen and stepped with a clicker's keys, the
// window put back by Escape; the shipped lessons opened from Help > Lessons. Screenshots of the
// presentation (lesson-present-WxH.png) are saved in the build folder to be looked at.
#include "dialogs/viewhelpdialog.h"
#include "state/lessondocument.h"
#include "views/exportactions.h"
#include "views/fileactions.h"
#include "views/lessoncontroller.h"
#include "views/lessonpanel.h"
#include "views/lessonpresenter.h"
#include "views/modelpage.h"
#include "views/modelphraseview.h"
#include "widgets/compactcombo.h"
#include "widgets/playbar.h"
#include "widgets/plotpane.h"
#include "widgets/screenfit.h"
#include "windowtestutil.h"

#include "figures/qcpinclude.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QInputDialog>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOption>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

using namespace pe;
using namespace pe::test;
using namespace Qt::StringLiterals;

namespace {

QJsonObject stateOf(const MainWindow &window)
{
    return window.state()->toJson();
}

// The window's own shortcut, as a user presses it (the window has focus).
void press(MainWindow *window, QKeyCombination key)
{
    QWidget *target = QApplication::focusWidget() ? QApplication::focusWidget() : window;
    QTest::keyClick(target, key.key(), key.keyboardModifiers());
}

bool waitSettled(const MainWindow &window)
{
    return QTest::qWaitFor([&] { return window.isSettled(); }, 60000);
}

} // namespace

class TestLessonWindow : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;
    LessonController *lessons() const { return LessonController::of(m_window.get()); }
    LessonDocument *document() const { return lessons()->document(); }
    QListWidget *list() const { return lessons()->panel()->stepList(); }

    // Builds a three-step lesson the way a teacher does: a preset, Ctrl+Shift+A, another page.
    void buildThreeSteps()
    {
        QString error;
        QVERIFY2(m_window->applyPreset(u"geron-16-9"_s, &error), qPrintable(error));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QCOMPARE(document()->stepCount(), 1);
        QVERIFY(lessons()->dock()->isVisible());
        QVERIFY(m_window->applyPreset(u"rope-decay"_s, &error));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QVERIFY(m_window->applyPreset(u"keras-phrases"_s, &error));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QCOMPARE(document()->stepCount(), 3);
        QCOMPARE(document()->step(0).view, u"waves+heatmap"_s);
        QCOMPARE(document()->step(1).view, u"decay"_s);
        QCOMPARE(document()->step(2).view, u"phrases"_s);
    }

    // The window as a 1280 x 720 screen shows it (or the screen's room, where that is less),
    // layouts settled: Qt applies a grown minimum size on the posted layout request.
    QRect fitTo1280x720()
    {
        const QRect room = m_window->screen()->availableGeometry();
        const QRect wanted(room.topLeft(), QSize(1280, 720).boundedTo(room.size()));
        m_window->setGeometry(wanted);
        settleLayouts();
        return m_window->geometry();
    }
    void settleLayouts()
    {
        for (int i = 0; i < 3; ++i) {
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QTest::qWait(20);
        }
    }
    // Why the window's layout asks for more than 1280 x 720 or its geometry is not `expected`;
    // empty when neither.
    QString grownBeyond(const QRect &expected, const QString &when)
    {
        settleLayouts();
        const QSize least = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        if (least.width() <= 1280 && least.height() <= 720 && m_window->geometry() == expected)
            return {};
        return u"%1: window %2 x %3 at (%4, %5), expected %6 x %7; least size %8 x %9"_s.arg(when)
            .arg(m_window->width())
            .arg(m_window->height())
            .arg(m_window->x())
            .arg(m_window->y())
            .arg(expected.width())
            .arg(expected.height())
            .arg(least.width())
            .arg(least.height());
    }

private slots:
    void init()
    {
        m_window = openWindow();
        m_window->resize(1280, 720);
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(lessons());
    }
    void cleanup() { m_window.reset(); }

    void menusOfferLessons()
    {
        auto *menu = m_window->findChild<QMenu *>(u"lessonMenu"_s);
        QVERIFY(menu);
        auto *shipped = m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s);
        QVERIFY(shipped);
        QCOMPARE(shipped->actions().size(), 3);
        QCOMPARE(shipped->actions().at(0)->text(), u"The sinusoidal encoding"_s);
        shipped->actions().at(2)->trigger();
        QCOMPARE(document()->lesson().title, u"RoPE and context extension"_s);
        QCOMPARE(document()->stepCount(), 7);
        QCOMPARE(list()->count(), 7);
        QVERIFY(document()->path().isEmpty()); // saving a shipped lesson asks where
    }

    void buildEditAndUndo()
    {
        buildThreeSteps();
        QUndoStack *undo = m_window->undoStack();

        // The caption, typed key by key into the panel: one undo step for the whole typing.
        list()->setCurrentRow(0);
        auto *caption = lessons()->panel()->findChild<QPlainTextEdit *>(u"lessonCaption"_s);
        caption->setFocus();
        QTest::keyClicks(caption, u"PE(p, 2i) = sin(p / 10000^(2i/d))"_s);
        QCOMPARE(document()->step(0).caption, u"PE(p, 2i) = sin(p / 10000^(2i/d))"_s);
        const int afterCaption = undo->index();
        auto *title = lessons()->panel()->findChild<QLineEdit *>(u"lessonStepTitle"_s);
        title->setFocus();
        QTest::keyClick(title, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(title, u"Fig 16-9"_s);
        QCOMPARE(document()->step(0).title, u"Fig 16-9"_s);
        QCOMPARE(undo->index(), afterCaption + 1); // the retitle is one more step
        undo->undo();
        QCOMPARE(document()->step(0).title, u"waves+heatmap"_s);
        undo->undo();
        QCOMPARE(document()->step(0).caption, QString());
        undo->redo();
        undo->redo();
        QCOMPARE(document()->step(0).title, u"Fig 16-9"_s);

        // Reorder by keyboard on the list: Alt+Down moves the first step down.
        list()->setFocus();
        list()->setCurrentRow(0);
        QTest::keyClick(list(), Qt::Key_Down, Qt::AltModifier);
        QCOMPARE(document()->step(1).title, u"Fig 16-9"_s);
        QCOMPARE(document()->step(0).view, u"decay"_s);
        QCOMPARE(list()->currentRow(), 1);
        QTest::keyClick(list(), Qt::Key_Up, Qt::AltModifier);
        QCOMPARE(document()->step(0).title, u"Fig 16-9"_s);
        undo->undo();
        QCOMPARE(document()->step(1).title, u"Fig 16-9"_s);
        undo->undo();
        QCOMPARE(document()->step(0).title, u"Fig 16-9"_s);

        // Duplicate and Delete, each one step.
        QVERIFY(document()->duplicateStep(2));
        QCOMPARE(document()->stepCount(), 4);
        QVERIFY(document()->step(3) == document()->step(2));
        list()->setFocus();
        list()->setCurrentRow(3);
        QTest::keyClick(list(), Qt::Key_Delete);
        QCOMPARE(document()->stepCount(), 3);
        undo->undo();
        QCOMPARE(document()->stepCount(), 4);
        undo->undo();
        QCOMPARE(document()->stepCount(), 3);

        // The window with its Lesson panel, to be looked at.
        list()->setCurrentRow(0);
        QVERIFY(waitSettled(*m_window));
        const QSize screen = m_window->screen()->geometry().size();
        QVERIFY(
            m_window->grab().save(u"%1/lesson-panel-%2x%3.png"_s.arg(QStringLiteral(PE_BUILD_DIR))
                                      .arg(screen.width())
                                      .arg(screen.height())));
    }

    // Opening a step (Enter on the list) gives the window exactly the state that was added.
    void openingAStepRestoresItsState()
    {
        buildThreeSteps();
        const QJsonObject geron = document()->step(0).state;
        QVERIFY(stateOf(*m_window) != geron);
        list()->setFocus();
        list()->setCurrentRow(0);
        QTest::keyClick(list(), Qt::Key_Return);
        QVERIFY(stateOf(*m_window) == geron);
        QCOMPARE(m_window->undoStack()->undoText(), u"Open lesson step 1"_s);
        // Undo gives back the parameters (where the user looked, the page and the clicked
        // cell, are no undo steps of the window: statecommand.h).
        m_window->undoStack()->undo();
        const QJsonObject back = stateOf(*m_window), keras = document()->step(2).state;
        QCOMPARE(back.value(u"spec"_s), keras.value(u"spec"_s));
        QCOMPARE(back.value(u"phrases"_s)[u"phrases"_s], keras.value(u"phrases"_s)[u"phrases"_s]);
        QCOMPARE(back.value(u"colormap"_s), keras.value(u"colormap"_s));
    }

    // A step's view is brought on screen when the step is opened or presented, not only its
    // state (issue 48): the tab of the model's phrases (a layer view) and of the Model page,
    // which the state does not hold.
    void openingAStepShowsItsView()
    {
        QString error;
        const QString llama = QStringLiteral(PE_SOURCE_DIR) + u"/tests/data/models/llama-tiny"_s;
        QVERIFY2(openModelInWindow(m_window.get(), llama, &error), qPrintable(error));
        ExplorerState *state = m_window->state();
        PhraseSource source = state->phraseSource();
        source.tokenizer = PhraseTokenizer::Model;
        state->setPhraseSource(source);
        state->setPage(Page::Phrases);
        QVERIFY(waitSettled(*m_window));
        auto *phrases = m_window->findChild<ModelPhraseView *>();
        QVERIFY(phrases);
        QTabWidget *tabs = phrases->figureTabs();
        tabs->setCurrentIndex(
            int(ModelPhraseView::tabViews().indexOf(FigureView::DistanceProfiles)));
        QVERIFY(waitSettled(*m_window));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QCOMPARE(document()->step(0).view, u"distance-profiles"_s);

        // The Model page on its last tab (a rotary layer's decay), the first shown now.
        state->setPage(Page::Model);
        ModelPage *model = m_window->modelPage();
        model->setCurrentView(FigureView::Decay);
        QVERIFY(waitSettled(*m_window));
        QCOMPARE(model->currentView(), FigureView::Decay);
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QCOMPARE(document()->step(1).view, u"decay"_s);
        const auto lookAway = [&] {
            tabs->setCurrentIndex(0);
            model->setCurrentView(FigureView::Spectrum);
            QCOMPARE(phrases->currentView(), FigureView::ModelAttention);
            QCOMPARE(model->currentView(), FigureView::Spectrum);
        };

        lookAway();
        QVERIFY2(lessons()->openStep(0, &error), qPrintable(error));
        QCOMPARE(state->page(), Page::Phrases);
        QCOMPARE(phrases->currentView(), FigureView::DistanceProfiles);
        QCOMPARE(m_window->viewPages().current().figureViews(),
                 QList<FigureView>{FigureView::DistanceProfiles});
        QVERIFY2(lessons()->openStep(1, &error), qPrintable(error));
        QCOMPARE(state->page(), Page::Model);
        QCOMPARE(model->currentView(), FigureView::Decay);

        // Presented: the tabs' bars are hidden, so the step alone chooses the view.
        lookAway();
        LessonPresenter *presenter = lessons()->presenter();
        presenter->start(0);
        QVERIFY(presenter->isPresenting());
        QCOMPARE(phrases->currentView(), FigureView::DistanceProfiles);
        presenter->showStep(1);
        QCOMPARE(model->currentView(), FigureView::Decay);
        presenter->stop();
        QVERIFY(waitSettled(*m_window));
    }

    // A drag in the list (the model's move, as a drop makes it) is one move of the document.
    // F1 on a tab of the model's phrases opens the help at that tab's view (issue 48 D13: it
    // opened at the top or where it was last scrolled); File > Export figure draws the enlarged
    // head on screen (D5: it drew the whole grid) and Export data answers with an ablation set
    // (D3): both already right on main 1f0db98, kept here as regression checks.
    void layerTabsHelpAndExports()
    {
        QString error;
        const QString llama = QStringLiteral(PE_SOURCE_DIR) + u"/tests/data/models/llama-tiny"_s;
        QVERIFY2(openModelInWindow(m_window.get(), llama, &error), qPrintable(error));
        ExplorerState *state = m_window->state();
        PhraseSource source = state->phraseSource();
        source.tokenizer = PhraseTokenizer::Model;
        state->setPhraseSource(source);
        state->setPage(Page::Phrases);
        QVERIFY(waitSettled(*m_window));
        auto *phrases = m_window->findChild<ModelPhraseView *>();
        QVERIFY(phrases);
        const QList<FigureView> views = ModelPhraseView::tabViews();
        phrases->figureTabs()->setCurrentIndex(int(views.indexOf(FigureView::LayerAttention)));
        QVERIFY(waitSettled(*m_window));
        QTRY_VERIFY_WITH_TIMEOUT(phrases->forward() != nullptr, 60000);
        phrases->layerChoice()->setCurrentIndex(phrases->layerChoice()->findData(1));
        phrases->headChoice()->setCurrentIndex(phrases->headChoice()->findData(1));
        const ViewPage &page = m_window->viewPages().current();
        QCOMPARE(page.figureViews(), QList<FigureView>{FigureView::LayerAttention});
        QCOMPARE(page.figureChoices().modelLayer, 1);
        QCOMPARE(page.figureChoices().modelHead, 1);
        ExportActions *exports = ExportActions::of(m_window.get());
        QVERIFY(exports);
        const QImage enlarged = exports->currentFigure(&error);
        QVERIFY2(!enlarged.isNull(), qPrintable(error));
        // With an ablation (D3: Export data said "still being computed" for ever).
        LayerAblation ablation;
        ablation.kind = AblationKind::Scale;
        ablation.scale = 4;
        QVERIFY(state->setLayerAblation(ablation));
        QTRY_VERIFY_WITH_TIMEOUT(phrases->forward() &&
                                     phrases->forward()->inputs.ablation == phrases->ablation(),
                                 60000);
        QVERIFY(waitSettled(*m_window));
        const QImage ablated = exports->currentFigure(&error);
        QVERIFY2(!ablated.isNull(), qPrintable(error));
        QVERIFY(ablated != enlarged);
        QTemporaryDir dir;
        QVERIFY2(exports->exportCurrentData(dir.filePath(u"l1h1.npy"_s), &error),
                 qPrintable(error));
        QVERIFY(QFile::exists(dir.filePath(u"l1h1.npy"_s)));
        // The grid of every layer is another figure than the enlarged head.
        phrases->layerChoice()->setCurrentIndex(phrases->layerChoice()->findData(-1));
        const QImage grid = exports->currentFigure(&error);
        QVERIFY2(!grid.isNull(), qPrintable(error));
        QVERIFY(grid != ablated);
        // An ablation chosen while the grid is shown: its figure and data come all the same.
        LayerAblation shifted;
        shifted.kind = AblationKind::Shift;
        shifted.shift = 2;
        QVERIFY(state->setLayerAblation(shifted));
        QTRY_VERIFY_WITH_TIMEOUT(phrases->forward() &&
                                     phrases->forward()->inputs.ablation == phrases->ablation(),
                                 60000);
        QVERIFY(waitSettled(*m_window));
        QVERIFY2(!exports->currentFigure(&error).isNull(), qPrintable(error));
        QVERIFY2(exports->exportCurrentData(dir.filePath(u"grid.npy"_s), &error),
                 qPrintable(error));
        phrases->layerChoice()->setCurrentIndex(phrases->layerChoice()->findData(1));

        for (FigureView view : {FigureView::LayerAttention, FigureView::ModelAttention,
                                FigureView::DistanceProfiles}) {
            phrases->figureTabs()->setCurrentIndex(int(views.indexOf(view)));
            m_window->activateWindow();
            m_window->setFocus();
            press(m_window.get(), Qt::Key_F1);
            auto *help = m_window->findChild<ViewHelpDialog *>();
            QVERIFY(help);
            QTRY_VERIFY(help->isVisible());
            QCOMPARE(help->viewAtTop(), view);
        }
    }

    // The attention grid's tab with the Lesson panel open and the ablation's rule form shown fits
    // a 1280 x 720 screen (issue 48 D10: the window grew to 1432 px, cutting off the panel; then
    // 753 px tall).
    void ablationFormFitsWithTheLessonPanel()
    {
        m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s)->actions().at(1)->trigger();
        QVERIFY(waitSettled(*m_window));
        list()->setCurrentRow(0);
        QVERIFY(lessons()->dock()->isVisible());
        QString error;
        const QString llama = QStringLiteral(PE_SOURCE_DIR) + u"/tests/data/models/llama-tiny"_s;
        QVERIFY2(openModelInWindow(m_window.get(), llama, &error), qPrintable(error));
        ExplorerState *state = m_window->state();
        PhraseSource source = state->phraseSource();
        source.tokenizer = PhraseTokenizer::Model;
        state->setPhraseSource(source);
        state->setPage(Page::Phrases);
        QVERIFY(waitSettled(*m_window));
        auto *phrases = m_window->findChild<ModelPhraseView *>();
        QVERIFY(phrases);
        phrases->figureTabs()->setCurrentIndex(
            int(ModelPhraseView::tabViews().indexOf(FigureView::LayerAttention)));
        QTRY_VERIFY_WITH_TIMEOUT(phrases->forward() != nullptr, 60000);
        LayerAblation ablation;
        ablation.kind = AblationKind::Rule;
        QVERIFY(state->setLayerAblation(ablation));
        QVERIFY(waitSettled(*m_window));
        phrases->layerChoice()->setCurrentIndex(phrases->layerChoice()->findData(1));
        const QRect geometry = fitTo1280x720();
        QVERIFY(m_window->grab().save(
            u"%1/ablation-rule-lesson-1280x720.png"_s.arg(QStringLiteral(PE_BUILD_DIR))));
        const QSize least = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        // Its height too where the screen has 720 px of room (the rule's six rows beside the
        // choices asked for 753 px). A 1024 px wide screen wraps more text and has no such room.
        const bool roomFor720 = m_window->screen()->availableGeometry().height() >= 720;
        QVERIFY2(least.width() <= 1280 && m_window->width() == geometry.width() &&
                     (!roomFor720 || (least.height() <= 720 && geometry.height() <= 720)),
                 qPrintable(grownBeyond(geometry, u"rule form"_s)));
        // The Head box shows its choice whole (D14: "me…" for the mean of the heads).
        QComboBox *head = phrases->headChoice();
        for (int i = 0; i < head->count(); ++i) {
            head->setCurrentIndex(i);
            QVERIFY2(!comboTextCut(head), qPrintable(head->currentText()));
        }
    }

    void dragReordersSteps()
    {
        buildThreeSteps();
        const QString first = document()->step(0).view;
        QVERIFY(list()->model()->moveRow(QModelIndex(), 0, QModelIndex(), 3)); // to the end
        QTRY_COMPARE(document()->step(2).view, first);
        QCOMPARE(document()->step(0).view, u"decay"_s);
        QCOMPARE(m_window->undoStack()->undoText(), u"Move lesson step 1 to 3"_s);
        QVERIFY(list()->model()->moveRow(QModelIndex(), 2, QModelIndex(), 0)); // back up
        QTRY_COMPARE(document()->step(0).view, first);
        QCOMPARE(list()->item(0)->text(), u"1. waves+heatmap"_s);
    }

    // Lesson > Export: the same files as `pescope lesson export` (tst_lessonexport checks them).
    void exportFromTheWindow()
    {
        buildThreeSteps();
        QTemporaryDir dir;
        QString error;
        LessonExportOptions options;
        QVERIFY2(lessons()->exportLesson(dir.filePath(u"deck.pdf"_s), options, &error),
                 qPrintable(error));
        QFile pdf(dir.filePath(u"deck.pdf"_s));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        options.kind = LessonExportKind::Html;
        QVERIFY2(lessons()->exportLesson(dir.filePath(u"deck"_s), options, &error),
                 qPrintable(error));
        QVERIFY(QFile::exists(dir.filePath(u"deck/index.html"_s)));
        QVERIFY(QFile::exists(dir.filePath(u"deck/step-03.svg"_s)));
    }

    // Lesson > Export handout asks how many steps a page first: its dialog was narrower than
    // its title, which a window manager drew as "Export… ndout" at 1280 x 720 (issue 46.8).
    // Every dialog is as wide as its title needs beside a title bar's icon and buttons.
    void handoutQuestionShowsItsTitle()
    {
        buildThreeSteps();
        int width = 0, needed = 0;
        QString title;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            title = dialog->windowTitle();
            width = dialog->width();
            needed = titleWidth(dialog);
            dialog->reject();
        });
        m_window->findChild<QAction *>(u"exportLesson_handout"_s)->trigger();
        QCOMPARE(title, u"Export handout"_s);
        // The bold title beside four title-bar squares at least, whatever the formula's margins.
        QFont bold = m_window->font();
        bold.setBold(true);
        const QFontMetrics metrics(bold);
        QVERIFY(needed >= metrics.horizontalAdvance(title) + 4 * metrics.height());
        QVERIFY2(width >= needed,
                 qPrintable(u"%1 px wide, its title needs %2"_s.arg(width).arg(needed)));
    }

    // A lesson that names a model keeps working when the model's folder has moved (another
    // machine, another folder): opening the step asks where it is, once.
    void movedModelFolderIsAskedForOnce()
    {
        QTemporaryDir dir;
        const QString before = dir.filePath(u"models-here"_s);
        const QString after = dir.filePath(u"models-there"_s);
        QVERIFY(QDir().mkpath(before));
        const QDir source(QStringLiteral(PE_SOURCE_DIR) + u"/tests/data/models/gpt2-tiny"_s);
        for (const QString &name : source.entryList(QDir::Files))
            QVERIFY(QFile::copy(source.filePath(name), before + u"/"_s + name));
        QString error;
        QVERIFY2(openModelInWindow(m_window.get(), before, &error), qPrintable(error));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QCOMPARE(document()->stepCount(), 1);
        const QByteArray saved = QJsonDocument(document()->step(0).state).toJson();
        QVERIFY2(saved.contains(before.toUtf8()), saved.constData());

        QVERIFY(QDir().rename(before, after));
        QStringList asked;
        lessons()->setFolderQuestion([&](const QString &missing) {
            asked.append(missing);
            return after;
        });
        QVERIFY2(lessons()->openStep(0, &error), qPrintable(error));
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.first().startsWith(before), qPrintable(asked.first()));
        const QByteArray shown = QJsonDocument(stateOf(*m_window)).toJson();
        QVERIFY(shown.contains(after.toUtf8()));
        QVERIFY(!shown.contains(QByteArray(before.toUtf8() + '/')));
        QVERIFY2(lessons()->openStep(0, &error), qPrintable(error));
        QCOMPARE(asked.size(), 1); // remembered

        // A folder that does not hold the model either is refused by name.
        lessons()->setFolderQuestion([&](const QString &) { return dir.path(); });
        QVERIFY(QDir().rename(after, dir.filePath(u"gone"_s)));
        QVERIFY(!lessons()->openStep(0, &error));
        QVERIFY2(error.contains(u"does not hold"_s), qPrintable(error));
    }

    void savedLessonOpensAgain()
    {
        buildThreeSteps();
        QTemporaryDir dir;
        const QString path = dir.filePath(u"lecture.pescope-lesson.json"_s);
        QString error;
        QVERIFY2(lessons()->saveLesson(path, &error), qPrintable(error));
        const Lesson saved = document()->lesson();
        document()->reset(Lesson{}, QString());
        QVERIFY2(lessons()->openLesson(path, &error), qPrintable(error));
        QVERIFY(document()->lesson() == saved);
        QCOMPARE(document()->path(), path);
    }

    // Presenting leaves the window exactly as it was (issue 46): every step of every shipped
    // lesson presented from there (Shift+F5) and left (Escape) gives back the window's geometry,
    // and no figure laid out at full screen (the decay legend in one row) sets the window's
    // minimum size beyond a 1280 x 720 screen.
    void presentingEveryShippedStepKeepsTheWindow()
    {
        auto *shipped = m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s);
        LessonPresenter *presenter = lessons()->presenter();
        for (int lesson = 0; lesson < shipped->actions().size(); ++lesson) {
            shipped->actions().at(lesson)->trigger();
            QVERIFY(waitSettled(*m_window));
            const QRect before = fitTo1280x720();
            QVERIFY2(grownBeyond(before, u"before"_s).isEmpty(),
                     qPrintable(grownBeyond(before, u"before"_s)));
            for (int step = 0; step < document()->stepCount(); ++step) {
                // What Shift+F5 does (presentWithClickerKeys presses the keys): started here
                // directly, since a shortcut needs the window active, which another suite on
                // the same display can take away.
                list()->setCurrentRow(step);
                presenter->start(lessons()->panel()->currentStep());
                QVERIFY(presenter->isPresenting());
                QCOMPARE(presenter->currentStep(), step);
                QVERIFY(waitSettled(*m_window));
                settleLayouts(); // the figure is laid out at the screen's size
                QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget()
                                                            : m_window.get(),
                                Qt::Key_Escape);
                QVERIFY(!presenter->isPresenting());
                QVERIFY(waitSettled(*m_window));
                const QString grown = grownBeyond(
                    before, u"%1, step %2"_s.arg(document()->lesson().title).arg(step + 1));
                QVERIFY2(grown.isEmpty(), qPrintable(grown));
            }
        }
    }

    // A slide shows the step's figure, its title and caption and (for an animated step) the
    // Motion bar, nothing of the window (issue 46.7: the Schemes page's tabs, "Hover over the
    // matrix…" and the selection readout were on the slides); and every slide's title band is
    // as tall as every other's, so the figure does not jump between steps.
    void presentingShowsOnlyTheSlide()
    {
        auto *shipped = m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s);
        LessonPresenter *presenter = lessons()->presenter();
        QWidget *titleBand = presenter->titleLabel()->parentWidget();
        QWidget *captionBand = presenter->captionLabel()->parentWidget();
        auto *motion = m_window->findChild<PlayBar *>();
        const auto onSlide = [&](const QWidget *w) {
            return titleBand->isAncestorOf(w) || captionBand->isAncestorOf(w) ||
                   motion->isAncestorOf(w);
        };
        for (int lesson = 0; lesson < shipped->actions().size(); ++lesson) {
            shipped->actions().at(lesson)->trigger();
            QVERIFY(waitSettled(*m_window));
            presenter->start(0);
            QVERIFY(presenter->isPresenting());
            int band = -1;
            for (int step = 0; step < document()->stepCount(); ++step) {
                presenter->showStep(step);
                QVERIFY(waitSettled(*m_window));
                settleLayouts();
                const QString where =
                    u"%1, step %2"_s.arg(document()->lesson().title).arg(step + 1);
                for (const QWidget *w : m_window->findChildren<QWidget *>()) {
                    const bool control =
                        w->inherits("QTabBar") || w->inherits("QLabel") ||
                        w->inherits("QAbstractButton") || w->inherits("QComboBox") ||
                        w->inherits("QAbstractSpinBox") || w->inherits("QLineEdit");
                    if (!control || !w->isVisible() || onSlide(w) || w->width() < 2)
                        continue;
                    const auto *label = qobject_cast<const QLabel *>(w);
                    QFAIL(qPrintable(u"%1: %2 \"%3\" (%4) on the slide"_s.arg(where)
                                         .arg(QString::fromUtf8(w->metaObject()->className()))
                                         .arg(label ? label->text() : QString())
                                         .arg(w->objectName())));
                }
                if (band < 0)
                    band = titleBand->height();
                QVERIFY2(titleBand->height() == band,
                         qPrintable(u"%1: title band %2 px, the first step's %3"_s.arg(where)
                                        .arg(titleBand->height())
                                        .arg(band)));
                // The title is whole in its band.
                const QLabel *title = presenter->titleLabel();
                QVERIFY2(title->heightForWidth(title->width()) <= title->height(),
                         qPrintable(where));
                // Every slide, to be looked at: slides-WxH/L-S.png in the build folder.
                const QSize screen = m_window->screen()->geometry().size();
                const QString folder = u"%1/slides-%2x%3"_s.arg(QStringLiteral(PE_BUILD_DIR))
                                           .arg(screen.width())
                                           .arg(screen.height());
                QVERIFY(QDir().mkpath(folder));
                QVERIFY(m_window->grab().save(
                    u"%1/%2-%3.png"_s.arg(folder).arg(lesson + 1).arg(step + 1)));
            }
            presenter->stop();
            QVERIFY(waitSettled(*m_window));
        }
    }

    // A presented animated step starts on the frame its exported video starts on (issue 46.7):
    // frame 0, the range's first value (FigureAnimation::valueAt(0) is `from`), whatever the
    // step's state holds (the rotation's p = 12 of a sweep from 0; the base 10,000 of a sweep
    // from 100 showed the sweep's last frame), and Enter plays from there.
    void presentedAnimationStartsOnTheFirstFrame()
    {
        auto *shipped = m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s);
        LessonPresenter *presenter = lessons()->presenter();
        auto *bar = m_window->findChild<PlayBar *>();
        int animated = 0;
        for (int lesson = 0; lesson < shipped->actions().size(); ++lesson) {
            shipped->actions().at(lesson)->trigger();
            QVERIFY(waitSettled(*m_window));
            presenter->start(0);
            for (int step = 0; step < document()->stepCount(); ++step) {
                const std::optional<LessonAnimation> animation = document()->step(step).animation;
                if (!animation)
                    continue;
                ++animated;
                presenter->showStep(step);
                QVERIFY(waitSettled(*m_window));
                QVERIFY(bar->isVisible());
                QCOMPARE(
                    bar->valueText(),
                    u"%1 = %2"_s.arg(animation->parameter).arg(QString::number(*animation->from)));
            }
            presenter->stop();
        }
        QVERIFY(animated >= 4);
    }

    // Issue 46.8: texts cut at 1280 x 720 with the Lesson panel open ("Interleaved (sin, cos",
    // "mear", "Export… ndout"): on every page every shown label, button and combo box has the
    // room its text needs (hover readouts, clipped by design, aside).
    void textsAreWholeWithTheLessonPanel()
    {
        m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s)->actions().at(0)->trigger();
        QVERIFY(waitSettled(*m_window));
        QVERIFY(lessons()->dock()->isVisible());
        fitTo1280x720();
        QStringList cut;
        for (int page = 0; page < m_window->pages()->count(); ++page) {
            m_window->pages()->setCurrentIndex(page);
            QVERIFY(waitSettled(*m_window));
            settleLayouts();
            for (QWidget *w : m_window->findChildren<QWidget *>()) {
                if (!w->isVisible() || isWindowControl(w) ||
                    !w->visibleRegion().boundingRect().isValid())
                    continue;
                const QString where = u"page %1: %2 %3"_s.arg(
                    m_window->pages()->tabText(page),
                    QString::fromUtf8(w->metaObject()->className()), w->objectName());
                const QFontMetrics metrics(w->font());
                QString text;
                int room = 0;
                if (auto *label = qobject_cast<QLabel *>(w)) {
                    if (label->wordWrap() || label->textFormat() == Qt::RichText ||
                        Qt::mightBeRichText(label->text()) || label->text().isEmpty())
                        continue;
                    text = label->text();
                    if (label->buddy())
                        text.remove(u'&');
                    room = label->contentsRect().width() - 2 * label->margin();
                } else if (auto *combo = qobject_cast<QComboBox *>(w)) {
                    if (combo->isEditable() || combo->currentText().isEmpty())
                        continue;
                    // A compact box may show its choice without the parenthesis, never cut.
                    const QString choice = combo->currentText();
                    const QString shown = comboShownText(combo);
                    if (shown != choice && shown != choice.left(choice.indexOf(u" ("_s)))
                        cut.append(u"%1: \"%2\" shown as \"%3\""_s.arg(where, choice, shown));
                    continue;
                } else if (auto *button = qobject_cast<QAbstractButton *>(w)) {
                    if (button->text().isEmpty() || w->inherits("QTabBar"))
                        continue;
                    text = QString(button->text()).remove(u'&');
                    room = button->width();
                    if (auto *box = qobject_cast<QCheckBox *>(w)) {
                        QStyleOptionButton option;
                        option.initFrom(box);
                        room = box->style()
                                   ->subElementRect(QStyle::SE_CheckBoxContents, &option, box)
                                   .width();
                    }
                } else {
                    continue;
                }
                for (const QString &line : text.split(u'\n'))
                    if (metrics.horizontalAdvance(line) > room)
                        cut.append(u"%1: \"%2\" needs %3 px, has %4"_s.arg(where, line)
                                       .arg(metrics.horizontalAdvance(line))
                                       .arg(room));
            }
        }
        QVERIFY2(cut.isEmpty(), qPrintable(cut.join(u'\n')));
    }

    // Issue 46.8: with the Lesson panel open the Phrases figures were tiny with cut titles (the
    // panel's six buttons in one row took 360 px of 1280). The panel takes at most a quarter of
    // the window and the phrase figures at least 40% of it (beside the page's own panel).
    void lessonPanelLeavesTheFiguresRoom()
    {
        m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s)->actions().at(1)->trigger();
        QVERIFY(waitSettled(*m_window));
        list()->setCurrentRow(0);
        QVERIFY(lessons()->dock()->isVisible());
        m_window->state()->setPage(Page::Phrases);
        QVERIFY(waitSettled(*m_window));
        const QRect geometry = fitTo1280x720();
        const QWidget *grid = m_window->findChild<QWidget *>(u"phraseGridPlot"_s);
        QVERIFY(grid && grid->isVisible());
        const QString sizes =
            u"window %1 px, Lesson panel %2 px, phrase figure %3 px"_s.arg(geometry.width())
                .arg(lessons()->dock()->width())
                .arg(grid->width());
        QVERIFY(
            m_window->grab().save(u"%1/lesson-phrases-%2x%3.png"_s.arg(QStringLiteral(PE_BUILD_DIR))
                                      .arg(geometry.width())
                                      .arg(geometry.height())));
        QVERIFY2(lessons()->dock()->width() <= geometry.width() / 4, qPrintable(sizes));
        QVERIFY2(grid->width() >= geometry.width() * 2 / 5, qPrintable(sizes));
    }

    // Issue 46: at 1024 x 600 with the Lesson panel open the token-similarity figure's legend
    // was cut at the figure's edge ("rando" for "random") and the phrase figures' colour bars
    // wrote "2 1 0 -1" on top of each other. Each phrase figure's legends lie whole inside
    // what the plot shows, and every colour bar's and value axis' labels are a line apart.
    void phraseFiguresWholeWithTheLessonPanel()
    {
        QString error;
        QVERIFY2(m_window->applyPreset(u"keras-phrases"_s, &error), qPrintable(error));
        QVERIFY(waitSettled(*m_window));
        const QRect room = m_window->screen()->availableGeometry();
        // As a window manager leaves it: its frame's title bar and borders off the screen's room.
        m_window->setGeometry(QRect(room.topLeft(), QSize(1280, 720).boundedTo(room.size()))
                                  .adjusted(0, 0, -16, -46));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QVERIFY(lessons()->dock()->isVisible());
        QVERIFY(waitSettled(*m_window));
        // The similarity figure at its least width, as the window left it when the panel opened
        // beside a page laid out wider (and as a user dragging the splitter leaves it).
        auto *similarity = m_window->findChild<QWidget *>(u"phraseSimilarityPlot"_s);
        QVERIFY(similarity);
        if (auto *bottom = qobject_cast<QSplitter *>(similarity->parentWidget()))
            bottom->setSizes({10000, 1});
        settleLayouts();
        QStringList problems;
        for (const QString &name :
             {u"phraseGridPlot"_s, u"phraseDifferencePlot"_s, u"phraseSimilarityPlot"_s}) {
            auto *plot = m_window->findChild<QCustomPlot *>(name);
            QVERIFY2(plot && plot->isVisible(), qPrintable(name));
            QTest::qWait(100); // the window's own replots, as a user sees them
            const QRect shown = plot->visibleRegion().boundingRect();
            for (QCPLegend *legend : plot->findChildren<QCPLegend *>())
                if (legend->visible() && legend->itemCount() > 0 &&
                    (!shown.contains(legend->outerRect()) ||
                     legend->outerRect().width() < legend->minimumOuterSizeHint().width()))
                    problems.append(u"%1: legend at %2,%3 %4 x %5 (needs %10), the plot shows "
                                    u"%6,%7 %8 x %9"_s.arg(name)
                                        .arg(legend->outerRect().x())
                                        .arg(legend->outerRect().y())
                                        .arg(legend->outerRect().width())
                                        .arg(legend->outerRect().height())
                                        .arg(shown.x())
                                        .arg(shown.y())
                                        .arg(shown.width())
                                        .arg(shown.height())
                                        .arg(legend->minimumOuterSizeHint().width()));
            QList<QCPAxis *> axes;
            for (QCPAxisRect *rect : plot->axisRects())
                axes.append(rect->axis(QCPAxis::atLeft));
            for (auto *scale : plot->findChildren<QCPColorScale *>())
                axes.append(scale->axis());
            for (QCPAxis *axis : axes) {
                if (!axis->visible() || !axis->tickLabels() ||
                    axis->ticker().dynamicCast<QCPAxisTickerText>())
                    continue;
                const QVector<double> ticks = axis->tickVector();
                const double line = QFontMetricsF(axis->tickLabelFont()).height();
                for (qsizetype i = 1; i < ticks.size(); ++i) {
                    const double apart =
                        std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]));
                    if (apart < line)
                        problems.append(
                            u"%1: labels %2 and %3 %4 px apart, a line is %5"_s.arg(name)
                                .arg(ticks[i - 1])
                                .arg(ticks[i])
                                .arg(apart)
                                .arg(line));
                }
            }
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }

    // Issue 46.8: the Lesson panel's Animation label was cut at 1280 x 720 ("none (use the
    // Motion bar's with “Take”)" wrapped, its second line cut in half): each step's text is
    // whole on its one line.
    void animationLabelIsWhole()
    {
        m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s)->actions().at(2)->trigger();
        fitTo1280x720();
        auto *label = lessons()->panel()->findChild<QLabel *>(u"lessonAnimation"_s);
        QVERIFY(label && label->isVisible());
        bool without = false, with = false;
        for (int step = 0; step < document()->stepCount(); ++step) {
            list()->setCurrentRow(step);
            settleLayouts();
            (document()->step(step).animation ? with : without) = true;
            const QFontMetrics metrics(label->font());
            QVERIFY2(metrics.horizontalAdvance(label->text()) <= label->contentsRect().width() &&
                         label->contentsRect().height() >= metrics.height(),
                     qPrintable(u"step %1: \"%2\" in %3 x %4"_s.arg(step + 1)
                                    .arg(label->text())
                                    .arg(label->contentsRect().width())
                                    .arg(label->contentsRect().height())));
        }
        QVERIFY(with && without);
    }

    // Adding a step while three phrases are shown opens the Lesson panel beside them: the
    // window keeps its size (it grew to 1347 px, issue 46).
    void addingAStepKeepsTheWindow()
    {
        QString error;
        QVERIFY2(m_window->applyPreset(u"keras-phrases"_s, &error), qPrintable(error));
        PhraseSettings s = m_window->state()->phraseSettings();
        s.phrases = {u"the cat sat on the mat"_s, u"the mat sat on the cat"_s,
                     u"a dog lay under the old wooden table by the door"_s};
        s.titles.clear();
        QVERIFY2(m_window->state()->setPhraseSettings(s, &error), qPrintable(error));
        QVERIFY(waitSettled(*m_window));
        const QRect before = fitTo1280x720();
        QVERIFY2(grownBeyond(before, u"before"_s).isEmpty(),
                 qPrintable(grownBeyond(before, u"before"_s)));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->setFocus();
        press(m_window.get(), Qt::CTRL | Qt::SHIFT | Qt::Key_A);
        QCOMPARE(document()->stepCount(), 1);
        QVERIFY(lessons()->dock()->isVisible());
        QVERIFY(waitSettled(*m_window));
        const QString grown = grownBeyond(before, u"with the Lesson panel"_s);
        QVERIFY2(grown.isEmpty(), qPrintable(grown));
    }

    // Presented on the screen the suite runs on (CTest runs it on 1280 x 720 and 1920 x 1080
    // Xvfb screens too).
    void presentWithClickerKeys()
    {
        const QSize screen = m_window->screen()->geometry().size();
        // The shipped lesson on the sinusoid, opened from Help > Lessons.
        m_window->findChild<QMenu *>(u"shippedLessonsMenu"_s)->actions().at(0)->trigger();
        QCOMPARE(document()->stepCount(), 7);
        list()->setCurrentRow(4);
        LessonPresenter *presenter = lessons()->presenter();
        m_window->setFocus();
        press(m_window.get(), Qt::Key_F5); // from the beginning, whatever is selected
        QVERIFY(presenter->isPresenting());
        QVERIFY(m_window->isFullScreen());
        QVERIFY(!m_window->menuBar()->isVisible());
        QVERIFY(!lessons()->dock()->isVisible());
        QCOMPARE(presenter->titleLabel()->text(), document()->step(0).title);

        const auto key = [&](Qt::Key k) {
            QWidget *target = QApplication::focusWidget() ? QApplication::focusWidget()
                                                          : static_cast<QWidget *>(m_window.get());
            QTest::keyClick(target, k);
        };
        const auto shows = [&](int step) {
            // The window keeps its own backend and theme when a state opens (applyJson).
            ExplorerState expected;
            expected.setBackendChoice(m_window->state()->backendChoice());
            QString error;
            return presenter->currentStep() == step &&
                   presenter->titleLabel()->text() == document()->step(step).title &&
                   presenter->captionLabel()->text() ==
                       lessonCaptionHtml(document()->step(step).caption) &&
                   expected.applyJson(document()->step(step).state, &error) &&
                   stateOf(*m_window) == expected.toJson();
        };
        QVERIFY(shows(0));
        key(Qt::Key_Right);
        QVERIFY(shows(1));
        key(Qt::Key_PageDown);
        QVERIFY(shows(2));
        key(Qt::Key_Space);
        QVERIFY(shows(3));
        // Only the figure: no page's control panel, whichever page the step opens.
        for (const QScrollArea *panel : m_window->findChildren<QScrollArea *>())
            QVERIFY2(!panel->isVisible() || !panel->inherits("pe::FittingScrollArea"),
                     qPrintable(panel->objectName()));
        key(Qt::Key_PageUp);
        QVERIFY(shows(2));
        key(Qt::Key_Left);
        QVERIFY(shows(1));
        key(Qt::Key_End);
        QVERIFY(shows(6));
        key(Qt::Key_Space); // past the end: stays
        QVERIFY(shows(6));
        key(Qt::Key_Home);
        QVERIFY(shows(0));
        key(Qt::Key_Right); // Géron's Fig 16-9, which animates the position

        // Enter plays the step's animation on the Motion bar, Enter again pauses it.
        auto *bar = m_window->findChild<PlayBar *>();
        QVERIFY(bar->isVisible());
        QCOMPARE(bar->currentAnimation().parameter, u"position"_s);
        key(Qt::Key_Return);
        QVERIFY(bar->isPlaying());
        key(Qt::Key_Return);
        QVERIFY(!bar->isPlaying());

        QVERIFY(waitSettled(*m_window));
        QTest::qWait(200); // the full-screen geometry reaches the plots
        const QString shot = u"%1/lesson-present-%2x%3.png"_s.arg(QStringLiteral(PE_BUILD_DIR))
                                 .arg(screen.width())
                                 .arg(screen.height());
        QVERIFY(m_window->grab().save(shot));
        // The whole window on the screen: figure, title, caption and Motion bar.
        QVERIFY2(m_window->screen()->geometry().contains(m_window->geometry()),
                 qPrintable(u"%1 x %2"_s.arg(m_window->width()).arg(m_window->height())));
        QCOMPARE(m_window->size(), screen);
        // Title and caption sized to the screen, readable from the back of a room; Ctrl+=
        // makes them larger still.
        QVERIFY(presenter->titleLabel()->font().pixelSize() >= screen.height() / 25);
        QVERIFY(presenter->captionLabel()->font().pixelSize() >= screen.height() / 40);
        const int before = presenter->captionLabel()->font().pixelSize();
        // As key(): the focus widget, or the window when none has focus yet (a loaded machine's
        // Xvfb had none here, and QTest asserts on a null widget).
        press(m_window.get(), QKeyCombination(Qt::ControlModifier, Qt::Key_Equal));
        QVERIFY(presenter->captionLabel()->font().pixelSize() > before);

        key(Qt::Key_Escape);
        QVERIFY(!presenter->isPresenting());
        QVERIFY(m_window->menuBar()->isVisible());
        QVERIFY(lessons()->dock()->isVisible());
        QVERIFY(!m_window->isFullScreen());
        QCOMPARE(list()->currentRow(), 1); // the panel selects the step the talk ended on
    }
};

QTEST_MAIN(TestLessonWindow)
#include "tst_lessonwindow.moc"
