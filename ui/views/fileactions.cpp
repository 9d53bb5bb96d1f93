#include "views/fileactions.h"

#include "compute/computescheduler.h"
#include "compute/phrasemodeldata.h"
#include "dialogs/filedialog.h"
#include "dialogs/modelfiledialog.h"
#include "formats/hfcache.h"
#include "model/modelcard.h"
#include "state/sessionfile.h"
#include "views/enginecheckactions.h"
#include "views/modelpage.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEventLoop>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QUrl>

#include <algorithm>
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

FileActions::FileActions(const FileHost &host, QWidget *window)
    : QObject(window), m_host(host), m_window(window)
{
    setObjectName(QStringLiteral("fileActions"));
    connect(m_host.scheduler, &ComputeScheduler::modelReadReady, this, &FileActions::onModelRead);
    connect(m_host.scheduler, &ComputeScheduler::cancelled, this, &FileActions::onComputeCancelled);
    createSessionActions();
    createModelActions();
    // Model folders and files (and session files) dropped onto the window open.
    window->setAcceptDrops(true);
    window->installEventFilter(this);
}

FileActions *FileActions::of(const QObject *window)
{
    return window->findChild<FileActions *>(QStringLiteral("fileActions"),
                                            Qt::FindDirectChildrenOnly);
}

// Open, save and save as; the recent sessions menu (m_recentMenu).
void FileActions::createSessionActions()
{
    auto *open = m_openSession = new QAction(tr("&Open session…"), this);
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

    auto *save = m_saveSession = new QAction(tr("&Save session"), this);
    save->setObjectName(QStringLiteral("saveSessionAction"));
    save->setShortcut(QKeySequence::Save);
    auto *saveAs = m_saveSessionAs = new QAction(tr("Save session &as…"), this);
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
}

// Open model, open from the cache; the recent models menu (m_recentModelsMenu).
void FileActions::createModelActions()
{
    auto *openModelAction = m_openModel = new QAction(tr("Open &model…"), this);
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

    auto *cachedModel = m_openCached = new QAction(tr("Open model from the &cache…"), this);
    cachedModel->setObjectName(QStringLiteral("openCachedModelAction"));
    cachedModel->setToolTip(tr("Pick one of the models in the Hugging Face cache (%1)")
                                .arg(QDir::toNativeSeparators(HfCache::defaultHubPath())));
    connect(cachedModel, &QAction::triggered, this, &FileActions::openCachedModel);
    m_recentModelsMenu = new QMenu(tr("Recent &models"), m_window);
    m_recentModelsMenu->setObjectName(QStringLiteral("recentModelsMenu"));
    connect(m_recentModelsMenu, &QMenu::aboutToShow, this, &FileActions::rebuildRecentModelsMenu);
    rebuildRecentModelsMenu();
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
    return m_host.settings();
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
        if (m_host.engineCheck && m_host.engineCheck->isEngineTableDrop(path)) {
            m_host.engineCheck->checkEngineTable(path);
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
    if (!applySession(path, *json, m_host.state, error, loaded ? &*loaded : nullptr))
        return false;
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    addRecentSession(m_sessionPath);
    emit sessionFileChanged(m_sessionPath);
    report(tr("Opened session %1").arg(QDir::toNativeSeparators(path)), false);
    return true;
}

bool FileActions::saveSession(const QString &path, QString *error)
{
    if (!pe::saveSession(*m_host.state, path, error))
        return false;
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    addRecentSession(m_sessionPath);
    emit sessionFileChanged(m_sessionPath);
    report(tr("Saved session %1").arg(QDir::toNativeSeparators(path)), false);
    return true;
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
    m_opening = {m_host.scheduler->requestModelRead(request), request.source, interactive};
}

bool FileActions::showTokenizerAlone(const QString &source)
{
    // The Phrases page with the model's own tokenizer: a tokenizer has no layer map, so the
    // encoding and the Model page stay as they were.
    ExplorerState *state = m_host.state;
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
            if (m_host.persistent)
                addRecentModel(recentSettings().get(), open.source);
            report(tr("Opened the tokenizer %1 on the Phrases page: its tokens only, without "
                      "the model's weights")
                       .arg(QDir::toNativeSeparators(read->tokenizerAlone)),
                   false);
        }
        emit modelOpened(problem);
        return;
    }
    ExplorerState *state = m_host.state;
    // The spec and the layer chosen below are one step; undo restores the encoding the window
    // showed before.
    const auto show = [&] {
        if (!state->setSpec(read->opened->spec, &problem))
            return false;
        setPhraseModel(state, open.source);
        if (read->card)
            m_host.modelPage->setCard(read->card);
        if (read->opened->layer >= 0)
            m_host.modelPage->layerTable()->selectRow(read->opened->layer);
        return true;
    };
    if (read->opened && state->asOneStep(tr("Open model %1").arg(modelName(open.source)), show)) {
        problem.clear();
        if (m_host.persistent)
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
    ComputeScheduler *scheduler = m_host.scheduler;
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

} // namespace pe
