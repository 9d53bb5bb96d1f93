#include "normalizedstring.h"

#include <QChar>

#include <algorithm>
#include <utility>

namespace pe {

NormalizedString::NormalizedString(std::u32string text)
    : m_text(std::move(text)), m_originalLength(qsizetype(m_text.size()))
{
    m_align.reserve(m_text.size());
    for (qsizetype i = 0; i < qsizetype(m_text.size()); ++i)
        m_align.push_back(alignment(i, i + 1));
}

std::optional<TextSpan> NormalizedString::originalSpan(qsizetype start, qsizetype end) const
{
    if (start == end)
        return TextSpan{m_shift + start, m_shift + start};
    if (start > end || start < 0 || end > size())
        return std::nullopt;
    return TextSpan{m_shift + m_align[std::size_t(start)].start,
                    m_shift + m_align[std::size_t(end - 1)].end};
}

void NormalizedString::transformRange(qsizetype start, qsizetype end,
                                      const std::vector<CharChange> &dest, qsizetype initialOffset)
{
    // NormalizedString::transform_range: a character that replaces one takes its alignment, an
    // inserted one the alignment of the character before it ((0, 0) at the very start).
    start = std::clamp<qsizetype>(start, 0, size());
    end = std::clamp<qsizetype>(end, start, size());
    qsizetype remaining = end - start;
    const qsizetype skipped = std::min(std::max<qsizetype>(initialOffset, 0), remaining);
    remaining -= skipped;
    qsizetype offset = start + skipped;
    const auto alignmentAt = [&](qsizetype i) {
        // The library would stop on an index past the string; no caller here makes one.
        return m_align.empty() ? Alignment{}
                               : m_align[std::size_t(std::clamp<qsizetype>(i, 0, size() - 1))];
    };
    std::u32string text;
    std::vector<Alignment> align;
    text.reserve(dest.size());
    align.reserve(dest.size());
    for (const CharChange &d : dest) {
        if (d.change > 0)
            align.push_back(offset < 1 ? Alignment{} : alignmentAt(offset - 1));
        else
            align.push_back(alignmentAt(offset));
        if (d.change <= 0 && remaining > 0) {
            ++offset;
            --remaining;
        }
        if (d.change < 0) {
            const qsizetype removed = std::min(-d.change, remaining);
            offset += removed;
            remaining -= removed;
        }
        text.push_back(d.c);
    }
    if (start == 0 && end == size()) {
        m_text = std::move(text);
        m_align = std::move(align);
        return;
    }
    // Built anew at their exact size: inserting in place (a prepended "▁" on a long piece)
    // grows a vector to twice its length and keeps that capacity as long as the piece lives.
    std::u32string joinedText;
    joinedText.reserve(m_text.size() - std::size_t(end - start) + text.size());
    joinedText.append(m_text, 0, std::size_t(start)).append(text).append(m_text, std::size_t(end));
    std::vector<Alignment> joinedAlign;
    joinedAlign.reserve(joinedText.size());
    joinedAlign.insert(joinedAlign.end(), m_align.begin(), m_align.begin() + start);
    joinedAlign.insert(joinedAlign.end(), align.begin(), align.end());
    joinedAlign.insert(joinedAlign.end(), m_align.begin() + end, m_align.end());
    m_text = std::move(joinedText);
    m_align = std::move(joinedAlign);
}

void NormalizedString::prepend(std::u32string_view s)
{
    if (m_text.empty() || s.empty())
        return;
    std::vector<CharChange> changes;
    changes.reserve(s.size() + 1);
    for (std::size_t i = 0; i < s.size(); ++i)
        changes.push_back({s[i], i == 0 ? 0 : 1});
    changes.push_back({m_text.front(), 1});
    transformRange(0, 1, changes, 0);
}

void NormalizedString::replace(const std::vector<PatternMatch> &matches,
                               std::u32string_view content)
{
    // NormalizedString::replace: the content's characters all count as inserted after the
    // replaced ones, so they take the alignment of the last character replaced.
    if (std::none_of(matches.begin(), matches.end(),
                     [](const PatternMatch &m) { return m.isMatch; }))
        return; // nothing replaced: no copy of a long piece
    std::u32string text;
    std::vector<Alignment> align;
    text.reserve(m_text.size());
    align.reserve(m_align.size());
    qsizetype lastEnd = 0;
    for (const PatternMatch &m : matches) {
        if (!m.isMatch)
            continue;
        text.append(m_text, std::size_t(lastEnd), std::size_t(m.start - lastEnd));
        align.insert(align.end(), m_align.begin() + lastEnd, m_align.begin() + m.start);
        const Alignment inserted = m.end < 1 ? Alignment{} : m_align[std::size_t(m.end - 1)];
        for (const char32_t c : content) {
            text.push_back(c);
            align.push_back(inserted);
        }
        lastEnd = m.end;
    }
    text.append(m_text, std::size_t(lastEnd));
    align.insert(align.end(), m_align.begin() + lastEnd, m_align.end());
    m_text = std::move(text);
    m_align = std::move(align);
}

void NormalizedString::strip(bool left, bool right)
{
    // NormalizedString::lrstrip, whitespace as Rust's char::is_whitespace (White_Space).
    const auto isSpace = [](char32_t c) { return QChar::isSpace(c); };
    const qsizetype n = size();
    qsizetype leading = 0;
    while (left && leading < n && isSpace(m_text[std::size_t(leading)]))
        ++leading;
    qsizetype trailing = 0;
    while (right && trailing < n - leading && isSpace(m_text[std::size_t(n - 1 - trailing)]))
        ++trailing;
    if (leading == 0 && trailing == 0)
        return;
    std::vector<CharChange> changes;
    for (qsizetype i = leading; i < n - trailing; ++i)
        changes.push_back({m_text[std::size_t(i)], i == n - trailing - 1 ? -trailing : 0});
    transform(changes, leading);
}

NormalizedString NormalizedString::slice(qsizetype start, qsizetype end) const
{
    NormalizedString out;
    start = std::clamp<qsizetype>(start, 0, size());
    end = std::clamp<qsizetype>(end, start, size());
    // The original range: the first character's start to the last one's end (for an empty
    // slice, the library uses the normalized position itself).
    qsizetype originalStart = start;
    qsizetype originalEnd = start;
    if (end > start) {
        originalStart = m_align[std::size_t(start)].start;
        originalEnd = m_align[std::size_t(end - 1)].end;
    }
    out.m_text = m_text.substr(std::size_t(start), std::size_t(end - start));
    out.m_align.reserve(out.m_text.size());
    for (qsizetype i = start; i < end; ++i) {
        const Alignment a = m_align[std::size_t(i)];
        out.m_align.push_back(alignment(a.start - originalStart, a.end - originalStart));
    }
    out.m_shift = m_shift + originalStart;
    out.m_originalLength = std::max<qsizetype>(0, originalEnd - originalStart);
    return out;
}

void NormalizedString::sliceWhole()
{
    if (m_text.empty()) {
        m_originalLength = 0;
        return;
    }
    const qsizetype originalStart = m_align.front().start;
    const qsizetype originalEnd = m_align.back().end;
    for (Alignment &a : m_align)
        a = alignment(a.start - originalStart, a.end - originalStart);
    m_shift += originalStart;
    m_originalLength = std::max<qsizetype>(0, originalEnd - originalStart);
}

std::vector<NormalizedString> NormalizedString::split(const std::vector<PatternMatch> &matches,
                                                      SplitBehavior behavior) const &
{
    const std::vector<Part> parts = splitParts(matches, behavior);
    std::vector<NormalizedString> out;
    out.reserve(parts.size());
    for (const Part &p : parts)
        if (!p.remove)
            out.push_back(slice(p.start, p.end));
    return out;
}

std::vector<NormalizedString> NormalizedString::split(const std::vector<PatternMatch> &matches,
                                                      SplitBehavior behavior) &&
{
    const std::vector<Part> parts = splitParts(matches, behavior);
    if (parts.size() == 1 && !parts[0].remove && parts[0].start == 0 && parts[0].end == size()) {
        sliceWhole();
        std::vector<NormalizedString> out;
        out.push_back(std::move(*this));
        return out;
    }
    return std::as_const(*this).split(matches, behavior);
}

std::vector<NormalizedString::Part>
NormalizedString::splitParts(const std::vector<PatternMatch> &matches, SplitBehavior behavior) const
{
    // NormalizedString::split: first which spans to keep, then their slices.
    std::vector<Part> parts;
    parts.reserve(matches.size());
    bool previousMatch = false;
    switch (behavior) {
    case SplitBehavior::Isolated:
        for (const PatternMatch &m : matches)
            parts.push_back({m.start, m.end, false});
        break;
    case SplitBehavior::Removed:
        for (const PatternMatch &m : matches)
            parts.push_back({m.start, m.end, m.isMatch});
        break;
    case SplitBehavior::Contiguous:
        for (const PatternMatch &m : matches) {
            if (m.isMatch == previousMatch && !parts.empty())
                parts.back().end = m.end;
            else
                parts.push_back({m.start, m.end, false});
            previousMatch = m.isMatch;
        }
        break;
    case SplitBehavior::MergedWithPrevious:
        for (const PatternMatch &m : matches) {
            if (m.isMatch && !previousMatch && !parts.empty())
                parts.back().end = m.end;
            else
                parts.push_back({m.start, m.end, false});
            previousMatch = m.isMatch;
        }
        break;
    case SplitBehavior::MergedWithNext:
        for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
            if (it->isMatch && !previousMatch && !parts.empty())
                parts.back().start = it->start;
            else
                parts.push_back({it->start, it->end, false});
            previousMatch = it->isMatch;
        }
        std::reverse(parts.begin(), parts.end());
        break;
    }
    return parts;
}

} // namespace pe
