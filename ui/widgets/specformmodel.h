// SpecFormModel: the encoding spec as a form — --scheme, positions, dims and then the chosen
// scheme's own fields, from their field tables. Switching schemes brings back the parameters
// last used for that scheme, and the dims last used by a scheme that has its own.
#pragma once

#include "widgets/fieldform.h"

#include "encodingspec.h"

#include <array>
#include <optional>

namespace pe {

class SpecFormModel : public FormModel
{
public:
    using Read = std::function<EncodingSpec()>;
    using Write = std::function<bool(const EncodingSpec &, QString *)>;
    SpecFormModel(Read read, Write write);

    QList<FormField> fields() const override;
    bool applies(const QString &key) const override;
    QString text(const QString &key) const override;
    QString setText(const QString &key, const QString &text) override;
    FieldProblem problem() const override;
    QString describe(const FieldProblem &problem) const override;
    bool commit(QString *error) override;
    void reload() override;
    QList<FormField> allFields() const override;

private:
    Read m_read;
    Write m_write;
    EncodingSpec m_draft;
    std::array<std::optional<SchemeParameters>, schemeCount> m_memory;
    std::optional<qint64> m_dims; // of the last scheme with dims of its own
};

} // namespace pe
