// The "model" of a tokenizer.json: what turns one piece of pre-tokenized text into tokens
// (tokenizers' models/: BPE, WordPiece, Unigram, WordLevel), and the vocabulary they share.
#pragma once

#include "flatindex.h"
#include "jsonreader.h"
#include "pretokenizedstring.h"

#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pe {

class TokenizerModel
{
public:
    virtual ~TokenizerModel() = default;
    // Model::tokenize: the tokens of `piece` appended to `out`, offsets in its characters.
    // false with the reason in `context` (a token the model needs is not in its vocabulary).
    virtual bool tokenize(std::u32string_view piece, std::vector<Token> *out,
                          EncodeContext &context) const = 0;
    virtual std::optional<qint32> tokenToId(std::u32string_view token) const = 0;
    // A null QString when the id has no token.
    virtual QString idToToken(qint32 id) const = 0;
    // get_vocab_size(): the number of entries.
    virtual qint64 vocabularySize() const = 0;
    virtual QString describe() const = 0;
};

// The model at `path` ("model"); nullptr with the problem in `reader`.
std::unique_ptr<TokenizerModel> readModel(const QJsonValue &value, const QString &path,
                                          JsonReader &reader);

struct U32Hash
{
    using is_transparent = void;
    // Not noexcept on purpose: libstdc++'s unordered_map stores each node's hash only when the
    // hasher may throw (or is known to be slow); without the stored hash, every lookup rehashes
    // the keys of the nodes it walks past, which made reading a 151,000-token vocabulary and its
    // merges spend a fifth of its time there.
    std::size_t operator()(std::u32string_view s) const
    {
        return std::hash<std::u32string_view>{}(s);
    }
};
template <class T> using U32Map = std::unordered_map<std::u32string, T, U32Hash, std::equal_to<>>;

// A {"token": id, ...} vocabulary (BPE, WordPiece, WordLevel): ids unique, in [0, 2^31). The
// tokens lie back to back in one string, found by token and by id through two flat indexes.
class Vocabulary
{
public:
    // Reads the object at `path`, from the raw text the reader holds for it when it holds one
    // (a large tokenizer.json's vocabulary is left out of Qt's document); false with the problem
    // in `reader`, or with reader.retryRequested() when the raw text needs Qt's reading.
    bool read(const QJsonValue &value, const QString &path, JsonReader &reader);

    std::optional<qint32> find(std::u32string_view token) const
    {
        const std::optional<std::uint32_t> at = m_byToken.find(
            hashOf(token), [&](std::uint32_t index) { return view(index) == token; });
        return at ? std::optional<qint32>(m_entries[*at].id) : std::nullopt;
    }
    // A null QString when no token has the id.
    QString token(qint32 id) const;
    qint64 size() const { return qint64(m_entries.size()); }
    // visit(token, id) for every entry, in the order read.
    template <class Visit> void forEach(Visit &&visit) const
    {
        for (std::uint32_t i = 0; i < m_entries.size(); ++i)
            visit(view(i), m_entries[i].id);
    }

private:
    struct Entry
    {
        std::size_t begin; // in m_text
        std::uint32_t length;
        qint32 id;
    };
    enum class Added { Yes, SameToken, SameId };

    static std::uint64_t hashOf(std::u32string_view token)
    {
        return std::hash<std::u32string_view>{}(token);
    }
    std::u32string_view view(std::uint32_t index) const
    {
        const Entry &e = m_entries[index];
        return std::u32string_view(m_text).substr(e.begin, e.length);
    }
    // Adds the token m_text holds from `begin` to its end; on a clash the text is taken back
    // and `*other` gets the entry clashing.
    Added addLast(std::size_t begin, qint32 id, std::uint32_t *other);
    void reserve(std::size_t entries, std::size_t characters);
    bool readRaw(std::string_view json, std::size_t capacity, const QString &path,
                 JsonReader &reader);

    std::u32string m_text;
    std::vector<Entry> m_entries;
    FlatIndex m_byToken;
    FlatIndex m_byId;
};

std::unique_ptr<TokenizerModel> readBpeModel(const QJsonObject &object, const QString &path,
                                             JsonReader &reader);
std::unique_ptr<TokenizerModel> readWordPieceModel(const QJsonObject &object, const QString &path,
                                                   JsonReader &reader);
std::unique_ptr<TokenizerModel> readUnigramModel(const QJsonObject &object, const QString &path,
                                                 JsonReader &reader);
std::unique_ptr<TokenizerModel> readWordLevelModel(const QJsonObject &object, const QString &path,
                                                   JsonReader &reader);

} // namespace pe
