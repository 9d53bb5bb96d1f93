// A tokenizer.json's large parts read with simdjson instead of Qt's document: the vocabulary
// and the merges are most of a file (Qwen 3's 11 MB), which QJsonDocument took 6 times their
// size and a third of a load to hold before the model read them one by one. Only this unit
// sees simdjson; anything it does not read as Qt's document would sends the caller back there.
#pragma once

#include "jsonreader.h"

#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace pe {

class LargeJsonValues
{
public:
    struct Found
    {
        QString path;                 // "model.vocab"
        qsizetype begin = 0, end = 0; // the value's bytes in the text given to locate()
        JsonReader::RawValue raw;     // the same bytes in this object's padded copy
    };

    // Finds "model"."vocab" and "model"."merges" in `text` when the model's type reads them:
    // an object of ids (BPE, WordPiece, WordLevel, or no type), an array of scored tokens
    // (Unigram), an array of merges (BPE, or no type). False (nothing found) when the
    // text is not valid JSON or UTF-8 for simdjson: Qt's parser then says what is wrong.
    // `readable`: the bytes readable from text.data() on, when more than text.size() (a buffer
    // with room for simdjson's 64 bytes of padding is read in place, else copied).
    bool locate(QByteArrayView text, qsizetype readable = 0);
    const std::vector<Found> &found() const { return m_found; }

private:
    std::unique_ptr<char[]> m_copy; // the text and simdjson's padding, when it has none
    const char *m_buffer = nullptr; // the text as read
    std::size_t m_capacity = 0;
    std::vector<Found> m_found;
};

namespace rawjson {

// visit(key, id) for each member of the object `value`, keys unescaped (UTF-8), in text order;
// false at the first member whose value is not an unsigned integer written without fraction
// or exponent, at invalid JSON, or when visit returns false.
bool forEachId(const JsonReader::RawValue &value,
               const std::function<bool(std::string_view key, std::uint64_t id)> &visit);

// visit(token, score) for each element of the array `value` (Unigram's [["token", score], ...]),
// tokens unescaped (UTF-8); false at invalid JSON, at an element of another shape, or when visit
// returns false.
bool forEachScoredToken(const JsonReader::RawValue &value,
                        const std::function<bool(std::string_view token, double score)> &visit);

// One element of a merge list: a string ("a b") or an array of two strings, unescaped (UTF-8).
struct Merge
{
    enum Kind { String, Pair } kind = String;
    std::string_view first, second; // String: the whole string in `first`
};
// visit(index, merge) for each element of the array `value`; false at invalid JSON, at an
// element of another shape (Qt's reading names it), or when visit returns false.
bool forEachMerge(const JsonReader::RawValue &value,
                  const std::function<bool(qsizetype index, const Merge &merge)> &visit);

} // namespace rawjson

} // namespace pe
