// Unicode for the tokenizer: character classes as the Rust functions the `tokenizers` library
// calls define them, and normalization forms and lowercasing that keep NormalizedString's
// alignments. The Unicode data is Qt's (QChar, QString::normalized, QRegularExpression's
// properties); nothing here carries a table of its own.
#pragma once

#include "normalizedstring.h"

#include <QString>

#include <string>
#include <string_view>

namespace pe::unicode {

std::u32string toU32(const QString &s);
inline QString fromU32(std::u32string_view s)
{
    return QString::fromUcs4(s.data(), qsizetype(s.size()));
}

// char::is_whitespace: the White_Space property.
bool isWhitespace(char32_t c);
// char::is_numeric: general category N (Nd, Nl, No).
bool isNumeric(char32_t c);
// is_ascii_punctuation() || is_punctuation() (categories P*), as BertPreTokenizer and
// Punctuation use it.
bool isPunctuation(char32_t c);
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
