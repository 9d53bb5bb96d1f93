#include "unicodetext.h"

#include <QChar>
#include <QRegularExpression>
#include <QStringDecoder>

#include <algorithm>
#include <optional>

namespace pe::unicode {

std::u32string toU32(const QString &s)
{
    const QList<uint> units = s.toUcs4();
    return {units.begin(), units.end()};
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

bool isPunctuation(char32_t c)
{
    const bool asciiPunctuation = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
                                  (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
    return asciiPunctuation || QChar::isPunct(c);
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
