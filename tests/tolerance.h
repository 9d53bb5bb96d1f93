// The suites' one set of fuzzy comparisons (the pattern of LabPlot's tests/CommonTest.h: one
// header of QCOMPARE-like macros, VALUES_EQUAL and its kin, that every suite includes). A failure
// names the expression and prints the actual value, the expected one, their difference and the
// tolerance. NaN is never within any tolerance.
// tst_tolerance checks that these fail when they should.
#pragma once

#include <QLocale>
#include <QString>
#include <QTest>

#include <cmath>
#include <cstddef>
#include <iterator>

namespace pe::test {

// Whether a difference equal to the tolerance passes: |a - e| <= t (Inclusive) or < t (Strict).
enum class Bound { Inclusive, Strict };

// A value as it round-trips, so that two values that differ print differently.
inline QString exactText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

inline bool withinTolerance(double difference, double tolerance, Bound bound)
{
    return bound == Bound::Strict ? difference < tolerance : difference <= tolerance;
}

// Empty when |actual - expected| is within `tolerance`, else the failure message naming `what`.
inline QString nearMismatch(const char *what, double actual, double expected, double tolerance,
                            Bound bound = Bound::Inclusive)
{
    const double difference = std::abs(actual - expected);
    if (withinTolerance(difference, tolerance, bound))
        return {};
    return QStringLiteral("%1 = %2, expected %3: difference %4, tolerance %5 (%6)")
        .arg(QLatin1String(what), exactText(actual), exactText(expected), exactText(difference),
             exactText(tolerance),
             bound == Bound::Strict ? QLatin1String("strict") : QLatin1String("inclusive"));
}

// Per element, |actual[i] - expected[i]| <= absolute + relative * |expected[i]|.
struct Tolerance
{
    double absolute = 0.0;
    double relative = 0.0;
};

// Empty when both ranges have the same length and every element is within `tolerance`; else how
// many are not, the first of them (with its row and column when `width` > 0 gives the row length)
// and the largest difference with its index.
template <typename Actual, typename Expected>
QString arrayMismatch(const Actual &actual, const Expected &expected, Tolerance tolerance,
                      qint64 width = 0)
{
    const auto size = std::size(actual);
    if (size != std::size(expected))
        return QStringLiteral("%1 values, expected %2").arg(size).arg(std::size(expected));
    qint64 wrong = 0, first = -1, worstAt = -1;
    double worst = 0.0;
    for (std::size_t i = 0; i < size; ++i) {
        const double a = double(actual[i]), e = double(expected[i]);
        const double difference = std::abs(a - e);
        if (withinTolerance(difference, tolerance.absolute + tolerance.relative * std::abs(e),
                            Bound::Inclusive))
            continue;
        ++wrong;
        first = first < 0 ? qint64(i) : first;
        if (!(difference <= worst)) { // NaN is the worst
            worst = std::isnan(difference) ? INFINITY : difference;
            worstAt = qint64(i);
        }
    }
    if (wrong == 0)
        return {};
    const auto at = [width](qint64 i) {
        return width > 0
                   ? QStringLiteral("%1 (row %2, column %3)").arg(i).arg(i / width).arg(i % width)
                   : QString::number(i);
    };
    const double a = double(actual[std::size_t(first)]), e = double(expected[std::size_t(first)]);
    return QStringLiteral(
               "%1 of %2 values out of tolerance (absolute %3, relative %4); the first at "
               "%5 is %6, expected %7: difference %8; the largest difference %9 at %10")
        .arg(wrong)
        .arg(size)
        .arg(exactText(tolerance.absolute), exactText(tolerance.relative), at(first), exactText(a),
             exactText(e), exactText(std::abs(a - e)), exactText(worst), at(worstAt));
}

} // namespace pe::test

// Fails the current test (QFAIL-like: returns from it) unless |actual - expected| <= tolerance.
#define PE_COMPARE_NEAR(actual, expected, tolerance)                                               \
    PE_TOLERANCE_CHECK(::pe::test::nearMismatch(#actual, double(actual), double(expected),         \
                                                double(tolerance), ::pe::test::Bound::Inclusive))

// The same with a strict bound: |actual - expected| < tolerance.
#define PE_COMPARE_CLOSER_THAN(actual, expected, tolerance)                                        \
    PE_TOLERANCE_CHECK(::pe::test::nearMismatch(#actual, double(actual), double(expected),         \
                                                double(tolerance), ::pe::test::Bound::Strict))

// Relative: |actual - expected| <= relative * |expected| (a zero expectation must be met exactly).
#define PE_COMPARE_REL(actual, expected, relative)                                                 \
    do {                                                                                           \
        const double pe_expected = double(expected);                                               \
        PE_TOLERANCE_CHECK(::pe::test::nearMismatch(#actual, double(actual), pe_expected,          \
                                                    double(relative) * std::abs(pe_expected)));    \
    } while (false)

// Whole ranges, element by element: PE_COMPARE_ARRAY(actual, expected, tolerance[, width]) with
// a ::pe::test::Tolerance ({.absolute = 1e-6}, {.relative = 1e-5}) and the row length of a matrix.
#define PE_COMPARE_ARRAY(actual, expected, ...)                                                    \
    PE_TOLERANCE_CHECK(::pe::test::arrayMismatch(actual, expected, __VA_ARGS__))

// Fails the current test with the text of a mismatch (from nearMismatch or arrayMismatch, or
// several joined) unless it is empty.
#define PE_TOLERANCE_CHECK(mismatchExpression)                                                     \
    do {                                                                                           \
        const QString pe_mismatch = (mismatchExpression);                                          \
        if (!pe_mismatch.isEmpty()) {                                                              \
            QTest::qFail(qPrintable(pe_mismatch), __FILE__, __LINE__);                             \
            return;                                                                                \
        }                                                                                          \
    } while (false)
