#include "tokenizer.h"

#include "addedvocabulary.h"
#include "formats/safejson.h"
#include "io/userfile.h"
#include "largejsonvalues.h"
#include "normalizer.h"
#include "postprocessor.h"
#include "pretokenizer.h"
#include "tokendecoder.h"
#include "tokenizermodel.h"
#include "unicodetext.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <new>

namespace pe {

struct TokenizerData
{
    QString source;
    // The file's "truncation" and "padding" when set: read, not applied (transformers'
    // tokenizer(text) applies neither unless asked).
    QStringList unappliedSettings;
    std::unique_ptr<Normalizer> normalizer;
    std::unique_ptr<PreTokenizer> preTokenizer;
    std::unique_ptr<TokenizerModel> model;
    std::unique_ptr<PostProcessor> postProcessor;
    std::unique_ptr<TokenDecoder> decoder;
    AddedVocabulary added;
};

namespace {

// Real files nest five levels deep (a Sequence in a Sequence); safejson's own limit is far
// below the depth a recursive reader of components could not take.
constexpr int maxJsonDepth = 32;
constexpr qint64 minBytesPerEntry = 4;
// Below this, Qt's document alone reads a file about as fast (and the tests' small files keep
// exercising that path).
constexpr qsizetype largeFileBytes = qsizetype(64) * 1024;
// simdjson reads up to 64 bytes past a text (SIMDJSON_PADDING).
constexpr qsizetype jsonReadingPadding = 64;

// Words repeat: one encode() call remembers the tokens of the short pieces it has seen (the
// library keeps a cache of 10,000 pieces of up to 256 bytes per model).
class PieceCache
{
public:
    const std::vector<Token> *find(std::u32string_view piece) const
    {
        const auto it = m_tokens.find(piece);
        return it == m_tokens.end() ? nullptr : &it->second;
    }
    void add(std::u32string_view piece, const std::vector<Token> &tokens)
    {
        if (piece.size() < maxPieceLength && m_tokens.size() < capacity)
            m_tokens.emplace(std::u32string(piece), tokens);
    }

private:
    static constexpr std::size_t capacity = 10000;
    static constexpr std::size_t maxPieceLength = 256;
    U32Map<std::vector<Token>> m_tokens;
};

QString notTokenizerJson(const QString &folder)
{
    // The other files a model folder may have for its tokenizer, none of which is read here.
    const QDir dir(folder);
    const auto has = [&](const char *name) { return dir.exists(QString::fromLatin1(name)); };
    const QString name = QDir::toNativeSeparators(folder);
    if (has("tokenizer.model") || has("spiece.model") || has("sentencepiece.bpe.model"))
        return QStringLiteral("%1 has a SentencePiece model (tokenizer.model) but no "
                              "tokenizer.json; pescope reads tokenizer.json only (transformers "
                              "writes one when it saves a fast tokenizer)")
            .arg(name);
    if (has("vocab.json") && has("merges.txt"))
        return QStringLiteral("%1 has vocab.json and merges.txt but no tokenizer.json; pescope "
                              "reads tokenizer.json only")
            .arg(name);
    if (has("vocab.txt"))
        return QStringLiteral("%1 has vocab.txt but no tokenizer.json; pescope reads "
                              "tokenizer.json only")
            .arg(name);
    return QStringLiteral("%1 has no tokenizer.json").arg(name);
}

// The byte offset of the first \\u escape of a UTF-16 surrogate that is not one half of a pair
// (high then low), or -1. serde_json refuses such an escape ("lone leading surrogate in hex
// escape"), so tokenizers refuses the file; Qt's parser would read it as U+FFFD, and two tokens
// could collide.
qsizetype loneSurrogateEscape(QByteArrayView json)
{
    const auto hexAt = [&](qsizetype i) -> int {
        if (i + 6 > json.size() || json[i] != '\\' || json[i + 1] != 'u')
            return -1;
        bool ok = false;
        const int v = QByteArrayView(json.data() + i + 2, 4).toInt(&ok, 16);
        return ok ? v : -1;
    };
    for (qsizetype i = json.indexOf('\\'); i >= 0 && i + 1 < json.size();
         i = json.indexOf('\\', i)) {
        if (json[i + 1] != 'u') {
            i += 2; // an escaped character: "\\" is one backslash, not the start of an escape
            continue;
        }
        const int unit = hexAt(i);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            const int low = hexAt(i + 6);
            if (low < 0xDC00 || low > 0xDFFF)
                return i;
            i += 12;
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            return i;
        } else {
            i += 2;
        }
    }
    return -1;
}

} // namespace

Tokenizer::Tokenizer(std::shared_ptr<const TokenizerData> data) : m_d(std::move(data)) {}

std::optional<Tokenizer> Tokenizer::fromPath(const QString &path, QString *error)
{
    const QFileInfo info(path);
    QString file = path;
    if (info.isDir()) {
        file = QDir(path).filePath(QStringLiteral("tokenizer.json"));
        if (!QFileInfo(file).isFile()) {
            if (error)
                *error = notTokenizerJson(path);
            return std::nullopt;
        }
    } else if (info.suffix() == QLatin1StringView("model")) {
        if (error)
            *error = QStringLiteral("%1 is a SentencePiece model; pescope reads tokenizer.json "
                                    "only")
                         .arg(QDir::toNativeSeparators(path));
        return std::nullopt;
    }
    // Read with room for simdjson's padding: a large file's vocabulary is read in place.
    const std::optional<QByteArray> text = readUserFile(
        file, maxFileBytes, error, QStringLiteral("a tokenizer.json"), jsonReadingPadding);
    if (!text)
        return std::nullopt;
    return fromText(*text, text->capacity(), QDir::toNativeSeparators(file), error);
}

std::optional<Tokenizer> Tokenizer::fromJson(QByteArrayView json, const QString &what,
                                             QString *error)
{
    return fromText(json, 0, what, error);
}

std::optional<Tokenizer> Tokenizer::fromText(QByteArrayView json, qsizetype readable,
                                             const QString &what, QString *error)
{
    if (const qsizetype at = loneSurrogateEscape(json); at >= 0) {
        if (error)
            *error = QStringLiteral("%1: byte %2: the escape %3 is half of a UTF-16 surrogate "
                                    "pair without its other half, not a character (tokenizers "
                                    "refuses the file)")
                         .arg(what)
                         .arg(at)
                         .arg(QString::fromLatin1(json.sliced(at, 6)));
        return std::nullopt;
    }
    // The vocabulary and merges, most of a large file, are read from the text with simdjson
    // rather than from Qt's document; whatever that reading cannot take as Qt's would (a
    // problem to name, an id written 1.0) is read again the plain way.
    LargeJsonValues large;
    if (json.size() >= largeFileBytes && large.locate(json, readable)) {
        bool retry = false;
        std::optional<Tokenizer> t = read(json, what, error, &large, &retry);
        if (!retry)
            return t;
        if (error)
            error->clear();
    }
    return read(json, what, error, nullptr, nullptr);
}

std::optional<Tokenizer> Tokenizer::read(QByteArrayView json, const QString &what, QString *error,
                                         const LargeJsonValues *large, bool *retry)
{
    std::vector<JsonHole> holes;
    JsonReader r(what);
    if (large)
        for (const LargeJsonValues::Found &f : large->found()) {
            holes.push_back({f.begin, f.end});
            r.setRaw(f.path, f.raw);
        }
    std::sort(holes.begin(), holes.end(),
              [](const JsonHole &a, const JsonHole &b) { return a.begin < b.begin; });
    // "x":1, is an entry in six bytes; a vocabulary's entries average about ten.
    const std::optional<QJsonObject> document = parseJsonObject(
        json, what, error, maxJsonDepth, DuplicateKeys::Refuse, minBytesPerEntry, holes);
    if (!document)
        return std::nullopt;
    const QJsonObject &o = *document;
    auto d = std::make_shared<TokenizerData>();
    d->source = what;
    const QJsonValue version = o.value(QLatin1StringView("version"));
    if (!version.isUndefined() && version.toString() != QLatin1StringView("1.0"))
        r.fail(QStringLiteral("version"),
               QStringLiteral("unknown tokenizer.json version (only \"1.0\" is read)"));
    const auto present = [&](const char *key) {
        const QJsonValue v = o.value(QLatin1StringView(key));
        return !v.isUndefined() && !v.isNull();
    };
    if (r.ok() && present("normalizer"))
        d->normalizer = readNormalizer(o.value(QLatin1StringView("normalizer")),
                                       QStringLiteral("normalizer"), r);
    if (r.ok() && present("pre_tokenizer"))
        d->preTokenizer = readPreTokenizer(o.value(QLatin1StringView("pre_tokenizer")),
                                           QStringLiteral("pre_tokenizer"), r);
    if (r.ok() && !present("model"))
        r.fail(QString(), QStringLiteral("has no \"model\""));
    if (r.ok())
        d->model = readModel(o.value(QLatin1StringView("model")), QStringLiteral("model"), r);
    if (r.ok() && present("post_processor"))
        d->postProcessor = readPostProcessor(o.value(QLatin1StringView("post_processor")),
                                             QStringLiteral("post_processor"), r);
    if (r.ok() && present("decoder"))
        d->decoder =
            readTokenDecoder(o.value(QLatin1StringView("decoder")), QStringLiteral("decoder"), r);
    if (r.ok())
        d->added.read(o.value(QLatin1StringView("added_tokens")), QStringLiteral("added_tokens"), r,
                      *d->model, d->normalizer.get());
    if (!r.ok()) {
        if (retry)
            *retry = r.retryRequested();
        if (error)
            *error = r.error();
        return std::nullopt;
    }
    for (const char *setting : {"truncation", "padding"})
        if (present(setting))
            d->unappliedSettings.append(QString::fromLatin1(setting));
    return Tokenizer(std::move(d));
}

namespace {

// TokenizerImpl::encode_single_sequence for raw text, offsets in characters: the added tokens,
// the normalizer, the pre-tokenizer, the model, then into_encoding.
std::optional<TokenEncoding> encodeSequence(const TokenizerData &d, const QString &text,
                                            qint64 typeId, EncodeContext &context)
{
    std::u32string chars = unicode::toU32(text);
    if (qint64(chars.size()) > Tokenizer::maxTextLength) {
        context.fail(QStringLiteral("the text is %1 characters long (at most %2)")
                         .arg(chars.size())
                         .arg(Tokenizer::maxTextLength));
        return std::nullopt;
    }
    PreTokenizedString pieces{NormalizedString()};
    if (!d.added.extractAndNormalize(d.normalizer.get(), NormalizedString(std::move(chars)),
                                     &pieces, context) ||
        (d.preTokenizer && !d.preTokenizer->preTokenize(pieces, context)))
        return std::nullopt;
    PieceCache cache;
    TokenEncoding out;
    // The encoding's lists are reserved from the tokens a character made so far, projected over
    // the characters left (a long piece alone: exactly its tokens), rather than doubled along
    // the way: a doubling list is up to twice its size and, while it moves, three times.
    qsizetype charactersLeft = 0;
    for (const TextSplit &split : pieces.splits())
        charactersLeft += split.text.size();
    const qsizetype allCharacters = std::max<qsizetype>(1, charactersLeft);
    const auto makeRoom = [&](qsizetype adding) {
        const qsizetype needed = out.size() + adding;
        if (needed <= qsizetype(out.ids.capacity()))
            return;
        const double perCharacter =
            double(needed) / double(std::max<qsizetype>(1, allCharacters - charactersLeft));
        const auto projected =
            qsizetype(double(needed) + 1.125 * perCharacter * double(charactersLeft));
        reserveEncoding(out, std::max(needed, projected));
    };
    for (TextSplit &split : pieces.splits()) {
        charactersLeft -= split.text.size();
        if (!split.tokens) {
            if (context.expired(QStringLiteral("model")))
                return std::nullopt;
            const std::u32string &piece = split.text.text();
            if (const std::vector<Token> *known = cache.find(piece)) {
                split.tokens = *known;
            } else {
                split.tokens.emplace();
                if (!d.model->tokenize(piece, &*split.tokens, context))
                    return std::nullopt;
                // Each token's text made once per piece: the cache's copies share it (a
                // vocabulary keeps its tokens as code points, not as QStrings).
                for (Token &t : *split.tokens)
                    if (t.value.isNull())
                        t.value = d.model->idToToken(t.id);
                cache.add(piece, *split.tokens);
            }
        }
        makeRoom(qsizetype(split.tokens->size()));
        for (const Token &t : *split.tokens) {
            const std::optional<TextSpan> span = split.text.originalSpan(t.start, t.end);
            out.ids.push_back(t.id);
            out.tokens.append(t.value.isNull() ? d.model->idToToken(t.id) : t.value);
            out.offsets.push_back(span ? std::pair<qint64, qint64>(span->start, span->end)
                                       : std::pair<qint64, qint64>(t.start, t.end));
            out.typeIds.push_back(typeId);
            out.special.push_back(false);
        }
        // Each piece and its tokens are let go once in the encoding: a text of one long piece
        // (16 Mi characters without a space) held both, and every token twice, until the end.
        split = TextSplit();
    }
    return out;
}

// TokenizerImpl::post_process without truncation or padding. A post-processor that drops
// tokens of the texts (a `single` template without $A, or with $B; templates stacked in a
// Sequence) is refused: tokenizers panics on the stacked templates, and the text's tokens would
// be lost without a word.
std::optional<TokenEncoding> postProcess(const TokenizerData &d,
                                         std::vector<TokenEncoding> encodings,
                                         bool addSpecialTokens, QString *error)
{
    if (d.postProcessor) {
        qsizetype textTokens = 0;
        // PostProcessor::process: each sequence's type ids are its index first.
        for (std::size_t i = 0; i < encodings.size(); ++i) {
            encodings[i].typeIds.assign(encodings[i].ids.size(), qint64(i));
            textTokens += encodings[i].size();
        }
        PostProcessLimit limit(textTokens);
        encodings = d.postProcessor->process(std::move(encodings), addSpecialTokens, limit);
        if (limit.exceededBy.isEmpty() && tokenCount(encodings) > limit.maxTokens)
            limit.exceededBy = d.postProcessor->describe();
        if (!limit.exceededBy.isEmpty()) {
            if (error)
                *error = QStringLiteral("the tokenizer's post-processor %1 would make more than "
                                        "%2 tokens of the text's %3 (at most %4 times plus %5): "
                                        "the tokenizer.json repeats the text without bound")
                             .arg(limit.exceededBy)
                             .arg(limit.maxTokens)
                             .arg(textTokens)
                             .arg(PostProcessLimit::maxGrowth)
                             .arg(PostProcessLimit::margin);
            return std::nullopt;
        }
        qsizetype kept = 0;
        for (const TokenEncoding &e : encodings)
            kept += std::count(e.special.begin(), e.special.end(), false);
        if (kept < textTokens) {
            if (error)
                *error = QStringLiteral("the tokenizer's post-processor (%1) keeps %2 of the "
                                        "text's %3 tokens; a post-processor may only add tokens")
                             .arg(d.postProcessor->describe())
                             .arg(kept)
                             .arg(textTokens);
            return std::nullopt;
        }
    }
    if (encodings.size() == 1)
        return std::move(encodings.front());
    // The text's tokens are moved, not copied, and each part freed once appended: a long text's
    // encoding was held three times here.
    const qsizetype total = tokenCount(encodings);
    TokenEncoding out = std::move(encodings.front());
    reserveEncoding(out, total);
    for (std::size_t i = 1; i < encodings.size(); ++i) {
        appendEncoding(out, encodings[i]);
        encodings[i] = TokenEncoding();
    }
    return out;
}

// An allocation that fails while a text is tokenized (a text near maxTextLength on a machine
// with little memory, or under a limit) ends that encode() with a message, not the process.
template <class Work>
auto catchingOutOfMemory(qint64 characters, QString *error, Work work) -> decltype(work())
{
    try {
        return work();
    } catch (const std::bad_alloc &) {
        if (error)
            *error = QStringLiteral("out of memory while tokenizing a text of %1 UTF-16 units")
                         .arg(characters);
        return std::nullopt;
    }
}

} // namespace

std::optional<TokenEncoding> Tokenizer::encode(const QString &text, bool addSpecialTokens,
                                               QString *error) const
{
    return catchingOutOfMemory(text.size(), error,
                               [&] { return encodeUnguarded(text, addSpecialTokens, error); });
}

std::optional<TokenEncoding> Tokenizer::encodeUnguarded(const QString &text, bool addSpecialTokens,
                                                        QString *error) const
{
    EncodeContext context(text.size());
    std::optional<TokenEncoding> e = encodeSequence(*m_d, text, 0, context);
    if (!e) {
        if (error)
            *error = context.error;
        return std::nullopt;
    }
    std::vector<TokenEncoding> encodings;
    encodings.push_back(std::move(*e));
    return postProcess(*m_d, std::move(encodings), addSpecialTokens, error);
}

std::optional<QString> Tokenizer::normalized(const QString &text, QString *error) const
{
    return catchingOutOfMemory(text.size(), error,
                               [&] { return normalizedUnguarded(text, error); });
}

std::optional<QString> Tokenizer::normalizedUnguarded(const QString &text, QString *error) const
{
    EncodeContext context(text.size());
    std::u32string chars = unicode::toU32(text);
    if (qint64(chars.size()) > maxTextLength) {
        if (error)
            *error = QStringLiteral("the text is %1 characters long (at most %2)")
                         .arg(chars.size())
                         .arg(maxTextLength);
        return std::nullopt;
    }
    NormalizedString normalizedText(std::move(chars));
    if (m_d->normalizer && !m_d->normalizer->normalize(normalizedText, context)) {
        if (error)
            *error = context.error;
        return std::nullopt;
    }
    return unicode::fromU32(normalizedText.text());
}

std::optional<TokenEncoding> Tokenizer::encodePair(const QString &first, const QString &second,
                                                   bool addSpecialTokens, QString *error) const
{
    return catchingOutOfMemory(first.size() + second.size(), error, [&] {
        return encodePairUnguarded(first, second, addSpecialTokens, error);
    });
}

std::optional<TokenEncoding> Tokenizer::encodePairUnguarded(const QString &first,
                                                            const QString &second,
                                                            bool addSpecialTokens,
                                                            QString *error) const
{
    EncodeContext context(first.size() + second.size());
    std::optional<TokenEncoding> a = encodeSequence(*m_d, first, 0, context);
    std::optional<TokenEncoding> b = a ? encodeSequence(*m_d, second, 1, context) : std::nullopt;
    if (!b) {
        if (error)
            *error = context.error;
        return std::nullopt;
    }
    std::vector<TokenEncoding> encodings;
    encodings.push_back(std::move(*a));
    encodings.push_back(std::move(*b));
    return postProcess(*m_d, std::move(encodings), addSpecialTokens, error);
}

QString Tokenizer::decode(const std::vector<qint64> &ids, bool skipSpecialTokens) const
{
    QStringList tokens;
    for (const qint64 id : ids) {
        if (id < 0 || id > std::numeric_limits<qint32>::max())
            continue;
        QString token = idToToken(id);
        if (token.isNull() ||
            (skipSpecialTokens && m_d->added.isSpecialContent(unicode::toU32(token))))
            continue;
        tokens.append(token);
    }
    return m_d->decoder ? m_d->decoder->decode(tokens) : tokens.join(QLatin1Char(' '));
}

SpaceMarks Tokenizer::spaceMarks() const
{
    if (!m_d->decoder)
        return SpaceMarks::None;
    // A token before the marked one: decoders drop the marker of the first token (Metaspace's
    // prepend scheme, Strip), never of a later one.
    const auto spaces = [&](const QString &marker) {
        return m_d->decoder->decode({QStringLiteral("x"), marker + QStringLiteral("a")}) ==
               QLatin1StringView("x a");
    };
    if (spaces(QString(QChar(0x0120))))
        return SpaceMarks::ByteLevel;
    if (spaces(QString(QChar(0x2581))))
        return SpaceMarks::Metaspace;
    return SpaceMarks::None;
}

qint64 Tokenizer::vocabularySize() const
{
    return m_d->model->vocabularySize() + m_d->added.countNotIn(*m_d->model);
}

std::optional<qint64> Tokenizer::tokenToId(const QString &token) const
{
    const std::u32string t = unicode::toU32(token);
    if (const std::optional<qint32> id = m_d->added.tokenToId(t))
        return *id;
    if (const std::optional<qint32> id = m_d->model->tokenToId(t))
        return *id;
    return std::nullopt;
}

QString Tokenizer::idToToken(qint64 id) const
{
    if (id < 0 || id > std::numeric_limits<qint32>::max())
        return {};
    if (const AddedToken *t = m_d->added.tokenOfId(qint32(id)))
        return unicode::fromU32(t->normalizedContent.empty() ? t->content : t->normalizedContent);
    return m_d->model->idToToken(qint32(id));
}

QStringList Tokenizer::unappliedSettings() const
{
    return m_d->unappliedSettings;
}

QString Tokenizer::source() const
{
    return m_d->source;
}

QString Tokenizer::summary() const
{
    const auto name = [](const auto &part) {
        return part ? part->describe() : QStringLiteral("none");
    };
    return QStringLiteral("%1, %2 tokens (%3 added); normalizer %4; pre-tokenizer %5; "
                          "post-processor %6")
        .arg(m_d->model->describe())
        .arg(vocabularySize())
        .arg(m_d->added.size())
        .arg(name(m_d->normalizer), name(m_d->preTokenizer), name(m_d->postProcessor));
}

} // namespace pe
