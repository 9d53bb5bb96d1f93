// A trie over code points, for the searches whose keys are a file's tokens: Unigram's every
// vocabulary token starting at a position, and the added tokens' longest match.
#pragma once

#include "flatindex.h"

#include <QtGlobal>

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace pe {

class CodePointTrie
{
public:
    // `value` for `key`, replacing an earlier one; an empty key is never found.
    void insert(std::u32string_view key, qint32 value)
    {
        if (key.empty())
            return;
        std::uint32_t node = 0;
        for (const char32_t c : key) {
            const std::uint64_t e = edge(node, c);
            const auto index = std::uint32_t(m_edges.size());
            if (const std::optional<std::uint32_t> at = m_index.insert(
                    mixHash(e), index, [&](std::uint32_t i) { return m_edges[i].key == e; })) {
                node = m_edges[*at].child;
            } else {
                node = std::uint32_t(m_values.size());
                m_edges.push_back({e, node});
                m_values.push_back(noValue);
            }
        }
        m_values[node] = value;
        m_empty = false;
    }
    bool empty() const { return m_empty; }

    // f(end, value) for every key that `text` has at `start`, shortest first.
    template <class F> void forEachPrefix(std::u32string_view text, qsizetype start, F f) const
    {
        std::uint32_t node = 0;
        for (qsizetype i = start; i < qsizetype(text.size()); ++i) {
            const std::uint64_t e = edge(node, text[std::size_t(i)]);
            const std::optional<std::uint32_t> at =
                m_index.find(mixHash(e), [&](std::uint32_t j) { return m_edges[j].key == e; });
            if (!at)
                return;
            node = m_edges[*at].child;
            if (const qint32 v = m_values[node]; v != noValue)
                f(i + 1, v);
        }
    }

private:
    static constexpr qint32 noValue = std::numeric_limits<qint32>::min();
    struct Edge
    {
        std::uint64_t key; // edge(parent, code point)
        std::uint32_t child;
    };
    // The parent in the high half, the code point in the low one.
    static std::uint64_t edge(std::uint32_t node, char32_t c)
    {
        return (std::uint64_t(node) << 32) | std::uint64_t(c);
    }
    std::vector<Edge> m_edges;
    FlatIndex m_index;
    std::vector<qint32> m_values{noValue}; // by node; node 0 is the root
    bool m_empty = true;
};

} // namespace pe
