#include "views/ablationcontrols.h"

#include "state/explorerstate.h"
#include "widgets/fieldform.h"

#include <QVBoxLayout>

namespace pe {

namespace {

// The LayerAblation behind the form: its kind's fields, and the rule's fields (RopeConfig's
// rows) while the kind is the rule. The draft is checked as the state checks it.
class AblationFormModel : public FormModel
{
public:
    explicit AblationFormModel(ExplorerState *state)
        : m_state(state), m_draft(state->layerAblation())
    {}

    QList<FormField> fields() const override
    {
        return formFields(LayerAblation::fields()) + formFields(LayerAblation::ruleFields());
    }
    bool applies(const QString &key) const override
    {
        if (const Field<LayerAblation> *f = findField(LayerAblation::fields(), key))
            return fieldApplies(LayerAblation::fields(), *f, m_draft);
        const Field<RopeConfig> *f = findField(LayerAblation::ruleFields(), key);
        return f && m_draft.kind == AblationKind::Rule &&
               fieldApplies(LayerAblation::ruleFields(), *f, m_draft.rule);
    }
    QString text(const QString &key) const override
    {
        if (const Field<LayerAblation> *f = findField(LayerAblation::fields(), key))
            return fieldText(*f, m_draft);
        const Field<RopeConfig> *f = findField(LayerAblation::ruleFields(), key);
        return f ? fieldText(*f, m_draft.rule) : QString();
    }
    QString setText(const QString &key, const QString &text) override
    {
        if (const Field<LayerAblation> *f = findField(LayerAblation::fields(), key))
            return setFieldText(*f, m_draft, text);
        const Field<RopeConfig> *f = findField(LayerAblation::ruleFields(), key);
        return f ? setFieldText(*f, m_draft.rule, text) : QString();
    }
    FieldProblem problem() const override { return m_draft.problem(); }
    QString describe(const FieldProblem &problem) const override
    {
        return m_draft.describe(problem, FieldNaming::Label);
    }
    bool commit(QString *error) override { return m_state->setLayerAblation(m_draft, error); }
    void reload() override { m_draft = m_state->layerAblation(); }

private:
    ExplorerState *m_state;
    LayerAblation m_draft;
};

} // namespace

AblationControls::AblationControls(ExplorerState *state, QWidget *parent)
    : QWidget(parent), m_form(new FieldForm(std::make_unique<AblationFormModel>(state), this))
{
    setObjectName(QStringLiteral("ablationControls"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_form);
    m_form->setNamePrefix(QStringLiteral("ablation"));
    m_form->setMessageLines(1);
    m_form->setColumns(2); // a rule's six rows in three
    m_form->setLabel(QStringLiteral("kind"), tr("A&blation"));
    m_form->setToolTip(tr("Attention, every layer, one layer enlarged: its head with the model's "
                          "positions, with them removed, shifted, scaled or under another RoPE "
                          "base or scaling rule in every layer, and the difference"));
    // Undo, a session or a lesson step opened: the form shows the state's ablation.
    connect(state, &ExplorerState::layerAblationChanged, m_form, &FieldForm::refresh);
}

QWidget *AblationControls::editor(const QString &key) const
{
    return m_form->editor(key);
}

QString AblationControls::message(const QString &key) const
{
    return key.isEmpty() ? m_form->messages().join(QLatin1Char('\n')) : m_form->message(key);
}

} // namespace pe
