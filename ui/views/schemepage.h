// SchemePage: the Schemes page. Controls for the RoPE, ALiBi and T5 views and the compare
// configuration on the left, one tab per view on the right; the numbers are computed on a
// worker thread and drawn by SchemeFigures.
#pragma once

#include "state/explorerstate.h"
#include "compute/schemedata.h"

#include <QHash>
#include <QThreadPool>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QTabWidget;

namespace pe {

class RopeEditor;
class StepEdit;

class SchemePage : public QWidget
{
    Q_OBJECT
public:
    explicit SchemePage(ExplorerState *state, QWidget *parent = nullptr);
    ~SchemePage() override;

    // The plot of the current view (the tab shown).
    QCustomPlot *currentPlot() const;
    // The last result, for export; null before the first.
    std::shared_ptr<const SchemeResult> result() const { return m_result; }
    // True when the current view shows the state's parameters (or their error).
    bool isUpToDate() const;
    // The refusal or computation message shown under the controls; empty when none.
    QString message() const;

signals:
    void updated(); // a new result is drawn, or an error shown

private:
    void schedule();
    void redraw();
    void refresh();
    void applyControls(QWidget *field);
    void setError(QWidget *field, const QString &message);
    void clearError(QWidget *field);
    void updateMessage();

    ExplorerState *m_state;
    QTabWidget *m_tabs;
    QList<QCustomPlot *> m_plots;
    StepEdit *m_pair;
    StepEdit *m_position;
    StepEdit *m_decayDistance;
    StepEdit *m_square;
    QComboBox *m_metric;
    StepEdit *m_heads;
    StepEdit *m_head;
    QCheckBox *m_alibiCausal;
    StepEdit *m_buckets;
    StepEdit *m_maxDistance;
    QCheckBox *m_t5Causal;
    QLineEdit *m_compareBase;
    RopeEditor *m_compare;
    QLabel *m_message;
    QLabel *m_info;
    QHash<QWidget *, QString> m_errors;
    QString m_computeError;
    std::shared_ptr<const SchemeResult> m_result;
    QThreadPool m_pool;
    quint64 m_generation = 0;
    bool m_pending = false;
    bool m_drawnCurrent = false;
};

} // namespace pe
