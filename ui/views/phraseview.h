// PhraseView: the phrase page. The user edits two or more phrases and the vectorizer settings;
// the page shows the vocabulary, the token ids, the random-vs-fixed grid of seed 001, the
// difference B - A, and the cosine similarity of a clicked token to the other phrase.
#pragma once

#include "compute/computescheduler.h"
#include "figures/figurebuilder.h"
#include "state/explorerstate.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QPushButton;
class QTableView;
class QTimer;
class QToolButton;
class QVBoxLayout;

namespace pe {

class FieldForm;
class MessageSlot;
class PhraseIdsModel;
class VocabularyModel;

// Phrases are edited, drawn and listed page by page (limits::phrasesPerPage phrases and
// limits::tokensPerPage tokens a page, ExplorerState::phrasePage), so a view's cost is bounded
// by what it shows. Every input applies on commit: Enter, leaving the field, or a pause.
class PhraseView : public QWidget
{
    Q_OBJECT
public:
    PhraseView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);
    ~PhraseView() override;

    QCustomPlot *gridPlot() const { return m_gridPlot; }
    QCustomPlot *similarityPlot() const { return m_similarityPlot; }
    // The tutorial's views in the view list beyond the three this page lays out by hand (the
    // grid, the difference, the similarity), in the list's order: each gets a plot beside the
    // similarity, drawn by its builder (viewfigures.cpp). None today.
    static QList<FigureView> furtherViews();
    QCustomPlot *furtherPlot(FigureView view) const;
    QTableView *vocabularyTable() const { return m_vocabulary; }
    QTableView *idsTable() const { return m_ids; }
    // The phrase rows of the current page (and a new phrase not yet accepted).
    int phraseEditCount() const { return int(m_rows.size()); }
    QLineEdit *phraseEdit(int row) const;
    QPushButton *addPhraseButton() const { return m_addPhrase; }
    // The vectorizer and embedding settings (max tokens, sequence length, dims, seed).
    FieldForm *settingsForm() const { return m_settings; }
    // The phrase and token pages.
    FieldForm *pageForm() const { return m_page; }
    // Every refusal shown, one per line; empty when every input holds a good value.
    QString message() const;
    QString readout() const;
    // What the readout says while no cell is hovered.
    static QString readoutHint();
    std::shared_ptr<const PhraseResult> result() const { return m_result; }
    // Widget coordinates (of gridPlot()) of cell (token, dim) of a phrase's heatmap.
    QPoint gridCellCentre(int phrase, EmbeddingMode mode, qint64 token, qint64 dim) const;

public slots:
    void addPhrase();
    // Removes phrase `index` (counted over all phrases, from 0).
    void removePhrase(int index);
    void reseed();

private:
    struct Row
    {
        QWidget *widget = nullptr;
        QLabel *title = nullptr;
        QLineEdit *edit = nullptr;
        QToolButton *remove = nullptr;
        QTimer *pause = nullptr;
        qint64 phrase = 0;    // which phrase the row edits; == the phrase count: a new one
        bool typing = false;  // text typed since the last commit
        bool pending = false; // made by addPhrase, its phrase not yet accepted by the state
    };
    // The constructor's parts, in the order it calls them (creation order is tab order).
    void createForms(ExplorerState *state);
    void describeControls();
    void describeTablesAndPlots();
    QWidget *buildInputsPanel(ExplorerState *state);
    QWidget *buildFiguresPanel();
    void layOutPanels(QWidget *left, QWidget *right, ExplorerState *state,
                      ComputeScheduler *scheduler);
    void connectControls(ComputeScheduler *scheduler);
    void connectState(ExplorerState *state);
    void connectGridMouse();
    void insertRow(int at);
    void dropRow(int at);
    int rowOf(const QWidget *widget) const;
    void commitRow(int row);
    void applyCompare();
    void refresh();
    void syncRows();
    // Sets the state's phrase settings from this view (a row's commit, a removal): the rows
    // keep their typed text and the new phrase's row, which a change from elsewhere replaces.
    bool setOwnPhraseSettings(const PhraseSettings &settings, QString *error);
    void updatePageInfo();
    void onResult(std::shared_ptr<const PhraseResult> result);
    void rebuildGrid();
    void rebuildDifference();
    void rebuildSimilarity();
    void rebuildFurther();
    void updateTables();
    void onGridMove(QMouseEvent *event);
    void onGridRelease(QMouseEvent *event);
    std::optional<std::pair<PhraseCell, std::pair<qint64, qint64>>>
    cellAt(const QPointF &pos) const;
    // Shows `message` below the rows, the row it is about tinted; one message at a time.
    void showRowError(int row, const QString &message);
    void clearRowError();
    void setCompareError(const QString &message);

    ExplorerState *m_state;
    QVBoxLayout *m_rowsLayout;
    QList<Row> m_rows;
    QPushButton *m_addPhrase;
    FieldForm *m_settings;
    FieldForm *m_page;
    QLabel *m_pageInfo;
    QPushButton *m_reseed;
    QComboBox *m_compareA;
    QComboBox *m_compareB;
    MessageSlot *m_rowMessage;       // a refused phrase's message, below the rows
    QWidget *m_messageRow = nullptr; // the row (its widget) the message is about
    MessageSlot *m_message;          // a refused comparison's message
    QTableView *m_vocabulary;
    QTableView *m_ids;
    VocabularyModel *m_vocabularyModel;
    PhraseIdsModel *m_idsModel;
    QCustomPlot *m_gridPlot;
    QCustomPlot *m_differencePlot;
    QCustomPlot *m_similarityPlot;
    QList<QCustomPlot *> m_furtherPlots; // in furtherViews()' order
    QLabel *m_readout;
    QList<PhraseCell> m_cells;
    std::shared_ptr<const PhraseResult> m_result;
    QPointF m_pressPos;
    QStringList m_shownPhrases; // the state's phrases when the rows were last synced
    bool m_ownChange = false;   // the state's phrases are being set by this view
};

} // namespace pe
