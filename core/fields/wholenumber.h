// The one checked conversion of a parsed number to an integer. Casting a double outside an
// integer type's range is undefined behaviour in C++ (a session's "format_version": 3.3e56
// reached it through `qint64(v)`, issue 35); every parser of user input converts through this
// instead of a cast, and refuses what it refuses with the same words.
#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace pe {

// Integers beyond 2^53 do not survive a JSON number (a double); none of pescope's limits come
// near it.
constexpr qint64 maxExactJsonInteger = qint64(1) << 53;

// `value` as an integer when it is a whole number (finite, no fraction) in [min, max]; nothing
// for NaN, an infinity, a fraction or a value outside the range.
std::optional<qint64> wholeNumberIn(double value, qint64 min, qint64 max);

// A JSON number (or any double) as it reads in a message: "3.33333333333e+56", "12".
QString numberText(double value);

// "must be a whole number from MIN to MAX (got GOT)": what a parser says of a value
// wholeNumberIn refused.
QString wholeNumberMessage(qint64 min, qint64 max, const QString &got);

} // namespace pe
