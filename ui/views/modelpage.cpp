#include "views/modelpage.h"

#include "compute/computescheduler.h"
#include "figures/plottheme.h"
#include "figures/tablefigures.h"
#include "figures/viewfigures.h"
#include "model/modelspec.h"
#include "model/positiontable.h"
#include "schemes/tablescheme.h"
#include "widgets/fieldmarks.h"
#include "widgets/messageslot.h"
#include "widgets/wheelcoalescer.h"

#include "figures/qcpinclude.h"
#include "widgets/figureplot.h"
#include "widgets/windowzoom.h"

#include <QApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pe {

namespace {

QString thetaText(double theta)
{
    return theta > 0 ? QLocale().toString(theta, 'g', 10) : QString();
}

// What the Model page says instead of drawing, for an encoding that is neither a learned table
// nor rotary.
QString noticeFor(const EncodingSpec &spec)
{
    if (const char *notice = spec.info().modelNotice)
        return QString::fromUtf8(notice) + QObject::tr("\nChoose a rotary layer in the layer map.");
    return QObject::tr("The Model page shows an opened model: its learned position table, or "
                       "its rotary layers' frequencies.\nFile > Open model, File > Paste "
                       "config.json, or drop a model folder on the window.");
}

} // namespace

ModelPage::ModelPage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_scheduler(scheduler), m_tabs(new QTabWidget(this)),
      m_cardText(new QPlainTextEdit(this)), m_layers(new QTableWidget(this)),
      m_dim(new QSpinBox(this)), m_useAsB(new QPushButton(tr("Use layer as &B"), this)),
      m_message(new MessageSlot(2, MessageSlot::Height::Fixed, true, this)),
      m_info(new MessageSlot(2, MessageSlot::Height::Fixed, false, this))
{
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] {
        if (m_drawnCurrent)
            redraw();
    });
    setObjectName(QStringLiteral("modelPage"));
    createFigureTabs();
    describeModelWidgets();
    layOutPage(buildControlsPanel());
    connectControls();
    connectResults();
    updateCardForSpec();
    schedule();
}

// One tab (a plot) per view the page hosts, each with its entry's tooltip.
void ModelPage::createFigureTabs()
{
    m_tabs->setObjectName(QStringLiteral("modelTabs"));
    for (FigureView view : views()) {
        auto *plot = new FigurePlot(m_tabs);
        plot->setObjectName(QStringLiteral("modelPlot-") + figureViewName(view));
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        WheelCoalescer::install(plot); // one replot per burst of wheel turns
        m_plots.append(plot);
        m_tabs->addTab(plot, figureViewTitle(view));
        m_tabs->setTabToolTip(m_tabs->count() - 1, viewTabTip(view, Page::Model));
    }
}

// The model card, the layer map, the fit dimension and the status lines.
void ModelPage::describeModelWidgets()
{
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
    // Every column as wide as its widest cell: the panel scrolls sideways rather than cut
    // "256 of 256" to "256 of 2…" (each cell's tooltip holds its whole text too).
    m_layers->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_layers->horizontalHeader()->setStretchLastSection(false);
    m_layers->setWordWrap(false);
    m_layers->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_layers->setToolTip(tr("Choose a layer: its RoPE (or NoPE) becomes the window's encoding, "
                            "shown by the Encoding and Schemes pages"));
    m_dim->setObjectName(QStringLiteral("fitDim"));
    m_dim->setToolTip(tr("The dimension whose values and best-fitting sinusoid are drawn (the "
                         "selected cell's dimension)"));
    // The status lines keep their height whatever they say: a taller one pushed the layer map's
    // button up between two clicks (issue 25).
    m_message->setObjectName(QStringLiteral("modelMessage"));
    m_info->setObjectName(QStringLiteral("modelInfo"));
}

// Left: the model card, the layer map with Use layer as B, the learned table's controls and
// the status lines.
QWidget *ModelPage::buildControlsPanel()
{
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
    m_tableBox = new QGroupBox(tr("Learned table views"), controls);
    auto *form = new QFormLayout(m_tableBox);
    form->addRow(tr("Fit dimension"), m_dim);
    layout->addWidget(cardBox, 2);
    layout->addWidget(layerBox, 2);
    layout->addWidget(m_tableBox);
    layout->addWidget(m_message);
    layout->addWidget(m_info);
    return controls;
}

void ModelPage::layOutPage(QWidget *controls)
{
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(controls);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({420, 1000});
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(splitter);
}

void ModelPage::connectControls()
{
    connect(m_useAsB, &QPushButton::clicked, this, [this] {
        const QList<QTableWidgetItem *> items = m_layers->selectedItems();
        QString error;
        if (items.isEmpty())
            setInfo(tr("Choose a rotary layer first"));
        else if (!useLayerAsB(items.constFirst()->row(), &error))
            setInfo(error);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_updatingTabs)
            return;
        (kind() == Kind::Table ? m_tableView : m_rotaryView) = currentView();
        m_drawnCurrent = false;
        schedule();
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
        if (!selectLayer(items.constFirst()->row(), &error))
            setInfo(error);
    });
}

// The state's changes and the scheduler's results, failures and cancellations.
void ModelPage::connectResults()
{
    connect(m_state, &ExplorerState::specChanged, this, &ModelPage::updateCardForSpec);
    connect(m_state, &ExplorerState::changed, this, &ModelPage::schedule);
    connect(m_state, &ExplorerState::themeChanged, this, [this] {
        m_drawnCurrent = false;
        schedule();
    });
    connect(m_scheduler, &ComputeScheduler::tableReady, this, &ModelPage::onResult);
    connect(m_scheduler, &ComputeScheduler::tableFailed, this, [this](const QString &error) {
        if (kind() != Kind::Table)
            return;
        m_pending = false;
        m_error = error;
        setMessage(tr("Cannot compute: %1").arg(error));
        setTiming(tr("Model: not computed"));
    });
    connect(m_scheduler, &ComputeScheduler::schemesReady, this, &ModelPage::onSchemes);
    connect(m_scheduler, &ComputeScheduler::schemesFailed, this, [this](const QString &error) {
        if (m_state->page() != Page::Model || kind() != Kind::Rotary)
            return;
        m_pending = false;
        m_error = error;
        setMessage(tr("Cannot compute: %1").arg(error));
        setTiming(tr("Model: not computed"));
    });
    connect(m_scheduler, &ComputeScheduler::modelReadReady, this, &ModelPage::onModelRead);
    connect(m_scheduler, &ComputeScheduler::cancelled, this, [this] {
        m_loadingCard.clear(); // the card's read was dropped too: asked again on the next spec
        m_cardTicket = 0;
        if (m_pending) {
            m_pending = false;
            setInfo(tr("Cancelled; showing the last result"));
            setTiming(tr("Model: cancelled"));
        }
    });
}

QList<FigureView> ModelPage::views()
{
    return viewsOf(Page::Model) + guestsOf(Page::Model);
}

QList<FigureView> ModelPage::shownViews() const
{
    QList<FigureView> shown = views();
    const ViewJob job = kind() == Kind::Table ? ViewJob::Table : ViewJob::Schemes;
    shown.removeIf([job](FigureView view) { return !viewNeeds(view, job); });
    return shown;
}

ViewPage ModelPage::viewPage()
{
    return {.page = Page::Model,
            .guests = guestsOf(Page::Model),
            .shows = [this](FigureView view) { return view == currentView(); },
            .size = [this] { return currentPlot()->size(); },
            .select =
                [this](FigureView view) {
                    setCurrentView(view);
                    return currentView() == view;
                }};
}

ModelPage::Kind ModelPage::kind() const
{
    if (m_state->spec().get<TableScheme>())
        return Kind::Table;
    return m_state->spec().get<RopeScheme>() ? Kind::Rotary : Kind::NoPositions;
}

FigureView ModelPage::currentView() const
{
    return views().value(m_tabs->currentIndex(), FigureView::Pca);
}

void ModelPage::setCurrentView(FigureView view)
{
    if (const int index = int(views().indexOf(view)); index >= 0) {
        (viewNeeds(view, ViewJob::Table) ? m_tableView : m_rotaryView) = view;
        if (m_tabs->isTabVisible(index))
            m_tabs->setCurrentIndex(index);
    }
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
    return m_message->message();
}

QString ModelPage::info() const
{
    return m_info->message();
}

void ModelPage::setMessage(const QString &text)
{
    m_message->setMessage(text);
}

void ModelPage::setInfo(const QString &text)
{
    m_info->setMessage(text);
}

bool ModelPage::isUpToDate() const
{
    if (!m_loadingCard.isEmpty())
        return false;
    switch (kind()) {
    case Kind::Table:
        if (!tableProblem(m_state->spec()).isEmpty() || !m_error.isEmpty())
            return !m_pending;
        return !m_pending && m_result &&
               tableResultMatches(*m_result, FigureInputs::of(*m_state).table()) && m_drawnCurrent;
    case Kind::Rotary:
        if (!m_error.isEmpty())
            return !m_pending;
        return !m_pending && m_schemes &&
               schemeResultMatches(*m_schemes, {m_state->spec(), m_state->schemeSettings()},
                                   {currentView()}) &&
               m_drawnCurrent;
    case Kind::NoPositions:
        return true;
    }
    return true;
}

void ModelPage::updateTabs()
{
    const QScopedValueRollback updating(m_updatingTabs, true);
    const QList<FigureView> shown = shownViews();
    const QList<FigureView> all = views();
    // The wanted tab first: a tab cannot be hidden while it is the current one.
    const FigureView wanted = kind() == Kind::Table ? m_tableView : m_rotaryView;
    const int index = int(all.indexOf(shown.contains(wanted) ? wanted : shown.constFirst()));
    // Only what differs: this runs on every change of the state.
    if (!m_tabs->isTabVisible(index))
        m_tabs->setTabVisible(index, true);
    if (m_tabs->currentIndex() != index)
        m_tabs->setCurrentIndex(index);
    for (int i = 0; i < all.size(); ++i)
        if (m_tabs->isTabVisible(i) != shown.contains(all[i]))
            m_tabs->setTabVisible(i, shown.contains(all[i]));
}

void ModelPage::schedule()
{
    {
        const QSignalBlocker block(m_dim);
        m_dim->setRange(0, int(std::max<qint64>(0, m_state->spec().dims - 1)));
        m_dim->setValue(int(m_state->selection().dim));
    }
    updateTabs();
    if (currentView() != m_drawnView || kind() != m_drawnKind)
        m_drawnCurrent = false;
    m_tableBox->setVisible(kind() == Kind::Table);
    if (m_state->page() != Page::Model)
        return; // computed when the page is shown; exports ask the scheduler themselves
    m_error.clear();
    switch (kind()) {
    case Kind::Table:
        return scheduleTable();
    case Kind::Rotary:
        return scheduleSchemes();
    case Kind::NoPositions:
        m_pending = false;
        setMessage(QString());
        setInfo(QString());
        setTiming(tr("Model: nothing to compute"));
        if (const QString text = noticeFor(m_state->spec()); !m_drawnCurrent || text != m_notice)
            showNotice(text);
        return;
    }
}

void ModelPage::scheduleTable()
{
    const QString problem = tableProblem(m_state->spec());
    if (!problem.isEmpty()) {
        m_pending = false;
        setMessage(problem);
        setInfo(QString());
        return;
    }
    setMessage(QString());
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
    showComputing();
}

// A job is running for the current view: its old figure is out of date until the result comes.
void ModelPage::showComputing()
{
    m_pending = true;
    m_drawnCurrent = false;
    setInfo(tr("Computing…"));
    setTiming(tr("Model: computing…"));
}

void ModelPage::scheduleSchemes()
{
    setMessage(QString());
    if (m_scheduler->requestSchemes({currentView()})) {
        m_pending = false;
        if (m_schemes != m_scheduler->schemes()) {
            m_schemes = m_scheduler->schemes();
            m_drawnCurrent = false;
        }
        if (!m_drawnCurrent)
            redraw();
        return;
    }
    showComputing();
}

void ModelPage::showNotice(const QString &text)
{
    QCustomPlot *plot = currentPlot();
    resetFigure(plot, plotTheme(m_state->theme()));
    plot->plotLayout()->clear();
    auto *element = new QCPTextElement(plot, text);
    element->setTextColor(plotTheme(m_state->theme()).foreground);
    plot->plotLayout()->addElement(0, 0, element);
    plot->replot();
    m_notice = text;
    m_drawnKind = kind();
    m_drawnView = currentView();
    m_drawnCurrent = true;
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

void ModelPage::onSchemes(const std::shared_ptr<const SchemeResult> &result)
{
    if (m_state->page() != Page::Model || kind() != Kind::Rotary ||
        !schemeResultMatches(*result, {m_state->spec(), m_state->schemeSettings()},
                             {currentView()}))
        return; // an answer to an older question, or the Schemes page's
    m_pending = false;
    m_error.clear();
    m_schemes = result;
    m_drawnCurrent = false;
    redraw();
}

void ModelPage::redraw()
{
    QCustomPlot *plot = currentPlot();
    const FigureView view = currentView();
    if (kind() == Kind::Rotary) {
        if (!m_schemes)
            return;
        FigureData data;
        data.schemes = m_schemes;
        buildInWindow(view, plot, *m_state, data);
        setInfo(
            tr("Computed in %1 ms; %2").arg(m_schemes->totalMs, 0, 'f', 1).arg(m_schemes->a.label));
        setTiming(
            tr("Model: %1 in %2 ms").arg(figureViewTitle(view)).arg(m_schemes->totalMs, 0, 'f', 1));
    } else {
        if (!m_result || !tableProblem(m_state->spec()).isEmpty())
            return;
        FigureData data;
        data.table = m_result;
        buildInWindow(view, plot, *m_state, data);
        setInfo(tr("Computed in %1 ms; %2")
                    .arg(m_result->totalMs, 0, 'f', 1)
                    .arg(TableFigures::varianceText(m_result->pca)));
        setTiming(tr("Model: %1 × %2 table analysed in %3 ms")
                      .arg(m_state->spec().positions)
                      .arg(m_state->spec().dims)
                      .arg(m_result->totalMs, 0, 'f', 1));
    }
    plot->replot();
    m_notice.clear();
    m_drawnKind = kind();
    m_drawnView = view;
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
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setToolTip(cells[c]);
            m_layers->setItem(r, c, item);
        }
    }
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
        *error = tr("layer %1 does not rotate (%2): Compare A/B compares RoPE configurations")
                     .arg(layer)
                     .arg(spec->spec.legend());
        return false;
    }
    SchemeSettings settings = m_state->schemeSettings();
    settings.compare = *rope;
    if (!m_state->asOneStep(tr("Use layer %1 as B").arg(layer),
                            [&] { return m_state->setSchemeSettings(settings, error); }))
        return false;
    setInfo(tr("B is now %1 of %2; the Schemes page's Compare A/B shows it against the "
               "window's encoding")
                .arg(spec->description,
                     m_card->location.repoId.isEmpty() ? m_card->source : m_card->location.repoId));
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
    setInfo(tr("Showing %1").arg(spec->description));
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
    // Read on the scheduler's worker (headers only, but of a file that may sit on a slow disk).
    ModelReadRequest request;
    request.kind = ModelReadRequest::Kind::Card;
    request.table = scheme->table;
    m_cardTicket = m_scheduler->requestModelRead(request);
}

void ModelPage::onModelRead(quint64 ticket, const std::shared_ptr<const ModelRead> &read)
{
    if (ticket != m_cardTicket) // tickets are unique across every kind of read
        return;
    m_cardTicket = 0;
    m_loadingCard.clear();
    if (read->card)
        setCard(read->card);
}

} // namespace pe
