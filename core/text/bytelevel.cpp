#include "bytelevel.h"

#include "unicodetext.h"

#include <QString>

#include <array>

namespace pe::bytelevel {

namespace {

struct Table
{
    std::array<char32_t, 256> charOf{};
    std::array<int, 512> byteOf{}; // the table's characters are all below U+0200
};

Table makeTable()
{
    // Printable bytes stand for themselves; the others, in order, for U+0100, U+0101, ...
    Table t;
    t.byteOf.fill(-1);
    const auto printable = [](int b) {
        return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        const char32_t c = printable(b) ? char32_t(b) : next++;
        t.charOf[std::size_t(b)] = c;
        t.byteOf[std::size_t(c)] = b;
    }
    return t;
}

const Table &table()
{
    static const Table t = makeTable();
    return t;
}

} // namespace

char32_t charOfByte(unsigned char byte)
{
    return table().charOf[byte];
}

int byteOfChar(char32_t c)
{
    return c < 512 ? table().byteOf[std::size_t(c)] : -1;
}

void toByteCharacters(NormalizedString &text)
{
    std::vector<CharChange> changes;
    changes.reserve(std::size_t(text.size()) * 2);
    bool expands = false;
    for (const char32_t c : text.text()) {
        if (c < 0x80) {
            changes.push_back({charOfByte(static_cast<unsigned char>(c)), 0});
            continue;
        }
        const QByteArray utf8 = unicode::fromU32(c).toUtf8();
        for (qsizetype i = 0; i < utf8.size(); ++i)
            changes.push_back({charOfByte(static_cast<unsigned char>(utf8[i])), i == 0 ? 0 : 1});
        expands = true;
    }
    if (expands) {
        text.transform(changes, 0);
    } else {
        std::size_t k = 0;
        text.map([&](char32_t) { return changes[k++].c; });
    }
}

QByteArray bytesOfToken(std::u32string_view token)
{
    QByteArray out;
    out.reserve(qsizetype(token.size()));
    for (const char32_t c : token) {
        const int b = byteOfChar(c);
        if (b < 0)
            return unicode::fromU32(token).toUtf8();
        out.append(char(b));
    }
    return out;
}

QString fromUtf8Lossy(const QByteArray &bytes)
{
    // Unicode's "maximal subpart" practice (chapter 3, U+FFFD substitution): the bytes a valid
    // sequence could start with are consumed together.
    std::u32string out;
    for (qsizetype i = 0; i < bytes.size();) {
        const unicode::Utf8Sequence sequence = unicode::decodeUtf8(bytes, i);
        out.push_back(sequence.length > 0 ? sequence.c : char32_t(0xFFFD));
        i += sequence.prefix;
    }
    return unicode::fromU32(out);
}

} // namespace pe::bytelevel
