// Unicode for the tokenizer: character classes as the Rust functions the `tokenizers` library
// calls define them, and normalization forms and lowercasing that keep NormalizedString's
// alignments. The Unicode data is Qt's (QChar, QString::normalized, QRegularExpression's
// properties), except the classes tokenizers takes from the unicode_categories crate's
// Unicode 8.0 tables (isPunctuation, isOther, isNonspacingMark), which carry those tables.
#pragma once

#include "normalizedstring.h"

#include <QByteArrayView>
#include <QString>

#include <string>
#include <string_view>

namespace pe::unicode {

std::u32string toU32(const QString &s);
// Code points to UTF-16, every one kept: QString::fromUcs4 drops a U+FEFF at the start (it reads
// it as a byte order mark). Surrogates and values above U+10FFFF become U+FFFD.
QString fromU32(std::u32string_view s);
inline QString fromU32(char32_t c)
{
    return fromU32(std::u32string_view(&c, 1));
}
// UTF-8 to UTF-16, every character kept (QString::fromUtf8 drops a U+FEFF at the start). When
// `firstInvalid` is given it gets the byte offset of the first byte that is not valid UTF-8, or
// -1; invalid bytes become U+FFFD.
QString fromUtf8(QByteArrayView utf8, qsizetype *firstInvalid = nullptr);

// UTF-8 as Unicode defines it (chapter 3, table 3-7: no overlong forms, no surrogates, nothing
// past U+10FFFF); the one reading of it that fromUtf8, the byte-level decoder and the
// Precompiled charsmap share.
struct Utf8Sequence
{
    char32_t c = 0;       // the code point, when `length` > 0
    qsizetype length = 0; // bytes of the well-formed sequence at the offset; 0 when there is none
    // Bytes of the longest prefix of a well-formed sequence there (Unicode's "maximal subpart",
    // which one U+FFFD replaces), at least 1; `length` when the sequence is complete.
    qsizetype prefix = 1;
};
// The sequence starting at byte `at` (< utf8.size()) of `utf8`.
Utf8Sequence decodeUtf8(QByteArrayView utf8, qsizetype at);
// Bytes of `c` in UTF-8.
constexpr qsizetype utf8Length(char32_t c)
{
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}
// `c` (below U+110000) appended to `out` as UTF-8.
void appendUtf8(std::string &out, char32_t c);
// The code points of `utf8`, which must be well-formed (a validating parser's output: simdjson
// checks the whole text), appended to `out`.
void appendCodePoints(std::u32string &out, std::string_view utf8);

// char::is_whitespace: the White_Space property.
bool isWhitespace(char32_t c);
// char::is_numeric: general category N (Nd, Nl, No).
bool isNumeric(char32_t c);
// is_ascii_punctuation() || is_punctuation() (categories P*), as BertPreTokenizer and
// Punctuation use it: the unicode_categories crate's Unicode 8.0 tables, not Qt's.
bool isPunctuation(char32_t c);
// unicode_categories' is_other: is_other_control() || is_other_format() ||
// is_other_private_use(), that is Cc, Cf and Co of Unicode 8.0 (the crate's tables), as
// BertNormalizer's clean_text removes them. Unassigned code points (Cn: U+0378, U+FFFF,
// noncharacters) and characters assigned Cf later (U+0890, U+08E2, U+13430) are kept, as
// tokenizers keeps them.
bool isOther(char32_t c);
// unicode_categories' is_mark_nonspacing (Mn of Unicode 8.0), as BertNormalizer's strip_accents
// removes it: a mark assigned later (U+0898, Unicode 14) is kept, as tokenizers keeps it.
bool isNonspacingMark(char32_t c);
// unicode-normalization-alignments' is_combining_mark (General_Category=Mark of Unicode 9.0.0),
// as the StripAccents normalizer removes it: U+1CF2 and U+1CF3 (Mc in 9.0, Lo since 10.0) are
// removed, marks assigned later (U+07FD, U+0898) kept, as tokenizers 0.23 does; Qt's
// QChar::isMark answers from a later Unicode.
bool isCombiningMark(char32_t c);
// regex's \w: Alphabetic, M, Nd, Pc, Join_Control.
bool isWordCharacter(char32_t c);
// The same class as a PCRE2 bracket expression's content, for patterns built here.
QString wordCharacterClass();

// NFC, NFD, NFKC or NFKD over the string, each character aligned as the
// unicode-normalization-alignments crate (0.1) reports the change to tokenizers: a
// decomposition's first character replaces the original, the others are inserted after it, and
// a composition replaces the characters it absorbs.
void normalize(NormalizedString &text, QString::NormalizationForm form);
// NormalizedString::lowercase: char::to_lowercase, so a character may become several.
void lowercase(NormalizedString &text);

} // namespace pe::unicode
