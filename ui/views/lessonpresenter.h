// LessonPresenter: a lesson shown full screen in the explorer window itself (issue 40), so the
// figure stays live (hover, zoom, the Motion bar): menus, toolbars, docks, tabs and the pages'
// control panels are hidden, the step's title (with "3 / 10") above the figure and its caption
// below in type sized to the screen. Keys are those of presentation clickers: Right, Down,
// Page Down, Space or N forward; Left, Up, Page Up, Backspace or P back; Home, End; Enter plays
// the step's animation; Ctrl+= / Ctrl+- make the text larger or smaller; Escape leaves and puts
// the window back as it was.
#pragma once

#include <QObject>
#include <QPointer>
#include <QRect>
#include <QSizePolicy>

#include <functional>
#include <utility>

class QLabel;
class QMainWindow;
class QTabWidget;
class QToolBar;
class QWidget;

namespace pe {

class LessonDocument;
class PlayBar;

class LessonPresenter : public QObject
{
    Q_OBJECT

public:
    // `open` shows a step's state in the window (LessonController::openStep: model folders
    // that moved are asked for), false with *error.
    using StepOpener = std::function<bool(int index, QString *error)>;
    // `pages`: the window's page tabs, whose bar hides while presenting.
    LessonPresenter(QMainWindow *window, QTabWidget *pages, LessonDocument *document,
                    StepOpener open);

    bool isPresenting() const { return m_presenting; }
    int currentStep() const { return m_step; }
    // The caption's and title's type as a multiple of the screen-sized default.
    double textScale() const { return m_textScale; }
    QLabel *titleLabel() const { return m_title; }
    QLabel *captionLabel() const { return m_caption; }

public slots:
    void start(int index);
    void stop();
    void showStep(int index);
    void next() { showStep(m_step + 1); }
    void previous() { showStep(m_step - 1); }
    void playAnimation();

signals:
    void stepShown(int index);
    void finished(int lastStep);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    bool handleKey(int key, Qt::KeyboardModifiers modifiers);
    void updateFonts();

    QMainWindow *m_window;
    QTabWidget *m_pages;
    LessonDocument *m_document;
    StepOpener m_open;
    QToolBar *m_top;
    QToolBar *m_bottom;
    QLabel *m_title;
    QLabel *m_counter;
    QLabel *m_caption;
    bool m_presenting = false;
    int m_step = 0;
    double m_textScale = 1.0;
    // What start() hid or changed, put back by stop().
    QList<QPointer<QWidget>> m_hidden;
    // The pages' size policies: Ignored while presenting (start()).
    QList<std::pair<QPointer<QWidget>, QSizePolicy>> m_policies;
    QRect m_geometry; // the normal window's, outside its frame
    bool m_wasFullScreen = false;
    bool m_wasMaximized = false;
};

} // namespace pe
