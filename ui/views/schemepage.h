// SchemePage: the Schemes page. Controls for the RoPE, ALiBi and T5 views and the compare
// configuration on the left, one tab per view on the right; the numbers are computed by the
// ComputeScheduler and drawn by SchemeFigures.
#pragma once

#include "compute/schemedata.h"
#include "state/explorerstate.h"

#include <QHash>
#include <QTimer>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QGroupBox;
class QLabel;
class QTabWidget;

namespace pe {

class ComputeScheduler;
class FieldForm;

class SchemePage : public QWidget
{
    Q_OBJECT
public:
    SchemePage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    // The plot of the current view (the tab shown).
    QCustomPlot *currentPlot() const;
    // The result drawn last; null before the first.
    std::shared_ptr<const SchemeResult> result() const { return m_result; }
    // True when the current view shows the state's parameters (or their error).
    bool isUpToDate() const;
    // The refusal or computation messages shown; empty when none.
    QString message() const;
    // The forms of the controls: settings, alibi, t5, compare.
    FieldForm *form(const QString &name) const;

    // What the status bar says while this page is shown: what was computed, where, how fast.
    QString timing() const { return m_timing; }

signals:
    void timingChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void setTiming(const QString &text);
    void schedule();
    void onResult(const std::shared_ptr<const SchemeResult> &result);
    void onFailure(const QString &error);
    void redraw();
    void refresh();
    void updateMessage();

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QTabWidget *m_tabs;
    QList<QCustomPlot *> m_plots;
    QHash<QString, FieldForm *> m_forms;
    QLabel *m_message;
    QLabel *m_info;
    QString m_computeError;
    QString m_timing;
    QHash<QString, QGroupBox *> m_boxes; // the group box of each form
    std::shared_ptr<const SchemeResult> m_result;
    bool m_pending = false;
    bool m_drawnCurrent = false;
    // A figure is laid out for its plot's width (a legend's entries per row): drawn again once
    // a resize settles, so that one laid out at full screen fits the window again.
    QTimer m_relayout;
};

} // namespace pe
