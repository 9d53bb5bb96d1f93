// ExportActions: File > Export figure (Ctrl+E), Copy figure and Export data of the current view,
// and the Motion bar's Export…. What the window shows comes from its current page
// (views/viewpage.h); the figure from the scheduler's results.
#pragma once

#include "figures/figureanimation.h"
#include "figures/figureexporter.h"

#include <QImage>
#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QWidget;

namespace pe {

class ComputeScheduler;
class ExplorerState;
class ExportDialog;
class ViewPages;

class ExportActions : public QObject
{
    Q_OBJECT
public:
    // `parent`: the window, the dialogs' parent and this object's owner.
    ExportActions(ExplorerState *state, ComputeScheduler *scheduler, const ViewPages *pages,
                  QWidget *parent);
    static ExportActions *of(const QObject *window);

    QAction *exportFigureAction() const { return m_exportFigure; }
    QAction *copyFigureAction() const { return m_copy; }
    QAction *exportDataAction() const { return m_data; }

    // The current page's figure as the window shows it, at its size on screen.
    QImage currentFigure(QString *error) const;
    bool copyFigure(QString *error);
    // The current page's data view (ViewPage::dataView) as .npy or .csv.
    bool exportCurrentData(const QString &path, QString *error);

    ExportDialog *exportDialog();
    // File > Export figure preset to an animation of `views` (the Motion bar's Export…).
    void exportAnimation(const QList<FigureView> &views, const AnimationOptions &animation);

signals:
    // A one-line outcome for the status bar ("Exported …").
    void message(const QString &text);

private:
    void createActions();
    void askForDataPath();
    void report(const QString &text, bool error, const QString &title = QString());
    // The scheduler's results for `views` as the window shows them.
    FigureData currentData(const QList<FigureView> &views) const;

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    const ViewPages *m_pages;
    QWidget *m_parent;
    QAction *m_exportFigure = nullptr;
    QAction *m_copy = nullptr;
    QAction *m_data = nullptr;
    QPointer<ExportDialog> m_dialog;
};

} // namespace pe
