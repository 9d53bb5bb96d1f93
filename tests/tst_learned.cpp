// The learned ("random") scheme: Keras' default Embedding init, uniform in [-0.05, 0.05), seeded.
#include "testutil.h"

#include "backends/cpubackend.h"

#include <set>
#include <vector>

using namespace pe;

class TestLearned : public QObject
{
    Q_OBJECT

    static std::vector<float> encode(qint64 positions, qint64 dims, quint64 seed, qint64 first = 0,
                                     qint64 count = -1)
    {
        const EncodingSpec spec = test::learnedSpec(positions, dims, seed);
        if (count < 0)
            count = positions;
        std::vector<float> out(std::size_t(count * dims));
        CpuBackend backend;
        QString error;
        if (!backend.encode(spec, first, count, out.data(), &error))
            qFatal("encode failed: %s", qPrintable(error));
        return out;
    }

private slots:
    void valuesAreInRange()
    {
        const auto values = encode(1000, 1000, 42);
        for (float v : values)
            QVERIFY2(v >= -0.05f && v < 0.05f, qPrintable(QString::number(double(v))));
    }

    // Mean 0 and variance 0.1^2 / 12 of a uniform [-0.05, 0.05), within 6 standard errors,
    // and every tenth of the range about equally full.
    void distributionIsUniform()
    {
        const auto values = encode(1024, 1024, 7);
        const double n = double(values.size());
        double sum = 0, sumSquares = 0;
        std::vector<double> bins(10, 0.0);
        for (float v : values) {
            sum += v;
            sumSquares += double(v) * v;
            bins[std::min<std::size_t>(9, std::size_t((double(v) + 0.05) / 0.01))] += 1;
        }
        const double mean = sum / n;
        const double variance = sumSquares / n - mean * mean;
        const double expectedVariance = 0.01 / 12.0;
        PE_COMPARE_CLOSER_THAN(mean, 0.0, 6 * std::sqrt(expectedVariance / n));
        PE_COMPARE_CLOSER_THAN(variance, expectedVariance, 0.01 * expectedVariance);
        for (double count : bins)
            PE_COMPARE_CLOSER_THAN(count, n / 10, 6 * std::sqrt(n / 10));
    }

    void sameSeedSameValues() { QCOMPARE(encode(64, 50, 1234), encode(64, 50, 1234)); }

    void differentSeedsDiffer()
    {
        const auto a = encode(64, 50, 1);
        const auto b = encode(64, 50, 2);
        int equal = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            equal += a[i] == b[i];
        QVERIFY(equal < 10);
    }

    // Neither rows nor columns repeat: no short cycles in the hash.
    void rowsAndColumnsAreDistinct()
    {
        const auto values = encode(512, 64, 3);
        std::set<std::vector<float>> rows;
        for (int r = 0; r < 512; ++r)
            rows.insert(std::vector<float>(values.begin() + r * 64, values.begin() + (r + 1) * 64));
        QCOMPARE(rows.size(), std::size_t(512));
    }

    // A cell does not depend on the window it is computed in, nor on the matrix's size.
    void cellsDependOnlyOnPositionAndColumn()
    {
        const auto whole = encode(300, 17, 99);
        const auto window = encode(300, 17, 99, 123, 50);
        for (qint64 i = 0; i < 50 * 17; ++i)
            QCOMPARE(window[std::size_t(i)], whole[std::size_t(123 * 17 + i)]);
        const auto larger = encode(5000, 17, 99, 0, 300);
        QCOMPARE(larger, whole);
    }
};

QTEST_GUILESS_MAIN(TestLearned)
#include "tst_learned.moc"
