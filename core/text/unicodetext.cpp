#include "unicodetext.h"

#include <QChar>
#include <QRegularExpression>
#include <QStringDecoder>

#include <algorithm>
#include <iterator>
#include <optional>

namespace pe::unicode {

std::u32string toU32(const QString &s)
{
    const QList<uint> units = s.toUcs4();
    return {units.begin(), units.end()};
}

void appendCodePoints(std::u32string &out, std::string_view utf8)
{
    const auto *p = reinterpret_cast<const unsigned char *>(utf8.data());
    const unsigned char *end = p + utf8.size();
    while (p < end) {
        const unsigned char b = *p;
        if (b < 0x80) {
            out.push_back(b);
            ++p;
        } else if (b < 0xE0 && p + 1 < end) {
            out.push_back(char32_t(b & 0x1F) << 6 | (p[1] & 0x3F));
            p += 2;
        } else if (b < 0xF0 && p + 2 < end) {
            out.push_back(char32_t(b & 0x0F) << 12 | char32_t(p[1] & 0x3F) << 6 | (p[2] & 0x3F));
            p += 3;
        } else if (p + 3 < end) {
            out.push_back(char32_t(b & 0x07) << 18 | char32_t(p[1] & 0x3F) << 12 |
                          char32_t(p[2] & 0x3F) << 6 | (p[3] & 0x3F));
            p += 4;
        } else {
            break; // cut short: not well-formed, which the caller promised
        }
    }
}

QString fromU32(std::u32string_view s)
{
    QString out;
    out.reserve(qsizetype(s.size()));
    for (const char32_t c : s) {
        if (c < 0x10000) {
            out.append(QChar(c >= 0xD800 && c < 0xE000 ? char16_t(0xFFFD) : char16_t(c)));
        } else if (c <= 0x10FFFF) {
            out.append(QChar(QChar::highSurrogate(c)));
            out.append(QChar(QChar::lowSurrogate(c)));
        } else {
            out.append(QChar(QChar::ReplacementCharacter));
        }
    }
    return out;
}

Utf8Sequence decodeUtf8(QByteArrayView utf8, qsizetype at)
{
    const auto byte = [&](qsizetype k) { return static_cast<unsigned char>(utf8[k]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80)
        return {lead, 1, 1};
    int length = 0;
    unsigned char low = 0x80; // the second byte's range
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return {};
    }
    char32_t c = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
    qsizetype valid = 1;
    while (valid < length && at + valid < utf8.size()) {
        const unsigned char b = byte(at + valid);
        if (b < (valid == 1 ? low : 0x80) || b > (valid == 1 ? high : 0xBF))
            break;
        c = (c << 6) | (b & 0x3F);
        ++valid;
    }
    if (valid < length)
        return {0, 0, valid};
    return {c, length, length};
}

void appendUtf8(std::string &out, char32_t c)
{
    if (c < 0x80) {
        out.push_back(char(c));
    } else if (c < 0x800) {
        out.push_back(char(0xC0 | (c >> 6)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(char(0xE0 | (c >> 12)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (c >> 18)));
        out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    }
}

QString fromUtf8(QByteArrayView utf8, qsizetype *firstInvalid)
{
    if (firstInvalid)
        *firstInvalid = -1;
    // ConvertInitialBom: a leading U+FEFF is a character of the text, not a byte order mark.
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    QString out = decoder.decode(utf8);
    if (firstInvalid && decoder.hasError()) {
        // Where: the end of the longest prefix that is valid UTF-8 (Unicode's definition,
        // chapter 3, table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
        qsizetype i = 0;
        const qsizetype n = utf8.size();
        while (i < n) {
            const Utf8Sequence sequence = decodeUtf8(utf8, i);
            if (sequence.length == 0)
                break;
            i += sequence.length;
        }
        *firstInvalid = i < n ? i : -1;
    }
    return out;
}

bool isWhitespace(char32_t c)
{
    // QChar::isSpace is the Separator categories plus U+0009-U+000D and U+0085: White_Space.
    return QChar::isSpace(c);
}

bool isNumeric(char32_t c)
{
    return QChar::isNumber(c);
}

namespace {

// The tables of the unicode_categories crate 0.1.1 (src/tables.rs, generated from Unicode 8.0's
// UnicodeData.txt in 2015; the crate's later move to Unicode 14 is unreleased), which
// tokenizers 0.23 calls for BertNormalizer's clean_text and the Bert and Punctuation
// pre-tokenizers: characters given a category in Unicode 9.0 or later (U+0890 and U+08E2 Cf,
// U+2E43 and U+2E5D P*) are not in them. As ranges, written from the crate's character lists.
struct CodePointRange
{
    char32_t first, last;
};

// is_other_format (Cf).
constexpr CodePointRange categoryCf8[] = {
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x180E, 0x180E},   {0x200B, 0x200F},   {0x202A, 0x202E},
    {0x2060, 0x2064},   {0x2066, 0x206F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},
    {0x110BD, 0x110BD}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
    {0xE0020, 0xE007F},
};

// is_punctuation: the union of its Pc, Pd, Pe, Pf, Pi, Po and Ps lists.
constexpr CodePointRange categoryP8[] = {
    {0x0021, 0x0023},   {0x0025, 0x002A},   {0x002C, 0x002F},   {0x003A, 0x003B},
    {0x003F, 0x0040},   {0x005B, 0x005D},   {0x005F, 0x005F},   {0x007B, 0x007B},
    {0x007D, 0x007D},   {0x00A1, 0x00A1},   {0x00A7, 0x00A7},   {0x00AB, 0x00AB},
    {0x00B6, 0x00B7},   {0x00BB, 0x00BB},   {0x00BF, 0x00BF},   {0x037E, 0x037E},
    {0x0387, 0x0387},   {0x055A, 0x055F},   {0x0589, 0x058A},   {0x05BE, 0x05BE},
    {0x05C0, 0x05C0},   {0x05C3, 0x05C3},   {0x05C6, 0x05C6},   {0x05F3, 0x05F4},
    {0x0609, 0x060A},   {0x060C, 0x060D},   {0x061B, 0x061B},   {0x061E, 0x061F},
    {0x066A, 0x066D},   {0x06D4, 0x06D4},   {0x0700, 0x070D},   {0x07F7, 0x07F9},
    {0x0830, 0x083E},   {0x085E, 0x085E},   {0x0964, 0x0965},   {0x0970, 0x0970},
    {0x0AF0, 0x0AF0},   {0x0DF4, 0x0DF4},   {0x0E4F, 0x0E4F},   {0x0E5A, 0x0E5B},
    {0x0F04, 0x0F12},   {0x0F14, 0x0F14},   {0x0F3A, 0x0F3D},   {0x0F85, 0x0F85},
    {0x0FD0, 0x0FD4},   {0x0FD9, 0x0FDA},   {0x104A, 0x104F},   {0x10FB, 0x10FB},
    {0x1360, 0x1368},   {0x1400, 0x1400},   {0x166D, 0x166E},   {0x169B, 0x169C},
    {0x16EB, 0x16ED},   {0x1735, 0x1736},   {0x17D4, 0x17D6},   {0x17D8, 0x17DA},
    {0x1800, 0x180A},   {0x1944, 0x1945},   {0x1A1E, 0x1A1F},   {0x1AA0, 0x1AA6},
    {0x1AA8, 0x1AAD},   {0x1B5A, 0x1B60},   {0x1BFC, 0x1BFF},   {0x1C3B, 0x1C3F},
    {0x1C7E, 0x1C7F},   {0x1CC0, 0x1CC7},   {0x1CD3, 0x1CD3},   {0x2010, 0x2027},
    {0x2030, 0x2043},   {0x2045, 0x2051},   {0x2053, 0x205E},   {0x207D, 0x207E},
    {0x208D, 0x208E},   {0x2308, 0x230B},   {0x2329, 0x232A},   {0x2768, 0x2775},
    {0x27C5, 0x27C6},   {0x27E6, 0x27EF},   {0x2983, 0x2998},   {0x29D8, 0x29DB},
    {0x29FC, 0x29FD},   {0x2CF9, 0x2CFC},   {0x2CFE, 0x2CFF},   {0x2D70, 0x2D70},
    {0x2E00, 0x2E2E},   {0x2E30, 0x2E42},   {0x3001, 0x3003},   {0x3008, 0x3011},
    {0x3014, 0x301F},   {0x3030, 0x3030},   {0x303D, 0x303D},   {0x30A0, 0x30A0},
    {0x30FB, 0x30FB},   {0xA4FE, 0xA4FF},   {0xA60D, 0xA60F},   {0xA673, 0xA673},
    {0xA67E, 0xA67E},   {0xA6F2, 0xA6F7},   {0xA874, 0xA877},   {0xA8CE, 0xA8CF},
    {0xA8F8, 0xA8FA},   {0xA8FC, 0xA8FC},   {0xA92E, 0xA92F},   {0xA95F, 0xA95F},
    {0xA9C1, 0xA9CD},   {0xA9DE, 0xA9DF},   {0xAA5C, 0xAA5F},   {0xAADE, 0xAADF},
    {0xAAF0, 0xAAF1},   {0xABEB, 0xABEB},   {0xFD3E, 0xFD3F},   {0xFE10, 0xFE19},
    {0xFE30, 0xFE52},   {0xFE54, 0xFE61},   {0xFE63, 0xFE63},   {0xFE68, 0xFE68},
    {0xFE6A, 0xFE6B},   {0xFF01, 0xFF03},   {0xFF05, 0xFF0A},   {0xFF0C, 0xFF0F},
    {0xFF1A, 0xFF1B},   {0xFF1F, 0xFF20},   {0xFF3B, 0xFF3D},   {0xFF3F, 0xFF3F},
    {0xFF5B, 0xFF5B},   {0xFF5D, 0xFF5D},   {0xFF5F, 0xFF65},   {0x10100, 0x10102},
    {0x1039F, 0x1039F}, {0x103D0, 0x103D0}, {0x1056F, 0x1056F}, {0x10857, 0x10857},
    {0x1091F, 0x1091F}, {0x1093F, 0x1093F}, {0x10A50, 0x10A58}, {0x10A7F, 0x10A7F},
    {0x10AF0, 0x10AF6}, {0x10B39, 0x10B3F}, {0x10B99, 0x10B9C}, {0x11047, 0x1104D},
    {0x110BB, 0x110BC}, {0x110BE, 0x110C1}, {0x11140, 0x11143}, {0x11174, 0x11175},
    {0x111C5, 0x111C9}, {0x111CD, 0x111CD}, {0x111DB, 0x111DB}, {0x111DD, 0x111DF},
    {0x11238, 0x1123D}, {0x112A9, 0x112A9}, {0x114C6, 0x114C6}, {0x115C1, 0x115D7},
    {0x11641, 0x11643}, {0x1173C, 0x1173E}, {0x12470, 0x12474}, {0x16A6E, 0x16A6F},
    {0x16AF5, 0x16AF5}, {0x16B37, 0x16B3B}, {0x16B44, 0x16B44}, {0x1BC9F, 0x1BC9F},
    {0x1DA87, 0x1DA8B},
};

// is_mark_nonspacing (Mn).
constexpr CodePointRange categoryMn8[] = {
    {0x0300, 0x036F},   {0x0483, 0x0487},   {0x0591, 0x05BD},   {0x05BF, 0x05BF},
    {0x05C1, 0x05C2},   {0x05C4, 0x05C5},   {0x05C7, 0x05C7},   {0x0610, 0x061A},
    {0x064B, 0x065F},   {0x0670, 0x0670},   {0x06D6, 0x06DC},   {0x06DF, 0x06E4},
    {0x06E7, 0x06E8},   {0x06EA, 0x06ED},   {0x0711, 0x0711},   {0x0730, 0x074A},
    {0x07A6, 0x07B0},   {0x07EB, 0x07F3},   {0x0816, 0x0819},   {0x081B, 0x0823},
    {0x0825, 0x0827},   {0x0829, 0x082D},   {0x0859, 0x085B},   {0x08E3, 0x0902},
    {0x093A, 0x093A},   {0x093C, 0x093C},   {0x0941, 0x0948},   {0x094D, 0x094D},
    {0x0951, 0x0957},   {0x0962, 0x0963},   {0x0981, 0x0981},   {0x09BC, 0x09BC},
    {0x09C1, 0x09C4},   {0x09CD, 0x09CD},   {0x09E2, 0x09E3},   {0x0A01, 0x0A02},
    {0x0A3C, 0x0A3C},   {0x0A41, 0x0A42},   {0x0A47, 0x0A48},   {0x0A4B, 0x0A4D},
    {0x0A51, 0x0A51},   {0x0A70, 0x0A71},   {0x0A75, 0x0A75},   {0x0A81, 0x0A82},
    {0x0ABC, 0x0ABC},   {0x0AC1, 0x0AC5},   {0x0AC7, 0x0AC8},   {0x0ACD, 0x0ACD},
    {0x0AE2, 0x0AE3},   {0x0B01, 0x0B01},   {0x0B3C, 0x0B3C},   {0x0B3F, 0x0B3F},
    {0x0B41, 0x0B44},   {0x0B4D, 0x0B4D},   {0x0B56, 0x0B56},   {0x0B62, 0x0B63},
    {0x0B82, 0x0B82},   {0x0BC0, 0x0BC0},   {0x0BCD, 0x0BCD},   {0x0C00, 0x0C00},
    {0x0C3E, 0x0C40},   {0x0C46, 0x0C48},   {0x0C4A, 0x0C4D},   {0x0C55, 0x0C56},
    {0x0C62, 0x0C63},   {0x0C81, 0x0C81},   {0x0CBC, 0x0CBC},   {0x0CBF, 0x0CBF},
    {0x0CC6, 0x0CC6},   {0x0CCC, 0x0CCD},   {0x0CE2, 0x0CE3},   {0x0D01, 0x0D01},
    {0x0D41, 0x0D44},   {0x0D4D, 0x0D4D},   {0x0D62, 0x0D63},   {0x0DCA, 0x0DCA},
    {0x0DD2, 0x0DD4},   {0x0DD6, 0x0DD6},   {0x0E31, 0x0E31},   {0x0E34, 0x0E3A},
    {0x0E47, 0x0E4E},   {0x0EB1, 0x0EB1},   {0x0EB4, 0x0EB9},   {0x0EBB, 0x0EBC},
    {0x0EC8, 0x0ECD},   {0x0F18, 0x0F19},   {0x0F35, 0x0F35},   {0x0F37, 0x0F37},
    {0x0F39, 0x0F39},   {0x0F71, 0x0F7E},   {0x0F80, 0x0F84},   {0x0F86, 0x0F87},
    {0x0F8D, 0x0F97},   {0x0F99, 0x0FBC},   {0x0FC6, 0x0FC6},   {0x102D, 0x1030},
    {0x1032, 0x1037},   {0x1039, 0x103A},   {0x103D, 0x103E},   {0x1058, 0x1059},
    {0x105E, 0x1060},   {0x1071, 0x1074},   {0x1082, 0x1082},   {0x1085, 0x1086},
    {0x108D, 0x108D},   {0x109D, 0x109D},   {0x135D, 0x135F},   {0x1712, 0x1714},
    {0x1732, 0x1734},   {0x1752, 0x1753},   {0x1772, 0x1773},   {0x17B4, 0x17B5},
    {0x17B7, 0x17BD},   {0x17C6, 0x17C6},   {0x17C9, 0x17D3},   {0x17DD, 0x17DD},
    {0x180B, 0x180D},   {0x18A9, 0x18A9},   {0x1920, 0x1922},   {0x1927, 0x1928},
    {0x1932, 0x1932},   {0x1939, 0x193B},   {0x1A17, 0x1A18},   {0x1A1B, 0x1A1B},
    {0x1A56, 0x1A56},   {0x1A58, 0x1A5E},   {0x1A60, 0x1A60},   {0x1A62, 0x1A62},
    {0x1A65, 0x1A6C},   {0x1A73, 0x1A7C},   {0x1A7F, 0x1A7F},   {0x1AB0, 0x1ABD},
    {0x1B00, 0x1B03},   {0x1B34, 0x1B34},   {0x1B36, 0x1B3A},   {0x1B3C, 0x1B3C},
    {0x1B42, 0x1B42},   {0x1B6B, 0x1B73},   {0x1B80, 0x1B81},   {0x1BA2, 0x1BA5},
    {0x1BA8, 0x1BA9},   {0x1BAB, 0x1BAD},   {0x1BE6, 0x1BE6},   {0x1BE8, 0x1BE9},
    {0x1BED, 0x1BED},   {0x1BEF, 0x1BF1},   {0x1C2C, 0x1C33},   {0x1C36, 0x1C37},
    {0x1CD0, 0x1CD2},   {0x1CD4, 0x1CE0},   {0x1CE2, 0x1CE8},   {0x1CED, 0x1CED},
    {0x1CF4, 0x1CF4},   {0x1CF8, 0x1CF9},   {0x1DC0, 0x1DF5},   {0x1DFC, 0x1DFF},
    {0x20D0, 0x20DC},   {0x20E1, 0x20E1},   {0x20E5, 0x20F0},   {0x2CEF, 0x2CF1},
    {0x2D7F, 0x2D7F},   {0x2DE0, 0x2DFF},   {0x302A, 0x302D},   {0x3099, 0x309A},
    {0xA66F, 0xA66F},   {0xA674, 0xA67D},   {0xA69E, 0xA69F},   {0xA6F0, 0xA6F1},
    {0xA802, 0xA802},   {0xA806, 0xA806},   {0xA80B, 0xA80B},   {0xA825, 0xA826},
    {0xA8C4, 0xA8C4},   {0xA8E0, 0xA8F1},   {0xA926, 0xA92D},   {0xA947, 0xA951},
    {0xA980, 0xA982},   {0xA9B3, 0xA9B3},   {0xA9B6, 0xA9B9},   {0xA9BC, 0xA9BC},
    {0xA9E5, 0xA9E5},   {0xAA29, 0xAA2E},   {0xAA31, 0xAA32},   {0xAA35, 0xAA36},
    {0xAA43, 0xAA43},   {0xAA4C, 0xAA4C},   {0xAA7C, 0xAA7C},   {0xAAB0, 0xAAB0},
    {0xAAB2, 0xAAB4},   {0xAAB7, 0xAAB8},   {0xAABE, 0xAABF},   {0xAAC1, 0xAAC1},
    {0xAAEC, 0xAAED},   {0xAAF6, 0xAAF6},   {0xABE5, 0xABE5},   {0xABE8, 0xABE8},
    {0xABED, 0xABED},   {0xFB1E, 0xFB1E},   {0xFE00, 0xFE0F},   {0xFE20, 0xFE2F},
    {0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A}, {0x10A01, 0x10A03},
    {0x10A05, 0x10A06}, {0x10A0C, 0x10A0F}, {0x10A38, 0x10A3A}, {0x10A3F, 0x10A3F},
    {0x10AE5, 0x10AE6}, {0x11001, 0x11001}, {0x11038, 0x11046}, {0x1107F, 0x11081},
    {0x110B3, 0x110B6}, {0x110B9, 0x110BA}, {0x11100, 0x11102}, {0x11127, 0x1112B},
    {0x1112D, 0x11134}, {0x11173, 0x11173}, {0x11180, 0x11181}, {0x111B6, 0x111BE},
    {0x111CA, 0x111CC}, {0x1122F, 0x11231}, {0x11234, 0x11234}, {0x11236, 0x11237},
    {0x112DF, 0x112DF}, {0x112E3, 0x112EA}, {0x11300, 0x11301}, {0x1133C, 0x1133C},
    {0x11340, 0x11340}, {0x11366, 0x1136C}, {0x11370, 0x11374}, {0x114B3, 0x114B8},
    {0x114BA, 0x114BA}, {0x114BF, 0x114C0}, {0x114C2, 0x114C3}, {0x115B2, 0x115B5},
    {0x115BC, 0x115BD}, {0x115BF, 0x115C0}, {0x115DC, 0x115DD}, {0x11633, 0x1163A},
    {0x1163D, 0x1163D}, {0x1163F, 0x11640}, {0x116AB, 0x116AB}, {0x116AD, 0x116AD},
    {0x116B0, 0x116B5}, {0x116B7, 0x116B7}, {0x1171D, 0x1171F}, {0x11722, 0x11725},
    {0x11727, 0x1172B}, {0x16AF0, 0x16AF4}, {0x16B30, 0x16B36}, {0x16F8F, 0x16F92},
    {0x1BC9D, 0x1BC9E}, {0x1D167, 0x1D169}, {0x1D17B, 0x1D182}, {0x1D185, 0x1D18B},
    {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244}, {0x1DA00, 0x1DA36}, {0x1DA3B, 0x1DA6C},
    {0x1DA75, 0x1DA75}, {0x1DA84, 0x1DA84}, {0x1DA9B, 0x1DA9F}, {0x1DAA1, 0x1DAAF},
    {0x1E8D0, 0x1E8D6}, {0xE0100, 0xE01EF},
};

template <std::size_t N> bool inRanges(const CodePointRange (&ranges)[N], char32_t c)
{
    const auto *after =
        std::upper_bound(std::begin(ranges), std::end(ranges), c,
                         [](char32_t v, const CodePointRange &r) { return v < r.first; });
    return after != std::begin(ranges) && c <= (after - 1)->last;
}

} // namespace

bool isOther(char32_t c)
{
    const bool control = c <= 0x1F || (c >= 0x7F && c <= 0x9F);
    const bool privateUse = (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) ||
                            (c >= 0x100000 && c <= 0x10FFFD);
    return control || privateUse || inRanges(categoryCf8, c);
}

bool isNonspacingMark(char32_t c)
{
    return inRanges(categoryMn8, c);
}

bool isPunctuation(char32_t c)
{
    const bool asciiPunctuation = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
                                  (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
    return asciiPunctuation || inRanges(categoryP8, c);
}

QString wordCharacterClass()
{
    return QStringLiteral("\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}");
}

bool isWordCharacter(char32_t c)
{
    if (c < 0x80)
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
               c == u'_';
    // Alphabetic is a property QChar does not expose; PCRE2 (through Qt) knows it.
    static const QRegularExpression word(QStringLiteral("^[%1]$").arg(wordCharacterClass()),
                                         QRegularExpression::UseUnicodePropertiesOption);
    return word.match(fromU32(c)).hasMatch();
}

namespace {

struct Decomposed
{
    int combiningClass;
    char32_t c;
    qsizetype change;
};

// Hangul syllables decompose, and their jamo compose, by the algorithm of Unicode's chapter
// 3.12 rather than by table: S = SBase + (L * VCount + V) * TCount + T.
constexpr char32_t hangulSyllableFirst = 0xAC00;
constexpr char32_t hangulSyllableLast = 0xD7A3;
constexpr char32_t hangulVowelFirst = 0x1161; // VBase, VCount 21
constexpr char32_t hangulVowelLast = 0x1175;
constexpr char32_t hangulTrailingFirst = 0x11A8; // TBase + 1, TCount 28
constexpr char32_t hangulTrailingLast = 0x11C2;

// The full canonical or compatibility decomposition of one character. Strings are normalized one
// character at a time: QString::normalized inserts into the whole string for each decomposed
// character, which is quadratic in a long text.
std::u32string decomposeOne(char32_t c, bool compatibility)
{
    const QChar::Decomposition tag = QChar::decompositionTag(c);
    const bool hangul = c >= hangulSyllableFirst && c <= hangulSyllableLast;
    if (!hangul && (tag == QChar::NoDecomposition || (!compatibility && tag != QChar::Canonical)))
        return std::u32string(1, c);
    return toU32(fromU32(c).normalized(compatibility ? QString::NormalizationForm_KD
                                                     : QString::NormalizationForm_D));
}

// The primary composite of a starter (or a composite already made) and the next character,
// when Unicode composes them. Only marks and Hangul vowels and trailing consonants come second
// in a composition.
std::optional<char32_t> composePair(char32_t a, char32_t b)
{
    const bool jamo = (b >= hangulVowelFirst && b <= hangulVowelLast) ||
                      (b >= hangulTrailingFirst && b <= hangulTrailingLast);
    if (!jamo && !QChar::isMark(b))
        return std::nullopt;
    const char32_t pair[2] = {a, b};
    const std::u32string composed =
        toU32(fromU32(std::u32string_view(pair, 2)).normalized(QString::NormalizationForm_C));
    if (composed.size() == 1)
        return composed.front();
    return std::nullopt;
}

// unicode-normalization-alignments' Decompositions: each character's decomposition, its first
// character with change 0 and the rest 1, then every run of non-starters ordered by combining
// class (stable), as the buffer is sorted whenever a starter arrives.
std::vector<Decomposed> decompose(std::u32string_view segment, bool compatibility)
{
    std::vector<Decomposed> out;
    std::size_t readyEnd = 0;
    const auto sortPending = [&] {
        std::stable_sort(out.begin() + qsizetype(readyEnd), out.end(),
                         [](const Decomposed &a, const Decomposed &b) {
                             return a.combiningClass < b.combiningClass;
                         });
        readyEnd = out.size();
    };
    for (const char32_t c : segment) {
        bool first = true;
        for (const char32_t d : decomposeOne(c, compatibility)) {
            const int cc = QChar::combiningClass(d);
            if (cc == 0)
                sortPending();
            out.push_back({cc, d, first ? 0 : 1});
            first = false;
        }
    }
    sortPending();
    return out;
}

// unicode-normalization-alignments' Recompositions: the canonical composition state machine,
// a composite carrying change k + change - 1 of the two it joins.
void recompose(const std::vector<Decomposed> &input, std::vector<CharChange> *out)
{
    std::optional<CharChange> composee;
    int lastClass = -1; // none: nothing blocked since the composee
    std::vector<CharChange> blocked;
    const auto flush = [&](const CharChange &k) {
        out->push_back(k);
        out->insert(out->end(), blocked.begin(), blocked.end());
        blocked.clear();
    };
    for (const Decomposed &d : input) {
        const CharChange ch{d.c, d.change};
        if (!composee) {
            if (d.combiningClass != 0)
                out->push_back(ch);
            else
                composee = ch;
            continue;
        }
        const CharChange k = *composee;
        if (lastClass >= 0 && lastClass >= d.combiningClass) {
            // Blocked from the composee by a mark of the same or a higher class.
            if (d.combiningClass == 0) {
                composee = ch;
                lastClass = -1;
                flush(k);
            } else {
                blocked.push_back(ch);
                lastClass = d.combiningClass;
            }
            continue;
        }
        if (const std::optional<char32_t> r = composePair(k.c, d.c)) {
            composee = CharChange{*r, k.change + d.change - 1};
            continue;
        }
        if (lastClass < 0 && d.combiningClass == 0) {
            composee = ch;
            flush(k);
            continue;
        }
        blocked.push_back(ch);
        lastClass = d.combiningClass;
    }
    if (composee)
        flush(*composee);
}

} // namespace

void normalize(NormalizedString &text, QString::NormalizationForm form)
{
    const bool compose =
        form == QString::NormalizationForm_C || form == QString::NormalizationForm_KC;
    const bool compatibility =
        form == QString::NormalizationForm_KD || form == QString::NormalizationForm_KC;
    const std::u32string &s = text.text();
    if (std::all_of(s.begin(), s.end(), [](char32_t c) { return c < 0x80; }))
        return; // ASCII is in every normal form
    const std::vector<Decomposed> decomposed = decompose(s, compatibility);
    std::vector<CharChange> changes;
    changes.reserve(decomposed.size());
    if (compose) {
        recompose(decomposed, &changes);
    } else {
        for (const Decomposed &d : decomposed)
            changes.push_back({d.c, d.change});
    }
    const bool unchanged =
        changes.size() == s.size() &&
        std::equal(changes.begin(), changes.end(), s.begin(),
                   [](const CharChange &d, char32_t c) { return d.c == c && d.change == 0; });
    if (!unchanged)
        text.transform(changes, 0);
}

void lowercase(NormalizedString &text)
{
    // QString::toLower applies the full mappings (İ becomes i + U+0307), as Rust's
    // char::to_lowercase does, one character at a time (no context). When the whole text keeps
    // its length, every character became one: the common case, in one call.
    const std::u32string lower = toU32(fromU32(text.text()).toLower());
    if (lower.size() == text.text().size()) {
        std::size_t k = 0;
        text.map([&](char32_t) { return lower[k++]; });
        return;
    }
    std::vector<CharChange> changes;
    changes.reserve(lower.size());
    for (const char32_t c : text.text()) {
        const std::u32string one = toU32(fromU32(c).toLower());
        for (std::size_t k = 0; k < one.size(); ++k)
            changes.push_back({one[k], k == 0 ? 0 : 1});
    }
    text.transform(changes, 0);
}

} // namespace pe::unicode
