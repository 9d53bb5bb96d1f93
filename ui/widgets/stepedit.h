// StepEdit: a line edit for integers that also steps with Up/Down (1) and PageUp/PageDown (10),
// so keyboard users can nudge a parameter; parsing and refusal stay with the owner.
#pragma once

#include <QLineEdit>

namespace pe {

class StepEdit : public QLineEdit
{
    Q_OBJECT
public:
    explicit StepEdit(QWidget *parent = nullptr);
    void setMinimumValue(qint64 minimum) { m_minimum = minimum; }

signals:
    // The user changed the text, by typing or by stepping.
    void edited();

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    qint64 m_minimum = 0;
};

} // namespace pe
