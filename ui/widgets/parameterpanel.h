// ParameterPanel: the encoding page's controls (scheme, size, base, seed, heatmap and wave
// options, selection). Edits apply live to ExplorerState; an invalid value is refused with a
// visible message naming the problem, and the state (so the last good view) stays.
#pragma once

#include "state/explorerstate.h"

#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;

namespace pe {

class RopeEditor;
class StepEdit;

class ParameterPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ParameterPanel(ExplorerState *state, QWidget *parent = nullptr);

    // The visible refusal message; empty when every field holds a good value.
    QString message() const;

private:
    enum class Field {
        Scheme,
        Positions,
        Dims,
        Base,
        Seed,
        DimLimit,
        WaveDims,
        Markers,
        Crosses,
        Tolerance,
        SelPosition,
        SelDim,
        BasePreset,
        Rope
    };
    void apply(Field field);
    void applySpec(QWidget *field, const EncodingSpec &spec);
    void refresh();
    void setError(QWidget *field, const QString &message);
    void clearError(QWidget *field);
    void updateMessage();

    ExplorerState *m_state;
    QComboBox *m_scheme;
    StepEdit *m_positions;
    QSlider *m_positionsSlider;
    StepEdit *m_dims;
    QSlider *m_dimsSlider;
    QLineEdit *m_base;
    QLineEdit *m_seed;
    QComboBox *m_basePreset;
    QWidget *m_ropeBox;
    RopeEditor *m_rope;
    QComboBox *m_colormap;
    QCheckBox *m_transpose;
    StepEdit *m_dimLimit;
    QLineEdit *m_waveDims;
    QLineEdit *m_markers;
    QLineEdit *m_crosses;
    QLineEdit *m_tolerance;
    StepEdit *m_selPosition;
    StepEdit *m_selDim;
    QLabel *m_message;
    QHash<QWidget *, QString> m_errors;
    QList<QWidget *> m_errorOrder;
};

// Parsing shared by the panels: each returns false with *error naming the field and the text.
bool parseIntegerField(const QString &text, const QString &field, qint64 *value, QString *error);
bool parseNumberField(const QString &text, const QString &field, double *value, QString *error);
bool parseIntegerListField(const QString &text, const QString &field, QList<qint64> *values,
                           QString *error);
bool parseCrossesField(const QString &text, QList<CrossMarker> *crosses, QString *error);

} // namespace pe
