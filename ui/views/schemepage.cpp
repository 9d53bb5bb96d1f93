#include "views/schemepage.h"

#include "widgets/fieldmarks.h"
#include "figures/figureexporter.h"
#include "widgets/parameterpanel.h"
#include "figures/plottheme.h"
#include "widgets/ropeeditor.h"
#include "figures/schemefigures.h"
#include "widgets/stepedit.h"

#include "figures/qcpinclude.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <tuple>

namespace pe {

namespace {

void syncText(QLineEdit *edit, qint64 value, bool keep)
{
    bool ok = false;
    if (keep || (edit->text().trimmed().toLongLong(&ok) == value && ok))
        return;
    edit->setText(QString::number(value));
}

} // namespace

SchemePage::SchemePage(ExplorerState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_tabs(new QTabWidget(this)), m_pair(new StepEdit(this)),
      m_position(new StepEdit(this)), m_decayDistance(new StepEdit(this)),
      m_square(new StepEdit(this)), m_metric(new QComboBox(this)), m_heads(new StepEdit(this)),
      m_head(new StepEdit(this)), m_alibiCausal(new QCheckBox(tr("&Causal (mask j > i)"), this)),
      m_buckets(new StepEdit(this)), m_maxDistance(new StepEdit(this)),
      m_t5Causal(new QCheckBox(tr("C&ausal (decoder)"), this)), m_compareBase(new QLineEdit(this)),
      m_compare(new RopeEditor(QStringLiteral("compare"), this)), m_message(new QLabel(this)),
      m_info(new QLabel(this))
{
    setObjectName(QStringLiteral("schemePage"));
    // One worker: a newer request replaces a queued one, and the destructor waits for the
    // running one, so no result is delivered to a deleted page.
    m_pool.setMaxThreadCount(1);
    m_tabs->setObjectName(QStringLiteral("schemeTabs"));
    const QStringList tips{
        tr("Wavelength 2π/θ per pair, unscaled and scaled, and the original context: how PI, "
           "NTK, YaRN and Llama 3 stretch the spectrum"),
        tr("The rotating vector of a few pairs as the position advances"),
        tr("RoFormer §3.4.3: the score of identical all-ones q and k against relative distance"),
        tr("PE(p) · PE(q) (dot or cosine) of the encoding page's scheme"),
        tr("ALiBi's bias −m·|i − j| of one head"),
        tr("T5's relative position bucket ids"),
        tr("Similarity of configuration A (the encoding page) and B side by side, one colour "
           "scale")};
    const QList<SchemeView> views = allSchemeViews();
    for (int i = 0; i < views.size(); ++i) {
        auto *plot = new QCustomPlot(m_tabs);
        plot->setObjectName(QStringLiteral("schemePlot-") + schemeViewName(views[i]));
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        m_plots.append(plot);
        m_tabs->addTab(plot, SchemeFigures::viewTitle(views[i]));
        m_tabs->setTabToolTip(i, tips.value(i));
    }

    m_pair->setObjectName(QStringLiteral("rotationPair"));
    m_pair->setToolTip(tr("The pair i the rotation view follows first (0 to d/2 − 1)"));
    m_position->setObjectName(QStringLiteral("rotationPosition"));
    m_position->setToolTip(tr("The position p the vectors are drawn at; the trail shows the "
                              "positions before it. Up/Down step by 1."));
    m_decayDistance->setObjectName(QStringLiteral("decayDistance"));
    m_decayDistance->setMinimumValue(1);
    m_decayDistance->setToolTip(tr("The decay curve's last relative distance"));
    m_square->setObjectName(QStringLiteral("squarePositions"));
    m_square->setMinimumValue(2);
    m_square->setToolTip(tr("Positions per side of the similarity, ALiBi and T5 heatmaps (2 to "
                            "%1)")
                             .arg(limits::maxSchemeSquare));
    m_metric->setObjectName(QStringLiteral("similarityMetric"));
    m_metric->addItem(tr("cosine"), QStringLiteral("cosine"));
    m_metric->addItem(tr("dot product"), QStringLiteral("dot"));
    m_metric->setToolTip(tr("PE(p) · PE(q), or divided by both norms"));
    m_heads->setObjectName(QStringLiteral("alibiHeads"));
    m_heads->setMinimumValue(1);
    m_heads->setToolTip(tr("Number of attention heads (slopes 2^(−8h/H); the interleaved rule "
                           "when H is not a power of two)"));
    m_head->setObjectName(QStringLiteral("alibiHead"));
    m_head->setMinimumValue(1);
    m_head->setToolTip(tr("The head whose bias is shown, 1 to H"));
    m_alibiCausal->setObjectName(QStringLiteral("alibiCausal"));
    m_buckets->setObjectName(QStringLiteral("t5Buckets"));
    m_buckets->setToolTip(tr("relative_attention_num_buckets (32)"));
    m_maxDistance->setObjectName(QStringLiteral("t5MaxDistance"));
    m_maxDistance->setToolTip(tr("relative_attention_max_distance (128)"));
    m_t5Causal->setObjectName(QStringLiteral("t5Causal"));
    m_compareBase->setObjectName(QStringLiteral("compareBase"));
    m_compareBase->setToolTip(tr("Configuration B's base (rope_theta); its dims are A's"));
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
    auto group = [&](const QString &title) {
        auto *box = new QGroupBox(title, controls);
        layout->addWidget(box);
        return new QFormLayout(box);
    };
    QFormLayout *rotation = group(tr("Rotation and decay"));
    rotation->addRow(tr("&Pair i"), m_pair);
    rotation->addRow(tr("P&osition p"), m_position);
    rotation->addRow(tr("&Decay up to"), m_decayDistance);
    QFormLayout *heat = group(tr("Heatmaps"));
    heat->addRow(tr("Pos&itions"), m_square);
    heat->addRow(tr("&Metric"), m_metric);
    QFormLayout *alibi = group(tr("ALiBi"));
    alibi->addRow(tr("&Heads"), m_heads);
    alibi->addRow(tr("H&ead shown"), m_head);
    alibi->addRow(m_alibiCausal);
    QFormLayout *t5 = group(tr("T5 buckets"));
    t5->addRow(tr("&Buckets"), m_buckets);
    t5->addRow(tr("Max dis&tance"), m_maxDistance);
    t5->addRow(m_t5Causal);
    QFormLayout *compare = group(tr("Compare: configuration B"));
    compare->addRow(tr("Base"), m_compareBase);
    compare->addRow(m_compare);
    layout->addWidget(m_message);
    layout->addWidget(m_info);
    layout->addStretch(1);

    auto *scroll = new QScrollArea(this);
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(330);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(scroll);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({340, 1100});
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(splitter);

    for (StepEdit *edit :
         {m_pair, m_position, m_decayDistance, m_square, m_heads, m_head, m_buckets, m_maxDistance})
        connect(edit, &StepEdit::edited, this, [this, edit] { applyControls(edit); });
    connect(m_metric, &QComboBox::activated, this, [this] { applyControls(m_metric); });
    connect(m_alibiCausal, &QCheckBox::clicked, this, [this] { applyControls(m_alibiCausal); });
    connect(m_t5Causal, &QCheckBox::clicked, this, [this] { applyControls(m_t5Causal); });
    connect(m_compareBase, &QLineEdit::textEdited, this, [this] { applyControls(m_compareBase); });
    connect(m_compare, &RopeEditor::edited, this, [this] { applyControls(m_compare); });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        SchemeSettings s = m_state->schemeSettings();
        s.view = allSchemeViews().value(index, SchemeView::Spectrum);
        m_state->setSchemeSettings(s);
    });
    connect(m_state, &ExplorerState::changed, this, [this] {
        refresh();
        schedule();
    });
    refresh();
    schedule();
}

SchemePage::~SchemePage()
{
    m_pool.clear();
    m_pool.waitForDone();
}

QCustomPlot *SchemePage::currentPlot() const
{
    return m_plots.value(m_tabs->currentIndex());
}

QString SchemePage::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
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
        return; // computed when the page is shown; exports compute their own
    const SchemeInputs inputs{m_state->spec(), m_state->schemeSettings()};
    const QList<SchemeView> views{inputs.settings.view};
    if (m_result && schemeResultMatches(*m_result, inputs, views)) {
        m_pending = false;
        redraw();
        return;
    }
    const quint64 generation = ++m_generation;
    m_pending = true;
    m_drawnCurrent = false;
    m_info->setText(tr("Computing…"));
    m_pool.clear();
    m_pool.start([this, inputs, views, generation] {
        auto result = std::make_shared<SchemeResult>();
        QString error;
        const bool ok = computeSchemeData(inputs, views, result.get(), &error);
        // Queued to the page's thread; the destructor waits for this task, so `this` lives.
        QMetaObject::invokeMethod(
            this,
            [this, result, ok, error, generation] {
                if (generation != m_generation)
                    return;
                m_pending = false;
                if (!ok) {
                    m_computeError = error;
                    m_info->clear();
                    updateMessage();
                    emit updated();
                    return;
                }
                m_computeError.clear();
                m_result = result;
                publishSchemeResult(result);
                updateMessage();
                redraw();
            },
            Qt::QueuedConnection);
    });
}

void SchemePage::redraw()
{
    if (!m_result)
        return;
    const SchemeView view = m_state->schemeSettings().view;
    QCustomPlot *plot = m_plots.value(int(allSchemeViews().indexOf(view)));
    if (!plot)
        return;
    SchemeFigures(*m_state, plotTheme(m_state->theme())).build(view, plot, *m_result);
    plot->replot();
    m_info->setText(tr("Computed in %1 ms").arg(m_result->totalMs, 0, 'f', 1));
    m_drawnCurrent = true;
    emit updated();
}

void SchemePage::refresh()
{
    const SchemeSettings &s = m_state->schemeSettings();
    {
        const QSignalBlocker block(m_tabs);
        m_tabs->setCurrentIndex(int(allSchemeViews().indexOf(s.view)));
    }
    syncText(m_pair, s.rotationPair, m_errors.contains(m_pair));
    syncText(m_position, s.rotationPosition, m_errors.contains(m_position));
    syncText(m_decayDistance, s.decayDistance, m_errors.contains(m_decayDistance));
    syncText(m_square, s.squarePositions, m_errors.contains(m_square));
    syncText(m_heads, s.alibiHeads, m_errors.contains(m_heads));
    syncText(m_head, s.alibiHead + 1, m_errors.contains(m_head));
    syncText(m_buckets, s.t5.buckets, m_errors.contains(m_buckets));
    syncText(m_maxDistance, s.t5.maxDistance, m_errors.contains(m_maxDistance));
    {
        const QSignalBlocker a(m_metric), b(m_alibiCausal), c(m_t5Causal), d(m_compare);
        m_metric->setCurrentIndex(s.metric == SimilarityMetric::Dot ? 1 : 0);
        m_alibiCausal->setChecked(s.alibiCausal);
        m_t5Causal->setChecked(!s.t5.bidirectional);
        QList<QWidget *> keep;
        for (QWidget *f : m_compare->fields())
            if (m_errors.contains(f))
                keep.append(f);
        m_compare->setParameters(s.compareRope, keep);
    }
    bool ok = false;
    if (!m_errors.contains(m_compareBase) &&
        (m_compareBase->text().trimmed().toDouble(&ok) != s.compareBase || !ok))
        m_compareBase->setText(QString::number(s.compareBase, 'g', 12));
}

void SchemePage::applyControls(QWidget *field)
{
    SchemeSettings s = m_state->schemeSettings();
    QString error;
    const QList<std::tuple<StepEdit *, QString, qint64 *>> integers{
        {m_pair, tr("rotation pair"), &s.rotationPair},
        {m_position, tr("rotation position"), &s.rotationPosition},
        {m_decayDistance, tr("decay distance"), &s.decayDistance},
        {m_square, tr("heatmap positions"), &s.squarePositions},
        {m_heads, tr("ALiBi heads"), &s.alibiHeads},
        {m_head, tr("ALiBi head"), &s.alibiHead},
        {m_buckets, tr("T5 buckets"), &s.t5.buckets},
        {m_maxDistance, tr("T5 max distance"), &s.t5.maxDistance},
    };
    for (const auto &[edit, name, value] : integers) {
        if (!parseIntegerField(edit->text(), name, value, &error))
            return setError(edit, error);
    }
    s.alibiHead -= 1; // shown 1-based
    s.metric = m_metric->currentIndex() == 1 ? SimilarityMetric::Dot : SimilarityMetric::Cosine;
    s.alibiCausal = m_alibiCausal->isChecked();
    s.t5.bidirectional = !m_t5Causal->isChecked();
    if (!parseNumberField(m_compareBase->text(), tr("compare base"), &s.compareBase, &error))
        return setError(m_compareBase, error);
    QWidget *bad = nullptr;
    if (!m_compare->read(&s.compareRope, &error, &bad))
        return setError(bad, error);
    if (!m_state->setSchemeSettings(s, &error))
        return setError(field == m_compare ? m_compare->fields().at(1) : field, error);
    const QList<QWidget *> fields = m_errors.keys();
    for (QWidget *f : fields)
        clearError(f);
}

void SchemePage::setError(QWidget *field, const QString &message)
{
    m_errors.insert(field, message);
    markInvalid(field, true);
    updateMessage();
}

void SchemePage::clearError(QWidget *field)
{
    if (!m_errors.remove(field))
        return;
    markInvalid(field, false);
    updateMessage();
}

void SchemePage::updateMessage()
{
    QStringList lines;
    for (const QString &e : m_errors)
        lines.append(tr("Refused: %1").arg(e));
    if (!m_computeError.isEmpty())
        lines.append(tr("Cannot compute: %1").arg(m_computeError));
    m_message->setText(lines.join(QLatin1Char('\n')));
    m_message->setVisible(!lines.isEmpty());
}

} // namespace pe
