#include "views/phraseview.h"

#include "figures/fittedtext.h"
#include "figures/plottheme.h"
#include "figures/viewfigures.h"
#include "views/modelphraseview.h"
#include "widgets/fieldform.h"
#include "widgets/fieldmarks.h"
#include "widgets/fittingscrollarea.h"
#include "widgets/limitedlineedit.h"
#include "widgets/messageslot.h"
#include "widgets/plotpane.h"

#include "figures/qcpinclude.h"
#include "widgets/figureplot.h"
#include "widgets/windowzoom.h"

#include <QAbstractTableModel>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace pe {

// The adapted vocabulary, row by row on demand: a view asks only for the rows it shows, so a
// vocabulary of millions of tokens costs what the screen holds.
class VocabularyModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(std::shared_ptr<const PhraseResult> result)
    {
        beginResetModel();
        m_result = std::move(result);
        endResetModel();
    }
    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() || !m_result ? 0 : int(m_result->fixed.vocabulary.size());
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : 2;
    }
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (role != Qt::DisplayRole || !index.isValid() || !m_result)
            return {};
        if (index.column() == 0)
            return index.row();
        return index.row() == 0 ? QStringLiteral("'' (padding)")
                                : m_result->fixed.vocabulary.value(index.row());
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
            return {};
        return section == 0 ? QObject::tr("id") : QObject::tr("token");
    }

private:
    std::shared_ptr<const PhraseResult> m_result;
};

// Token ids: every phrase (rows) at the tokens of the current token page (columns), so the
// table never holds more columns than a page, whatever the sequence length.
class PhraseIdsModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(std::shared_ptr<const PhraseResult> result, const PhraseWindow &window)
    {
        beginResetModel();
        m_result = std::move(result);
        m_window = window;
        endResetModel();
    }
    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() || !m_result ? 0 : int(m_result->fixed.ids.size());
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() || !m_result ? 0 : int(m_window.tokens());
    }
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!index.isValid() || !m_result)
            return {};
        const qint64 token = m_window.firstToken + index.column();
        if (role == Qt::DisplayRole)
            return m_result->fixed.ids[std::size_t(index.row())][std::size_t(token)];
        if (role == Qt::ToolTipRole)
            return FigureBuilder::tokenLabel(*m_result, index.row(), token);
        return {};
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (role != Qt::DisplayRole || !m_result)
            return {};
        if (orientation == Qt::Horizontal)
            return m_window.firstToken + section;
        return m_result->settings.title(section);
    }

private:
    std::shared_ptr<const PhraseResult> m_result;
    PhraseWindow m_window;
};

namespace {

// Phrase `phrase` (from 0) would be longer than a phrase may be; `resulting` is its length had
// a paste gone in (0: not known).
QString tooLongMessage(qint64 phrase, qint64 resulting)
{
    QString text = QObject::tr("phrase %1 would be longer than %2 characters, the most a phrase "
                               "may hold (on the command line too)")
                       .arg(phrase + 1)
                       .arg(limits::maxPhraseLength);
    if (resulting > 0)
        text += QObject::tr("; the paste would make it %1: nothing was pasted").arg(resulting);
    return text + QObject::tr("; the last good phrase stays");
}

const QStringList settingsKeys{QStringLiteral("maxTokens"), QStringLiteral("sequenceLength"),
                               QStringLiteral("dims"), QStringLiteral("seed")};

QTableView *makeTable(QAbstractTableModel *model, QWidget *parent)
{
    auto *table = new QTableView(parent);
    table->setModel(model);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(false);
    // Fixed row heights and no sizing to contents: the table's cost stays bounded by what the
    // viewport shows.
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    return table;
}

} // namespace

PhraseView::PhraseView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_rowsLayout(new QVBoxLayout),
      m_addPhrase(new QPushButton(tr("&Add phrase"), this)), m_pageInfo(new QLabel(this)),
      m_reseed(new QPushButton(tr("&Reseed"), this)), m_compareA(new QComboBox(this)),
      m_compareB(new QComboBox(this)),
      m_rowMessage(new MessageSlot(2, MessageSlot::Height::Growing, true, this)),
      m_message(new MessageSlot(1, MessageSlot::Height::Growing, true, this)),
      m_vocabularyModel(new VocabularyModel(this)), m_idsModel(new PhraseIdsModel(this)),
      m_gridPlot(new FigurePlot(this)), m_differencePlot(new FigurePlot(this)),
      m_similarityPlot(new FigurePlot(this)), m_readout(new QLabel(this))
{
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] {
        rebuildGrid();
        rebuildDifference();
        rebuildSimilarity();
    });
    createForms(state);
    describeControls();
    describeTablesAndPlots();
    QWidget *inputs = buildInputsPanel(state);
    QWidget *figures = buildFiguresPanel();
    layOutPanels(inputs, figures, state, scheduler);
    connectControls(scheduler);
    connectState(state);
    connectGridMouse();
    refresh();
}

// The vocabulary and id tables and the two field forms (settings, pages).
void PhraseView::createForms(ExplorerState *state)
{
    m_vocabulary = makeTable(m_vocabularyModel, this);
    m_ids = makeTable(m_idsModel, this);
    m_settings =
        new FieldForm(std::make_unique<TableFormModel<PhraseSettings>>(
                          PhraseSettings::fields(), [state] { return state->phraseSettings(); },
                          [](const PhraseSettings &s) {
                              // The memory budgets of a whole phrase set, beside the field that
                              // broke them.
                              QString problem = s.validate();
                              if (problem.isEmpty())
                                  problem = windowPhraseProblem(s);
                              return FieldProblem{QString(), problem};
                          },
                          [state](const PhraseSettings &draft, QString *error) {
                              // Only this form's fields: the phrases and titles are the rows'
                              // business.
                              PhraseSettings s = state->phraseSettings();
                              s.maxTokens = draft.maxTokens;
                              s.sequenceLength = draft.sequenceLength;
                              s.dims = draft.dims;
                              s.seed = draft.seed;
                              return state->setPhraseSettings(s, error);
                          },
                          settingsKeys),
                      this);
    m_settings->setNamePrefix(QStringLiteral("phrase"));
    m_settings->setLabel(QStringLiteral("maxTokens"), tr("Max &tokens"));
    m_settings->setLabel(QStringLiteral("sequenceLength"), tr("Se&quence length"));
    m_settings->setLabel(QStringLiteral("dims"), tr("Output d&ims"));
    m_settings->setLabel(QStringLiteral("seed"), tr("Random s&eed"));
    m_page = new FieldForm(
        std::make_unique<TableFormModel<PhrasePage>>(
            PhrasePage::fields(), [state] { return state->phrasePage(); },
            [state](const PhrasePage &p) { return p.problem(state->phraseSettings()); },
            [state](const PhrasePage &p, QString *error) {
                return state->setPhrasePage(p, error);
            }),
        this);
    m_page->setLabel(QStringLiteral("phrasePage"), tr("&Phrase page"));
    m_page->setLabel(QStringLiteral("tokenPage"), tr("To&ken page"));
}

// Names and tooltips of the phrase, reseed and compare controls and the message slots.
void PhraseView::describeControls()
{
    m_addPhrase->setObjectName(QStringLiteral("addPhrase"));
    m_addPhrase->setToolTip(tr("Add another phrase to compare (Ctrl+Shift+N)"));
    m_pageInfo->setObjectName(QStringLiteral("phrasePageInfo"));
    m_pageInfo->setWordWrap(true);
    m_pageInfo->setToolTip(tr("The figures show %1 phrases and %2 tokens a page, and at most %3 "
                              "dims (sampled evenly beyond that); step the pages with Up/Down")
                               .arg(limits::phrasesPerPage)
                               .arg(limits::tokensPerPage)
                               .arg(limits::maxDrawnDims));
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
    // Both slots keep their room while empty: a message never moves the controls below it.
    m_rowMessage->setObjectName(QStringLiteral("phraseRowMessage"));
    m_rowMessage->setToolTip(tr("Why a phrase was refused; the state keeps the last good one"));
    m_message->setObjectName(QStringLiteral("phraseMessage"));
    m_message->setToolTip(tr("Why the last choice was refused; the view keeps the last good one"));
}

void PhraseView::describeTablesAndPlots()
{
    m_vocabulary->setObjectName(QStringLiteral("vocabulary"));
    m_vocabulary->verticalHeader()->hide();
    m_vocabulary->horizontalHeader()->setStretchLastSection(true);
    m_vocabulary->setToolTip(tr("The adapted vocabulary: '' (padding, 0), [UNK] (1), then tokens "
                                "by count, ties by token descending"));
    m_ids->setObjectName(QStringLiteral("tokenIds"));
    m_ids->setToolTip(tr("Token ids of each phrase (rows) at each position of the token page "
                         "(columns); hover a cell for its token"));
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
    // Token and dim ticks spaced by the laid-out heatmaps (QCustomPlot places them before).
    for (QCustomPlot *plot : {m_gridPlot, m_differencePlot, m_similarityPlot})
        relayTicksAfterLayout(plot);
    m_readout->setObjectName(QStringLiteral("phraseReadout"));
    // A readout's text changes with every hover and result: its length must not set the page's
    // (and so the window's) minimum width, which made a window sized to --size 900x600 903 px
    // wide whenever a longer text had arrived (tst_modelpage, 1 run in 3). Clipped instead.
    m_readout->setMinimumWidth(1);
    m_readout->setToolTip(tr("The cell under the mouse"));
    markAsWindowControl(m_readout);
}

// Left: the tokenizer choice, the phrases, the settings, the pages and the tables.
QWidget *PhraseView::buildInputsPanel(ExplorerState *state)
{
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    auto *phrasesBox = new QGroupBox(tr("Phrases"), left);
    auto *phrasesLayout = new QVBoxLayout(phrasesBox);
    phrasesLayout->addLayout(m_rowsLayout);
    phrasesLayout->addWidget(m_rowMessage);
    phrasesLayout->addWidget(m_addPhrase);
    // The tokenizer choice above the phrases; its figures replace the tutorial's (below).
    leftLayout->addWidget(makePhraseTokenizerChoice(state, left));
    leftLayout->addWidget(phrasesBox);
    auto *settingsBox = new QGroupBox(tr("Vectorizer and embedding"), left);
    auto *settingsLayout = new QVBoxLayout(settingsBox);
    settingsLayout->addWidget(m_settings);
    auto *form = new QFormLayout;
    form->addRow(QString(), m_reseed);
    // B and A on rows of their own: side by side they made the panel 400 of 1008 px at
    // 1024 x 600 (issue 38).
    form->addRow(tr("Compare B"), m_compareB);
    form->addRow(tr("− A"), m_compareA);
    form->addRow(QString(), m_message);
    settingsLayout->addLayout(form);
    leftLayout->addWidget(settingsBox);
    auto *pageBox = new QGroupBox(tr("Pages"), left);
    auto *pageLayout = new QVBoxLayout(pageBox);
    pageLayout->addWidget(m_page);
    pageLayout->addWidget(m_pageInfo);
    leftLayout->addWidget(pageBox);
    auto *vocabularyLabel = new QLabel(tr("Vocabulary"), left);
    auto *idsLabel = new QLabel(tr("Token ids"), left);
    leftLayout->addWidget(vocabularyLabel);
    leftLayout->addWidget(m_vocabulary, 2);
    leftLayout->addWidget(idsLabel);
    leftLayout->addWidget(m_ids, 1);
    // Only what applies to the tokenizer chosen (issue 38): TextVectorization's settings, its
    // random tables' seed, the grid's pages and the adapted vocabulary mean nothing to a model's
    // own tokenizer, whose page compares phrase B with A.
    const QList<QWidget *> tutorialOnly{m_settings,   m_reseed, pageBox, vocabularyLabel,
                                        m_vocabulary, idsLabel, m_ids};
    // Below them, a stretch takes the room the tables leave (the boxes keep their heights).
    leftLayout->addStretch(0);
    const int stretch = leftLayout->count() - 1;
    const auto follow = [state, settingsBox, tutorialOnly, leftLayout, stretch] {
        const bool tutorial = state->phraseSource().tokenizer == PhraseTokenizer::TextVectorization;
        for (QWidget *w : tutorialOnly)
            w->setVisible(tutorial);
        leftLayout->setStretch(stretch, tutorial ? 0 : 1);
        settingsBox->setTitle(tutorial ? tr("Vectorizer and embedding") : tr("Compared phrases"));
    };
    follow();
    connect(state, &ExplorerState::phraseSourceChanged, settingsBox, follow);
    return left;
}

// Right: the grid with its readout above the difference and similarity plots.
QWidget *PhraseView::buildFiguresPanel()
{
    auto *gridBox = new QWidget(this);
    auto *gridLayout = new QVBoxLayout(gridBox);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    gridLayout->addWidget(m_gridPlot, 1);
    gridLayout->addWidget(m_readout);
    auto *bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_differencePlot);
    bottom->addWidget(m_similarityPlot);
    for (FigureView view : furtherViews()) {
        auto *plot = new FigurePlot(this);
        plot->setObjectName(QStringLiteral("%1Plot").arg(figureViewName(view)));
        plot->setMinimumSize(200, 150);
        m_furtherPlots.append(plot);
        bottom->addWidget(plot);
    }
    auto *right = new QSplitter(Qt::Vertical, this);
    right->setObjectName(QStringLiteral("phraseRightSplitter"));
    right->addWidget(gridBox);
    right->addWidget(bottom);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setSizes({600, 400});
    return right;
}

void PhraseView::layOutPanels(QWidget *left, QWidget *right, ExplorerState *state,
                              ComputeScheduler *scheduler)
{
    // Wide enough for the inputs without a horizontal scroll bar, and no wider: it follows the
    // panel's rows (the combo boxes are made compact once the window is built, issue 38).
    auto *scroll = new FittingScrollArea(left, 300, this);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("phraseSplitter"));
    split->addWidget(scroll);
    split->addWidget(makePhraseFigureStack(right, state, scheduler, this));
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({1, 1000}); // the panel as narrow as its rows allow: the figures get the rest
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
}

void PhraseView::connectControls(ComputeScheduler *scheduler)
{
    connect(m_addPhrase, &QPushButton::clicked, this, &PhraseView::addPhrase);
    connect(m_reseed, &QPushButton::clicked, this, &PhraseView::reseed);
    connect(m_compareA, &QComboBox::activated, this, &PhraseView::applyCompare);
    connect(m_compareB, &QComboBox::activated, this, &PhraseView::applyCompare);
    connect(scheduler, &ComputeScheduler::phrasesReady, this, &PhraseView::onResult);
    connect(scheduler, &ComputeScheduler::phrasesFailed, this, [this](const QString &message) {
        if (!m_result)
            m_readout->setText(message);
    });
}

void PhraseView::connectState(ExplorerState *state)
{
    connect(state, &ExplorerState::phraseSettingsChanged, this, &PhraseView::refresh);
    connect(state, &ExplorerState::phraseSettingsChanged, m_settings, &FieldForm::refresh);
    for (auto signal : {&ExplorerState::phraseSettingsChanged, &ExplorerState::phrasePageChanged})
        connect(state, signal, m_page, &FieldForm::refresh);
    connect(state, &ExplorerState::phrasePageChanged, this, [this] {
        syncRows();
        updatePageInfo();
        if (!m_result)
            return;
        updateTables();
        rebuildGrid();
        rebuildDifference();
        rebuildSimilarity();
    });
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
}

void PhraseView::connectGridMouse()
{
    connect(m_gridPlot, &QCustomPlot::mouseMove, this, &PhraseView::onGridMove);
    connect(m_gridPlot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent *event) { m_pressPos = event->position(); });
    connect(m_gridPlot, &QCustomPlot::mouseRelease, this, &PhraseView::onGridRelease);
}

PhraseView::~PhraseView() = default;

QLineEdit *PhraseView::phraseEdit(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row].edit : nullptr;
}

QString PhraseView::message() const
{
    QStringList all;
    if (!m_rowMessage->isEmpty())
        all.append(m_rowMessage->message());
    all += m_settings->messages();
    all += m_page->messages();
    if (!m_message->isEmpty())
        all.append(m_message->message());
    return all.join(QLatin1Char('\n'));
}

QString PhraseView::readoutHint()
{
    return tr("Hover over a heatmap for the token and value; click a row to compare that token");
}

QString PhraseView::readout() const
{
    return m_readout->text();
}

void PhraseView::addPhrase()
{
    // The new phrase goes last: show the last page, where it will be.
    const qint64 count = m_state->phraseSettings().phrases.size();
    PhrasePage page = m_state->phrasePage();
    page.phrases = PhrasePage::phrasePages(m_state->phraseSettings());
    m_state->setPhrasePage(page);
    if (m_rows.isEmpty() || !m_rows.last().pending) {
        insertRow(int(m_rows.size()));
        m_rows.last().phrase = count;
        m_rows.last().pending = true;
        m_rows.last().title->setText(m_state->phraseSettings().title(int(count)) +
                                     QLatin1Char(':'));
    }
    m_rows.last().edit->setFocus();
    // A new row starts empty and unflagged: it joins the phrases once a phrase is typed, and an
    // empty one is refused (with a message) only when the user commits it, by Enter (issue 38
    // item 8: the row was red before anything was typed).
}

int PhraseView::rowOf(const QWidget *widget) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].widget == widget)
            return i;
    return -1;
}

void PhraseView::insertRow(int at)
{
    Row row;
    row.widget = new QWidget(this);
    auto *layout = new QHBoxLayout(row.widget);
    layout->setContentsMargins(0, 0, 0, 0);
    row.title = new QLabel(row.widget);
    // What the command line and sessions accept, not QLineEdit's 32,767 characters.
    auto *edit = new LimitedLineEdit(row.widget);
    edit->setLimit(limits::maxPhraseLength);
    row.edit = edit;
    row.edit->setToolTip(tr("A phrase; Keras' standardisation lower-cases it and strips "
                            "punctuation, then splits on whitespace. Applied on Enter, on "
                            "leaving the field or after a pause"));
    row.title->setBuddy(row.edit);
    row.remove = new QToolButton(row.widget);
    row.remove->setText(QStringLiteral("×"));
    row.remove->setToolTip(tr("Remove this phrase (at least two stay)"));
    row.pause = new QTimer(row.widget);
    row.pause->setSingleShot(true);
    row.pause->setInterval(FieldForm::commitPauseMs);
    layout->addWidget(row.title);
    layout->addWidget(row.edit, 1);
    layout->addWidget(row.remove);
    m_rowsLayout->insertWidget(at, row.widget);
    QWidget *key = row.widget;
    connect(row.edit, &QLineEdit::textEdited, this, [this, key] {
        if (const int i = rowOf(key); i >= 0) {
            m_rows[i].typing = true;
            m_rows[i].pause->start();
        }
    });
    const auto commitTyped = [this, key] {
        if (const int i = rowOf(key); i >= 0 && m_rows[i].typing)
            commitRow(i);
    };
    connect(edit, &LimitedLineEdit::pasteRefused, this, [this, key](qint64 resulting) {
        if (const int i = rowOf(key); i >= 0)
            showRowError(i, tooLongMessage(m_rows[i].phrase, resulting));
    });
    connect(row.pause, &QTimer::timeout, this, commitTyped);
    connect(row.edit, &QLineEdit::editingFinished, this, commitTyped);
    // Enter in a new row commits it even untouched: an empty phrase is then refused, visibly.
    connect(row.edit, &QLineEdit::returnPressed, this, [this, key] {
        if (const int i = rowOf(key); i >= 0 && m_rows[i].pending && !m_rows[i].typing)
            commitRow(i);
    });
    connect(row.remove, &QToolButton::clicked, this, [this, key] {
        if (const int i = rowOf(key); i >= 0)
            removePhrase(int(m_rows[i].phrase));
    });
    m_rows.insert(at, row);
    for (int i = 0; i < m_rows.size(); ++i) {
        m_rows[i].edit->setObjectName(QStringLiteral("phrase%1").arg(i));
        m_rows[i].remove->setObjectName(QStringLiteral("phrase%1Remove").arg(i));
    }
}

void PhraseView::dropRow(int at)
{
    // Later: the row may be the sender of the signal being handled. Its names go at once, so
    // that a lookup by name finds only the rows shown.
    QWidget *widget = m_rows[at].widget;
    if (m_messageRow == widget)
        clearRowError();
    for (QObject *named : widget->findChildren<QObject *>())
        named->setObjectName(QString());
    m_rows.removeAt(at);
    widget->hide();
    widget->deleteLater();
}

void PhraseView::removePhrase(int index)
{
    PhraseSettings settings = m_state->phraseSettings();
    if (index >= settings.phrases.size()) { // a new phrase that was never accepted
        for (int i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].phrase == index) {
                dropRow(i);
                break;
            }
        return;
    }
    if (index < 0 || settings.phrases.size() <= 2)
        return;
    settings.phrases.removeAt(index);
    // Titles belong to phrases: a removed phrase takes its title with it.
    if (index < settings.titles.size())
        settings.titles.removeAt(index);
    QString error;
    if (!setOwnPhraseSettings(settings, &error))
        for (int i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].phrase == index)
                showRowError(i, error);
}

void PhraseView::reseed()
{
    m_state->reseedPhrases();
}

void PhraseView::commitRow(int row)
{
    m_rows[row].typing = false;
    m_rows[row].pause->stop();
    QWidget *key = m_rows[row].widget;
    // Only this row's text: another row's half-typed text is not the user's to apply yet.
    PhraseSettings settings = m_state->phraseSettings();
    const qint64 phrase = m_rows[row].phrase;
    const bool isNew = phrase >= settings.phrases.size();
    const QString text = m_rows[row].edit->text();
    // The line holds one character past the limit at most: how much more was typed is unknown.
    if (text.size() > limits::maxPhraseLength) {
        showRowError(row, tooLongMessage(phrase, 0));
        return;
    }
    if (isNew)
        settings.phrases.append(text);
    else
        settings.phrases[phrase] = text;
    while (settings.titles.size() > settings.phrases.size())
        settings.titles.removeLast();
    // The row is the new phrase's own once the state holds it (the rows are synced while the
    // state tells of it); refused, it stays the new phrase's row.
    m_rows[row].pending = false;
    QString error;
    if (!setOwnPhraseSettings(settings, &error)) {
        m_rows[row].pending = isNew;
        showRowError(row, error);
        return;
    }
    if (isNew) { // follow the new phrase to its page (it may have opened one)
        PhrasePage page = m_state->phrasePage();
        page.phrases = phrase / limits::phrasesPerPage + 1;
        m_state->setPhrasePage(page);
    }
    syncRows();
    if (m_messageRow == key)
        clearRowError();
    if (const int i = rowOf(key); i >= 0)
        m_rows[i].edit->setModified(false); // applied: Ctrl+Z undoes it in the window
}

void PhraseView::showRowError(int row, const QString &message)
{
    // The message may name another phrase on this page (phrase N is 1-based).
    int target = row;
    for (int i = 0; i < m_rows.size(); ++i)
        if (message.contains(QStringLiteral("phrase %1 ").arg(m_rows[i].phrase + 1))) {
            target = i;
            break;
        }
    for (int i = 0; i < m_rows.size(); ++i)
        markInvalid(m_rows[i].edit, i == target);
    m_messageRow = m_rows[target].widget;
    m_rowMessage->setMessage(message);
}

void PhraseView::clearRowError()
{
    if (const int i = rowOf(m_messageRow); i >= 0)
        markInvalid(m_rows[i].edit, false);
    m_messageRow = nullptr;
    m_rowMessage->setMessage(QString());
}

void PhraseView::applyCompare()
{
    QString error;
    setCompareError(
        m_state->setCompare(m_compareA->currentIndex(), m_compareB->currentIndex(), &error)
            ? QString()
            : error);
}

void PhraseView::setCompareError(const QString &message)
{
    m_message->setMessage(message);
    markInvalid(m_compareA, !message.isEmpty());
}

void PhraseView::syncRows()
{
    const PhraseSettings &settings = m_state->phraseSettings();
    const qint64 count = settings.phrases.size();
    const PhraseWindow w = m_state->phraseWindow();
    // Phrases replaced from elsewhere (a preset, a session, an undo): the rows show the state's
    // phrases and nothing else, so typed text and a new phrase not yet accepted go.
    const bool replaced = !m_ownChange && settings.phrases != m_shownPhrases;
    m_shownPhrases = settings.phrases;
    // A new phrase not yet accepted keeps its row, after the last page's phrases. Only the row
    // addPhrase made is one: a row left over from a removed phrase is dropped like any other.
    const bool hasNew = !m_rows.isEmpty() && m_rows.last().pending;
    const bool keepNew = hasNew && !replaced && w.endPhrase == count;
    if (hasNew && !keepNew)
        dropRow(int(m_rows.size()) - 1);
    const int shown = int(w.phrases());
    const int existing = int(m_rows.size()) - (keepNew ? 1 : 0);
    for (int i = existing - 1; i >= shown; --i)
        dropRow(i);
    for (int i = existing; i < shown; ++i)
        insertRow(i);
    for (int i = 0; i < m_rows.size(); ++i) {
        Row &r = m_rows[i];
        const bool isNew = keepNew && i == m_rows.size() - 1;
        const qint64 phrase = isNew ? count : w.firstPhrase + i;
        const bool moved = r.phrase != phrase;
        r.phrase = phrase;
        // Text typed and not yet applied stays: the user is not done with it.
        const bool busy = !replaced && r.typing && r.edit->hasFocus() && !moved;
        if (!busy && !isNew) {
            r.typing = false;
            r.pause->stop();
            if (r.edit->text() != settings.phrases[phrase])
                r.edit->setText(settings.phrases[phrase]);
            if (m_messageRow == r.widget)
                clearRowError(); // it explained text that is gone
        }
        r.title->setText(settings.title(int(phrase)) + QLatin1Char(':'));
        r.remove->setEnabled(isNew || count > 2);
    }
}

bool PhraseView::setOwnPhraseSettings(const PhraseSettings &settings, QString *error)
{
    const QScopedValueRollback own(m_ownChange, true);
    return m_state->setPhraseSettings(settings, error);
}

void PhraseView::updatePageInfo()
{
    const PhraseSettings &s = m_state->phraseSettings();
    const PhraseWindow w = m_state->phraseWindow();
    QString text = tr("Phrases %1–%2 of %3; tokens %4–%5 of %6")
                       .arg(w.firstPhrase + 1)
                       .arg(w.endPhrase)
                       .arg(s.phrases.size())
                       .arg(w.firstToken)
                       .arg(w.endToken - 1)
                       .arg(s.sequenceLength);
    if (w.dimStride > 1)
        text += tr("; %1 of %2 dims drawn (sampled)").arg(w.drawnDims()).arg(s.dims);
    m_pageInfo->setText(text);
}

void PhraseView::refresh()
{
    const PhraseSettings &settings = m_state->phraseSettings();
    syncRows();
    updatePageInfo();
    const QSignalBlocker a(m_compareA), b(m_compareB);
    QStringList titles;
    titles.reserve(settings.phrases.size());
    for (int i = 0; i < settings.phrases.size(); ++i)
        titles.append(settings.title(i));
    for (QComboBox *combo : {m_compareA, m_compareB}) {
        combo->clear();
        combo->addItems(titles);
    }
    m_compareA->setCurrentIndex(m_state->compareA());
    m_compareB->setCurrentIndex(m_state->compareB());
    setCompareError(QString());
}

void PhraseView::onResult(std::shared_ptr<const PhraseResult> result)
{
    m_result = std::move(result);
    m_readout->setText(readoutHint()); // the hovered cell's numbers were the old phrases'

    updateTables();
    rebuildGrid();
    rebuildDifference();
    rebuildSimilarity();
}

void PhraseView::updateTables()
{
    const PhraseWindow w = m_state->phrasePage().window(m_result->settings);
    m_vocabularyModel->setResult(m_result);
    m_idsModel->setResult(m_result, w);
    // Columns as wide as the widest id can be, without measuring every cell.
    const int width =
        m_ids->fontMetrics().horizontalAdvance(QString::number(m_result->settings.maxTokens)) + 16;
    m_ids->horizontalHeader()->setDefaultSectionSize(qMax(width, 32));
    m_vocabulary->setColumnWidth(0, qMax(width, 40));
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
    // Every change that redraws the similarity (the phrases, the compared pair, the clicked
    // token, the colours) redraws the further views too.
    rebuildFurther();
}

QList<FigureView> PhraseView::furtherViews()
{
    QList<FigureView> views = viewsOf(Page::Phrases);
    views.removeIf([](FigureView view) {
        return viewReadsModelPhrases(view) || view == FigureView::Phrases ||
               view == FigureView::PhraseDifference || view == FigureView::TokenSimilarity;
    });
    return views;
}

QCustomPlot *PhraseView::furtherPlot(FigureView view) const
{
    return m_furtherPlots.value(furtherViews().indexOf(view));
}

void PhraseView::rebuildFurther()
{
    if (!m_result)
        return;
    FigureData data;
    data.phrases = m_result;
    FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    const FigureOptions options;
    const PlotTheme theme = plotTheme(m_state->theme());
    for (FigureView view : furtherViews()) {
        QCustomPlot *plot = furtherPlot(view);
        viewFigure(view).build({view, plot, builder, *m_state, theme, data, options});
        plot->replot(QCustomPlot::rpQueuedRefresh);
    }
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
        if (dim < 0 || dim >= m_result->settings.dims ||
            !m_state->phrasePage().window(m_result->settings).containsToken(token))
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
        m_readout->setText(readoutHint());
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
