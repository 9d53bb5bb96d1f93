// models/wordpiece: greedy longest-match-first. A piece becomes the longest vocabulary token
// it starts with, then the longest "##"-prefixed token at the rest, and so on; a piece with
// no such split, or longer than max_input_chars_per_word, is one unknown token.
#include "tokenizermodel.h"

#include "codepointtrie.h"
#include "unicodetext.h"

namespace pe {

namespace {

class WordPieceModel : public TokenizerModel
{
public:
    Vocabulary vocab;
    std::u32string unkToken;
    std::u32string continuingSubwordPrefix;
    qint64 maxInputCharsPerWord = 100;

    bool tokenize(std::u32string_view piece, std::vector<Token> *out,
                  EncodeContext &context) const override
    {
        const qsizetype n = qsizetype(piece.size());
        if (n > maxInputCharsPerWord)
            return unknown(n, out, context);
        const std::size_t first = out->size();
        qsizetype start = 0;
        while (start < n) {
            // The longest token the rest starts with (after the prefix past the first
            // character): what trying every end from the piece's down finds, in one walk.
            qsizetype end = -1;
            qint32 found = 0;
            (start == 0 ? m_starts : m_continuations)
                .forEachPrefix(piece, start, [&](qsizetype e, qint32 id) {
                    end = e;
                    found = id;
                });
            if (end < 0) {
                out->resize(first);
                return unknown(n, out, context);
            }
            out->push_back({found, start, end, {}});
            start = end;
        }
        return true;
    }
    std::optional<qint32> tokenToId(std::u32string_view token) const override
    {
        return vocab.find(token);
    }
    QString idToToken(qint32 id) const override { return vocab.token(id); }
    qint64 vocabularySize() const override { return vocab.size(); }
    QString describe() const override { return QStringLiteral("WordPiece"); }

    // The tokens that may start a piece, and those that may follow (without their prefix).
    void buildTries()
    {
        const std::size_t prefix = continuingSubwordPrefix.size();
        vocab.forEach([&](std::u32string_view token, qint32 id) {
            m_starts.insert(token, id);
            if (token.compare(0, prefix, continuingSubwordPrefix) == 0)
                m_continuations.insert(std::u32string_view(token).substr(prefix), id);
        });
    }

private:
    CodePointTrie m_starts;
    CodePointTrie m_continuations;

    bool unknown(qsizetype n, std::vector<Token> *out, EncodeContext &context) const
    {
        const std::optional<qint32> id = vocab.find(unkToken);
        if (!id)
            return context.fail(QStringLiteral("the unknown token \"%1\" of the WordPiece model "
                                               "is not in its vocabulary")
                                    .arg(unicode::fromU32(unkToken)));
        out->push_back({*id, 0, n, {}});
        return true;
    }
};

} // namespace

std::unique_ptr<TokenizerModel> readWordPieceModel(const QJsonObject &o, const QString &path,
                                                   JsonReader &r)
{
    auto model = std::make_unique<WordPieceModel>();
    model->vocab.read(o.value(QLatin1StringView("vocab")), JsonReader::child(path, "vocab"), r);
    model->unkToken = unicode::toU32(r.string(o, path, "unk_token", QStringLiteral("[UNK]")));
    model->continuingSubwordPrefix =
        unicode::toU32(r.string(o, path, "continuing_subword_prefix", QStringLiteral("##")));
    model->maxInputCharsPerWord = r.integer(o, path, "max_input_chars_per_word", 100, 0,
                                            std::numeric_limits<qint64>::max() / 2);
    if (!r.ok())
        return nullptr;
    model->buildTries();
    return model;
}

} // namespace pe
