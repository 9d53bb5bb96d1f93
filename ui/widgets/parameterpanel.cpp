#include "widgets/parameterpanel.h"

#include "compute/computejobs.h"
#include "widgets/fieldmarks.h"
#include "widgets/ropeeditor.h"
#include "widgets/stepedit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>

namespace pe {

namespace {
constexpr int positionsSliderMax = 8192;
constexpr int dimsSliderMax = 2048;

QString joinIntegers(const QList<qint64> &values)
{
    QStringList parts;
    for (qint64 v : values)
        parts.append(QString::number(v));
    return parts.join(QStringLiteral(", "));
}

QString joinCrosses(const QList<CrossMarker> &crosses)
{
    QStringList parts;
    for (const CrossMarker &c : crosses)
        parts.append(QStringLiteral("%1@%2").arg(c.position).arg(c.dim));
    return parts.join(QStringLiteral(", "));
}

void setTextIfDifferent(QLineEdit *edit, const QString &text)
{
    if (edit->text() != text)
        edit->setText(text);
}
} // namespace

bool parseIntegerField(const QString &text, const QString &field, qint64 *value, QString *error)
{
    bool ok = false;
    const QString t = text.trimmed();
    const qint64 v = t.toLongLong(&ok);
    if (!ok) {
        *error = t.isEmpty() ? QStringLiteral("%1 is empty; type a whole number").arg(field)
                             : QStringLiteral("%1: \"%2\" is not a whole number").arg(field, t);
        return false;
    }
    *value = v;
    return true;
}

bool parseNumberField(const QString &text, const QString &field, double *value, QString *error)
{
    bool ok = false;
    const QString t = text.trimmed();
    const double v = t.toDouble(&ok);
    if (!ok || !std::isfinite(v)) {
        *error = t.isEmpty() ? QStringLiteral("%1 is empty; type a number").arg(field)
                             : QStringLiteral("%1: \"%2\" is not a number").arg(field, t);
        return false;
    }
    *value = v;
    return true;
}

bool parseIntegerListField(const QString &text, const QString &field, QList<qint64> *values,
                           QString *error)
{
    values->clear();
    const QStringList parts =
        text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        qint64 v = 0;
        if (!parseIntegerField(part, field, &v, error))
            return false;
        values->append(v);
    }
    return true;
}

bool parseCrossesField(const QString &text, QList<CrossMarker> *crosses, QString *error)
{
    crosses->clear();
    const QStringList parts =
        text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    static const QRegularExpression pattern(QStringLiteral("^(\\d+)@(\\d+)$"));
    for (const QString &part : parts) {
        const QRegularExpressionMatch m = pattern.match(part);
        if (!m.hasMatch()) {
            *error = QStringLiteral("crosses: \"%1\" is not position@dim (e.g. 35@100)").arg(part);
            return false;
        }
        crosses->append({m.captured(1).toLongLong(), m.captured(2).toLongLong()});
    }
    return true;
}

ParameterPanel::ParameterPanel(ExplorerState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_scheme(new QComboBox(this)),
      m_positions(new StepEdit(this)), m_positionsSlider(new QSlider(Qt::Horizontal, this)),
      m_dims(new StepEdit(this)), m_dimsSlider(new QSlider(Qt::Horizontal, this)),
      m_base(new QLineEdit(this)), m_seed(new QLineEdit(this)), m_basePreset(new QComboBox(this)),
      m_ropeBox(nullptr), m_rope(new RopeEditor(QStringLiteral("rope"), this)),
      m_colormap(new QComboBox(this)),
      m_transpose(new QCheckBox(tr("&Transpose (dims on the y axis)"), this)),
      m_dimLimit(new StepEdit(this)), m_waveDims(new QLineEdit(this)),
      m_markers(new QLineEdit(this)), m_crosses(new QLineEdit(this)),
      m_tolerance(new QLineEdit(this)), m_selPosition(new StepEdit(this)),
      m_selDim(new StepEdit(this)), m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("parameterPanel"));
    m_scheme->setObjectName(QStringLiteral("scheme"));
    m_scheme->addItem(tr("Sinusoidal, interleaved"), QStringLiteral("interleaved"));
    m_scheme->addItem(tr("Sinusoidal, split [sin | cos]"), QStringLiteral("split"));
    m_scheme->addItem(tr("Learned (random)"), QStringLiteral("learned"));
    m_scheme->addItem(tr("RoPE (rotary)"), QStringLiteral("rope"));
    m_scheme->setToolTip(tr("Interleaved: even columns sin, odd cos (Vaswani, every seed).\n"
                            "Split: sin half then cos half (tensor2tensor).\n"
                            "Learned: Keras Embedding's default init, uniform in [-0.05, 0.05).\n"
                            "RoPE: the cos/sin table of rotary embeddings (Su et al.), with "
                            "Hugging Face's scaling rules."));
    m_basePreset->setObjectName(QStringLiteral("basePreset"));
    m_basePreset->addItem(tr("Base preset…"), 0.0);
    m_basePreset->addItem(tr("10,000 (Llama 2)"), 10000.0);
    m_basePreset->addItem(tr("500,000 (Llama 3)"), 500000.0);
    m_basePreset->addItem(tr("1,000,000 (Qwen 2.5)"), 1000000.0);
    m_basePreset->setToolTip(tr("Set the base (rope_theta) of a published model"));
    m_positions->setObjectName(QStringLiteral("positions"));
    m_positions->setMinimumValue(1);
    m_positions->setToolTip(
        tr("Number of positions (rows), 1 to %1. Up/Down step by 1.").arg(limits::maxPositions));
    m_positionsSlider->setObjectName(QStringLiteral("positionsSlider"));
    m_positionsSlider->setRange(1, positionsSliderMax);
    m_positionsSlider->setToolTip(tr("Drag to change the number of positions (1 to %1; type "
                                     "larger values in the field)")
                                      .arg(positionsSliderMax));
    m_dims->setObjectName(QStringLiteral("dims"));
    m_dims->setMinimumValue(1);
    m_dims->setToolTip(
        tr("Encoding dimension d (columns), 1 to %1. Up/Down step by 1.").arg(limits::maxDims));
    m_dimsSlider->setObjectName(QStringLiteral("dimsSlider"));
    m_dimsSlider->setRange(1, dimsSliderMax);
    m_dimsSlider->setToolTip(
        tr("Drag to change the dimension (1 to %1; type larger values in the field)")
            .arg(dimsSliderMax));
    m_base->setObjectName(QStringLiteral("base"));
    m_base->setToolTip(tr("Sinusoid or RoPE base (rope_theta): angle = p / base^(2i/d); greater "
                          "than 1, at most 1e12"));
    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setToolTip(tr("Seed of the learned scheme's random table"));
    m_colormap->setObjectName(QStringLiteral("colormap"));
    for (Colormap map : allColormaps())
        m_colormap->addItem(colormapName(map), colormapName(map));
    m_colormap->setToolTip(tr("Colormap, with matplotlib's tables: viridis (default), gray, "
                              "magma, RdBu (for signed data)"));
    m_transpose->setObjectName(QStringLiteral("transpose"));
    m_transpose->setToolTip(tr("Put dims on the y axis and positions on x, as Fig 16-9 (Ctrl+T)"));
    m_dimLimit->setObjectName(QStringLiteral("dimLimit"));
    m_dimLimit->setToolTip(tr("Show only the first N dims in the heatmap (Fig 16-9 shows 150); "
                              "0 shows all"));
    m_waveDims->setObjectName(QStringLiteral("waveDims"));
    m_waveDims->setToolTip(tr("Dims to plot against position, e.g. \"100, 101\" (at most 8)"));
    m_markers->setObjectName(QStringLiteral("markers"));
    m_markers->setToolTip(tr("Positions marked by dashed lines with dots on each curve, "
                             "e.g. \"22, 60\""));
    m_crosses->setObjectName(QStringLiteral("crosses"));
    m_crosses->setToolTip(tr("Crosses on a curve as position@dim, e.g. \"35@100\""));
    m_tolerance->setObjectName(QStringLiteral("tolerance"));
    m_tolerance->setToolTip(tr("Two positions share a value when they differ by at most this "
                               "much in every plotted dim"));
    m_selPosition->setObjectName(QStringLiteral("selectedPosition"));
    m_selPosition->setToolTip(tr("Selected position (click the heatmap or a wave to select)"));
    m_selDim->setObjectName(QStringLiteral("selectedDim"));
    m_selDim->setToolTip(tr("Selected dim (click the heatmap or a wave to select)"));
    m_message->setObjectName(QStringLiteral("panelMessage"));
    m_message->setWordWrap(true);
    markAsMessage(m_message);
    m_message->setToolTip(tr("Why the last edit was refused; the view keeps the last good value"));
    m_message->hide();

    auto *layout = new QVBoxLayout(this);
    auto *encoding = new QGroupBox(tr("Encoding"), this);
    auto *form = new QFormLayout(encoding);
    form->addRow(tr("&Scheme"), m_scheme);
    form->addRow(tr("&Positions"), m_positions);
    form->addRow(QString(), m_positionsSlider);
    form->addRow(tr("&Dims"), m_dims);
    form->addRow(QString(), m_dimsSlider);
    form->addRow(tr("&Base"), m_base);
    form->addRow(QString(), m_basePreset);
    form->addRow(tr("S&eed"), m_seed);
    layout->addWidget(encoding);

    auto *ropeBox = new QGroupBox(tr("RoPE"), this);
    ropeBox->setObjectName(QStringLiteral("ropeBox"));
    auto *ropeLayout = new QVBoxLayout(ropeBox);
    ropeLayout->addWidget(m_rope);
    m_ropeBox = ropeBox;
    layout->addWidget(ropeBox);

    auto *heatmap = new QGroupBox(tr("Heatmap"), this);
    auto *heatmapForm = new QFormLayout(heatmap);
    heatmapForm->addRow(tr("&Colormap"), m_colormap);
    heatmapForm->addRow(m_transpose);
    heatmapForm->addRow(tr("First N d&ims"), m_dimLimit);
    layout->addWidget(heatmap);

    auto *waves = new QGroupBox(tr("Waves"), this);
    auto *wavesForm = new QFormLayout(waves);
    wavesForm->addRow(tr("&Wave dims"), m_waveDims);
    wavesForm->addRow(tr("&Markers"), m_markers);
    wavesForm->addRow(tr("Cr&osses"), m_crosses);
    wavesForm->addRow(tr("Share to&lerance"), m_tolerance);
    layout->addWidget(waves);

    auto *selection = new QGroupBox(tr("Selection"), this);
    auto *selectionForm = new QFormLayout(selection);
    selectionForm->addRow(tr("Position p"), m_selPosition);
    selectionForm->addRow(tr("Dim i"), m_selDim);
    layout->addWidget(selection);
    layout->addWidget(m_message);
    layout->addStretch(1);

    connect(m_scheme, &QComboBox::activated, this, [this] { apply(Field::Scheme); });
    connect(m_positions, &StepEdit::edited, this, [this] { apply(Field::Positions); });
    connect(m_dims, &StepEdit::edited, this, [this] { apply(Field::Dims); });
    connect(m_positionsSlider, &QSlider::valueChanged, this, [this](int value) {
        m_positions->setText(QString::number(value));
        apply(Field::Positions);
    });
    connect(m_dimsSlider, &QSlider::valueChanged, this, [this](int value) {
        m_dims->setText(QString::number(value));
        apply(Field::Dims);
    });
    connect(m_base, &QLineEdit::textEdited, this, [this] { apply(Field::Base); });
    connect(m_seed, &QLineEdit::textEdited, this, [this] { apply(Field::Seed); });
    connect(m_basePreset, &QComboBox::activated, this, [this] { apply(Field::BasePreset); });
    connect(m_rope, &RopeEditor::edited, this, [this] { apply(Field::Rope); });
    connect(m_colormap, &QComboBox::activated, this, [this] {
        if (auto map = parseColormap(m_colormap->currentData().toString()))
            m_state->setColormap(*map);
    });
    connect(m_transpose, &QCheckBox::toggled, m_state, &ExplorerState::setTransposed);
    connect(m_dimLimit, &StepEdit::edited, this, [this] { apply(Field::DimLimit); });
    connect(m_waveDims, &QLineEdit::textEdited, this, [this] { apply(Field::WaveDims); });
    connect(m_markers, &QLineEdit::textEdited, this, [this] { apply(Field::Markers); });
    connect(m_crosses, &QLineEdit::textEdited, this, [this] { apply(Field::Crosses); });
    connect(m_tolerance, &QLineEdit::textEdited, this, [this] { apply(Field::Tolerance); });
    connect(m_selPosition, &StepEdit::edited, this, [this] { apply(Field::SelPosition); });
    connect(m_selDim, &StepEdit::edited, this, [this] { apply(Field::SelDim); });
    connect(m_state, &ExplorerState::changed, this, &ParameterPanel::refresh);
    refresh();
}

QString ParameterPanel::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
}

void ParameterPanel::applySpec(QWidget *field, const EncodingSpec &spec)
{
    const QString problem = inMemoryProblem(spec);
    QString error;
    if (!problem.isEmpty())
        setError(field, problem);
    else if (!m_state->setSpec(spec, &error))
        setError(field, error);
    else
        clearError(field);
}

void ParameterPanel::apply(Field field)
{
    EncodingSpec spec = m_state->spec();
    QString error;
    qint64 integer = 0;
    switch (field) {
    case Field::Scheme: {
        const QString id = m_scheme->currentData().toString();
        spec.scheme = id == QLatin1String("learned") ? Scheme::Learned
                      : id == QLatin1String("rope")  ? Scheme::Rope
                                                     : Scheme::Sinusoidal;
        if (spec.scheme == Scheme::Sinusoidal)
            spec.layout = id == QLatin1String("split") ? Layout::Split : Layout::Interleaved;
        applySpec(m_scheme, spec);
        return;
    }
    case Field::Positions:
        if (!parseIntegerField(m_positions->text(), tr("positions"), &integer, &error))
            return setError(m_positions, error);
        spec.positions = integer;
        return applySpec(m_positions, spec);
    case Field::Dims:
        if (!parseIntegerField(m_dims->text(), tr("dims"), &integer, &error))
            return setError(m_dims, error);
        spec.dims = integer;
        return applySpec(m_dims, spec);
    case Field::Base: {
        double base = 0;
        if (!parseNumberField(m_base->text(), tr("base"), &base, &error))
            return setError(m_base, error);
        spec.base = base;
        return applySpec(m_base, spec);
    }
    case Field::Seed: {
        bool ok = false;
        const quint64 seed = m_seed->text().trimmed().toULongLong(&ok);
        if (!ok)
            return setError(m_seed, tr("seed: \"%1\" is not a non-negative whole number")
                                        .arg(m_seed->text().trimmed()));
        spec.seed = seed;
        return applySpec(m_seed, spec);
    }
    case Field::BasePreset: {
        const double base = m_basePreset->currentData().toDouble();
        m_basePreset->setCurrentIndex(0);
        if (base <= 0)
            return;
        spec.base = base;
        m_base->setText(QString::number(base, 'g', 12));
        return applySpec(m_base, spec);
    }
    case Field::Rope: {
        QWidget *bad = nullptr;
        if (!m_rope->read(&spec.rope, &error, &bad))
            return setError(bad, error);
        for (QWidget *f : m_rope->fields())
            clearError(f);
        // Range problems (factor <= 0, ...) are the spec's; they mark the scaling box.
        return applySpec(m_rope->fields().at(1), spec);
    }
    case Field::DimLimit:
        if (!parseIntegerField(m_dimLimit->text(), tr("first N dims"), &integer, &error) ||
            !m_state->setHeatmapDimLimit(integer, &error))
            return setError(m_dimLimit, error);
        return clearError(m_dimLimit);
    case Field::WaveDims: {
        QList<qint64> dims;
        if (!parseIntegerListField(m_waveDims->text(), tr("wave dims"), &dims, &error) ||
            !m_state->setWaveDims(dims, &error))
            return setError(m_waveDims, error);
        return clearError(m_waveDims);
    }
    case Field::Markers: {
        QList<qint64> markers;
        if (!parseIntegerListField(m_markers->text(), tr("markers"), &markers, &error) ||
            !m_state->setMarkers(markers, &error))
            return setError(m_markers, error);
        return clearError(m_markers);
    }
    case Field::Crosses: {
        QList<CrossMarker> crosses;
        if (!parseCrossesField(m_crosses->text(), &crosses, &error) ||
            !m_state->setCrosses(crosses, &error))
            return setError(m_crosses, error);
        return clearError(m_crosses);
    }
    case Field::Tolerance: {
        double tolerance = 0;
        if (!parseNumberField(m_tolerance->text(), tr("share tolerance"), &tolerance, &error) ||
            !m_state->setShareTolerance(tolerance, &error))
            return setError(m_tolerance, error);
        return clearError(m_tolerance);
    }
    case Field::SelPosition:
    case Field::SelDim: {
        StepEdit *edit = field == Field::SelPosition ? m_selPosition : m_selDim;
        if (!parseIntegerField(edit->text(),
                               field == Field::SelPosition ? tr("selected position")
                                                           : tr("selected dim"),
                               &integer, &error))
            return setError(edit, error);
        const qint64 limit = field == Field::SelPosition ? spec.positions : spec.dims;
        if (integer < 0 || integer >= limit)
            return setError(edit, tr("the selected %1 must be between 0 and %2 (got %3)")
                                      .arg(field == Field::SelPosition ? tr("position") : tr("dim"))
                                      .arg(limit - 1)
                                      .arg(integer));
        Selection sel = m_state->selection();
        (field == Field::SelPosition ? sel.position : sel.dim) = integer;
        m_state->setSelection(sel);
        return clearError(edit);
    }
    }
}

void ParameterPanel::setError(QWidget *field, const QString &message)
{
    m_errors.insert(field, message);
    m_errorOrder.removeAll(field);
    m_errorOrder.append(field);
    markInvalid(field, true);
    updateMessage();
}

void ParameterPanel::clearError(QWidget *field)
{
    if (!m_errors.remove(field))
        return;
    m_errorOrder.removeAll(field);
    markInvalid(field, false);
    updateMessage();
}

void ParameterPanel::updateMessage()
{
    if (m_errorOrder.isEmpty()) {
        m_message->clear();
        m_message->hide();
        return;
    }
    // The newest refusal first: it is the one the user just typed.
    QStringList lines;
    for (auto it = m_errorOrder.crbegin(); it != m_errorOrder.crend(); ++it)
        lines.append(m_errors.value(*it));
    m_message->setText(tr("Refused: %1").arg(lines.join(QStringLiteral("\n"))));
    m_message->show();
}

void ParameterPanel::refresh()
{
    const EncodingSpec &spec = m_state->spec();
    // A field the user is correcting keeps its text; everything else mirrors the state.
    auto sync = [this](QLineEdit *edit, const QString &text) {
        if (!m_errors.contains(edit))
            setTextIfDifferent(edit, text);
    };
    {
        const QSignalBlocker block(m_scheme);
        m_scheme->setCurrentIndex(spec.scheme == Scheme::Rope      ? 3
                                  : spec.scheme == Scheme::Learned ? 2
                                  : spec.layout == Layout::Split   ? 1
                                                                   : 0);
    }
    // Fields whose text already means the state's value keep it ("1e4" is not rewritten).
    auto syncInteger = [&](QLineEdit *edit, qint64 value) {
        bool ok = false;
        if (edit->text().trimmed().toLongLong(&ok) != value || !ok)
            sync(edit, QString::number(value));
    };
    syncInteger(m_positions, spec.positions);
    syncInteger(m_dims, spec.dims);
    {
        const QSignalBlocker a(m_positionsSlider), b(m_dimsSlider);
        m_positionsSlider->setValue(int(qMin<qint64>(spec.positions, positionsSliderMax)));
        m_dimsSlider->setValue(int(qMin<qint64>(spec.dims, dimsSliderMax)));
    }
    bool ok = false;
    if (m_base->text().trimmed().toDouble(&ok) != spec.base || !ok)
        sync(m_base, QString::number(spec.base, 'g', 12));
    if (m_seed->text().trimmed().toULongLong(&ok) != spec.seed || !ok)
        sync(m_seed, QString::number(spec.seed));
    m_seed->setEnabled(spec.scheme == Scheme::Learned);
    m_base->setEnabled(spec.scheme != Scheme::Learned);
    m_basePreset->setEnabled(spec.scheme != Scheme::Learned);
    m_ropeBox->setVisible(spec.scheme == Scheme::Rope);
    {
        QList<QWidget *> keep;
        for (QWidget *f : m_rope->fields())
            if (m_errors.contains(f))
                keep.append(f);
        const QSignalBlocker block(m_rope);
        m_rope->setParameters(spec.rope, keep);
    }
    {
        const QSignalBlocker block(m_colormap);
        m_colormap->setCurrentIndex(int(allColormaps().indexOf(m_state->colormap())));
    }
    {
        const QSignalBlocker block(m_transpose);
        m_transpose->setChecked(m_state->transposed());
    }
    syncInteger(m_dimLimit, m_state->heatmapDimLimit());
    QList<qint64> parsed;
    QString ignored;
    // Lists are compared by value, so "100,101" being typed is not rewritten to "100, 101".
    if (!parseIntegerListField(m_waveDims->text(), QString(), &parsed, &ignored) ||
        parsed != m_state->waveDims())
        sync(m_waveDims, joinIntegers(m_state->waveDims()));
    if (!parseIntegerListField(m_markers->text(), QString(), &parsed, &ignored) ||
        parsed != m_state->markers())
        sync(m_markers, joinIntegers(m_state->markers()));
    QList<CrossMarker> crosses;
    if (!parseCrossesField(m_crosses->text(), &crosses, &ignored) || crosses != m_state->crosses())
        sync(m_crosses, joinCrosses(m_state->crosses()));
    double tolerance = 0;
    if (!parseNumberField(m_tolerance->text(), QString(), &tolerance, &ignored) ||
        tolerance != m_state->shareTolerance())
        sync(m_tolerance, QString::number(m_state->shareTolerance()));
    syncInteger(m_selPosition, m_state->selection().position);
    syncInteger(m_selDim, m_state->selection().dim);
}

} // namespace pe
