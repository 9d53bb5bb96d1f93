// The fast PNG encoder (ui/media/pngencoder: ISA-L deflate in blocks of rows that form one zlib
// stream) checked by independent readers: zlib inflates the IDAT stream and checks its Adler-32,
// zlib's CRC-32 checks every chunk, and libpng (through QImage) decodes the pixels. Sizes around
// the 64-row blocks, one pixel, a flat image and pure noise (which deflate stores uncompressed).
#include "media/pngencoder.h"

#include <QRandomGenerator>
#include <QTest>
#include <QtEndian>

#include <zlib.h>

using namespace pe;

namespace {

enum class Content { Noise, Flat, Mixed };

QImage makeImage(int width, int height, Content content)
{
    QImage image(width, height, QImage::Format_RGB32);
    QRandomGenerator random(11);
    for (int y = 0; y < height; ++y) {
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
        for (int x = 0; x < width; ++x) {
            switch (content) {
            case Content::Noise:
                line[x] = qRgb(int(random.bounded(256)), int(random.bounded(256)),
                               int(random.bounded(256)));
                break;
            case Content::Flat:
                line[x] = qRgb(20, 200, 90);
                break;
            case Content::Mixed:
                line[x] = (x + y) % 5 == 0 ? qRgb(int(random.bounded(256)), x % 256, y % 256)
                                           : qRgb(x % 256, (x * y) % 256, 40);
                break;
            }
        }
    }
    return image;
}

struct Chunk
{
    QByteArray type;
    QByteArray data;
};

// Splits a PNG into chunks, failing the test on a bad signature, length or CRC.
QList<Chunk> readChunks(const QByteArray &png)
{
    QList<Chunk> chunks;
    if (!png.startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8))) {
        QTest::qFail("no PNG signature", __FILE__, __LINE__);
        return chunks;
    }
    qsizetype at = 8;
    while (at + 12 <= png.size()) {
        const quint32 length = qFromBigEndian<quint32>(png.constData() + at);
        if (at + 12 + qsizetype(length) > png.size()) {
            QTest::qFail("a chunk runs past the end of the file", __FILE__, __LINE__);
            return {};
        }
        const auto *typeAndData = reinterpret_cast<const Bytef *>(png.constData() + at + 4);
        const quint32 stored = qFromBigEndian<quint32>(png.constData() + at + 8 + length);
        if (crc32(0, typeAndData, uInt(length + 4)) != stored) {
            QTest::qFail("a chunk's CRC-32 is wrong", __FILE__, __LINE__);
            return {};
        }
        chunks.append({png.mid(at + 4, 4), png.mid(at + 8, length)});
        at += 12 + length;
    }
    if (at != png.size())
        QTest::qFail("bytes after the last chunk", __FILE__, __LINE__);
    return chunks;
}

} // namespace

class TestPngEncoder : public QObject
{
    Q_OBJECT

private slots:
    void decodesExactly_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("content");
        QTest::newRow("one pixel") << 1 << 1 << int(Content::Mixed);
        QTest::newRow("63 rows") << 7 << 63 << int(Content::Mixed);
        QTest::newRow("64 rows") << 7 << 64 << int(Content::Mixed);
        QTest::newRow("65 rows") << 7 << 65 << int(Content::Mixed);
        QTest::newRow("one column") << 1 << 300 << int(Content::Mixed);
        QTest::newRow("flat") << 640 << 480 << int(Content::Flat);
        QTest::newRow("noise") << 501 << 333 << int(Content::Noise);
        QTest::newRow("figure size") << 1500 << 900 << int(Content::Mixed);
    }

    void decodesExactly()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, content);
        QImage image = makeImage(width, height, Content(content));
        image.setDotsPerMeterX(11811); // 300 dpi
        image.setDotsPerMeterY(11811);
        QString error;
        const QByteArray png =
            encodePng(image, {{QStringLiteral("Title"), QStringLiteral("héllo")}}, &error);
        QVERIFY2(!png.isEmpty(), qPrintable(error));

        const QList<Chunk> chunks = readChunks(png);
        QVERIFY(!chunks.isEmpty());
        QCOMPARE(chunks.first().type, QByteArray("IHDR"));
        QCOMPARE(chunks.last().type, QByteArray("IEND"));
        QByteArray idat;
        for (const Chunk &chunk : chunks)
            if (chunk.type == "IDAT")
                idat += chunk.data;

        // zlib inflates the whole stream and checks its Adler-32 trailer (Z_DATA_ERROR if not).
        const qsizetype rowBytes = 3 * qsizetype(width) + 1;
        QByteArray raw(rowBytes * height + 1, Qt::Uninitialized);
        uLongf rawLength = uLongf(raw.size());
        QCOMPARE(uncompress(reinterpret_cast<Bytef *>(raw.data()), &rawLength,
                            reinterpret_cast<const Bytef *>(idat.constData()), uLong(idat.size())),
                 Z_OK);
        QCOMPARE(qsizetype(rawLength), rowBytes * height);
        for (int y = 0; y < height; ++y) // filter types none, sub or up only
            QVERIFY(quint8(raw[y * rowBytes]) <= 2);

        QImage decoded;
        QVERIFY(decoded.loadFromData(png, "PNG"));
        QCOMPARE(decoded.convertToFormat(QImage::Format_RGB32), image);
        QCOMPARE(decoded.dotsPerMeterX(), 11811);
        QCOMPARE(decoded.text(QStringLiteral("Title")), QStringLiteral("héllo"));
    }

    void deterministic()
    {
        const QImage image = makeImage(800, 200, Content::Mixed);
        QString error;
        QCOMPARE(encodePng(image, {}, &error), encodePng(image, {}, &error));
    }

    void nullImageIsAnError()
    {
        QString error;
        QVERIFY(encodePng(QImage(), {}, &error).isEmpty());
        QVERIFY(!error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestPngEncoder)
#include "tst_pngencoder.moc"
