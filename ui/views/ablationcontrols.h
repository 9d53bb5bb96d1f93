// AblationControls: the layer-attention view's ablation of its enlarged head (issue 48 item 3)
// as a form over the ExplorerState's LayerAblation: the kind (none, positions removed, shift by
// k, scale by s, another rope_theta, another scaling rule) and its value; a rule is its own
// small form (rope_type linear, dynamic, yarn or llama3, factor, the original context and the
// type's extra fields), not typed JSON. Every edit goes through the state (undo, sessions,
// lesson steps); a refused value is explained beside its field and reaches no pass.
#pragma once

#include <QWidget>

namespace pe {

class ExplorerState;
class FieldForm;

class AblationControls : public QWidget
{
    Q_OBJECT
public:
    explicit AblationControls(ExplorerState *state, QWidget *parent = nullptr);

    // The form, and its editors by key ("kind", "shift", "rope_type", "factor", ...; named
    // "ablation" + Key, e.g. "ablationKind"); null for a key without a row.
    FieldForm *form() const { return m_form; }
    QWidget *editor(const QString &key) const;
    // The refusal shown (about `key`, or any when empty); empty when none.
    QString message(const QString &key = QString()) const;

private:
    FieldForm *m_form;
};

} // namespace pe
