// The state of one encode() call that every stage shares: the first error, and a deadline, so
// that a file's pattern that is slow on every position of a long text ends with a message.
#pragma once

#include <QDeadlineTimer>
#include <QString>

#include <algorithm>

namespace pe {

struct EncodeContext
{
    // Ten seconds, and ten more per million characters: the tokenizers in use take under one
    // second of CPU time for a megabyte of text, and a busy machine may make that several.
    static constexpr qint64 baseDeadlineMs = 10000;
    static constexpr qint64 charactersPerMs = 100;

    // Bounded growth: no normalizer or pre-tokenizer step may make the text longer than
    // maxGrowth times the text given to encode() plus growthMargin characters, nor longer than
    // maxGrowthLength (or 4 times the text given, for texts over a million characters). Real
    // files stay far below (NFKC's longest expansion, U+FDFA, is 18 characters but rare; a
    // byte-level alphabet makes at most 4 of one); a file that chains steps which each double
    // the text is stopped long before it takes the machine's memory. A normalized character
    // costs about 240 bytes (the text, its alignments and the steps' copies), so the cap of 4M
    // characters keeps one encode() of a short text under 1 GiB.
    static constexpr qint64 maxGrowth = 8;
    static constexpr qint64 growthMargin = 4096;
    static constexpr qint64 maxGrowthLength = qint64(4) << 20;
    static constexpr qint64 longTextGrowth = 4;

    // The longest text a step may make of a text of `characters` characters.
    static constexpr qint64 maxLengthFor(qint64 characters)
    {
        return std::min(maxGrowth * characters + growthMargin,
                        std::max(maxGrowthLength, longTextGrowth * characters));
    }

    explicit EncodeContext(qint64 characters = 0)
        : deadlineMs(baseDeadlineMs + characters / charactersPerMs), deadline(deadlineMs),
          maxLength(maxLengthFor(characters))
    {}

    qint64 deadlineMs;
    QDeadlineTimer deadline;
    // The longest text a step may make.
    qint64 maxLength;
    QString error;
    // The step running now, as a Sequence names it ("normalizer 3 (Replace \"a\")"), for
    // checkLength's message; empty outside a Sequence.
    QString stage;

    bool failed() const { return !error.isEmpty(); }
    // Records `message` unless an earlier error is there; returns false for `return fail(...)`.
    bool fail(const QString &message)
    {
        if (error.isEmpty())
            error = message;
        return false;
    }
    // false (with the message recorded) when the step `what` (or `stage` when set) made the text
    // `length` characters long, past maxLength.
    bool checkLength(qint64 length, const QString &what)
    {
        if (length <= maxLength)
            return true;
        return fail(QStringLiteral("the tokenizer's %1 step makes the text longer than %2 "
                                   "characters (%3 times the text given plus %4, at most %5 or %6 "
                                   "times the text given): the tokenizer.json grows text without "
                                   "bound")
                        .arg(stage.isEmpty() ? what : stage)
                        .arg(maxLength)
                        .arg(maxGrowth)
                        .arg(growthMargin)
                        .arg(maxGrowthLength)
                        .arg(longTextGrowth));
    }
    // true (with the message recorded) once the deadline has passed. The message names the step
    // running (`stage`, or `what` outside a Sequence) and `cause` when the caller knows it.
    bool expired(const QString &what = {}, const QString &cause = {})
    {
        if (!deadline.hasExpired())
            return false;
        QString message =
            QStringLiteral("tokenizing this text took longer than %1 s").arg(deadlineMs / 1000);
        if (const QString step = stage.isEmpty() ? what : stage; !step.isEmpty())
            message += QStringLiteral(" (stopped in the tokenizer's %1 step)").arg(step);
        if (!cause.isEmpty())
            message += QStringLiteral("; ") + cause;
        fail(message);
        return true;
    }
};

} // namespace pe
