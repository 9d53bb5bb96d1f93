// LimitedLineEdit: a line edit for text with a field table's maximum length (a phrase, a caption).
// QLineEdit cuts text at its maxLength without a word (32,767 characters by default, while the
// command line takes a 1 MiB phrase), and Qt 6.4 cuts a paste past it in time quadratic in the
// pasted length (QWidgetLineControl::internalInsert recomputes s.left() per character: 4 minutes
// for 1 MiB). So this edit holds one character more than the limit, enough for the owner to
// refuse the text with its message, and refuses a paste (keys, context menu, middle click, drop)
// that would pass the limit at once, saying so through textRefused().
#pragma once

#include <QLineEdit>

namespace pe {

class LimitedLineEdit : public QLineEdit
{
    Q_OBJECT
public:
    explicit LimitedLineEdit(QWidget *parent = nullptr);

    // The most characters the owner accepts; 0: QLineEdit's own limit.
    void setLimit(qint64 limit);
    qint64 limit() const { return m_limit; }

signals:
    // A paste of `length` characters was refused: the text would have held `resulting`.
    void pasteRefused(qint64 resulting);

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // True when inserting `text` in place of the selection stays within the limit; otherwise
    // emits pasteRefused.
    bool fits(const QString &text);
    void guardedPaste();

    qint64 m_limit = 0;
};

} // namespace pe
