#include "tokenizermodel.h"

#include "largejsonvalues.h"
#include "unicodetext.h"

namespace pe {

void Vocabulary::reserve(std::size_t entries, std::size_t characters)
{
    m_entries.reserve(entries);
    m_text.reserve(characters);
    m_byToken.reserve(entries);
    m_byId.reserve(entries);
}

Vocabulary::Added Vocabulary::addLast(std::size_t begin, qint32 id, std::uint32_t *other)
{
    const auto index = std::uint32_t(m_entries.size());
    const std::u32string_view token = std::u32string_view(m_text).substr(begin);
    const std::uint64_t hash = hashOf(token);
    const auto sameToken = [&](std::uint32_t i) { return view(i) == token; };
    const auto takeBack = [&](Added why, std::uint32_t clash) {
        m_text.resize(begin);
        *other = clash;
        return why;
    };
    if (const std::optional<std::uint32_t> clash = m_byToken.find(hash, sameToken))
        return takeBack(Added::SameToken, *clash);
    if (const std::optional<std::uint32_t> clash =
            m_byId.insert(mixHash(std::uint32_t(id)), index,
                          [&](std::uint32_t i) { return m_entries[i].id == id; }))
        return takeBack(Added::SameId, *clash);
    m_entries.push_back({begin, std::uint32_t(token.size()), id});
    m_byToken.insert(hash, index, sameToken);
    return Added::Yes;
}

QString Vocabulary::token(qint32 id) const
{
    const std::optional<std::uint32_t> at = m_byId.find(
        mixHash(std::uint32_t(id)), [&](std::uint32_t i) { return m_entries[i].id == id; });
    return at ? unicode::fromU32(view(*at)) : QString();
}

bool Vocabulary::read(const QJsonValue &value, const QString &path, JsonReader &r)
{
    if (const JsonReader::RawValue *raw = r.raw(path))
        return readRaw(raw->json, raw->capacity, path, r);
    if (!value.isObject())
        return r.fail(path, QStringLiteral("should be an object of tokens and their ids"));
    const QJsonObject vocab = value.toObject();
    reserve(std::size_t(vocab.size()), std::size_t(vocab.size()) * 8);
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        // The entry's path is made only for a message: a vocabulary has 100,000s of entries.
        const QJsonValue value = it.value();
        const double d = value.toDouble(-1);
        const qint64 id = value.isDouble() && d >= 0 && d <= 2147483647.0 && d == qint64(d)
                              ? qint64(d)
                              : r.id(value, QStringLiteral("%1[\"%2\"]").arg(path, it.key()));
        if (!r.ok())
            return false;
        const std::size_t begin = m_text.size();
        const QString key = it.key();
        for (qsizetype i = 0; i < key.size(); ++i) {
            const QChar c = key[i];
            if (c.isHighSurrogate() && i + 1 < key.size() && key[i + 1].isLowSurrogate()) {
                m_text.push_back(QChar::surrogateToUcs4(c, key[i + 1]));
                ++i;
            } else {
                m_text.push_back(c.unicode());
            }
        }
        std::uint32_t other = 0;
        // Keys of an object differ; only ids can clash.
        if (addLast(begin, qint32(id), &other) == Added::SameId)
            return r.fail(path, QStringLiteral("the tokens \"%1\" and \"%2\" have the same id %3")
                                    .arg(token(qint32(id)), it.key())
                                    .arg(id));
    }
    return true;
}

bool Vocabulary::readRaw(std::string_view json, std::size_t capacity, const QString &path,
                         JsonReader &r)
{
    Q_UNUSED(path);
    // An entry ("token": id,) takes 15 bytes or so; its token 3 to 5 characters.
    reserve(json.size() / 16, json.size() / 4);
    const bool read =
        rawjson::forEachId({json, capacity}, [&](std::string_view key, std::uint64_t id) {
            if (id > 2147483647)
                return false;
            const std::size_t begin = m_text.size();
            unicode::appendCodePoints(m_text, key);
            std::uint32_t other = 0;
            return addLast(begin, qint32(id), &other) == Added::Yes;
        });
    // Anything else (an id written 1.0, two tokens with one id) is read, or named, by Qt's
    // reading of the document.
    return read || r.requestRetry();
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
