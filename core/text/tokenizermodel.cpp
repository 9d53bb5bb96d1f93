#include "tokenizermodel.h"

#include "unicodetext.h"

namespace pe {

bool Vocabulary::read(const QJsonValue &value, const QString &path, JsonReader &r)
{
    if (!value.isObject())
        return r.fail(path, QStringLiteral("should be an object of tokens and their ids"));
    const QJsonObject vocab = value.toObject();
    m_ids.reserve(std::size_t(vocab.size()));
    m_tokens.reserve(std::size_t(vocab.size()));
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        // The entry's path is made only for a message: a vocabulary has 100,000s of entries.
        const QJsonValue value = it.value();
        const double d = value.toDouble(-1);
        const qint64 id = value.isDouble() && d >= 0 && d <= 2147483647.0 && d == qint64(d)
                              ? qint64(d)
                              : r.id(value, QStringLiteral("%1[\"%2\"]").arg(path, it.key()));
        if (!r.ok())
            return false;
        const auto [previous, added] = m_tokens.emplace(qint32(id), it.key());
        if (!added)
            return r.fail(path, QStringLiteral("the tokens \"%1\" and \"%2\" have the same id %3")
                                    .arg(previous->second, it.key())
                                    .arg(id));
        m_ids.emplace(unicode::toU32(it.key()), qint32(id));
    }
    return true;
}

namespace {

// models/wordlevel: a piece is one token, or the unknown token.
class WordLevelModel : public TokenizerModel
{
public:
    Vocabulary vocab;
    std::u32string unkToken;

    bool tokenize(std::u32string_view piece, std::vector<Token> *out,
                  EncodeContext &context) const override
    {
        const qsizetype n = qsizetype(piece.size());
        if (const std::optional<qint32> id = vocab.find(piece)) {
            out->push_back({*id, 0, n, {}});
        } else if (const std::optional<qint32> unk = vocab.find(unkToken)) {
            out->push_back({*unk, 0, n, {}});
        } else {
            return context.fail(QStringLiteral("the unknown token \"%1\" of the WordLevel model "
                                               "is not in its vocabulary")
                                    .arg(unicode::fromU32(unkToken)));
        }
        return true;
    }
    std::optional<qint32> tokenToId(std::u32string_view token) const override
    {
        return vocab.find(token);
    }
    QString idToToken(qint32 id) const override { return vocab.token(id); }
    qint64 vocabularySize() const override { return vocab.size(); }
    QString describe() const override { return QStringLiteral("WordLevel"); }
};

// Files without "type" (before tokenizers 0.9): the fields say which model it is, tried in
// ModelWrapper's order (BPE, WordPiece, WordLevel, Unigram).
QString legacyModelType(const QJsonObject &o)
{
    if (o.contains(QLatin1StringView("merges")))
        return QStringLiteral("BPE");
    if (o.value(QLatin1StringView("vocab")).isArray())
        return QStringLiteral("Unigram");
    if (o.contains(QLatin1StringView("continuing_subword_prefix")) &&
        o.contains(QLatin1StringView("max_input_chars_per_word")))
        return QStringLiteral("WordPiece");
    return QStringLiteral("WordLevel");
}

} // namespace

std::unique_ptr<TokenizerModel> readWordLevelModel(const QJsonObject &o, const QString &path,
                                                   JsonReader &r)
{
    auto model = std::make_unique<WordLevelModel>();
    model->vocab.read(o.value(QLatin1StringView("vocab")), JsonReader::child(path, "vocab"), r);
    model->unkToken = unicode::toU32(r.requiredString(o, path, "unk_token"));
    return r.ok() ? std::move(model) : nullptr;
}

std::unique_ptr<TokenizerModel> readModel(const QJsonValue &value, const QString &path,
                                          JsonReader &r)
{
    const QJsonObject o = r.component(value, path);
    if (!r.ok())
        return nullptr;
    const QString type =
        o.contains(QLatin1StringView("type")) ? r.type(o, path) : legacyModelType(o);
    if (!r.ok())
        return nullptr;
    if (type == QLatin1StringView("BPE"))
        return readBpeModel(o, path, r);
    if (type == QLatin1StringView("WordPiece"))
        return readWordPieceModel(o, path, r);
    if (type == QLatin1StringView("Unigram"))
        return readUnigramModel(o, path, r);
    if (type == QLatin1StringView("WordLevel"))
        return readWordLevelModel(o, path, r);
    r.fail(path, QStringLiteral("unknown model type \"%1\"").arg(type));
    return nullptr;
}

} // namespace pe
