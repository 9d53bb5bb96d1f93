#include "views/fileactions.h"

#include "formats/modelconfig.h"

#include "dialogs/configpastedialog.h"
#include "dialogs/enginecheckdialog.h"
#include "dialogs/filedialog.h"

#include "compute/computescheduler.h"
#include "compute/phrasemodeldata.h"
#include "compute/viewdata.h"
#include "dialogs/exportdialog.h"
#include "dialogs/modelfiledialog.h"
#include "figures/qcpinclude.h"
#include "formats/hfcache.h"
#include "model/modelcard.h"
#include "model/modelspec.h"
#include "schemes/tablescheme.h"
#include "state/sessionfile.h"
#include "views/heatmapview.h"
#include "views/mainwindow.h"
#include "views/modelpage.h"
#include "views/modelphraseview.h"
#include "views/phraseview.h"
#include "views/schemepage.h"
#include "views/wavesview.h"
#include "widgets/playbar.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEventLoop>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUrl>

#include <utility>

namespace pe {

namespace {

const QString recentModelsKey = QStringLiteral("recentModels");
constexpr int maxRecentModels = 8;

// What a list entry stands for: an absolute path when it names a file or folder here, else the
// text as given (a cache repo id).
QString modelEntry(const QString &source)
{
    const QFileInfo info(source);
    return info.exists() ? info.absoluteFilePath() : source;
}

// A repo id ("gpt2", "org/name") is looked up in the cache; anything else is a path.
bool looksLikePath(const QString &source)
{
    return QFileInfo(source).isAbsolute() || source.startsWith(QLatin1Char('.'));
}

// What an undo step calls a model: its folder or file name, or the repo id as given.
QString modelName(const QString &source)
{
    if (!looksLikePath(source))
        return source;
    const QFileInfo info(QDir::cleanPath(source));
    return info.fileName().isEmpty() ? source : info.fileName();
}

bool isSessionFile(const QString &path)
{
    return path.endsWith(QLatin1String(".pescope.json"), Qt::CaseInsensitive);
}

} // namespace

QStringList recentModels(QSettings *settings)
{
    return settings->value(recentModelsKey).toStringList().mid(0, maxRecentModels);
}

void addRecentModel(QSettings *settings, const QString &source)
{
    const QString entry = modelEntry(source);
    QStringList list = recentModels(settings);
    list.removeAll(entry);
    list.prepend(entry);
    settings->setValue(recentModelsKey, list.mid(0, maxRecentModels));
}

void removeRecentModel(QSettings *settings, const QString &source)
{
    QStringList list = recentModels(settings);
    list.removeAll(source);
    settings->setValue(recentModelsKey, list);
}

FileActions::FileActions(MainWindow *window) : QObject(window), m_window(window)
{
    setObjectName(QStringLiteral("fileActions"));
    connect(window->scheduler(), &ComputeScheduler::modelReadReady, this,
            &FileActions::onModelRead);
    connect(window->scheduler(), &ComputeScheduler::cancelled, this,
            &FileActions::onComputeCancelled);
}

FileActions *FileActions::install(MainWindow *window)
{
    auto *actions = new FileActions(window);
    actions->createActions();
    // Model folders and files (and session files) dropped onto the window open.
    window->setAcceptDrops(true);
    window->installEventFilter(actions);
    connect(actions, &FileActions::message, window,
            [window](const QString &text) { window->statusBar()->showMessage(text, 10000); });
    // The Motion bar's Export… is this menu's Export figure, preset to what the bar plays.
    if (auto *motion = window->findChild<PlayBar *>())
        connect(motion, &PlayBar::exportRequested, actions, &FileActions::exportAnimation);
    return actions;
}

FileActions *FileActions::of(const MainWindow *window)
{
    return window->findChild<FileActions *>(QStringLiteral("fileActions"),
                                            Qt::FindDirectChildrenOnly);
}

// The File menu's session, model and figure actions.
void FileActions::createActions()
{
    QMenu *file = fileMenu();
    // Ours go above what the window put there (Quit).
    QAction *before = file->actions().value(0, nullptr);
    const SessionActions session = createSessionActions();
    const FigureActions figure = createFigureActions();
    const ModelActions model = createModelActions();

    file->insertAction(before, session.open);
    file->insertMenu(before, m_recentMenu);
    file->insertAction(before, model.open);
    file->insertAction(before, model.cached);
    file->insertAction(before, model.pasteConfig);
    file->insertMenu(before, m_recentModelsMenu);
    file->insertAction(before, checkEngineTableAction());
    file->insertAction(before, session.save);
    file->insertAction(before, session.saveAs);
    file->insertSeparator(before);
    file->insertAction(before, m_exportFigure);
    file->insertAction(before, figure.copy);
    file->insertAction(before, figure.data);
    file->insertSeparator(before);
    file->setToolTipsVisible(true);
}

// The window's File menu, made when it has none.
QMenu *FileActions::fileMenu() const
{
    QMenu *file = nullptr;
    const QList<QAction *> menus = m_window->menuBar()->actions();
    for (QAction *action : menus)
        if (action->menu() && action->text().remove(QLatin1Char('&')) == tr("File"))
            file = action->menu();
    if (!file)
        file = m_window->menuBar()->addMenu(tr("&File"));
    return file;
}

// Open, save and save as; the recent sessions menu (m_recentMenu).
FileActions::SessionActions FileActions::createSessionActions()
{
    auto *open = new QAction(tr("&Open session…"), this);
    open->setObjectName(QStringLiteral("openSessionAction"));
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Restore every parameter, phrase and view option from a session file"));
    connect(open, &QAction::triggered, this, [this] {
        const QString path = openFileName(m_window, tr("Open session"),
                                          m_sessionPath.isEmpty() ? QDir::homePath()
                                                                  : QFileInfo(m_sessionPath).path(),
                                          sessionFileFilter());
        QString error;
        if (!path.isEmpty() && !openSession(path, &error))
            report(error, true, tr("Open session"));
    });

    m_recentMenu = new QMenu(tr("&Recent sessions"), m_window);
    m_recentMenu->setObjectName(QStringLiteral("recentSessionsMenu"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &FileActions::rebuildRecentMenu);
    rebuildRecentMenu();

    auto *save = new QAction(tr("&Save session"), this);
    save->setObjectName(QStringLiteral("saveSessionAction"));
    save->setShortcut(QKeySequence::Save);
    auto *saveAs = new QAction(tr("Save session &as…"), this);
    saveAs->setObjectName(QStringLiteral("saveSessionAsAction"));
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    const auto saveTo = [this](bool ask) {
        QString path = m_sessionPath;
        if (ask || path.isEmpty()) {
            const QString folder =
                QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
            path = saveFileName(m_window, tr("Save session"),
                                path.isEmpty()
                                    ? QDir(folder).filePath(QStringLiteral("session.pescope.json"))
                                    : path,
                                sessionFileFilter());
            if (path.isEmpty())
                return;
            if (QFileInfo(path).suffix().isEmpty())
                path += QStringLiteral(".pescope.json"); // the MIME type's glob
        }
        QString error;
        if (!saveSession(path, &error))
            report(error, true, tr("Save session"));
    };
    connect(save, &QAction::triggered, this, [saveTo] { saveTo(false); });
    connect(saveAs, &QAction::triggered, this, [saveTo] { saveTo(true); });
    return {open, save, saveAs};
}

// Export figure (m_exportFigure), copy figure, export data.
FileActions::FigureActions FileActions::createFigureActions()
{
    m_exportFigure = new QAction(tr("&Export figure…"), this);
    m_exportFigure->setObjectName(QStringLiteral("exportFigureAction"));
    m_exportFigure->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportFigure->setToolTip(
        tr("%1 of the current or a chosen view (Ctrl+E)").arg(outputLabelList(OutputKind::Figure)));
    connect(m_exportFigure, &QAction::triggered, this, [this] {
        ExportDialog *dialog = exportDialog();
        dialog->show();
        dialog->raise();
        dialog->activateWindow();
    });

    auto *copy = new QAction(tr("&Copy figure"), this);
    copy->setObjectName(QStringLiteral("copyFigureAction"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    copy->setToolTip(tr("The current view as an image (and SVG) on the clipboard"));
    connect(copy, &QAction::triggered, this, [this] {
        QString error;
        if (!copyFigure(&error))
            report(error, true);
    });

    auto *data = new QAction(tr("Export &data of the current view…"), this);
    data->setObjectName(QStringLiteral("exportDataAction"));
    data->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    data->setToolTip(tr("The heatmap's matrix or the phrase embeddings as .npy or .csv"));
    connect(data, &QAction::triggered, this, [this] {
        const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        QString selected;
        QString path = saveFileName(
            m_window, tr("Export data (%1)").arg(viewDataDescription(currentDataView())),
            QDir(folder).filePath(figureViewName(currentDataView()) + QStringLiteral(".npy")),
            tr("NumPy array (*.npy);;CSV (*.csv)"), &selected);
        if (path.isEmpty())
            return;
        if (QFileInfo(path).suffix().isEmpty())
            path += selected.contains(QLatin1String("csv")) ? QStringLiteral(".csv")
                                                            : QStringLiteral(".npy");
        QString error;
        if (!exportCurrentData(path, &error))
            report(error, true, tr("Export data"));
    });
    return {copy, data};
}

// Open model, open from the cache, paste config.json; the recent models menu
// (m_recentModelsMenu).
FileActions::ModelActions FileActions::createModelActions()
{
    auto *openModelAction = new QAction(tr("Open &model…"), this);
    openModelAction->setObjectName(QStringLiteral("openModelAction"));
    openModelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openModelAction->setToolTip(
        tr("A model's positions, from files you have: its learned table (GPT-2's wpe) or its "
           "first rotary layer's RoPE (a model folder, config.json, .safetensors, .gguf, .npy)"));
    connect(openModelAction, &QAction::triggered, this, [this] {
        // A file or a model folder, typed or chosen.
        ModelFileDialog dialog(m_window, QDir::homePath());
        if (dialog.exec() == QDialog::Accepted && !dialog.chosenPath().isEmpty())
            openModel(dialog.chosenPath(), true);
    });

    auto *pasteConfig = new QAction(tr("&Paste config.json…"), this);
    pasteConfig->setObjectName(QStringLiteral("pasteConfigAction"));
    pasteConfig->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    pasteConfig->setToolTip(tr("A model's config.json as text: its first rotary layer's RoPE, "
                               "with every scaling field, and its layer map"));
    connect(pasteConfig, &QAction::triggered, this, [this] {
        // One dialog, kept: deleted on close, it could go while its own text edit was still
        // inside a nested loop (a drag of the selected text runs QDrag::exec), and the edit then
        // read its freed self (the monkey test's SIGSEGV in QPlainTextEdit::mouseMoveEvent).
        if (!m_configPaste) {
            m_configPaste = new ConfigPasteDialog(
                [this](QByteArrayView text, QString *error) {
                    return applyModelConfigText(m_window, text, error);
                },
                m_window);
            connect(m_configPaste, &QDialog::accepted, this,
                    [this] { report(tr("Applied the pasted config.json"), false); });
        }
        m_configPaste->prepare();
        m_configPaste->open();
    });

    auto *cachedModel = new QAction(tr("Open model from the &cache…"), this);
    cachedModel->setObjectName(QStringLiteral("openCachedModelAction"));
    cachedModel->setToolTip(tr("Pick one of the models in the Hugging Face cache (%1)")
                                .arg(QDir::toNativeSeparators(HfCache::defaultHubPath())));
    connect(cachedModel, &QAction::triggered, this, &FileActions::openCachedModel);
    m_recentModelsMenu = new QMenu(tr("Recent &models"), m_window);
    m_recentModelsMenu->setObjectName(QStringLiteral("recentModelsMenu"));
    connect(m_recentModelsMenu, &QMenu::aboutToShow, this, &FileActions::rebuildRecentModelsMenu);
    rebuildRecentModelsMenu();
    return {openModelAction, cachedModel, pasteConfig};
}

void FileActions::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = recentSessions();
    int index = 1;
    for (const QString &path : recent) {
        QAction *action = m_recentMenu->addAction(
            QStringLiteral("&%1 %2").arg(index++).arg(QFileInfo(path).fileName()));
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setData(path);
        connect(action, &QAction::triggered, this, [this, path] {
            QString error;
            if (!openSession(path, &error)) {
                if (!QFileInfo::exists(path))
                    removeRecentSession(path);
                report(error, true, tr("Open session"));
            }
        });
    }
    if (recent.isEmpty())
        m_recentMenu->addAction(tr("No recent sessions"))->setEnabled(false);
    m_recentMenu->addSeparator();
    QAction *clear =
        m_recentMenu->addAction(tr("&Clear list"), this, [] { clearRecentSessions(); });
    clear->setEnabled(!recent.isEmpty());
    m_recentMenu->setToolTipsVisible(true);
}

std::unique_ptr<QSettings> FileActions::recentSettings() const
{
    return m_window->settings();
}

QStringList FileActions::recentModels() const
{
    return pe::recentModels(recentSettings().get());
}

void FileActions::rebuildRecentModelsMenu()
{
    m_recentModelsMenu->clear();
    const QStringList recent = recentModels();
    int index = 1;
    for (const QString &source : recent) {
        const QString name =
            looksLikePath(source) ? QFileInfo(source).fileName() : source; // a repo id whole
        QAction *action = m_recentModelsMenu->addAction(QStringLiteral("&%1 %2").arg(index++).arg(
            name.isEmpty() ? QDir::toNativeSeparators(source) : name));
        action->setToolTip(QDir::toNativeSeparators(source));
        action->setData(source);
        connect(action, &QAction::triggered, this, [this, source] { openRecentModel(source); });
    }
    if (recent.isEmpty())
        m_recentModelsMenu->addAction(tr("No recent models"))->setEnabled(false);
    m_recentModelsMenu->addSeparator();
    QAction *clear = m_recentModelsMenu->addAction(
        tr("&Clear list"), this, [this] { recentSettings()->remove(recentModelsKey); });
    clear->setEnabled(!recent.isEmpty());
    m_recentModelsMenu->setToolTipsVisible(true);
}

void FileActions::openRecentModel(const QString &source)
{
    if (looksLikePath(source) && !QFileInfo::exists(source)) {
        removeRecentModel(recentSettings().get(), source);
        report(tr("%1 no longer exists; it was removed from Recent models")
                   .arg(QDir::toNativeSeparators(source)),
               true, tr("Open model"));
        emit modelOpened(tr("%1 no longer exists").arg(source));
        return;
    }
    openModel(source, true);
}

void FileActions::openCachedModel()
{
    const HfCache cache;
    QStringList ids;
    for (const CachedModel &model : cache.models())
        ids.append(model.repoId);
    if (ids.isEmpty()) {
        report(tr("The Hugging Face cache (%1) holds no models")
                   .arg(QDir::toNativeSeparators(cache.hubPath())),
               true, tr("Open model from the cache"));
        return;
    }
    bool ok = false;
    const QString id = QInputDialog::getItem(
        m_window, tr("Open model from the cache"),
        tr("Models in %1:").arg(QDir::toNativeSeparators(cache.hubPath())), ids, 0, false, &ok);
    if (ok && !id.isEmpty())
        openModel(id, true);
}

QAction *FileActions::checkEngineTableAction()
{
    auto *action = new QAction(tr("Chec&k engine table…"), this);
    action->setObjectName(QStringLiteral("checkEngineTableAction"));
    action->setToolTip(tr("An inference engine's RoPE numbers (.npy, a .safetensors tensor, a "
                          "GGUF file's rope_freqs) against Hugging Face's for the rotary layer "
                          "the window shows: the error per position and pair, the verdict, the "
                          "mistake it matches"));
    connect(action, &QAction::triggered, this, [this] {
        // What must be open first is said before a file is asked for (issue 38): no table can
        // be checked without a rotary layer to check it against.
        QString error;
        if (!EngineCheckDialog::requestFor(*m_window->state(), QString(), &error)) {
            report(error, true, tr("Check engine table"));
            return;
        }
        const QString path =
            openFileName(m_window, tr("Check engine table"), QDir::homePath(),
                         tr("Engine tables (*.npy *.safetensors *.gguf);;All files (*)"));
        if (!path.isEmpty())
            checkEngineTable(path);
    });
    return action;
}

EngineCheckDialog *FileActions::checkEngineTable(const QString &against)
{
    if (!m_engineCheck)
        m_engineCheck = new EngineCheckDialog(m_window->state(), m_window->scheduler(), m_window);
    QString error;
    if (!m_engineCheck->check(against, &error)) {
        report(error, true, tr("Check engine table"));
        return nullptr;
    }
    m_engineCheck->show();
    m_engineCheck->raise();
    return m_engineCheck;
}

bool FileActions::isEngineTableDrop(const QString &path) const
{
    // A dump, not a model: a tensor file without config.json beside it and no larger than the
    // largest table compared, dropped while the window shows a rotary layer to check it against.
    const QFileInfo info(path);
    static const QStringList suffixes{QStringLiteral("npy"), QStringLiteral("safetensors"),
                                      QStringLiteral("gguf")};
    return m_window->state()->spec().get<RopeScheme>() && info.isFile() &&
           suffixes.contains(info.suffix().toLower()) &&
           !QFileInfo::exists(info.dir().filePath(QStringLiteral("config.json"))) &&
           info.size() <= maxRopeCandidateValues * qint64(sizeof(double)) + (qint64(1) << 20);
}

bool FileActions::canOpenDropped(const QList<QUrl> &urls)
{
    return std::any_of(urls.begin(), urls.end(), [](const QUrl &url) {
        if (!url.isLocalFile())
            return false;
        const QFileInfo info(url.toLocalFile());
        static const QStringList suffixes{QStringLiteral("json"), QStringLiteral("safetensors"),
                                          QStringLiteral("gguf"), QStringLiteral("npy")};
        return info.isDir() || suffixes.contains(info.suffix().toLower());
    });
}

bool FileActions::openDropped(const QList<QUrl> &urls)
{
    for (const QUrl &url : urls) {
        if (!canOpenDropped({url}))
            continue;
        const QString path = url.toLocalFile();
        if (isEngineTableDrop(path)) {
            checkEngineTable(path);
        } else if (isSessionFile(path)) {
            QString error;
            if (!openSession(path, &error))
                report(error, true, tr("Open session"));
        } else {
            openModel(path, true);
        }
        return true; // one at a time: each replaces the window's encoding
    }
    return false;
}

bool FileActions::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window) {
        if (event->type() == QEvent::DragEnter) {
            auto *drag = static_cast<QDragEnterEvent *>(event);
            if (drag->mimeData()->hasUrls() && canOpenDropped(drag->mimeData()->urls())) {
                drag->acceptProposedAction();
                return true;
            }
        } else if (event->type() == QEvent::Drop) {
            auto *drop = static_cast<QDropEvent *>(event);
            if (drop->mimeData()->hasUrls() && openDropped(drop->mimeData()->urls())) {
                drop->acceptProposedAction();
                return true;
            }
        }
    }
    return QObject::eventFilter(watched, event);
}

bool FileActions::openSession(const QString &path, QString *error)
{
    const std::optional<QJsonObject> json = readSessionFile(path, error);
    if (!json)
        return false;
    // A spec naming a model's table: the table is read on the scheduler's worker first.
    std::optional<ExplorerState::LoadedSpec> loaded;
    if (const std::optional<EncodingSpec> spec = ExplorerState::parsedSpec(*json);
        spec && spec->readsFiles()) {
        QString readError;
        std::optional<EncodingSpec> read = readSpecFiles(*spec, &readError);
        if (!read) {
            *error = QStringLiteral("%1: spec: %2").arg(QDir::toNativeSeparators(path), readError);
            return false;
        }
        loaded = ExplorerState::LoadedSpec{*spec, std::move(*read)};
    }
    if (!applySession(path, *json, m_window->state(), error, loaded ? &*loaded : nullptr))
        return false;
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    addRecentSession(m_sessionPath);
    m_window->setSessionFile(m_sessionPath);
    report(tr("Opened session %1").arg(QDir::toNativeSeparators(path)), false);
    return true;
}

bool FileActions::saveSession(const QString &path, QString *error)
{
    if (!pe::saveSession(*m_window->state(), path, error))
        return false;
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    addRecentSession(m_sessionPath);
    m_window->setSessionFile(m_sessionPath);
    report(tr("Saved session %1").arg(QDir::toNativeSeparators(path)), false);
    return true;
}

QList<FigureView> FileActions::currentViews() const
{
    if (m_window->state()->page() == Page::Model)
        return {m_window->modelPage()->currentView()};
    if (m_window->state()->page() == Page::Schemes)
        return {m_window->state()->schemeSettings().view};
    if (const ModelPhraseView *model = modelPhrases())
        return {model->currentView()};
    if (m_window->state()->page() == Page::Phrases)
        return {FigureView::Phrases};
    return {FigureView::Waves, FigureView::Heatmap};
}

const ModelPhraseView *FileActions::modelPhrases() const
{
    if (m_window->state()->page() != Page::Phrases ||
        m_window->state()->phraseSource().tokenizer != PhraseTokenizer::Model)
        return nullptr;
    return m_window->findChild<ModelPhraseView *>();
}

ViewChoices FileActions::currentChoices() const
{
    const ModelPhraseView *model = modelPhrases();
    return model ? model->choices() : ViewChoices{};
}

QSize FileActions::currentViewSize() const
{
    if (m_window->state()->page() == Page::Model)
        return m_window->modelPage()->currentPlot()->size();
    if (m_window->state()->page() == Page::Schemes)
        return m_window->schemePage()->currentPlot()->size();
    // Tokens alone (no weights) have no figure tab: the tokens view at the page's size.
    if (const ModelPhraseView *model = modelPhrases())
        return model->currentPlot() ? model->currentPlot()->size() : model->size();
    if (m_window->state()->page() == Page::Phrases)
        return m_window->phraseView()->gridPlot()->size();
    const QSize waves = m_window->wavesView()->plot()->size();
    const QSize heat = m_window->heatmapView()->plot()->size();
    return {qMax(waves.width(), heat.width()), waves.height() + heat.height()};
}

FigureData FileActions::currentData(const QList<FigureView> &views) const
{
    return m_window->scheduler()->figureData(views);
}

QImage FileActions::currentFigure(QString *error) const
{
    FigureOptions options;
    options.views = currentViews();
    options.choices = currentChoices();
    options.style = m_window->state()->figureStyle();
    const FigureData data = currentData(options.views);
    if (!figureDataMatches(*m_window->state(), options.views, data)) {
        *error = tr("the figure is still being computed; try again in a moment");
        return {};
    }
    const QSize size = currentViewSize();
    options.width = qBound(figurelimits::minSide, size.width(), figurelimits::maxSide);
    options.height = qBound(figurelimits::minSide, size.height(), figurelimits::maxSide);
    return FigureExporter(*m_window->state(), data, options).renderImage(error);
}

bool FileActions::copyFigure(QString *error)
{
    const QImage image = currentFigure(error);
    if (image.isNull())
        return false;
    QApplication::clipboard()->setImage(image);
    report(
        tr("Copied the figure (%1 × %2) to the clipboard").arg(image.width()).arg(image.height()),
        false);
    return true;
}

FigureView FileActions::currentDataView() const
{
    if (m_window->state()->page() == Page::Model)
        return m_window->modelPage()->currentView();
    if (const ModelPhraseView *model = modelPhrases())
        return model->currentView();
    return m_window->state()->page() == Page::Phrases ? FigureView::Phrases : FigureView::Heatmap;
}

bool FileActions::exportCurrentData(const QString &path, QString *error)
{
    const FigureView view = currentDataView();
    const FigureData data = currentData({view});
    if (!figureDataMatches(*m_window->state(), {view}, data)) {
        *error = tr("the data is still being computed; try again in a moment");
        return false;
    }
    if (!writeViewData(*m_window->state(), data, view, path, error, currentChoices()))
        return false;
    report(tr("Exported %1 data to %2").arg(figureViewName(view), QDir::toNativeSeparators(path)),
           false);
    return true;
}

ExportDialog *FileActions::exportDialog()
{
    if (!m_dialog) {
        m_dialog = new ExportDialog(m_window->state(), m_window->scheduler(), m_window);
        m_dialog->setAttribute(Qt::WA_DeleteOnClose, false);
        connect(m_dialog, &ExportDialog::exported, this, [this](const QString &path) {
            report(tr("Exported %1").arg(QDir::toNativeSeparators(path)), false);
        });
        // The figure's look is part of the session: kept when the dialog closes.
        connect(m_dialog, &QDialog::finished, this,
                [this] { m_window->state()->setFigureStyle(m_dialog->options().style); });
    }
    // Opens on the view the window shows, at the size it has on screen.
    FigureOptions options = m_dialog->options();
    options.views = currentViews();
    options.choices = currentChoices();
    options.style = m_window->state()->figureStyle();
    const QSize size = currentViewSize();
    if (size.width() >= figurelimits::minSide && size.height() >= figurelimits::minSide) {
        // A remembered MP4 or WebM takes even sides: the view's 951 x 541 would be refused at
        // once (issue 38).
        const qint64 step = m_dialog->needsEvenSides() ? 2 : 1;
        options.width = size.width() / step * step;
        options.height = size.height() / step * step;
    }
    m_dialog->setOptions(options);
    // A new name each time: the last export's file is never offered to be overwritten.
    m_dialog->useFreshPath();
    return m_dialog;
}

void FileActions::exportAnimation(const QList<FigureView> &views, const AnimationOptions &animation)
{
    ExportDialog *dialog = exportDialog();
    FigureOptions options = dialog->options();
    // The view on screen, which exportDialog() chose; the Motion bar's page view only where
    // the dialog cannot offer that one. With the model's tokenizer on the Phrases page the bar
    // named the tutorial's phrases while the model's attention was shown (issue 46).
    if (options.views != currentViews())
        options.views = views;
    // A common video size (even sides, as MP4 and WebM need), at the still's font scale.
    options.width = 1280;
    options.height = 720;
    dialog->setOptions(options);
    dialog->setAnimation(animation);
    dialog->useFreshPath(); // the animation's format
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

void FileActions::report(const QString &text, bool error, const QString &title)
{
    emit message(text);
    if (error && !title.isEmpty())
        QMessageBox::warning(m_window, title, text);
}

void FileActions::openModel(const QString &source, bool interactive)
{
    emit message(tr("Opening %1…").arg(QDir::toNativeSeparators(source)));
    // The files are read on the scheduler's worker (a table can be hundreds of MB); the state
    // changes here, when they are (onModelRead).
    ModelReadRequest request;
    // A tokenizer.json in a model folder opens the model it belongs to.
    request.source = PhraseModel::modelOfTokenizerFile(source);
    m_opening = {m_window->scheduler()->requestModelRead(request), request.source, interactive};
}

bool FileActions::showTokenizerAlone(const QString &source)
{
    // The Phrases page with the model's own tokenizer: a tokenizer has no layer map, so the
    // encoding and the Model page stay as they were.
    ExplorerState *state = m_window->state();
    return state->asOneStep(tr("Open tokenizer %1").arg(modelName(source)), [&] {
        PhraseSource phrases = state->phraseSource();
        phrases.model = phraseModelPath(source);
        phrases.tokenizer = PhraseTokenizer::Model;
        if (!state->setPhraseSource(phrases))
            return false;
        state->setPage(Page::Phrases);
        return true;
    });
}

void FileActions::onModelRead(quint64 ticket, const std::shared_ptr<const ModelRead> &read)
{
    if (ticket != m_opening.ticket) // tickets are unique across every kind of read
        return;
    const PendingOpen open = std::exchange(m_opening, {});
    QString problem = read->error;
    if (!read->tokenizerAlone.isEmpty()) {
        if (!showTokenizerAlone(open.source)) {
            problem = tr("%1 could not be shown on the Phrases page")
                          .arg(QDir::toNativeSeparators(read->tokenizerAlone));
            report(problem, true, open.interactive ? tr("Open model") : QString());
        } else {
            if (m_window->isPersistent())
                addRecentModel(recentSettings().get(), open.source);
            report(tr("Opened the tokenizer %1 on the Phrases page: its tokens only, without "
                      "the model's weights")
                       .arg(QDir::toNativeSeparators(read->tokenizerAlone)),
                   false);
        }
        emit modelOpened(problem);
        return;
    }
    ExplorerState *state = m_window->state();
    // The spec and the layer chosen below are one step; undo restores the encoding the window
    // showed before.
    const auto show = [&] {
        if (!state->setSpec(read->opened->spec, &problem))
            return false;
        setPhraseModel(state, open.source);
        if (read->card)
            m_window->modelPage()->setCard(read->card);
        if (read->opened->layer >= 0)
            m_window->modelPage()->layerTable()->selectRow(read->opened->layer);
        return true;
    };
    if (read->opened && state->asOneStep(tr("Open model %1").arg(modelName(open.source)), show)) {
        problem.clear();
        if (m_window->isPersistent())
            addRecentModel(recentSettings().get(), open.source);
        report(tr("Opened %1").arg(read->opened->description), false);
    } else {
        report(problem, true, open.interactive ? tr("Open model") : QString());
    }
    emit modelOpened(problem);
}

std::optional<EncodingSpec> FileActions::readSpecFiles(const EncodingSpec &spec, QString *error)
{
    ModelReadRequest request;
    request.kind = ModelReadRequest::Kind::Spec;
    request.spec = spec;
    ComputeScheduler *scheduler = m_window->scheduler();
    const quint64 ticket = scheduler->requestModelRead(request);
    std::shared_ptr<const ModelRead> read;
    QEventLoop loop;
    connect(scheduler, &ComputeScheduler::modelReadReady, &loop,
            [&](quint64 answered, const std::shared_ptr<const ModelRead> &answer) {
                if (answered == ticket) {
                    read = answer;
                    loop.quit();
                }
            });
    connect(scheduler, &ComputeScheduler::cancelled, &loop, &QEventLoop::quit);
    // The window waits, its input held by the dialog once a read takes long enough to notice.
    QProgressDialog progress(tr("Reading the model the session names…"), tr("Cancel"), 0, 0,
                             m_window);
    progress.setWindowTitle(tr("Open session"));
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    connect(&progress, &QProgressDialog::canceled, scheduler, &ComputeScheduler::cancel);
    progress.setValue(0);
    loop.exec();
    if (!read) {
        *error = tr("reading the model was cancelled");
        return std::nullopt;
    }
    if (!read->resolved)
        *error = read->error;
    return read->resolved;
}

void FileActions::onComputeCancelled()
{
    // Esc or Cancel stopped the read: the window stays as it was, and says so.
    if (m_opening.ticket == 0)
        return;
    const PendingOpen open = std::exchange(m_opening, {});
    const QString problem =
        tr("Opening %1 was cancelled").arg(QDir::toNativeSeparators(open.source));
    report(problem, false);
    emit modelOpened(problem);
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

namespace {
const QString pastedName = QStringLiteral("the pasted config.json");
} // namespace

bool applyModelConfigText(MainWindow *window, QByteArrayView text, QString *error)
{
    const std::optional<ModelConfig> config = parseHfConfigText(text, pastedName, error);
    if (!config)
        return false;
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(*config, -1, error);
    if (!spec)
        return false;
    return window->state()->asOneStep(QStringLiteral("Paste config.json"), [&] {
        if (!window->state()->setSpec(spec->spec, error))
            return false;
        auto card = std::make_shared<ModelCard>();
        card->source = pastedName;
        card->config = config;
        window->modelPage()->setCard(card);
        if (spec->layer >= 0)
            window->modelPage()->layerTable()->selectRow(spec->layer);
        return true;
    });
}

} // namespace pe
