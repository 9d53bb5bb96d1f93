// models/unigram (model.rs encode_optimized): the segmentation of a piece whose tokens' scores
// (log probabilities) sum highest, found by Viterbi over every vocabulary token that starts at
// each character; a character no token covers is unknown, scored 10 below the lowest score,
// and adjacent unknown characters are fused into one token.
#include "tokenizermodel.h"

#include "codepointtrie.h"
#include "flatindex.h"
#include "largejsonvalues.h"
#include "unicodetext.h"

#include <array>
#include <cstdint>
#include <limits>

namespace pe {

namespace {

class UnigramModel : public TokenizerModel
{
public:
    std::vector<std::pair<std::u32string, double>> pieces;
    std::vector<QString> texts; // the pieces as QString, for the tokens of each encoding
    FlatIndex ids; // pieces by token; a token listed twice keeps its last index (token_to_ids)
    std::optional<qint32> unkId;
    bool byteFallback = false;
    double minScore = std::numeric_limits<double>::infinity();

    void buildTrie();
    bool tokenize(std::u32string_view piece, std::vector<Token> *out,
                  EncodeContext &context) const override;
    std::optional<qint32> tokenToId(std::u32string_view token) const override
    {
        const std::optional<std::uint32_t> at =
            ids.find(hashOf(token), [&](std::uint32_t i) { return pieces[i].first == token; });
        return at ? std::optional<qint32>(qint32(*at)) : std::nullopt;
    }
    static std::uint64_t hashOf(std::u32string_view token)
    {
        return std::hash<std::u32string_view>{}(token);
    }
    void add(std::u32string token, double score)
    {
        const auto index = std::uint32_t(pieces.size());
        const std::uint64_t hash = hashOf(token);
        pieces.emplace_back(std::move(token), score);
        const std::u32string &added = pieces.back().first;
        ids.assign(hash, index, [&](std::uint32_t i) { return pieces[i].first == added; });
        minScore = std::min(minScore, score);
    }
    QString idToToken(qint32 id) const override
    {
        return id >= 0 && std::size_t(id) < texts.size() ? texts[std::size_t(id)] : QString();
    }
    qint64 vocabularySize() const override { return qint64(pieces.size()); }
    QString describe() const override { return QStringLiteral("Unigram"); }

private:
    static constexpr double unknownPenalty = 10.0; // K_UNK_PENALTY
    CodePointTrie m_tokens; // token -> its index (the last, for a token listed twice)

    // 16 bytes a character of the piece (a piece is at most EncodeContext's maxLength, far
    // below 2^31 characters): a 16 Mi-character piece needs 256 MiB here.
    struct BestPath
    {
        double score = 0;
        qint32 id = 0;
        qint32 startsAt = -1;
    };
    bool viterbi(std::u32string_view piece, std::vector<BestPath> *best,
                 EncodeContext &context) const;
    bool emitPiece(std::u32string_view text, qsizetype start, qsizetype end,
                   std::vector<Token> *out, EncodeContext &context) const;
};

void UnigramModel::buildTrie()
{
    texts.reserve(pieces.size());
    for (const auto &[token, score] : pieces) {
        m_tokens.insert(token, *tokenToId(token));
        texts.push_back(unicode::fromU32(token));
    }
}

bool UnigramModel::viterbi(std::u32string_view piece, std::vector<BestPath> *best,
                           EncodeContext &context) const
{
    const qsizetype n = qsizetype(piece.size());
    const double unknownScore = minScore - unknownPenalty;
    best->assign(std::size_t(n) + 1, BestPath{});
    const auto offer = [&](qsizetype end, qsizetype start, double score, qint32 id) {
        BestPath &target = (*best)[std::size_t(end)];
        if (target.startsAt < 0 || score > target.score)
            target = {score, id, qint32(start)};
    };
    for (qsizetype start = 0; start < n; ++start) {
        const double here = (*best)[std::size_t(start)].score;
        bool singleCharacter = false;
        m_tokens.forEachPrefix(piece, start, [&](qsizetype end, qint32 token) {
            offer(end, start, pieces[std::size_t(token)].second + here, token);
            singleCharacter = singleCharacter || end == start + 1;
        });
        if (!singleCharacter) {
            BestPath &target = (*best)[std::size_t(start) + 1];
            if (target.startsAt < 0 || unknownScore + here > target.score) {
                if (!unkId)
                    return context.fail(QStringLiteral("the Unigram model meets a character it "
                                                       "has no token for and has no unk_id"));
                target = {unknownScore + here, *unkId, qint32(start)};
            }
        }
    }
    return true;
}

bool UnigramModel::emitPiece(std::u32string_view text, qsizetype start, qsizetype end,
                             std::vector<Token> *out, EncodeContext &context) const
{
    // Unigram::tokenize: a piece that is a token keeps its id; another (fused unknown
    // characters) becomes <0xNN> tokens when every byte has one, else the unknown token.
    const std::u32string_view piece = text.substr(std::size_t(start), std::size_t(end - start));
    if (const std::optional<qint32> id = tokenToId(piece)) {
        out->push_back({*id, start, end, {}});
        return true;
    }
    if (byteFallback) {
        const QByteArray bytes = unicode::fromU32(piece).toUtf8();
        std::vector<Token> byteTokens;
        for (const char b : bytes) {
            const QString name =
                QStringLiteral("<0x%1>").arg(QString::number(static_cast<unsigned char>(b), 16)
                                                 .toUpper()
                                                 .rightJustified(2, QLatin1Char('0')));
            const std::optional<qint32> id = tokenToId(unicode::toU32(name));
            if (!id)
                break;
            byteTokens.push_back({*id, start, end, {}});
        }
        if (byteTokens.size() == std::size_t(bytes.size())) {
            out->insert(out->end(), byteTokens.begin(), byteTokens.end());
            return true;
        }
    }
    if (!unkId)
        return context.fail(QStringLiteral("the Unigram model has no unk_id for \"%1\"")
                                .arg(unicode::fromU32(piece)));
    out->push_back({*unkId, start, end, unicode::fromU32(piece)});
    return true;
}

bool UnigramModel::tokenize(std::u32string_view piece, std::vector<Token> *out,
                            EncodeContext &context) const
{
    if (piece.empty())
        return true;
    if (piece.size() > std::size_t(std::numeric_limits<qint32>::max()))
        return context.fail(QStringLiteral("the Unigram model is given a piece of %1 characters "
                                           "(at most %2)")
                                .arg(piece.size())
                                .arg(std::numeric_limits<qint32>::max()));
    std::vector<BestPath> best;
    if (!viterbi(piece, &best, context))
        return false;
    // Back from the end; consecutive unknown tokens become one.
    std::vector<std::pair<qint32, qint32>> spans;
    qint32 end = qint32(piece.size());
    qint32 unknownEnd = -1;
    while (end > 0) {
        const BestPath &node = best[std::size_t(end)];
        if (node.startsAt < 0)
            return context.fail(QStringLiteral("the Unigram model found no segmentation"));
        if (unkId && node.id == *unkId) {
            if (unknownEnd < 0)
                unknownEnd = end;
        } else {
            if (unknownEnd >= 0)
                spans.push_back({end, unknownEnd});
            unknownEnd = -1;
            spans.push_back({node.startsAt, end});
        }
        end = node.startsAt;
    }
    if (unknownEnd >= 0)
        spans.push_back({0, unknownEnd});
    // The lattice is done with before the tokens are made: both at once cost 40 bytes more a
    // character of a long piece.
    std::vector<BestPath>().swap(best);
    if (out->empty())
        out->reserve(spans.size());
    for (auto it = spans.rbegin(); it != spans.rend(); ++it)
        if (!emitPiece(piece, it->first, it->second, out, context))
            return false;
    return true;
}

} // namespace

std::unique_ptr<TokenizerModel> readUnigramModel(const QJsonObject &o, const QString &path,
                                                 JsonReader &r)
{
    auto model = std::make_unique<UnigramModel>();
    const QString vocabPath = JsonReader::child(path, "vocab");
    const QJsonArray vocab = r.requiredArray(o, path, "vocab");
    if (const JsonReader::RawValue *raw = r.raw(vocabPath); raw && r.ok()) {
        // A vocabulary left out of Qt's document; anything unusual is named by Qt's reading.
        model->pieces.reserve(raw->json.size() / 24);
        std::u32string token;
        if (!rawjson::forEachScoredToken(*raw, [&](std::string_view text, double score) {
                token.clear();
                unicode::appendCodePoints(token, text);
                model->add(token, score);
                return model->pieces.size() <= std::size_t(std::numeric_limits<qint32>::max());
            })) {
            r.requestRetry();
            return nullptr;
        }
    }
    model->pieces.reserve(std::size_t(vocab.size()));
    for (qsizetype i = 0; i < vocab.size() && r.ok(); ++i) {
        const QJsonArray entry = vocab[i].toArray();
        if (!vocab[i].isArray() || entry.size() != 2 || !entry[0].isString() ||
            !entry[1].isDouble()) {
            r.fail(JsonReader::element(vocabPath, i),
                   QStringLiteral("should be [\"token\", score]"));
            break;
        }
        model->add(unicode::toU32(entry[0].toString()), entry[1].toDouble());
    }
    const qsizetype count = qsizetype(model->pieces.size());
    if (count > std::numeric_limits<qint32>::max())
        r.fail(vocabPath, QStringLiteral("has too many entries"));
    const QJsonValue unk = o.value(QLatin1StringView("unk_id"));
    if (!unk.isNull() && !unk.isUndefined()) {
        const qint64 id = r.id(unk, JsonReader::child(path, "unk_id"));
        if (r.ok() && id >= count)
            r.fail(JsonReader::child(path, "unk_id"),
                   QStringLiteral("%1 is not an index of the vocabulary (%2 entries)")
                       .arg(id)
                       .arg(count));
        model->unkId = qint32(id);
    }
    model->byteFallback = r.boolean(o, path, "byte_fallback", false);
    if (!r.ok())
        return nullptr;
    model->buildTrie();
    return model;
}

} // namespace pe
