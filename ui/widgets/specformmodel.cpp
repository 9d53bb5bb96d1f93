#include "widgets/specformmodel.h"

namespace pe {

namespace {

// Calls f(table, value) for the scheme table that has `key`, else returns fallback.
template <class F, class R>
R onSchemeField(const EncodingSpec &spec, const QString &key, R fallback, F &&f)
{
    return std::visit(
        [&](const auto &s) -> R {
            using S = std::decay_t<decltype(s)>;
            const Field<S> *field = findField(S::fields(), key);
            return field ? f(S::fields(), *field, s) : fallback;
        },
        spec.scheme);
}

} // namespace

SpecFormModel::SpecFormModel(Read read, Write write)
    : m_read(std::move(read)), m_write(std::move(write)), m_draft(m_read())
{}

QList<FormField> SpecFormModel::fields() const
{
    QList<FormField> rows = formFields(EncodingSpec::fields());
    // A scheme that reads a model file is chosen by File > Open model (which loads it off the
    // UI thread), not from the menu; a spec that already has one keeps it listed.
    for (FormField &row : rows)
        if (row.key == QLatin1String("scheme"))
            row.choices.removeIf([&](const ChoiceName &c) {
                return (schemesReadingFiles & (1u << c.value)) &&
                       std::size_t(c.value) != m_draft.scheme.index();
            });
    std::visit(
        [&](const auto &s) {
            using S = std::decay_t<decltype(s)>;
            rows += formFields(S::fields());
        },
        m_draft.scheme);
    return rows;
}

QList<FormField> SpecFormModel::allFields() const
{
    QList<FormField> rows = formFields(EncodingSpec::fields());
    [&]<std::size_t... I>(std::index_sequence<I...>)
    {
        (rows.append(formFields(std::variant_alternative_t<I, SchemeParameters>::fields())), ...);
    }
    (std::make_index_sequence<std::variant_size_v<SchemeParameters>>{});
    return rows;
}

bool SpecFormModel::applies(const QString &key) const
{
    if (const Field<EncodingSpec> *f = findField(EncodingSpec::fields(), key))
        return fieldApplies(EncodingSpec::fields(), *f, m_draft);
    return onSchemeField(m_draft, key, false, [](auto table, const auto &f, const auto &s) {
        return fieldApplies(table, f, s);
    });
}

QString SpecFormModel::text(const QString &key) const
{
    if (const Field<EncodingSpec> *f = findField(EncodingSpec::fields(), key))
        return fieldText(*f, m_draft);
    return onSchemeField(m_draft, key, QString(),
                         [](auto, const auto &f, const auto &s) { return fieldText(f, s); });
}

QString SpecFormModel::setText(const QString &key, const QString &text)
{
    if (const Field<EncodingSpec> *f = findField(EncodingSpec::fields(), key)) {
        const std::size_t before = m_draft.scheme.index();
        const SchemeParameters previous = m_draft.scheme;
        const bool usedDims = m_draft.info().usesDims;
        const qint64 previousDims = m_draft.dims;
        QString message = setFieldText(*f, m_draft, text);
        const std::size_t after = m_draft.scheme.index();
        if (after != before) { // a scheme switch: remember the old one, restore the new one's
            m_memory[before] = previous;
            if (m_memory[after])
                m_draft.scheme = *m_memory[after];
            // A scheme whose columns are positions (ALiBi, T5) sets dims to positions; the
            // dims of the last scheme that had its own come back with the next one that has.
            if (usedDims)
                m_dims = previousDims;
            else if (m_dims && m_draft.info().usesDims)
                m_draft.dims = *m_dims;
        }
        return message;
    }
    return std::visit(
        [&](auto &s) {
            using S = std::decay_t<decltype(s)>;
            const Field<S> *field = findField(S::fields(), key);
            return field ? fillNeededAfter(*field, s, setFieldText(*field, s, text)) : QString();
        },
        m_draft.scheme);
}

FieldProblem SpecFormModel::problem() const
{
    return m_draft.normalized().problem();
}

QString SpecFormModel::describe(const FieldProblem &problem) const
{
    return m_draft.describe(problem, FieldNaming::Label);
}

bool SpecFormModel::commit(QString *error)
{
    return m_write(m_draft.normalized(), error);
}

void SpecFormModel::reload()
{
    m_draft = m_read();
}

} // namespace pe
