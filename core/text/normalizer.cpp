#include "normalizer.h"

#include "bytelevel.h"
#include "precompiledcharsmap.h"
#include "textpattern.h"
#include "unicodetext.h"

#include <QChar>
#include <QTextBoundaryFinder>

#include <optional>
#include <vector>

namespace pe {

namespace {

// normalizers/bert.rs is_chinese_char: the CJK Unified Ideographs blocks BERT puts spaces around.
bool isChineseCharacter(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
           (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

class BertNormalizer : public Normalizer
{
public:
    bool cleanText = true;
    bool handleChineseChars = true;
    std::optional<bool> stripAccents;
    bool lowercase = true;

    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        if (cleanText) {
            // do_clean_text: NUL, U+FFFD and control characters (not \t \n \r) go, whitespace
            // becomes a space.
            text.filter([](char32_t c) {
                const bool control = c != u'\t' && c != u'\n' && c != u'\r' && unicode::isOther(c);
                return !(c == 0 || c == 0xFFFD || control);
            });
            text.map([](char32_t c) { return unicode::isWhitespace(c) ? U' ' : c; });
        }
        if (handleChineseChars)
            spaceChineseCharacters(text);
        if (stripAccents.value_or(lowercase)) {
            unicode::normalize(text, QString::NormalizationForm_D);
            text.filter([](char32_t c) { return !unicode::isNonspacingMark(c); });
        }
        if (lowercase)
            unicode::lowercase(text);
        return true;
    }
    QString describe() const override { return QStringLiteral("BertNormalizer"); }

private:
    static void spaceChineseCharacters(NormalizedString &text)
    {
        std::vector<CharChange> changes;
        bool any = false;
        for (const char32_t c : text.text()) {
            if (isChineseCharacter(c)) {
                changes.push_back({U' ', 0});
                changes.push_back({c, 1});
                changes.push_back({U' ', 1});
                any = true;
            } else {
                changes.push_back({c, 0});
            }
        }
        if (any)
            text.transform(changes, 0);
    }
};

class UnicodeNormalizer : public Normalizer
{
public:
    UnicodeNormalizer(QString::NormalizationForm form, QString name)
        : m_form(form), m_name(std::move(name))
    {}
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        unicode::normalize(text, m_form);
        return true;
    }
    QString describe() const override { return m_name; }

private:
    QString::NormalizationForm m_form;
    QString m_name;
};

class LowercaseNormalizer : public Normalizer
{
public:
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        unicode::lowercase(text);
        return true;
    }
    QString describe() const override { return QStringLiteral("Lowercase"); }
};

class StripAccentsNormalizer : public Normalizer
{
public:
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        // is_combining_mark: general category M of Unicode 9.0 (the crate's table).
        text.filter([](char32_t c) { return !unicode::isCombiningMark(c); });
        return true;
    }
    QString describe() const override { return QStringLiteral("StripAccents"); }
};

class StripNormalizer : public Normalizer
{
public:
    bool left = true;
    bool right = true;
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        text.strip(left, right);
        return true;
    }
    QString describe() const override { return QStringLiteral("Strip"); }
};

class NmtNormalizer : public Normalizer
{
public:
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        // normalizers/unicode.rs do_nmt: some control characters removed, some spaces unified.
        text.filter([](char32_t c) {
            return !((c >= 0x1 && c <= 0x8) || c == 0xB || (c >= 0xE && c <= 0x1F) || c == 0x7F ||
                     c == 0x8F || c == 0x9F);
        });
        text.map([](char32_t c) {
            const bool space = c == 0x9 || c == 0xA || c == 0xC || c == 0xD || c == 0x1680 ||
                               (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 ||
                               c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
            return space ? U' ' : c;
        });
        return true;
    }
    QString describe() const override { return QStringLiteral("Nmt"); }
};

class ReplaceNormalizer : public Normalizer
{
public:
    ReplaceNormalizer(TextPattern pattern, std::u32string content)
        : m_pattern(std::move(pattern)), m_content(std::move(content))
    {}
    bool normalize(NormalizedString &text, EncodeContext &context) const override
    {
        std::vector<PatternMatch> matches;
        if (!m_pattern.findMatches(text.text(), &matches, context))
            return false;
        // The length the replacement makes, checked before it is built.
        qint64 length = text.size();
        for (const PatternMatch &m : matches)
            if (m.isMatch)
                length += qint64(m_content.size()) - (m.end - m.start);
        if (!context.checkLength(length, describe()))
            return false;
        text.replace(matches, m_content);
        return true;
    }
    QString describe() const override
    {
        return QStringLiteral("Replace %1").arg(m_pattern.description());
    }

private:
    TextPattern m_pattern;
    std::u32string m_content;
};

class PrependNormalizer : public Normalizer
{
public:
    explicit PrependNormalizer(std::u32string prefix) : m_prefix(std::move(prefix)) {}
    bool normalize(NormalizedString &text, EncodeContext &context) const override
    {
        if (!text.isEmpty() &&
            !context.checkLength(text.size() + qint64(m_prefix.size()), describe()))
            return false;
        text.prepend(m_prefix);
        return true;
    }
    QString describe() const override { return QStringLiteral("Prepend"); }

private:
    std::u32string m_prefix;
};

class ByteLevelNormalizer : public Normalizer
{
public:
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
        bytelevel::toByteCharacters(text);
        return true;
    }
    QString describe() const override { return QStringLiteral("ByteLevel"); }
};

// normalizers/precompiled.rs (tokenizers 0.23): SentencePiece's compiled rules applied per
// extended grapheme cluster, each lookup spm_precompiled's Precompiled::transform(). A cluster
// of fewer than 6 UTF-8 bytes is looked up whole first; otherwise, or when it has no rule, each
// of its characters is looked up alone. Alignments: a replacement's characters keep the replaced
// ones one for one, extra characters count as inserted at the end, and fewer characters take the
// difference from the character pushed last (none at the text's start, where an empty
// replacement is recorded nowhere, as in precompiled.rs, whose changes ride on the characters a
// replacement pushes). These give tokenizers 0.23.2's offsets on the cases tested
// (precompiledOffsets, T5's shared cases); precompiled.rs spells its changes differently.
class PrecompiledNormalizer : public Normalizer
{
public:
    explicit PrecompiledNormalizer(PrecompiledCharsmap charsmap) : m_charsmap(std::move(charsmap))
    {}

    bool normalize(NormalizedString &text, EncodeContext &context) const override
    {
        const std::u32string &chars = text.text();
        if (chars.empty())
            return true;
        const QString utf16 = unicode::fromU32(chars);
        QTextBoundaryFinder graphemes(QTextBoundaryFinder::Grapheme, utf16);
        // The changes are recorded from the first replacement on (the characters before it
        // added then): a text the rules leave alone (plain ASCII) costs no 16 bytes a character.
        std::vector<CharChange> changes;
        bool modified = false;
        std::string key;
        std::u32string replacement;
        QString error;
        qsizetype cp = 0;  // code point where the current grapheme starts
        qsizetype u16 = 0; // and the same place in UTF-16
        // Output length bound: the stage may not grow the text past the context's limit.
        qsizetype produced = 0;
        const auto apply = [&](qsizetype oldCount, qsizetype at) {
            if (!modified) {
                changes.reserve(chars.size());
                for (qsizetype k = 0; k < at; ++k)
                    changes.push_back({chars[std::size_t(k)], 0});
            }
            modified = true;
            const qsizetype diff = qsizetype(replacement.size()) - oldCount;
            for (const char32_t c : replacement)
                changes.push_back({c, 0});
            if (diff > 0) {
                for (qsizetype k = 0; k < diff; ++k)
                    changes[changes.size() - 1 - std::size_t(k)].change = 1;
            } else if (diff < 0 && !changes.empty()) {
                changes.back().change += diff;
            }
            produced += qsizetype(replacement.size());
        };
        const auto lookup = [&](qsizetype from, qsizetype to) {
            key.clear();
            for (qsizetype i = from; i < to; ++i)
                unicode::appendUtf8(key, chars[std::size_t(i)]);
            return m_charsmap.transform(key, &replacement, &error);
        };
        while (graphemes.toNextBoundary() >= 0) {
            const qsizetype end16 = graphemes.position();
            qsizetype end = cp;
            while (u16 < end16 && end < qsizetype(chars.size())) {
                const char32_t c = chars[std::size_t(end)];
                u16 += c > 0xFFFF && c <= 0x10FFFF ? 2 : 1; // as fromU32 wrote it
                ++end;
            }
            if (utf8Length(chars, cp, end) < 6) {
                const PrecompiledCharsmap::Lookup whole = lookup(cp, end);
                if (whole == PrecompiledCharsmap::Lookup::Broken)
                    return context.fail(error);
                if (whole == PrecompiledCharsmap::Lookup::Replaced) {
                    apply(end - cp, cp);
                    cp = end;
                    if (!context.checkLength(produced, describe()))
                        return false;
                    continue;
                }
            }
            for (qsizetype i = cp; i < end; ++i) {
                const PrecompiledCharsmap::Lookup one = lookup(i, i + 1);
                if (one == PrecompiledCharsmap::Lookup::Broken)
                    return context.fail(error);
                if (one == PrecompiledCharsmap::Lookup::Replaced) {
                    apply(1, i);
                } else {
                    if (modified)
                        changes.push_back({chars[std::size_t(i)], 0});
                    ++produced;
                }
            }
            cp = end;
            if (!context.checkLength(produced, describe()))
                return false;
        }
        if (modified)
            text.transform(changes, 0);
        return true;
    }
    QString describe() const override { return QStringLiteral("Precompiled"); }

private:
    static qsizetype utf8Length(const std::u32string &chars, qsizetype from, qsizetype to)
    {
        qsizetype n = 0;
        for (qsizetype i = from; i < to; ++i) {
            const char32_t c = chars[std::size_t(i)];
            n += unicode::utf8Length(c);
        }
        return n;
    }

    PrecompiledCharsmap m_charsmap;
};

class SequenceNormalizer : public Normalizer
{
public:
    std::vector<std::unique_ptr<Normalizer>> steps;
    bool normalize(NormalizedString &text, EncodeContext &context) const override
    {
        const QString outer = context.stage;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            context.stage =
                QStringLiteral("normalizer %1 (%2)").arg(i + 1).arg(steps[i]->describe());
            // Each step is bounded in length, not in time: 2,000 NFKC steps over 100 KB would
            // take a minute.
            if (context.expired() || !steps[i]->normalize(text, context) ||
                !context.checkLength(text.size(), {}))
                return false;
        }
        context.stage = outer;
        return true;
    }
    QString describe() const override { return describeSteps(steps); }
};

} // namespace

std::optional<TextPattern> readTextPattern(const QJsonObject &o, const QString &path, JsonReader &r)
{
    // ReplacePattern / SplitPattern: {"String": "..."} or {"Regex": "..."}.
    const QJsonObject pattern =
        r.component(o.value(QLatin1StringView("pattern")), JsonReader::child(path, "pattern"));
    const QString patternPath = JsonReader::child(path, "pattern");
    if (!r.ok())
        return std::nullopt;
    if (pattern.contains(QLatin1StringView("String")))
        return TextPattern::literal(
            unicode::toU32(r.requiredString(pattern, patternPath, "String")));
    if (pattern.contains(QLatin1StringView("Regex"))) {
        const QString source = r.requiredString(pattern, patternPath, "Regex");
        QString error;
        std::optional<TextPattern> regex = TextPattern::regex(source, &error);
        if (!regex)
            r.fail(JsonReader::child(patternPath, "Regex"), error);
        return regex;
    }
    r.fail(patternPath, QStringLiteral("should be {\"String\": ...} or {\"Regex\": ...}"));
    return std::nullopt;
}

std::unique_ptr<Normalizer> readNormalizer(const QJsonValue &value, const QString &path,
                                           JsonReader &r)
{
    const QJsonObject o = r.component(value, path);
    const QString type = r.type(o, path);
    if (!r.ok())
        return nullptr;
    std::unique_ptr<Normalizer> out;
    if (type == QLatin1StringView("BertNormalizer")) {
        auto n = std::make_unique<BertNormalizer>();
        n->cleanText = r.boolean(o, path, "clean_text", true);
        n->handleChineseChars = r.boolean(o, path, "handle_chinese_chars", true);
        if (o.value(QLatin1StringView("strip_accents")).isBool())
            n->stripAccents = o.value(QLatin1StringView("strip_accents")).toBool();
        else if (!o.value(QLatin1StringView("strip_accents")).isNull())
            r.boolean(o, path, "strip_accents", false); // reports the wrong type
        n->lowercase = r.boolean(o, path, "lowercase", true);
        out = std::move(n);
    } else if (type == QLatin1StringView("NFC")) {
        out = std::make_unique<UnicodeNormalizer>(QString::NormalizationForm_C, type);
    } else if (type == QLatin1StringView("NFD")) {
        out = std::make_unique<UnicodeNormalizer>(QString::NormalizationForm_D, type);
    } else if (type == QLatin1StringView("NFKC")) {
        out = std::make_unique<UnicodeNormalizer>(QString::NormalizationForm_KC, type);
    } else if (type == QLatin1StringView("NFKD")) {
        out = std::make_unique<UnicodeNormalizer>(QString::NormalizationForm_KD, type);
    } else if (type == QLatin1StringView("Lowercase")) {
        out = std::make_unique<LowercaseNormalizer>();
    } else if (type == QLatin1StringView("StripAccents")) {
        out = std::make_unique<StripAccentsNormalizer>();
    } else if (type == QLatin1StringView("Strip")) {
        auto n = std::make_unique<StripNormalizer>();
        n->left = r.boolean(o, path, "strip_left", true);
        n->right = r.boolean(o, path, "strip_right", true);
        out = std::move(n);
    } else if (type == QLatin1StringView("Nmt")) {
        out = std::make_unique<NmtNormalizer>();
    } else if (type == QLatin1StringView("Replace")) {
        std::optional<TextPattern> pattern = readTextPattern(o, path, r);
        const QString content = r.requiredString(o, path, "content");
        if (pattern)
            out = std::make_unique<ReplaceNormalizer>(std::move(*pattern), unicode::toU32(content));
    } else if (type == QLatin1StringView("Prepend")) {
        out = std::make_unique<PrependNormalizer>(
            unicode::toU32(r.requiredString(o, path, "prepend")));
    } else if (type == QLatin1StringView("ByteLevel")) {
        out = std::make_unique<ByteLevelNormalizer>();
    } else if (type == QLatin1StringView("Sequence")) {
        auto seq = std::make_unique<SequenceNormalizer>();
        seq->steps = readSteps<Normalizer>(o, path, "normalizers", r, readNormalizer);
        out = std::move(seq);
    } else if (type == QLatin1StringView("Precompiled")) {
        // spm_precompiled's from_base64: the standard alphabet, padded.
        const QString encoded = r.requiredString(o, path, "precompiled_charsmap");
        const QByteArray::FromBase64Result blob = QByteArray::fromBase64Encoding(
            encoded.toLatin1(),
            QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
        QString error;
        if (r.ok() && (!blob || encoded.size() % 4 != 0)) {
            r.fail(JsonReader::child(path, "precompiled_charsmap"),
                   QStringLiteral("is not base64"));
        } else if (r.ok()) {
            std::optional<PrecompiledCharsmap> charsmap =
                PrecompiledCharsmap::fromBlob(*blob, &error);
            if (charsmap)
                out = std::make_unique<PrecompiledNormalizer>(std::move(*charsmap));
            else
                r.fail(JsonReader::child(path, "precompiled_charsmap"), error);
        }
    } else {
        r.fail(path, QStringLiteral("unknown normalizer type \"%1\"").arg(type));
    }
    return r.ok() ? std::move(out) : nullptr;
}

} // namespace pe
