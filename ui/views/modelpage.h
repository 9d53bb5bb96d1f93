// ModelPage: the Model page. On the left the opened model's card (architecture, context, what
// was read from which file, what was assumed) and its layer map (choosing a rotary or NoPE layer
// shows that layer's positions); on the right the views of what the model holds: for a learned
// table PCA, position similarity and sinusoid fits (TableFigures), for a rotary layer its
// frequency spectrum, rotation and decay (the Schemes page's SchemeFigures), all computed by the
// ComputeScheduler. A layer without positions (NoPE) says so instead of drawing empty axes.
#pragma once

#include "compute/modelread.h"
#include "compute/schemedata.h"
#include "compute/tabledata.h"
#include "model/modelcard.h"
#include "state/explorerstate.h"
#include "state/figureviews.h"
#include "views/viewpage.h"

#include <QList>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QGroupBox;
class QPushButton;
class QPlainTextEdit;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace pe {

class ComputeScheduler;
class MessageSlot;

class ModelPage : public QWidget
{
    Q_OBJECT
public:
    ModelPage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    // The views in tab order, from the view list: the Model page's (pca, table-similarity,
    // sinusoid-fit: a learned table's), then its guests (spectrum, rotation, decay: a rotary
    // layer's, drawn as the Schemes page draws them). Each tab draws through the list's builder
    // (buildInWindow) and carries its entry's tooltip. Only one kind's tabs show at a time: a
    // learned table's views (ViewJob::Table), or else a rotary layer's (ViewJob::Schemes).
    static QList<FigureView> views();
    // The views of the state's encoding: a learned table's, or else a rotary layer's.
    QList<FigureView> shownViews() const;
    // What the page shows, for those who ask the current page (viewpage.h): the current tab.
    ViewPage viewPage();
    FigureView currentView() const;
    void setCurrentView(FigureView view);
    QCustomPlot *currentPlot() const;
    QCustomPlot *plot(FigureView view) const;
    std::shared_ptr<const TableResult> result() const { return m_result; }
    std::shared_ptr<const ModelCard> card() const { return m_card; }
    QTableWidget *layerTable() const { return m_layers; }
    QString cardText() const;
    // Why the current view shows nothing, or a computation's failure; empty when none.
    QString message() const;
    // The status line below the controls (what was computed or chosen).
    QString info() const;
    // The text the current plot shows in place of a figure; empty when it draws one.
    QString notice() const { return m_notice; }
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
    // The constructor's parts, in the order it calls them.
    void createFigureTabs();
    void describeModelWidgets();
    QWidget *buildControlsPanel();
    void layOutPage(QWidget *controls);
    void connectControls();
    void connectResults();
    void setTiming(const QString &text);
    void setMessage(const QString &text);
    void setInfo(const QString &text);
    void schedule();
    void scheduleTable();
    void scheduleSchemes();
    void showComputing();
    // What the page can draw for the state's encoding.
    enum class Kind { Table, Rotary, NoPositions };
    Kind kind() const;
    // Shows the current kind's tabs (keeping the view last chosen for that kind).
    void updateTabs();
    // The current plot shows `text` where a figure would be.
    void showNotice(const QString &text);
    void onResult(const std::shared_ptr<const TableResult> &result);
    void onSchemes(const std::shared_ptr<const SchemeResult> &result);
    void redraw();
    void updateCardForSpec();
    void onModelRead(quint64 ticket, const std::shared_ptr<const ModelRead> &read);
    void fillLayerMap();

    ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QTabWidget *m_tabs;
    QList<QCustomPlot *> m_plots;
    QPlainTextEdit *m_cardText;
    QTableWidget *m_layers;
    QSpinBox *m_dim;
    QGroupBox *m_tableBox = nullptr; // the learned-table views' controls
    QPushButton *m_useAsB;
    MessageSlot *m_message;
    MessageSlot *m_info;
    QString m_timing;
    QString m_notice;
    std::shared_ptr<const ModelCard> m_card;
    std::shared_ptr<const TableResult> m_result;
    std::shared_ptr<const SchemeResult> m_schemes;
    FigureView m_tableView = FigureView::Pca; // the view last chosen for each kind
    FigureView m_rotaryView = FigureView::Spectrum;
    // What the current plot was last drawn for: another kind or view draws anew.
    Kind m_drawnKind = Kind::NoPositions;
    FigureView m_drawnView = FigureView::Pca;
    bool m_updatingTabs = false;
    QString m_error;
    QString m_loadingCard;    // the source whose card is being read
    quint64 m_cardTicket = 0; // its read's, from the scheduler
    bool m_pending = false;
    bool m_drawnCurrent = false;
};

} // namespace pe
