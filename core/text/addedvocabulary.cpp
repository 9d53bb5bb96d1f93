#include "addedvocabulary.h"

#include "unicodetext.h"

#include <map>

namespace pe {

bool AddedVocabulary::read(const QJsonValue &value, const QString &path, JsonReader &r,
                           const TokenizerModel &model, const Normalizer *normalizer)
{
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isArray())
        return r.fail(path, QStringLiteral("should be a list"));
    const QJsonArray list = value.toArray();
    // AddedVocabulary::add_tokens: numbering starts at the model's size.
    qint32 nextId =
        qint32(std::min<qint64>(model.vocabularySize(), std::numeric_limits<qint32>::max()));
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString at = JsonReader::element(path, i);
        const QJsonObject o = r.component(list[i], at);
        r.id(o.value(QLatin1StringView("id")), JsonReader::child(at, "id"));
        AddedToken token;
        token.content = unicode::toU32(r.requiredString(o, at, "content"));
        token.special = r.boolean(o, at, "special", false);
        token.singleWord = r.boolean(o, at, "single_word", false);
        token.lstrip = r.boolean(o, at, "lstrip", false);
        token.rstrip = r.boolean(o, at, "rstrip", false);
        token.normalized = r.boolean(o, at, "normalized", !token.special);
        if (qsizetype(token.content.size()) > maxTokenLength)
            r.fail(JsonReader::child(at, "content"),
                   QStringLiteral("is %1 characters long (at most %2)")
                       .arg(token.content.size())
                       .arg(maxTokenLength));
        if (!r.ok() || !add(std::move(token), model, normalizer, &nextId, at, r))
            return false;
    }
    buildTries();
    return true;
}

bool AddedVocabulary::add(AddedToken token, const TokenizerModel &model,
                          const Normalizer *normalizer, qint32 *nextId, const QString &path,
                          JsonReader &r)
{
    if (token.content.empty())
        return true; // ignored by the library
    std::optional<qint32> id = tokenToId(token.content);
    if (!id)
        id = model.tokenToId(token.content);
    if (!id) {
        if (*nextId == std::numeric_limits<qint32>::max())
            return r.fail(path, QStringLiteral("too many added tokens"));
        id = (*nextId)++;
    }
    token.id = *id;
    if (token.normalized && normalizer) {
        NormalizedString text(token.content);
        EncodeContext context(qint64(token.content.size()));
        if (!normalizer->normalize(text, context))
            return r.fail(path, context.error);
        if (text.text() != token.content)
            token.normalizedContent = text.text();
    }
    // Keyed by id, as added_tokens_map_r: a content given again replaces the earlier entry.
    if (const auto it = m_byId.find(token.id); it != m_byId.end()) {
        m_tokens[std::size_t(it->second)] = token;
    } else {
        m_byId.emplace(token.id, qsizetype(m_tokens.size()));
        m_tokens.push_back(token);
    }
    m_byContent[token.content] = m_byId.at(token.id);
    if (token.special)
        m_specialContents[token.content] = true;
    return true;
}

void AddedVocabulary::buildTries()
{
    for (qsizetype i = 0; i < qsizetype(m_tokens.size()); ++i) {
        const AddedToken &t = m_tokens[std::size_t(i)];
        if (t.normalized)
            m_normalizedTrie.insert(t.normalizedContent.empty() ? t.content : t.normalizedContent,
                                    qint32(i));
        else
            m_originalTrie.insert(t.content, qint32(i));
    }
}

std::vector<AddedVocabulary::Found> AddedVocabulary::findMatches(std::u32string_view sentence,
                                                                 const Trie &trie) const
{
    // AddedVocabulary::find_matches.
    const qsizetype n = qsizetype(sentence.size());
    if (n == 0 || trie.empty())
        return {{0, n, -1}};
    std::vector<Found> out;
    qsizetype startOffset = 0;
    qsizetype pos = 0;
    while (pos < n) {
        qsizetype end = -1;
        qint32 index = -1;
        trie.forEachPrefix(sentence, pos, [&](qsizetype e, qint32 token) {
            end = e;
            index = token;
        });
        if (end < 0) {
            ++pos;
            continue;
        }
        const AddedToken &token = m_tokens[std::size_t(index)];
        qsizetype start = pos;
        qsizetype stop = end;
        pos = end; // the automaton goes on after the match, whatever is done with it
        if (token.singleWord) {
            const bool spaceBefore =
                start == 0 || !unicode::isWordCharacter(sentence[std::size_t(start - 1)]);
            const bool spaceAfter =
                stop == n || !unicode::isWordCharacter(sentence[std::size_t(stop)]);
            if (!spaceBefore || !spaceAfter)
                continue;
        }
        if (token.lstrip) {
            qsizetype newStart = start;
            while (newStart > 0 && unicode::isWhitespace(sentence[std::size_t(newStart - 1)]))
                --newStart;
            start = std::max(newStart, startOffset);
        }
        if (token.rstrip)
            while (stop < n && unicode::isWhitespace(sentence[std::size_t(stop)]))
                ++stop;
        if (startOffset < start)
            out.push_back({startOffset, start, -1});
        out.push_back({start, stop, index});
        startOffset = stop;
    }
    if (startOffset != n)
        out.push_back({startOffset, n, -1});
    return out;
}

void AddedVocabulary::splitWithIndices(NormalizedString text, const Trie &trie,
                                       std::vector<TextSplit> *out) const
{
    const std::vector<Found> found = findMatches(text.text(), trie);
    if (found.size() == 1 && found[0].token < 0 && found[0].start == 0 &&
        found[0].end == text.size()) {
        // No added token in it: the piece itself, not a copy (a long text is one such piece).
        text.sliceWhole();
        out->push_back({std::move(text), {}});
        return;
    }
    for (const Found &f : found) {
        NormalizedString slice = text.slice(f.start, f.end);
        if (f.token < 0) {
            out->push_back({std::move(slice), {}});
            continue;
        }
        // The token's value is the text it covers (spaces it stripped included).
        std::vector<Token> tokens{
            {m_tokens[std::size_t(f.token)].id, 0, slice.size(), unicode::fromU32(slice.text())}};
        out->push_back({std::move(slice), std::move(tokens)});
    }
}

bool AddedVocabulary::extractAndNormalize(const Normalizer *normalizer, NormalizedString text,
                                          PreTokenizedString *out, EncodeContext &context) const
{
    *out = PreTokenizedString(std::move(text));
    const bool original =
        out->splitWithTokens([&](NormalizedString piece, std::vector<TextSplit> *parts) {
            splitWithIndices(std::move(piece), m_originalTrie, parts);
            return true;
        });
    return original &&
           out->splitWithTokens([&](NormalizedString piece, std::vector<TextSplit> *parts) {
               if (normalizer && !normalizer->normalize(piece, context))
                   return false;
               splitWithIndices(std::move(piece), m_normalizedTrie, parts);
               return true;
           });
}

std::optional<qint32> AddedVocabulary::tokenToId(std::u32string_view content) const
{
    const auto it = m_byContent.find(content);
    if (it == m_byContent.end())
        return std::nullopt;
    return m_tokens[std::size_t(it->second)].id;
}

const AddedToken *AddedVocabulary::tokenOfId(qint32 id) const
{
    const auto it = m_byId.find(id);
    return it == m_byId.end() ? nullptr : &m_tokens[std::size_t(it->second)];
}

bool AddedVocabulary::isSpecialContent(std::u32string_view text) const
{
    return m_specialContents.find(text) != m_specialContents.end();
}

qint64 AddedVocabulary::countNotIn(const TokenizerModel &model) const
{
    qint64 n = 0;
    for (const auto &[content, index] : m_byContent)
        if (!model.tokenToId(content))
            ++n;
    return n;
}

} // namespace pe
