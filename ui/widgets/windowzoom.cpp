#include "widgets/windowzoom.h"

#include <QEvent>
#include <QWidget>

namespace pe {

namespace {

class FontFollower : public QObject
{
public:
    FontFollower(QWidget *view, std::function<void()> rebuild)
        : QObject(view), m_rebuild(std::move(rebuild)), m_size(view->font().pointSizeF())
    {
        view->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        // Only a new size: a style's polish sends FontChange too, and a redraw then would
        // change what the view shows (its timings) for nothing.
        if (event->type() == QEvent::FontChange && watched == parent()) {
            const double size = static_cast<QWidget *>(watched)->font().pointSizeF();
            if (size != m_size) {
                m_size = size;
                m_rebuild();
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_rebuild;
    double m_size;
};

} // namespace

void rebuildOnFontChange(QWidget *view, std::function<void()> rebuild)
{
    new FontFollower(view, std::move(rebuild));
}

} // namespace pe
