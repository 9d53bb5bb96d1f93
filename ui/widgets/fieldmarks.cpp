#include "widgets/fieldmarks.h"

#include <QApplication>
#include <QLabel>
#include <QWidget>

namespace pe {

void markInvalid(QWidget *field, bool invalid)
{
    if (!invalid) {
        field->setPalette(QPalette()); // back to the inherited (theme) palette
        return;
    }
    QPalette p = field->palette();
    const bool dark = p.color(QPalette::Base).lightness() < 128;
    p.setColor(QPalette::Base, dark ? QColor(0x5a, 0x22, 0x22) : QColor(0xfd, 0xe0, 0xe0));
    field->setPalette(p);
}

void markAsMessage(QLabel *label)
{
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    // The same red reads on both themes' window colours.
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, QColor(0xd9, 0x53, 0x4f));
    label->setPalette(p);
}

} // namespace pe
