// ParameterPanel: the encoding page's controls — the spec (scheme, positions, dims and the
// scheme's own fields) and the view options (heatmap, waves, markers, crosses, selection) — as
// forms derived from their field tables. Edits apply on commit and only when valid; a refused
// value is explained beside its field and the state (so the last good view) stays.
#pragma once

#include "state/explorerstate.h"

#include <QWidget>

namespace pe {

class FieldForm;

class ParameterPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ParameterPanel(ExplorerState *state, QWidget *parent = nullptr);

    // Every refusal message shown, one per line; empty when every field holds a good value.
    QString message() const;
    FieldForm *specForm() const { return m_spec; }
    FieldForm *viewForm() const { return m_view; }
    // What Hugging Face transformers logs as a warning for the RoPE parameters (they are
    // computed with all the same, as transformers does); empty when nothing.
    QString warning() const;

private:
    void updateWarning();

    ExplorerState *m_state;
    QString m_warning;
    FieldForm *m_spec;
    FieldForm *m_view;
};

} // namespace pe
