#include "postprocessor.h"

#include "bytelevel.h"
#include "unicodetext.h"

#include <QHash>

#include <algorithm>

namespace pe {

void appendEncoding(TokenEncoding &to, const TokenEncoding &from)
{
    to.ids.insert(to.ids.end(), from.ids.begin(), from.ids.end());
    to.tokens.append(from.tokens);
    to.offsets.insert(to.offsets.end(), from.offsets.begin(), from.offsets.end());
    to.typeIds.insert(to.typeIds.end(), from.typeIds.begin(), from.typeIds.end());
    to.special.insert(to.special.end(), from.special.begin(), from.special.end());
}

void reserveEncoding(TokenEncoding &e, qsizetype tokens)
{
    const auto n = std::size_t(std::max<qsizetype>(tokens, 0));
    e.ids.reserve(n);
    e.tokens.reserve(qsizetype(n));
    e.offsets.reserve(n);
    e.typeIds.reserve(n);
    e.special.reserve(n);
}

qsizetype tokenCount(const std::vector<TokenEncoding> &encodings)
{
    qsizetype n = 0;
    for (const TokenEncoding &e : encodings)
        n += e.size();
    return n;
}

namespace {

// Special tokens as an encoding of their own: offsets (0, 0), marked special.
TokenEncoding specialTokens(const std::vector<qint64> &ids, const QStringList &tokens,
                            qint64 typeId)
{
    TokenEncoding e;
    e.ids = ids;
    e.tokens = tokens;
    e.offsets.assign(ids.size(), {0, 0});
    e.typeIds.assign(ids.size(), typeId);
    e.special.assign(ids.size(), true);
    return e;
}

void setTypeIds(TokenEncoding &e, qint64 typeId)
{
    e.typeIds.assign(e.ids.size(), typeId);
}

// processors/byte_level.rs process_offsets: offsets without the spaces (Ġ) a token starts or
// ends with, except the one space added_prefix_space put before the first token.
void trimOffsets(TokenEncoding &e, bool addPrefixSpace)
{
    const char32_t space = bytelevel::charOfByte(' ');
    const auto isSpace = [&](char32_t c) { return c == space || unicode::isWhitespace(c); };
    for (qsizetype i = 0; i < e.size(); ++i) {
        const std::u32string token = unicode::toU32(e.tokens[i]);
        qint64 leading = 0;
        while (leading < qint64(token.size()) && isSpace(token[std::size_t(leading)]))
            ++leading;
        qint64 trailing = 0;
        while (trailing < qint64(token.size()) &&
               isSpace(token[token.size() - 1 - std::size_t(trailing)]))
            ++trailing;
        auto &[start, end] = e.offsets[std::size_t(i)];
        if (leading > 0) {
            const bool first = i == 0 || start == 0;
            if (first && addPrefixSpace && leading == 1)
                leading = 0;
            start = std::min(start + leading, end);
        }
        if (trailing > 0 && end >= trailing)
            end = std::max(end - trailing, start);
    }
}

class ByteLevelProcessor : public PostProcessor
{
public:
    bool addPrefixSpace = true;
    bool trim = true;
    std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings, bool,
                                       PostProcessLimit &) const override
    {
        if (trim)
            for (TokenEncoding &e : encodings)
                trimOffsets(e, addPrefixSpace);
        return encodings;
    }
    QString describe() const override { return QStringLiteral("ByteLevel"); }
};

struct NamedToken
{
    QString token;
    qint64 id = 0;
};

class BertProcessor : public PostProcessor
{
public:
    NamedToken sep;
    NamedToken cls;
    std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings, bool addSpecialTokens,
                                       PostProcessLimit &) const override
    {
        // processors/bert.rs: [CLS] A [SEP], then B [SEP] with B's type ids (1).
        if (!addSpecialTokens)
            return encodings;
        std::vector<TokenEncoding> out;
        for (std::size_t i = 0; i < encodings.size(); ++i) {
            TokenEncoding e;
            if (i == 0)
                appendEncoding(e, specialTokens({cls.id}, {cls.token}, 0));
            appendEncoding(e, encodings[i]);
            appendEncoding(e, specialTokens({sep.id}, {sep.token}, i == 0 ? 0 : 1));
            out.push_back(std::move(e));
        }
        return out;
    }
    QString describe() const override { return QStringLiteral("BertProcessing"); }
};

class RobertaProcessor : public PostProcessor
{
public:
    NamedToken sep;
    NamedToken cls;
    bool addPrefixSpace = true;
    bool trim = true;
    std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings, bool addSpecialTokens,
                                       PostProcessLimit &) const override
    {
        // processors/roberta.rs: <s> A </s>, then </s> B </s>; every type id 0.
        for (TokenEncoding &e : encodings) {
            if (trim)
                trimOffsets(e, addPrefixSpace);
            setTypeIds(e, 0);
        }
        if (!addSpecialTokens)
            return encodings;
        std::vector<TokenEncoding> out;
        for (std::size_t i = 0; i < encodings.size(); ++i) {
            TokenEncoding e;
            const NamedToken &first = i == 0 ? cls : sep;
            appendEncoding(e, specialTokens({first.id}, {first.token}, 0));
            appendEncoding(e, encodings[i]);
            appendEncoding(e, specialTokens({sep.id}, {sep.token}, 0));
            out.push_back(std::move(e));
        }
        return out;
    }
    QString describe() const override { return QStringLiteral("RobertaProcessing"); }
};

struct TemplatePiece
{
    bool isSequence = false;
    int sequence = 0;     // 0 for A, 1 for B
    QString specialToken; // its key in special_tokens
    qint64 typeId = 0;
};

struct TemplateSpecial
{
    std::vector<qint64> ids;
    QStringList tokens;
};

class TemplateProcessor : public PostProcessor
{
public:
    std::vector<TemplatePiece> single;
    std::vector<TemplatePiece> pair;
    QHash<QString, TemplateSpecial> specials;

    std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings, bool addSpecialTokens,
                                       PostProcessLimit &limit) const override
    {
        // TemplateProcessing::apply_template.
        const std::vector<TemplatePiece> &pieces = encodings.size() == 2 ? pair : single;
        qsizetype produced = 0;
        for (const TemplatePiece &p : pieces) {
            if (p.isSequence && std::size_t(p.sequence) < encodings.size())
                produced += encodings[std::size_t(p.sequence)].size();
            else if (!p.isSequence && addSpecialTokens)
                produced += qsizetype(specials[p.specialToken].ids.size());
        }
        if (produced > limit.maxTokens) {
            limit.exceededBy = describe();
            return {};
        }
        std::vector<TokenEncoding> out;
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            const TemplatePiece &p = pieces[k];
            if (p.isSequence) {
                if (std::size_t(p.sequence) >= encodings.size())
                    continue;
                // The sequence's last use in the template takes it; an earlier one copies it.
                const bool usedAgain = std::any_of(
                    pieces.begin() + qsizetype(k) + 1, pieces.end(), [&](const TemplatePiece &q) {
                        return q.isSequence && q.sequence == p.sequence;
                    });
                TokenEncoding e = usedAgain ? encodings[std::size_t(p.sequence)]
                                            : std::move(encodings[std::size_t(p.sequence)]);
                setTypeIds(e, p.typeId);
                out.push_back(std::move(e));
            } else if (addSpecialTokens) {
                const TemplateSpecial &s = specials[p.specialToken];
                out.push_back(specialTokens(s.ids, s.tokens, p.typeId));
            }
        }
        return out;
    }
    QString describe() const override { return QStringLiteral("TemplateProcessing"); }
};

class SequenceProcessor : public PostProcessor
{
public:
    std::vector<std::unique_ptr<PostProcessor>> steps;
    std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings, bool addSpecialTokens,
                                       PostProcessLimit &limit) const override
    {
        for (std::size_t i = 0; i < steps.size(); ++i) {
            encodings = steps[i]->process(std::move(encodings), addSpecialTokens, limit);
            if (limit.exceededBy.isEmpty() && tokenCount(encodings) > limit.maxTokens)
                limit.exceededBy = steps[i]->describe();
            if (!limit.exceededBy.isEmpty()) {
                limit.exceededBy =
                    QStringLiteral("post-processor %1 (%2)").arg(i + 1).arg(limit.exceededBy);
                return {};
            }
        }
        return encodings;
    }
    QString describe() const override { return describeSteps(steps); }
};

// A ["token", id] pair (Bert's and Roberta's sep and cls).
NamedToken readNamedToken(const QJsonObject &o, const QString &path, const char *key, JsonReader &r)
{
    const QString at = JsonReader::child(path, key);
    const QJsonArray pair = o.value(QLatin1StringView(key)).toArray();
    if (pair.size() != 2 || !pair[0].isString()) {
        r.fail(at, QStringLiteral("should be [\"token\", id]"));
        return {};
    }
    return {pair[0].toString(), r.id(pair[1], JsonReader::element(at, 1))};
}

std::vector<TemplatePiece> readTemplate(const QJsonObject &o, const QString &path, const char *key,
                                        JsonReader &r)
{
    std::vector<TemplatePiece> out;
    const QString at = JsonReader::child(path, key);
    const QJsonArray list = r.requiredArray(o, path, key);
    for (qsizetype i = 0; i < list.size() && r.ok(); ++i) {
        const QString piecePath = JsonReader::element(at, i);
        const QJsonObject piece = list[i].toObject();
        TemplatePiece p;
        p.isSequence = piece.contains(QLatin1StringView("Sequence"));
        const char *kind = p.isSequence ? "Sequence" : "SpecialToken";
        const QJsonObject body = piece.value(QLatin1StringView(kind)).toObject();
        if (piece.size() != 1 || body.isEmpty()) {
            r.fail(piecePath, QStringLiteral("should be {\"Sequence\": ...} or "
                                             "{\"SpecialToken\": ...}"));
            break;
        }
        const QString bodyPath = JsonReader::child(piecePath, kind);
        const QString id = r.requiredString(body, bodyPath, "id");
        p.typeId = r.integer(body, bodyPath, "type_id", 0);
        if (p.isSequence) {
            if (id != QLatin1StringView("A") && id != QLatin1StringView("B"))
                r.fail(JsonReader::child(bodyPath, "id"),
                       QStringLiteral("should be \"A\" or \"B\""));
            p.sequence = id == QLatin1StringView("B") ? 1 : 0;
        } else {
            p.specialToken = id;
        }
        out.push_back(p);
    }
    return out;
}

std::unique_ptr<PostProcessor> readTemplateProcessor(const QJsonObject &o, const QString &path,
                                                     JsonReader &r)
{
    auto p = std::make_unique<TemplateProcessor>();
    p->single = readTemplate(o, path, "single", r);
    p->pair = readTemplate(o, path, "pair", r);
    const QString specialsPath = JsonReader::child(path, "special_tokens");
    const QJsonObject specials = o.value(QLatin1StringView("special_tokens")).toObject();
    for (auto it = specials.begin(); it != specials.end() && r.ok(); ++it) {
        const QString at = QStringLiteral("%1[\"%2\"]").arg(specialsPath, it.key());
        const QJsonObject s = it.value().toObject();
        TemplateSpecial special;
        const QJsonArray ids = r.requiredArray(s, at, "ids");
        const QJsonArray tokens = r.requiredArray(s, at, "tokens");
        for (qsizetype i = 0; i < ids.size(); ++i)
            special.ids.push_back(
                r.id(ids[i], JsonReader::element(JsonReader::child(at, "ids"), i)));
        for (const QJsonValue t : tokens)
            special.tokens.append(t.toString());
        if (r.ok() && ids.size() != tokens.size())
            r.fail(at,
                   QStringLiteral("has %1 ids but %2 tokens").arg(ids.size()).arg(tokens.size()));
        p->specials.insert(it.key(), special);
    }
    for (const auto *pieces : {&p->single, &p->pair})
        for (const TemplatePiece &piece : *pieces)
            if (r.ok() && !piece.isSequence && !p->specials.contains(piece.specialToken))
                r.fail(path, QStringLiteral("the template uses the special token \"%1\", which "
                                            "special_tokens does not define")
                                 .arg(piece.specialToken));
    return r.ok() ? std::move(p) : nullptr;
}

} // namespace

std::unique_ptr<PostProcessor> readPostProcessor(const QJsonValue &value, const QString &path,
                                                 JsonReader &r)
{
    const QJsonObject o = r.component(value, path);
    const QString type = r.type(o, path);
    if (!r.ok())
        return nullptr;
    std::unique_ptr<PostProcessor> out;
    if (type == QLatin1StringView("TemplateProcessing")) {
        out = readTemplateProcessor(o, path, r);
    } else if (type == QLatin1StringView("BertProcessing")) {
        auto p = std::make_unique<BertProcessor>();
        p->sep = readNamedToken(o, path, "sep", r);
        p->cls = readNamedToken(o, path, "cls", r);
        out = std::move(p);
    } else if (type == QLatin1StringView("RobertaProcessing")) {
        auto p = std::make_unique<RobertaProcessor>();
        p->sep = readNamedToken(o, path, "sep", r);
        p->cls = readNamedToken(o, path, "cls", r);
        p->trim = r.boolean(o, path, "trim_offsets", true);
        p->addPrefixSpace = r.boolean(o, path, "add_prefix_space", true);
        out = std::move(p);
    } else if (type == QLatin1StringView("ByteLevel")) {
        auto p = std::make_unique<ByteLevelProcessor>();
        p->trim = r.boolean(o, path, "trim_offsets", true);
        p->addPrefixSpace = r.boolean(o, path, "add_prefix_space", true);
        out = std::move(p);
    } else if (type == QLatin1StringView("Sequence")) {
        auto seq = std::make_unique<SequenceProcessor>();
        seq->steps = readSteps<PostProcessor>(o, path, "processors", r, readPostProcessor);
        out = std::move(seq);
    } else {
        r.fail(path, QStringLiteral("unknown post-processor type \"%1\"").arg(type));
    }
    return r.ok() ? std::move(out) : nullptr;
}

} // namespace pe
