#include "wholenumber.h"

#include <cmath>

namespace pe {

std::optional<qint64> wholeNumberIn(double value, qint64 min, qint64 max)
{
    // -2^63 and 2^63 are exact doubles; every qint64 lies in [-2^63, 2^63), so the cast below
    // only sees values it is defined for. NaN fails every comparison and is refused here too.
    constexpr double twoTo63 = 9223372036854775808.0;
    if (!(value >= -twoTo63 && value < twoTo63) || std::floor(value) != value)
        return std::nullopt;
    const auto whole = qint64(value);
    if (whole < min || whole > max)
        return std::nullopt;
    return whole;
}

QString numberText(double value)
{
    return QString::number(value, 'g', 12);
}

QString wholeNumberMessage(qint64 min, qint64 max, const QString &got)
{
    return QStringLiteral("must be a whole number from %1 to %2 (got %3)")
        .arg(min)
        .arg(max)
        .arg(got);
}

} // namespace pe
