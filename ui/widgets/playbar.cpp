#include "widgets/playbar.h"

#include "fields/fieldvalue.h"
#include "media/outputformats.h"
#include "state/explorerstate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFontMetrics>
#include <QLabel>
#include <QPainter>
#include <QScopedValueRollback>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <utility>

namespace pe {

namespace {

// Steps across the range: the slider's resolution and one pass at 1x takes steps / 30 s.
constexpr int steps = 240;
constexpr int tickMs = 33; // about 30 frames per second; the views repaint queued

// Play (a triangle) or pause (two bars) in `colour`, on a transparent square of `side` pixels.
QPixmap mediaPixmap(bool pause, const QColor &colour, int side)
{
    QPixmap pixmap(side, side);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    const double margin = side * 0.2;
    if (pause) {
        const double bar = side * 0.22;
        painter.drawRect(QRectF(margin, margin, bar, side - 2 * margin));
        painter.drawRect(QRectF(side - margin - bar, margin, bar, side - 2 * margin));
    } else {
        const QPointF corners[] = {
            {margin, margin}, {side - margin, side / 2.0}, {margin, side - margin}};
        painter.drawPolygon(corners, 3);
    }
    return pixmap;
}

} // namespace

PlayBar::PlayBar(ExplorerState *state, ViewsFn playable, ViewsFn figure, QWidget *parent)
    : QToolBar(tr("Motion"), parent), m_state(state), m_playable(std::move(playable)),
      m_figure(std::move(figure)), m_parameter(new QComboBox(this)),
      m_from(new QDoubleSpinBox(this)), m_to(new QDoubleSpinBox(this)),
      m_slider(new QSlider(Qt::Horizontal, this)), m_play(new QToolButton(this)),
      m_export(new QToolButton(this)), m_speed(new QComboBox(this)),
      m_loop(new QCheckBox(tr("Loop"), this)), m_value(new QLabel(this)), m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("motion"));
    m_parameter->setObjectName(QStringLiteral("motionParameter"));
    m_parameter->setToolTip(tr("What moves: the position (waves, heatmap, rotation, phrase "
                               "views) or a numeric field of the scheme"));
    m_play->setObjectName(QStringLiteral("motionPlay"));
    m_play->setCheckable(true);
    m_play->setToolTip(tr("Play / pause"));
    m_slider->setObjectName(QStringLiteral("motionSlider"));
    m_slider->setRange(0, steps);
    m_slider->setMinimumWidth(240);
    m_slider->setToolTip(tr("The value shown: drag to move it by hand"));
    m_from->setToolTip(tr("The value at the start of the range"));
    m_to->setToolTip(tr("The value at the end of the range"));
    m_speed->setToolTip(tr("Playing speed: 1x crosses the range in 8 seconds"));
    m_loop->setToolTip(tr("Start again at the end of the range"));
    for (QDoubleSpinBox *box : {m_from, m_to}) {
        box->setDecimals(3);
        box->setRange(-1e12, 1e12);
        box->setKeyboardTracking(false);
    }
    m_from->setObjectName(QStringLiteral("motionFrom"));
    m_to->setObjectName(QStringLiteral("motionTo"));
    m_speed->setObjectName(QStringLiteral("motionSpeed"));
    for (const auto &[label, factor] :
         {std::pair{"0.25x", 0.25}, std::pair{"0.5x", 0.5}, std::pair{"1x", 1.0},
          std::pair{"2x", 2.0}, std::pair{"4x", 4.0}})
        m_speed->addItem(QString::fromLatin1(label), factor);
    m_speed->setCurrentIndex(2);
    m_loop->setObjectName(QStringLiteral("motionLoop"));
    m_loop->setChecked(true);
    m_value->setObjectName(QStringLiteral("motionValue"));

    addWidget(new QLabel(tr("Animate "), this));
    addWidget(m_parameter);
    addWidget(new QLabel(tr(" from "), this));
    addWidget(m_from);
    addWidget(new QLabel(tr(" to "), this));
    addWidget(m_to);
    addWidget(m_play);
    addWidget(m_slider);
    addWidget(m_value);
    addWidget(m_speed);
    addWidget(m_loop);
    m_export->setObjectName(QStringLiteral("motionExport"));
    m_export->setText(tr("Export…"));
    m_export->setToolTip(tr("File > Export figure, preset to what plays here as a %1")
                             .arg(outputLabelList(OutputKind::Animation)));
    addWidget(m_export);
    connect(m_export, &QToolButton::clicked, this, &PlayBar::exportAnimation);

    m_timer->setInterval(tickMs);
    connect(m_timer, &QTimer::timeout, this, &PlayBar::advance);
    connect(m_play, &QToolButton::toggled, this, [this](bool on) { on ? play() : pause(); });
    connect(m_slider, &QSlider::valueChanged, this, &PlayBar::setStep);
    connect(m_parameter, &QComboBox::currentTextChanged, this, [this](const QString &text) {
        m_chosen = text;
        pause();
        rebuild();
    });
    connect(m_from, &QDoubleSpinBox::valueChanged, this, &PlayBar::replan);
    connect(m_to, &QDoubleSpinBox::valueChanged, this, &PlayBar::replan);
    // A new page, view or scheme changes what can move; our own steps change nothing of that.
    const auto structural = [this] {
        if (m_applying)
            return;
        pause();
        rebuild();
    };
    connect(m_state, &ExplorerState::pageChanged, this, structural);
    connect(m_state, &ExplorerState::schemeSettingsChanged, this, structural);
    connect(m_state, &ExplorerState::specChanged, this, structural);
    connect(m_state, &ExplorerState::phraseSettingsChanged, this, structural);
    // A click elsewhere (a cell, a token) moves what the bar shows: the knob follows.
    for (auto signal : {&ExplorerState::selectionChanged, &ExplorerState::phraseSelectionChanged})
        connect(m_state, signal, this, [this] {
            if (!m_applying)
                followState();
        });
    updatePlayIcon();
    rebuild();
}

void PlayBar::changeEvent(QEvent *event)
{
    QToolBar::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updatePlayIcon();
    if (event->type() == QEvent::FontChange)
        fitWidths();
}

void PlayBar::updatePlayIcon()
{
    QIcon icon;
    const bool pause = m_timer->isActive();
    for (int side : {16, 24, 32, 48}) {
        icon.addPixmap(
            mediaPixmap(pause, palette().color(QPalette::Active, QPalette::ButtonText), side));
        icon.addPixmap(
            mediaPixmap(pause, palette().color(QPalette::Disabled, QPalette::ButtonText), side),
            QIcon::Disabled);
    }
    m_play->setIcon(icon);
}

AnimationOptions PlayBar::currentAnimation() const
{
    AnimationOptions options;
    options.parameter = m_parameter->currentText();
    options.from = m_from->value();
    options.to = m_to->value();
    options.frames = 60;
    return options;
}

bool PlayBar::setAnimation(const AnimationOptions &options, QString *error)
{
    pause();
    const int index = m_parameter->findText(options.parameter);
    if (index < 0) {
        const QStringList offered = FigureAnimation::parameterNames(*m_state, currentViews());
        *error = offered.isEmpty()
                     ? tr("this view has nothing to animate")
                     : tr("this view cannot animate \"%1\" (it offers %2)")
                           .arg(options.parameter, offered.join(QStringLiteral(", ")));
        return false;
    }
    m_parameter->setCurrentIndex(index); // a new parameter rebuilds the default range
    AnimationOptions wanted = options;
    wanted.frames = steps + 1;
    if (!wanted.from || !wanted.to) {
        const AnimationOptions range =
            FigureAnimation::defaultOptions(*m_state, currentViews(), options.parameter);
        wanted.from = wanted.from.value_or(range.from.value_or(0.0));
        wanted.to = wanted.to.value_or(range.to.value_or(0.0));
    }
    if (!FigureAnimation::plan(*m_state, currentViews(), wanted, error))
        return false;
    {
        const QSignalBlocker a(m_from), b(m_to);
        m_from->setValue(*wanted.from);
        m_to->setValue(*wanted.to);
    }
    replan();
    return true;
}

void PlayBar::exportAnimation()
{
    pause();
    emit exportRequested(m_figure(), currentAnimation());
}

void PlayBar::rebuild()
{
    // The parameter last chosen when this page offers it, else the first (the position).
    const QString current = m_chosen;
    const QStringList names = FigureAnimation::parameterNames(*m_state, currentViews());
    {
        const QSignalBlocker block(m_parameter);
        m_parameter->clear();
        m_parameter->addItems(names);
        m_parameter->setCurrentIndex(std::max(0, int(names.indexOf(current))));
    }
    const QString parameter = m_parameter->currentText();
    // The default range: every position, or the field's value up to 8 times it.
    AnimationOptions options = FigureAnimation::defaultOptions(*m_state, currentViews(), parameter);
    options.frames = steps + 1;
    QString error;
    m_plan = names.isEmpty() ? std::nullopt
                             : FigureAnimation::plan(*m_state, currentViews(), options, &error);
    const QSignalBlocker a(m_from), b(m_to);
    if (m_plan) {
        const int decimals = m_plan->animatesPosition() ? 0 : 3;
        m_from->setDecimals(decimals);
        m_to->setDecimals(decimals);
        m_from->setValue(m_plan->from());
        m_to->setValue(m_plan->to());
    }
    setEnabled(m_plan.has_value());
    if (m_plan)
        followState();
    else
        m_value->clear();
    fitWidths();
}

void PlayBar::replan()
{
    pause();
    AnimationOptions options;
    options.parameter = m_parameter->currentText();
    options.from = m_from->value();
    options.to = m_to->value();
    options.frames = steps + 1;
    QString error;
    std::optional<FigureAnimation> plan =
        FigureAnimation::plan(*m_state, currentViews(), options, &error);
    if (!plan) {
        m_value->setText(error.left(60));
        m_value->setToolTip(error);
        return;
    }
    m_plan = plan;
    m_value->setToolTip({});
    followState(); // a new range moves the knob, not the views
    fitWidths();
}

std::optional<double> PlayBar::stateValue() const
{
    if (!m_plan)
        return std::nullopt;
    if (!m_plan->animatesPosition())
        return FigureAnimation::schemeFieldValue(m_state->spec(), m_plan->parameter());
    switch (m_state->page()) {
    case Page::Encoding:
        return double(m_state->selection().position);
    case Page::Phrases:
        return double(m_state->phraseSelection().token);
    case Page::Schemes:
        return double(m_state->schemeSettings().rotationPosition);
    case Page::Model:
        break;
    }
    return std::nullopt;
}

namespace {

// The value as the rest of the window writes numbers: "base = 1,000,000", not "1e+06" (issue
// 46); a large value between whole numbers is rounded for reading (the state keeps it whole).
QString displayValue(double value)
{
    return formatGrouped(std::fabs(value) >= 1e4 ? std::round(value) : value);
}

} // namespace

// At 150% zoom the bar's items at their size hints did not fit 1,280 px, and the toolbar
// squeezed the value label to its fixed 90 px least width: "position = 50" read "position ="
// under the speed box (issue 46.8). The label's least width is now its longest value's, in the
// current font, and the range boxes, whose hints are as wide as ±10^12 with three decimals, may
// shrink to their values' width: the toolbar takes the shortfall from them and the slider.
void PlayBar::fitWidths()
{
    const QFontMetrics metrics(font());
    int label = metrics.horizontalAdvance(QStringLiteral("position = 0,000"));
    QString longest = QStringLiteral("0000");
    if (m_plan) {
        for (double value : {m_plan->from(), m_plan->to()}) {
            label = std::max(label, metrics.horizontalAdvance(QStringLiteral("%1 = %2").arg(
                                        m_plan->parameter(), displayValue(value))));
            const QString text = QString::number(value, 'f', m_from->decimals());
            if (text.size() > longest.size())
                longest = text;
        }
    }
    m_value->setMinimumWidth(label + metrics.averageCharWidth());
    // The choices whole: the toolbar shrank the parameter box to "positi" in their stead.
    for (QComboBox *box : {m_parameter, m_speed})
        box->setMinimumWidth(box->sizeHint().width());
    for (QDoubleSpinBox *box : {m_from, m_to}) {
        // QAbstractSpinBox's hint: its range's longest text (18 characters at most) and a
        // space, plus the frame and buttons.
        const QString range =
            QString::number(box->minimum(), 'f', box->decimals()).left(18) + QLatin1Char(' ');
        const int frame = box->sizeHint().width() - metrics.horizontalAdvance(range);
        box->setMinimumWidth(
            std::min(box->sizeHint().width(),
                     frame + metrics.horizontalAdvance(longest + QLatin1Char(' '))));
    }
}

void PlayBar::followState()
{
    const std::optional<double> value = stateValue();
    int step = 0;
    if (value && m_plan->to() != m_plan->from())
        step = qBound(0,
                      int(std::lround((*value - m_plan->from()) / (m_plan->to() - m_plan->from()) *
                                      double(steps))),
                      steps);
    showStep(step);
    // The knob sits on the nearest step, the label says the state's own value: with more
    // positions than steps a click at p = 777 read "position = 778" (issue 46.8).
    if (value)
        m_value->setText(QStringLiteral("%1 = %2").arg(m_plan->parameter(), displayValue(*value)));
}

void PlayBar::showStep(int step)
{
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(step);
    }
    m_value->setText(m_plan ? QStringLiteral("%1 = %2").arg(m_plan->parameter(),
                                                            displayValue(m_plan->valueAt(step)))
                            : QString());
}

QString PlayBar::valueText() const
{
    return m_value->text();
}

bool PlayBar::isPlaying() const
{
    return m_timer->isActive();
}

void PlayBar::play()
{
    if (!m_plan || m_timer->isActive())
        return;
    if (m_slider->value() >= steps)
        m_slider->setValue(0);
    m_phase = 0;
    m_timer->start();
    const QSignalBlocker block(m_play);
    m_play->setChecked(true);
    updatePlayIcon();
    emit playingChanged(true);
}

void PlayBar::pause()
{
    const bool was = m_timer->isActive();
    m_timer->stop();
    const QSignalBlocker block(m_play);
    m_play->setChecked(false);
    updatePlayIcon();
    if (was)
        emit playingChanged(false);
}

void PlayBar::advance()
{
    m_phase += m_speed->currentData().toDouble();
    const int move = int(std::floor(m_phase));
    if (move < 1)
        return;
    m_phase -= move;
    int next = m_slider->value() + move;
    if (next > steps) {
        if (!m_loop->isChecked()) {
            m_slider->setValue(steps);
            pause();
            return;
        }
        next = 0;
    }
    m_slider->setValue(next);
}

void PlayBar::setStep(int step)
{
    if (!m_plan)
        return;
    const QScopedValueRollback applying(m_applying, true);
    QString error;
    bool ok = true;
    const Page page = m_state->page();
    if (m_plan->animatesPosition() && page != Page::Schemes) {
        // Where the user looks, as a click would set it: the selected cell (the readout and the
        // waves' ring follow it) or the clicked token. The markers stay as typed.
        if (page == Page::Encoding) {
            Selection selection = m_state->selection();
            selection.position = qint64(m_plan->valueAt(step));
            m_state->setSelection(selection);
        } else {
            ok = m_plan->apply(*m_state, step, &error);
        }
    } else {
        // A parameter (the rotation's position, a swept field): shown, never saved.
        ok = m_state->preview([&] { return m_plan->apply(*m_state, step, &error); });
    }
    showStep(step);
    if (!ok) {
        m_value->setText(error.left(60));
        pause();
    }
}

} // namespace pe
