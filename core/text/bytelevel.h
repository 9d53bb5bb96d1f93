// GPT-2's bytes-to-characters table (openai/gpt-2 encoder.py bytes_to_unicode, tokenizers'
// byte_level.rs bytes_char): every byte of UTF-8 shown as a printable character, so that
// byte-level BPE works on text. Shared by the ByteLevel normalizer, pre-tokenizer and decoder.
#pragma once

#include "normalizedstring.h"

#include <QByteArray>

#include <string_view>

namespace pe::bytelevel {

char32_t charOfByte(unsigned char byte);
// The byte a table character stands for; -1 for any other character.
int byteOfChar(char32_t c);
// Every character replaced by the table characters of its UTF-8 bytes, the first one taking the
// character's place and the others inserted after it (ByteLevel::pre_tokenize's transform).
void toByteCharacters(NormalizedString &text);
// The UTF-8 bytes of `token`: table characters decoded, or, when one is not in the table, the
// token's own UTF-8 (ByteLevel::decode_chain).
QByteArray bytesOfToken(std::u32string_view token);
// Rust's String::from_utf8_lossy: one U+FFFD for each maximal invalid subpart (an incomplete
// sequence is one replacement, where QString::fromUtf8 gives one per byte).
QString fromUtf8Lossy(const QByteArray &bytes);

} // namespace pe::bytelevel
