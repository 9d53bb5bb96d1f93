// PhraseView: the phrase page. The user edits two or more phrases and the vectorizer settings;
// the page shows the vocabulary, the token ids, the random-vs-fixed grid of seed 001, the
// difference B - A, and the cosine similarity of a clicked token to the other phrase.
#pragma once

#include "compute/computescheduler.h"
#include "state/explorerstate.h"
#include "figures/figurebuilder.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QPushButton;
class QTableWidget;
class QToolButton;
class QVBoxLayout;

namespace pe {

class StepEdit;

class PhraseView : public QWidget
{
    Q_OBJECT
public:
    PhraseView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent = nullptr);

    QCustomPlot *gridPlot() const { return m_gridPlot; }
    QCustomPlot *similarityPlot() const { return m_similarityPlot; }
    QTableWidget *vocabularyTable() const { return m_vocabulary; }
    QTableWidget *idsTable() const { return m_ids; }
    int phraseEditCount() const { return int(m_rows.size()); }
    QLineEdit *phraseEdit(int index) const;
    QPushButton *addPhraseButton() const { return m_addPhrase; }
    QString message() const;
    QString readout() const;
    std::shared_ptr<const PhraseResult> result() const { return m_result; }
    // Widget coordinates (of gridPlot()) of cell (token, dim) of a phrase's heatmap.
    QPoint gridCellCentre(int phrase, EmbeddingMode mode, qint64 token, qint64 dim) const;

public slots:
    void addPhrase();
    void removePhrase(int index);
    void reseed();

private:
    struct Row
    {
        QWidget *widget = nullptr;
        QLabel *title = nullptr;
        QLineEdit *edit = nullptr;
        QToolButton *remove = nullptr;
    };
    void appendRow();
    void applyPhrases(int removedIndex = -1);
    void applyNumbers(QWidget *field);
    void applyCompare();
    void refresh();
    void syncRows();
    void onResult(std::shared_ptr<const PhraseResult> result);
    void rebuildGrid();
    void rebuildDifference();
    void rebuildSimilarity();
    void updateTables();
    void onGridMove(QMouseEvent *event);
    void onGridRelease(QMouseEvent *event);
    std::optional<std::pair<PhraseCell, std::pair<qint64, qint64>>>
    cellAt(const QPointF &pos) const;
    void setError(QWidget *field, const QString &message);
    void clearError(QWidget *field);
    void updateMessage();

    ExplorerState *m_state;
    QVBoxLayout *m_rowsLayout;
    QList<Row> m_rows;
    QPushButton *m_addPhrase;
    StepEdit *m_maxTokens;
    StepEdit *m_sequenceLength;
    StepEdit *m_dims;
    QLineEdit *m_seed;
    QPushButton *m_reseed;
    QComboBox *m_compareA;
    QComboBox *m_compareB;
    QLabel *m_message;
    QTableWidget *m_vocabulary;
    QTableWidget *m_ids;
    QCustomPlot *m_gridPlot;
    QCustomPlot *m_differencePlot;
    QCustomPlot *m_similarityPlot;
    QLabel *m_readout;
    QList<PhraseCell> m_cells;
    std::shared_ptr<const PhraseResult> m_result;
    QHash<QWidget *, QString> m_errors;
    bool m_applying = false;
    QPointF m_pressPos;
};

} // namespace pe
