#include "views/modelphraseview.h"

#include "views/ablationcontrols.h"

#include "figures/attentionfigures.h"
#include "figures/layerfigures.h"
#include "figures/plottheme.h"
#include "figures/viewfigures.h"
#include "widgets/fieldmarks.h"

#include "figures/qcpinclude.h"
#include "text/unicodetext.h"
#include "widgets/figureplot.h"
#include "widgets/messageslot.h"
#include "widgets/windowzoom.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace pe {

namespace {

constexpr int maxShownChars = 200;

QString quoted(const QString &text)
{
    const QString shown =
        text.size() > maxShownChars ? text.left(maxShownChars - 1) + QChar(0x2026) : text;
    return QStringLiteral("“%1”").arg(shown);
}

// Code points [start, end) of `text` (the tokenizer's offsets count code points, not UTF-16).
QString codePoints(const QString &text, qint64 start, qint64 end)
{
    const QList<uint> all = text.toUcs4();
    start = qBound<qint64>(0, start, all.size());
    end = qBound<qint64>(start, end, all.size());
    const QList<uint> part = all.mid(start, end - start);
    return unicode::fromU32(std::u32string_view(
        reinterpret_cast<const char32_t *>(part.constData()), std::size_t(part.size())));
}

// What hovering a token says: which token, its id, the text it covers, the normalized phrase.
QString tokenToolTip(const ModelPhrase &phrase, char name, qint64 t)
{
    const TokenEncoding &e = phrase.tokens;
    const auto [start, end] = e.offsets[std::size_t(t)];
    const QString shown = phrase.shownToken(t);
    QStringList lines{QStringLiteral("token %1 of phrase %2: %3 (id %4)")
                          .arg(t)
                          .arg(QLatin1Char(name))
                          .arg(quoted(shown))
                          .arg(e.ids[std::size_t(t)])};
    if (shown != e.tokens[t])
        lines.append(QStringLiteral("raw token: %1 (␣ stands for the space it marks)")
                         .arg(quoted(e.tokens[t])));
    if (e.special.size() > std::size_t(t) && e.special[std::size_t(t)])
        lines.append(QStringLiteral("a special token the post-processor added"));
    else
        lines.append(QStringLiteral("offsets [%1, %2) of the phrase: %3")
                         .arg(start)
                         .arg(end)
                         .arg(quoted(codePoints(phrase.text, start, end))));
    lines.append(QStringLiteral("normalized phrase: %1").arg(quoted(phrase.normalizedText)));
    QStringList html;
    for (const QString &line : lines)
        html.append(line.toHtmlEscaped());
    // Rich text, so that a token such as "<s>" is shown rather than read as markup.
    return QStringLiteral("<qt>%1</qt>").arg(html.join(QStringLiteral("<br>")));
}

QCustomPlot *makePlot(const QString &name, QWidget *parent)
{
    auto *plot = new FigurePlot(parent);
    plot->setObjectName(name);
    plot->setMinimumSize(300, 220);
    return plot;
}

// The view the token strips above the tabs show (they are the page's, not a tab).
constexpr FigureView stripsView = FigureView::ModelTokens;

} // namespace

ModelPhraseView::ModelPhraseView(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_info(new QLabel(this)), m_notice(new QLabel(this)),
      m_phrase(new QComboBox(this)), m_head(new QComboBox(this)), m_layer(new QComboBox(this)),
      m_ablationControls(new AblationControls(state, this)),
      m_forwardNote(new MessageSlot(1, MessageSlot::Height::Fixed, false, this)),
      m_scheduler(scheduler), m_choices(new QWidget(this)), m_tabs(new QTabWidget(this)),
      m_filler(new QWidget(this))
{
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] { rebuild(); });
    setObjectName(QStringLiteral("modelPhraseView"));
    m_info->setObjectName(QStringLiteral("modelPhraseInfo"));
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notice->setObjectName(QStringLiteral("modelPhraseNotice"));
    m_notice->setWordWrap(true);
    markAsMessage(m_notice);
    m_notice->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_info);
    layout->addWidget(m_notice);
    for (const char name : {'A', 'B'}) {
        auto *title = new QLabel(tr("Tokens of phrase %1").arg(QLatin1Char(name)), this);
        auto *list = new QListWidget(this);
        list->setObjectName(QStringLiteral("modelTokens%1").arg(QLatin1Char(name)));
        list->setFlow(QListView::LeftToRight);
        list->setWrapping(true);
        list->setResizeMode(QListView::Adjust);
        list->setSpacing(2);
        list->setSelectionMode(QAbstractItemView::NoSelection);
        list->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
        list->setToolTip(tr("The phrase as the model's tokenizer splits it: each token and its "
                            "id; hover one for its offsets and the normalized text"));
        title->setBuddy(list);
        layout->addWidget(title);
        layout->addWidget(list);
        m_tokenTitles.append(title);
        m_tokens.append(list);
    }
    // The phrase and head choices, hidden with the figures when there are none to choose for;
    // the ablation's form below them (in two columns: beside them, its rule's six rows made the
    // window 33 px taller than a 1280 x 720 screen with the Lesson panel open).
    auto *choicesAndAblation = new QVBoxLayout(m_choices);
    choicesAndAblation->setContentsMargins(0, 0, 0, 0);
    auto *choices = new QHBoxLayout;
    choicesAndAblation->addLayout(choices);
    auto *phraseLabel = new QLabel(tr("P&hrase"), this);
    phraseLabel->setBuddy(m_phrase);
    m_phrase->setObjectName(QStringLiteral("modelPhraseChoice"));
    m_phrase->addItems({tr("A"), tr("B")});
    m_phrase->setToolTip(tr("The phrase whose embeddings and attention are drawn"));
    auto *headLabel = new QLabel(tr("H&ead"), this);
    m_headLabel = headLabel;
    headLabel->setBuddy(m_head);
    m_head->setObjectName(QStringLiteral("attentionHead"));
    // As wide as its items ("mean", "head 127"), never squeezed ("me…" said nothing): the
    // window's compact combos (makeCompact) keep a length set before, and this one is empty until
    // a model's heads fill it. Short items: the row fits 1280 px with the Lesson panel.
    m_head->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_head->setMinimumContentsLength(int(tr("head 127").size()));
    m_head->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_head->setToolTip(tr("The attention head of layer 0 drawn, or the mean of the heads; in "
                          "Attention, every layer: the head of the layer enlarged"));
    choices->addWidget(phraseLabel);
    choices->addWidget(m_phrase);
    choices->addSpacing(12);
    choices->addWidget(headLabel);
    choices->addWidget(m_head);
    auto *layerLabel = new QLabel(tr("La&yer"), this);
    m_layerLabel = layerLabel;
    layerLabel->setBuddy(m_layer);
    m_layer->setObjectName(QStringLiteral("attentionLayer"));
    m_layer->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_layer->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_layer->setToolTip(tr("Attention, every layer: the grid of every layer and head, or one "
                           "layer, whose head (Head) is enlarged; a click on a tile does the "
                           "same"));
    m_layer->addItem(tr("every layer"), ViewChoices::everyLayer);
    choices->addSpacing(12);
    choices->addWidget(layerLabel);
    choices->addWidget(m_layer);
    choices->addStretch(1);
    choicesAndAblation->addWidget(m_ablationControls, 0, Qt::AlignLeft);
    layout->addWidget(m_choices);
    // On its own line, of one line's height: a message (timing, "Running…", a refusal) neither
    // widens the window nor moves the tabs (it wrapped into a one-word column beside the
    // controls, issue 48).
    m_forwardNote->setObjectName(QStringLiteral("forwardNote"));
    layout->addWidget(m_forwardNote);
    addTabs();
    layout->addWidget(m_tabs, 1);
    // Without figures (tokens only) the room below the tokens stays empty, rather than spread
    // between the labels and the token strips.
    m_filler->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
    m_filler->hide();
    layout->addWidget(m_filler, 1);

    m_relabel.setSingleShot(true);
    m_relabel.setInterval(0);
    connect(&m_relabel, &QTimer::timeout, this, &ModelPhraseView::rebuild);
    for (QCustomPlot *plot : m_plots)
        plot->installEventFilter(this);
    if (QCustomPlot *grid = layerPlot(FigureView::LayerAttention))
        connect(grid, &QCustomPlot::mousePress, this, &ModelPhraseView::onGridClick);
    connect(scheduler, &ComputeScheduler::forwardReady, this, &ModelPhraseView::onForward);
    connect(scheduler, &ComputeScheduler::forwardFailed, this, [this](const QString &message) {
        // Nothing of an earlier phrase or model stays drawn beside the message.
        m_forward.reset();
        for (FigureView view : viewsNeeding(tabViews(), ViewJob::ModelForward)) {
            QCustomPlot *plot = viewPlot(view);
            resetFigure(plot, plotTheme(m_state->theme()));
            plot->replot(QCustomPlot::rpQueuedRefresh);
        }
        m_forwardNote->setMessage(tr("Forward pass: %1").arg(message));
    });
    connect(scheduler, &ComputeScheduler::cancelled, this, [this] {
        if (m_forwardNote->message().startsWith(tr("Running")))
            m_forwardNote->setMessage(tr("Forward pass cancelled; open the tab again to run it"));
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &ModelPhraseView::requestForward);
    connect(m_layer, &QComboBox::currentIndexChanged, this, &ModelPhraseView::rebuildForward);
    connect(m_layer, &QComboBox::currentIndexChanged, this, &ModelPhraseView::updateForwardNote);
    connect(state, &ExplorerState::layerAblationChanged, this, &ModelPhraseView::requestForward);
    connect(m_tabs, &QTabWidget::currentChanged, this, &ModelPhraseView::showChoices);
    connect(scheduler, &ComputeScheduler::phraseModelReady, this, &ModelPhraseView::onResult);
    connect(scheduler, &ComputeScheduler::phraseModelFailed, this, &ModelPhraseView::onFailure);
    connect(m_phrase, &QComboBox::currentIndexChanged, this, &ModelPhraseView::rebuild);
    connect(m_head, &QComboBox::currentIndexChanged, this, &ModelPhraseView::rebuild);
    for (auto signal : {&ExplorerState::colormapChanged, &ExplorerState::themeChanged})
        connect(state, signal, this, &ModelPhraseView::rebuild);
    connect(state, &ExplorerState::themeChanged, this, [this] {
        for (int p = 0; p < int(m_tokens.size()); ++p)
            fillTokens(p);
    });
    showChoices();
    if (scheduler->phraseModel())
        onResult(scheduler->phraseModel());
    else
        onFailure(phraseModelProblem(phraseModelInputs(*state)));
}

QList<FigureView> ModelPhraseView::tabViews()
{
    QList<FigureView> views = viewsOf(Page::Phrases);
    views.removeIf(
        [](FigureView view) { return !viewReadsModelPhrases(view) || view == stripsView; });
    return views;
}

// One tab a view, titled and explained by its entry; a view of the forward pass says that it
// runs when shown.
void ModelPhraseView::addTabs()
{
    m_tabs->setObjectName(QStringLiteral("modelPhraseTabs"));
    for (FigureView view : tabViews()) {
        const ViewEntry &entry = viewEntry(view);
        QCustomPlot *plot =
            makePlot(QStringLiteral("%1Plot").arg(QString::fromUtf8(entry.name)), this);
        m_plots.append(plot);
        const int tab = m_tabs->addTab(plot, tr(entry.tab ? entry.tab : entry.label));
        QString tip = tr(entry.tip);
        if (tip.isEmpty() && viewNeeds(view, ViewJob::ModelForward))
            tip = tr("Phrase A through every layer of the model (runs when shown)");
        m_tabs->setTabToolTip(tab, tip);
    }
}

QCustomPlot *ModelPhraseView::viewPlot(FigureView view) const
{
    return m_plots.value(tabViews().indexOf(view));
}

bool ModelPhraseView::selectView(FigureView view)
{
    if (view == stripsView)
        return true; // always above the tabs
    const qsizetype tab = tabViews().indexOf(view);
    if (tab < 0 || (m_result && !m_result->hasArrays()))
        return false;
    m_tabs->setCurrentIndex(int(tab));
    return true;
}

QListWidget *ModelPhraseView::tokenList(int phrase) const
{
    return m_tokens.value(phrase);
}

QString ModelPhraseView::info() const
{
    return m_info->text();
}

QString ModelPhraseView::notice() const
{
    return m_notice->isHidden() ? QString() : m_notice->text();
}

void ModelPhraseView::showProblem(const QString &message)
{
    m_notice->setText(message);
    m_notice->setVisible(!message.isEmpty());
}

void ModelPhraseView::onFailure(const QString &message)
{
    // Nothing of an earlier phrase or model stays on screen beside the message.
    m_result.reset();
    m_info->clear();
    m_info->setToolTip({});
    for (int p = 0; p < int(m_tokens.size()); ++p)
        fillTokens(p);
    m_tabs->hide();
    m_choices->hide();
    m_filler->show();
    showProblem(message);
}

void ModelPhraseView::onResult(std::shared_ptr<const PhraseModelResult> result)
{
    m_result = std::move(result);
    const PhraseModelResult &r = *m_result;
    QStringList counts;
    for (std::size_t i = 0; i < r.phrases.size(); ++i)
        counts.append(QStringLiteral("%1: %2 tokens")
                          .arg(QChar(u'A' + int(i)))
                          .arg(r.phrases[i].tokens.size()));
    m_info->setToolTip(r.folder);
    const QString model =
        r.architecture.isEmpty()
            ? tr("The tokenizer of %1, without weights. %2.")
                  .arg(QFileInfo(r.folder).fileName(), counts.join(QStringLiteral(", ")))
            : tr("%1 (%2), %3 heads, hidden %4; positions: %5. %6.")
                  .arg(r.architecture, QFileInfo(r.folder).fileName())
                  .arg(r.heads)
                  .arg(r.hidden)
                  .arg(r.positionsText, counts.join(QStringLiteral(", ")));
    m_info->setText(model + (r.unappliedTokenizerSettings.isEmpty()
                                 ? QString()
                                 : tr(" The tokenizer.json's %1 settings are not applied, as "
                                      "transformers' tokenizer(text) does by default.")
                                       .arg(r.unappliedTokenizerSettings.join(tr(" and ")))));
    // Without arrays (no weights, ids outside the model's rows) the tokens alone, and why: no
    // empty figure frames below them.
    QStringList notices;
    if (!r.hasArrays())
        notices.append(tr("Tokens only: %1.").arg(r.noArrays));
    if (const QString cap = r.capNotice(); !cap.isEmpty())
        notices.append(cap);
    showProblem(notices.join(QLatin1Char('\n')));
    for (int p = 0; p < int(m_tokens.size()); ++p)
        fillTokens(p);
    m_tabs->setVisible(r.hasArrays());
    m_choices->setVisible(r.hasArrays());
    m_filler->setVisible(!r.hasArrays());
    if (!r.hasArrays()) {
        emit figuresUpdated();
        return;
    }
    fillHeads();
    rebuild();
    requestForward();
}

void ModelPhraseView::fillTokens(int phrase)
{
    QListWidget *list = m_tokens[phrase];
    list->clear();
    const bool shown = m_result && std::size_t(phrase) < m_result->phrases.size();
    list->setVisible(shown);
    m_tokenTitles[phrase]->setVisible(shown);
    if (!shown)
        return;
    const ModelPhrase &p = m_result->phrases[std::size_t(phrase)];
    const char name = char('A' + phrase);
    const int index = phrase == 0 ? m_state->compareA() : m_state->compareB();
    m_tokenTitles[phrase]->setText(tr("Tokens of phrase %1 (%2)")
                                       .arg(QLatin1Char(name))
                                       .arg(m_state->phraseSettings().title(index)));
    // A special token's cell is tinted with the theme's highlight, its text the theme's own:
    // the widget's AlternateBase is nearly its Base in the light theme, and a cell filled
    // before a switch to the dark theme kept a near-white cell under the dark theme's
    // near-white text (issue 46). The theme's palette, not palette(): this runs on
    // themeChanged, before the application's palette reaches the widget.
    const QPalette theme = applicationPalette(m_state->theme());
    const QColor base = theme.color(QPalette::Base), mark = theme.color(QPalette::Highlight);
    const QColor special = QColor::fromRgbF((base.redF() * 2 + mark.redF()) / 3,
                                            (base.greenF() * 2 + mark.greenF()) / 3,
                                            (base.blueF() * 2 + mark.blueF()) / 3);
    for (qint64 t = 0; t < p.tokens.size(); ++t) {
        auto *item = new QListWidgetItem(
            QStringLiteral("%1\n%2").arg(p.shownToken(t)).arg(p.tokens.ids[std::size_t(t)]), list);
        item->setTextAlignment(Qt::AlignCenter);
        item->setToolTip(tokenToolTip(p, name, t));
        if (p.tokens.special.size() > std::size_t(t) && p.tokens.special[std::size_t(t)]) {
            item->setBackground(special);
            item->setForeground(theme.color(QPalette::Text));
        }
    }
    fitHeight(list);
}

void ModelPhraseView::fitHeight(QListWidget *list)
{
    // As tall as its rows of tokens, at most two: the figures below keep the room.
    list->doItemsLayout();
    const int rowHeight = list->count() > 0 ? list->visualItemRect(list->item(0)).height() : 0;
    const int content =
        list->count() > 0 ? list->visualItemRect(list->item(list->count() - 1)).bottom() : 0;
    const int frame = 2 * list->frameWidth() + 2 * list->spacing() + 2;
    list->setFixedHeight(std::clamp(content + frame, rowHeight + frame, 2 * rowHeight + frame + 8));
}

void ModelPhraseView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    for (QListWidget *list : m_tokens)
        fitHeight(list);
}

bool ModelPhraseView::eventFilter(QObject *watched, QEvent *event)
{
    // The token labels are thinned for a plot's size, which a tab shown for the first time only
    // now has: the figures are drawn again once the layout settles.
    if (event->type() == QEvent::Resize && !m_relabel.isActive())
        m_relabel.start();
    return QWidget::eventFilter(watched, event);
}

void ModelPhraseView::fillHeads()
{
    const int heads = int(m_result->heads);
    if (m_head->count() == heads + 1)
        return;
    const QSignalBlocker blocker(m_head);
    const int current = m_head->currentIndex();
    m_head->clear();
    m_head->addItem(tr("mean"), AttentionFigures::meanOfHeads);
    for (int h = 0; h < heads; ++h)
        m_head->addItem(tr("head %1").arg(h), h);
    m_head->setCurrentIndex(qBound(0, current, heads));
}

FigureView ModelPhraseView::currentView() const
{
    // Tokens alone (no weights): the tokens view is what the page shows.
    if (m_result && !m_result->hasArrays())
        return FigureView::ModelTokens;
    const QList<FigureView> views = tabViews();
    return views.value(qBound(0, m_tabs->currentIndex(), int(views.size()) - 1), stripsView);
}

QCustomPlot *ModelPhraseView::currentPlot() const
{
    if (m_result && !m_result->hasArrays())
        return nullptr; // the figure tabs are hidden
    return qobject_cast<QCustomPlot *>(m_tabs->currentWidget());
}

ViewChoices ModelPhraseView::choices() const
{
    ViewChoices choices;
    choices.modelPhrase = qMax(0, m_phrase->currentIndex());
    if (m_head->currentData().isValid())
        choices.modelHead = m_head->currentData().toInt();
    if (m_layer->currentData().isValid())
        choices.modelLayer = m_layer->currentData().toInt();
    return choices;
}

void ModelPhraseView::rebuild()
{
    if (!m_result || m_result->phrases.empty() || !m_result->hasArrays())
        return;
    // Every view of layer 0's numbers is drawn: they are quick, and the tabs switch at once.
    FigureData data;
    data.modelPhrases = m_result;
    for (FigureView view : viewsNeeding(tabViews(), ViewJob::ModelPhrases))
        draw(view, data);
    rebuildForward();
    emit figuresUpdated();
}

QCustomPlot *ModelPhraseView::layerPlot(FigureView view) const
{
    return viewNeeds(view, ViewJob::ModelForward) ? viewPlot(view) : nullptr;
}

void ModelPhraseView::draw(FigureView view, const FigureData &data) const
{
    QCustomPlot *plot = viewPlot(view);
    FigureBuilder builder(*m_state, plotTheme(m_state->theme()));
    FigureOptions options;
    options.choices = choices();
    const PlotTheme theme = plotTheme(m_state->theme());
    viewFigure(view).build({view, plot, builder, *m_state, theme, data, options});
    plot->replot(QCustomPlot::rpQueuedRefresh);
}

QString ModelPhraseView::forwardNote() const
{
    return m_forwardNote->message();
}

ForwardAblation ModelPhraseView::ablation() const
{
    return forwardAblationOf(m_state->layerAblation());
}

ForwardViewInputs ModelPhraseView::forwardInputs() const
{
    return forwardViewInputs(phraseModelInputs(*m_state), ablation());
}

void ModelPhraseView::showChoices()
{
    const FigureView view = currentView();
    const bool grid = view == FigureView::LayerAttention;
    const bool head = grid || view == FigureView::ModelAttention;
    m_headLabel->setVisible(head);
    m_head->setVisible(head);
    m_layerLabel->setVisible(grid);
    m_layer->setVisible(grid);
    m_ablationControls->setVisible(grid);
    updateForwardNote();
}

void ModelPhraseView::updateForwardNote()
{
    if (!m_forward || m_forward->inputs != forwardInputs())
        return; // "Running…" or the pass's failure stays
    QString note =
        tr("%1 layers in %2 ms").arg(m_forward->layers).arg(m_forward->totalMs, 0, 'f', 0);
    // A value the model cannot take: the pass's sentence, here and in the enlarged head's title.
    if (!m_forward->ablationProblem.isEmpty())
        note += tr("; ablation refused: %1").arg(m_forward->ablationProblem);
    // The grid of every layer draws no ablation: only an enlarged head compares it (issue 48).
    else if (currentView() == FigureView::LayerAttention && ablation().any() &&
             drawnAblation(ablation(), {currentView()}, choices()) != ablation())
        note += tr("; the ablation is drawn on an enlarged head: pick a Layer and a Head, or "
                   "click a tile");
    m_forwardNote->setMessage(note);
}

void ModelPhraseView::requestForward()
{
    if (!m_result || !m_result->hasArrays() || !viewNeeds(currentView(), ViewJob::ModelForward))
        return;
    if (m_scheduler->requestForward(ablation())) {
        onForward(m_scheduler->forward());
        return;
    }
    m_forwardNote->setMessage(tr("Running phrase A through every layer… (Esc cancels)"));
}

void ModelPhraseView::onForward(std::shared_ptr<const ForwardViewResult> result)
{
    // A result for other inputs than the page's (superseded while it ran) is not drawn.
    if (!result || result->inputs != forwardInputs())
        return;
    m_forward = std::move(result);
    fillLayers();
    updateForwardNote();
    rebuildForward();
    emit figuresUpdated();
}

void ModelPhraseView::fillLayers()
{
    const int layers = int(m_forward->layers);
    if (m_layer->count() == layers + 1)
        return;
    const QSignalBlocker blocker(m_layer);
    const int current = m_layer->currentIndex();
    m_layer->clear();
    m_layer->addItem(tr("every layer"), ViewChoices::everyLayer);
    for (int l = 0; l < layers; ++l)
        m_layer->addItem(tr("layer %1").arg(l), l);
    m_layer->setCurrentIndex(qBound(0, current, layers));
}

void ModelPhraseView::rebuildForward()
{
    // Only the layer view shown is drawn: a large model's grid takes a moment.
    const FigureView view = currentView();
    QCustomPlot *plot = layerPlot(view);
    if (!plot || !m_forward || m_forward->inputs != forwardInputs())
        return;
    FigureData data;
    data.modelForward = m_forward;
    draw(view, data);
}

void ModelPhraseView::onGridClick(QMouseEvent *event)
{
    QCustomPlot *plot = layerPlot(FigureView::LayerAttention);
    if (!m_forward || choices().modelLayer != ViewChoices::everyLayer || !plot->axisRect())
        return;
    const QCPAxisRect *rect = plot->axisRect();
    const QPointF at = event->position();
    const std::optional<std::pair<int, int>> cell =
        LayerFigures::gridCell(*m_forward, rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x()),
                               rect->axis(QCPAxis::atLeft)->pixelToCoord(at.y()));
    if (!cell)
        return;
    const int head = m_head->findData(cell->second);
    if (head >= 0)
        m_head->setCurrentIndex(head);
    m_layer->setCurrentIndex(m_layer->findData(cell->first));
}

QWidget *makePhraseTokenizerChoice(ExplorerState *state, QWidget *parent)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *combo = new QComboBox(row);
    combo->setObjectName(QStringLiteral("phraseTokenizer"));
    for (const ChoiceName &c : phraseTokenizerNames)
        combo->addItem(QObject::tr(c.label), c.value);
    combo->setToolTip(QObject::tr(
        "Where the phrases' tokens and embeddings come from: the Keras tutorial's "
        "TextVectorization with random and sinusoidal tables (seed 001), or the open model's own "
        "tokenizer, embeddings and layer 0 (File > Open model)"));
    auto *label = new QLabel(QObject::tr("T&okenizer"), row);
    label->setBuddy(combo);
    layout->addWidget(label);
    layout->addWidget(combo, 1);
    const auto sync = [state, combo] {
        const QSignalBlocker blocker(combo);
        combo->setCurrentIndex(combo->findData(int(state->phraseSource().tokenizer)));
    };
    sync();
    QObject::connect(state, &ExplorerState::phraseSourceChanged, combo, sync);
    QObject::connect(combo, &QComboBox::activated, combo, [state, combo] {
        PhraseSource source = state->phraseSource();
        source.tokenizer = PhraseTokenizer(combo->currentData().toInt());
        state->setPhraseSource(source);
    });
    return row;
}

QStackedWidget *makePhraseFigureStack(QWidget *tutorial, ExplorerState *state,
                                      ComputeScheduler *scheduler, QWidget *parent)
{
    auto *stack = new QStackedWidget(parent);
    stack->setObjectName(QStringLiteral("phraseFigureStack"));
    stack->addWidget(tutorial);
    stack->addWidget(new ModelPhraseView(state, scheduler, stack));
    const auto sync = [state, stack] {
        stack->setCurrentIndex(state->phraseSource().tokenizer == PhraseTokenizer::Model ? 1 : 0);
    };
    sync();
    QObject::connect(state, &ExplorerState::phraseSourceChanged, stack, sync);
    return stack;
}

} // namespace pe
