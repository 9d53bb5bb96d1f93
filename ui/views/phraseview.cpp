#include "views/phraseview.h"

#include "widgets/fieldmarks.h"
#include "figures/plottheme.h"
#include "widgets/stepedit.h"

#include "figures/qcpinclude.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace pe {

PhraseView::PhraseView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_rowsLayout(new QVBoxLayout),
      m_addPhrase(new QPushButton(tr("&Add phrase"), this)), m_maxTokens(new StepEdit(this)),
      m_sequenceLength(new StepEdit(this)), m_dims(new StepEdit(this)), m_seed(new QLineEdit(this)),
      m_reseed(new QPushButton(tr("&Reseed"), this)), m_compareA(new QComboBox(this)),
      m_compareB(new QComboBox(this)), m_message(new QLabel(this)),
      m_vocabulary(new QTableWidget(this)), m_ids(new QTableWidget(this)),
      m_gridPlot(new QCustomPlot(this)), m_differencePlot(new QCustomPlot(this)),
      m_similarityPlot(new QCustomPlot(this)), m_readout(new QLabel(this))
{
    m_addPhrase->setObjectName(QStringLiteral("addPhrase"));
    m_addPhrase->setToolTip(tr("Add another phrase to compare (Ctrl+Shift+N)"));
    m_maxTokens->setObjectName(QStringLiteral("maxTokens"));
    m_maxTokens->setRange(3, limits::maxPositions);
    m_maxTokens->setToolTip(tr("Keras TextVectorization max_tokens: vocabulary size including '' "
                               "and [UNK]; also the word table's rows"));
    m_sequenceLength->setObjectName(QStringLiteral("sequenceLength"));
    m_sequenceLength->setRange(1, limits::maxPositions);
    m_sequenceLength->setToolTip(tr("output_sequence_length: each phrase is padded with 0 or "
                                    "cut to this many tokens"));
    m_dims->setObjectName(QStringLiteral("phraseDims"));
    m_dims->setRange(1, limits::maxDims);
    m_dims->setToolTip(tr("Embedding output dimension"));
    m_seed->setObjectName(QStringLiteral("phraseSeed"));
    m_seed->setToolTip(tr("Seed of the random embedding row"));
    m_reseed->setObjectName(QStringLiteral("reseed"));
    m_reseed->setToolTip(tr("Draw a new random embedding (Ctrl+R)"));
    m_compareA->setObjectName(QStringLiteral("compareA"));
    m_compareA->setToolTip(tr("Phrase A of the difference B − A"));
    for (QComboBox *combo : {m_compareA, m_compareB}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
    }
    m_compareB->setObjectName(QStringLiteral("compareB"));
    m_compareB->setToolTip(tr("Phrase B of the difference B − A; a clicked token is compared "
                              "with the other phrase of the pair"));
    m_message->setObjectName(QStringLiteral("phraseMessage"));
    m_message->setWordWrap(true);
    markAsMessage(m_message);
    m_message->setToolTip(tr("Why the last edit was refused; the view keeps the last good value"));
    m_message->hide();
    m_vocabulary->setObjectName(QStringLiteral("vocabulary"));
    m_vocabulary->setColumnCount(2);
    m_vocabulary->setHorizontalHeaderLabels({tr("id"), tr("token")});
    m_vocabulary->verticalHeader()->hide();
    m_vocabulary->horizontalHeader()->setStretchLastSection(true);
    m_vocabulary->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_vocabulary->setToolTip(tr("The adapted vocabulary: '' (padding, 0), [UNK] (1), then tokens "
                                "by count, ties by token descending"));
    m_ids->setObjectName(QStringLiteral("tokenIds"));
    m_ids->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ids->setToolTip(tr("Token ids of each phrase (rows) at each position (columns); hover a "
                         "cell for its token"));
    m_gridPlot->setObjectName(QStringLiteral("phraseGridPlot"));
    m_gridPlot->setToolTip(tr("Random (top) and fixed (bottom) embeddings of each phrase; click "
                              "a token row to compare it with the other phrase"));
    m_gridPlot->setMinimumSize(300, 250);
    m_differencePlot->setObjectName(QStringLiteral("phraseDifferencePlot"));
    m_differencePlot->setToolTip(tr("Phrase B minus phrase A, for both embeddings (RdBu)"));
    m_differencePlot->setMinimumSize(200, 150);
    m_similarityPlot->setObjectName(QStringLiteral("phraseSimilarityPlot"));
    m_similarityPlot->setToolTip(
        tr("Cosine similarity of the clicked token to every token of the other phrase"));
    m_similarityPlot->setMinimumSize(200, 150);
    m_readout->setObjectName(QStringLiteral("phraseReadout"));
    m_readout->setToolTip(tr("The cell under the mouse"));

    // Left: inputs and tables.
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    auto *phrasesBox = new QGroupBox(tr("Phrases"), left);
    auto *phrasesLayout = new QVBoxLayout(phrasesBox);
    phrasesLayout->addLayout(m_rowsLayout);
    phrasesLayout->addWidget(m_addPhrase);
    leftLayout->addWidget(phrasesBox);
    auto *settingsBox = new QGroupBox(tr("Vectorizer and embedding"), left);
    auto *form = new QFormLayout(settingsBox);
    form->addRow(tr("Max &tokens"), m_maxTokens);
    form->addRow(tr("Se&quence length"), m_sequenceLength);
    form->addRow(tr("Output d&ims"), m_dims);
    auto *seedRow = new QHBoxLayout;
    seedRow->addWidget(m_seed, 1);
    seedRow->addWidget(m_reseed);
    form->addRow(tr("Random s&eed"), seedRow);
    auto *compareRow = new QHBoxLayout;
    compareRow->addWidget(new QLabel(tr("B"), left));
    compareRow->addWidget(m_compareB, 1);
    compareRow->addWidget(new QLabel(tr("− A"), left));
    compareRow->addWidget(m_compareA, 1);
    form->addRow(tr("Compare"), compareRow);
    leftLayout->addWidget(settingsBox);
    leftLayout->addWidget(m_message);
    leftLayout->addWidget(new QLabel(tr("Vocabulary"), left));
    leftLayout->addWidget(m_vocabulary, 2);
    leftLayout->addWidget(new QLabel(tr("Token ids"), left));
    leftLayout->addWidget(m_ids, 1);

    auto *gridBox = new QWidget(this);
    auto *gridLayout = new QVBoxLayout(gridBox);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    gridLayout->addWidget(m_gridPlot, 1);
    gridLayout->addWidget(m_readout);
    auto *bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_differencePlot);
    bottom->addWidget(m_similarityPlot);
    auto *right = new QSplitter(Qt::Vertical, this);
    right->setObjectName(QStringLiteral("phraseRightSplitter"));
    right->addWidget(gridBox);
    right->addWidget(bottom);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setSizes({600, 400});
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    // Wide enough for the inputs without a horizontal scroll bar.
    scroll->setMinimumWidth(qMax(300, left->minimumSizeHint().width() + 24));
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("phraseSplitter"));
    split->addWidget(scroll);
    split->addWidget(right);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({400, 1000});
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_addPhrase, &QPushButton::clicked, this, &PhraseView::addPhrase);
    connect(m_reseed, &QPushButton::clicked, this, &PhraseView::reseed);
    for (StepEdit *edit : {m_maxTokens, m_sequenceLength, m_dims}) {
        connect(edit, &StepEdit::textEdited, this, [this, edit] { applyNumbers(edit); });
        connect(edit, &StepEdit::stepped, this, [this, edit] { applyNumbers(edit); });
    }
    connect(m_seed, &QLineEdit::textEdited, this, [this] { applyNumbers(m_seed); });
    connect(m_compareA, &QComboBox::activated, this, &PhraseView::applyCompare);
    connect(m_compareB, &QComboBox::activated, this, &PhraseView::applyCompare);
    connect(scheduler, &ComputeScheduler::phrasesReady, this, &PhraseView::onResult);
    connect(scheduler, &ComputeScheduler::phrasesFailed, this, [this](const QString &message) {
        if (!m_result)
            m_readout->setText(message);
    });
    connect(state, &ExplorerState::phraseSettingsChanged, this, &PhraseView::refresh);
    connect(state, &ExplorerState::compareChanged, this, [this] {
        refresh();
        rebuildDifference();
        rebuildSimilarity();
    });
    connect(state, &ExplorerState::phraseSelectionChanged, this, [this] {
        rebuildGrid();
        rebuildSimilarity();
    });
    for (auto signal : {&ExplorerState::colormapChanged, &ExplorerState::themeChanged})
        connect(state, signal, this, [this] {
            rebuildGrid();
            rebuildDifference();
            rebuildSimilarity();
        });
    connect(m_gridPlot, &QCustomPlot::mouseMove, this, &PhraseView::onGridMove);
    connect(m_gridPlot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent *event) { m_pressPos = event->position(); });
    connect(m_gridPlot, &QCustomPlot::mouseRelease, this, &PhraseView::onGridRelease);
    refresh();
}

QLineEdit *PhraseView::phraseEdit(int index) const
{
    return index >= 0 && index < m_rows.size() ? m_rows[index].edit : nullptr;
}

QString PhraseView::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
}

QString PhraseView::readout() const
{
    return m_readout->text();
}

void PhraseView::addPhrase()
{
    appendRow();
    // A new row starts empty: it is refused (with a message) until the user types a phrase.
    m_rows.last().edit->setFocus();
    applyPhrases();
}

void PhraseView::appendRow()
{
    Row row;
    row.widget = new QWidget(this);
    auto *layout = new QHBoxLayout(row.widget);
    layout->setContentsMargins(0, 0, 0, 0);
    row.title = new QLabel(row.widget);
    row.edit = new QLineEdit(row.widget);
    row.edit->setObjectName(QStringLiteral("phrase%1").arg(m_rows.size()));
    row.edit->setToolTip(tr("A phrase; Keras' standardisation lower-cases it and strips "
                            "punctuation, then splits on whitespace"));
    row.remove = new QToolButton(row.widget);
    row.remove->setText(QStringLiteral("×"));
    row.remove->setToolTip(tr("Remove this phrase (at least two stay)"));
    layout->addWidget(row.title);
    layout->addWidget(row.edit, 1);
    layout->addWidget(row.remove);
    m_rowsLayout->addWidget(row.widget);
    connect(row.edit, &QLineEdit::textEdited, this, [this] { applyPhrases(); });
    connect(row.remove, &QToolButton::clicked, this, [this, w = row.widget] {
        for (int i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].widget == w)
                removePhrase(i);
    });
    m_rows.append(row);
    for (int i = 0; i < m_rows.size(); ++i) {
        m_rows[i].title->setText(m_state->phraseSettings().title(i) + QLatin1Char(':'));
        m_rows[i].remove->setEnabled(m_rows.size() > 2);
    }
}

void PhraseView::removePhrase(int index)
{
    if (index < 0 || index >= m_rows.size() || m_rows.size() <= 2)
        return;
    clearError(m_rows[index].edit);
    delete m_rows[index].widget;
    m_rows.removeAt(index);
    for (int i = 0; i < m_rows.size(); ++i)
        m_rows[i].remove->setEnabled(m_rows.size() > 2);
    applyPhrases(index);
}

void PhraseView::reseed()
{
    m_state->reseedPhrases();
}

void PhraseView::applyPhrases(int removedIndex)
{
    PhraseSettings settings = m_state->phraseSettings();
    settings.phrases.clear();
    for (const Row &row : m_rows)
        settings.phrases.append(row.edit->text());
    // Titles belong to phrases: a removed phrase takes its title with it.
    if (removedIndex >= 0 && removedIndex < settings.titles.size())
        settings.titles.removeAt(removedIndex);
    while (settings.titles.size() > settings.phrases.size())
        settings.titles.removeLast();
    QString error;
    m_applying = true;
    const bool ok = m_state->setPhraseSettings(settings, &error);
    m_applying = false;
    for (const Row &row : m_rows)
        clearError(row.edit);
    if (!ok) {
        // Point at the phrase the message names, else the last one.
        int bad = int(m_rows.size()) - 1;
        for (int i = 0; i < m_rows.size(); ++i)
            if (error.contains(QStringLiteral("phrase %1 ").arg(i + 1))) {
                bad = i;
                break;
            }
        setError(m_rows[bad].edit, error);
    }
}

void PhraseView::applyNumbers(QWidget *field)
{
    PhraseSettings settings = m_state->phraseSettings();
    QString error;
    bool ok = true;
    auto readInteger = [&](QLineEdit *edit, const QString &name, qint64 *out) {
        bool good = false;
        const qint64 v = edit->text().trimmed().toLongLong(&good);
        if (!good) {
            error = tr("%1: \"%2\" is not a whole number").arg(name, edit->text().trimmed());
            ok = false;
        } else {
            *out = v;
        }
    };
    if (field == m_maxTokens)
        readInteger(m_maxTokens, tr("max tokens"), &settings.maxTokens);
    else if (field == m_sequenceLength)
        readInteger(m_sequenceLength, tr("sequence length"), &settings.sequenceLength);
    else if (field == m_dims)
        readInteger(m_dims, tr("output dims"), &settings.dims);
    else if (field == m_seed) {
        settings.seed = m_seed->text().trimmed().toULongLong(&ok);
        if (!ok)
            error = tr("seed: \"%1\" is not a non-negative whole number").arg(m_seed->text());
    }
    if (ok) {
        m_applying = true;
        ok = m_state->setPhraseSettings(settings, &error);
        m_applying = false;
    }
    if (ok)
        clearError(field);
    else
        setError(field, error);
}

void PhraseView::applyCompare()
{
    QString error;
    if (m_state->setCompare(m_compareA->currentIndex(), m_compareB->currentIndex(), &error)) {
        clearError(m_compareA);
    } else {
        setError(m_compareA, error);
    }
}

void PhraseView::syncRows()
{
    const PhraseSettings &settings = m_state->phraseSettings();
    while (m_rows.size() > settings.phrases.size()) {
        clearError(m_rows.last().edit);
        delete m_rows.last().widget;
        m_rows.removeLast();
    }
    while (m_rows.size() < settings.phrases.size())
        appendRow();
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].edit->text() != settings.phrases[i])
            m_rows[i].edit->setText(settings.phrases[i]);
        clearError(m_rows[i].edit);
        m_rows[i].title->setText(settings.title(i) + QLatin1Char(':'));
        m_rows[i].remove->setEnabled(m_rows.size() > 2);
    }
}

void PhraseView::refresh()
{
    const PhraseSettings &settings = m_state->phraseSettings();
    if (!m_applying) {
        m_applying = true;
        syncRows();
        m_applying = false;
    }
    auto sync = [this](QLineEdit *edit, const QString &text) {
        if (!m_errors.contains(edit) && edit->text().trimmed() != text)
            edit->setText(text);
    };
    sync(m_maxTokens, QString::number(settings.maxTokens));
    sync(m_sequenceLength, QString::number(settings.sequenceLength));
    sync(m_dims, QString::number(settings.dims));
    sync(m_seed, QString::number(settings.seed));
    const QSignalBlocker a(m_compareA), b(m_compareB);
    for (QComboBox *combo : {m_compareA, m_compareB}) {
        combo->clear();
        for (int i = 0; i < settings.phrases.size(); ++i)
            combo->addItem(settings.title(i));
    }
    m_compareA->setCurrentIndex(m_state->compareA());
    m_compareB->setCurrentIndex(m_state->compareB());
}

void PhraseView::setError(QWidget *field, const QString &message)
{
    m_errors.insert(field, message);
    markInvalid(field, true);
    updateMessage();
}

void PhraseView::clearError(QWidget *field)
{
    if (!m_errors.remove(field))
        return;
    markInvalid(field, false);
    updateMessage();
}

void PhraseView::updateMessage()
{
    if (m_errors.isEmpty()) {
        m_message->clear();
        m_message->hide();
        return;
    }
    QStringList lines = m_errors.values();
    lines.sort();
    m_message->setText(tr("Refused: %1").arg(lines.join(QStringLiteral("\n"))));
    m_message->show();
}

void PhraseView::onResult(std::shared_ptr<const PhraseResult> result)
{
    m_result = std::move(result);
    updateTables();
    rebuildGrid();
    rebuildDifference();
    rebuildSimilarity();
}

void PhraseView::updateTables()
{
    const PhraseEmbedding &e = m_result->fixed;
    m_vocabulary->setRowCount(int(e.vocabulary.size()));
    for (int i = 0; i < e.vocabulary.size(); ++i) {
        m_vocabulary->setItem(i, 0, new QTableWidgetItem(QString::number(i)));
        m_vocabulary->setItem(
            i, 1, new QTableWidgetItem(i == 0 ? QStringLiteral("'' (padding)") : e.vocabulary[i]));
    }
    const PhraseSettings &s = m_result->settings;
    m_ids->setRowCount(int(e.ids.size()));
    m_ids->setColumnCount(int(s.sequenceLength));
    QStringList rowLabels, columnLabels;
    for (qint64 p = 0; p < s.sequenceLength; ++p)
        columnLabels.append(QString::number(p));
    m_ids->setHorizontalHeaderLabels(columnLabels);
    for (int b = 0; b < int(e.ids.size()); ++b) {
        rowLabels.append(s.title(b));
        for (qint64 p = 0; p < s.sequenceLength; ++p) {
            auto *item =
                new QTableWidgetItem(QString::number(e.ids[std::size_t(b)][std::size_t(p)]));
            item->setToolTip(FigureBuilder::tokenLabel(*m_result, b, p));
            m_ids->setItem(b, int(p), item);
        }
    }
    m_ids->setVerticalHeaderLabels(rowLabels);
    m_ids->resizeColumnsToContents();
}

void PhraseView::rebuildGrid()
{
    if (!m_result)
        return;
    const FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    m_cells = builder.buildPhraseGrid(m_gridPlot, *m_result);
    m_gridPlot->replot(QCustomPlot::rpQueuedRefresh);
}

void PhraseView::rebuildDifference()
{
    if (!m_result)
        return;
    const FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    builder.buildPhraseDifference(m_differencePlot, *m_result);
    m_differencePlot->replot(QCustomPlot::rpQueuedRefresh);
}

void PhraseView::rebuildSimilarity()
{
    if (!m_result)
        return;
    const FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    builder.buildTokenSimilarity(m_similarityPlot, *m_result);
    m_similarityPlot->replot(QCustomPlot::rpQueuedRefresh);
}

std::optional<std::pair<PhraseCell, std::pair<qint64, qint64>>>
PhraseView::cellAt(const QPointF &pos) const
{
    if (!m_result)
        return std::nullopt;
    for (const PhraseCell &cell : m_cells) {
        if (!cell.rect->rect().contains(pos.toPoint()))
            continue;
        const double key = cell.rect->axis(QCPAxis::atTop)->pixelToCoord(pos.x());
        const double value = cell.rect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
        const qint64 dim = qint64(std::floor(key + 0.5));
        const qint64 token = qint64(std::floor(value + 0.5));
        if (dim < 0 || dim >= m_result->settings.dims || token < 0 ||
            token >= m_result->settings.sequenceLength)
            return std::nullopt;
        return std::pair{cell, std::pair{token, dim}};
    }
    return std::nullopt;
}

QPoint PhraseView::gridCellCentre(int phrase, EmbeddingMode mode, qint64 token, qint64 dim) const
{
    for (const PhraseCell &cell : m_cells)
        if (cell.phrase == phrase && cell.mode == mode)
            return QPoint(
                int(std::lround(cell.rect->axis(QCPAxis::atTop)->coordToPixel(double(dim)))),
                int(std::lround(cell.rect->axis(QCPAxis::atLeft)->coordToPixel(double(token)))));
    return {};
}

void PhraseView::onGridMove(QMouseEvent *event)
{
    const auto hit = cellAt(event->position());
    if (!hit) {
        m_readout->setText(tr("Hover over a heatmap for the token and value; click a row to "
                              "compare that token"));
        return;
    }
    const auto &[cell, where] = *hit;
    const auto [token, dim] = where;
    const float value = m_result->vector(cell.mode, cell.phrase, token)[dim];
    m_readout->setText(tr("%1, token %2 “%3” (id %4), dim %5: %6 = %7")
                           .arg(m_result->settings.title(cell.phrase))
                           .arg(token)
                           .arg(FigureBuilder::tokenLabel(*m_result, cell.phrase, token))
                           .arg(m_result->fixed.ids[std::size_t(cell.phrase)][std::size_t(token)])
                           .arg(dim)
                           .arg(nameOf(embeddingModeNames, cell.mode))
                           .arg(double(value), 0, 'f', 5));
}

void PhraseView::onGridRelease(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton ||
        (event->position() - m_pressPos).manhattanLength() > 4.0)
        return;
    if (const auto hit = cellAt(event->position()))
        m_state->setPhraseSelection({hit->first.phrase, hit->second.first, hit->first.mode});
}

} // namespace pe
