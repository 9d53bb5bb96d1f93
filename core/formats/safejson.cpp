#include "safejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <vector>

namespace pe {

namespace {

constexpr qint64 minimumBudget = qint64(64) * 1024;

struct Frame
{
    bool isObject = false;
    qint64 entries = 0;
    QSet<QString> keys;
};

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// `quoted` includes both quotes; only called for text the scan delimited as a string.
QString decodeKey(QByteArrayView quoted, bool hasEscapes)
{
    if (!hasEscapes)
        return QString::fromUtf8(quoted.sliced(1, quoted.size() - 2));
    const QByteArray wrapped = '[' + quoted.toByteArray() + ']';
    const QJsonDocument document = QJsonDocument::fromJson(wrapped);
    return document.array().at(0).toString();
}

} // namespace

std::optional<QJsonObject> parseJsonObject(QByteArrayView text, const QString &what, QString *error,
                                           int maxDepth, qint64 bytesPerEntry)
{
    const auto fail = [&](const QString &why) -> std::optional<QJsonObject> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(what, why);
        return std::nullopt;
    };
    const qint64 size = text.size();
    const qint64 maxEntries = std::max(size, minimumBudget) / std::max<qint64>(bytesPerEntry, 1);
    std::vector<Frame> stack;
    qint64 i = 0;
    const auto countEntry = [&](qint64) { return ++stack.back().entries <= maxEntries; };
    const auto tooMany = [&](qint64 at) {
        return fail(
            QStringLiteral("a JSON %1 at byte %2 has more than %3 entries, too many for "
                           "a text of %4 bytes")
                .arg(stack.back().isObject ? QStringLiteral("object") : QStringLiteral("array"))
                .arg(at)
                .arg(maxEntries)
                .arg(size));
    };
    while (i < size) {
        const char c = text[i];
        if (c == '"') {
            const qint64 start = i++;
            bool escaped = false;
            while (i < size && text[i] != '"') {
                if (text[i] == '\\') {
                    escaped = true;
                    i += 2;
                } else {
                    ++i;
                }
            }
            if (i >= size)
                break; // unterminated: Qt's parser names it
            ++i;       // past the closing quote
            if (!stack.empty() && stack.back().isObject) {
                qint64 j = i;
                while (j < size && isJsonSpace(text[j]))
                    ++j;
                if (j < size && text[j] == ':') {
                    const QString key = decodeKey(text.sliced(start, i - start), escaped);
                    Frame &frame = stack.back();
                    if (frame.keys.contains(key))
                        return fail(
                            QStringLiteral("duplicate key \"%1\" in a JSON object (byte %2)")
                                .arg(key)
                                .arg(start));
                    frame.keys.insert(key);
                    if (!countEntry(start))
                        return tooMany(start);
                }
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (qint64(stack.size()) >= maxDepth)
                return fail(QStringLiteral("JSON nested deeper than %1 levels (byte %2)")
                                .arg(maxDepth)
                                .arg(i));
            if (!stack.empty() && !stack.back().isObject && stack.back().entries == 0 &&
                !countEntry(i))
                return tooMany(i);
            stack.push_back(Frame{c == '{', 0, {}});
        } else if (c == '}' || c == ']') {
            if (!stack.empty())
                stack.pop_back();
        } else if (c == ',') {
            // An array's entries: its commas plus one (counted at its first value).
            if (!stack.empty() && !stack.back().isObject && !countEntry(i))
                return tooMany(i);
        } else if (!isJsonSpace(c) && !stack.empty() && !stack.back().isObject &&
                   stack.back().entries == 0) {
            if (!countEntry(i))
                return tooMany(i);
        }
        ++i;
    }

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("invalid JSON at byte %1: %2")
                        .arg(parseError.offset)
                        .arg(parseError.errorString()));
    if (!document.isObject())
        return fail(QStringLiteral("the JSON document is not an object"));
    return document.object();
}

} // namespace pe
