// What the Split pre-tokenizer and the Replace normalizer search for (tokenizers' Pattern trait,
// tokenizer/pattern.rs): a literal string, a regular expression, or a class of characters.
// Regular expressions come from the file, so they run under limits: Qt's QRegularExpression
// (PCRE2, Unicode properties on) with a per-position backtracking limit written into the
// pattern, which lets a pattern that backtracks catastrophically fail with a message instead of
// running for hours.
#pragma once

#include "encodecontext.h"
#include "normalizedstring.h"

#include <QRegularExpression>
#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe {

class TextPattern
{
public:
    // Backtracking steps PCRE2 may take from one start position ((*LIMIT_MATCH)); the patterns
    // of real tokenizers need a few dozen, a run of 20,000 spaces under Llama 3's pattern
    // about 40,000. Between searches the encoding's deadline is checked too.
    static constexpr int matchLimit = 100000;
    static constexpr qsizetype maxPatternLength = qsizetype(64) * 1024;

    // A literal string, found left to right without overlaps (the library escapes it into a
    // regular expression; an empty string matches between every two characters there too).
    static TextPattern literal(std::u32string text);
    // A regular expression in the file's (Oniguruma) syntax, compiled by PCRE2. nullopt with
    // the compiler's message when it does not compile or is longer than maxPatternLength.
    static std::optional<TextPattern> regex(const QString &pattern, QString *error);
    // Every character for which `test` is true is a match of its own (Pattern for Fn(char)).
    static TextPattern characters(std::function<bool(char32_t)> test);

    // The same pattern with matches and non-matches swapped (pattern::Invert).
    TextPattern inverted() const;

    // find_matches: spans covering `text`, matches and the text between them. false, with the
    // reason in `context`, when the regular expression gives up (its backtracking limit) or the
    // encoding's deadline passes.
    bool findMatches(std::u32string_view text, std::vector<PatternMatch> *out,
                     EncodeContext &context) const;

    const QString &description() const { return m_description; }

private:
    enum class Kind { Literal, Regex, Characters };
    TextPattern(Kind kind, QString description)
        : m_kind(kind), m_description(std::move(description))
    {}
    bool findRegex(std::u32string_view text, std::vector<PatternMatch> *out,
                   EncodeContext &context) const;
    void findLiteral(std::u32string_view text, std::vector<PatternMatch> *out) const;
    void findCharacters(std::u32string_view text, std::vector<PatternMatch> *out) const;

    Kind m_kind;
    QString m_description;
    bool m_inverted = false;
    std::u32string m_literal;
    QRegularExpression m_regex;
    std::function<bool(char32_t)> m_test;
};

} // namespace pe
