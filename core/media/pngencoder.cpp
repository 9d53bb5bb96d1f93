#include "media/pngencoder.h"

#include "backends/parallel.h"
#include "kernels/cpukernels.h"

#include <QBuffer>
#include <QImageWriter>

#ifdef PE_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#include <cstdint>
#include <memory>
#include <vector>

namespace pe {

#ifdef PE_HAVE_ISAL
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
    const auto *crcStart = reinterpret_cast<const unsigned char *>(out.constData() + start);
    put32(out, crc32_gzip_refl(0, crcStart, std::uint64_t(out.size() - start))); // PNG's CRC-32
}

// Filtered scanlines of rows [y0, y1): a filter byte, then RGB bytes (kernels::pngFilterRow).
void filterRows(const QImage &image, int y0, int y1, unsigned char *out)
{
    const int width = image.width();
    const std::size_t n = 3 * std::size_t(width);
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

// The Adler-32 of A followed by B from adler(A), adler(B) and B's length: zlib's
// adler32_combine, which ISA-L lacks. The low half sums bytes, the high half sums the running
// low half, both modulo 65521; B's bytes each saw A's low sum once more per byte of B.
std::uint32_t adler32Combine(std::uint32_t adlerA, std::uint32_t adlerB, std::size_t lengthB)
{
    constexpr std::uint64_t base = 65521;
    const std::uint64_t lowA = adlerA & 0xffff, highA = adlerA >> 16;
    const std::uint64_t lowB = adlerB & 0xffff, highB = adlerB >> 16;
    const std::uint64_t n = lengthB % base;
    // B's checksum starts its low sum at 1, the combined one continues from lowA: one 1 too many.
    const std::uint64_t low = (lowA + lowB + base - 1) % base;
    const std::uint64_t high = (highA + highB + n * lowA % base + base - n) % base;
    return std::uint32_t(low | (high << 16));
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
    const std::size_t rowBytes = 3 * std::size_t(width) + 1;

    // Blocks of rows are filtered and deflated independently (each starts a fresh dictionary) by
    // ISA-L's deflate, several times faster than zlib's fastest level at a slightly larger file.
    // A full flush ends every block but the last on a byte boundary, so their concatenation is
    // one deflate stream, and the blocks' Adler-32 checksums combine. Blocks of 64 rows keep
    // each thread's filter buffer small and reused: fresh pages cost more than the compression.
    constexpr int rowsPerBlock = 64;
    const int blocks = (height + rowsPerBlock - 1) / rowsPerBlock;
    struct Block
    {
        std::unique_ptr<unsigned char[]> data; // its deflate blocks, uninitialised past `size`
        std::size_t size = 0;
        std::uint32_t adler = 1;
        std::size_t rawSize = 0;
        bool ok = false;
    };
    std::vector<Block> results(static_cast<std::size_t>(blocks));
    parallelFor(0, blocks, hardwareThreads(), 1, [&](qint64 begin, qint64 end) {
        const std::size_t rawCapacity = std::size_t(rowsPerBlock) * rowBytes;
        // Room for the worst case, stored blocks: 5 bytes per 64 KiB more than the input.
        const std::size_t dataCapacity =
            rawCapacity + rawCapacity / 8192 + ISAL_DEF_MAX_HDR_SIZE + 1024;
        // Not value-initialised: ISA-L sets up what it reads, and zeroing costs page faults.
        const std::unique_ptr<unsigned char[]> raw(new unsigned char[rawCapacity]);
        const std::unique_ptr<unsigned char[]> levelBuffer(
            new unsigned char[ISAL_DEF_LVL1_DEFAULT]);
        for (qint64 b = begin; b < end; ++b) {
            const int y0 = int(b * rowsPerBlock);
            const int y1 = qMin(height, y0 + rowsPerBlock);
            Block &block = results[std::size_t(b)];
            block.rawSize = std::size_t(y1 - y0) * rowBytes;
            filterRows(image, y0, y1, raw.get());
            block.adler = isal_adler32(1, raw.get(), block.rawSize);
            block.data.reset(new unsigned char[dataCapacity]);
            isal_zstream z;
            isal_deflate_stateless_init(&z);
            z.level = 1;
            z.level_buf = levelBuffer.get();
            z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
            z.gzip_flag = IGZIP_DEFLATE; // raw deflate: the zlib wrapper is written below
            z.next_in = raw.get();
            z.avail_in = std::uint32_t(block.rawSize);
            z.next_out = block.data.get();
            z.avail_out = std::uint32_t(dataCapacity);
            const bool last = b == blocks - 1;
            z.end_of_stream = last ? 1 : 0;
            z.flush = last ? NO_FLUSH : FULL_FLUSH;
            block.ok = isal_deflate_stateless(&z) == COMP_OK && z.avail_in == 0;
            block.size = z.total_out;
        }
    });

    QByteArray idat;
    std::size_t compressed = 0;
    for (const Block &block : results)
        compressed += block.size;
    idat.reserve(qsizetype(compressed) + 6);
    idat.append(char(0x78)).append(char(0x01)); // zlib header: deflate, 32 KiB window, fastest
    std::uint32_t adler = 1;
    for (const Block &block : results) {
        if (!block.ok) {
            *error = QStringLiteral("PNG compression failed");
            return {};
        }
        idat.append(reinterpret_cast<const char *>(block.data.get()), qsizetype(block.size));
        adler = adler32Combine(adler, block.adler, block.rawSize);
    }
    put32(idat, adler);

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

// Without ISA-L's headers: Qt's writer at its fastest useful compression (same pixels, slower).
QByteArray encodePng(const QImage &source, const QList<PngText> &texts, QString *error)
{
    if (source.isNull()) {
        *error = QStringLiteral("no image to encode");
        return {};
    }
    QImage copy = source;
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
