// ModelPage: the Model page. On the left the opened model's card (architecture, context, what
// was read from which file, what was assumed) and its layer map (choosing a rotary or NoPE layer
// shows that layer's positions); on the right the learned-table views (PCA, position similarity,
// sinusoid fits), computed by the ComputeScheduler and drawn by TableFigures.
#pragma once

#include "compute/tabledata.h"
#include "figures/figureviews.h"
#include "model/modelcard.h"
#include "state/explorerstate.h"

#include <QList>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QLabel;
class QPushButton;
class QPlainTextEdit;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace pe {

class ComputeScheduler;

class ModelPage : public QWidget
{
    Q_OBJECT
public:
    ModelPage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    // The views in tab order: pca, table-similarity, sinusoid-fit.
    static QList<FigureView> views();
    FigureView currentView() const;
    void setCurrentView(FigureView view);
    QCustomPlot *currentPlot() const;
    QCustomPlot *plot(FigureView view) const;
    std::shared_ptr<const TableResult> result() const { return m_result; }
    std::shared_ptr<const ModelCard> card() const { return m_card; }
    QTableWidget *layerTable() const { return m_layers; }
    QString cardText() const;
    // The learned-table views' refusal or computation message; empty when none.
    QString message() const;
    // True when the current view shows the state's table (or says why it cannot).
    bool isUpToDate() const;

    // Shows `card` (its config's layer map); null clears the page.
    void setCard(std::shared_ptr<const ModelCard> card);
    // Shows layer `layer` of the card's config: its RoPE (or NoPE) becomes the window's spec.
    bool selectLayer(int layer, QString *error);
    // Makes layer `layer`'s RoPE configuration B of the Schemes page's Compare A/B, so that two
    // models (or two layers) can be compared: open the other model, and its layer is A.
    bool useLayerAsB(int layer, QString *error);

    // What the status bar says while this page is shown: what was computed, where, how fast.
    QString timing() const { return m_timing; }

signals:
    void timingChanged();

private:
    void setTiming(const QString &text);
    void schedule();
    void onResult(const std::shared_ptr<const TableResult> &result);
    void redraw();
    void updateCardForSpec();
    void fillLayerMap();

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QTabWidget *m_tabs;
    QList<QCustomPlot *> m_plots;
    QPlainTextEdit *m_cardText;
    QTableWidget *m_layers;
    QSpinBox *m_dim;
    QPushButton *m_useAsB;
    QLabel *m_message;
    QLabel *m_info;
    QString m_timing;
    std::shared_ptr<const ModelCard> m_card;
    std::shared_ptr<const TableResult> m_result;
    QString m_error;
    QString m_loadingCard; // the source whose card is being read
    bool m_pending = false;
    bool m_drawnCurrent = false;
};

} // namespace pe
