// The "model" of a tokenizer.json: what turns one piece of pre-tokenized text into tokens
// (tokenizers' models/: BPE, WordPiece, Unigram, WordLevel), and the vocabulary they share.
#pragma once

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

// A {"token": id, ...} vocabulary (BPE, WordPiece, WordLevel): ids unique, in [0, 2^31).
class Vocabulary
{
public:
    // Reads the object at `path`; false with the problem in `reader`.
    bool read(const QJsonValue &value, const QString &path, JsonReader &reader);

    std::optional<qint32> find(std::u32string_view token) const
    {
        const auto it = m_ids.find(token);
        return it == m_ids.end() ? std::nullopt : std::optional<qint32>(it->second);
    }
    QString token(qint32 id) const
    {
        const auto it = m_tokens.find(id);
        return it == m_tokens.end() ? QString() : it->second;
    }
    qint64 size() const { return qint64(m_ids.size()); }
    const U32Map<qint32> &entries() const { return m_ids; }

private:
    U32Map<qint32> m_ids;
    std::unordered_map<qint32, QString> m_tokens;
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
