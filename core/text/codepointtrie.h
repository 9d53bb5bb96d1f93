// A trie over code points, for the searches whose keys are a file's tokens: Unigram's every
// vocabulary token starting at a position, and the added tokens' longest match.
#pragma once

#include <QtGlobal>

#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace pe {

class CodePointTrie
{
public:
    // `value` for `key`, replacing an earlier one; an empty key is never found.
    void insert(std::u32string_view key, qint32 value)
    {
        if (key.empty())
            return;
        qint32 node = 0;
        for (const char32_t c : key) {
            const auto [it, added] = m_children.try_emplace(edge(node, c), m_nodes);
            if (added)
                ++m_nodes;
            node = it->second;
        }
        m_values[node] = value;
    }
    bool empty() const { return m_values.empty(); }

    // f(end, value) for every key that `text` has at `start`, shortest first.
    template <class F> void forEachPrefix(std::u32string_view text, qsizetype start, F f) const
    {
        qint32 node = 0;
        for (qsizetype i = start; i < qsizetype(text.size()); ++i) {
            const auto child = m_children.find(edge(node, text[std::size_t(i)]));
            if (child == m_children.end())
                return;
            node = child->second;
            if (const auto v = m_values.find(node); v != m_values.end())
                f(i + 1, v->second);
        }
    }

private:
    // Code points take 21 bits.
    static std::uint64_t edge(qint32 node, char32_t c)
    {
        return (std::uint64_t(std::uint32_t(node)) << 21) | std::uint64_t(c);
    }
    std::unordered_map<std::uint64_t, qint32> m_children;
    std::unordered_map<qint32, qint32> m_values;
    qint32 m_nodes = 1;
};

} // namespace pe
