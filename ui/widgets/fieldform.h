// FieldForm: a form whose rows come from field tables (core/fields). Each row's editor follows
// the field's kind (a stepping line edit for whole numbers, a check box, a combo box, a line
// edit), its tooltip is the field's help and domain, and rows of fields that do not apply are
// hidden. Edits are applied on commit — Enter, leaving the field, a pause once typing stops, a
// step key, a click — and only when the whole value is valid; a refused value is explained once,
// in the form's message slot below its rows (its room reserved, so no field moves when a message
// appears) with the field tinted, and the state keeps its last good value.
#pragma once

#include "fields/field.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QGridLayout;
class QLabel;
class QSlider;
class QTimer;

namespace pe {

class MessageSlot;

// One row of a form, without its struct's type.
struct FormField
{
    enum class Editor { Line, Integer, Check, Choice };
    QString key;
    QString label;
    QString toolTip; // help, domain and default
    QString unit;
    Editor editor = Editor::Line;
    QList<ChoiceName> choices;
    qint64 minimum = 0; // Integer: the step keys stay within [minimum, maximum]
    qint64 maximum = 0;
    qint64 maxLength = 0; // Line over a text field: its table's limit; 0 for none
};

// A draft of one parameter struct behind a form: rows come from its field table(s); edits
// change the draft; commit() hands a valid draft to its owner (the state).
class FormModel
{
public:
    virtual ~FormModel() = default;
    // The rows, in order (may change when a choice changes which table applies).
    virtual QList<FormField> fields() const = 0;
    virtual bool applies(const QString &key) const = 0;
    virtual QString text(const QString &key) const = 0;
    // Parses `text` into the draft; empty, or a fragment ("must be ...").
    virtual QString setText(const QString &key, const QString &text) = 0;
    // The draft's first problem, ranges and rules (and anything the owner adds).
    virtual FieldProblem problem() const = 0;
    // The problem as a sentence naming the field by its label.
    virtual QString describe(const FieldProblem &problem) const = 0;
    // Hands the (valid) draft to the owner; false with *error when the owner refuses it.
    virtual bool commit(QString *error) = 0;
    // Takes the owner's current value as the draft.
    virtual void reload() = 0;
    // Every row this form may ever show, whichever choice is made (the label column is as wide
    // as the widest of them, so that the editors stay put when a choice brings other rows).
    virtual QList<FormField> allFields() const { return fields(); }
};

// Helpers to describe a table's fields as form rows.
template <class P> QList<FormField> formFields(FieldTable<P> table)
{
    QList<FormField> rows;
    const P defaults{};
    for (const Field<P> &f : table) {
        FormField row;
        row.key = QString::fromUtf8(f.key);
        row.label = QString::fromUtf8(f.label);
        row.unit = QString::fromUtf8(f.unit);
        QString tip = QString::fromUtf8(f.help);
        const QString domain = fieldDomain(f);
        if (!std::holds_alternative<BoolKind<P>>(f.kind))
            tip +=
                QStringLiteral("\n") + domain.left(1).toUpper() + domain.mid(1) + QLatin1Char('.');
        const QString def = fieldText(f, defaults);
        if (!def.isEmpty())
            tip += QStringLiteral(" Default %1.").arg(def);
        row.toolTip = tip;
        std::visit(Overloaded{
                       [&](const IntegerKind<P> &k) {
                           row.editor = FormField::Editor::Integer;
                           row.minimum = k.range.min;
                           row.maximum = k.range.max;
                       },
                       [&](const BoolKind<P> &) { row.editor = FormField::Editor::Check; },
                       [&](const ChoiceKind<P> &k) {
                           row.editor = FormField::Editor::Choice;
                           row.choices = QList<ChoiceName>(k.names.begin(), k.names.end());
                       },
                       [&](const TextKind<P> &k) {
                           row.editor = FormField::Editor::Line;
                           row.maxLength = k.maxLength;
                       },
                       [&](const auto &) { row.editor = FormField::Editor::Line; },
                   },
                   f.kind);
        rows.append(row);
    }
    return rows;
}

// After `field` took a new value in `draft`: a choice's change brings what the new choice needs
// (P::fillNeeded, where P has one: RoPE's rope_type fills the fields of that type), so that the
// choice and its needs are one valid edit of the form, one step of the undo history.
template <class P> QString fillNeededAfter(const Field<P> &field, P &draft, QString message)
{
    if constexpr (requires { draft.fillNeeded(); })
        if (message.isEmpty() && std::holds_alternative<ChoiceKind<P>>(field.kind))
            draft.fillNeeded();
    return message;
}

// A FormModel over one struct with one table. `read` gives the owner's value, `rules` adds the
// owner's checks (may be null), `write` commits (false with *error to refuse); `keys` limits the
// rows to those fields (empty: every field).
template <class P> class TableFormModel : public FormModel
{
public:
    using Read = std::function<P()>;
    using Rules = std::function<FieldProblem(const P &)>;
    using Write = std::function<bool(const P &, QString *)>;

    TableFormModel(FieldTable<P> table, Read read, Rules rules, Write write, QStringList keys = {})
        : m_table(table), m_read(std::move(read)), m_rules(std::move(rules)),
          m_write(std::move(write)), m_keys(std::move(keys)), m_draft(m_read())
    {}

    QList<FormField> fields() const override
    {
        QList<FormField> rows = formFields(m_table);
        if (!m_keys.isEmpty())
            rows.removeIf([&](const FormField &f) { return !m_keys.contains(f.key); });
        return rows;
    }
    bool applies(const QString &key) const override
    {
        const Field<P> *f = findField(m_table, key);
        return f && fieldApplies(m_table, *f, m_draft);
    }
    QString text(const QString &key) const override
    {
        const Field<P> *f = findField(m_table, key);
        return f ? fieldText(*f, m_draft) : QString();
    }
    QString setText(const QString &key, const QString &text) override
    {
        const Field<P> *f = findField(m_table, key);
        return f ? fillNeededAfter(*f, m_draft, setFieldText(*f, m_draft, text)) : QString();
    }
    FieldProblem problem() const override
    {
        if (FieldProblem p = rangeProblem(m_table, m_draft))
            return p;
        return m_rules ? m_rules(m_draft) : FieldProblem{};
    }
    QString describe(const FieldProblem &problem) const override
    {
        return pe::describe(m_table, problem, FieldNaming::Label);
    }
    bool commit(QString *error) override { return m_write(m_draft, error); }
    void reload() override { m_draft = m_read(); }

private:
    FieldTable<P> m_table;
    Read m_read;
    Rules m_rules;
    Write m_write;
    QStringList m_keys;
    P m_draft;
};

class FieldForm : public QWidget
{
    Q_OBJECT
public:
    explicit FieldForm(std::unique_ptr<FormModel> model, QWidget *parent = nullptr);
    ~FieldForm() override;

    // A slider under the field's editor over [1, maximum] that applies while it is dragged.
    void addSlider(const QString &key, int maximum);
    // Editors are named after their keys; a prefix ("phrase" -> "phraseDims") keeps two forms
    // with the same keys in one window apart (tests and accessibility find them by name).
    void setNamePrefix(const QString &prefix);
    // A label of the window's own wording for a field, with a mnemonic ("Max &tokens").
    void setLabel(const QString &key, const QString &text);
    // Shows only these fields' rows (still only where they apply); empty: every field. A page
    // whose views read different fields shows the current view's (the Schemes page).
    void setShownKeys(const QStringList &keys);
    // Room kept for the form's message, in lines (2 unless told): a longer message grows it.
    void setMessageLines(int lines);
    // The rows shown, laid in reading order over this many label-editor pairs side by side (1
    // unless told): a long form is shorter. Rows not shown leave no gap.
    void setColumns(int columns);
    // A note of the owner's shown in the message slot while no refusal is (transformers'
    // warnings under the RoPE form); no message() or messages(), which are refusals.
    void setNote(const QString &text);
    // The editor of a field (tests and shortcuts); null when the form has no such row.
    QWidget *editor(const QString &key) const;
    // The message shown about a field, or (no key) about the whole form; empty when none.
    QString message(const QString &key = QString()) const;
    // Every message shown, for a status summary.
    QStringList messages() const;

    // How long typing must pause before a value is applied.
    static constexpr int commitPauseMs = 700;

public slots:
    // Takes the owner's value again; an editor the user is typing in keeps its text.
    void refresh();

signals:
    // After a value reached the owner.
    void committed();

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Row;
    void build();
    // build's steps: the old rows go, then each field's row is built.
    void clearRows();
    void buildRow(Row *row);
    void createEditor(Row *row);
    void commitLineAfterPause(Row *row);
    QSlider *createSlider(Row *row, const QString &name);
    void makeLabel(Row *row, QWidget *editor);
    void placeRows();
    void commit(const QString &rowKey, const QString &text);
    void showProblem(const QString &key, const QString &message);
    void clearProblems();
    void updateRows();
    void updateLabelColumn();
    Row *row(const QString &key) const;

    std::unique_ptr<FormModel> m_model;
    QGridLayout *m_layout = nullptr;
    MessageSlot *m_messageSlot = nullptr;
    QString m_messageKey;        // the field the slot's message is about; empty: the whole form
    QString m_note;              // setNote()'s text, shown while no refusal is
    int m_columns = 1;           // label-editor pairs side by side (setColumns)
    bool m_problemShown = false; // the slot holds a refusal (not the note)
    QList<Row *> m_rows;
    QStringList m_shownKeys;
    QHash<QString, int> m_sliders; // key -> maximum, kept across rebuilds
    QString m_prefix;
    QHash<QString, QString> m_labels; // key -> label text, kept across rebuilds
    QStringList m_builtKeys;
    bool m_refreshing = false;
};

} // namespace pe
