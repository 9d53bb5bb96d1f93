#include "figures/pngencoder.h"

#include "kernels/cpukernels.h"
#include "parallel.h"

#include <QBuffer>
#include <QImageWriter>

#ifdef PE_HAVE_ZLIB
#include <zlib.h>
#endif

#include <cstdint>
#include <vector>

namespace pe {

#ifdef PE_HAVE_ZLIB
namespace {

void put32(QByteArray &out, quint32 v)
{
    const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    out.append(bytes, 4);
}

void chunk(QByteArray &out, const char type[4], const QByteArray &data)
{
    put32(out, quint32(data.size()));
    const qsizetype start = out.size();
    out.append(type, 4);
    out.append(data);
    const auto *crcStart = reinterpret_cast<const Bytef *>(out.constData() + start);
    put32(out, quint32(crc32(crc32(0, nullptr, 0), crcStart, uInt(out.size() - start))));
}

// Filtered scanlines of rows [y0, y1): a filter byte, then RGB bytes (kernels::pngFilterRow).
void filterRows(const QImage &image, int y0, int y1, unsigned char *out)
{
    const int width = image.width();
    const std::size_t n = std::size_t(3 * width);
    std::vector<std::uint8_t> previous(n, 0), current(n), scratch(n + 1);
    const kernels::CpuKernels &k = kernels::cpuKernels();
    const auto pixels = [&](int y) {
        return reinterpret_cast<const std::uint32_t *>(image.constScanLine(y));
    };
    if (y0 > 0) { // the row above the block, unpacked; its filtered line is not needed
        k.pngFilterRow(pixels(y0 - 1), width, previous.data(), current.data(), scratch.data());
        std::swap(previous, current);
    }
    for (int y = y0; y < y1; ++y) {
        k.pngFilterRow(pixels(y), width, previous.data(), current.data(),
                       out + std::size_t(y - y0) * (n + 1));
        std::swap(previous, current);
    }
}

} // namespace

QByteArray encodePng(const QImage &source, const QList<PngText> &texts, QString *error)
{
    if (source.isNull()) {
        *error = QStringLiteral("no image to encode");
        return {};
    }
    const QImage image = source.format() == QImage::Format_RGB32
                             ? source
                             : source.convertToFormat(QImage::Format_RGB32);
    const int width = image.width();
    const int height = image.height();
    const std::size_t rowBytes = std::size_t(3 * width + 1);

    // Blocks of rows are filtered and deflated independently (each starts a fresh dictionary);
    // a sync flush ends every block but the last on a byte boundary, so their concatenation is
    // one deflate stream, and the Adler-32 checksums combine.
    const int blocks = qBound(1, height / 64, qMax(1, hardwareThreads()) * 2);
    struct Block
    {
        std::vector<unsigned char> data;
        uLong adler = 0;
        uLong length = 0;
        bool ok = false;
    };
    std::vector<Block> results(static_cast<std::size_t>(blocks));
    parallelFor(0, blocks, hardwareThreads(), 1, [&](qint64 begin, qint64 end) {
        std::vector<unsigned char> raw;
        for (qint64 b = begin; b < end; ++b) {
            const int y0 = int(qint64(height) * b / blocks);
            const int y1 = int(qint64(height) * (b + 1) / blocks);
            raw.resize(std::size_t(y1 - y0) * rowBytes);
            filterRows(image, y0, y1, raw.data());
            Block &block = results[std::size_t(b)];
            block.length = uLong(raw.size());
            block.adler = adler32(adler32(0, nullptr, 0), raw.data(), uInt(raw.size()));
            z_stream z{};
            if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                continue;
            block.data.resize(deflateBound(&z, uLong(raw.size())) + 64);
            z.next_in = raw.data();
            z.avail_in = uInt(raw.size());
            z.next_out = block.data.data();
            z.avail_out = uInt(block.data.size());
            const int status = deflate(&z, b == blocks - 1 ? Z_FINISH : Z_SYNC_FLUSH);
            block.ok =
                (b == blocks - 1 ? status == Z_STREAM_END : status == Z_OK) && z.avail_in == 0;
            block.data.resize(z.total_out);
            deflateEnd(&z);
        }
    });

    QByteArray idat;
    idat.append(char(0x78)).append(char(0x01)); // zlib header: deflate, 32 KiB window, fastest
    uLong adler = adler32(0, nullptr, 0);
    for (const Block &block : results) {
        if (!block.ok) {
            *error = QStringLiteral("PNG compression failed");
            return {};
        }
        idat.append(reinterpret_cast<const char *>(block.data.data()),
                    qsizetype(block.data.size()));
        adler = adler32_combine(adler, block.adler, z_off_t(block.length));
    }
    put32(idat, quint32(adler));

    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    QByteArray header;
    put32(header, quint32(width));
    put32(header, quint32(height));
    header.append(char(8)).append(char(2)).append(char(0)).append(char(0)).append(char(0));
    chunk(png, "IHDR", header);
    if (image.dotsPerMeterX() > 0 && image.dotsPerMeterY() > 0) {
        QByteArray phys;
        put32(phys, quint32(image.dotsPerMeterX()));
        put32(phys, quint32(image.dotsPerMeterY()));
        phys.append(char(1)); // unit: metre
        chunk(png, "pHYs", phys);
    }
    for (const PngText &text : texts) {
        // iTXt: keyword, no compression, no language tag, no translated keyword, UTF-8 text.
        QByteArray data = text.keyword.toLatin1().left(79);
        data.append('\0').append('\0').append('\0').append('\0').append('\0');
        data.append(text.text.toUtf8());
        chunk(png, "iTXt", data);
    }
    chunk(png, "IDAT", idat);
    chunk(png, "IEND", QByteArray());
    return png;
}

#else

// Without zlib's headers: Qt's writer at its fastest useful compression (same pixels, slower).
QByteArray encodePng(const QImage &image, const QList<PngText> &texts, QString *error)
{
    if (image.isNull()) {
        *error = QStringLiteral("no image to encode");
        return {};
    }
    QImage copy = image;
    for (const PngText &text : texts)
        copy.setText(text.keyword, text.text);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    writer.setQuality(80);
    if (!writer.write(copy)) {
        *error = QStringLiteral("cannot encode the PNG: %1").arg(writer.errorString());
        return {};
    }
    return buffer.data();
}

#endif

} // namespace pe
