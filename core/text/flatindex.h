// An open-addressing hash index over entries that its owner keeps in a vector: a vocabulary's
// 100,000s of tokens and merges found without an allocation or a pointer chase per entry
// (node-based maps made most of the time of reading Qwen 3's tokenizer.json).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace pe {

// Mixes a 64-bit key into a hash (splitmix64's finalizer): ids and id pairs are small integers
// whose low bits alone would crowd a power-of-two table.
constexpr std::uint64_t mixHash(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

class FlatIndex
{
public:
    // Room for `count` entries without growing.
    void reserve(std::size_t count)
    {
        std::size_t capacity = 16;
        while (capacity < 2 * count)
            capacity *= 2;
        if (capacity > m_slots.size())
            rehash(capacity);
    }

    // The index of the entry with this hash for which same(index) holds, if any.
    template <class Same> std::optional<std::uint32_t> find(std::uint64_t hash, Same &&same) const
    {
        if (m_slots.empty())
            return std::nullopt;
        const std::uint32_t tag = fold(hash);
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t at = tag & mask;; at = (at + 1) & mask) {
            const Slot &slot = m_slots[at];
            if (slot.indexPlusOne == 0)
                return std::nullopt;
            if (slot.tag == tag && same(slot.indexPlusOne - 1))
                return slot.indexPlusOne - 1;
        }
    }

    // Adds entry `index` unless an entry for which same(existing) holds is there already: then
    // that entry's index, and nothing is added.
    template <class Same>
    std::optional<std::uint32_t> insert(std::uint64_t hash, std::uint32_t index, Same &&same)
    {
        if (2 * (m_size + 1) > m_slots.size())
            rehash(m_slots.empty() ? 16 : 2 * m_slots.size());
        const std::uint32_t tag = fold(hash);
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t at = tag & mask;; at = (at + 1) & mask) {
            Slot &slot = m_slots[at];
            if (slot.indexPlusOne == 0) {
                slot = {tag, index + 1};
                ++m_size;
                return std::nullopt;
            }
            if (slot.tag == tag && same(slot.indexPlusOne - 1))
                return slot.indexPlusOne - 1;
        }
    }

    // Adds entry `index`, or points the slot of the entry for which same(existing) holds at it
    // instead (a token listed twice keeps its last index).
    template <class Same> void assign(std::uint64_t hash, std::uint32_t index, Same &&same)
    {
        if (2 * (m_size + 1) > m_slots.size())
            rehash(m_slots.empty() ? 16 : 2 * m_slots.size());
        const std::uint32_t tag = fold(hash);
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t at = tag & mask;; at = (at + 1) & mask) {
            Slot &slot = m_slots[at];
            if (slot.indexPlusOne == 0) {
                slot = {tag, index + 1};
                ++m_size;
                return;
            }
            if (slot.tag == tag && same(slot.indexPlusOne - 1)) {
                slot.indexPlusOne = index + 1;
                return;
            }
        }
    }

private:
    struct Slot
    {
        std::uint32_t tag = 0;          // the hash folded to 32 bits; it places the slot too
        std::uint32_t indexPlusOne = 0; // 0: empty
    };

    static std::uint32_t fold(std::uint64_t hash) { return std::uint32_t(hash ^ (hash >> 32)); }

    void rehash(std::size_t capacity)
    {
        std::vector<Slot> old(capacity);
        old.swap(m_slots);
        const std::size_t mask = capacity - 1;
        for (const Slot &slot : old) {
            if (slot.indexPlusOne == 0)
                continue;
            std::size_t at = slot.tag & mask;
            while (m_slots[at].indexPlusOne != 0)
                at = (at + 1) & mask;
            m_slots[at] = slot;
        }
    }

    std::vector<Slot> m_slots; // a power of two, at most half full
    std::size_t m_size = 0;
};

} // namespace pe
