// FileActions: the explorer window's files. Open / Save session and Recent sessions; Open model,
// from the cache and Recent models; files dropped onto the window. MainWindow puts the actions
// in its File menu; what this needs of the window comes in a FileHost.
#pragma once

#include "encodingspec.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QMenu;
class QSettings;
class QUrl;
class QWidget;

namespace pe {

class ComputeScheduler;
class EngineCheckActions;
class ExplorerState;
struct ModelRead;
class ModelPage;

// What FileActions needs of the window.
struct FileHost
{
    ExplorerState *state = nullptr;
    ComputeScheduler *scheduler = nullptr;
    // An opened model's card and layer.
    ModelPage *modelPage = nullptr;
    // Where a dropped engine table goes; null: drops open as models.
    EngineCheckActions *engineCheck = nullptr;
    // The settings that keep the recent models; written only when `persistent`.
    std::function<std::unique_ptr<QSettings>()> settings{};
    bool persistent = false;
};

class FileActions : public QObject
{
    Q_OBJECT
public:
    // `window`: the dialogs' parent, where drops open, and this object's owner.
    FileActions(const FileHost &host, QWidget *window);
    static FileActions *of(const QObject *window);

    // Each returns false with *error and leaves the window's state as it was.
    bool openSession(const QString &path, QString *error);
    bool saveSession(const QString &path, QString *error);
    // Reads a model (folder, file or cached repo id) in the background and shows its positions:
    // its learned table, or its first rotary layer; modelOpened() says how it went. Errors go
    // to the status bar, and to a dialog when `interactive`. A tokenizer alone (a tokenizer.json
    // without config.json and weights beside it, or a folder holding only it) has no positions:
    // it becomes the Phrases page's model, its tokens shown without the figures.
    void openModel(const QString &source, bool interactive = false);
    // The file the last open or save used; empty for a new session.
    QString sessionPath() const { return m_sessionPath; }

    // The File menu's entries, in menu order where MainWindow puts them.
    QAction *openSessionAction() const { return m_openSession; }
    QMenu *recentMenu() const { return m_recentMenu; }
    QAction *openModelAction() const { return m_openModel; }
    QAction *openCachedModelAction() const { return m_openCached; }
    QMenu *recentModelsMenu() const { return m_recentModelsMenu; }
    QAction *saveSessionAction() const { return m_saveSession; }
    QAction *saveSessionAsAction() const { return m_saveSessionAs; }
    // File > Recent models: the last 8 models opened, newest first (paths absolute, repo ids as
    // given), kept in the window's settings.
    QStringList recentModels() const;
    // Opens a recent model; one that no longer exists gives a message and leaves the list.
    void openRecentModel(const QString &source);
    // File > Open model from the cache: the Hugging Face cache's models to pick from.
    void openCachedModel();
    // Dropped URLs: a session file opens as a session, an engine table (see
    // EngineCheckActions::isEngineTableDrop) in the engine check, anything else as a model (a
    // folder, config.json, .safetensors, .gguf, .npy). False when nothing in `urls` can be opened.
    static bool canOpenDropped(const QList<QUrl> &urls);
    bool openDropped(const QList<QUrl> &urls);

signals:
    // A one-line outcome for the status bar ("Saved …", "Cannot open …").
    void message(const QString &text);
    // After openModel(): empty when the window shows the model, else why not.
    void modelOpened(const QString &error);
    // A session was opened or saved: the file the window shows now (its title, Save).
    void sessionFileChanged(const QString &path);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // A tokenizer alone, opened: the Phrases page with the model's own tokenizer, as one undo
    // step; false when the state refused it.
    bool showTokenizerAlone(const QString &source);

    std::unique_ptr<QSettings> recentSettings() const;
    void rebuildRecentModelsMenu();
    void createSessionActions();
    void createModelActions();
    void rebuildRecentMenu();
    void report(const QString &text, bool error, const QString &title = QString());
    void onModelRead(quint64 ticket, const std::shared_ptr<const ModelRead> &read);
    void onComputeCancelled();
    // The files `spec` names (a model's table), read on the scheduler's worker while the window
    // waits (a progress dialog, which can cancel, once it takes 300 ms); nothing with *error.
    std::optional<EncodingSpec> readSpecFiles(const EncodingSpec &spec, QString *error);

    FileHost m_host;
    QWidget *m_window;
    // The model openModel() asked the scheduler to read (ticket 0: none).
    struct PendingOpen
    {
        quint64 ticket = 0;
        QString source;
        bool interactive = false;
    };
    PendingOpen m_opening;
    QString m_sessionPath;
    QAction *m_openSession = nullptr;
    QAction *m_saveSession = nullptr;
    QAction *m_saveSessionAs = nullptr;
    QAction *m_openModel = nullptr;
    QAction *m_openCached = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_recentModelsMenu = nullptr;
};

// The recent models list in `settings` (newest first, at most 8).
QStringList recentModels(QSettings *settings);
void addRecentModel(QSettings *settings, const QString &source);
void removeRecentModel(QSettings *settings, const QString &source);

} // namespace pe
