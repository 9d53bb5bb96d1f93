// Reading files a user names (sessions, config.json, phrase files): regular files only, within
// a stated size, read without blocking on FIFOs and without trusting the size the file claims.
#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include <optional>

namespace pe {

namespace limits {
// A session is a few kilobytes; the rest of the budget is for long pasted phrases.
constexpr qint64 maxSessionBytes = qint64(64) << 20;
// A Hugging Face config.json is a few kilobytes; the largest seen (with long token lists) are
// under 1 MiB.
constexpr qint64 maxConfigBytes = qint64(16) << 20;
// A phrase file (one phrase a line) read into the text pipeline.
constexpr qint64 maxPhraseFileBytes = qint64(64) << 20;
} // namespace limits

// What a file is when it is not a regular one, from its st_mode: "a folder", "a named pipe
// (FIFO)", "a character device", "a block device", "a socket" or "not a regular file"; empty for
// a regular file. The one wording of every reader of user files.
QString nonRegularKind(quint32 mode);
// The same for `path`, following symbolic links; empty also when nothing is there.
QString nonRegularKind(const QString &path);

// The whole of `path` when it is a regular file of at most `maxBytes` bytes; nullopt with one
// sentence in *error otherwise. A folder, device (/dev/zero), FIFO or socket is refused before
// it is opened (and a FIFO put there in between is opened without blocking); at most
// maxBytes + 1 bytes are ever read, whatever the file's size said. `what` names the kind of
// file in messages ("a session file"); messages name the file as `path` is written. With
// `spare`, the array's capacity holds that many zero bytes past its end (a parser's padding).
std::optional<QByteArray> readUserFile(const QString &path, qint64 maxBytes, QString *error,
                                       const QString &what = QStringLiteral("a file"),
                                       qsizetype spare = 0);

} // namespace pe
