// How a token is shown to people (issue 38): the space a byte-level BPE token starts with ("Ġ",
// GPT-2's character for byte 0x20) or a SentencePiece token's "▁" as a visible space mark "␣",
// so that "Ġthe" reads "␣the", not "Gthe"; a byte-level newline and tab ("Ċ", "ĉ") as "↵" and
// "⇥". The one display of a token: the token strip, its tooltip and the axes' labels use it, and
// the tooltip shows the raw token beside it.
#pragma once

#include <QString>

namespace pe {

// Which marker a tokenizer writes for a space (Tokenizer::spaceMarks()).
enum class SpaceMarks {
    None,      // the tokens are shown as they are (WordPiece, WordLevel)
    ByteLevel, // GPT-2's byte-to-character table: "Ġ" is a space, "Ċ" a newline, "ĉ" a tab
    Metaspace, // SentencePiece: "▁" is a space
};

// The visible space mark.
inline constexpr char16_t visibleSpace = u'\u2423'; // ␣

QString displayToken(const QString &token, SpaceMarks marks);

} // namespace pe
