// BackendNoticeIndicator: a warning icon in the status bar, hidden until a backend reports a
// notice (the GPU failed and the CPU took over); the notice is its tooltip and is also shown as
// a status bar message, so the fallback is never silent.
#pragma once

#include <QLabel>

class QMainWindow;

namespace pe {

class ComputeScheduler;

class BackendNoticeIndicator : public QLabel
{
    Q_OBJECT
public:
    // Adds the indicator to window's status bar and follows scheduler's notices.
    static BackendNoticeIndicator *install(QMainWindow *window, ComputeScheduler *scheduler);

    QString notice() const { return m_notice; }

private:
    BackendNoticeIndicator(QMainWindow *window, ComputeScheduler *scheduler);
    void showNotice(const QString &notice);

    QMainWindow *m_window;
    QString m_notice;
};

} // namespace pe
