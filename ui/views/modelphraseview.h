// ModelPhraseView: the Phrases page when its tokenizer is the open model's own. The compared
// phrases A and B as the model's tokens (pieces with their ids; hover: the offsets, the text a
// token covers and the normalized text), then three figures (AttentionFigures): the embeddings
// with and without the model's positions, the cosine of every token pair, and Positions in
// attention (layer 0, per head: with positions, without, their difference), then the layer views
// of phrase A through the whole forward pass (LayerFigures: every layer's attention, click a tile
// to enlarge it; distance profiles, the RoPE frequency atlas, sinks, norms, the position probe),
// run only when one of their tabs is shown, with the window's progress and Cancel. Results come
// from the ComputeScheduler; nothing is computed on the UI thread. A phrase longer than the window
// computes is cut, and a notice says so. A tokenizer opened without weights (or whose ids the
// model has no rows for) shows the tokens alone, the notice saying what needs the weights.
#pragma once

#include "compute/computescheduler.h"
#include "state/explorerstate.h"

#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QCustomPlot;
class QLabel;
class QListWidget;
class QMouseEvent;
class QStackedWidget;
class QTabWidget;

namespace pe {

class AblationControls;
class MessageSlot;

class ModelPhraseView : public QWidget
{
    Q_OBJECT
public:
    ModelPhraseView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    // The tokens of phrase 0 (A) or 1 (B), one item each: "piece\nid".
    QListWidget *tokenList(int phrase) const;
    QCustomPlot *embeddingsPlot() const { return viewPlot(FigureView::ModelEmbeddings); }
    QCustomPlot *cosinePlot() const { return viewPlot(FigureView::ModelTokenCosine); }
    QCustomPlot *attentionPlot() const { return viewPlot(FigureView::ModelAttention); }
    QTabWidget *figureTabs() const { return m_tabs; }
    // The figure tabs' views, in tab order: the page's views in the view list that read the
    // model's phrases or its forward pass, but the tokens (the strips above the tabs).
    static QList<FigureView> tabViews();
    // The plot of a view's tab; null for a view without one.
    QCustomPlot *viewPlot(FigureView view) const;
    // The view of the figure tab shown, its plot, and the phrase and head it draws: what
    // File > Export and F1 take.
    FigureView currentView() const;
    QCustomPlot *currentPlot() const;
    // Makes the view's tab the current one (a lesson step's view); true for the tokens, false
    // for a view without a tab, or one while the tokens alone are shown.
    bool selectView(FigureView view);
    ViewChoices choices() const;
    // Which phrase the embeddings and attention show (A, B), and which head (or their mean).
    QComboBox *phraseChoice() const { return m_phrase; }
    QComboBox *headChoice() const { return m_head; }
    // The attention grid's layer: every layer (the grid) or one, whose head is enlarged.
    QComboBox *layerChoice() const { return m_layer; }
    // The enlarged layer.head's ablation (issue 48 item 3), a form over the state's
    // LayerAblation; shown on the attention grid's tab.
    AblationControls *ablationControls() const { return m_ablationControls; }
    // What the pass compares with: the state's ablation.
    ForwardAblation ablation() const;
    // The plot of a layer view's tab (FigureView::LayerAttention ...), null for another view.
    QCustomPlot *layerPlot(FigureView view) const;
    // The forward pass the layer views draw; null before the first.
    std::shared_ptr<const ForwardViewResult> forward() const { return m_forward; }
    // The layer views' state line: running, failed, cancelled; empty when drawn.
    QString forwardNote() const;
    // The model and token counts; the notice of a phrase cut short or a failure.
    QString info() const;
    QString notice() const;
    std::shared_ptr<const PhraseModelResult> result() const { return m_result; }

signals:
    // The figures now show `result()` (emitted after they were rebuilt).
    void figuresUpdated();

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // A token list as tall as its rows, at most two.
    static void fitHeight(QListWidget *list);
    void onResult(std::shared_ptr<const PhraseModelResult> result);
    void showProblem(const QString &message);
    // The computation failed (no model, no tokenizer.json, an architecture not computed): the
    // message alone, without tokens or figures.
    void onFailure(const QString &message);
    void fillTokens(int phrase);
    void fillHeads();
    void addTabs();
    // Draws `view` into its tab from the page's numbers and choices.
    void draw(FigureView view, const FigureData &data) const;
    void rebuild();
    // The current tab is a layer view: ask for the forward pass, draw it when it is held.
    void requestForward();
    void onForward(std::shared_ptr<const ForwardViewResult> result);
    void rebuildForward();
    void fillLayers();
    // Head, Layer and the ablation shown only on the tabs they change.
    void showChoices();
    // The forward note: the pass's timing, and what an ablation needs to be seen.
    void updateForwardNote();
    // The pass the page asks for: the state's model and phrase A, and the ablation chosen.
    ForwardViewInputs forwardInputs() const;
    // A click on the attention grid: that tile's layer and head enlarged.
    void onGridClick(QMouseEvent *event);

    ExplorerState *m_state;
    QLabel *m_info;
    QLabel *m_notice;
    QList<QLabel *> m_tokenTitles;
    QList<QListWidget *> m_tokens;
    QComboBox *m_phrase;
    QComboBox *m_head;
    QComboBox *m_layer;
    AblationControls *m_ablationControls; // shown on the attention grid's tab
    QLabel *m_headLabel = nullptr;
    QLabel *m_layerLabel = nullptr;
    // One line of fixed height: a long message is elided (whole in the tooltip), no control moves.
    MessageSlot *m_forwardNote;
    ComputeScheduler *m_scheduler;
    QWidget *m_choices;
    QTabWidget *m_tabs;
    QWidget *m_filler;            // takes the figures' room while they are hidden
    QList<QCustomPlot *> m_plots; // in tabViews()' order
    std::shared_ptr<const PhraseModelResult> m_result;
    std::shared_ptr<const ForwardViewResult> m_forward;
    QTimer m_relabel; // rebuilds the figures after a resize
};

// The Phrases page's hooks: the tokenizer choice (PhraseSource::tokenizer) as a combo box bound
// to the state, and a stack that shows `tutorial` (the TextVectorization figures) or a
// ModelPhraseView, as the state's tokenizer says.
QWidget *makePhraseTokenizerChoice(ExplorerState *state, QWidget *parent);
QStackedWidget *makePhraseFigureStack(QWidget *tutorial, ExplorerState *state,
                                      ComputeScheduler *scheduler, QWidget *parent);

} // namespace pe
