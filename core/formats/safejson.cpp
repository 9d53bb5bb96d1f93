#include "safejson.h"

#include <QHashFunctions>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringDecoder>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace pe {

namespace {

constexpr qint64 minimumBudget = qint64(64) * 1024;

// A key of an open object: where its quoted text lies and the hash of its unescaped UTF-8.
// Keys are compared only when their hashes agree, so a container's keys cost 24 bytes each
// instead of a copy of each.
struct Key
{
    size_t hash;
    qint64 begin, end; // the quoted text, both quotes included
};

struct Frame
{
    bool isObject = false;
    qint64 entries = 0;
    std::vector<Key> keys;
};

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isBlank(QByteArrayView text)
{
    return std::all_of(text.begin(), text.end(), isJsonSpace);
}

} // namespace

namespace {

// Qt's JSON parser (6.4) stores a string without escapes as its UTF-8 and decodes it with
// QString::fromUtf8, which drops a U+FEFF at the string's start as a byte order mark. Written as
// the escape \ufeff it is kept. Only a raw U+FEFF inside a string and not escaped is rewritten,
// where the escape means the same; elsewhere (outside strings, or right after an escaping
// backslash, which makes "\<U+FEFF>" an invalid escape) the bytes stay for Qt's parser to
// refuse. `rewritten` gets the byte offsets in `text` of the U+FEFF rewritten, in order.
QByteArray escapeByteOrderMarks(QByteArrayView text, std::vector<qsizetype> *rewritten = nullptr)
{
    static constexpr char bom[] = "\xEF\xBB\xBF";
    if (text.indexOf(QByteArrayView(bom), 1) < 0)
        return text.toByteArray();
    QByteArray out;
    out.reserve(text.size() + text.size() / 16);
    qsizetype done = 0;
    bool inString = false;
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char c = text[i];
        if (!inString) {
            inString = c == '"';
        } else if (c == '\\') {
            ++i; // the escaped byte, a U+FEFF's first byte included
        } else if (c == '"') {
            inString = false;
        } else if (c == bom[0] && i + 2 < size && text[i + 1] == bom[1] && text[i + 2] == bom[2]) {
            out.append(text.sliced(done, i - done));
            out.append("\\ufeff");
            if (rewritten)
                rewritten->push_back(i);
            done = i + 3;
            i += 2;
        }
    }
    out.append(text.sliced(done));
    return out;
}

// A byte offset in what escapeByteOrderMarks() returned, as an offset in the text it was given.
qint64 originalOffset(qint64 offset, const std::vector<qsizetype> &rewritten)
{
    qint64 shift = 0;
    for (const qsizetype at : rewritten) {
        const qint64 escapedAt = at + shift; // where its 6-byte escape starts
        if (offset < escapedAt + 6)
            return offset <= escapedAt ? offset - shift : at;
        shift += 3;
    }
    return offset - shift;
}

} // namespace

QJsonDocument jsonDocumentKeepingFeff(QByteArrayView text, QJsonParseError *error)
{
    std::vector<qsizetype> rewritten;
    QJsonDocument document =
        QJsonDocument::fromJson(escapeByteOrderMarks(text, error ? &rewritten : nullptr), error);
    if (error && error->error != QJsonParseError::NoError)
        error->offset = int(originalOffset(error->offset, rewritten));
    return document;
}

namespace {

// `quoted` includes both quotes; only called for text the scan delimited as a string.
QString decodeKey(QByteArrayView quoted)
{
    if (!quoted.contains('\\')) {
        // ConvertInitialBom: a key's leading U+FEFF is part of the key.
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
        return decoder.decode(quoted.sliced(1, quoted.size() - 2));
    }
    const QByteArray wrapped = '[' + quoted.toByteArray() + ']';
    return jsonDocumentKeepingFeff(wrapped).array().at(0).toString();
}

size_t keyHash(QByteArrayView quoted)
{
    if (!quoted.contains('\\'))
        return qHash(quoted.sliced(1, quoted.size() - 2));
    return qHash(decodeKey(quoted).toUtf8());
}

// The pre-scan of parseJsonObject() and JsonMembers: one pass over `text`, no recursion.
class Scanner
{
public:
    // bytesPerEntry 0: containers may hold any number of entries.
    Scanner(QByteArrayView text, int maxDepth, DuplicateKeys duplicates,
            qint64 bytesPerEntry = defaultJsonBytesPerEntry)
        : m_text(text), m_maxDepth(maxDepth), m_duplicates(duplicates),
          m_maxEntries(bytesPerEntry > 0
                           ? std::max(qint64(text.size()), minimumBudget) / bytesPerEntry
                           : std::numeric_limits<qint64>::max())
    {}

    // Empty when the text passes; else what is wrong, with its byte offset. With `members`,
    // the text must also be one object (Qt's parser checks that otherwise) and each of its
    // members' text is listed.
    QString run(std::vector<std::pair<qint64, qint64>> *members);

private:
    QString tooMany(qint64 at) const
    {
        return QStringLiteral("a JSON %1 at byte %2 has more than %3 entries, too many for a "
                              "text of %4 bytes")
            .arg(m_stack.back().isObject ? QStringLiteral("object") : QStringLiteral("array"))
            .arg(at)
            .arg(m_maxEntries)
            .arg(m_text.size());
    }
    bool countEntry() { return ++m_stack.back().entries <= m_maxEntries; }
    QString duplicateIn(Frame &frame) const;
    QString skeletonProblem(const std::vector<std::pair<qint64, qint64>> &members,
                            qint64 closedAt) const;

    QByteArrayView m_text;
    int m_maxDepth;
    DuplicateKeys m_duplicates;
    qint64 m_maxEntries;
    std::vector<Frame> m_stack;
};

// The repeated key that comes first in the text, if any (a frame about to close: its keys
// are sorted in place).
QString Scanner::duplicateIn(Frame &frame) const
{
    std::vector<Key> &keys = frame.keys;
    std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) {
        return a.hash != b.hash ? a.hash < b.hash : a.begin < b.begin;
    });
    qint64 first = -1;
    QString name;
    const auto quoted = [&](const Key &key) {
        return m_text.sliced(key.begin, key.end - key.begin);
    };
    for (size_t i = 0; i + 1 < keys.size(); ++i) {
        for (size_t j = i + 1; j < keys.size() && keys[j].hash == keys[i].hash; ++j) {
            if (first >= 0 && keys[j].begin >= first)
                continue;
            const QString key = decodeKey(quoted(keys[i]));
            if (key == decodeKey(quoted(keys[j]))) {
                first = keys[j].begin;
                name = key;
            }
        }
    }
    if (first < 0)
        return {};
    return QStringLiteral("duplicate key \"%1\" in a JSON object (byte %2)").arg(name).arg(first);
}

QString Scanner::run(std::vector<std::pair<qint64, qint64>> *members)
{
    const qint64 size = m_text.size();
    qint64 memberStart = -1, closedAt = -1;
    for (qint64 i = 0; i < size; ++i) {
        const char c = m_text[i];
        if (closedAt >= 0) {
            if (!isJsonSpace(c))
                return QStringLiteral("invalid JSON at byte %1: text after the object").arg(i);
            continue;
        }
        if (c == '"') {
            const qint64 start = i++;
            // The closing quote: the next one after an even run of backslashes (each backslash
            // escapes the byte after it). memchr: a vocabulary is mostly strings.
            const char *data = m_text.data();
            while (i < size) {
                const void *quote = std::memchr(data + i, '"', std::size_t(size - i));
                if (!quote) {
                    i = size;
                    break;
                }
                i = static_cast<const char *>(quote) - data;
                qint64 slashes = 0;
                while (i - 1 - slashes > start && data[i - 1 - slashes] == '\\')
                    ++slashes;
                if (slashes % 2 == 0)
                    break;
                ++i;
            }
            if (i >= size) {
                if (members)
                    return QStringLiteral("invalid JSON at byte %1: a string never ends")
                        .arg(start);
                break; // Qt's parser names it
            }
            if (m_stack.empty() || !m_stack.back().isObject)
                continue;
            qint64 j = i + 1;
            while (j < size && isJsonSpace(m_text[j]))
                ++j;
            if (j < size && m_text[j] == ':') {
                if (m_duplicates == DuplicateKeys::Refuse) {
                    const QByteArrayView quoted = m_text.sliced(start, i + 1 - start);
                    m_stack.back().keys.push_back({keyHash(quoted), start, i + 1});
                }
                if (!countEntry())
                    return tooMany(start);
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (qint64(m_stack.size()) >= m_maxDepth)
                return QStringLiteral("JSON nested deeper than %1 levels (byte %2)")
                    .arg(m_maxDepth)
                    .arg(i);
            if (members && m_stack.empty()) {
                if (c != '{' || !isBlank(m_text.first(i)))
                    return QStringLiteral("the JSON document is not an object");
                memberStart = i + 1;
            }
            if (!m_stack.empty() && !m_stack.back().isObject && m_stack.back().entries == 0 &&
                !countEntry())
                return tooMany(i);
            m_stack.push_back(Frame{c == '{', 0, {}});
        } else if (c == '}' || c == ']') {
            if (m_stack.empty())
                continue; // Qt's parser names it
            // With `members`, the skeleton must be sound here; otherwise Qt's parser says it.
            if (members && m_stack.back().isObject != (c == '}'))
                return QStringLiteral("invalid JSON at byte %1: '%2' closes %3")
                    .arg(i)
                    .arg(QLatin1Char(c))
                    .arg(m_stack.back().isObject ? QStringLiteral("an object")
                                                 : QStringLiteral("an array"));
            if (QString duplicate = duplicateIn(m_stack.back()); !duplicate.isEmpty())
                return duplicate;
            m_stack.pop_back();
            if (members && m_stack.empty()) {
                members->emplace_back(memberStart, i);
                closedAt = i;
            }
        } else if (c == ',') {
            if (members && m_stack.size() == 1) {
                members->emplace_back(memberStart, i);
                memberStart = i + 1;
            }
            // An array's entries: its commas plus one (counted at its first value).
            if (!m_stack.empty() && !m_stack.back().isObject && !countEntry())
                return tooMany(i);
        } else if (!isJsonSpace(c) && !m_stack.empty() && !m_stack.back().isObject &&
                   m_stack.back().entries == 0) {
            if (!countEntry())
                return tooMany(i);
        } else if (members && m_stack.empty() && !isJsonSpace(c)) {
            return QStringLiteral("the JSON document is not an object");
        }
    }
    return members ? skeletonProblem(*members, closedAt) : QString();
}

// What JsonMembers needs beyond the pre-scan: a closed object, no empty member.
QString Scanner::skeletonProblem(const std::vector<std::pair<qint64, qint64>> &members,
                                 qint64 closedAt) const
{
    if (closedAt < 0)
        return members.empty() && m_stack.empty()
                   ? QStringLiteral("the JSON document is not an object")
                   : QStringLiteral("invalid JSON at byte %1: the text ends inside the object")
                         .arg(m_text.size());
    for (const auto &[begin, end] : members) {
        // "{}" is one blank member; "{,}" and "{"a":1,}" have blank ones among others.
        if (isBlank(m_text.sliced(begin, end - begin)) && members.size() > 1)
            return QStringLiteral("invalid JSON at byte %1: a member is missing").arg(end);
    }
    return {};
}

} // namespace

QString jsonTextProblem(QByteArrayView text, int maxDepth, DuplicateKeys duplicates,
                        bool boundContainers)
{
    return Scanner(text, maxDepth, duplicates, boundContainers ? defaultJsonBytesPerEntry : 0)
        .run(nullptr);
}

namespace {

// `text` with each hole's bytes but its first and last left out: "{}" or "[]" in its place.
QByteArray withoutHoles(QByteArrayView text, const std::vector<JsonHole> &holes)
{
    qint64 removed = 0;
    for (const JsonHole &hole : holes)
        removed += hole.end - hole.begin - 2;
    QByteArray out;
    out.reserve(text.size() - removed);
    qint64 done = 0;
    for (const JsonHole &hole : holes) {
        out.append(text.sliced(done, hole.begin + 1 - done));
        done = hole.end - 1;
    }
    out.append(text.sliced(done));
    return out;
}

// A byte offset in withoutHoles(text, holes) as an offset in `text`.
qint64 offsetWithHoles(qint64 offset, const std::vector<JsonHole> &holes)
{
    qint64 shift = 0;
    for (const JsonHole &hole : holes) {
        if (offset - shift <= hole.begin)
            break;
        shift += hole.end - hole.begin - 2;
    }
    return offset + shift;
}

} // namespace

std::optional<QJsonObject> parseJsonObject(QByteArrayView text, const QString &what, QString *error,
                                           int maxDepth, DuplicateKeys duplicates,
                                           qint64 bytesPerEntry, const std::vector<JsonHole> &holes)
{
    const auto fail = [&](const QString &why) -> std::optional<QJsonObject> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(what, why);
        return std::nullopt;
    };
    if (const QString problem =
            Scanner(text, maxDepth, duplicates, std::max<qint64>(bytesPerEntry, 1)).run(nullptr);
        !problem.isEmpty())
        return fail(problem);
    QJsonParseError parseError;
    // Qt keeps the last of duplicate keys (DuplicateKeys::KeepLast relies on it).
    const QJsonDocument document =
        holes.empty() ? jsonDocumentKeepingFeff(text, &parseError)
                      : jsonDocumentKeepingFeff(withoutHoles(text, holes), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("invalid JSON at byte %1: %2")
                        .arg(offsetWithHoles(parseError.offset, holes))
                        .arg(parseError.errorString()));
    if (!document.isObject())
        return fail(QStringLiteral("the JSON document is not an object"));
    return document.object();
}

bool JsonMembers::scan(QByteArrayView text, const QString &what, QString *error, int maxDepth)
{
    m_text = text;
    m_what = what;
    m_members.clear();
    const QString problem = Scanner(text, maxDepth, DuplicateKeys::Refuse).run(&m_members);
    if (problem.isEmpty()) {
        // "{}": one blank member is none.
        if (m_members.size() == 1 &&
            isBlank(text.sliced(m_members[0].first, m_members[0].second - m_members[0].first)))
            m_members.clear();
        return true;
    }
    m_members.clear();
    if (error)
        *error = QStringLiteral("%1: %2").arg(what, problem);
    return false;
}

bool JsonMembers::forEach(
    const std::function<bool(const QString &key, const QJsonValue &value)> &visit,
    QString *error) const
{
    QByteArray wrapped;
    for (const auto &[begin, end] : m_members) {
        wrapped.resize(0);
        wrapped.append('{');
        wrapped.append(m_text.sliced(begin, end - begin));
        wrapped.append('}');
        QJsonParseError parseError;
        const QJsonDocument document = jsonDocumentKeepingFeff(wrapped, &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            const qint64 at = begin + std::clamp<qint64>(parseError.offset - 1, 0, end - begin);
            if (error)
                *error = QStringLiteral("%1: invalid JSON at byte %2: %3")
                             .arg(m_what)
                             .arg(at)
                             .arg(parseError.errorString());
            return false;
        }
        const QJsonObject member = document.object();
        if (member.size() != 1) { // defensive: the scan split the text at this level's commas
            if (error)
                *error = QStringLiteral("%1: invalid JSON at byte %2").arg(m_what).arg(begin);
            return false;
        }
        if (!visit(member.begin().key(), member.begin().value()))
            return false;
    }
    return true;
}

} // namespace pe
