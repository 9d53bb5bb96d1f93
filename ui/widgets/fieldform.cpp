#include "widgets/fieldform.h"

#include "widgets/compactcombo.h"

#include "widgets/fieldmarks.h"
#include "widgets/limitedlineedit.h"
#include "widgets/messageslot.h"
#include "widgets/stepedit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

namespace pe {

namespace {

// "must be at most 2000 characters long (the paste would make it 2500; nothing was pasted)";
// `resulting` 0 when the length is not known.
QString tooLong(qint64 limit, qint64 resulting)
{
    QString text = QStringLiteral("must be at most %1 characters long").arg(limit);
    if (resulting > 0)
        text += QStringLiteral(" (the paste would make it %1; nothing was pasted)").arg(resulting);
    return text;
}

} // namespace

struct FieldForm::Row
{
    FormField field;
    QLabel *label = nullptr;
    QWidget *container = nullptr;
    QLineEdit *line = nullptr; // Line and Integer (a StepEdit)
    QCheckBox *check = nullptr;
    QComboBox *combo = nullptr;
    QSlider *slider = nullptr;
    QTimer *pause = nullptr;
    bool typing = false; // the line holds text typed since the last commit

    QWidget *editor() const
    {
        return line    ? static_cast<QWidget *>(line)
               : check ? static_cast<QWidget *>(check)
                       : static_cast<QWidget *>(combo);
    }
};

FieldForm::FieldForm(std::unique_ptr<FormModel> model, QWidget *parent)
    : QWidget(parent), m_model(std::move(model))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    // A grid, not a QFormLayout: Qt 6.4's QFormLayout writes past its row array in
    // heightForWidth once a row is hidden by setRowVisible and another holds word-wrapped text
    // (an error message), which corrupted the heap (tst_commit crashed in CI; valgrind showed
    // the writes). A grid row whose widgets are hidden takes no space and no spacing.
    m_layout = new QGridLayout;
    m_layout->setColumnStretch(1, 1);
    outer->addLayout(m_layout);
    // One slot for the form's message, below every row: a message beside its field made the rows
    // below it jump down under the mouse (issue 25). Two lines fit the usual message at the
    // panels' widths; a longer one grows the slot, which moves nothing of the form.
    m_messageSlot = new MessageSlot(2, MessageSlot::Height::Growing, true, this);
    m_messageSlot->setObjectName(QStringLiteral("formMessage"));
    outer->addWidget(m_messageSlot);
    build();
    refresh();
    updateLabelColumn();
}

void FieldForm::setMessageLines(int lines)
{
    delete m_messageSlot;
    m_messageSlot = new MessageSlot(lines, MessageSlot::Height::Growing, true, this);
    m_messageSlot->setObjectName(QStringLiteral("formMessage"));
    static_cast<QVBoxLayout *>(layout())->addWidget(m_messageSlot);
    m_messageKey.clear();
    m_problemShown = false;
    m_messageSlot->setMessage(m_note);
}

void FieldForm::setNote(const QString &text)
{
    m_note = text;
    if (!m_problemShown)
        m_messageSlot->setMessage(m_note);
}

// The label column is as wide as the widest label of any row the form may show (every scheme's),
// so that a choice bringing other rows moves no editor (issue 38 item 7).
void FieldForm::updateLabelColumn()
{
    int widest = 0;
    for (const FormField &f : m_model->allFields()) {
        if (f.editor == FormField::Editor::Check)
            continue; // a check box carries its own text, in the editor column
        const QString text = m_labels.value(f.key, f.label);
        widest =
            qMax(widest, fontMetrics().boundingRect(QRect(), Qt::TextShowMnemonic, text).width());
    }
    for (int c = 0; c < m_columns; ++c)
        m_layout->setColumnMinimumWidth(2 * c, widest);
}

void FieldForm::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        updateLabelColumn();
}

FieldForm::~FieldForm()
{
    qDeleteAll(m_rows);
}

void FieldForm::build()
{
    clearRows();
    for (const FormField &field : m_model->fields()) {
        auto *row = new Row;
        row->field = field;
        m_builtKeys.append(field.key);
        buildRow(row);
        m_rows.append(row);
    }
    placeRows();
}

void FieldForm::clearRows()
{
    // A choice's combo box may be the very sender whose signal led here (a new scheme brings
    // other fields): its row is unhooked now and deleted once that signal has returned.
    // Their names go at once too, so that a lookup by name finds the new rows' editors.
    for (Row *r : std::as_const(m_rows))
        for (QObject *o :
             std::initializer_list<QObject *>{r->line, r->check, r->combo, r->slider, r->pause})
            if (o) {
                o->disconnect(this);
                o->setObjectName(QString());
            }
    for (const Row *r : std::as_const(m_rows))
        for (QWidget *w : {static_cast<QWidget *>(r->label), r->container})
            if (w) {
                m_layout->removeWidget(w);
                w->hide();
                w->deleteLater();
            }
    qDeleteAll(m_rows);
    m_rows.clear();
    m_builtKeys.clear();
}

// Row `row`'s editor (and slider) in its container, and its label (placeRows puts them in the
// grid).
void FieldForm::buildRow(Row *row)
{
    const FormField &field = row->field;
    row->container = new QWidget(this);
    auto *box = new QVBoxLayout(row->container);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    const QString name =
        m_prefix.isEmpty() ? field.key : m_prefix + field.key.left(1).toUpper() + field.key.mid(1);
    createEditor(row);
    if (row->line)
        commitLineAfterPause(row);
    QWidget *editor = row->editor();
    editor->setObjectName(name);
    editor->setToolTip(field.toolTip);
    box->addWidget(editor);
    if (m_sliders.contains(field.key))
        box->addWidget(createSlider(row, name));
    makeLabel(row, editor);
}

// The editor of the row's field, committing what it is given.
void FieldForm::createEditor(Row *row)
{
    const FormField &field = row->field;
    switch (field.editor) {
    case FormField::Editor::Integer: {
        auto *edit = new StepEdit(row->container);
        edit->setRange(field.minimum, field.maximum);
        connect(edit, &StepEdit::stepped, this,
                [this, row] { commit(row->field.key, row->line->text()); });
        row->line = edit;
        break;
    }
    case FormField::Editor::Line: {
        // A text field holds what its table allows (the command line's limit), no less.
        auto *edit = new LimitedLineEdit(row->container);
        edit->setLimit(field.maxLength);
        connect(edit, &LimitedLineEdit::pasteRefused, this, [this, row](qint64 resulting) {
            showProblem(
                row->field.key,
                m_model->describe({row->field.key, tooLong(row->field.maxLength, resulting)}));
        });
        row->line = edit;
        break;
    }
    case FormField::Editor::Check:
        row->check = new QCheckBox(m_labels.value(field.key, field.label), row->container);
        connect(row->check, &QCheckBox::clicked, this, [this, row](bool on) {
            commit(row->field.key, on ? QStringLiteral("true") : QStringLiteral("false"));
        });
        break;
    case FormField::Editor::Choice:
        row->combo = new QComboBox(row->container);
        for (const ChoiceName &c : field.choices)
            row->combo->addItem(QString::fromUtf8(c.label), QString::fromUtf8(c.name));
        // A sensible width rather than its longest choice's, which made the panel take 440 of
        // 1024 px (issue 38); a choice cut in the box ("Half split (GPT-NeoX / Lla", item 8) is
        // whole in its tooltip and in the list it drops down.
        makeCompact(row->combo);
        connect(row->combo, &QComboBox::activated, this, [this, row](int index) {
            commit(row->field.key, row->combo->itemData(index).toString());
        });
        break;
    }
}

// A text field commits on Enter, on leaving it, or after a pause in typing.
void FieldForm::commitLineAfterPause(Row *row)
{
    row->pause = new QTimer(row->container);
    row->pause->setSingleShot(true);
    row->pause->setInterval(commitPauseMs);
    connect(row->line, &QLineEdit::textEdited, this, [row] {
        row->typing = true;
        row->pause->start();
    });
    const auto commitTyped = [this, row] {
        if (row->typing)
            commit(row->field.key, row->line->text());
    };
    connect(row->pause, &QTimer::timeout, this, commitTyped);
    connect(row->line, &QLineEdit::editingFinished, this, commitTyped);
}

QSlider *FieldForm::createSlider(Row *row, const QString &name)
{
    const FormField &field = row->field;
    row->slider = new QSlider(Qt::Horizontal, row->container);
    row->slider->setObjectName(name + QStringLiteral("Slider"));
    row->slider->setRange(1, m_sliders.value(field.key));
    row->slider->setToolTip(tr("Drag to change %1 (1 to %2; type larger values in the "
                               "field)")
                                .arg(field.label.toLower())
                                .arg(m_sliders.value(field.key)));
    connect(row->slider, &QSlider::valueChanged, this, [this, row](int value) {
        if (m_refreshing)
            return;
        row->line->setText(QString::number(value));
        commit(row->field.key, row->line->text());
    });
    return row->slider;
}

void FieldForm::makeLabel(Row *row, QWidget *editor)
{
    const FormField &field = row->field;
    if (!row->check) {
        // The label stays level with the editor when a slider below it makes the row
        // taller (updateRows gives it the editor's height).
        row->label = new QLabel(m_labels.value(field.key, field.label), this);
        row->label->setBuddy(editor);
        row->label->setToolTip(field.toolTip);
        row->label->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    }
}

// Every row in the grid: the shown ones in reading order over m_columns label-editor pairs,
// then the hidden ones (which take no room).
void FieldForm::placeRows()
{
    int at = 0;
    for (const bool shown : {true, false})
        for (const Row *r : std::as_const(m_rows)) {
            if (r->container->isHidden() == shown) // updateRows hides the rows not shown
                continue;
            const int gridRow = at / m_columns, pair = 2 * (at % m_columns);
            ++at;
            m_layout->removeWidget(r->container);
            if (!r->label) {
                m_layout->addWidget(r->container, gridRow, pair, 1, 2);
                continue;
            }
            m_layout->removeWidget(r->label);
            m_layout->addWidget(r->label, gridRow, pair, Qt::AlignLeft | Qt::AlignTop);
            m_layout->addWidget(r->container, gridRow, pair + 1);
        }
}

void FieldForm::setColumns(int columns)
{
    m_columns = qMax(1, columns);
    for (int c = 0; c < m_columns; ++c)
        m_layout->setColumnStretch(2 * c + 1, 1);
    updateLabelColumn();
    placeRows();
}

void FieldForm::addSlider(const QString &key, int maximum)
{
    m_sliders.insert(key, maximum);
    build();
    refresh();
}

void FieldForm::setNamePrefix(const QString &prefix)
{
    m_prefix = prefix;
    build();
    refresh();
}

void FieldForm::setLabel(const QString &key, const QString &text)
{
    m_labels.insert(key, text);
    updateLabelColumn();
    if (Row *r = row(key)) {
        if (r->label)
            r->label->setText(text);
        if (r->check)
            r->check->setText(text);
    }
}

FieldForm::Row *FieldForm::row(const QString &key) const
{
    for (Row *r : m_rows)
        if (r->field.key == key)
            return r;
    return nullptr;
}

QWidget *FieldForm::editor(const QString &key) const
{
    const Row *r = row(key);
    return r ? r->editor() : nullptr;
}

QString FieldForm::message(const QString &key) const
{
    if (!m_problemShown)
        return {};
    if (key.isEmpty())
        return m_messageKey.isEmpty() ? m_messageSlot->message() : QString();
    return m_messageKey == key ? m_messageSlot->message() : QString();
}

QStringList FieldForm::messages() const
{
    QStringList all;
    if (m_problemShown && !m_messageSlot->isEmpty())
        all.append(m_messageSlot->message());
    return all;
}

void FieldForm::commit(const QString &rowKey, const QString &text)
{
    // A copy: the key is usually a row's own, and applying the edit may rebuild (delete) rows.
    const QString key = rowKey;
    if (m_refreshing)
        return;
    Row *r = row(key);
    if (r) {
        r->typing = false;
        if (r->pause)
            r->pause->stop();
    }
    // A refused value must not ride along with a later commit of another field, so the draft
    // takes this field's last good value back. A choice stays: it shows the fields it needs.
    // Text at the line's length limit may have been cut there: its true length is unknown.
    if (r && r->field.maxLength > 0 && text.size() > r->field.maxLength) {
        showProblem(key, m_model->describe({key, tooLong(r->field.maxLength, 0)}));
        return;
    }
    const QString previous = m_model->text(key);
    const bool keep = r && r->combo;
    const auto undo = [&] {
        if (!keep)
            m_model->setText(key, previous);
    };
    if (const QString message = m_model->setText(key, text); !message.isEmpty()) {
        showProblem(key, m_model->describe({key, message}));
        return;
    }
    if (const FieldProblem problem = m_model->problem()) {
        // A rule of the whole form (a memory budget) is explained beside the field that broke
        // it; a problem of another field (one a choice requires) leaves this value pending.
        // A choice's problem may come without a key ("factor is required by rope_type linear"
        // from a whole-configuration check): it goes beside the field it names first.
        QString at = problem.key;
        if (at.isEmpty() && keep)
            for (const Row *other : std::as_const(m_rows))
                if (problem.message.startsWith(other->field.key + QLatin1Char(' ')))
                    at = other->field.key;
        const bool own = at == key || !row(at);
        if (own)
            undo();
        showProblem(own ? key : at, m_model->describe(problem));
        updateRows(); // a choice may have shown the field that needs a value
        return;
    }
    QString error;
    if (!m_model->commit(&error)) {
        undo();
        showProblem(key, error);
        return;
    }
    clearProblems();
    // Applied: what the field holds is the window's now (Ctrl+Z undoes it there). The rows may
    // have been rebuilt by the change (a choice shows other fields): look the row up again.
    if (Row *applied = row(key); applied && applied->line)
        applied->line->setModified(false);
    emit committed();
    refresh();
}

void FieldForm::showProblem(const QString &key, const QString &message)
{
    clearProblems();
    const Row *r = row(key);
    m_messageKey = r ? key : QString();
    // Named after the field it explains ("dimsMessage"), as the row's own label was.
    m_messageSlot->setObjectName(r ? r->editor()->objectName() + QStringLiteral("Message")
                                   : QStringLiteral("formMessage"));
    m_messageSlot->setMessage(message);
    m_problemShown = !message.isEmpty();
    if (message.isEmpty())
        m_messageSlot->setMessage(m_note);
    if (r)
        markInvalid(r->editor(), true);
}

void FieldForm::clearProblems()
{
    for (Row *r : m_rows)
        markInvalid(r->editor(), false);
    m_messageKey.clear();
    m_messageSlot->setObjectName(QStringLiteral("formMessage"));
    m_problemShown = false;
    m_messageSlot->setMessage(m_note); // the owner's note, where no refusal is shown
}

void FieldForm::refresh()
{
    m_refreshing = true;
    m_model->reload();
    QStringList keys;
    for (const FormField &f : m_model->fields())
        keys.append(f.key);
    if (keys != m_builtKeys)
        build();
    bool anyBusy = false;
    for (const Row *r : m_rows)
        anyBusy = anyBusy || (r->typing && r->line && r->line->hasFocus());
    // A message explains the text beside it; once the owner's value replaces that text, it goes.
    if (!anyBusy)
        clearProblems();
    for (Row *r : m_rows) {
        // Text typed and not yet applied stays: the user is not done with it.
        const bool busy = r->typing && r->line && r->line->hasFocus();
        if (!busy)
            r->typing = false;
        const QString text = m_model->text(r->field.key);
        if (r->line && !busy && r->line->text() != text)
            r->line->setText(text);
        if (r->check) {
            const QSignalBlocker block(r->check);
            r->check->setChecked(text == QLatin1String("true"));
        }
        if (r->combo) {
            const QSignalBlocker block(r->combo);
            r->combo->setCurrentIndex(r->combo->findData(text));
        }
        if (r->slider && !r->slider->isSliderDown()) {
            const QSignalBlocker block(r->slider);
            r->slider->setValue(
                int(qBound<qint64>(1, text.toLongLong(), qint64(r->slider->maximum()))));
        }
    }
    updateRows();
    m_refreshing = false;
}

void FieldForm::setShownKeys(const QStringList &keys)
{
    m_shownKeys = keys;
    updateRows();
}

void FieldForm::updateRows()
{
    for (const Row *r : std::as_const(m_rows)) {
        const QString &key = r->field.key;
        const bool shown =
            m_model->applies(key) && (m_shownKeys.isEmpty() || m_shownKeys.contains(key));
        r->container->setVisible(shown);
        if (!shown && key == m_messageKey)
            clearProblems(); // about a field no longer shown
        if (r->label) {
            r->label->setVisible(shown);
            r->label->setMinimumHeight(r->editor()->sizeHint().height());
        }
    }
    if (m_columns > 1)
        placeRows(); // rows shown or hidden move the ones after them
}

} // namespace pe
