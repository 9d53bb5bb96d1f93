// PngEncoder: writes an opaque QImage as an 8-bit RGB PNG quickly: per-row adaptive filters
// (none, sub, up) and ISA-L deflate level 1, in parallel blocks that form one zlib stream.
// Figures are dominated by PNG compression otherwise (Qt's default writer takes 5x longer).
#pragma once

#include <QByteArray>
#include <QImage>
#include <QList>
#include <QPair>
#include <QString>

namespace pe {

struct PngText
{
    QString keyword; // Latin-1, 1 to 79 characters ("Title", "Software")
    QString text;    // stored as UTF-8 (iTXt)
};

// The image's dots per meter go into pHYs. Empty with *error when the image is null.
QByteArray encodePng(const QImage &source, const QList<PngText> &texts, QString *error);

} // namespace pe
