// models/bpe (model.rs, word.rs): byte-pair encoding. Each character of a piece becomes a
// symbol (or its UTF-8 bytes as <0xNN> tokens, or the unknown token); then the adjacent pair
// with the lowest merge rank is merged until no pair has a merge.
#include "tokenizermodel.h"

#include "largejsonvalues.h"
#include "unicodetext.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <queue>

namespace pe {

namespace {

struct Symbol
{
    qint32 id;
    qsizetype prev;
    qsizetype next;
    // UTF-8 bytes of the piece it covers, as the library counts them (one per <0xNN> token).
    qsizetype bytes;
    bool removed = false;
};

struct MergeCandidate
{
    qsizetype pos;
    qint32 rank;
    qint32 newId;
};

// Word::merge_all's heap: the lowest rank first, then the leftmost position.
struct LaterMerge
{
    bool operator()(const MergeCandidate &a, const MergeCandidate &b) const
    {
        return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    }
};

std::uint64_t pairKey(qint32 a, qint32 b)
{
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
}

struct Merge
{
    std::uint64_t pair; // pairKey(left id, right id)
    qint32 rank;
    qint32 newId;
};

// The merges by pair, in one vector with a flat index (a model has 100,000s).
class MergeTable
{
public:
    void reserve(std::size_t count)
    {
        m_merges.reserve(count);
        m_index.reserve(count);
    }
    const Merge *find(std::uint64_t pair) const
    {
        const std::optional<std::uint32_t> at =
            m_index.find(mixHash(pair), [&](std::uint32_t i) { return m_merges[i].pair == pair; });
        return at ? &m_merges[*at] : nullptr;
    }
    // A pair listed twice keeps its last rank.
    void set(std::uint64_t pair, qint32 rank, qint32 newId)
    {
        const auto index = std::uint32_t(m_merges.size());
        if (const std::optional<std::uint32_t> at = m_index.insert(
                mixHash(pair), index, [&](std::uint32_t i) { return m_merges[i].pair == pair; })) {
            m_merges[*at] = {pair, rank, newId};
            return;
        }
        m_merges.push_back({pair, rank, newId});
    }

private:
    std::vector<Merge> m_merges;
    FlatIndex m_index;
};

class BpeModel : public TokenizerModel
{
public:
    Vocabulary vocab;
    MergeTable merges;
    std::optional<std::u32string> unkToken;
    std::u32string continuingSubwordPrefix;
    std::u32string endOfWordSuffix;
    bool fuseUnk = false;
    bool byteFallback = false;
    bool ignoreMerges = false;
    std::array<qint32, 256> byteIds{}; // <0xNN> tokens, -1 when missing
    // The ids of one-character tokens, alone and after the continuing-subword prefix: what
    // every character of every piece is looked up as first.
    std::unordered_map<char32_t, qint32> charIds;
    std::unordered_map<char32_t, qint32> continuingCharIds;

    void indexCharacters();

    bool tokenize(std::u32string_view piece, std::vector<Token> *out,
                  EncodeContext &context) const override;
    std::optional<qint32> tokenToId(std::u32string_view token) const override
    {
        return vocab.find(token);
    }
    QString idToToken(qint32 id) const override { return vocab.token(id); }
    qint64 vocabularySize() const override { return vocab.size(); }
    QString describe() const override
    {
        return byteFallback ? QStringLiteral("BPE with byte fallback") : QStringLiteral("BPE");
    }

    bool readMerges(const QJsonArray &list, const QString &path, JsonReader &r);
    bool readRawMerges(const JsonReader::RawValue &raw, JsonReader &r);
    // One merge of BpeBuilder::build; false when a part or the merged token is not a token.
    bool addMerge(qint32 rank, std::u32string_view left, std::u32string_view right,
                  std::u32string &merged);

private:
    // vocab.find(s) for s, the character c with the prefix and suffix its place gives it.
    std::optional<qint32> findCharacter(char32_t c, bool continuing, bool last,
                                        const std::u32string &s) const
    {
        if (last && !endOfWordSuffix.empty())
            return vocab.find(s);
        const auto &ids =
            continuing && !continuingSubwordPrefix.empty() ? continuingCharIds : charIds;
        const auto it = ids.find(c);
        return it == ids.end() ? std::nullopt : std::optional<qint32>(it->second);
    }
    bool initialSymbols(std::u32string_view piece, std::vector<Symbol> *symbols,
                        EncodeContext &context) const;
    void mergeAll(std::vector<Symbol> &symbols) const;
};

void BpeModel::indexCharacters()
{
    const std::size_t prefix = continuingSubwordPrefix.size();
    vocab.forEach([&](std::u32string_view token, qint32 id) {
        if (token.size() == 1)
            charIds.emplace(token.front(), id);
        if (prefix > 0 && token.size() == prefix + 1 &&
            token.compare(0, prefix, continuingSubwordPrefix) == 0)
            continuingCharIds.emplace(token.back(), id);
    });
}

bool BpeModel::initialSymbols(std::u32string_view piece, std::vector<Symbol> *symbols,
                              EncodeContext &context) const
{
    // BPE::merge_word, before the merges.
    const qsizetype n = qsizetype(piece.size());
    // The unknown token being built (fused over consecutive unknown characters).
    bool pending = false;
    Symbol unk{};
    const auto add = [&](qint32 id, qsizetype bytes) {
        const qsizetype index = qsizetype(symbols->size());
        if (!symbols->empty())
            symbols->back().next = index;
        symbols->push_back({id, index - 1, -1, bytes});
    };
    std::u32string s;
    for (qsizetype i = 0; i < n; ++i) {
        const char32_t c = piece[std::size_t(i)];
        const qsizetype charBytes = unicode::utf8Length(c);
        s.assign(1, c);
        if (i > 0)
            s.insert(0, continuingSubwordPrefix);
        if (i == n - 1)
            s.append(endOfWordSuffix);
        if (const std::optional<qint32> id = findCharacter(c, i > 0, i == n - 1, s)) {
            if (pending) {
                add(unk.id, unk.bytes);
                pending = false;
            }
            add(*id, charBytes);
            continue;
        }
        if (byteFallback) {
            // As the library does, a pending unknown token stays pending here.
            const QByteArray bytes = unicode::fromU32(s).toUtf8();
            const bool all = std::all_of(bytes.begin(), bytes.end(), [&](char b) {
                return byteIds[static_cast<unsigned char>(b)] >= 0;
            });
            if (all) {
                for (const char b : bytes)
                    add(byteIds[static_cast<unsigned char>(b)], 1);
                continue;
            }
        }
        if (!unkToken)
            continue; // the library drops the character
        if (pending && fuseUnk) {
            unk.bytes += charBytes;
            continue;
        }
        if (pending)
            add(unk.id, unk.bytes);
        const std::optional<qint32> unkId = vocab.find(*unkToken);
        if (!unkId)
            return context.fail(QStringLiteral("the unknown token \"%1\" of the BPE model is not "
                                               "in its vocabulary")
                                    .arg(unicode::fromU32(*unkToken)));
        unk = Symbol{*unkId, 0, 0, charBytes};
        pending = true;
    }
    if (pending)
        add(unk.id, unk.bytes);
    return true;
}

void BpeModel::mergeAll(std::vector<Symbol> &symbols) const
{
    // Word::merge_all without dropout.
    std::priority_queue<MergeCandidate, std::vector<MergeCandidate>, LaterMerge> queue;
    const auto mergeOf = [&](qint32 a, qint32 b) { return merges.find(pairKey(a, b)); };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
        if (const auto *m = mergeOf(symbols[i].id, symbols[i + 1].id))
            queue.push({qsizetype(i), m->rank, m->newId});
    while (!queue.empty()) {
        const MergeCandidate top = queue.top();
        queue.pop();
        Symbol &left = symbols[std::size_t(top.pos)];
        if (left.removed || left.next == -1)
            continue;
        const Symbol right = symbols[std::size_t(left.next)];
        // An entry made stale by an earlier merge.
        const auto *current = mergeOf(left.id, right.id);
        if (!current || current->newId != top.newId)
            continue;
        const qsizetype rightPos = left.next;
        left.id = top.newId;
        left.bytes += right.bytes;
        left.next = right.next;
        symbols[std::size_t(rightPos)].removed = true;
        if (right.next > -1 && right.next < qsizetype(symbols.size()))
            symbols[std::size_t(right.next)].prev = top.pos;
        if (left.prev >= 0)
            if (const auto *m = mergeOf(symbols[std::size_t(left.prev)].id, left.id))
                queue.push({left.prev, m->rank, m->newId});
        if (left.next >= 0 && left.next < qsizetype(symbols.size()))
            if (const auto *m = mergeOf(left.id, symbols[std::size_t(left.next)].id))
                queue.push({top.pos, m->rank, m->newId});
    }
}

bool BpeModel::tokenize(std::u32string_view piece, std::vector<Token> *out,
                        EncodeContext &context) const
{
    if (piece.empty())
        return true;
    if (ignoreMerges)
        if (const std::optional<qint32> id = vocab.find(piece)) {
            out->push_back({*id, 0, qsizetype(piece.size()), {}});
            return true;
        }
    std::vector<Symbol> symbols;
    symbols.reserve(piece.size());
    if (!initialSymbols(piece, &symbols, context))
        return false;
    mergeAll(symbols);
    // Word::get_offsets_iter counts bytes; a byte range maps to the characters holding its
    // first and last byte, as the library's alignments (one per byte) do.
    std::vector<qsizetype> charStarts; // byte offset of each character
    charStarts.reserve(piece.size());
    qsizetype totalBytes = 0;
    for (const char32_t c : piece) {
        charStarts.push_back(totalBytes);
        totalBytes += unicode::utf8Length(c);
    }
    const auto charAt = [&](qsizetype byte) {
        return qsizetype(std::upper_bound(charStarts.begin(), charStarts.end(), byte) -
                         charStarts.begin()) -
               1;
    };
    const qsizetype n = qsizetype(piece.size());
    qsizetype position = 0;
    for (const Symbol &s : symbols) {
        if (s.removed)
            continue;
        const qsizetype start = std::min(position, totalBytes);
        const qsizetype end = std::min(position + s.bytes, totalBytes);
        out->push_back({s.id,
                        start >= totalBytes ? n : charAt(start),
                        end <= start ? std::min(n, charAt(start) + 1) : charAt(end - 1) + 1,
                        {}});
        position += s.bytes;
    }
    return true;
}

// A merge's two parts: "a b" (the legacy form, exactly one space) or ["a", "b"].
bool mergeParts(const QJsonValue &value, QString *a, QString *b)
{
    if (value.isString()) {
        const QStringList parts = value.toString().split(QLatin1Char(' '));
        if (parts.size() != 2)
            return false;
        *a = parts[0];
        *b = parts[1];
        return true;
    }
    const QJsonArray pair = value.toArray();
    if (!value.isArray() || pair.size() != 2 || !pair[0].isString() || !pair[1].isString())
        return false;
    *a = pair[0].toString();
    *b = pair[1].toString();
    return true;
}

bool BpeModel::addMerge(qint32 rank, std::u32string_view left, std::u32string_view right,
                        std::u32string &merged)
{
    const std::optional<qint32> leftId = vocab.find(left);
    const std::optional<qint32> rightId = vocab.find(right);
    if (!leftId || !rightId || right.size() < continuingSubwordPrefix.size())
        return false;
    merged.assign(left);
    merged.append(right.substr(continuingSubwordPrefix.size()));
    const std::optional<qint32> mergedId = vocab.find(merged);
    if (!mergedId)
        return false;
    merges.set(pairKey(*leftId, *rightId), rank, *mergedId);
    return true;
}

bool BpeModel::readRawMerges(const JsonReader::RawValue &raw, JsonReader &r)
{
    merges.reserve(std::size_t(vocab.size()));
    std::u32string left;
    std::u32string right;
    std::u32string merged;
    const bool read = rawjson::forEachMerge(raw, [&](qsizetype rank, const rawjson::Merge &m) {
        if (rank > std::numeric_limits<qint32>::max())
            return false;
        left.clear();
        right.clear();
        if (m.kind == rawjson::Merge::String) {
            // "left right", exactly one space (mergeParts)
            const std::size_t space = m.first.find(' ');
            if (space == std::string_view::npos ||
                m.first.find(' ', space + 1) != std::string_view::npos)
                return false;
            unicode::appendCodePoints(left, m.first.substr(0, space));
            unicode::appendCodePoints(right, m.first.substr(space + 1));
        } else {
            unicode::appendCodePoints(left, m.first);
            unicode::appendCodePoints(right, m.second);
        }
        return addMerge(qint32(rank), left, right, merged);
    });
    // A merge this cannot take is named by Qt's reading of the document.
    return read || r.requestRetry();
}

bool BpeModel::readMerges(const QJsonArray &list, const QString &path, JsonReader &r)
{
    // BpeBuilder::build: both parts and their concatenation (the right part without the
    // continuing-subword prefix) must be tokens; a pair listed twice keeps its last rank.
    if (const JsonReader::RawValue *raw = r.raw(path))
        return readRawMerges(*raw, r);
    merges.reserve(std::size_t(list.size()));
    QString a;
    QString b;
    for (qsizetype rank = 0; rank < list.size(); ++rank) {
        // The merge's path is made only for a message: there are 100,000s of merges.
        const auto at = [&] { return JsonReader::element(path, rank); };
        if (!mergeParts(list[rank], &a, &b))
            return r.fail(at(),
                          QStringLiteral("should be \"left right\" or [\"left\", \"right\"]"));
        const std::u32string left = unicode::toU32(a);
        std::u32string right = unicode::toU32(b);
        const std::optional<qint32> leftId = vocab.find(left);
        const std::optional<qint32> rightId = vocab.find(right);
        if (!leftId || !rightId)
            return r.fail(at(), QStringLiteral("the merge names \"%1\", which is not in the "
                                               "vocabulary")
                                    .arg(leftId ? b : a));
        if (!continuingSubwordPrefix.empty()) {
            // The library cuts the prefix's length off the right part, whatever it starts with.
            if (right.size() < continuingSubwordPrefix.size())
                return r.fail(at(), QStringLiteral("\"%1\" is shorter than the continuing-subword "
                                                   "prefix")
                                        .arg(b));
            right.erase(0, continuingSubwordPrefix.size());
        }
        const std::optional<qint32> merged = vocab.find(left + right);
        if (!merged)
            return r.fail(at(), QStringLiteral("the merged token \"%1\" is not in the vocabulary")
                                    .arg(unicode::fromU32(left + right)));
        merges.set(pairKey(*leftId, *rightId), qint32(rank), *merged);
    }
    return true;
}

} // namespace

std::unique_ptr<TokenizerModel> readBpeModel(const QJsonObject &o, const QString &path,
                                             JsonReader &r)
{
    auto model = std::make_unique<BpeModel>();
    if (!model->vocab.read(o.value(QLatin1StringView("vocab")), JsonReader::child(path, "vocab"),
                           r))
        return nullptr;
    const QJsonValue dropout = o.value(QLatin1StringView("dropout"));
    if (!dropout.isNull() && !dropout.isUndefined() && dropout.toDouble(-1) != 0.0) {
        r.fail(JsonReader::child(path, "dropout"),
               QStringLiteral("BPE dropout (%1) makes the library's tokenization random; only "
                              "files without dropout are read")
                   .arg(dropout.toVariant().toString()));
        return nullptr;
    }
    if (o.value(QLatin1StringView("unk_token")).isString())
        model->unkToken = unicode::toU32(r.string(o, path, "unk_token"));
    else
        r.string(o, path, "unk_token"); // reports a wrong type
    model->continuingSubwordPrefix = unicode::toU32(r.string(o, path, "continuing_subword_prefix"));
    model->endOfWordSuffix = unicode::toU32(r.string(o, path, "end_of_word_suffix"));
    model->fuseUnk = r.boolean(o, path, "fuse_unk", false);
    model->byteFallback = r.boolean(o, path, "byte_fallback", false);
    model->ignoreMerges = r.boolean(o, path, "ignore_merges", false);
    for (int b = 0; b < 256; ++b) {
        // format!("<{b:#04X}>"): "<0x" and two upper-case hex digits.
        const QString name = QStringLiteral("<0x%1>").arg(
            QString::number(b, 16).toUpper().rightJustified(2, QLatin1Char('0')));
        const std::optional<qint32> id = model->vocab.find(unicode::toU32(name));
        model->byteIds[std::size_t(b)] = id.value_or(-1);
    }
    const QJsonArray mergeList = r.requiredArray(o, path, "merges");
    if (!r.ok() || !model->readMerges(mergeList, JsonReader::child(path, "merges"), r))
        return nullptr;
    model->indexCharacters();
    return model;
}

} // namespace pe
