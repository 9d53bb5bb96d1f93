// LessonPanel: the Lesson dock's contents (issue 40): the lesson's title, its steps in order
// (drag to reorder, or Alt+Up / Alt+Down), and the selected step's title, caption and animation.
// Every edit goes through the LessonDocument (one undo step each); the panel only shows it.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QToolButton;

namespace pe {

class LessonDocument;

class LessonPanel : public QWidget
{
    Q_OBJECT

public:
    LessonPanel(LessonDocument *document, QWidget *parent = nullptr);

    // Narrow: 250 px or what its controls need, the width the dock opens at; the figures beside
    // it keep the rest (issue 46.8: it took 360 of 1280 px).
    QSize sizeHint() const override;

    int currentStep() const; // -1 when no step is selected
    void setCurrentStep(int index);
    QListWidget *stepList() const { return m_steps; }

signals:
    // The user asked to see a step (double click, Enter): the window opens its state.
    void openRequested(int index);
    void addRequested();       // add the current view as a step after the selected one
    void animationRequested(); // take the Motion bar's animation for the selected step
    void presentRequested(int index);

private:
    void rebuild();           // the list and the editors from the document
    void showStep(int index); // the editors for one step
    void moveSelected(int delta);
    void stepsDropped(); // a drag reordered the list: one move of the document

    LessonDocument *m_document;
    QLineEdit *m_title;
    QListWidget *m_steps;
    QLineEdit *m_stepTitle;
    QPlainTextEdit *m_caption;
    QLabel *m_animation;
    QToolButton *m_clearAnimation;
    bool m_updating = false;
};

} // namespace pe
