// ALiBi: the paper's slopes (1/2 ... 1/256 for 8 heads), the reference get_slopes rule for head
// counts that are not powers of two, the bias matrix and its causal view, and bad input.
#include "testutil.h"

#include "schemes/alibi.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace pe;

namespace {

// Press et al.: for n a power of two the slopes are the geometric sequence starting at
// 2^(-8/n) with that same ratio; otherwise those of the closest lower power of two n0, then the
// odd-numbered ones (1st, 3rd, ...) of the 2 n0 sequence.
std::vector<double> referenceSlopes(int n)
{
    int n0 = 1;
    while (n0 * 2 <= n)
        n0 *= 2;
    std::vector<double> slopes;
    for (int h = 1; h <= n0; ++h)
        slopes.push_back(std::exp2(-8.0 * h / n0));
    for (int h = 1; int(slopes.size()) < n; h += 2)
        slopes.push_back(std::exp2(-8.0 * h / (2 * n0)));
    return slopes;
}

} // namespace

class TestAlibi : public QObject
{
    Q_OBJECT

private slots:
    void eightHeadsArePowersOfAHalf()
    {
        const auto slopes = alibiSlopes(8);
        QCOMPARE(int(slopes.size()), 8);
        for (int h = 0; h < 8; ++h)
            QCOMPARE(slopes[std::size_t(h)], 1.0 / double(2 << h)); // 1/2, 1/4, ..., 1/256
    }

    // 12 heads: the 8-head slopes, then every other slope of 16 heads: 2^-0.5, 2^-1.5, 2^-2.5,
    // 2^-3.5.
    void twelveHeadsInterleave()
    {
        const auto slopes = alibiSlopes(12);
        QCOMPARE(int(slopes.size()), 12);
        const double expected[] = {0.5,
                                   0.25,
                                   0.125,
                                   0.0625,
                                   0.03125,
                                   0.015625,
                                   1.0 / 128,
                                   1.0 / 256,
                                   std::sqrt(0.5),
                                   std::sqrt(0.5) / 2,
                                   std::sqrt(0.5) / 4,
                                   std::sqrt(0.5) / 8};
        for (int h = 0; h < 12; ++h)
            PE_COMPARE_NEAR(slopes[std::size_t(h)], expected[h], 1e-15);
    }

    void anyHeadCount_data()
    {
        QTest::addColumn<int>("heads");
        for (int n : {1, 2, 3, 5, 6, 7, 16, 20, 24, 32, 40, 64, 96, 100})
            QTest::addRow("%d heads", n) << n;
    }
    void anyHeadCount()
    {
        QFETCH(int, heads);
        const auto slopes = alibiSlopes(heads);
        const auto expected = referenceSlopes(heads);
        QCOMPARE(int(slopes.size()), heads);
        for (int h = 0; h < heads; ++h)
            // get_slopes multiplies start by ratio**i; exp2 rounds once: a few ulps apart.
            PE_COMPARE_NEAR(slopes[std::size_t(h)] / expected[std::size_t(h)], 1.0, 1e-14);
    }

    void biasMatrix()
    {
        const int n = 7;
        std::vector<float> rows(std::size_t(n * n));
        alibiBiasRows(0.25, n, 0, n, false, rows.data());
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                QCOMPARE(rows[std::size_t(i * n + j)], float(-0.25 * std::abs(i - j)));
        // A block of rows lands where the whole matrix has it.
        std::vector<float> block(std::size_t(2 * n));
        alibiBiasRows(0.25, n, 3, 2, false, block.data());
        for (int k = 0; k < 2 * n; ++k)
            QCOMPARE(block[std::size_t(k)], rows[std::size_t(3 * n + k)]);
    }

    void causalViewMasksTheFuture()
    {
        const int n = 5;
        std::vector<float> rows(std::size_t(n * n));
        alibiBiasRows(0.5, n, 0, n, true, rows.data());
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const float value = rows[std::size_t(i * n + j)];
                if (j > i)
                    QCOMPARE(value, -std::numeric_limits<float>::infinity());
                else
                    QCOMPARE(value, float(-0.5 * (i - j)));
            }
        QCOMPARE(alibiBias(0.5, 3, 3, true), 0.0);
        QCOMPARE(alibiBias(0.5, 3, 0, true), -1.5);
    }

    void badInput()
    {
        QVERIFY(alibiProblem(8).isEmpty());
        QVERIFY(alibiProblem(0).contains(u"heads must be between 1 and"_qs));
        QVERIFY(alibiProblem(-3).contains(u"heads"_qs));
        QVERIFY(alibiProblem(limits::maxHeads + 1).contains(u"heads"_qs));
        QVERIFY(alibiSlopes(0).empty());
    }
};

QTEST_GUILESS_MAIN(TestAlibi)
#include "tst_alibi.moc"
