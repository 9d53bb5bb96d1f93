#include "views/mainwindow.h"

#include "compute/computescheduler.h"
#include "dialogs/aboutdialog.h"
#include "dialogs/shortcutsdialog.h"
#include "dialogs/viewhelpdialog.h"
#include "figures/plottheme.h"
#include "figures/qcpinclude.h"
#include "formats/safejson.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "views/backendnotice.h"
#include "views/configpasteaction.h"
#include "views/encodingpage.h"
#include "views/enginecheckactions.h"
#include "views/exportactions.h"
#include "views/fileactions.h"
#include "views/heatmapview.h"
#include "views/lessoncontroller.h"
#include "views/modelpage.h"
#include "views/modelphraseview.h"
#include "views/phraseview.h"
#include "views/schemepage.h"
#include "views/wavesview.h"
#include "widgets/compactcombo.h"
#include "widgets/parameterpanel.h"
#include "widgets/playbar.h"
#include "widgets/screenfit.h"
#include "widgets/windowshortcuts.h"
#include "widgets/windowzoom.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPainter>
#include <QProgressBar>
#include <QProxyStyle>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyleFactory>
#include <QStyleOption>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QUndoView>

#include <algorithm>
#include <iterator>

namespace pe {

namespace {

// Fusion outlines a check box (and a radio button) in the window colour darkened, which on the
// dark theme's window is the base colour itself: the empty box was all but invisible (issue 38
// item 8). On a dark palette the indicator gets an outline in the placeholder text's grey.
class IndicatorContrastStyle : public QProxyStyle
{
public:
    IndicatorContrastStyle() : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion"))) {}

    void drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter,
                       const QWidget *widget) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        const bool indicator =
            element == PE_IndicatorCheckBox || element == PE_IndicatorRadioButton;
        if (!indicator || option->palette.color(QPalette::Base).lightness() >= 128)
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, element == PE_IndicatorRadioButton);
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(option->palette.color(QPalette::PlaceholderText), 1));
        const QRectF r = QRectF(option->rect).adjusted(0.5, 0.5, -1.5, -1.5);
        if (element == PE_IndicatorRadioButton)
            painter->drawEllipse(r);
        else
            painter->drawRect(r);
        painter->restore();
    }
};

} // namespace

namespace {
constexpr int undoSteps = 100;
} // namespace

MainWindow::MainWindow(const MainWindowOptions &options, QWidget *parent)
    : QMainWindow(parent), m_options(options), m_state(new ExplorerState(this)),
      m_undo(new QUndoStack(this)), m_scheduler(new ComputeScheduler(m_state, this)),
      m_pages(new QTabWidget(this)), m_encoding(new EncodingPage(m_state, m_scheduler, this)),
      m_panel(m_encoding->parameterPanel()), m_waves(m_encoding->wavesView()),
      m_heatmap(m_encoding->heatmapView()), m_phrases(new PhraseView(m_state, m_scheduler, this)),
      m_schemes(new SchemePage(m_state, m_scheduler, this)),
      m_model(new ModelPage(m_state, m_scheduler, this)), m_viewPages(m_state),
      m_computeLabel(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_cancel(new QToolButton(this)), m_backendCombo(new QComboBox(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setUpUndo();
    buildPages();
    // The pages' combo boxes a sensible width, not their longest choice's: the figures get the
    // room (issue 38).
    for (QComboBox *combo : m_pages->findChildren<QComboBox *>())
        makeCompact(combo);
    buildStatusBar();

    createActions();
    installFileParts(); // sessions, models, the engine check, figure and data export
    // The Lesson menu and dock, Help > Lessons, presenting.
    LessonController::install({.window = this,
                               .pages = m_pages,
                               .state = m_state,
                               .undo = m_undo,
                               .viewPages = &m_viewPages,
                               .settings = [this] { return settings(); },
                               .persistent = m_options.persistent});
    BackendNoticeIndicator::install(this, m_scheduler); // GPU fallback warning
    connectPages();
    connectComputeInfo();

    // As large as the design wants where the screen has room (a 1280 x 720 laptop does not).
    fitToScreen(this, {1400, 900});
    if (m_options.persistent)
        restoreSettings();
    keepWindowsOnScreen(this);
    // What the window starts with is no step of this session: recording begins now.
    m_state->setUndoStack(m_undo);
    qApp->installEventFilter(this);
    applyTheme();
    m_pages->setCurrentIndex(int(m_state->page()));
}

void MainWindow::setUpUndo()
{
    m_undo->setObjectName(QStringLiteral("undoStack"));
    // A step holds the parameters before and after it (a model's table among them): the history
    // is bounded.
    m_undo->setUndoLimit(undoSteps);
    updateTitle();
    connect(m_undo, &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
}

// The four pages as tabs, and the Motion bar below them.
void MainWindow::buildPages()
{
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->addTab(m_encoding, tr("&Encoding"));
    m_pages->addTab(m_phrases, tr("P&hrases"));
    m_pages->addTab(m_schemes, tr("&Schemes"));
    m_pages->addTab(m_model, tr("&Model"));
    m_pages->setTabToolTip(0, tr("The encoding matrix: waves and heatmap (Ctrl+1)"));
    m_pages->setTabToolTip(1, tr("Random vs fixed embeddings of phrases (Ctrl+2)"));
    m_pages->setTabToolTip(
        2, tr("RoPE spectra, rotation and decay, position similarity, ALiBi and T5 biases, "
              "compare two configurations (Ctrl+3)"));
    m_pages->setTabToolTip(3, tr("The opened model: its card, layer map and learned-table views "
                                 "(PCA, similarity, sinusoid fits) (Ctrl+4)"));
    setCentralWidget(m_pages);
    registerPages();
    // Motion (issue 13): play the position or sweep a scheme field on the current page.
    addToolBar(Qt::BottomToolBarArea,
               new PlayBar(
                   m_state, [this] { return m_viewPages.current().playableViews(); },
                   [this] { return m_viewPages.current().figureViews(); }, this));
}

// What each page shows, for those who ask the current page (viewpage.h).
void MainWindow::registerPages()
{
    m_viewPages.add(m_encoding->viewPage());
    // The Phrases page shows the views of its tokenizer, the model's own or the tutorial's; its
    // figure is the phrase grid, or the model's current tab.
    const auto modelTokenizer = [this] {
        return m_state->phraseSource().tokenizer == PhraseTokenizer::Model;
    };
    const auto modelView = [this, modelTokenizer]() -> const ModelPhraseView * {
        return modelTokenizer() ? m_phrases->findChild<ModelPhraseView *>() : nullptr;
    };
    m_viewPages.add(
        {.page = Page::Phrases,
         .shows = [modelTokenizer](
                      FigureView view) { return viewReadsModelPhrases(view) == modelTokenizer(); },
         .figure =
             [modelView] {
                 const ModelPhraseView *model = modelView();
                 return QList<FigureView>{model ? model->currentView() : FigureView::Phrases};
             },
         .size =
             [this, modelView] {
                 // Tokens alone (no weights) have no figure tab: the tokens view at the page's
                 // size.
                 if (const ModelPhraseView *model = modelView())
                     return model->currentPlot() ? model->currentPlot()->size() : model->size();
                 return m_phrases->gridPlot()->size();
             },
         .choices =
             [modelView] {
                 const ModelPhraseView *model = modelView();
                 return model ? model->choices() : ViewChoices{};
             },
         // The model's view in its tab; the tutorial's views are all on screen together.
         .select =
             [this, modelTokenizer](FigureView view) {
                 if (!modelTokenizer())
                     return !viewReadsModelPhrases(view);
                 auto *model = m_phrases->findChild<ModelPhraseView *>();
                 return model && model->selectView(view);
             }});
    // The Schemes page shows one view at a time, in tabs; so does the Model page.
    m_viewPages.add(
        {.page = Page::Schemes,
         .shows = [this](FigureView view) { return view == m_state->schemeSettings().view; },
         .size = [this] { return m_schemes->currentPlot()->size(); },
         // The tab is the state's: a view other than the current one is a settings change.
         .select =
             [this](FigureView view) {
                 SchemeSettings settings = m_state->schemeSettings();
                 if (settings.view != view) {
                     settings.view = view;
                     m_state->setSchemeSettings(settings);
                 }
                 return m_state->schemeSettings().view == view;
             }});
    m_viewPages.add(m_model->viewPage());
}

// Which backend computed the current view, the progress of a long computation, Cancel.
void MainWindow::buildStatusBar()
{
    m_computeLabel->setObjectName(QStringLiteral("computeInfo"));
    m_computeLabel->setToolTip(tr("Which backend computed the current view and how long it took"));
    // A status text must never widen the window: a QLabel's minimum width is its whole text, and
    // a longer timing could push a window sized to fit its screen (or to --size) wider. It is
    // clipped instead when space is short (as the views' readouts are, phraseview.cpp).
    m_computeLabel->setMinimumWidth(1);
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(160);
    m_progress->setToolTip(tr("Progress of a long computation"));
    m_progress->hide();
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(
        tr("Stop the running computation; the views keep their last result (Esc)"));
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_computeLabel);
}

void MainWindow::connectPages()
{
    connect(m_pages, &QTabWidget::currentChanged, this, [this](int index) {
        m_state->setPage(Page(qBound(0, index, int(Page::Model))));
        updateComputeInfo();
    });
    connect(m_state, &ExplorerState::pageChanged, this,
            [this] { m_pages->setCurrentIndex(int(m_state->page())); });
    connect(m_state, &ExplorerState::themeChanged, this, &MainWindow::applyTheme);
}

// The compute line of the status bar follows the scheduler's results, failures and progress.
void MainWindow::connectComputeInfo()
{
    connect(m_scheduler, &ComputeScheduler::encodingReady, this,
            [this](const std::shared_ptr<const EncodingResult> &r) {
                m_encodingInfo = tr("%1 × %2 on %3 in %4 ms")
                                     .arg(r->spec.positions)
                                     .arg(r->spec.dims)
                                     .arg(r->backendId)
                                     .arg(r->totalMs, 0, 'f', 1);
                m_computeLabel->setToolTip(r->backendDescription);
                updateComputeInfo();
            });
    // A sampled viewport (pan, zoom) is a new view: say who computed it and how fast.
    connect(m_scheduler, &ComputeScheduler::gridReady, this,
            [this](const std::shared_ptr<const HeatmapGrid> &g) {
                const auto r = m_scheduler->encoding();
                if (!g->sampled || !r)
                    return;
                m_encodingInfo = tr("%1 × %2, %3 × %4 px sampled on %5 in %6 ms")
                                     .arg(r->spec.positions)
                                     .arg(r->spec.dims)
                                     .arg(g->cols)
                                     .arg(g->rows)
                                     .arg(g->backendId)
                                     .arg(g->computeMs, 0, 'f', 1);
                updateComputeInfo();
            });
    connect(m_heatmap, &HeatmapView::rendered, this, [this](double ms) {
        m_lastDrawMs = ms;
        updateComputeInfo();
    });
    connect(m_schemes, &SchemePage::timingChanged, this, &MainWindow::updateComputeInfo);
    connect(m_model, &ModelPage::timingChanged, this, &MainWindow::updateComputeInfo);
    connect(m_scheduler, &ComputeScheduler::phrasesReady, this,
            [this](const std::shared_ptr<const PhraseResult> &r) {
                m_phraseInfo = tr("%1 phrases on %2 in %3 ms")
                                   .arg(r->settings.phrases.size())
                                   .arg(r->backendId)
                                   .arg(r->totalMs, 0, 'f', 1);
                updateComputeInfo();
            });
    connect(m_scheduler, &ComputeScheduler::encodingFailed, this, [this](const QString &message) {
        statusBar()->showMessage(tr("Encoding refused: %1").arg(message), 15000);
    });
    connect(m_scheduler, &ComputeScheduler::phrasesFailed, this, [this](const QString &message) {
        statusBar()->showMessage(tr("Phrases failed: %1").arg(message), 15000);
    });
    connect(m_scheduler, &ComputeScheduler::progressChanged, this, [this](int percent) {
        m_progress->setVisible(percent >= 0);
        m_cancel->setVisible(percent >= 0);
        if (percent >= 0)
            m_progress->setValue(percent);
    });
    connect(m_scheduler, &ComputeScheduler::cancelled, this,
            [this] { statusBar()->showMessage(tr("Cancelled; showing the last result"), 5000); });
    connect(m_cancel, &QToolButton::clicked, m_scheduler, &ComputeScheduler::cancel);
}

MainWindow::~MainWindow()
{
    // The undo stack, a child, emits cleanChanged while QObject deletes it, after this class's
    // part is gone (UBSan: a downcast to MainWindow of what is by then a QWidget): no slot or
    // filter of this window may run from here on.
    m_undo->disconnect(this);
    qApp->removeEventFilter(this);
}

void MainWindow::createActions()
{
    createFileMenu();
    createEditMenu();
    const ViewActions view = createViewMenu();
    QMenu *presetMenu = createPresetsMenu();
    QAction *reseed = createPhrasesMenu();
    createComputeMenu();
    createHelpMenu();
    createMainToolBar(view, presetMenu, reseed);
}

void MainWindow::createFileMenu()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setToolTip(tr("Close the window (Ctrl+Q)"));
}

// The File menu's parts, each given what it needs of the window; their entries go above Quit.
void MainWindow::installFileParts()
{
    auto *engine = new EngineCheckActions(m_state, m_scheduler, this);
    auto *files = new FileActions({.state = m_state,
                                   .scheduler = m_scheduler,
                                   .modelPage = m_model,
                                   .engineCheck = engine,
                                   .settings = [this] { return settings(); },
                                   .persistent = m_options.persistent},
                                  this);
    auto *paste = new ConfigPasteAction(m_state, m_model, this);
    auto *exports = new ExportActions(m_state, m_scheduler, &m_viewPages, this);
    const auto show = [this](const QString &text) { statusBar()->showMessage(text, 10000); };
    connect(files, &FileActions::message, this, show);
    connect(engine, &EngineCheckActions::message, this, show);
    connect(paste, &ConfigPasteAction::message, this, show);
    connect(exports, &ExportActions::message, this, show);
    connect(files, &FileActions::sessionFileChanged, this, &MainWindow::setSessionFile);
    // The Motion bar's Export… is this menu's Export figure, preset to what the bar plays.
    if (auto *motion = findChild<PlayBar *>())
        connect(motion, &PlayBar::exportRequested, exports, &ExportActions::exportAnimation);

    QMenu *file = menuBar()->actions().constFirst()->menu(); // createFileMenu's
    QAction *quit = file->actions().value(0, nullptr);
    file->insertAction(quit, files->openSessionAction());
    file->insertMenu(quit, files->recentMenu());
    file->insertAction(quit, files->openModelAction());
    file->insertAction(quit, files->openCachedModelAction());
    file->insertAction(quit, paste->action());
    file->insertMenu(quit, files->recentModelsMenu());
    file->insertAction(quit, engine->action());
    file->insertAction(quit, files->saveSessionAction());
    file->insertAction(quit, files->saveSessionAsAction());
    file->insertSeparator(quit);
    file->insertAction(quit, exports->exportFigureAction());
    file->insertAction(quit, exports->copyFigureAction());
    file->insertAction(quit, exports->exportDataAction());
    file->insertSeparator(quit);
    file->setToolTipsVisible(true);
}

// The pages, the heatmap's transpose and reset, the colormap and the theme.
MainWindow::ViewActions MainWindow::createViewMenu()
{
    auto *view = menuBar()->addMenu(tr("&View"));
    QAction *encodingPage =
        view->addAction(tr("&Encoding page"), this, [this] { m_state->setPage(Page::Encoding); });
    encodingPage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction *phrasePage =
        view->addAction(tr("&Phrases page"), this, [this] { m_state->setPage(Page::Phrases); });
    phrasePage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    QAction *schemesPage =
        view->addAction(tr("&Schemes page"), this, [this] { m_state->setPage(Page::Schemes); });
    schemesPage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    QAction *modelPage =
        view->addAction(tr("&Model page"), this, [this] { m_state->setPage(Page::Model); });
    modelPage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_4));
    view->addSeparator();
    QAction *transpose = view->addAction(tr("&Transpose heatmap"));
    transpose->setObjectName(QStringLiteral("transposeAction"));
    transpose->setCheckable(true);
    transpose->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    transpose->setToolTip(tr("Dims on the y axis, as Fig 16-9 (Ctrl+T)"));
    connect(transpose, &QAction::triggered, m_state, &ExplorerState::setTransposed);
    connect(m_state, &ExplorerState::transposedChanged, transpose,
            [this, transpose] { transpose->setChecked(m_state->transposed()); });
    transpose->setChecked(m_state->transposed());
    QAction *reset = view->addAction(tr("&Reset heatmap view"), m_heatmap, &HeatmapView::resetView);
    reset->setObjectName(QStringLiteral("resetViewAction"));
    // Ctrl+0 is the zoom's actual size, as in every browser (issue 38).
    reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Home));
    reset->setToolTip(tr("Show the whole matrix again (Ctrl+Home)"));
    createZoomActions(view);
    QAction *nextMap = view->addAction(tr("Next &colormap"), this, [this] {
        // The next map in the same direction: viridis, plasma, ... (viridis_r, plasma_r, ...).
        const QList<Colormap> maps = allColormaps();
        const Colormap next = maps[(maps.indexOf(m_state->colormap()) + 2) % maps.size()];
        m_state->setColormap(next);
    });
    nextMap->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    nextMap->setToolTip(tr("Cycle viridis, plasma, inferno, magma, cividis, gray, Greys, RdBu, "
                           "coolwarm, twilight (Ctrl+M)"));
    QAction *dark = view->addAction(tr("&Dark theme"));
    dark->setObjectName(QStringLiteral("darkThemeAction"));
    dark->setCheckable(true);
    dark->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    dark->setToolTip(tr("Switch between the light and the dark theme (Ctrl+Shift+D)"));
    connect(dark, &QAction::toggled, this,
            [this](bool on) { m_state->setTheme(on ? Theme::Dark : Theme::Light); });
    connect(m_state, &ExplorerState::themeChanged, dark,
            [this, dark] { dark->setChecked(m_state->theme() == Theme::Dark); });
    return {transpose, reset, dark};
}

// Zoom in, out and back: the window's font (and its figures) for a projector.
void MainWindow::createZoomActions(QMenu *view)
{
    view->addSeparator();
    // The standard keys where they differ from ours: one sequence twice would be ambiguous.
    const auto keys = [](const QKeySequence &own, QKeySequence::StandardKey standard) {
        QList<QKeySequence> all{own};
        for (const QKeySequence &key : QKeySequence::keyBindings(standard))
            if (!all.contains(key))
                all.append(key);
        return all;
    };
    QAction *in = view->addAction(tr("Zoom &in"), this, [this] { setZoomLevel(m_zoomLevel + 1); });
    in->setObjectName(QStringLiteral("zoomInAction"));
    // Ctrl+= as well as Ctrl++: the plus sign needs Shift on most keyboards.
    in->setShortcuts(keys(QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence::ZoomIn));
    in->setToolTip(tr("Larger text and figures in the window, for a projector (Ctrl+=)"));
    QAction *out =
        view->addAction(tr("Zoom &out"), this, [this] { setZoomLevel(m_zoomLevel - 1); });
    out->setObjectName(QStringLiteral("zoomOutAction"));
    out->setShortcuts(keys(QKeySequence(Qt::CTRL | Qt::Key_Minus), QKeySequence::ZoomOut));
    out->setToolTip(tr("Smaller text and figures in the window (Ctrl+-)"));
    QAction *actual =
        view->addAction(tr("&Actual size"), this, [this] { setZoomLevel(defaultZoomLevel()); });
    actual->setObjectName(QStringLiteral("zoomResetAction"));
    actual->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    actual->setToolTip(tr("The desktop's text size again (Ctrl+0)"));
}

int MainWindow::defaultZoomLevel()
{
    return int(std::find(std::begin(zoomLevels), std::end(zoomLevels), 1.0) -
               std::begin(zoomLevels));
}

double MainWindow::zoom() const
{
    return zoomLevels[m_zoomLevel];
}

void MainWindow::setZoomLevel(int level)
{
    level = qBound(0, level, int(std::size(zoomLevels)) - 1);
    if (level == m_zoomLevel)
        return;
    m_zoomLevel = level;
    // The window's own font: dialogs and exports keep the application's.
    QFont font = QApplication::font(this);
    font.setPointSizeF(QApplication::font().pointSizeF() * zoom());
    setFont(font);
    statusBar()->showMessage(tr("Zoom %1%").arg(qRound(zoom() * 100)), 3000);
}

QMenu *MainWindow::createPresetsMenu()
{
    auto *presetMenu = menuBar()->addMenu(tr("&Presets"));
    int index = 0;
    for (const Preset &preset : presets()) {
        QAction *action = presetMenu->addAction(preset.name, this, [this, id = preset.id] {
            QString error;
            if (!applyPreset(id, &error))
                statusBar()->showMessage(error, 10000);
        });
        action->setObjectName(QStringLiteral("preset-") + preset.id);
        action->setToolTip(preset.description);
        action->setStatusTip(preset.description);
        if (index < 9)
            action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key(Qt::Key_1 + index)));
        ++index;
    }
    presetMenu->addSeparator();
    presetMenu->addAction(tr("&Defaults"), m_state, &ExplorerState::resetToDefaults);
    presetMenu->setToolTipsVisible(true);
    return presetMenu;
}

// Add phrase and Reseed, which the Phrases page's buttons do too.
QAction *MainWindow::createPhrasesMenu()
{
    auto *phrases = menuBar()->addMenu(tr("P&hrases"));
    QAction *add = phrases->addAction(tr("&Add phrase"), this, [this] {
        m_state->setPage(Page::Phrases);
        m_phrases->addPhrase();
    });
    add->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    QAction *reseed = phrases->addAction(tr("&Reseed random row"), m_phrases, &PhraseView::reseed);
    reseed->setObjectName(QStringLiteral("reseedAction"));
    reseed->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    reseed->setToolTip(tr("Draw a new random embedding (Ctrl+R)"));
    return reseed;
}

// The backend (mirrored by the toolbar's combo box) and Cancel.
void MainWindow::createComputeMenu()
{
    auto *compute = menuBar()->addMenu(tr("&Compute"));
    auto *backends = new QActionGroup(this);
    const QList<BackendStatus> status = probeBackends();
    for (BackendChoice choice : {BackendChoice::Auto, BackendChoice::Cpu, BackendChoice::Gpu}) {
        QString tip = choice == BackendChoice::Auto ? tr("The GPU when it can start, else the CPU")
                                                    : QString();
        for (const BackendStatus &s : status)
            if (s.id == backendChoiceName(choice))
                tip = (s.available ? tr("Available: ") : tr("Unavailable: ")) + s.description;
        QAction *action = compute->addAction(tr("Backend: %1").arg(backendChoiceName(choice)));
        action->setCheckable(true);
        action->setChecked(m_state->backendChoice() == choice);
        action->setToolTip(tip);
        backends->addAction(action);
        connect(action, &QAction::triggered, this,
                [this, choice] { m_state->setBackendChoice(choice); });
        m_backendCombo->addItem(backendChoiceName(choice));
        m_backendCombo->setItemData(m_backendCombo->count() - 1, tip, Qt::ToolTipRole);
    }
    compute->setToolTipsVisible(true);
    m_backendCombo->setObjectName(QStringLiteral("backend"));
    m_backendCombo->setToolTip(tr("Compute backend: auto (GPU, else CPU), cpu or gpu"));
    connect(m_backendCombo, &QComboBox::activated, this, [this](int i) {
        m_state->setBackendChoice(
            parseAs<BackendChoice>(backendChoiceNames, m_backendCombo->itemText(i))
                .value_or(BackendChoice::Auto));
    });
    connect(m_state, &ExplorerState::backendChoiceChanged, this, [this, backends] {
        const int i = int(m_state->backendChoice());
        m_backendCombo->setCurrentIndex(i);
        backends->actions().at(i)->setChecked(true);
    });
    QAction *cancel =
        compute->addAction(tr("&Cancel computation"), m_scheduler, &ComputeScheduler::cancel);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
}

void MainWindow::createMainToolBar(const ViewActions &view, QMenu *presetMenu, QAction *reseed)
{
    auto *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    auto *presetButton = new QToolButton(toolbar);
    presetButton->setText(tr("Presets"));
    presetButton->setMenu(presetMenu);
    presetButton->setPopupMode(QToolButton::InstantPopup);
    presetButton->setToolTip(tr("Reproduce a seed figure in one click"));
    toolbar->addWidget(presetButton);
    toolbar->addAction(view.reset);
    toolbar->addAction(view.transpose);
    toolbar->addAction(reseed);
    toolbar->addAction(view.dark);
    toolbar->addAction(findChild<QAction *>(QStringLiteral("viewHelpAction")));
    toolbar->addSeparator();
    toolbar->addWidget(new QLabel(tr(" Backend "), toolbar));
    toolbar->addWidget(m_backendCombo);
}

void MainWindow::createEditMenu()
{
    auto *edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("editMenu"));
    // The actions name the step they undo ("Undo Set Base to 500000"); the shortcut list calls
    // them by their icon text.
    QAction *undo = m_undo->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setIconText(tr("Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction *redo = m_undo->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    redo->setIconText(tr("Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // Every step of this session, the current one selected: clicking a row goes back or forth
    // to it.
    auto *historyDock = new QDockWidget(tr("Undo history"), this);
    historyDock->setObjectName(QStringLiteral("undoHistory"));
    auto *history = new QUndoView(m_undo, historyDock);
    history->setEmptyLabel(tr("<opened>"));
    historyDock->setWidget(history);
    addDockWidget(Qt::RightDockWidgetArea, historyDock);
    historyDock->hide();
    QAction *showHistory = historyDock->toggleViewAction();
    showHistory->setText(tr("Undo &history"));
    showHistory->setObjectName(QStringLiteral("undoHistoryAction"));
    showHistory->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    edit->addAction(showHistory);
}

void MainWindow::createHelpMenu()
{
    auto *help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction *what = help->addAction(tr("&What am I looking at?"), this, &MainWindow::showViewHelp);
    what->setObjectName(QStringLiteral("viewHelpAction"));
    what->setShortcut(QKeySequence::HelpContents);
    what->setToolTip(tr("What the current page's views show, and their formulas (F1)"));
    QAction *keys = help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    QAction *about =
        help->addAction(tr("&About pescope"), this, [this] { AboutDialog(this).exec(); });
    about->setObjectName(QStringLiteral("aboutAction"));
    about->setMenuRole(QAction::AboutRole);
}

void MainWindow::showShortcuts()
{
    ShortcutsDialog(this).exec();
}

void MainWindow::showViewHelp()
{
    auto *dialog = findChild<ViewHelpDialog *>(QString(), Qt::FindDirectChildrenOnly);
    if (!dialog) {
        dialog = new ViewHelpDialog(
            m_state, [this] { return m_viewPages.current().viewsOnScreen(); }, this);
        // Ctrl+1…4 and the window's other shortcuts work while the help has focus (issue 46).
        dialog->addActions(windowShortcutActions(this));
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    // A page of tabs (the model's phrases, Schemes, Model): the help opens at the tab's view,
    // not at the top or where it was last scrolled (issue 48).
    const QList<FigureView> figure = m_viewPages.current().figureViews();
    if (figure.size() == 1)
        dialog->showView(figure.first());
}

void MainWindow::updateTitle()
{
    const QString file = windowFilePath();
    setWindowTitle(file.isEmpty() ? QStringLiteral("pescope[*]")
                                  : QFileInfo(file).fileName() + QStringLiteral("[*] — pescope"));
    setWindowModified(!m_undo->isClean());
}

void MainWindow::setSessionFile(const QString &path)
{
    setWindowFilePath(path);
    m_undo->setClean();
    updateTitle();
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::ShortcutOverride)
        return QMainWindow::eventFilter(watched, event);
    const auto *key = static_cast<QKeyEvent *>(event);
    auto *widget = qobject_cast<QWidget *>(watched);
    // The window and F1's help, which holds the window's shortcuts too (showViewHelp).
    if (!widget || (widget->window() != this && !qobject_cast<ViewHelpDialog *>(widget->window())))
        return false;
    if (!(key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)))
        // Ctrl+E opens Export from a line edit too (issue 46): returning true leaves the
        // override unaccepted, and the window's action takes the key.
        return claimsForWindow(this, key);
    if (widget->window() != this)
        return false;
    // A spin box applies each step at once, and a line edit with nothing typed since it was
    // committed (or refreshed) has nothing of its own to undo: the window's step is meant.
    auto *line = qobject_cast<QLineEdit *>(widget);
    const bool inSpinBox = qobject_cast<QAbstractSpinBox *>(widget) ||
                           (line && qobject_cast<QAbstractSpinBox *>(line->parentWidget()));
    // Returning true leaves the override unaccepted: the shortcut goes to the window's action.
    return inSpinBox || (line && (line->isReadOnly() || !line->isModified()));
}

bool MainWindow::applyPreset(const QString &id, QString *error)
{
    return pe::applyPreset(*m_state, id, error);
}

bool MainWindow::isSettled() const
{
    const bool encodingDone = m_scheduler->encoding() || !m_scheduler->encodingError().isEmpty();
    const bool phrasesDone = m_scheduler->phrases() || !m_scheduler->phrasesError().isEmpty();
    return m_scheduler->isIdle() && encodingDone && phrasesDone && m_waves->isUpToDate() &&
           (m_state->page() != Page::Encoding || m_encoding->isUpToDate()) &&
           (m_state->page() != Page::Schemes || m_schemes->isUpToDate()) &&
           (m_state->page() != Page::Model || m_model->isUpToDate());
}

QString MainWindow::computeInfo() const
{
    return m_computeLabel->text();
}

void MainWindow::updateComputeInfo()
{
    // The current page's numbers: each page computes its own views.
    if (m_state->page() == Page::Phrases)
        m_computeLabel->setText(m_phraseInfo.isEmpty() ? tr("Phrases: computing…")
                                                       : tr("Phrases: ") + m_phraseInfo);
    else if (m_state->page() == Page::Schemes)
        m_computeLabel->setText(m_schemes->timing());
    else if (m_state->page() == Page::Model)
        m_computeLabel->setText(m_model->timing());
    else
        m_computeLabel->setText(m_encodingInfo.isEmpty() ? tr("Encoding: computing…")
                                                         : tr("Encoding: %1, drawn in %2 ms")
                                                               .arg(m_encodingInfo)
                                                               .arg(m_lastDrawMs, 0, 'f', 1));
}

void MainWindow::applyTheme()
{
    // Fusion draws with the palette everywhere, so both themes look as designed on any desktop.
    // setStyle resets the palette, so it comes first and only once.
    if (QApplication::style()->objectName() != QLatin1String("pescopeFusion")) {
        auto *style = new IndicatorContrastStyle;
        style->setObjectName(QStringLiteral("pescopeFusion"));
        QApplication::setStyle(style);
    }
    QApplication::setPalette(applicationPalette(m_state->theme()));
    // Also on the window: children created before the application palette changed keep a
    // resolved copy of the old one, while a window palette propagates to all of them.
    setPalette(applicationPalette(m_state->theme()));
}

std::unique_ptr<QSettings> MainWindow::settings() const
{
    if (!m_options.settingsFile.isEmpty())
        return std::make_unique<QSettings>(m_options.settingsFile, QSettings::IniFormat);
    return std::make_unique<QSettings>();
}

void MainWindow::restoreSettings()
{
    auto s = settings();
    restoreGeometry(s->value(QStringLiteral("window/geometry")).toByteArray());
    keepOnScreen(this); // saved on a larger screen, or under other frames
    restoreState(s->value(QStringLiteral("window/state")).toByteArray());
    m_encoding->splitter()->restoreState(
        s->value(QStringLiteral("window/encodingSplitter")).toByteArray());
    m_encoding->plotSplitter()->restoreState(
        s->value(QStringLiteral("window/plotSplitter")).toByteArray());
    const QByteArray json = s->value(QStringLiteral("explorer/state")).toByteArray();
    if (!json.isEmpty()) {
        QString error;
        // A settings file from another version may not apply; the defaults stay then.
        if (!m_state->applyJson(jsonDocumentKeepingFeff(json).object(), &error))
            statusBar()->showMessage(tr("Last parameters not restored: %1").arg(error), 10000);
    }
}

void MainWindow::saveSettings()
{
    auto s = settings();
    s->setValue(QStringLiteral("window/geometry"), saveGeometry());
    s->setValue(QStringLiteral("window/state"), saveState());
    s->setValue(QStringLiteral("window/encodingSplitter"), m_encoding->splitter()->saveState());
    s->setValue(QStringLiteral("window/plotSplitter"), m_encoding->plotSplitter()->saveState());
    s->setValue(QStringLiteral("explorer/state"),
                QJsonDocument(m_state->toJson()).toJson(QJsonDocument::Compact));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_options.persistent)
        saveSettings();
    QMainWindow::closeEvent(event);
}

bool openSessionInWindow(MainWindow *window, const QString &path, QString *error)
{
    FileActions *actions = FileActions::of(window);
    return actions ? actions->openSession(path, error) : loadSession(path, window->state(), error);
}

bool openModelInWindow(MainWindow *window, const QString &source, QString *error)
{
    FileActions *actions = FileActions::of(window);
    if (!actions) {
        *error = QStringLiteral("the window has no File menu");
        return false;
    }
    QEventLoop loop;
    QString problem;
    QObject::connect(actions, &FileActions::modelOpened, &loop, [&](const QString &answer) {
        problem = answer;
        loop.quit();
    });
    actions->openModel(source, false);
    loop.exec();
    if (!problem.isEmpty())
        *error = problem;
    return problem.isEmpty();
}

bool applyModelConfigText(MainWindow *window, QByteArrayView text, QString *error)
{
    return applyModelConfigText(window->state(), window->modelPage(), text, error);
}

} // namespace pe
