#include "unicodetext.h"

#include <QChar>
#include <QRegularExpression>

#include <algorithm>
#include <optional>

namespace pe::unicode {

std::u32string toU32(const QString &s)
{
    const QList<uint> units = s.toUcs4();
    return {units.begin(), units.end()};
}

bool isWhitespace(char32_t c)
{
    // QChar::isSpace is the Separator categories plus U+0009-U+000D and U+0085: White_Space.
    return QChar::isSpace(c);
}

bool isNumeric(char32_t c)
{
    return QChar::isNumber(c);
}

bool isPunctuation(char32_t c)
{
    const bool asciiPunctuation = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
                                  (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
    return asciiPunctuation || QChar::isPunct(c);
}

QString wordCharacterClass()
{
    return QStringLiteral("\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}");
}

bool isWordCharacter(char32_t c)
{
    if (c < 0x80)
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
               c == u'_';
    // Alphabetic is a property QChar does not expose; PCRE2 (through Qt) knows it.
    static const QRegularExpression word(QStringLiteral("^[%1]$").arg(wordCharacterClass()),
                                         QRegularExpression::UseUnicodePropertiesOption);
    return word.match(QString::fromUcs4(&c, 1)).hasMatch();
}

namespace {

struct Decomposed
{
    int combiningClass;
    char32_t c;
    qsizetype change;
};

// The full canonical or compatibility decomposition of one character.
std::u32string decomposeOne(char32_t c, bool compatibility)
{
    return toU32(QString::fromUcs4(&c, 1).normalized(compatibility ? QString::NormalizationForm_KD
                                                                   : QString::NormalizationForm_D));
}

// The primary composite of a starter (or a composite already made) and the next character,
// when Unicode composes them.
std::optional<char32_t> composePair(char32_t a, char32_t b)
{
    const char32_t pair[2] = {a, b};
    const std::u32string composed =
        toU32(QString::fromUcs4(pair, 2).normalized(QString::NormalizationForm_C));
    if (composed.size() == 1)
        return composed.front();
    return std::nullopt;
}

// unicode-normalization-alignments' Decompositions: each character's decomposition, its first
// character with change 0 and the rest 1, then every run of non-starters ordered by combining
// class (stable), as the buffer is sorted whenever a starter arrives.
std::vector<Decomposed> decompose(std::u32string_view segment, bool compatibility)
{
    std::vector<Decomposed> out;
    std::size_t readyEnd = 0;
    const auto sortPending = [&] {
        std::stable_sort(out.begin() + qsizetype(readyEnd), out.end(),
                         [](const Decomposed &a, const Decomposed &b) {
                             return a.combiningClass < b.combiningClass;
                         });
        readyEnd = out.size();
    };
    for (const char32_t c : segment) {
        bool first = true;
        for (const char32_t d : decomposeOne(c, compatibility)) {
            const int cc = QChar::combiningClass(d);
            if (cc == 0)
                sortPending();
            out.push_back({cc, d, first ? 0 : 1});
            first = false;
        }
    }
    sortPending();
    return out;
}

// unicode-normalization-alignments' Recompositions: the canonical composition state machine,
// a composite carrying change k + change - 1 of the two it joins.
void recompose(const std::vector<Decomposed> &input, std::vector<CharChange> *out)
{
    std::optional<CharChange> composee;
    int lastClass = -1; // none: nothing blocked since the composee
    std::vector<CharChange> blocked;
    const auto flush = [&](const CharChange &k) {
        out->push_back(k);
        out->insert(out->end(), blocked.begin(), blocked.end());
        blocked.clear();
    };
    for (const Decomposed &d : input) {
        const CharChange ch{d.c, d.change};
        if (!composee) {
            if (d.combiningClass != 0)
                out->push_back(ch);
            else
                composee = ch;
            continue;
        }
        const CharChange k = *composee;
        if (lastClass >= 0 && lastClass >= d.combiningClass) {
            // Blocked from the composee by a mark of the same or a higher class.
            if (d.combiningClass == 0) {
                composee = ch;
                lastClass = -1;
                flush(k);
            } else {
                blocked.push_back(ch);
                lastClass = d.combiningClass;
            }
            continue;
        }
        if (const std::optional<char32_t> r = composePair(k.c, d.c)) {
            composee = CharChange{*r, k.change + d.change - 1};
            continue;
        }
        if (lastClass < 0 && d.combiningClass == 0) {
            composee = ch;
            flush(k);
            continue;
        }
        blocked.push_back(ch);
        lastClass = d.combiningClass;
    }
    if (composee)
        flush(*composee);
}

} // namespace

void normalize(NormalizedString &text, QString::NormalizationForm form)
{
    const bool compose =
        form == QString::NormalizationForm_C || form == QString::NormalizationForm_KC;
    const bool compatibility =
        form == QString::NormalizationForm_KD || form == QString::NormalizationForm_KC;
    const std::u32string &s = text.text();
    if (std::all_of(s.begin(), s.end(), [](char32_t c) { return c < 0x80; }))
        return; // ASCII is in every normal form
    std::vector<CharChange> changes;
    changes.reserve(s.size());
    bool changed = false;
    // An ASCII character is a starter that decomposes to itself and composes with nothing
    // before it, so the text normalizes in independent segments, each starting at one.
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t j = i + 1;
        while (j < s.size() && s[j] >= 0x80)
            ++j;
        const std::u32string_view segment(s.data() + i, j - i);
        const QString q = QString::fromUcs4(segment.data(), qsizetype(segment.size()));
        if ((j - i == 1 && s[i] < 0x80) || q.normalized(form) == q) {
            // Unchanged by the form: every character replaces itself.
            for (const char32_t c : segment)
                changes.push_back({c, 0});
        } else {
            changed = true;
            const std::vector<Decomposed> decomposed = decompose(segment, compatibility);
            if (compose) {
                recompose(decomposed, &changes);
            } else {
                for (const Decomposed &d : decomposed)
                    changes.push_back({d.c, d.change});
            }
        }
        i = j;
    }
    if (changed)
        text.transform(changes, 0);
}

void lowercase(NormalizedString &text)
{
    std::vector<CharChange> changes;
    changes.reserve(std::size_t(text.size()));
    bool expands = false;
    for (const char32_t c : text.text()) {
        if (c < 0x80) {
            changes.push_back({c >= u'A' && c <= u'Z' ? c + 32 : c, 0});
            continue;
        }
        // QString::toLower applies the full mappings (İ becomes i + U+0307), as Rust's
        // char::to_lowercase does; QChar::toLower only the simple ones.
        const std::u32string lower = toU32(QString::fromUcs4(&c, 1).toLower());
        for (std::size_t k = 0; k < lower.size(); ++k)
            changes.push_back({lower[k], k == 0 ? 0 : 1});
        expands = expands || lower.size() != 1;
    }
    if (expands) {
        text.transform(changes, 0);
    } else {
        std::size_t k = 0;
        text.map([&](char32_t) { return changes[k++].c; });
    }
}

} // namespace pe::unicode
