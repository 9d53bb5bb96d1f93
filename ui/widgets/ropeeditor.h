// RopeEditor: the controls of one RoPE configuration (pairing, scaling type and its parameters,
// partial rotary factor), shared by the encoding panel (A) and the compare panel (B). Parsing
// happens here; refusing and the message stay with the owner.
#pragma once

#include "encodingspec.h"

#include <QList>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLineEdit;

namespace pe {

class RopeEditor : public QWidget
{
    Q_OBJECT
public:
    // `prefix` names the fields in object names and messages ("rope", "compare").
    RopeEditor(const QString &prefix, QWidget *parent = nullptr);

    // Shows `rope`; fields listed in `keep` (being corrected) keep their text.
    void setParameters(const RopeParameters &rope, const QList<QWidget *> &keep = {});
    // Parses every field into *rope; false with *error and *bad naming the first bad field.
    bool read(RopeParameters *rope, QString *error, QWidget **bad) const;
    QList<QWidget *> fields() const;

signals:
    void edited();

private:
    void updateRows();

    QString m_prefix;
    QFormLayout *m_form;
    QComboBox *m_pairing;
    QComboBox *m_scaling;
    QLineEdit *m_factor;
    QLineEdit *m_original;
    QLineEdit *m_current;
    QLineEdit *m_lowFreq;
    QLineEdit *m_highFreq;
    QLineEdit *m_betaFast;
    QLineEdit *m_betaSlow;
    QLineEdit *m_partial;
};

} // namespace pe
