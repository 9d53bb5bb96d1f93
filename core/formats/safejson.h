// JSON from untrusted files (config.json, safetensors headers, shard indexes): Qt's parser, after
// a linear pre-scan that bounds what the parser would build and catches what it would hide.
//
// QJsonDocument (Qt 6.4) refuses nesting deeper than 1024 levels (QJsonParseError::DeepNesting)
// and silently keeps the last of duplicate keys; its containers grow with the number of entries,
// 16 bytes per value. The pre-scan, iterative and without recursion, refuses nesting deeper than
// a caller's limit (far below Qt's), any duplicate key (compared after unescaping), and any
// container with more entries than max(text size, 64 KiB) / bytesPerEntry (32 unless a caller
// says otherwise), so no single container the parser allocates is larger than the text it came
// from.
#pragma once

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace pe {

// Parses `text` as a JSON document whose top level is an object. On failure `error` gets one
// sentence starting with `what` (the file's name) and naming the problem and its byte offset.
// A tokenizer.json's vocabulary has an entry every 10 bytes or so, and asks for a smaller
// bytesPerEntry.
std::optional<QJsonObject> parseJsonObject(QByteArrayView text, const QString &what, QString *error,
                                           int maxDepth = 64, qint64 bytesPerEntry = 32);

} // namespace pe
