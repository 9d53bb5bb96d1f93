#include "textpattern.h"

#include "unicodetext.h"

#include <QRegularExpressionMatch>

namespace pe {

namespace {

// PCRE2 takes the last of several (*LIMIT_...) settings at the start of a pattern, so ours go
// after the pattern's own leading (*...) items, where a file cannot raise them.
QString withLimits(const QString &pattern)
{
    static const QRegularExpression leadingVerbs(
        QStringLiteral("^(?:\\(\\*[A-Za-z_]+(?:=\\d+)?\\))*"));
    const qsizetype verbs = leadingVerbs.match(pattern).capturedLength();
    // LIMIT_HEAP bounds the interpreter's memory (KiB) when Qt runs without its JIT.
    return pattern.left(verbs) +
           QStringLiteral("(*LIMIT_MATCH=%1)(*LIMIT_DEPTH=%1)(*LIMIT_HEAP=65536)")
               .arg(TextPattern::matchLimit) +
           pattern.mid(verbs);
}

// Code-point offsets of the UTF-16 offsets of `subject`, when it has surrogate pairs.
std::vector<qsizetype> codePointOffsets(const QString &subject)
{
    std::vector<qsizetype> out(std::size_t(subject.size()) + 1);
    qsizetype cp = 0;
    for (qsizetype i = 0; i < subject.size(); ++i) {
        out[std::size_t(i)] = cp;
        if (!(subject.at(i).isLowSurrogate() && i > 0 && subject.at(i - 1).isHighSurrogate()))
            ++cp;
        else
            out[std::size_t(i)] = cp - 1;
    }
    out[std::size_t(subject.size())] = cp;
    return out;
}

} // namespace

TextPattern TextPattern::literal(std::u32string text)
{
    if (text.empty()) {
        // The library's escaped empty pattern matches the empty string everywhere.
        TextPattern p = *regex(QString(), nullptr);
        p.m_description = QStringLiteral("\"\"");
        return p;
    }
    TextPattern p(Kind::Literal, QLatin1Char('"') + unicode::fromU32(text) + QLatin1Char('"'));
    p.m_literal = std::move(text);
    return p;
}

std::optional<TextPattern> TextPattern::regex(const QString &pattern, QString *error)
{
    if (pattern.size() > maxPatternLength) {
        if (error)
            *error = QStringLiteral("the regular expression is %1 characters long (at most %2)")
                         .arg(pattern.size())
                         .arg(maxPatternLength);
        return std::nullopt;
    }
    TextPattern p(Kind::Regex, QStringLiteral("/%1/").arg(pattern));
    p.m_regex =
        QRegularExpression(withLimits(pattern), QRegularExpression::UseUnicodePropertiesOption);
    if (!p.m_regex.isValid()) {
        if (error)
            *error = QStringLiteral("the regular expression /%1/ does not compile: %2")
                         .arg(pattern, p.m_regex.errorString());
        return std::nullopt;
    }
    p.m_regex.optimize();
    return p;
}

TextPattern TextPattern::characters(std::function<bool(char32_t)> test)
{
    TextPattern p(Kind::Characters, QStringLiteral("a class of characters"));
    p.m_test = std::move(test);
    return p;
}

TextPattern TextPattern::inverted() const
{
    TextPattern p = *this;
    p.m_inverted = !m_inverted;
    return p;
}

bool TextPattern::findMatches(std::u32string_view text, std::vector<PatternMatch> *out,
                              EncodeContext &context) const
{
    out->clear();
    if (text.empty()) {
        out->push_back({0, 0, m_inverted});
        return true;
    }
    switch (m_kind) {
    case Kind::Literal:
        findLiteral(text, out);
        break;
    case Kind::Characters:
        findCharacters(text, out);
        break;
    case Kind::Regex:
        if (!findRegex(text, out, context))
            return false;
        break;
    }
    if (m_inverted)
        for (PatternMatch &m : *out)
            m.isMatch = !m.isMatch;
    return true;
}

void TextPattern::findLiteral(std::u32string_view text, std::vector<PatternMatch> *out) const
{
    std::size_t previous = 0;
    for (std::size_t at = text.find(m_literal); at != std::u32string_view::npos;
         at = text.find(m_literal, previous)) {
        if (at != previous)
            out->push_back({qsizetype(previous), qsizetype(at), false});
        previous = at + m_literal.size();
        out->push_back({qsizetype(at), qsizetype(previous), true});
    }
    if (previous != text.size())
        out->push_back({qsizetype(previous), qsizetype(text.size()), false});
}

void TextPattern::findCharacters(std::u32string_view text, std::vector<PatternMatch> *out) const
{
    qsizetype previous = 0;
    for (qsizetype i = 0; i < qsizetype(text.size()); ++i) {
        if (!m_test(text[std::size_t(i)]))
            continue;
        if (previous < i)
            out->push_back({previous, i, false});
        out->push_back({i, i + 1, true});
        previous = i + 1;
    }
    if (previous < qsizetype(text.size()))
        out->push_back({previous, qsizetype(text.size()), false});
}

bool TextPattern::findRegex(std::u32string_view text, std::vector<PatternMatch> *out,
                            EncodeContext &context) const
{
    const QString subject = unicode::fromU32(text);
    std::vector<qsizetype> toCodePoint;
    if (subject.size() != qsizetype(text.size()))
        toCodePoint = codePointOffsets(subject);
    const auto cp = [&](qsizetype i) {
        return toCodePoint.empty() ? i : toCodePoint[std::size_t(i)];
    };
    // The onig crate's FindMatches (as regex's): after an empty match the search moves on one
    // character, and an empty match right where the previous match ended is dropped.
    qsizetype searchFrom = 0;
    qsizetype lastMatchEnd = -1;
    qsizetype previous = 0;
    while (searchFrom <= subject.size()) {
        if (context.deadline.hasExpired() &&
            context.expired(QStringLiteral("pattern %1").arg(m_description),
                            QStringLiteral("its pattern %1 may backtrack too much for this text")
                                .arg(m_description)))
            return false;
        // The subject is valid UTF-16 (made from code points); checking it costs its length
        // on every call.
        const QRegularExpressionMatch m =
            m_regex.match(subject, searchFrom, QRegularExpression::NormalMatch,
                          QRegularExpression::DontCheckSubjectStringMatchOption);
        if (!m.isValid())
            return context.fail(
                QStringLiteral("the pattern %1 gave up on this text (more than %2 backtracking "
                               "steps from one position)")
                    .arg(m_description)
                    .arg(matchLimit));
        if (!m.hasMatch())
            break;
        const qsizetype start = m.capturedStart();
        const qsizetype end = m.capturedEnd();
        if (start == end) {
            const bool pair = end + 1 < subject.size() && subject.at(end).isHighSurrogate() &&
                              subject.at(end + 1).isLowSurrogate();
            searchFrom = end + (pair ? 2 : 1);
            if (end == lastMatchEnd)
                continue;
        } else {
            searchFrom = end;
        }
        lastMatchEnd = end;
        if (cp(start) != previous)
            out->push_back({previous, cp(start), false});
        out->push_back({cp(start), cp(end), true});
        previous = cp(end);
    }
    if (previous != qsizetype(text.size()))
        out->push_back({previous, qsizetype(text.size()), false});
    return true;
}

} // namespace pe
