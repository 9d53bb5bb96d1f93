// ViewHelpDialog: Help > What am I looking at? (F1, or the toolbar's button): the current page's
// views, what each shows and its formula with the window's parameters (dialogs/viewhelp.h),
// following the page and the parameters while it is open.
#pragma once

#include "state/figureviews.h"

#include <QDialog>

#include <functional>

class QTextBrowser;

namespace pe {

class ExplorerState;

class ViewHelpDialog : public QDialog
{
    Q_OBJECT
public:
    // `views` says which views the window shows now.
    ViewHelpDialog(ExplorerState *state, std::function<QList<FigureView>()> views,
                   QWidget *parent = nullptr);

    QString html() const;
    // Scrolls to `view`'s section (the tab on screen where the page shows one view at a time).
    void showView(FigureView view);
    // The view whose section is at the top of the text (the first when scrolled to the top).
    FigureView viewAtTop() const;

public slots:
    void refresh();

private:
    qreal sectionTop(FigureView view) const;

    ExplorerState *m_state;
    std::function<QList<FigureView>()> m_views;
    QTextBrowser *m_text;
};

} // namespace pe
