// MessageSlot: where a refusal or a status line appears, with its room reserved whether or not it
// holds text, so that nothing around it moves when a message comes or goes (controls that jump
// under the mouse cause mis-clicks). Growing: a message longer than the reserved lines makes the
// slot taller (what is below it moves, never what is above). Fixed: the slot keeps its height
// and a longer message ends in "…", the whole of it in the tooltip.
#pragma once

#include <QLabel>

namespace pe {

class MessageSlot : public QLabel
{
    Q_OBJECT
public:
    enum class Height { Growing, Fixed };
    // `warning`: drawn as a refusal (markAsMessage); otherwise as plain status text.
    MessageSlot(int lines, Height height, bool warning, QWidget *parent = nullptr);

    void setMessage(const QString &text);
    QString message() const { return m_message; }
    bool isEmpty() const { return m_message.isEmpty(); }
    // The height kept for `lines` lines of the label's font.
    int reservedHeight() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void updateShownText();

    int m_lines;
    Height m_height;
    QString m_message;
};

// `text` word-wrapped to `width` pixels in `font`, cut after `lines` lines with "…" when longer.
QString elideToLines(const QString &text, const QFont &font, int width, int lines);

} // namespace pe
