#include "normalizer.h"

#include "bytelevel.h"
#include "textpattern.h"
#include "unicodetext.h"

#include <QChar>

#include <optional>
#include <vector>

namespace pe {

namespace {

bool isOtherCategory(char32_t c)
{
    // unicode_categories' is_other: Cc, Cf, Cn, Co, Cs.
    switch (QChar::category(c)) {
    case QChar::Other_Control:
    case QChar::Other_Format:
    case QChar::Other_NotAssigned:
    case QChar::Other_PrivateUse:
    case QChar::Other_Surrogate:
        return true;
    default:
        return false;
    }
}

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
                const bool control = c != u'\t' && c != u'\n' && c != u'\r' && isOtherCategory(c);
                return !(c == 0 || c == 0xFFFD || control);
            });
            text.map([](char32_t c) { return unicode::isWhitespace(c) ? U' ' : c; });
        }
        if (handleChineseChars)
            spaceChineseCharacters(text);
        if (stripAccents.value_or(lowercase)) {
            unicode::normalize(text, QString::NormalizationForm_D);
            text.filter([](char32_t c) { return QChar::category(c) != QChar::Mark_NonSpacing; });
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
        // is_combining_mark: general category M.
        text.filter([](char32_t c) { return !QChar::isMark(c); });
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
    bool normalize(NormalizedString &text, EncodeContext &) const override
    {
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

class SequenceNormalizer : public Normalizer
{
public:
    std::vector<std::unique_ptr<Normalizer>> steps;
    bool normalize(NormalizedString &text, EncodeContext &context) const override
    {
        for (const auto &step : steps)
            if (!step->normalize(text, context))
                return false;
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
        r.fail(path, QStringLiteral("the normalizer \"Precompiled\" (SentencePiece's compiled "
                                    "normalization rules) is not supported"));
    } else {
        r.fail(path, QStringLiteral("unknown normalizer type \"%1\"").arg(type));
    }
    return r.ok() ? std::move(out) : nullptr;
}

} // namespace pe
