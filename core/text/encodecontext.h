// The state of one encode() call that every stage shares: the first error, and a deadline, so
// that a file's pattern that is slow on every position of a long text ends with a message.
#pragma once

#include <QDeadlineTimer>
#include <QString>

namespace pe {

struct EncodeContext
{
    // Ten seconds, and ten more per million characters: the tokenizers in use take under one
    // second of CPU time for a megabyte of text, and a busy machine may make that several.
    static constexpr qint64 baseDeadlineMs = 10000;
    static constexpr qint64 charactersPerMs = 100;

    explicit EncodeContext(qint64 characters = 0)
        : deadlineMs(baseDeadlineMs + characters / charactersPerMs), deadline(deadlineMs)
    {}

    qint64 deadlineMs;
    QDeadlineTimer deadline;
    QString error;

    bool failed() const { return !error.isEmpty(); }
    // Records `message` unless an earlier error is there; returns false for `return fail(...)`.
    bool fail(const QString &message)
    {
        if (error.isEmpty())
            error = message;
        return false;
    }
    // true (with the message recorded) once the deadline has passed.
    bool expired()
    {
        if (!deadline.hasExpired())
            return false;
        fail(QStringLiteral("tokenizing this text took longer than %1 s; a pattern of the "
                            "tokenizer backtracks too much for it")
                 .arg(deadlineMs / 1000));
        return true;
    }
};

} // namespace pe
