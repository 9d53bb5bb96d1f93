// FileActions: the explorer window's File menu for teaching material: Open / Save session,
// Recent sessions, Export figure (Ctrl+E), Copy figure, Export data of the current view. Lives in
// its own unit; MainWindow installs it with one call.
#pragma once

#include "figures/figureanimation.h"
#include "figures/figureexporter.h"

#include <QByteArrayView>
#include <QImage>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>
#include <optional>

class QAction;
class QMenu;
class QSettings;
class QUrl;

namespace pe {

class ConfigPasteDialog;
class EngineCheckDialog;
struct ModelRead;
class ExportDialog;
class MainWindow;
class ModelPhraseView;

class FileActions : public QObject
{
    Q_OBJECT
public:
    // Adds the actions to the window's File menu (before Quit) and returns the owner, a child
    // of the window.
    static FileActions *install(MainWindow *window);
    static FileActions *of(const MainWindow *window);

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

    // What the window shows: waves over heatmap on the encoding page, the phrase grid on the
    // phrases page; and its size on screen.
    QList<FigureView> currentViews() const;
    QSize currentViewSize() const;
    // The current view as the window shows it, at its size on screen.
    QImage currentFigure(QString *error) const;
    bool copyFigure(QString *error);
    // The heatmap's matrix (encoding page) or the phrase embeddings (phrases page).
    FigureView currentDataView() const;
    bool exportCurrentData(const QString &path, QString *error);

    ExportDialog *exportDialog();
    // File > Export figure preset to an animation of `views` (the Motion bar's Export…).
    void exportAnimation(const QList<FigureView> &views, const AnimationOptions &animation);
    QMenu *recentMenu() const { return m_recentMenu; }
    QMenu *recentModelsMenu() const { return m_recentModelsMenu; }
    // File > Recent models: the last 8 models opened, newest first (paths absolute, repo ids as
    // given), kept in the window's settings.
    QStringList recentModels() const;
    // Opens a recent model; one that no longer exists gives a message and leaves the list.
    void openRecentModel(const QString &source);
    // File > Open model from the cache: the Hugging Face cache's models to pick from.
    void openCachedModel();
    // Dropped URLs: a session file opens as a session, anything else as a model (a folder,
    // config.json, .safetensors, .gguf, .npy). False when nothing in `urls` can be opened.
    static bool canOpenDropped(const QList<QUrl> &urls);
    bool openDropped(const QList<QUrl> &urls);
    // File > Check engine table…, and a tensor file dropped while a rotary layer is shown (see
    // isEngineTableDrop): checks `against` (FILE or FILE:TENSOR) in the engine-check dialog.
    // Null, with a message, when the window shows no rotary layer.
    EngineCheckDialog *checkEngineTable(const QString &against);
    bool isEngineTableDrop(const QString &path) const;
    QAction *exportFigureAction() const { return m_exportFigure; }

signals:
    // A one-line outcome for the status bar ("Saved …", "Cannot open …").
    void message(const QString &text);
    // After openModel(): empty when the window shows the model, else why not.
    void modelOpened(const QString &error);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // The Phrases page's model figures when they are shown, else null.
    const ModelPhraseView *modelPhrases() const;
    ViewChoices currentChoices() const;
    // A tokenizer alone, opened: the Phrases page with the model's own tokenizer, as one undo
    // step; false when the state refused it.
    bool showTokenizerAlone(const QString &source);

    explicit FileActions(MainWindow *window);
    std::unique_ptr<QSettings> recentSettings() const;
    void rebuildRecentModelsMenu();
    void createActions();
    // createActions' parts: each makes its group's actions (and menus, kept in members).
    struct SessionActions
    {
        QAction *open;
        QAction *save;
        QAction *saveAs;
    };
    struct FigureActions
    {
        QAction *copy;
        QAction *data;
    };
    struct ModelActions
    {
        QAction *open;
        QAction *cached;
        QAction *pasteConfig;
    };
    QMenu *fileMenu() const;
    SessionActions createSessionActions();
    FigureActions createFigureActions();
    ModelActions createModelActions();
    void rebuildRecentMenu();
    void report(const QString &text, bool error, const QString &title = QString());
    // The scheduler's results for `views` as the window shows them.
    FigureData currentData(const QList<FigureView> &views) const;
    void onModelRead(quint64 ticket, const std::shared_ptr<const ModelRead> &read);
    void onComputeCancelled();
    // The files `spec` names (a model's table), read on the scheduler's worker while the window
    // waits (a progress dialog, which can cancel, once it takes 300 ms); nothing with *error.
    std::optional<EncodingSpec> readSpecFiles(const EncodingSpec &spec, QString *error);

    MainWindow *m_window;
    // The model openModel() asked the scheduler to read (ticket 0: none).
    struct PendingOpen
    {
        quint64 ticket = 0;
        QString source;
        bool interactive = false;
    };
    PendingOpen m_opening;
    QString m_sessionPath;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_recentModelsMenu = nullptr;
    QAction *m_exportFigure = nullptr;
    QPointer<ExportDialog> m_dialog;
    QPointer<EngineCheckDialog> m_engineCheck;
    QPointer<ConfigPasteDialog> m_configPaste;
    QAction *checkEngineTableAction();
};

// The recent models list in `settings` (newest first, at most 8).
QStringList recentModels(QSettings *settings);
void addRecentModel(QSettings *settings, const QString &source);
void removeRecentModel(QSettings *settings, const QString &source);

// `pescope --session FILE`: opens the session in the window; false with *error.
bool openSessionInWindow(MainWindow *window, const QString &path, QString *error);
// `pescope --model SOURCE`: opens the model as File > Open model does (read on the scheduler's
// worker) and returns once the window shows it; false with *error.
bool openModelInWindow(MainWindow *window, const QString &source, QString *error);
// File > Paste config.json: parses `text` as a config.json and shows it in `window` (state, Model
// page). False with *error naming what is wrong; the window's state is then unchanged.
bool applyModelConfigText(MainWindow *window, QByteArrayView text, QString *error);

} // namespace pe
