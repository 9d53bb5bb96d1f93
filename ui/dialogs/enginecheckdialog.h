// EngineCheckDialog: File > Check engine table… (and a table dropped while a rotary layer is
// shown): an inference engine's RoPE dump (.npy, a .safetensors tensor, a GGUF file's
// rope_freqs) checked against the layer the window shows. The ComputeScheduler reads and compares
// it off the UI thread (core/rope/enginecheck.h); EngineCheckFigure draws the result, the cell
// under the cursor (and the worst cell's two values) is read out below it, then the report; Export
// figure… writes PNG, SVG or PDF through the FigureExporter, as every figure.
#pragma once

#include "rope/enginecheck.h"

#include <QDialog>

#include <memory>

class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace pe {

class ComputeScheduler;
class ExplorerState;

class EngineCheckDialog : public QDialog
{
    Q_OBJECT
public:
    // Checks against the spec of `state` (the window's), on `scheduler`'s worker.
    EngineCheckDialog(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent);

    // The request for checking `against` (FILE or FILE:TENSOR) against the state's rotary spec;
    // nullopt with *error when the window shows no rotary layer.
    static std::optional<EngineCheckRequest> requestFor(const ExplorerState &state,
                                                        const QString &against, QString *error);
    // Starts the check; checkFinished() follows. False with *error when it cannot start.
    bool check(const QString &against, QString *error);

    std::shared_ptr<const EngineCheck> result() const { return m_check; }
    QString errorText() const { return m_error; }
    QCustomPlot *plot() const { return m_plot; }
    // The readout under the figure: the hovered cell, and the worst cell's values.
    QString readoutText() const;
    // The figure as File > Export figure would write it (format from the extension).
    bool exportFigure(const QString &path, QString *error) const;

signals:
    // The check finished: result() holds it, or errorText() says why not.
    void checkFinished();

private:
    void showCheck(const std::shared_ptr<const EngineCheck> &check);
    void showError(const QString &message);
    void hover(const QPoint &at);
    void exportInteractively();

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QCustomPlot *m_plot;
    QLabel *m_readout;
    QPlainTextEdit *m_report;
    QPushButton *m_export;
    std::shared_ptr<const EngineCheck> m_check;
    QString m_error;
    bool m_waiting = false;
};

} // namespace pe
