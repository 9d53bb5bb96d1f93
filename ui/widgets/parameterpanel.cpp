#include "widgets/parameterpanel.h"

#include "rope/ropefrequencies.h"
#include "schemes/ropescheme.h"
#include "widgets/fieldform.h"
#include "widgets/specformmodel.h"

#include <QComboBox>
#include <QGroupBox>
#include <QVBoxLayout>

namespace pe {

namespace {
// The sliders cover the sizes people drag through; larger values are typed.
constexpr int positionsSliderMax = 8192;
constexpr int dimsSliderMax = 2048;
} // namespace

ParameterPanel::ParameterPanel(ExplorerState *state, QWidget *parent)
    : QWidget(parent), m_state(state)
{
    setObjectName(QStringLiteral("parameterPanel"));
    m_spec = new FieldForm(
        std::make_unique<SpecFormModel>([state] { return state->spec(); },
                                        [state](const EncodingSpec &spec, QString *error) {
                                            return state->setSpec(spec, error);
                                        }),
        this);
    m_spec->addSlider(QStringLiteral("positions"), positionsSliderMax);
    m_spec->addSlider(QStringLiteral("dims"), dimsSliderMax);
    // Room for a three-line refusal (a rope type's required fields), so that it does not push
    // the View box down (issue 38 item 7).
    m_spec->setMessageLines(3);

    m_view = new FieldForm(std::make_unique<TableFormModel<ViewOptions>>(
                               ViewOptions::fields(), [state] { return state->viewOptions(); },
                               [state](const ViewOptions &v) {
                                   return v.resolved(state->spec()).problem(state->spec());
                               },
                               [state](const ViewOptions &v, QString *error) {
                                   return state->setViewOptions(v, error);
                               }),
                           this);

    // The colormap chooser shows each map, not only its name.
    if (auto *maps = qobject_cast<QComboBox *>(m_view->editor(QStringLiteral("colormap")))) {
        const QSize strip(72, 12);
        maps->setIconSize(strip);
        // The strip says most: room for a short name beside it (the rest in the tooltip).
        maps->setMinimumContentsLength(8);
        for (int i = 0; i < maps->count(); ++i)
            if (const auto map = parseAs<Colormap>(colormapNames, maps->itemData(i).toString()))
                maps->setItemIcon(i, QIcon(QPixmap::fromImage(
                                         colormapStrip(*map, strip.width(), strip.height()))));
    }

    auto *layout = new QVBoxLayout(this);
    auto *encoding = new QGroupBox(tr("Encoding"), this);
    (new QVBoxLayout(encoding))->addWidget(m_spec);
    layout->addWidget(encoding);
    auto *view = new QGroupBox(tr("View"), this);
    (new QVBoxLayout(view))->addWidget(m_view);
    layout->addWidget(view);
    layout->addStretch(1);

    connect(state, &ExplorerState::specChanged, m_spec, &FieldForm::refresh);
    connect(state, &ExplorerState::specChanged, this, &ParameterPanel::updateWarning);
    updateWarning();
    for (auto signal : {&ExplorerState::specChanged, &ExplorerState::colormapChanged,
                        &ExplorerState::transposedChanged, &ExplorerState::heatmapDimLimitChanged,
                        &ExplorerState::waveOptionsChanged, &ExplorerState::selectionChanged})
        connect(state, signal, m_view, &FieldForm::refresh);
}

QString ParameterPanel::message() const
{
    return (m_spec->messages() + m_view->messages()).join(QLatin1Char('\n'));
}

QString ParameterPanel::warning() const
{
    return m_warning;
}

void ParameterPanel::updateWarning()
{
    const EncodingSpec &spec = m_state->spec();
    const auto *rope = std::get_if<RopeScheme>(&spec.scheme);
    const QStringList warnings = rope ? ropeConfigWarnings(spec.dims, *rope) : QStringList();
    // transformers' warnings (high_freq_factor <= low_freq_factor...): computed all the same,
    // and said in the form's message slot, whose room is kept anyway (a label of its own below
    // the form made the scrolled panel squeeze its rows).
    m_warning = warnings.isEmpty()
                    ? QString()
                    : tr("transformers would warn: %1").arg(warnings.join(QStringLiteral("; ")));
    m_spec->setNote(m_warning);
}

} // namespace pe
