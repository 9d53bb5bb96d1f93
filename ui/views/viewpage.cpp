#include "views/viewpage.h"

#include "compute/viewdata.h"
#include "state/explorerstate.h"

#include <algorithm>
#include <utility>

namespace pe {

QList<FigureView> ViewPage::hostedViews() const
{
    return viewsOf(page) + guests;
}

QList<FigureView> ViewPage::viewsOnScreen() const
{
    QList<FigureView> views = hostedViews();
    if (shows)
        views.removeIf([this](FigureView view) { return !shows(view); });
    std::sort(views.begin(), views.end()); // the list's order: an entry's view is its index
    return views;
}

QList<FigureView> ViewPage::playableViews() const
{
    QList<FigureView> views = viewsOnScreen();
    views.removeIf([this](FigureView view) {
        const ViewEntry &entry = viewEntry(view);
        if (entry.page != page)
            return true; // a guest plays on its own page
        const bool drawsScheme = entry.job == ViewJob::Encoding || entry.job == ViewJob::Schemes;
        return entry.motion == ViewMotion::None && !drawsScheme;
    });
    return views;
}

QList<FigureView> ViewPage::figureViews() const
{
    if (figure)
        return figure();
    const QList<FigureView> shown = viewsOnScreen();
    return shown.isEmpty() ? QList<FigureView>{} : QList<FigureView>{shown.first()};
}

FigureView ViewPage::dataView() const
{
    QList<FigureView> views = figureViews();
    std::sort(views.begin(), views.end());
    for (FigureView view : views)
        if (hasViewData(view))
            return view;
    return FigureView::Heatmap;
}

QSize ViewPage::figureSize() const
{
    return size ? size() : QSize();
}

bool ViewPage::selectView(FigureView view) const
{
    if (!hostedViews().contains(view))
        return false;
    if (select)
        return select(view);
    return !shows || shows(view);
}

ViewChoices ViewPage::figureChoices() const
{
    return choices ? choices() : ViewChoices{};
}

void ViewPages::add(ViewPage page)
{
    const auto index = std::size_t(page.page);
    m_pages.at(index) = std::move(page);
}

const ViewPage &ViewPages::page(Page page) const
{
    return m_pages.at(std::size_t(page));
}

const ViewPage &ViewPages::current() const
{
    return page(m_state->page());
}

} // namespace pe
