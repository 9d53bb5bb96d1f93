// The "added_tokens" of a tokenizer.json (tokenizers' AddedVocabulary,
// tokenizer/added_vocabulary.rs): tokens found in the text before anything else, special ones
// ([CLS], <|endoftext|>) and others. Those marked normalized=false are searched in the
// original text, the others in the normalized pieces between them.
#pragma once

#include "codepointtrie.h"
#include "normalizer.h"
#include "pretokenizedstring.h"
#include "tokenizermodel.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace pe {

struct AddedToken
{
    std::u32string content;
    qint32 id = 0;
    bool singleWord = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = true;
    bool special = false;
    // The content as the normalizer makes it, when it differs (what the normalized pieces are
    // searched for, and what decoding shows).
    std::u32string normalizedContent;
};

class AddedVocabulary
{
public:
    // Longer contents are refused: the search costs the text's length times this at most.
    static constexpr qsizetype maxTokenLength = 1024;

    // Reads the list at `path`. Ids are given as the library gives them: a content the model
    // has keeps the model's id, the others are numbered from the model's size on (the file's
    // "id" is only checked to be a number).
    bool read(const QJsonValue &value, const QString &path, JsonReader &reader,
              const TokenizerModel &model, const Normalizer *normalizer);

    // extract_and_normalize: the added tokens of the original text as finished pieces, the
    // normalizer applied to the text between them, and the normalized added tokens found there.
    bool extractAndNormalize(const Normalizer *normalizer, NormalizedString text,
                             PreTokenizedString *out, EncodeContext &context) const;

    std::optional<qint32> tokenToId(std::u32string_view content) const;
    const AddedToken *tokenOfId(qint32 id) const;
    // Whether a token's text is the content of a special added token (is_special_token, which
    // decoding uses to leave special tokens out).
    bool isSpecialContent(std::u32string_view text) const;
    qsizetype size() const { return qsizetype(m_tokens.size()); }
    // Added tokens that are not also tokens of the model.
    qint64 countNotIn(const TokenizerModel &model) const;

private:
    // The contents to search for, to indexes in m_tokens. Searched leftmost-longest, as the
    // library's Aho-Corasick automaton with MatchKind::LeftmostLongest finds them.
    using Trie = CodePointTrie;
    struct Found
    {
        qsizetype start;
        qsizetype end;
        qint32 token; // -1 for text between added tokens
    };
    std::vector<Found> findMatches(std::u32string_view sentence, const Trie &trie) const;
    void splitWithIndices(NormalizedString text, const Trie &trie,
                          std::vector<TextSplit> *out) const;
    bool add(AddedToken token, const TokenizerModel &model, const Normalizer *normalizer,
             qint32 *nextId, const QString &path, JsonReader &reader);
    void buildTries();

    std::vector<AddedToken> m_tokens;
    U32Map<qsizetype> m_byContent;
    U32Map<bool> m_specialContents;
    std::unordered_map<qint32, qsizetype> m_byId;
    Trie m_originalTrie;
    Trie m_normalizedTrie;
};

} // namespace pe
