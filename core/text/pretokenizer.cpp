#include "pretokenizer.h"

#include "bytelevel.h"
#include "normalizer.h"
#include "textpattern.h"
#include "unicodetext.h"

#include <QChar>

#include <array>

namespace pe {

namespace {

// Splits every piece with `pattern` and `behavior` (NormalizedString::split on find_matches).
bool splitWith(PreTokenizedString &text, const TextPattern &pattern, SplitBehavior behavior,
               EncodeContext &context)
{
    std::vector<PatternMatch> matches;
    return text.split([&](NormalizedString piece, std::vector<NormalizedString> *parts) {
        if (!pattern.findMatches(piece.text(), &matches, context))
            return false;
        *parts = std::move(piece).split(matches, behavior);
        return true;
    });
}

// byte_level.rs RE, with \s and \S spelled as the White_Space property, which is what
// Oniguruma's \s is (PCRE2's also takes U+180E, a format character since Unicode 6.3).
const TextPattern &gpt2Pattern()
{
    static const TextPattern pattern = *TextPattern::regex(
        QStringLiteral("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\p{White_Space}\\p{L}"
                       "\\p{N}]+|\\p{White_Space}+(?!\\P{White_Space})|\\p{White_Space}+"),
        nullptr);
    return pattern;
}

class ByteLevelPreTokenizer : public PreTokenizer
{
public:
    bool addPrefixSpace = true;
    bool useRegex = true;

    bool preTokenize(PreTokenizedString &text, EncodeContext &context) const override
    {
        std::vector<PatternMatch> matches;
        const bool split =
            text.split([&](NormalizedString piece, std::vector<NormalizedString> *parts) {
                if (addPrefixSpace && (piece.isEmpty() || piece.text().front() != U' '))
                    piece.prepend(U" ");
                if (!useRegex) {
                    parts->push_back(std::move(piece));
                    return true;
                }
                if (!gpt2Pattern().findMatches(piece.text(), &matches, context))
                    return false;
                *parts = std::move(piece).split(matches, SplitBehavior::Isolated);
                return true;
            });
        return split && text.normalize([](NormalizedString &piece) {
            bytelevel::toByteCharacters(piece);
            return true;
        });
    }
    QString describe() const override { return QStringLiteral("ByteLevel"); }
};

class BertPreTokenizer : public PreTokenizer
{
public:
    bool preTokenize(PreTokenizedString &text, EncodeContext &context) const override
    {
        static const TextPattern whitespace = TextPattern::characters(unicode::isWhitespace);
        static const TextPattern punctuation = TextPattern::characters(unicode::isPunctuation);
        return splitWith(text, whitespace, SplitBehavior::Removed, context) &&
               splitWith(text, punctuation, SplitBehavior::Isolated, context);
    }
    QString describe() const override { return QStringLiteral("BertPreTokenizer"); }
};

class WhitespacePreTokenizer : public PreTokenizer
{
public:
    bool preTokenize(PreTokenizedString &text, EncodeContext &context) const override
    {
        // whitespace.rs: the regex crate's \w+|[^\w\s]+, inverted, the rest removed.
        static const TextPattern words =
            TextPattern::regex(
                QStringLiteral("[%1]+|[^%1\\p{White_Space}]+").arg(unicode::wordCharacterClass()),
                nullptr)
                ->inverted();
        return splitWith(text, words, SplitBehavior::Removed, context);
    }
    QString describe() const override { return QStringLiteral("Whitespace"); }
};

class SplitPreTokenizer : public PreTokenizer
{
public:
    SplitPreTokenizer(TextPattern pattern, SplitBehavior behavior, QString name)
        : m_pattern(std::move(pattern)), m_behavior(behavior), m_name(std::move(name))
    {}
    bool preTokenize(PreTokenizedString &text, EncodeContext &context) const override
    {
        return splitWith(text, m_pattern, m_behavior, context);
    }
    QString describe() const override { return m_name; }

private:
    TextPattern m_pattern;
    SplitBehavior m_behavior;
    QString m_name;
};

enum class PrependScheme { Always, First, Never };

class MetaspacePreTokenizer : public PreTokenizer
{
public:
    char32_t replacement = U'\u2581';
    PrependScheme prependScheme = PrependScheme::Always;
    bool splitOnReplacement = true;

    bool preTokenize(PreTokenizedString &text, EncodeContext &context) const override
    {
        const TextPattern spaces = TextPattern::literal(U" ");
        const TextPattern metaspace = TextPattern::literal(std::u32string(1, replacement));
        const std::u32string replacementText(1, replacement);
        std::vector<PatternMatch> matches;
        return text.split([&](NormalizedString piece, std::vector<NormalizedString> *parts) {
            if (!spaces.findMatches(piece.text(), &matches, context))
                return false;
            piece.replace(matches, replacementText);
            const bool startsWithIt = !piece.isEmpty() && piece.text().front() == replacement;
            if (!startsWithIt &&
                (prependScheme == PrependScheme::Always ||
                 (prependScheme == PrependScheme::First && piece.originalStart() == 0)))
                piece.prepend(replacementText);
            if (!splitOnReplacement) {
                parts->push_back(std::move(piece));
                return true;
            }
            if (!metaspace.findMatches(piece.text(), &matches, context))
                return false;
            *parts = std::move(piece).split(matches, SplitBehavior::MergedWithNext);
            return true;
        });
    }
    QString describe() const override { return QStringLiteral("Metaspace"); }
};

class FixedLengthPreTokenizer : public PreTokenizer
{
public:
    qsizetype length = 5;
    bool preTokenize(PreTokenizedString &text, EncodeContext &) const override
    {
        return text.split([&](const NormalizedString &piece, std::vector<NormalizedString> *parts) {
            for (qsizetype i = 0; i < piece.size(); i += length)
                parts->push_back(piece.slice(i, std::min(piece.size(), i + length)));
            return true;
        });
    }
    QString describe() const override { return QStringLiteral("FixedLength"); }
};

class UnicodeScriptsPreTokenizer : public PreTokenizer
{
public:
    bool preTokenize(PreTokenizedString &text, EncodeContext &) const override
    {
        // unicode_scripts/pre_tokenizer.rs: a piece ends wherever the script changes, spaces and
        // unassigned characters belonging to any script; kana and U+30FC count as Han.
        return text.split([&](const NormalizedString &piece, std::vector<NormalizedString> *parts) {
            std::vector<qsizetype> bounds;
            std::optional<int> last;
            for (qsizetype i = 0; i < piece.size(); ++i) {
                const int script = fixedScript(piece.text()[std::size_t(i)]);
                if (script != anyScript && last != anyScript && last != script)
                    bounds.push_back(i);
                if (script != anyScript)
                    last = script;
            }
            bounds.push_back(piece.size());
            for (std::size_t k = 1; k < bounds.size(); ++k)
                parts->push_back(piece.slice(bounds[k - 1], bounds[k]));
            return true;
        });
    }
    QString describe() const override { return QStringLiteral("UnicodeScripts"); }

private:
    static constexpr int anyScript = -1;
    static int fixedScript(char32_t c)
    {
        if (c == 0x30FC)
            return QChar::Script_Han;
        if (c == U' ')
            return anyScript;
        const QChar::Script s = QChar::script(c);
        if (s == QChar::Script_Unknown)
            return anyScript;
        if (s == QChar::Script_Hiragana || s == QChar::Script_Katakana)
            return QChar::Script_Han;
        return s;
    }
};

class SequencePreTokenizer : public PreTokenizer
{
public:
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    bool preTokenize(PreTokenizedString &text, EncodeContext &context) const override
    {
        const QString outer = context.stage;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            context.stage =
                QStringLiteral("pre-tokenizer %1 (%2)").arg(i + 1).arg(steps[i]->describe());
            if (context.expired() || !steps[i]->preTokenize(text, context))
                return false;
            qint64 length = 0;
            for (const TextSplit &split : text.splits())
                length += split.text.size();
            if (!context.checkLength(length, {}))
                return false;
        }
        context.stage = outer;
        return true;
    }
    QString describe() const override { return describeSteps(steps); }
};

// "behavior"; Split requires one (fallback null), Punctuation defaults to Isolated.
SplitBehavior readBehavior(const QJsonObject &o, const QString &path, JsonReader &r,
                           const char *fallback)
{
    const QString name = fallback ? r.string(o, path, "behavior", QString::fromLatin1(fallback))
                                  : r.requiredString(o, path, "behavior");
    const std::optional<SplitBehavior> behavior = splitBehaviorFromName(name);
    if (!behavior && r.ok())
        r.fail(JsonReader::child(path, "behavior"),
               QStringLiteral("unknown split behavior \"%1\"").arg(name));
    return behavior.value_or(SplitBehavior::Isolated);
}

std::unique_ptr<PreTokenizer> readMetaspace(const QJsonObject &o, const QString &path,
                                            JsonReader &r)
{
    auto p = std::make_unique<MetaspacePreTokenizer>();
    p->replacement = r.character(o, path, "replacement", U'\u2581');
    const QString scheme = r.string(o, path, "prepend_scheme", QStringLiteral("always"));
    if (scheme == QLatin1StringView("always"))
        p->prependScheme = PrependScheme::Always;
    else if (scheme == QLatin1StringView("first"))
        p->prependScheme = PrependScheme::First;
    else if (scheme == QLatin1StringView("never"))
        p->prependScheme = PrependScheme::Never;
    else
        r.fail(JsonReader::child(path, "prepend_scheme"),
               QStringLiteral("should be \"always\", \"first\" or \"never\""));
    // Files from before prepend_scheme: add_prefix_space false means never.
    if (!r.boolean(o, path, "add_prefix_space", true)) {
        if (o.contains(QLatin1StringView("prepend_scheme")) &&
            p->prependScheme != PrependScheme::Never)
            r.fail(path, QStringLiteral("add_prefix_space does not match prepend_scheme"));
        p->prependScheme = PrependScheme::Never;
    }
    p->splitOnReplacement = r.boolean(o, path, "split", true);
    return p;
}

std::unique_ptr<PreTokenizer> readSplit(const QJsonObject &o, const QString &path, JsonReader &r)
{
    std::optional<TextPattern> pattern = readTextPattern(o, path, r);
    const SplitBehavior behavior = readBehavior(o, path, r, nullptr);
    const bool invert = r.boolean(o, path, "invert", false);
    if (!r.ok())
        return nullptr;
    const QString name = QStringLiteral("Split %1").arg(pattern->description());
    return std::make_unique<SplitPreTokenizer>(invert ? pattern->inverted() : *pattern, behavior,
                                               name);
}

std::unique_ptr<PreTokenizer> readSimple(const QString &type, const QJsonObject &o,
                                         const QString &path, JsonReader &r)
{
    if (type == QLatin1StringView("BertPreTokenizer"))
        return std::make_unique<BertPreTokenizer>();
    if (type == QLatin1StringView("Whitespace"))
        return std::make_unique<WhitespacePreTokenizer>();
    if (type == QLatin1StringView("WhitespaceSplit"))
        return std::make_unique<SplitPreTokenizer>(TextPattern::characters(unicode::isWhitespace),
                                                   SplitBehavior::Removed, type);
    if (type == QLatin1StringView("Punctuation"))
        return std::make_unique<SplitPreTokenizer>(TextPattern::characters(unicode::isPunctuation),
                                                   readBehavior(o, path, r, "Isolated"), type);
    if (type == QLatin1StringView("Digits")) {
        const bool individual = r.boolean(o, path, "individual_digits", false);
        return std::make_unique<SplitPreTokenizer>(
            TextPattern::characters(unicode::isNumeric),
            individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous, type);
    }
    if (type == QLatin1StringView("CharDelimiterSplit")) {
        const char32_t delimiter = r.character(o, path, "delimiter", 0);
        if (!o.contains(QLatin1StringView("delimiter")))
            r.fail(path, QStringLiteral("has no \"delimiter\""));
        return std::make_unique<SplitPreTokenizer>(
            TextPattern::literal(std::u32string(1, delimiter)), SplitBehavior::Removed, type);
    }
    if (type == QLatin1StringView("FixedLength")) {
        auto p = std::make_unique<FixedLengthPreTokenizer>();
        p->length = r.integer(o, path, "length", 5, 1);
        return p;
    }
    if (type == QLatin1StringView("UnicodeScripts"))
        return std::make_unique<UnicodeScriptsPreTokenizer>();
    return nullptr;
}

} // namespace

std::optional<SplitBehavior> splitBehaviorFromName(const QString &name)
{
    static constexpr std::array<std::pair<const char *, SplitBehavior>, 5> names{{
        {"Removed", SplitBehavior::Removed},
        {"Isolated", SplitBehavior::Isolated},
        {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
        {"MergedWithNext", SplitBehavior::MergedWithNext},
        {"Contiguous", SplitBehavior::Contiguous},
    }};
    for (const auto &[text, behavior] : names)
        if (name == QLatin1StringView(text))
            return behavior;
    return std::nullopt;
}

std::unique_ptr<PreTokenizer> readPreTokenizer(const QJsonValue &value, const QString &path,
                                               JsonReader &r)
{
    const QJsonObject o = r.component(value, path);
    const QString type = r.type(o, path);
    if (!r.ok())
        return nullptr;
    std::unique_ptr<PreTokenizer> out;
    if (type == QLatin1StringView("ByteLevel")) {
        auto p = std::make_unique<ByteLevelPreTokenizer>();
        p->addPrefixSpace = r.boolean(o, path, "add_prefix_space", true);
        p->useRegex = r.boolean(o, path, "use_regex", true);
        r.boolean(o, path, "trim_offsets", true); // the post-processor's setting
        out = std::move(p);
    } else if (type == QLatin1StringView("Metaspace")) {
        out = readMetaspace(o, path, r);
    } else if (type == QLatin1StringView("Split")) {
        out = readSplit(o, path, r);
    } else if (type == QLatin1StringView("Sequence")) {
        auto seq = std::make_unique<SequencePreTokenizer>();
        seq->steps = readSteps<PreTokenizer>(o, path, "pretokenizers", r, readPreTokenizer);
        out = std::move(seq);
    } else {
        out = readSimple(type, o, path, r);
        if (!out)
            r.fail(path, QStringLiteral("unknown pre-tokenizer type \"%1\"").arg(type));
    }
    return r.ok() ? std::move(out) : nullptr;
}

} // namespace pe
