#include "widgets/fittingscrollarea.h"

#include <QEvent>
#include <QScrollBar>

namespace pe {

FittingScrollArea::FittingScrollArea(QWidget *panel, int minimumWidth, QWidget *parent)
    : QScrollArea(parent), m_minimumWidth(minimumWidth)
{
    setWidget(panel);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    panel->installEventFilter(this);
    setMinimumWidth(fittingWidth());
}

int FittingScrollArea::fittingWidth() const
{
    const QWidget *panel = widget();
    const int content = panel ? panel->minimumSizeHint().width() : 0;
    // Room for the vertical scroll bar whether or not it shows, so showing it clips nothing.
    return qMax(m_minimumWidth,
                content + verticalScrollBar()->sizeHint().width() + 2 * frameWidth());
}

QSize FittingScrollArea::minimumSizeHint() const
{
    return {fittingWidth(), QScrollArea::minimumSizeHint().height()};
}

QSize FittingScrollArea::sizeHint() const
{
    return {fittingWidth(), QScrollArea::sizeHint().height()};
}

bool FittingScrollArea::eventFilter(QObject *watched, QEvent *event)
{
    // The panel's rows changed: the splitter learns the new minimum width.
    if (watched == widget() && event->type() == QEvent::LayoutRequest) {
        setMinimumWidth(fittingWidth());
    }
    return QScrollArea::eventFilter(watched, event);
}

} // namespace pe
