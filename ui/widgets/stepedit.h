// StepEdit: a line edit for integers that also steps with Up/Down (1) and PageUp/PageDown (10),
// so keyboard users can nudge a parameter; parsing, refusal and when to apply stay with the owner.
#pragma once

#include <QLineEdit>

#include <limits>

namespace pe {

class StepEdit : public QLineEdit
{
    Q_OBJECT
public:
    explicit StepEdit(QWidget *parent = nullptr);
    void setRange(qint64 minimum, qint64 maximum)
    {
        m_minimum = minimum;
        m_maximum = maximum;
    }

signals:
    // The user stepped the value with a key (a discrete, complete edit: apply it at once).
    void stepped();

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    qint64 m_minimum = 0;
    qint64 m_maximum = std::numeric_limits<qint64>::max();
};

} // namespace pe
