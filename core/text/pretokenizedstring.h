// Text split into pieces on its way to the model (tokenizers' PreTokenizedString,
// tokenizer/pre_tokenizer.rs): each piece a NormalizedString, some already tokens (the added
// tokens found first). Pre-tokenizers split the pieces further; the model turns each remaining
// piece into tokens.
#pragma once

#include "encodecontext.h"
#include "normalizedstring.h"

#include <QString>

#include <optional>
#include <vector>

namespace pe {

// A token a model made from a piece, offsets in the piece's normalized characters.
struct Token
{
    qint32 id = 0;
    qsizetype start = 0;
    qsizetype end = 0;
    // The token's text when it is not the vocabulary's string for `id` (a fused unknown
    // piece, an added token with the spaces it absorbed); null otherwise.
    QString value;
};

struct TextSplit
{
    NormalizedString text;
    std::optional<std::vector<Token>> tokens;
};

class PreTokenizedString
{
public:
    explicit PreTokenizedString(NormalizedString text)
    {
        m_splits.push_back({std::move(text), {}});
    }

    std::vector<TextSplit> &splits() { return m_splits; }
    const std::vector<TextSplit> &splits() const { return m_splits; }

    // PreTokenizedString::split: `f(piece, &parts)` for every piece without tokens; empty parts
    // are dropped. false when `f` fails (its reason in the context).
    template <class F> bool split(F f);
    // The same, `f` giving finished pieces too (TextSplit with tokens), as the added tokens do.
    template <class F> bool splitWithTokens(F f);
    // PreTokenizedString::normalize: `f(piece)` for every piece without tokens.
    template <class F> bool normalize(F f);

private:
    std::vector<TextSplit> m_splits;
};

template <class F> bool PreTokenizedString::splitWithTokens(F f)
{
    std::vector<TextSplit> out;
    out.reserve(m_splits.size());
    std::vector<TextSplit> parts;
    for (TextSplit &s : m_splits) {
        if (s.tokens) {
            out.push_back(std::move(s));
            continue;
        }
        parts.clear();
        if (!f(std::move(s.text), &parts))
            return false;
        for (TextSplit &p : parts)
            if (!p.text.isEmpty())
                out.push_back(std::move(p));
    }
    m_splits = std::move(out);
    return true;
}

template <class F> bool PreTokenizedString::split(F f)
{
    std::vector<NormalizedString> parts;
    return splitWithTokens([&](NormalizedString piece, std::vector<TextSplit> *out) {
        parts.clear();
        if (!f(std::move(piece), &parts))
            return false;
        for (NormalizedString &p : parts)
            out->push_back({std::move(p), {}});
        return true;
    });
}

template <class F> bool PreTokenizedString::normalize(F f)
{
    for (TextSplit &s : m_splits)
        if (!s.tokens && !f(s.text))
            return false;
    return true;
}

} // namespace pe
