#include "views/lessoncontroller.h"

#include "backends/backendfactory.h"
#include "dialogs/filedialog.h"
#include "state/figureviews.h"
#include "state/lessondocument.h"
#include "views/lessonpanel.h"
#include "views/lessonpresenter.h"
#include "views/viewpage.h"
#include "widgets/playbar.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>

namespace pe {

namespace {
// The folder moves answered in earlier sessions (locateMovedFolder).
const QString movesKey = QStringLiteral("lessons/folderMoves");
} // namespace

LessonController *LessonController::install(const LessonHost &host)
{
    QMainWindow *window = host.window;
    auto *controller = new LessonController(host);
    controller->createDock();
    controller->createActions();
    window->installEventFilter(controller); // a lesson with unsaved changes on close
    connect(controller, &LessonController::message, window,
            [window](const QString &text) { window->statusBar()->showMessage(text, 10000); });
    return controller;
}

LessonController *LessonController::of(const QObject *window)
{
    return window->findChild<LessonController *>(QStringLiteral("lessonController"),
                                                 Qt::FindDirectChildrenOnly);
}

LessonController::LessonController(const LessonHost &host)
    : QObject(host.window), m_host(host), m_window(host.window),
      m_document(new LessonDocument(this))
{
    QMainWindow *window = host.window;
    setObjectName(QStringLiteral("lessonController"));
    m_document->setUndoStack(host.undo);
    m_presenter =
        new LessonPresenter(window, host.pages, m_document,
                            [this](int index, QString *error) { return openStep(index, error); });
    if (host.persistent) {
        const QVariantMap saved = host.settings()->value(movesKey).toMap();
        for (auto it = saved.begin(); it != saved.end(); ++it)
            m_moves.insert(it.key(), it.value().toString());
    }
    m_askFolder = [window](const QString &missing) {
        return QFileDialog::getExistingDirectory(
            window, tr("Where is %1 now? (the lesson was made with it in %2)")
                        .arg(QFileInfo(missing).fileName(),
                             QDir::toNativeSeparators(QFileInfo(missing).absolutePath())));
    };
}

QStringList LessonController::shippedLessons()
{
    QStringList paths;
    const QDir dir(QStringLiteral(":/lessons"));
    for (const QString &name :
         dir.entryList({QStringLiteral("*.pescope-lesson.json")}, QDir::Files, QDir::Name))
        paths.append(dir.filePath(name));
    return paths;
}

void LessonController::createDock()
{
    m_dock = new QDockWidget(tr("Lesson"), m_window);
    m_dock->setObjectName(QStringLiteral("lessonDock"));
    m_panel = new LessonPanel(m_document, m_dock);
    m_dock->setWidget(m_panel);
    m_window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    m_dock->hide();
    connect(m_panel, &LessonPanel::addRequested, this, &LessonController::addCurrentView);
    connect(m_panel, &LessonPanel::openRequested, this, [this](int index) {
        QString error;
        if (!openStep(index, &error))
            QMessageBox::warning(m_window, tr("Open lesson step"), error);
    });
    connect(m_panel, &LessonPanel::presentRequested, m_presenter, &LessonPresenter::start);
    connect(m_panel, &LessonPanel::animationRequested, this, [this] {
        const auto *bar = m_window->findChild<PlayBar *>();
        const int index = m_panel->currentStep();
        if (!bar || index < 0)
            return;
        const AnimationOptions options = bar->currentAnimation();
        m_document->setStepAnimation(index, LessonAnimation{.parameter = options.parameter,
                                                            .from = options.from,
                                                            .to = options.to,
                                                            .frames = options.frames});
    });
    connect(m_presenter, &LessonPresenter::finished, m_panel, &LessonPanel::setCurrentStep);
}

void LessonController::createActions()
{
    QMenu *help = m_window->findChild<QMenu *>(QStringLiteral("helpMenu"));
    auto *menu = new QMenu(tr("&Lesson"), m_window);
    menu->setObjectName(QStringLiteral("lessonMenu"));
    m_window->menuBar()->insertMenu(help ? help->menuAction() : nullptr, menu);

    menu->addAction(tr("&New lesson"), this, [this] {
        m_document->reset(Lesson{tr("Untitled lesson"), {}}, QString());
        m_dock->show();
    });
    QAction *open = menu->addAction(tr("&Open lesson…"), this, &LessonController::askToOpen);
    open->setObjectName(QStringLiteral("openLessonAction"));
    QAction *save = menu->addAction(tr("&Save lesson"), this, [this] { askToSave(false); });
    save->setObjectName(QStringLiteral("saveLessonAction"));
    menu->addAction(tr("Save lesson &as…"), this, [this] { askToSave(true); });
    menu->addSeparator();
    QAction *add =
        menu->addAction(tr("&Add current view as step"), this, &LessonController::addCurrentView);
    add->setObjectName(QStringLiteral("addLessonStepAction"));
    add->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    add->setToolTip(tr("Adds what the window shows (its whole state, the view, the Motion "
                       "bar's animation) as a lesson step (Ctrl+Shift+A)"));
    // As slide programs do: F5 from the first step, Shift+F5 from the selected one.
    QAction *present =
        menu->addAction(tr("&Present from the beginning"), this, [this] { m_presenter->start(0); });
    present->setObjectName(QStringLiteral("presentLessonAction"));
    present->setShortcut(QKeySequence(Qt::Key_F5));
    QAction *presentHere = menu->addAction(tr("Present from the &selected step"), this, [this] {
        m_presenter->start(qMax(0, m_panel->currentStep()));
    });
    presentHere->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    menu->addSeparator();
    for (const auto &[text, kind] :
         {std::pair{tr("Export &slides (PDF)…"), LessonExportKind::Slides},
          std::pair{tr("Export &handout (PDF)…"), LessonExportKind::Handout},
          std::pair{tr("Export HTML &deck…"), LessonExportKind::Html}}) {
        QAction *action = menu->addAction(text, this, [this, kind = kind] { askToExport(kind); });
        action->setObjectName(QStringLiteral("exportLesson_") + lessonExportKindName(kind));
    }
    QAction *show = m_dock->toggleViewAction();
    show->setText(tr("Show lesson &panel"));
    show->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    menu->addSeparator();
    menu->addAction(show);

    if (help) {
        auto *lessons = new QMenu(tr("&Lessons"), help);
        lessons->setObjectName(QStringLiteral("shippedLessonsMenu"));
        for (const QString &path : shippedLessons()) {
            QString error;
            const std::optional<Lesson> lesson = readLessonFile(path, &error);
            if (!lesson)
                continue; // tst_lesson checks every shipped lesson opens
            lessons->addAction(lesson->title, this, [this, path] {
                QString problem;
                if (!openLesson(path, &problem))
                    QMessageBox::warning(m_window, tr("Open lesson"), problem);
            });
        }
        help->insertMenu(help->actions().value(0), lessons);
    }
}

LessonStep LessonController::currentStep() const
{
    LessonStep step;
    step.view = figureViewsName(m_host.viewPages->current().figureViews());
    step.title = step.view;
    step.state = m_host.state->toJson();
    if (const auto *bar = m_window->findChild<PlayBar *>(); bar && bar->isPlaying()) {
        const AnimationOptions options = bar->currentAnimation();
        step.animation = LessonAnimation{.parameter = options.parameter,
                                         .from = options.from,
                                         .to = options.to,
                                         .frames = options.frames};
    }
    return step;
}

void LessonController::addCurrentView()
{
    const int at =
        m_panel->currentStep() < 0 ? m_document->stepCount() : m_panel->currentStep() + 1;
    if (!m_document->insertStep(at, currentStep())) {
        emit message(tr("A lesson holds at most %1 steps").arg(lessonlimits::maxSteps));
        return;
    }
    m_dock->show();
    m_panel->setCurrentStep(at);
    emit message(tr("Added step %1 (%2)").arg(at + 1).arg(m_document->step(at).view));
}

bool LessonController::openStep(int index, QString *error)
{
    if (index < 0 || index >= m_document->stepCount()) {
        *error = tr("the lesson has no step %1").arg(index + 1);
        return false;
    }
    const LessonStep &step = m_document->step(index);
    // A model the lesson names that is not where it was made: ask once per folder.
    // Asked again after each answer: one moved folder often holds every path a step names.
    QStringList asked;
    for (QStringList missing = missingLessonPaths(movedLessonState(step.state, m_moves));
         !missing.isEmpty(); missing = missingLessonPaths(movedLessonState(step.state, m_moves))) {
        if (asked.contains(missing.first())) {
            *error = tr("Step %1 (%2) cannot open: %3 is not there")
                         .arg(index + 1)
                         .arg(step.title, QDir::toNativeSeparators(missing.first()));
            return false;
        }
        asked.append(missing.first());
        if (!locateMovedFolder(missing.first(), error))
            return false;
    }
    const QJsonObject json = movedLessonState(step.state, folderMoves());
    ExplorerState *state = m_host.state;
    QString problem;
    if (!state->asOneStep(tr("Open lesson step %1").arg(index + 1),
                          [&] { return state->applyJson(json, &problem); })) {
        *error = tr("Step %1 (%2) cannot open: %3").arg(index + 1).arg(step.title, problem);
        return false;
    }
    // The state holds no page's tab but the Schemes page's: the step's view (its first, as
    // figureViewsName wrote them) is brought on screen by its page.
    if (const std::optional<QList<FigureView>> views = parseFigureViews(step.view, nullptr);
        views && !views->isEmpty() && m_host.viewPages)
        m_host.viewPages->current().selectView(views->first());
    return true;
}

QMap<QString, QString> LessonController::folderMoves() const
{
    return m_moves;
}

bool LessonController::locateMovedFolder(const QString &missing, QString *error)
{
    const QString answer = m_askFolder ? m_askFolder(missing) : QString();
    if (answer.isEmpty()) {
        *error = tr("the lesson opens %1, which is not on this computer")
                     .arg(QDir::toNativeSeparators(missing));
        return false;
    }
    // The answer holds what is missing (its folder moved), or is itself the missing model
    // folder under another name.
    const QFileInfo lost(missing);
    const QDir chosen(answer);
    QString folder;
    if (chosen.exists(lost.fileName()))
        folder = lost.absolutePath();
    else if (!chosen
                  .entryList({QStringLiteral("config.json"), QStringLiteral("*.safetensors"),
                              QStringLiteral("tokenizer.json"), QStringLiteral("*.gguf")},
                             QDir::Files)
                  .isEmpty())
        folder = lost.absoluteFilePath();
    if (folder.isEmpty()) {
        *error =
            tr("%1 does not hold %2 either").arg(QDir::toNativeSeparators(answer), lost.fileName());
        return false;
    }
    m_moves.insert(QDir::cleanPath(folder), QDir::cleanPath(answer));
    if (m_host.persistent) {
        QVariantMap saved;
        for (auto it = m_moves.begin(); it != m_moves.end(); ++it)
            saved.insert(it.key(), it.value());
        m_host.settings()->setValue(movesKey, saved);
    }
    emit message(tr("The lesson's %1 is now read from %2")
                     .arg(QDir::toNativeSeparators(folder), QDir::toNativeSeparators(answer)));
    return true;
}

bool LessonController::openLesson(const QString &path, QString *error)
{
    const std::optional<Lesson> lesson = readLessonFile(path, error);
    if (!lesson)
        return false;
    // A shipped lesson is a starting point: saving it asks where.
    m_document->reset(*lesson, path.startsWith(QLatin1Char(':')) ? QString() : path);
    m_dock->show();
    m_panel->setCurrentStep(0);
    emit message(tr("Opened the lesson %1 (%n step(s))", nullptr, int(lesson->steps.size()))
                     .arg(lesson->title));
    return true;
}

bool LessonController::saveLesson(const QString &path, QString *error)
{
    if (!m_document->save(path, error))
        return false;
    emit message(tr("Saved the lesson to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void LessonController::askToOpen()
{
    const QString path = openFileName(m_window, tr("Open lesson"), QString(), lessonFileFilter());
    if (path.isEmpty())
        return;
    QString error;
    if (!openLesson(path, &error))
        QMessageBox::warning(m_window, tr("Open lesson"), error);
}

void LessonController::askToSave(bool choosePath)
{
    QString path = m_document->path();
    if (choosePath || path.isEmpty()) {
        path = saveFileName(m_window, tr("Save lesson"),
                            path.isEmpty() ? m_document->lesson().title + lessonFileSuffix() : path,
                            lessonFileFilter());
        if (path.isEmpty())
            return;
        if (!path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
            path += lessonFileSuffix();
    }
    QString error;
    if (!saveLesson(path, &error))
        QMessageBox::warning(m_window, tr("Save lesson"), error);
}

} // namespace pe

namespace pe {

bool LessonController::exportLesson(const QString &path, const LessonExportOptions &options,
                                    QString *error)
{
    if (m_document->stepCount() == 0) {
        *error = tr("the lesson has no steps: add the current view with Ctrl+Shift+A");
        return false;
    }
    QString why;
    const std::unique_ptr<Backend> backend = makeBackend(BackendChoice::Cpu, &why);
    if (!backend) {
        *error = why;
        return false;
    }
    // Steps are painted here, on the GUI thread: a progress dialog keeps the window answering
    // and its Cancel stops between steps (nothing is left written).
    QProgressDialog progress(tr("Exporting the lesson…"), tr("Cancel"), 0, m_document->stepCount(),
                             m_window);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    const Lesson lesson = m_document->lesson();
    LessonExporter exporter(lesson, options, *backend);
    const bool written = exporter.write(
        path,
        [&](int done, int total) {
            progress.setValue(done);
            progress.setLabelText(tr("Exported step %1 of %2").arg(done).arg(total));
            QCoreApplication::processEvents();
            return !progress.wasCanceled();
        },
        error);
    if (written)
        emit message(tr("Exported the lesson to %1").arg(QDir::toNativeSeparators(path)));
    return written;
}

void LessonController::askToExport(LessonExportKind kind)
{
    const QString base =
        m_document->path().isEmpty()
            ? m_document->lesson().title
            : QFileInfo(m_document->path()).completeBaseName().section(QLatin1Char('.'), 0, 0);
    QString path;
    LessonExportOptions options;
    options.kind = kind;
    if (kind == LessonExportKind::Html) {
        path =
            saveFileName(m_window, tr("Export HTML deck (a new folder)"), base, tr("Folders (*)"));
    } else {
        const bool handout = kind == LessonExportKind::Handout;
        if (handout) {
            bool ok = false;
            const QString choice =
                QInputDialog::getItem(m_window, tr("Export handout"), tr("Steps a page:"),
                                      {QStringLiteral("2"), QStringLiteral("4")}, 0, false, &ok);
            if (!ok)
                return;
            options.perPage = choice.toInt();
        }
        path =
            saveFileName(m_window, handout ? tr("Export handout") : tr("Export slides"),
                         base + (handout ? QStringLiteral("-handout.pdf") : QStringLiteral(".pdf")),
                         tr("PDF (*.pdf)"));
        if (!path.isEmpty() && !path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive))
            path += QStringLiteral(".pdf");
    }
    if (path.isEmpty())
        return;
    QString error;
    if (!exportLesson(path, options, &error) && error != u"cancelled")
        QMessageBox::warning(m_window, tr("Export lesson"), error);
}

} // namespace pe

namespace pe {

bool LessonController::eventFilter(QObject *watched, QEvent *event)
{
    // Closing the window with a lesson that has unsaved steps asks first (not in tests and
    // screenshots, whose windows are not persistent).
    if (watched != m_window || event->type() != QEvent::Close || !m_host.persistent ||
        !m_document->isModified() || m_document->stepCount() == 0)
        return false;
    if (m_presenter->isPresenting())
        m_presenter->stop();
    const QMessageBox::StandardButton answer = QMessageBox::question(
        m_window, tr("Unsaved lesson"),
        tr("The lesson \"%1\" has changes that are not saved. Save them?")
            .arg(m_document->lesson().title),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Discard)
        return false;
    if (answer == QMessageBox::Save) {
        askToSave(false);
        if (!m_document->isModified())
            return false;
    }
    event->ignore(); // Cancel, or a save that did not happen
    return true;
}

} // namespace pe
