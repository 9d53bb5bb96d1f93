#include "widgets/ropeeditor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>

#include <cmath>

namespace pe {

namespace {

const QList<RopeScaling> scalings{RopeScaling::None, RopeScaling::Linear,
                                  RopeScaling::Ntk,  RopeScaling::DynamicNtk,
                                  RopeScaling::Yarn, RopeScaling::Llama3};

bool readNumber(const QLineEdit *edit, const QString &name, double *out, QString *error)
{
    bool ok = false;
    const QString text = edit->text().trimmed();
    const double v = text.toDouble(&ok);
    if (!ok || !std::isfinite(v)) {
        *error = text.isEmpty() ? QStringLiteral("%1 is empty; type a number").arg(name)
                                : QStringLiteral("%1: \"%2\" is not a number").arg(name, text);
        return false;
    }
    *out = v;
    return true;
}

bool readWhole(const QLineEdit *edit, const QString &name, qint64 *out, QString *error)
{
    bool ok = false;
    const QString text = edit->text().trimmed();
    const qint64 v = text.toLongLong(&ok);
    if (!ok) {
        *error = text.isEmpty()
                     ? QStringLiteral("%1 is empty; type a whole number").arg(name)
                     : QStringLiteral("%1: \"%2\" is not a whole number").arg(name, text);
        return false;
    }
    *out = v;
    return true;
}

void setNumber(QLineEdit *edit, double value, const QList<QWidget *> &keep)
{
    bool ok = false;
    if (keep.contains(edit) || (edit->text().trimmed().toDouble(&ok) == value && ok))
        return;
    edit->setText(QString::number(value, 'g', 12));
}

} // namespace

RopeEditor::RopeEditor(const QString &prefix, QWidget *parent)
    : QWidget(parent), m_prefix(prefix), m_form(new QFormLayout(this)),
      m_pairing(new QComboBox(this)), m_scaling(new QComboBox(this)), m_factor(new QLineEdit(this)),
      m_original(new QLineEdit(this)), m_current(new QLineEdit(this)),
      m_lowFreq(new QLineEdit(this)), m_highFreq(new QLineEdit(this)),
      m_betaFast(new QLineEdit(this)), m_betaSlow(new QLineEdit(this)),
      m_partial(new QLineEdit(this))
{
    m_form->setContentsMargins(0, 0, 0, 0);
    m_pairing->addItem(tr("interleaved (GPT-J)"), QStringLiteral("interleaved"));
    m_pairing->addItem(tr("half (NeoX, Llama)"), QStringLiteral("half"));
    m_pairing->setToolTip(tr("Which columns form pair i: interleaved 2i and 2i+1, or half-split "
                             "i and i + r/2 (rotate_half)"));
    for (RopeScaling s : scalings)
        m_scaling->addItem(ropeScalingName(s), ropeScalingName(s));
    m_scaling->setToolTip(tr("Hugging Face rope_type: none, linear (position interpolation), ntk, "
                             "dynamic-ntk, yarn, llama3"));
    m_factor->setToolTip(tr("Scaling factor s > 0 (Llama 3.1: 8, Qwen 2.5 YaRN: 4)"));
    m_original->setToolTip(tr("original_max_position_embeddings: the context the model was "
                              "trained at (Llama 3: 8192, Qwen 2.5: 32768)"));
    m_current->setToolTip(tr("dynamic-ntk: the current sequence length; 0 uses the original "
                             "context (no change)"));
    m_lowFreq->setToolTip(tr("llama3 low_freq_factor (1)"));
    m_highFreq->setToolTip(tr("llama3 high_freq_factor (4)"));
    m_betaFast->setToolTip(tr("YaRN beta_fast (32)"));
    m_betaSlow->setToolTip(tr("YaRN beta_slow (1)"));
    m_partial->setToolTip(tr("partial_rotary_factor in (0, 1]: the share of dims that rotate"));
    const QList<std::pair<QWidget *, const char *>> named{
        {m_pairing, "Pairing"},          {m_scaling, "Scaling"},       {m_factor, "Factor"},
        {m_original, "OriginalContext"}, {m_current, "CurrentLength"}, {m_lowFreq, "LowFreqFactor"},
        {m_highFreq, "HighFreqFactor"},  {m_betaFast, "BetaFast"},     {m_betaSlow, "BetaSlow"},
        {m_partial, "PartialFactor"}};
    for (const auto &[widget, name] : named)
        widget->setObjectName(prefix + QString::fromLatin1(name));
    m_form->addRow(tr("Pairing"), m_pairing);
    m_form->addRow(tr("Scaling"), m_scaling);
    m_form->addRow(tr("Factor s"), m_factor);
    m_form->addRow(tr("Original context"), m_original);
    m_form->addRow(tr("Current length"), m_current);
    m_form->addRow(tr("Low freq factor"), m_lowFreq);
    m_form->addRow(tr("High freq factor"), m_highFreq);
    m_form->addRow(tr("Beta fast"), m_betaFast);
    m_form->addRow(tr("Beta slow"), m_betaSlow);
    m_form->addRow(tr("Partial factor"), m_partial);

    connect(m_pairing, &QComboBox::activated, this, &RopeEditor::edited);
    connect(m_scaling, &QComboBox::activated, this, [this] {
        updateRows();
        emit edited();
    });
    for (QLineEdit *edit : {m_factor, m_original, m_current, m_lowFreq, m_highFreq, m_betaFast,
                            m_betaSlow, m_partial})
        connect(edit, &QLineEdit::textEdited, this, &RopeEditor::edited);
    setParameters(RopeParameters{});
}

QList<QWidget *> RopeEditor::fields() const
{
    return {m_pairing, m_scaling,  m_factor,   m_original, m_current,
            m_lowFreq, m_highFreq, m_betaFast, m_betaSlow, m_partial};
}

void RopeEditor::updateRows()
{
    const auto scaling = parseRopeScaling(m_scaling->currentData().toString());
    const RopeScaling s = scaling.value_or(RopeScaling::None);
    m_form->setRowVisible(m_factor, s != RopeScaling::None);
    m_form->setRowVisible(m_original, s == RopeScaling::DynamicNtk || s == RopeScaling::Yarn ||
                                          s == RopeScaling::Llama3);
    m_form->setRowVisible(m_current, s == RopeScaling::DynamicNtk);
    m_form->setRowVisible(m_lowFreq, s == RopeScaling::Llama3);
    m_form->setRowVisible(m_highFreq, s == RopeScaling::Llama3);
    m_form->setRowVisible(m_betaFast, s == RopeScaling::Yarn);
    m_form->setRowVisible(m_betaSlow, s == RopeScaling::Yarn);
}

void RopeEditor::setParameters(const RopeParameters &rope, const QList<QWidget *> &keep)
{
    m_pairing->setCurrentIndex(rope.pairing == RopePairing::Half ? 1 : 0);
    m_scaling->setCurrentIndex(int(scalings.indexOf(rope.scaling)));
    setNumber(m_factor, rope.factor, keep);
    setNumber(m_original, double(rope.originalContext), keep);
    setNumber(m_current, double(rope.currentLength), keep);
    setNumber(m_lowFreq, rope.lowFreqFactor, keep);
    setNumber(m_highFreq, rope.highFreqFactor, keep);
    setNumber(m_betaFast, rope.betaFast, keep);
    setNumber(m_betaSlow, rope.betaSlow, keep);
    setNumber(m_partial, rope.partialRotaryFactor, keep);
    updateRows();
}

bool RopeEditor::read(RopeParameters *rope, QString *error, QWidget **bad) const
{
    RopeParameters r = *rope;
    r.pairing = m_pairing->currentIndex() == 1 ? RopePairing::Half : RopePairing::Interleaved;
    r.scaling = parseRopeScaling(m_scaling->currentData().toString()).value_or(RopeScaling::None);
    const QString p = m_prefix == QLatin1String("rope") ? QString() : m_prefix + QLatin1Char(' ');
    auto fail = [&](QWidget *field) {
        *bad = field;
        return false;
    };
    if (!readNumber(m_factor, p + tr("factor"), &r.factor, error))
        return fail(m_factor);
    if (!readWhole(m_original, p + tr("original context"), &r.originalContext, error))
        return fail(m_original);
    if (!readWhole(m_current, p + tr("current length"), &r.currentLength, error))
        return fail(m_current);
    if (!readNumber(m_lowFreq, p + tr("low freq factor"), &r.lowFreqFactor, error))
        return fail(m_lowFreq);
    if (!readNumber(m_highFreq, p + tr("high freq factor"), &r.highFreqFactor, error))
        return fail(m_highFreq);
    if (!readNumber(m_betaFast, p + tr("beta fast"), &r.betaFast, error))
        return fail(m_betaFast);
    if (!readNumber(m_betaSlow, p + tr("beta slow"), &r.betaSlow, error))
        return fail(m_betaSlow);
    if (!readNumber(m_partial, p + tr("partial factor"), &r.partialRotaryFactor, error))
        return fail(m_partial);
    *rope = r;
    return true;
}

} // namespace pe
