// JSON from untrusted files (config.json, safetensors headers, shard indexes, sessions): Qt's
// parser, after a linear pre-scan that bounds what the parser would build and catches what it
// would hide.
//
// QJsonDocument (Qt 6.4) refuses nesting deeper than 1024 levels (QJsonParseError::DeepNesting)
// and silently keeps the last of duplicate keys; its containers grow with the number of entries,
// 16 bytes per value. The pre-scan, iterative and without recursion, refuses nesting deeper than
// a caller's limit (far below Qt's), any duplicate key (compared after unescaping; unless the
// caller follows a reference that keeps the last one), and any container with more entries than
// max(text size, 64 KiB) / bytesPerEntry (32 unless a caller says otherwise), so no single
// container the parser allocates is larger than the text it came from. It keeps 16 bytes per key
// of the containers open at a time.
#pragma once

#include <QByteArrayView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QString>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace pe {

enum class DuplicateKeys { Refuse, KeepLast };

constexpr qint64 defaultJsonBytesPerEntry = 32;

// QJsonDocument::fromJson(text, error) keeping U+FEFF: Qt's parser (6.4) drops a raw U+FEFF at
// the start of a string as if it were a byte order mark, so one inside a string (and not escaped)
// is passed to it as the escape \ufeff. The error's offset is a byte offset in `text`. Parse
// with this wherever a string may start with U+FEFF (parseJsonObject and JsonMembers do).
QJsonDocument jsonDocumentKeepingFeff(QByteArrayView text, QJsonParseError *error = nullptr);

// The pre-scan alone, for readers that parse with messages of their own (sessions): empty when
// `text` passes, else the problem with its byte offset. Without `boundContainers`, containers
// may hold any number of entries (for formats that bound their lists themselves).
QString jsonTextProblem(QByteArrayView text, int maxDepth = 64,
                        DuplicateKeys duplicates = DuplicateKeys::Refuse,
                        bool boundContainers = true);

// A value that parseJsonObject leaves out of the document, for a caller that reads it its own
// way: the bytes [begin, end) of the text, an object or an array, become an empty one.
struct JsonHole
{
    qint64 begin = 0;
    qint64 end = 0;
};

// Parses `text` as a JSON document whose top level is an object. On failure `error` gets one
// sentence starting with `what` (the file's name) and naming the problem and its byte offset.
// A tokenizer.json's vocabulary has an entry every 10 bytes or so, and asks for a smaller
// bytesPerEntry. The pre-scan covers the whole text, holes included; Qt's parser sees the text
// without them (`holes` in text order, not overlapping).
std::optional<QJsonObject> parseJsonObject(QByteArrayView text, const QString &what, QString *error,
                                           int maxDepth = 64,
                                           DuplicateKeys duplicates = DuplicateKeys::Refuse,
                                           qint64 bytesPerEntry = defaultJsonBytesPerEntry,
                                           const std::vector<JsonHole> &holes = {});

// The members of the top-level object of a JSON text, for texts with many members (a
// safetensors header lists every tensor): scan() runs parseJsonObject's checks without building
// a document, and forEach() parses one member at a time, so memory follows the largest member
// instead of the whole text (Qt's document costs about 10 times its text). `text` must outlive
// this object.
class JsonMembers
{
public:
    [[nodiscard]] bool scan(QByteArrayView text, const QString &what, QString *error,
                            int maxDepth = 64);
    qsizetype size() const { return qsizetype(m_members.size()); }
    // visit(key, value) for each member in text order; stops at the first that returns false
    // (then forEach returns false and *error is what the visitor left there) or at a member
    // that is not valid JSON (*error says where).
    [[nodiscard]] bool
    forEach(const std::function<bool(const QString &key, const QJsonValue &value)> &visit,
            QString *error) const;

private:
    QByteArrayView m_text;
    QString m_what;
    // Each member's text, from just after the '{' or ',' before it to its ',' or '}'.
    std::vector<std::pair<qint64, qint64>> m_members;
};

} // namespace pe
