// LessonController: lessons in the window (issue 40). The Lesson menu (new, open, save, add the
// current view as a step, present), the Lesson dock (LessonPanel), Help > Lessons (the shipped
// lessons, from resources/lessons) and the presentation (LessonPresenter). Edits share the
// window's undo stack. MainWindow installs it with one call.
#pragma once

#include "figures/lessonexporter.h"
#include "state/lessonfile.h"

#include <QMap>
#include <QObject>

#include <functional>
#include <memory>

class QDockWidget;
class QMainWindow;
class QSettings;
class QTabWidget;
class QUndoStack;

namespace pe {

class LessonDocument;
class LessonPanel;
class LessonPresenter;
class ExplorerState;
class ViewPages;

// What lessons need of the window.
struct LessonHost
{
    QMainWindow *window = nullptr; // the dock's, menu's and dialogs' home
    QTabWidget *pages = nullptr;   // hidden tabs while presenting
    ExplorerState *state = nullptr;
    QUndoStack *undo = nullptr;
    const ViewPages *viewPages = nullptr; // a new step's views: the current page's figure
    // The settings that remember moved folders; written only when `persistent`.
    std::function<std::unique_ptr<QSettings>()> settings{};
    bool persistent = false;
};

class LessonController : public QObject
{
    Q_OBJECT

public:
    static LessonController *install(const LessonHost &host);
    static LessonController *of(const QObject *window);

    LessonDocument *document() const { return m_document; }
    LessonPanel *panel() const { return m_panel; }
    QDockWidget *dock() const { return m_dock; }
    LessonPresenter *presenter() const { return m_presenter; }

    // The step the window shows now: its state, the views on screen, the Motion bar's
    // animation when it plays; titled after the views.
    LessonStep currentStep() const;
    // Adds currentStep() after the selected step (at the end when none is), one undo step.
    void addCurrentView();
    // Opens step `index` in the window as one undo step; false with *error when its state
    // cannot open (the window is left as it was).
    bool openStep(int index, QString *error);
    bool openLesson(const QString &path, QString *error);
    bool saveLesson(const QString &path, QString *error);
    // Slides, a handout or an HTML deck of the lesson (LessonExporter), with a progress dialog
    // whose Cancel stops it ("cancelled" in *error, nothing written).
    bool exportLesson(const QString &path, const LessonExportOptions &options, QString *error);
    // Where a model folder a lesson names is now, asked when a step names one that is not
    // there (a file dialog; tests set their own). Empty: the user cancelled.
    using FolderQuestion = std::function<QString(const QString &missingPath)>;
    void setFolderQuestion(FolderQuestion question) { m_askFolder = std::move(question); }
    // The folder moves answered so far (old folder -> new), remembered in the settings of a
    // persistent window: a lesson made on another machine asks once per folder.
    QMap<QString, QString> folderMoves() const;

    // The lessons shipped with pescope (Help > Lessons): resource paths, in menu order.
    static QStringList shippedLessons();

signals:
    void message(const QString &text);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit LessonController(const LessonHost &host);
    void createActions();
    void createDock();
    void askToOpen();
    void askToSave(bool choosePath);
    void askToExport(LessonExportKind kind);

    // Asks where the folder of `missing` is now and remembers the answer; false when the user
    // cancels or the answer does not hold the file either.
    bool locateMovedFolder(const QString &missing, QString *error);

    LessonHost m_host;
    QMainWindow *m_window;
    LessonDocument *m_document;
    FolderQuestion m_askFolder;
    QMap<QString, QString> m_moves; // old folder -> where it is now
    LessonPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    LessonPresenter *m_presenter = nullptr;
};

} // namespace pe
