// MainWindow: the explorer window. It owns the ExplorerState and the ComputeScheduler, lays out
// the encoding page (controls, waves over heatmap) and the phrase page, and holds the menus,
// shortcuts, status bar, theme and the QSettings persistence.
#pragma once

#include "state/explorerstate.h"

#include <QMainWindow>
#include <QString>

class QActionGroup;
class QComboBox;
class QLabel;
class QProgressBar;
class QSettings;
class QSplitter;
class QTabWidget;
class QToolButton;

namespace pe {

class ComputeScheduler;
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
    ComputeScheduler *scheduler() const { return m_scheduler; }
    ParameterPanel *parameterPanel() const { return m_panel; }
    HeatmapView *heatmapView() const { return m_heatmap; }
    WavesView *wavesView() const { return m_waves; }
    PhraseView *phraseView() const { return m_phrases; }
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

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void applyTheme();
    void updateComputeInfo();
    void restoreSettings();
    void saveSettings();

    MainWindowOptions m_options;
    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QTabWidget *m_pages;
    ParameterPanel *m_panel;
    WavesView *m_waves;
    HeatmapView *m_heatmap;
    PhraseView *m_phrases;
    SchemePage *m_schemes;
    ModelPage *m_model;
    QSplitter *m_encodingSplitter;
    QSplitter *m_plotSplitter;
    QLabel *m_computeLabel;
    QProgressBar *m_progress;
    QToolButton *m_cancel;
    QComboBox *m_backendCombo;
    QString m_encodingInfo;
    QString m_phraseInfo;
    double m_lastDrawMs = 0.0;
};

} // namespace pe
