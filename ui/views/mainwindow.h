// MainWindow: the explorer window. It owns the ExplorerState, its undo stack and the
// ComputeScheduler, puts the four pages (EncodingPage, PhraseView, SchemePage, ModelPage) in tabs,
// and holds the menus (File, Edit, View, ..., Help), shortcuts, status bar, theme and the
// QSettings persistence.
#pragma once

#include "state/explorerstate.h"
#include "state/figureviews.h"
#include "views/viewpage.h"

#include <QByteArrayView>
#include <QMainWindow>
#include <QString>

class QActionGroup;
class QComboBox;
class QLabel;
class QProgressBar;
class QSettings;
class QTabWidget;
class QToolButton;
class QUndoStack;

namespace pe {

class ComputeScheduler;
class EncodingPage;
class HeatmapView;
class ModelPage;
class ParameterPanel;
class PhraseView;
class SchemePage;
class WavesView;

struct MainWindowOptions
{
    // Restore the last window state and parameters on start and save them on close.
    bool persistent = true;
    // An ini file to use instead of the platform's QSettings location (tests, screenshots).
    QString settingsFile;
};

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(const MainWindowOptions &options = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    ExplorerState *state() const { return m_state; }
    // Every change of the state's parameters, one command each (Edit > Undo / Redo); clean
    // when the window shows what was last opened or saved (the title's "*" says otherwise).
    QUndoStack *undoStack() const { return m_undo; }
    // The session file the window shows (title, Save): called after a session was opened or
    // saved; marks the undo stack clean.
    void setSessionFile(const QString &path);
    // What each page shows (File > Export, Export data, the Motion bar, the Lesson panel and F1
    // ask the current page).
    const ViewPages &viewPages() const { return m_viewPages; }
    // The window's zoom: its font as a multiple of the desktop's (View > Zoom, Ctrl+= / - / 0).
    double zoom() const;
    ComputeScheduler *scheduler() const { return m_scheduler; }
    ParameterPanel *parameterPanel() const { return m_panel; }
    HeatmapView *heatmapView() const { return m_heatmap; }
    WavesView *wavesView() const { return m_waves; }
    PhraseView *phraseView() const { return m_phrases; }
    EncodingPage *encodingPage() const { return m_encoding; }
    SchemePage *schemePage() const { return m_schemes; }
    ModelPage *modelPage() const { return m_model; }
    QTabWidget *pages() const { return m_pages; }
    QString computeInfo() const;

    // True when no job is pending or running and every view shows its latest result (or error).
    bool isSettled() const;
    bool applyPreset(const QString &id, QString *error);
    // The window's settings: the options' ini file, else the platform's location.
    std::unique_ptr<QSettings> settings() const;
    // False for screenshots and tests: nothing is written to the settings.
    bool isPersistent() const { return m_options.persistent; }

public slots:
    void showShortcuts();
    void showViewHelp();

protected:
    void closeEvent(QCloseEvent *event) override;
    // Ctrl+Z / Ctrl+Shift+Z in a field with nothing typed since its last commit go to the
    // window's undo stack instead of the field's own (empty) text history.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // The constructor's parts, in the order it calls them.
    void setUpUndo();
    void buildPages();
    void registerPages();
    void buildStatusBar();
    void installFileParts();
    void connectPages();
    void connectComputeInfo();
    // The View menu's actions the toolbar shows too.
    struct ViewActions
    {
        QAction *transpose;
        QAction *reset;
        QAction *dark;
    };
    // createActions makes one menu after the other, then the toolbar.
    void createActions();
    void createFileMenu();
    ViewActions createViewMenu();
    void createZoomActions(QMenu *view);
    static int defaultZoomLevel();
    QMenu *createPresetsMenu();
    QAction *createPhrasesMenu();
    void createComputeMenu();
    void createMainToolBar(const ViewActions &view, QMenu *presetMenu, QAction *reseed);
    void createEditMenu();
    void createHelpMenu();
    void updateTitle();
    void applyTheme();
    // zoomLevels[level] times the desktop's font for the window (windowzoom.h).
    void setZoomLevel(int level);
    void updateComputeInfo();
    void restoreSettings();
    void saveSettings();

    MainWindowOptions m_options;
    int m_zoomLevel = defaultZoomLevel();
    ExplorerState *m_state;
    QUndoStack *m_undo;
    ComputeScheduler *m_scheduler;
    QTabWidget *m_pages;
    EncodingPage *m_encoding;
    ParameterPanel *m_panel;
    WavesView *m_waves;
    HeatmapView *m_heatmap;
    PhraseView *m_phrases;
    SchemePage *m_schemes;
    ModelPage *m_model;
    ViewPages m_viewPages;
    QLabel *m_computeLabel;
    QProgressBar *m_progress;
    QToolButton *m_cancel;
    QComboBox *m_backendCombo;
    QString m_encodingInfo;
    QString m_phraseInfo;
    double m_lastDrawMs = 0.0;
};

// `pescope --session FILE`: opens the session in the window; false with *error.
bool openSessionInWindow(MainWindow *window, const QString &path, QString *error);
// `pescope --model SOURCE`: opens the model as File > Open model does (read on the scheduler's
// worker) and returns once the window shows it; false with *error.
bool openModelInWindow(MainWindow *window, const QString &source, QString *error);
// File > Paste config.json: parses `text` as a config.json and shows it in `window` (state, Model
// page). False with *error naming what is wrong; the window's state is then unchanged.
bool applyModelConfigText(MainWindow *window, QByteArrayView text, QString *error);

} // namespace pe
