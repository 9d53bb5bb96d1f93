#include "views/schemepage.h"

#include "compute/computescheduler.h"
#include "figures/plottheme.h"
#include "figures/schemefigures.h"
#include "figures/viewfigures.h"
#include "widgets/fieldform.h"
#include "widgets/fieldmarks.h"
#include "widgets/fittingscrollarea.h"
#include "widgets/wheelcoalescer.h"

#include "figures/qcpinclude.h"
#include "widgets/figureplot.h"
#include "widgets/windowzoom.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <tuple>

namespace pe {

namespace {

// A form over one part of the Schemes page's settings: `get` picks the part, `set` puts it back.
template <class P, class Get, class Set>
FieldForm *partForm(ExplorerState *state, Get get, Set set, QWidget *parent,
                    std::function<FieldProblem(const P &)> rules = {}, QStringList keys = {})
{
    return new FieldForm(std::make_unique<TableFormModel<P>>(
                             P::fields(), [state, get] { return get(state->schemeSettings()); },
                             std::move(rules),
                             [state, set](const P &value, QString *error) {
                                 SchemeSettings s = state->schemeSettings();
                                 set(s, value);
                                 return state->setSchemeSettings(s, error);
                             },
                             std::move(keys)),
                         parent);
}

// The fields of the settings' own table `view` reads: its keys less the parts (their own boxes).
QStringList fieldKeysReadBy(FigureView view)
{
    QStringList keys = schemeKeysReadBy(view);
    const QStringList parts = schemePartKeys();
    keys.removeIf([&parts](const QString &key) { return parts.contains(key); });
    return keys;
}

// Every field the views read (the view itself is the tabs).
QStringList settingsKeys()
{
    QStringList keys;
    for (FigureView view : viewsOf(Page::Schemes))
        for (const QString &key : fieldKeysReadBy(view))
            if (!keys.contains(key))
                keys.append(key);
    return keys;
}

} // namespace

SchemePage::SchemePage(ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QWidget(parent), m_state(state), m_scheduler(scheduler), m_tabs(new QTabWidget(this)),
      m_message(new QLabel(this)), m_info(new QLabel(this))
{
    // The window's zoom: figures take their fonts when they are built.
    rebuildOnFontChange(this, [this] { redraw(); });
    setObjectName(QStringLiteral("schemePage"));
    m_tabs->setObjectName(QStringLiteral("schemeTabs"));
    const QList<FigureView> views = viewsOf(Page::Schemes);
    for (int i = 0; i < views.size(); ++i) {
        auto *plot = new FigurePlot(m_tabs);
        plot->setObjectName(QStringLiteral("schemePlot-") + figureViewName(views[i]));
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        WheelCoalescer::install(plot); // one replot per burst of wheel turns
        plot->installEventFilter(this);
        m_plots.append(plot);
        m_tabs->addTab(plot, figureViewTitle(views[i]));
        m_tabs->setTabToolTip(i, QString::fromUtf8(viewEntry(views[i]).tip));
    }

    m_forms.insert(QStringLiteral("settings"),
                   partForm<SchemeSettings>(
                       state, [](const SchemeSettings &s) { return s; },
                       [](SchemeSettings &s, const SchemeSettings &v) { s = v; }, this, {},
                       settingsKeys()));
    // One form per scheme of the settings; its rules read the encoding's dims (configuration B
    // has A's), so it checks again when the spec changes.
    forEachSchemePart([this, state](const auto &part) {
        using P = typename std::decay_t<decltype(part)>::Scheme;
        const auto member = part.member;
        const auto shape = part.shape;
        FieldForm *form = partForm<P>(
            state, [member](const SchemeSettings &s) { return s.*member; },
            [member](SchemeSettings &s, const P &v) { s.*member = v; }, this,
            [state, shape](const P &p) { return p.problem(shape(2, state->spec().dims)); });
        connect(state, &ExplorerState::specChanged, form, &FieldForm::refresh);
        m_forms.insert(QString::fromUtf8(part.key), form);
    });
    m_message->setObjectName(QStringLiteral("schemeMessage"));
    m_message->setWordWrap(true);
    markAsMessage(m_message);
    m_message->hide();
    m_info->setObjectName(QStringLiteral("schemeInfo"));
    m_info->setWordWrap(true);

    auto *controls = new QWidget(this);
    auto *layout = new QVBoxLayout(controls);
    auto *intro = new QLabel(tr("Configuration A is the encoding page's scheme (RoPE with its "
                                "scaling; a sinusoid counts as unscaled RoPE of its base)."),
                             controls);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    const auto group = [&](const QString &title, const QString &form) {
        auto *box = new QGroupBox(title, controls);
        box->setObjectName(form + QStringLiteral("Box"));
        m_boxes.insert(form, box);
        (new QVBoxLayout(box))->addWidget(m_forms.value(form));
        layout->addWidget(box);
    };
    group(tr("Views"), QStringLiteral("settings"));
    forEachSchemePart(
        [&](const auto &part) { group(tr(part.title), QString::fromUtf8(part.key)); });
    layout->addWidget(m_message);
    layout->addWidget(m_info);
    layout->addStretch(1);

    auto *scroll = new FittingScrollArea(controls, 330, this);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(scroll);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({340, 1100});
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(splitter);

    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        SchemeSettings s = m_state->schemeSettings();
        s.view = viewsOf(Page::Schemes).value(index, SchemeSettings{}.view);
        m_state->setSchemeSettings(s);
    });
    for (FieldForm *form : std::as_const(m_forms))
        connect(m_state, &ExplorerState::schemeSettingsChanged, form, &FieldForm::refresh);
    connect(m_state, &ExplorerState::changed, this, [this] {
        refresh();
        schedule();
    });
    connect(m_scheduler, &ComputeScheduler::schemesReady, this, &SchemePage::onResult);
    connect(m_scheduler, &ComputeScheduler::schemesFailed, this, &SchemePage::onFailure);
    connect(m_scheduler, &ComputeScheduler::cancelled, this, [this] {
        if (!m_pending)
            return;
        m_pending = false;
        m_info->setText(tr("Cancelled; showing the last result"));
        setTiming(tr("Schemes: cancelled"));
    });
    m_relayout.setSingleShot(true);
    m_relayout.setInterval(50);
    connect(&m_relayout, &QTimer::timeout, this, &SchemePage::redraw);
    refresh();
    schedule();
}

bool SchemePage::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Resize && watched == currentPlot()) {
        const auto *resize = static_cast<QResizeEvent *>(event);
        if (resize->size().width() != resize->oldSize().width())
            m_relayout.start();
    }
    return QWidget::eventFilter(watched, event);
}

QCustomPlot *SchemePage::currentPlot() const
{
    return m_plots.value(m_tabs->currentIndex());
}

QString SchemePage::message() const
{
    QStringList all;
    for (const FieldForm *form : m_forms)
        all += form->messages();
    if (m_message->isVisible())
        all.append(m_message->text());
    return all.join(QLatin1Char('\n'));
}

FieldForm *SchemePage::form(const QString &name) const
{
    return m_forms.value(name);
}

bool SchemePage::isUpToDate() const
{
    if (m_pending)
        return false;
    if (!m_computeError.isEmpty())
        return true;
    const SchemeInputs inputs{m_state->spec(), m_state->schemeSettings()};
    return m_result && schemeResultMatches(*m_result, inputs, {m_state->schemeSettings().view}) &&
           m_drawnCurrent;
}

void SchemePage::schedule()
{
    if (m_state->page() != Page::Schemes)
        return; // computed when the page is shown; exports ask the scheduler themselves
    const QList<FigureView> views{m_state->schemeSettings().view};
    if (m_scheduler->requestSchemes(views)) {
        // Held already (the page was shown before, or only the tab or the theme changed).
        m_pending = false;
        m_computeError.clear();
        updateMessage();
        m_result = m_scheduler->schemes();
        redraw();
        return;
    }
    m_pending = true;
    m_drawnCurrent = false;
    m_info->setText(tr("Computing…"));
    setTiming(tr("Schemes: computing…"));
}

void SchemePage::setTiming(const QString &text)
{
    if (text == m_timing)
        return;
    m_timing = text;
    emit timingChanged();
}

void SchemePage::onResult(const std::shared_ptr<const SchemeResult> &result)
{
    const SchemeInputs inputs{m_state->spec(), m_state->schemeSettings()};
    if (m_state->page() != Page::Schemes ||
        !schemeResultMatches(*result, inputs, {m_state->schemeSettings().view}))
        return; // an answer to an older question; the newer one follows
    m_pending = false;
    m_computeError.clear();
    m_result = result;
    updateMessage();
    redraw();
}

void SchemePage::onFailure(const QString &error)
{
    if (m_state->page() != Page::Schemes)
        return;
    m_pending = false;
    m_computeError = error;
    m_info->clear();
    setTiming(tr("Schemes: not computed"));
    updateMessage();
}

void SchemePage::redraw()
{
    if (!m_result)
        return;
    const FigureView view = m_state->schemeSettings().view;
    QCustomPlot *plot = m_plots.value(int(viewsOf(Page::Schemes).indexOf(view)));
    if (!plot)
        return;
    buildSchemeView(view, SchemeFigures(*m_state, plotTheme(m_state->theme())), plot, *m_result);
    plot->replot();
    m_info->setText(tr("Computed in %1 ms").arg(m_result->totalMs, 0, 'f', 1));
    setTiming(tr("Schemes: %1 on %2 in %3 ms")
                  .arg(figureViewTitle(view), m_result->backendId)
                  .arg(m_result->totalMs, 0, 'f', 1));
    m_drawnCurrent = true;
}

void SchemePage::refresh()
{
    const FigureView view = m_state->schemeSettings().view;
    {
        const QSignalBlocker block(m_tabs);
        m_tabs->setCurrentIndex(int(viewsOf(Page::Schemes).indexOf(view)));
    }
    // Only the controls the current view reads (its entry's keys): its settings, and the schemes
    // it names (its own, configuration B). A view that reads none of the settings hides their box.
    const QStringList settings = fieldKeysReadBy(view);
    if (!settings.isEmpty())
        m_forms.value(QStringLiteral("settings"))->setShownKeys(settings);
    m_boxes.value(QStringLiteral("settings"))->setVisible(!settings.isEmpty());
    m_boxes.value(QStringLiteral("settings"))->setTitle(figureViewTitle(view));
    const QStringList keys = schemeKeysReadBy(view);
    for (const QString &part : schemePartKeys())
        m_boxes.value(part)->setVisible(keys.contains(part));
}

void SchemePage::updateMessage()
{
    m_message->setText(m_computeError.isEmpty() ? QString()
                                                : tr("Cannot compute: %1").arg(m_computeError));
    m_message->setVisible(!m_computeError.isEmpty());
}

} // namespace pe
