#include "views/modelpage.h"

#include "compute/computescheduler.h"
#include "figures/plottheme.h"
#include "figures/tablefigures.h"
#include "model/modelspec.h"
#include "model/positiontable.h"
#include "schemes/tablescheme.h"
#include "widgets/fieldmarks.h"

#include "figures/qcpinclude.h"

#include <QApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>

namespace pe {

namespace {

QString thetaText(double theta)
{
    return theta > 0 ? QLocale().toString(theta, 'g', 10) : QString();
}

} // namespace

ModelPage::ModelPage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_scheduler(scheduler), m_tabs(new QTabWidget(this)),
      m_cardText(new QPlainTextEdit(this)), m_layers(new QTableWidget(this)),
      m_dim(new QSpinBox(this)), m_useAsB(new QPushButton(tr("Use layer as &B"), this)),
      m_message(new QLabel(this)), m_info(new QLabel(this))
{
    setObjectName(QStringLiteral("modelPage"));
    m_tabs->setObjectName(QStringLiteral("modelTabs"));
    const QStringList tips{
        tr("Principal components of the position vectors, coloured by position: GPT-2's table "
           "draws a helix"),
        tr("Cosine similarity of every pair of positions of the learned table"),
        tr("For each dimension the best-fitting sinusoid (frequency, phase, R²): how close the "
           "learned table is to the formula")};
    for (FigureView view : views()) {
        auto *plot = new QCustomPlot(m_tabs);
        plot->setObjectName(QStringLiteral("modelPlot-") + figureViewName(view));
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        m_plots.append(plot);
        m_tabs->addTab(plot, TableFigures::viewTitle(view));
        m_tabs->setTabToolTip(m_tabs->count() - 1, tips.value(m_tabs->count() - 1));
    }

    m_cardText->setObjectName(QStringLiteral("modelCard"));
    m_cardText->setReadOnly(true);
    m_cardText->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_cardText->setPlaceholderText(
        tr("Open a model (File > Open model, drag a model folder or file onto the window): its "
           "architecture, context length, what was read and what was assumed show here."));
    m_layers->setObjectName(QStringLiteral("layerMap"));
    m_layers->setColumnCount(6);
    m_layers->setHorizontalHeaderLabels({tr("Layer"), tr("Positions"), tr("Attention"), tr("θ"),
                                         tr("Rotated dims"), tr("Scaling")});
    m_layers->verticalHeader()->hide();
    m_layers->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_layers->setSelectionMode(QAbstractItemView::SingleSelection);
    m_layers->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_layers->horizontalHeader()->setStretchLastSection(true);
    m_layers->setToolTip(tr("Choose a layer: its RoPE (or NoPE) becomes the window's encoding, "
                            "shown by the Encoding and Schemes pages"));
    m_dim->setObjectName(QStringLiteral("fitDim"));
    m_dim->setToolTip(tr("The dimension whose values and best-fitting sinusoid are drawn (the "
                         "selected cell's dimension)"));
    m_message->setObjectName(QStringLiteral("modelMessage"));
    m_message->setWordWrap(true);
    markAsMessage(m_message);
    m_message->hide();
    m_info->setObjectName(QStringLiteral("modelInfo"));
    m_info->setWordWrap(true);

    auto *controls = new QWidget(this);
    auto *layout = new QVBoxLayout(controls);
    auto *cardBox = new QGroupBox(tr("Model card"), controls);
    (new QVBoxLayout(cardBox))->addWidget(m_cardText);
    auto *layerBox = new QGroupBox(tr("Layer map"), controls);
    auto *layerLayout = new QVBoxLayout(layerBox);
    layerLayout->addWidget(m_layers);
    layerLayout->addWidget(m_useAsB, 0, Qt::AlignLeft);
    m_useAsB->setObjectName(QStringLiteral("useLayerAsB"));
    m_useAsB->setToolTip(tr("Make the chosen layer's RoPE configuration B of the Schemes page's "
                            "Compare A/B; then open another model (or choose another layer): it "
                            "is A"));
    m_useAsB->setEnabled(false);
    connect(m_useAsB, &QPushButton::clicked, this, [this] {
        const QList<QTableWidgetItem *> items = m_layers->selectedItems();
        QString error;
        if (items.isEmpty())
            m_info->setText(tr("Choose a rotary layer first"));
        else if (!useLayerAsB(items.constFirst()->row(), &error))
            m_info->setText(error);
    });
    auto *viewBox = new QGroupBox(tr("Learned table views"), controls);
    auto *form = new QFormLayout(viewBox);
    form->addRow(tr("Fit dimension"), m_dim);
    layout->addWidget(cardBox, 2);
    layout->addWidget(layerBox, 2);
    layout->addWidget(viewBox);
    layout->addWidget(m_message);
    layout->addWidget(m_info);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(controls);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({420, 1000});
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(splitter);

    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        m_drawnCurrent = false;
        redraw();
    });
    connect(m_dim, &QSpinBox::valueChanged, this, [this](int dim) {
        Selection selection = m_state->selection();
        if (selection.dim == dim)
            return;
        selection.dim = dim;
        m_state->setSelection(selection);
    });
    connect(m_layers, &QTableWidget::itemSelectionChanged, this, [this] {
        const QList<QTableWidgetItem *> items = m_layers->selectedItems();
        if (items.isEmpty())
            return;
        QString error;
        if (!selectLayer(items.constFirst()->row(), &error)) {
            m_info->setText(error);
        }
    });
    connect(m_state, &ExplorerState::specChanged, this, &ModelPage::updateCardForSpec);
    connect(m_state, &ExplorerState::changed, this, &ModelPage::schedule);
    connect(m_scheduler, &ComputeScheduler::tableReady, this, &ModelPage::onResult);
    connect(m_scheduler, &ComputeScheduler::tableFailed, this, [this](const QString &error) {
        m_pending = false;
        m_error = error;
        m_message->setText(tr("Cannot compute: %1").arg(error));
        m_message->show();
        setTiming(tr("Model: not computed"));
    });
    connect(m_scheduler, &ComputeScheduler::cancelled, this, [this] {
        if (m_pending) {
            m_pending = false;
            m_info->setText(tr("Cancelled; showing the last result"));
            setTiming(tr("Model: cancelled"));
        }
    });
    updateCardForSpec();
    schedule();
}

QList<FigureView> ModelPage::views()
{
    return {FigureView::Pca, FigureView::TableSimilarity, FigureView::SinusoidFit};
}

FigureView ModelPage::currentView() const
{
    return views().value(m_tabs->currentIndex(), FigureView::Pca);
}

void ModelPage::setCurrentView(FigureView view)
{
    if (const int index = int(views().indexOf(view)); index >= 0)
        m_tabs->setCurrentIndex(index);
}

QCustomPlot *ModelPage::currentPlot() const
{
    return m_plots.value(m_tabs->currentIndex());
}

QCustomPlot *ModelPage::plot(FigureView view) const
{
    return m_plots.value(int(views().indexOf(view)));
}

QString ModelPage::cardText() const
{
    return m_cardText->toPlainText();
}

QString ModelPage::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
}

bool ModelPage::isUpToDate() const
{
    if (!m_loadingCard.isEmpty())
        return false;
    if (!tableProblem(m_state->spec()).isEmpty() || !m_error.isEmpty())
        return !m_pending;
    return !m_pending && m_result &&
           tableResultMatches(*m_result, FigureInputs::of(*m_state).table()) && m_drawnCurrent;
}

void ModelPage::schedule()
{
    {
        const QSignalBlocker block(m_dim);
        m_dim->setRange(0, int(std::max<qint64>(0, m_state->spec().dims - 1)));
        m_dim->setValue(int(m_state->selection().dim));
    }
    if (m_state->page() != Page::Model)
        return; // computed when the page is shown; exports ask the scheduler themselves
    const QString problem = tableProblem(m_state->spec());
    m_error.clear();
    if (!problem.isEmpty()) {
        m_pending = false;
        m_message->setText(problem);
        m_message->show();
        m_info->clear();
        return;
    }
    m_message->hide();
    if (m_scheduler->requestTable()) {
        m_pending = false;
        if (m_result != m_scheduler->table()) {
            m_result = m_scheduler->table();
            m_drawnCurrent = false;
        }
        if (!m_drawnCurrent)
            redraw();
        return;
    }
    m_pending = true;
    m_drawnCurrent = false;
    m_info->setText(tr("Computing…"));
    setTiming(tr("Model: computing…"));
}

void ModelPage::setTiming(const QString &text)
{
    if (text == m_timing)
        return;
    m_timing = text;
    emit timingChanged();
}

void ModelPage::onResult(const std::shared_ptr<const TableResult> &result)
{
    if (!tableResultMatches(*result, FigureInputs::of(*m_state).table()))
        return; // an answer to an older question
    m_pending = false;
    m_error.clear();
    m_result = result;
    m_drawnCurrent = false;
    if (m_state->page() == Page::Model)
        redraw();
}

void ModelPage::redraw()
{
    if (!m_result || !tableProblem(m_state->spec()).isEmpty())
        return;
    QCustomPlot *plot = currentPlot();
    TableFigures(*m_state, plotTheme(m_state->theme())).build(currentView(), plot, *m_result);
    plot->replot();
    m_info->setText(tr("Computed in %1 ms; %2")
                        .arg(m_result->totalMs, 0, 'f', 1)
                        .arg(TableFigures::varianceText(m_result->pca)));
    setTiming(tr("Model: %1 × %2 table analysed in %3 ms")
                  .arg(m_state->spec().positions)
                  .arg(m_state->spec().dims)
                  .arg(m_result->totalMs, 0, 'f', 1));
    m_drawnCurrent = true;
}

void ModelPage::setCard(std::shared_ptr<const ModelCard> card)
{
    m_card = std::move(card);
    m_cardText->setPlainText(m_card ? modelCardLines(*m_card).join(QLatin1Char('\n')) : QString());
    fillLayerMap();
}

void ModelPage::fillLayerMap()
{
    const QSignalBlocker block(m_layers);
    m_layers->clearContents();
    const std::vector<LayerMapRow> rows =
        m_card && m_card->config ? layerMap(*m_card->config) : std::vector<LayerMapRow>{};
    m_layers->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const LayerMapRow &row = rows[std::size_t(r)];
        const QStringList cells{
            QString::number(row.layer),
            row.positionText,
            row.attentionText,
            thetaText(row.theta),
            row.rotatedDims > 0 ? QStringLiteral("%1 of %2").arg(row.rotatedDims).arg(row.headDims)
                                : QString(),
            row.scaling};
        for (int c = 0; c < cells.size(); ++c)
            m_layers->setItem(r, c, new QTableWidgetItem(cells[c]));
    }
    m_layers->resizeColumnsToContents();
    m_useAsB->setEnabled(!rows.empty());
}

bool ModelPage::useLayerAsB(int layer, QString *error)
{
    if (!m_card || !m_card->config) {
        *error = tr("no model with a layer map is open");
        return false;
    }
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(*m_card->config, layer, error);
    if (!spec)
        return false;
    const RopeScheme *rope = spec->spec.get<RopeScheme>();
    if (!rope) {
        *error = tr("layer %1 does not rotate (NoPE): Compare A/B compares RoPE configurations")
                     .arg(layer);
        return false;
    }
    SchemeSettings settings = m_state->schemeSettings();
    settings.compare = *rope;
    if (!m_state->asOneStep(tr("Use layer %1 as B").arg(layer),
                            [&] { return m_state->setSchemeSettings(settings, error); }))
        return false;
    m_info->setText(tr("B is now %1 of %2; the Schemes page's Compare A/B shows it against the "
                       "window's encoding")
                        .arg(spec->description, m_card->location.repoId.isEmpty()
                                                    ? m_card->source
                                                    : m_card->location.repoId));
    return true;
}

bool ModelPage::selectLayer(int layer, QString *error)
{
    if (!m_card || !m_card->config) {
        *error = tr("no model with a layer map is open");
        return false;
    }
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(*m_card->config, layer, error);
    if (!spec)
        return false;
    if (!m_state->asOneStep(tr("Show layer %1").arg(layer),
                            [&] { return m_state->setSpec(spec->spec, error); }))
        return false;
    {
        const QSignalBlocker block(m_layers);
        m_layers->selectRow(layer);
    }
    m_info->setText(tr("Showing %1").arg(spec->description));
    return true;
}

void ModelPage::updateCardForSpec()
{
    // A table opened from a session (or the command line) brings no card: read it, headers only.
    const TableScheme *scheme = m_state->spec().get<TableScheme>();
    if (!scheme || !scheme->table)
        return;
    if ((m_card && m_card->source == scheme->source && m_card->tableFile == scheme->table->file) ||
        m_loadingCard == scheme->source)
        return;
    m_loadingCard = scheme->source;
    const QPointer<ModelPage> self(this);
    QThreadPool::globalInstance()->start([self, table = scheme->table] {
        QString error;
        std::optional<ModelCard> card = readModelCard(table->source, &error);
        if (card)
            setCardTable(&*card, *table);
        QMetaObject::invokeMethod(
            qApp,
            [self, card = std::move(card), source = table->source] {
                if (!self || self->m_loadingCard != source)
                    return;
                self->m_loadingCard.clear();
                if (card)
                    self->setCard(std::make_shared<const ModelCard>(*card));
            },
            Qt::QueuedConnection);
    });
}

} // namespace pe
