// SentencePiece's compiled normalization rules, the "precompiled_charsmap" of a tokenizer.json's
// Precompiled normalizer (T5, XLM-R, ALBERT, mT5...), read as Hugging Face's spm_precompiled
// crate (0.1.4) reads it: a little-endian u32 giving the trie's size in bytes, the trie (a
// Darts-clone double array of u32 units over UTF-8 bytes), then the replacement strings, each
// ended by a NUL, that the trie's values point into. The blob is untrusted: every index is
// checked before use, and a lookup walks at most as many units as its key has bytes.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe {

class PrecompiledCharsmap
{
public:
    // The blob after base64 decoding; nullopt with one sentence in *error when it is not a
    // charsmap (too short for its trie, an empty trie, replacement strings that are not UTF-8).
    static std::optional<PrecompiledCharsmap> fromBlob(QByteArrayView blob, QString *error);

    enum class Lookup { NoRule, Replaced, Broken };
    // Precompiled::transform: the replacement of the UTF-8 `key` by its shortest prefix that
    // the trie holds a value for (DoubleArray::first_prefix_value; a NUL byte ends the key).
    // Broken, with the reason in *error, when the trie points outside its units or its strings
    // or into the middle of a character (where the crate would panic).
    Lookup transform(std::string_view key, std::u32string *replacement, QString *error) const;

    qsizetype trieUnits() const { return qsizetype(m_units.size()); }
    qsizetype stringBytes() const { return m_strings.size(); }

private:
    std::vector<quint32> m_units;
    QByteArray m_strings;
};

} // namespace pe
