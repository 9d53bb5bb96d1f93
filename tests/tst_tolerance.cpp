// The suites' fuzzy comparisons (tolerance.h) fail when they should: a helper that passed
// everything would make every check written with it unable to fail.
#include "tolerance.h"

#include <QTest>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

using namespace pe::test;

class TestTolerance : public QObject
{
    Q_OBJECT

private slots:
    void nearPassesWithinAndFailsBeyond()
    {
        QVERIFY(nearMismatch("x", 1.0, 1.0, 0.0).isEmpty());
        QVERIFY(nearMismatch("x", 1.0 + 1e-9, 1.0, 1e-8).isEmpty());
        QVERIFY(nearMismatch("x", -2.5, -2.5 - 1e-9, 1e-8).isEmpty());
        QVERIFY(!nearMismatch("x", 1.0 + 1e-7, 1.0, 1e-8).isEmpty());
        QVERIFY(!nearMismatch("x", 1.0 - 1e-7, 1.0, 1e-8).isEmpty());
        QVERIFY(!nearMismatch("x", std::nan(""), 1.0, 1e300).isEmpty());
        QVERIFY(!nearMismatch("x", 1.0, std::nan(""), 1e300).isEmpty());
        QVERIFY(!nearMismatch("x", INFINITY, INFINITY, 1e300).isEmpty()); // inf - inf is NaN
    }

    // The bound decides only at equality: 0.5 - 0.25 is exactly 0.25.
    void boundDecidesAtEquality()
    {
        QVERIFY(nearMismatch("x", 0.5, 0.25, 0.25, Bound::Inclusive).isEmpty());
        QVERIFY(!nearMismatch("x", 0.5, 0.25, 0.25, Bound::Strict).isEmpty());
        QVERIFY(nearMismatch("x", 0.5, 0.25, 0.2500001, Bound::Strict).isEmpty());
    }

    void messageShowsActualExpectedDifferenceAndTolerance()
    {
        const QString message = nearMismatch("f(3)", 1.5, 1.25, 0.125);
        QCOMPARE(message, QStringLiteral("f(3) = 1.5, expected 1.25: difference 0.25, tolerance "
                                         "0.125 (inclusive)"));
        // Values that differ in the 17th digit still print differently.
        const QString close = nearMismatch("y", 0.1 + 0.2, 0.3, 0.0);
        QVERIFY2(close.contains(QLatin1String("0.30000000000000004")), qPrintable(close));
        QVERIFY2(close.contains(QLatin1String("expected 0.3:")), qPrintable(close));
    }

    void arrayReportsFirstAndLargest()
    {
        const std::vector<float> actual = {1.0f, 2.5f, 3.0f, 4.0f, 6.0f};
        const std::vector<double> expected = {1.0, 2.0, 3.0, 4.0, 5.0};
        QVERIFY(arrayMismatch(actual, actual, {}).isEmpty());
        QVERIFY(arrayMismatch(actual, expected, {1.0, 0.0}).isEmpty());
        const QString message = arrayMismatch(actual, expected, {0.25, 0.0});
        QCOMPARE(message, QStringLiteral("2 of 5 values out of tolerance (absolute 0.25, relative "
                                         "0); the first at 1 is 2.5, expected 2: difference "
                                         "0.5; the largest difference 1 at 4"));
        const QString rows = arrayMismatch(actual, expected, {0.25, 0.0}, 2);
        QVERIFY2(rows.contains(QLatin1String("the first at 1 (row 0, column 1)")),
                 qPrintable(rows));
        QVERIFY2(rows.contains(QLatin1String("at 4 (row 2, column 0)")), qPrintable(rows));
        QCOMPARE(arrayMismatch(actual, std::vector<double>(4), {1e300, 0.0}),
                 QStringLiteral("5 values, expected 4"));
    }

    // absolute + relative * |expected|: 5 +- 1 needs relative 0.2; a zero must be met exactly.
    void arrayRelative()
    {
        const std::array<double, 2> expected = {5.0, -5.0};
        QVERIFY(arrayMismatch(std::array{6.0, -6.0}, expected, {0.0, 0.2}).isEmpty());
        QVERIFY(!arrayMismatch(std::array{6.0, -6.0}, expected, {0.0, 0.19}).isEmpty());
        QVERIFY(!arrayMismatch(std::array{1e-300}, std::array{0.0}, {0.0, 1e9}).isEmpty());
        QVERIFY(arrayMismatch(std::array{1e-31}, std::array{0.0}, {1e-30, 1e9}).isEmpty());
        QVERIFY(!arrayMismatch(std::array{std::nan("")}, std::array{0.0}, {1e300, 0}).isEmpty());
    }

    // The macros themselves fail the test (QEXPECT_FAIL turns that into XFAIL; a macro that
    // passed would be an XPASS, which fails this suite).
    void nearMacroFails()
    {
        QEXPECT_FAIL("", "1.1 is not within 0.05 of 1", Abort);
        PE_COMPARE_NEAR(1.1, 1.0, 0.05);
    }
    void closerThanMacroFailsAtEquality()
    {
        QEXPECT_FAIL("", "a difference of exactly 0.25 is not closer than 0.25", Abort);
        PE_COMPARE_CLOSER_THAN(0.5, 0.25, 0.25);
    }
    void relMacroFails()
    {
        QEXPECT_FAIL("", "-110 is 10% from -100, more than 5%", Abort);
        PE_COMPARE_REL(-110.0, -100.0, 0.05);
    }
    void arrayMacroFails()
    {
        QEXPECT_FAIL("", "element 1 is 0.5 away", Abort);
        PE_COMPARE_ARRAY((std::vector<double>{0.0, 1.5}), (std::vector<double>{0.0, 1.0}),
                         {0.25, 0.0});
    }
    void macrosPassWithin()
    {
        PE_COMPARE_NEAR(1.04, 1.0, 0.05);
        PE_COMPARE_CLOSER_THAN(0.5, 0.25, 0.26);
        PE_COMPARE_REL(-104.0, -100.0, 0.05);
        PE_COMPARE_ARRAY((std::vector<double>{0.0, 1.2}), (std::vector<double>{0.0, 1.0}),
                         {0.25, 0.0}, 2);
    }
};

QTEST_APPLESS_MAIN(TestTolerance)
#include "tst_tolerance.moc"
