#include "widgets/windowzoom.h"

#include <QEvent>
#include <QWidget>

namespace pe {

namespace {

class FontFollower : public QObject
{
public:
    FontFollower(QWidget *view, std::function<void()> rebuild)
        : QObject(view), m_rebuild(std::move(rebuild))
    {
        view->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::FontChange && watched == parent())
            m_rebuild();
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_rebuild;
};

} // namespace

void rebuildOnFontChange(QWidget *view, std::function<void()> rebuild)
{
    new FontFollower(view, std::move(rebuild));
}

} // namespace pe
