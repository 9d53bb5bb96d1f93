// A piece of text on its way through a tokenizer, with the place in the original text every one
// of its characters came from: tokenizers' NormalizedString (tokenizers/src/tokenizer/
// normalizer.rs) in Unicode code points instead of UTF-8 bytes. There every byte of a character
// carries that character's alignment and every edit works on whole characters, so counting
// code points gives the same offsets once the library turns its byte offsets into characters.
#pragma once

#include <QtGlobal>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe {

// [start, end) in code points.
struct TextSpan
{
    qsizetype start = 0;
    qsizetype end = 0;
};

// One character of a transformation, as NormalizedString::transform_range takes them: change 0
// replaces the next character, 1 inserts a new one, -n replaces the next and removes n more.
struct CharChange
{
    char32_t c = 0;
    qsizetype change = 0;
};

// A pattern's matches over a string (tokenizers' Pattern::find_matches): consecutive spans that
// cover the whole string, each a match of the pattern or not.
struct PatternMatch
{
    qsizetype start = 0;
    qsizetype end = 0;
    bool isMatch = false;
};

// SplitDelimiterBehavior: what split() does with the matched delimiters.
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

class NormalizedString
{
public:
    NormalizedString() = default;
    // Original and normalized both `text`, starting at offset 0 of the original.
    explicit NormalizedString(std::u32string text);

    const std::u32string &text() const { return m_text; }
    qsizetype size() const { return qsizetype(m_text.size()); }
    bool isEmpty() const { return m_text.empty(); }
    // Where this piece starts in the whole original text (offsets_original().0).
    qsizetype originalStart() const { return m_shift; }
    qsizetype originalLength() const { return m_originalLength; }

    // The original text a normalized [start, end) came from, in offsets of the whole original
    // (convert_offsets(Range::Normalized) plus the shift); an empty range maps to itself. nullopt
    // when the range is outside the string.
    std::optional<TextSpan> originalSpan(qsizetype start, qsizetype end) const;

    // transform_range(Range::Normalized(start..end), dest, initialOffset): replaces that range by
    // `dest`, each new character aligned by its change; initialOffset characters at the start of
    // the range are removed first.
    void transformRange(qsizetype start, qsizetype end, const std::vector<CharChange> &dest,
                        qsizetype initialOffset);
    void transform(const std::vector<CharChange> &dest, qsizetype initialOffset)
    {
        transformRange(0, size(), dest, initialOffset);
    }

    // NormalizedString::prepend: `s` before the first character, aligned with it; nothing on an
    // empty string.
    void prepend(std::u32string_view s);
    // filter(): keeps the characters `keep` accepts.
    template <class Keep> void filter(Keep keep);
    // map(): every character replaced by f(c).
    template <class Map> void map(Map f);
    // replace(): every match of `matches` replaced by `content`, whose characters take the
    // alignment of the last character they replace.
    void replace(const std::vector<PatternMatch> &matches, std::u32string_view content);
    // lstrip / rstrip / strip: leading and trailing White_Space removed.
    void strip(bool left, bool right);

    // slice(Range::Normalized(start..end)): that part with its alignments and original offsets.
    NormalizedString slice(qsizetype start, qsizetype end) const;
    // split(pattern, behavior), from the pattern's matches over text().
    std::vector<NormalizedString> split(const std::vector<PatternMatch> &matches,
                                        SplitBehavior behavior) const &;
    // The same, taking this string's buffers for a part that is the whole of it (a piece with
    // no delimiter in it, which a long text without spaces is): no copy of a long piece.
    std::vector<NormalizedString> split(const std::vector<PatternMatch> &matches,
                                        SplitBehavior behavior) &&;
    // slice(0, size()) in place: the same text, alignments and original offsets.
    void sliceWhole();

private:
    struct Part
    {
        qsizetype start;
        qsizetype end;
        bool remove;
    };
    std::vector<Part> splitParts(const std::vector<PatternMatch> &matches,
                                 SplitBehavior behavior) const;

    std::u32string m_text;
    // A character's place in the original, relative to m_shift: 32 bits each, since a text is
    // at most Tokenizer::maxTextLength (2^24) characters (8 bytes a character, not 16: a
    // normalized character is held several times over while a long text is split).
    struct Alignment
    {
        qint32 start = 0;
        qint32 end = 0;
    };
    static Alignment alignment(qsizetype start, qsizetype end)
    {
        return {qint32(start), qint32(end)};
    }
    std::vector<Alignment> m_align; // per character of m_text, relative to m_shift
    qsizetype m_shift = 0;
    qsizetype m_originalLength = 0;
};

template <class Keep> void NormalizedString::filter(Keep keep)
{
    // NormalizedString::filter: each kept character carries the count of removed ones after it.
    if (std::all_of(m_text.begin(), m_text.end(), keep))
        return; // the library's transform would change nothing
    std::vector<CharChange> changes;
    changes.reserve(m_text.size());
    qsizetype removed = 0;
    qsizetype removedAtStart = 0;
    bool haveLast = false;
    char32_t last = 0;
    for (const char32_t c : m_text) {
        if (keep(c)) {
            if (haveLast)
                changes.push_back({last, -removed});
            else
                removedAtStart = removed;
            last = c;
            haveLast = true;
            removed = 0;
        } else {
            ++removed;
        }
    }
    if (haveLast)
        changes.push_back({last, -removed});
    else
        removedAtStart = removed;
    transform(changes, removedAtStart);
}

template <class Map> void NormalizedString::map(Map f)
{
    // Replacing characters one for one keeps every alignment.
    for (char32_t &c : m_text)
        c = f(c);
}

} // namespace pe
