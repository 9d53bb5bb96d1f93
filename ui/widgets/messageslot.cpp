#include "widgets/messageslot.h"

#include "widgets/fieldmarks.h"

#include <QEvent>
#include <QFontMetrics>
#include <QTextLayout>

namespace pe {

QString elideToLines(const QString &text, const QFont &font, int width, int lines)
{
    QTextLayout layout(text, font);
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    layout.beginLayout();
    int shown = 0;
    bool more = false;
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(qMax(1, width));
        if (shown == lines) {
            more = true;
            break;
        }
        ++shown;
    }
    layout.endLayout();
    if (!more)
        return text;
    // The last line shown, shortened so that the ellipsis fits beside it.
    const QFontMetrics metrics(font);
    const int lastStart = lines > 1 ? layout.lineAt(lines - 1).textStart() : 0;
    const QString last = metrics.elidedText(text.mid(lastStart), Qt::ElideRight, qMax(1, width));
    return text.left(lastStart) + (last.endsWith(QChar(0x2026)) ? last : last + QChar(0x2026));
}

MessageSlot::MessageSlot(int lines, Height height, bool warning, QWidget *parent)
    : QLabel(parent), m_lines(qMax(1, lines)), m_height(height)
{
    setWordWrap(true);
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    setTextFormat(Qt::PlainText);
    if (warning)
        markAsMessage(this);
    setSizePolicy(QSizePolicy::Preferred,
                  height == Height::Fixed ? QSizePolicy::Fixed : QSizePolicy::Minimum);
}

int MessageSlot::reservedHeight() const
{
    const QMargins m = contentsMargins();
    return m_lines * fontMetrics().lineSpacing() + m.top() + m.bottom() + 2 * margin();
}

QSize MessageSlot::sizeHint() const
{
    const QSize hint = QLabel::sizeHint();
    return {hint.width(),
            m_height == Height::Fixed ? reservedHeight() : qMax(reservedHeight(), hint.height())};
}

QSize MessageSlot::minimumSizeHint() const
{
    // Narrow: the text wraps (or is elided) rather than widening the panel.
    return {fontMetrics().averageCharWidth() * 12, reservedHeight()};
}

bool MessageSlot::hasHeightForWidth() const
{
    return m_height == Height::Growing;
}

int MessageSlot::heightForWidth(int width) const
{
    if (m_height == Height::Fixed)
        return reservedHeight();
    return qMax(reservedHeight(), QLabel::heightForWidth(width));
}

void MessageSlot::setMessage(const QString &text)
{
    if (text == m_message)
        return;
    m_message = text;
    updateShownText();
}

void MessageSlot::updateShownText()
{
    if (m_height == Height::Growing) {
        QLabel::setText(m_message);
        return;
    }
    const QMargins m = contentsMargins();
    const QString shown =
        elideToLines(m_message, font(), width() - m.left() - m.right() - 2 * margin(), m_lines);
    QLabel::setText(shown);
    setToolTip(shown == m_message ? QString() : m_message);
}

void MessageSlot::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    if (m_height == Height::Fixed)
        updateShownText();
}

void MessageSlot::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        updateGeometry();
        updateShownText();
    }
}

} // namespace pe
