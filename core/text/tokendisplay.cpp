#include "tokendisplay.h"

namespace pe {

QString displayToken(const QString &token, SpaceMarks marks)
{
    QString shown = token;
    switch (marks) {
    case SpaceMarks::None:
        break;
    case SpaceMarks::ByteLevel:
        // bytes_to_unicode (GPT-2's encoder.py) maps byte b < 0x21 to U+0100 + b.
        shown.replace(QChar(0x0120), QChar(visibleSpace));
        shown.replace(QChar(0x010A), QChar(0x21B5)); // ↵
        shown.replace(QChar(0x0109), QChar(0x21E5)); // ⇥
        break;
    case SpaceMarks::Metaspace:
        shown.replace(QChar(0x2581), QChar(visibleSpace));
        break;
    }
    return shown;
}

} // namespace pe
