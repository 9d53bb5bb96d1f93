#include "views/backendnotice.h"

#include "compute/computescheduler.h"

#include <QMainWindow>
#include <QStatusBar>
#include <QStyle>

namespace pe {

BackendNoticeIndicator *BackendNoticeIndicator::install(QMainWindow *window,
                                                        ComputeScheduler *scheduler)
{
    auto *indicator = new BackendNoticeIndicator(window, scheduler);
    window->statusBar()->addPermanentWidget(indicator);
    return indicator;
}

BackendNoticeIndicator::BackendNoticeIndicator(QMainWindow *window, ComputeScheduler *scheduler)
    : QLabel(window), m_window(window)
{
    setObjectName(QStringLiteral("backendNotice"));
    const int side = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, this).pixmap(side));
    setVisible(false);
    connect(scheduler, &ComputeScheduler::backendNotice, this, &BackendNoticeIndicator::showNotice);
    if (!scheduler->latestNotice().isEmpty())
        showNotice(scheduler->latestNotice());
}

void BackendNoticeIndicator::showNotice(const QString &notice)
{
    m_notice = notice;
    setToolTip(notice);
    setVisible(!notice.isEmpty());
    if (!notice.isEmpty())
        m_window->statusBar()->showMessage(notice, 30000);
}

} // namespace pe
