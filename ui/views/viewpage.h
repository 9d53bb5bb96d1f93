// ViewPage: what one page of the window shows, answered from the view list (state/viewlist.h):
// the views it hosts, those on screen now, those the Motion bar can move, the figure File >
// Export figure and Copy figure write, and the view File > Export data writes. The window
// registers one per page (MainWindow::registerPages); the export actions, the Motion bar, the
// Lesson panel and F1 ask the current one (ViewPages::current()) and know no page themselves.
#pragma once

#include "state/viewlist.h"

#include <QList>
#include <QSize>

#include <array>
#include <functional>

namespace pe {

class ExplorerState;

struct ViewPage
{
    Page page = Page::Encoding;
    // Views of another page's list drawn here too: the Model page shows a rotary layer's
    // spectrum, rotation and decay as the Schemes page draws them.
    QList<FigureView> guests{};
    // Whether a hosted view is on screen now: the current tab where views share a place, the
    // Phrases page's views of the chosen tokenizer. Unset: every hosted view is.
    std::function<bool(FigureView)> shows{};
    // The views File > Export figure, Copy figure and the Lesson panel take, top to bottom.
    // Unset: the first view on screen.
    std::function<QList<FigureView>()> figure{};
    // The figure's size on screen (its plots together).
    std::function<QSize()> size{};
    // What the figure shows of its numbers beyond the state: the model figures' phrase and head.
    // Unset: the defaults.
    std::function<ViewChoices()> choices{};
    // Brings a hosted view on screen (its tab made current: a lesson step's view), true when it
    // is. Unset: no view has a place of its own to bring forward, so true when it shows now.
    std::function<bool(FigureView)> select{};

    // viewsOf(page), then the guests.
    QList<FigureView> hostedViews() const;
    // The hosted views shown now, in the list's order: those F1 explains.
    QList<FigureView> viewsOnScreen() const;
    // The views on screen the Motion bar moves: those with a position to move (ViewMotion) or
    // drawn from the state's scheme, whose numeric fields it can sweep. A stored table or a
    // model's phrases have neither, and a guest plays on its own page only.
    QList<FigureView> playableViews() const;
    QList<FigureView> figureViews() const;
    // File > Export data: the first view of the figure, in the list's order, that writes data
    // (its entry's `data`); the heatmap's matrix where none does.
    FigureView dataView() const;
    QSize figureSize() const;
    ViewChoices figureChoices() const;
    // `select`, for a hosted view; false for another.
    bool selectView(FigureView view) const;
};

// The window's pages, one ViewPage each; current() is the state's page.
class ViewPages
{
public:
    explicit ViewPages(const ExplorerState *state) : m_state(state) {}
    void add(ViewPage page);
    const ViewPage &page(Page page) const;
    const ViewPage &current() const;

private:
    const ExplorerState *m_state;
    std::array<ViewPage, std::size(pageNames)> m_pages{};
};

} // namespace pe
