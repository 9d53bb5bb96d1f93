// T5 relative position buckets: hand-checked ids for short and long distances in both
// directions, causal and bidirectional, a full comparison with a float64 re-derivation of HF's
// _relative_position_bucket, and bad input.
#include "testutil.h"

#include "schemes/t5buckets.h"

#include <cmath>
#include <vector>

using namespace pe;

namespace {

// HF T5Attention._relative_position_bucket for one relative position (key - query), in float64.
int referenceBucket(long long relative, int buckets, int maxDistance, bool bidirectional)
{
    int result = 0;
    long long n = relative;
    if (bidirectional) {
        buckets /= 2;
        if (n > 0)
            result += buckets;
        n = std::llabs(n);
    } else {
        n = n < 0 ? -n : 0;
    }
    const int maxExact = buckets / 2;
    if (n < maxExact)
        return result + int(n);
    const double large =
        maxExact + std::trunc(std::log(double(n) / maxExact) /
                              std::log(double(maxDistance) / maxExact) * (buckets - maxExact));
    return result + int(std::min(large, double(buckets - 1)));
}

T5BucketParameters params(qint64 buckets, qint64 maxDistance, bool bidirectional)
{
    T5BucketParameters p;
    p.buckets = buckets;
    p.maxDistance = maxDistance;
    p.bidirectional = bidirectional;
    return p;
}

} // namespace

class TestT5Buckets : public QObject
{
    Q_OBJECT

private slots:
    // Defaults (32 buckets, max distance 128), bidirectional: 16 per direction, 8 exact.
    // Keys before the query (negative) use 0..15, keys after it 16..31.
    void bidirectionalByHand_data()
    {
        QTest::addColumn<int>("relative");
        QTest::addColumn<int>("bucket");
        const int cells[][2] = {
            {0, 0},    {-1, 1},   {-7, 7},    {1, 17},      {7, 23},
            {-8, 8},   {8, 24},   // log part starts: 8 + trunc(log(1) ...) = 8
            {-15, 9},  {-16, 10}, // 8 + trunc(8 log 2 / log 16) = 8 + 2
            {-32, 12}, {-64, 14}, {-127, 15}, {-128, 15},   {-5000, 15},
            {16, 26},  {127, 31}, {128, 31},  {100000, 31},
        };
        for (const auto &c : cells)
            QTest::addRow("%d", c[0]) << c[0] << c[1];
    }
    void bidirectionalByHand()
    {
        QFETCH(int, relative);
        QFETCH(int, bucket);
        QCOMPARE(t5RelativePositionBucket(relative, {}), bucket);
    }

    // Causal (decoder): keys after the query all share bucket 0; 32 buckets for the past,
    // 16 exact.
    void causalByHand_data()
    {
        QTest::addColumn<int>("relative");
        QTest::addColumn<int>("bucket");
        const int cells[][2] = {
            {0, 0},    {5, 0},     {1000, 0},  {-1, 1},
            {-15, 15}, {-16, 16},  {-32, 21}, // 16 + trunc(16 log 2 / log 8) = 16 + 5
            {-64, 26}, {-127, 31}, {-128, 31}, {-1000000, 31},
        };
        for (const auto &c : cells)
            QTest::addRow("%d", c[0]) << c[0] << c[1];
    }
    void causalByHand()
    {
        QFETCH(int, relative);
        QFETCH(int, bucket);
        QCOMPARE(t5RelativePositionBucket(relative, params(32, 128, false)), bucket);
    }

    void matchesReference_data()
    {
        QTest::addColumn<int>("buckets");
        QTest::addColumn<int>("maxDistance");
        QTest::addColumn<bool>("bidirectional");
        for (bool bi : {true, false}) {
            const char *dir = bi ? "bidirectional" : "causal";
            QTest::addRow("32/128 %s", dir) << 32 << 128 << bi;
            QTest::addRow("64/256 %s", dir) << 64 << 256 << bi;
            QTest::addRow("16/64 %s", dir) << 16 << 64 << bi;
            QTest::addRow("10/20 %s", dir) << 10 << 20 << bi;
            QTest::addRow("7/1000 %s", dir) << 7 << 1000 << bi;
            QTest::addRow("4/3 %s", dir) << 4 << 3 << bi;
        }
        QTest::addRow("2/5 causal") << 2 << 5 << false;
    }
    void matchesReference()
    {
        QFETCH(int, buckets);
        QFETCH(int, maxDistance);
        QFETCH(bool, bidirectional);
        const T5BucketParameters p = params(buckets, maxDistance, bidirectional);
        QVERIFY2(t5Problem(p).isEmpty(), qPrintable(t5Problem(p)));
        for (int r = -3000; r <= 3000; ++r) {
            const int bucket = t5RelativePositionBucket(r, p);
            if (bucket != referenceBucket(r, buckets, maxDistance, bidirectional))
                QFAIL(
                    qPrintable(QStringLiteral("relative %1: bucket %2, expected %3")
                                   .arg(r)
                                   .arg(bucket)
                                   .arg(referenceBucket(r, buckets, maxDistance, bidirectional))));
            QVERIFY(bucket >= 0 && bucket < buckets);
        }
    }

    // Rows are queries, columns keys, value bucket(key - query).
    void matrixOrientation()
    {
        const int n = 40;
        std::vector<qint32> m(std::size_t(n * n));
        t5BucketRows({}, n, 0, n, m.data());
        for (int q = 0; q < n; ++q)
            for (int k = 0; k < n; ++k)
                QCOMPARE(m[std::size_t(q * n + k)], t5RelativePositionBucket(k - q, {}));
        QCOMPARE(m[0 * n + 1], 17); // key one after the query
        QCOMPARE(m[1 * n + 0], 1);  // key one before
        std::vector<qint32> rows(std::size_t(3 * n));
        t5BucketRows({}, n, 10, 3, rows.data());
        for (int k = 0; k < 3 * n; ++k)
            QCOMPARE(rows[std::size_t(k)], m[std::size_t(10 * n + k)]);
    }

    void badInput()
    {
        QVERIFY(t5Problem({}).isEmpty());
        QVERIFY(t5Problem(params(1, 128, false)).contains(u"buckets must be between 2 and"_qs));
        QVERIFY(t5Problem(params(0, 128, true)).contains(u"buckets"_qs));
        QVERIFY(t5Problem(params(3, 128, true)).contains(u"buckets must be at least 4"_qs));
        QVERIFY(t5Problem(params(32, 8, true)).contains(u"max distance"_qs));
        QVERIFY(t5Problem(params(32, 16, false)).contains(u"max distance"_qs));
        QVERIFY(t5Problem(params(32, 17, false)).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestT5Buckets)
#include "tst_t5buckets.moc"
