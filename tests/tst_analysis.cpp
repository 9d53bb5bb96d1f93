// core/analysis: the views' formulas against float64 references written here from their
// definitions (RoFormer §3.4.3's decay, the rotation e^{ipθ}, cosine similarity, the sinusoid's
// PE(p)·PE(q) = Σ cos((p − q)ωᵢ), B − A) and hand-made cases with known answers.
#include "testutil.h"

#include "analysis/phraseanalysis.h"
#include "analysis/positionanalysis.h"
#include "analysis/ropeanalysis.h"
#include "analysis/sharing.h"
#include "analysis/similarity.h"

#include <QTest>

#include <cmath>
#include <numbers>
#include <vector>

using namespace pe;
using namespace pe::test;

namespace {

constexpr double pi = std::numbers::pi;

// θᵢ = base^(−2i/d) for the first `pairs` pairs of a d-dim head.
std::vector<double> thetas(double base, qint64 dims, qint64 pairs)
{
    std::vector<double> out;
    for (qint64 i = 0; i < pairs; ++i)
        out.push_back(std::pow(base, -2.0 * double(i) / double(dims)));
    return out;
}

// A PhraseEmbedding of `phrases` x `length` x `dims` whose cell values come from `value`.
template <class F> PhraseEmbedding embedding(qint64 phrases, qint64 length, qint64 dims, F value)
{
    PhraseEmbedding e;
    e.sequenceLength = length;
    e.dims = dims;
    e.ids.assign(std::size_t(phrases), std::vector<qint64>(std::size_t(length), 1));
    for (qint64 b = 0; b < phrases; ++b)
        for (qint64 t = 0; t < length; ++t)
            for (qint64 j = 0; j < dims; ++j)
                e.values.push_back(float(value(b, t, j)));
    return e;
}

} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void relativeScore_data()
    {
        QTest::addColumn<double>("base");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<qint64>("pairs"); // rotated pairs; dims − 2·pairs pass through
        QTest::addRow("all dims rotate, base 10000") << 10000.0 << qint64(128) << qint64(64);
        QTest::addRow("llama3 base") << 500000.0 << qint64(128) << qint64(64);
        QTest::addRow("half rotary (GPT-NeoX partial)") << 10000.0 << qint64(96) << qint64(24);
    }

    void relativeScore()
    {
        QFETCH(double, base);
        QFETCH(qint64, dims);
        QFETCH(qint64, pairs);
        const std::vector<double> theta = thetas(base, dims, pairs);
        for (double m : {0.0, 1.0, 7.0, 100.0, 4096.0, 1e6}) {
            // q = k = 1: q·R(m)k = Σ over rotated pairs of 2 cos(mθ), + 1 per unrotated dim.
            double score = double(dims - 2 * pairs);
            for (qint64 i = 0; i < pairs; ++i)
                score += 2.0 * std::cos(m * std::pow(base, -2.0 * double(i) / double(dims)));
            PE_COMPARE_NEAR(ropeRelativeScore(theta, dims, m), score / double(dims), 1e-12);
        }
        PE_COMPARE_NEAR(ropeRelativeScore(theta, dims, 0.0), 1.0, 1e-15);
        const std::vector<double> distances{0, 3, 9};
        const std::vector<double> curve = ropeDecayCurve(theta, dims, distances);
        QCOMPARE(curve.size(), std::size_t(3));
        QCOMPARE(curve[2], ropeRelativeScore(theta, dims, 9.0));
    }

    void relativeScoreOfOnePair()
    {
        // One pair turning a quarter per token: cos(mπ/2) = 1, 0, −1, 0.
        const std::vector<double> theta{pi / 2};
        for (auto [m, expected] : {std::pair{0, 1.0}, std::pair{1, 0.0}, std::pair{2, -1.0},
                                   std::pair{3, 0.0}, std::pair{4, 1.0}})
            PE_COMPARE_NEAR(ropeRelativeScore(theta, 2, double(m)), expected, 1e-12);
    }

    void decaySampling()
    {
        QCOMPARE(decayDistances(4, 100), (std::vector<double>{0, 1, 2, 3, 4}));
        QCOMPARE(decayDistances(100000, 5), (std::vector<double>{0, 25000, 50000, 75000, 100000}));
        // k·7/2 rounded half away from zero: 0, 3.5 → 4, 7.
        QCOMPARE(decayDistances(7, 3), (std::vector<double>{0, 4, 7}));
        QCOMPARE(decayDistances(0, 8192), (std::vector<double>{0}));
        QVERIFY(decayDistances(-1, 10).empty());
    }

    void wavelengths()
    {
        const std::vector<double> w = ropeWavelengths(std::vector<double>{1.0, 0.5, 1e-4, 0.0});
        PE_COMPARE_NEAR(w[0], 2 * pi, 1e-15);
        PE_COMPARE_NEAR(w[1], 4 * pi, 1e-15);
        PE_COMPARE_NEAR(w[2], 2e4 * pi, 1e-9);
        QVERIFY(std::isnan(w[3])); // a pair that never turns has no wavelength
    }

    void rotation()
    {
        const double theta = 0.3;
        const std::vector<RotationPoint> trail = ropeRotationTrail(theta, 5, 9);
        QCOMPARE(trail.size(), std::size_t(5));
        for (qint64 k = 0; k < 5; ++k) {
            const RotationPoint &point = trail[std::size_t(k)];
            QCOMPARE(point.position, 5 + k);
            PE_COMPARE_NEAR(point.cos, std::cos(0.3 * double(5 + k)), 1e-15);
            PE_COMPARE_NEAR(point.sin, std::sin(0.3 * double(5 + k)), 1e-15);
            PE_COMPARE_NEAR(std::hypot(point.cos, point.sin), 1.0, 1e-15);
        }
        // 100 tokens at 0.1 rad: 10 rad = one turn and 10 − 2π.
        PE_COMPARE_NEAR(ropeRotationAngle(0.1, 100), 10.0 - 2 * pi, 1e-12);
        PE_COMPARE_NEAR(ropeRotationAngle(pi / 2, 3), 1.5 * pi, 1e-12);
        QCOMPARE(ropeRotationAngle(0.0, 12345), 0.0);
        for (const RotationPoint &point : ropeRotationTrail(0.0, 0, 3))
            QCOMPARE(point.cos, 1.0);
        QVERIFY(ropeRotationTrail(1.0, 4, 3).empty());
    }

    void cosine()
    {
        const float a[] = {1, 2, 3}, b[] = {4, 5, 6}, zero[] = {0, 0, 0};
        PE_COMPARE_NEAR(cosineSimilarity(a, b, 3), 32.0 / std::sqrt(14.0 * 77.0), 1e-15);
        PE_COMPARE_NEAR(cosineSimilarity(a, a, 3), 1.0, 1e-15);
        const float minusA[] = {-1, -2, -3}, x[] = {1, 0}, y[] = {0, 1};
        PE_COMPARE_NEAR(cosineSimilarity(a, minusA, 3), -1.0, 1e-15);
        QCOMPARE(cosineSimilarity(x, y, 2), 0.0);
        QCOMPARE(cosineSimilarity(a, zero, 3), 0.0); // no direction, no similarity
        QCOMPARE(cosineFromProducts(5.0, 0.0, 3.0), 0.0);
        PE_COMPARE_NEAR(cosineFromProducts(6.0, 4.0, 9.0), 1.0, 1e-15);
    }

    void cosineAccumulatesInFloat64()
    {
        // 2^24 + 1 ones in float32 sums to 2^24; in float64 every one counts.
        const qint64 n = (qint64(1) << 24) + 7;
        std::vector<float> ones(std::size_t(n), 1.0f), mixed(std::size_t(n), 1.0f);
        mixed.back() = -1.0f;
        PE_COMPARE_NEAR(cosineSimilarity(ones.data(), mixed.data(), n),
                        (double(n) - 2.0) / double(n), 1e-12);
    }

    // The model phrase page's token cosines and mean pooling, against float64 loops written here:
    // cos(u, v) = Σ uᵢvᵢ / √(Σ uᵢ² Σ vᵢ²) and mean[i] = Σₜ x[t, i] / n.
    void crossCosinesAndMeanPooling()
    {
        const qint64 na = 3, nb = 4, d = 5;
        std::vector<float> a, b;
        for (qint64 k = 0; k < na * d; ++k)
            a.push_back(float(std::sin(0.7 * double(k) + 0.3)));
        for (qint64 k = 0; k < nb * d; ++k)
            b.push_back(float(std::cos(1.3 * double(k)) - 0.2));
        std::vector<float> out(std::size_t(na * nb), -9.0f);
        crossCosines(a.data(), na, b.data(), nb, d, out.data());
        for (qint64 i = 0; i < na; ++i)
            for (qint64 j = 0; j < nb; ++j) {
                double dot = 0, aa = 0, bb = 0;
                for (qint64 k = 0; k < d; ++k) {
                    const double u = a[std::size_t(i * d + k)], v = b[std::size_t(j * d + k)];
                    dot += u * v;
                    aa += u * u;
                    bb += v * v;
                }
                PE_COMPARE_NEAR(out[std::size_t(i * nb + j)], dot / std::sqrt(aa * bb), 1e-7);
            }
        const std::vector<float> mean = meanPooled(b.data(), nb, d);
        QCOMPARE(qint64(mean.size()), d);
        for (qint64 k = 0; k < d; ++k) {
            double sum = 0;
            for (qint64 t = 0; t < nb; ++t)
                sum += b[std::size_t(t * d + k)];
            PE_COMPARE_NEAR(mean[std::size_t(k)], sum / double(nb), 1e-7);
        }
        // No tokens: a zero vector, which has no cosine with anything (0).
        QCOMPARE(meanPooled(b.data(), 0, d), std::vector<float>(std::size_t(d), 0.0f));
        // Summed in float64: 2^24 ones and a 3 average to (2^24 + 3) / (2^24 + 1), which a
        // float32 sum (stuck at 2^24) would miss.
        const qint64 n = (qint64(1) << 24) + 1;
        std::vector<float> column(std::size_t(n), 1.0f);
        column.back() = 3.0f;
        PE_COMPARE_NEAR(meanPooled(column.data(), n, 1)[0], (double(n) + 2.0) / double(n), 1e-7);
    }

    // The sinusoid fit's curve and mean R² (the table view's figure), against the formula
    // a sin(ωp + φ) + c written here.
    void sinusoidFitCurveAndMeanR2()
    {
        const qint64 n = 200;
        const double a = 0.8, w = 2 * pi / 37.0, phi = 0.4, c = -0.1;
        std::vector<float> column;
        for (qint64 p = 0; p < n; ++p)
            column.push_back(float(a * std::sin(w * double(p) + phi) + c));
        const SinusoidFit fit = fitSinusoid(column.data(), n, 1);
        QVERIFY(fit.rSquared > 0.999999);
        for (qint64 p : {0, 5, 99, 199})
            PE_COMPARE_NEAR(fit.at(double(p)), a * std::sin(w * double(p) + phi) + c, 1e-5);
        SinusoidFit other;
        other.rSquared = 0.25;
        QCOMPARE(meanRSquared({fit, other}), (fit.rSquared + 0.25) / 2.0);
        QCOMPARE(meanRSquared({}), 0.0);
    }

    void similarityOfSinusoid_data()
    {
        QTest::addColumn<int>("metric");
        QTest::addRow("dot") << int(SimilarityMetric::Dot);
        QTest::addRow("cosine") << int(SimilarityMetric::Cosine);
    }

    void similarityOfSinusoid()
    {
        QFETCH(int, metric);
        const qint64 n = 50, d = 64;
        std::vector<float> rows;
        for (qint64 p = 0; p < n; ++p)
            for (qint64 j = 0; j < d; ++j)
                rows.push_back(float(referenceInterleaved(p, j, d, 10000.0)));
        std::vector<float> out(std::size_t(n * n), -9.0f);
        QVERIFY(similarityMatrix(rows.data(), n, d, SimilarityMetric(metric), out.data()));
        for (qint64 p = 0; p < n; ++p)
            for (qint64 q = 0; q < n; ++q) {
                // sin a sin b + cos a cos b = cos(a − b): PE(p)·PE(q) = Σᵢ cos((p − q)ωᵢ), and
                // |PE(p)|² = d/2.
                double dot = 0.0;
                for (qint64 i = 0; i < d / 2; ++i)
                    dot += std::cos(double(p - q) * std::pow(10000.0, -2.0 * double(i) / d));
                const double expected =
                    SimilarityMetric(metric) == SimilarityMetric::Dot ? dot : dot / (d / 2.0);
                PE_COMPARE_NEAR(out[std::size_t(p * n + q)], expected, 2e-5);
                QCOMPARE(out[std::size_t(p * n + q)], out[std::size_t(q * n + p)]);
            }
    }

    void similarityIsTheOneCosine()
    {
        // Row i's cosine with row j in the matrix is cosineSimilarity of the two rows.
        const qint64 n = 6, d = 5;
        std::vector<float> rows;
        for (qint64 k = 0; k < n * d; ++k)
            rows.push_back(float(std::sin(0.7 * double(k * k)) + (k % 3 == 0 ? 0.5 : -0.25)));
        std::vector<float> out(std::size_t(n * n));
        QVERIFY(similarityMatrix(rows.data(), n, d, SimilarityMetric::Cosine, out.data()));
        for (qint64 i = 0; i < n; ++i)
            for (qint64 j = 0; j < n; ++j)
                QCOMPARE(out[std::size_t(i * n + j)],
                         float(cosineSimilarity(rows.data() + i * d, rows.data() + j * d, d)));
    }

    void similarityStopsWhenCancelled()
    {
        std::vector<float> rows(100 * 8, 1.0f), out(100 * 100, 0.0f);
        int checks = 0;
        QVERIFY(!similarityMatrix(rows.data(), 100, 8, SimilarityMetric::Dot, out.data(),
                                  [&] { return ++checks > 3; }));
        QCOMPARE(checks, 4);
    }

    void phraseDifferenceIsBMinusA()
    {
        const PhraseEmbedding e = embedding(3, 4, 5, [](qint64 b, qint64 t, qint64 j) {
            return 0.1 * double(b * b) - 0.03 * double(t) + 0.2 * std::sin(double(b + j));
        });
        const PhraseDifference d = phraseDifference(e, 0, 2);
        QCOMPARE(d.sequenceLength, 4);
        QCOMPARE(d.dims, 5);
        QCOMPARE(d.values.size(), std::size_t(20));
        double extent = 0.0;
        for (qint64 t = 0; t < 4; ++t)
            for (qint64 j = 0; j < 5; ++j) {
                const double a = float(0.0 - 0.03 * double(t) + 0.2 * std::sin(double(j)));
                const double b = float(0.4 - 0.03 * double(t) + 0.2 * std::sin(double(2 + j)));
                PE_COMPARE_NEAR(d.at(t, j), b - a, 1e-7);
                extent = std::max(extent, std::abs(b - a));
            }
        PE_COMPARE_NEAR(d.extent, extent, 1e-12);
        // The same phrase twice: all zeros, and a unit scale rather than an empty one.
        const PhraseDifference same = phraseDifference(e, 1, 1);
        QCOMPARE(same.extent, 1.0);
        for (float v : same.values)
            QCOMPARE(v, 0.0f);
        QVERIFY(phraseDifference(e, 0, 3).values.empty());
        QVERIFY(phraseDifference(e, -1, 0).values.empty());
        // A window of tokens 1 and 2 holds those cells, indexed by their token.
        const PhraseDifference window = phraseDifference(e, 0, 2, 1, 2);
        QCOMPARE(window.firstToken, 1);
        QCOMPARE(window.sequenceLength, 2);
        QCOMPARE(window.values.size(), std::size_t(10));
        for (qint64 t = 1; t < 3; ++t)
            for (qint64 j = 0; j < 5; ++j)
                QCOMPARE(window.at(t, j), d.at(t, j));
        QCOMPARE(phraseDifference(e, 0, 2, 3, 10).sequenceLength, 1); // clipped to the sequence
    }

    void tokenSimilarityIsCosineToEachToken()
    {
        const PhraseEmbedding e = embedding(2, 3, 2, [](qint64 b, qint64 t, qint64 j) {
            // Phrase 0, token 1 is (1, 0); phrase 1's tokens point at 0°, 90° and 135°.
            if (b == 0)
                return j == 0 ? 1.0 : double(t);
            const double angle = t == 0 ? 0.0 : t == 1 ? pi / 2 : 3 * pi / 4;
            return 2.0 * (j == 0 ? std::cos(angle) : std::sin(angle));
        });
        const std::vector<double> s = tokenSimilarity(e, 0, 0, 1);
        QCOMPARE(s.size(), std::size_t(3));
        PE_COMPARE_NEAR(s[0], 1.0, 1e-7);
        PE_COMPARE_NEAR(s[1], 0.0, 1e-7);
        PE_COMPARE_NEAR(s[2], -std::sqrt(0.5), 1e-7);
        // Token 1 of phrase 0 is (1, 1): 45° from phrase 1's first token.
        PE_COMPARE_NEAR(tokenSimilarity(e, 0, 1, 1)[0], std::sqrt(0.5), 1e-7);
        QVERIFY(tokenSimilarity(e, 0, 3, 1).empty());
        QVERIFY(tokenSimilarity(e, 0, 0, 2).empty());
        // Tokens 1 and 2 only.
        const std::vector<double> window = tokenSimilarity(e, 0, 0, 1, 1, 2);
        QCOMPARE(window.size(), std::size_t(2));
        PE_COMPARE_NEAR(window[0], 0.0, 1e-7);
        PE_COMPARE_NEAR(window[1], -std::sqrt(0.5), 1e-7);
    }

    void sharingPositionsOfFigure16_9()
    {
        // Fig 16-9: p = 22 and p = 60 (38 apart) share their values in i = 100 and 101.
        const qint64 rows = 201, cols = 512;
        std::vector<float> m;
        for (qint64 p = 0; p < rows; ++p)
            for (qint64 j = 0; j < cols; ++j)
                m.push_back(float(referenceInterleaved(p, j, cols, 10000.0)));
        const QList<ColumnView> columns{{m.data() + 100, rows, cols}, {m.data() + 101, rows, cols}};
        const QList<qint64> shared = sharingPositions(columns, 22, 0.01);
        QVERIFY2(shared.contains(60), qPrintable(QString::number(shared.size())));
        QVERIFY(!shared.contains(35));
        QVERIFY(!shared.contains(22));
        // Every reported position agrees with p = 22 in both dims, in float64.
        for (qint64 q : shared)
            for (qint64 j : {100, 101})
                PE_COMPARE_NEAR(referenceInterleaved(q, j, cols, 10000.0),
                                referenceInterleaved(22, j, cols, 10000.0), 0.0101);
    }

    void sharingNeedsEveryColumn()
    {
        const float first[] = {0.0f, 1.0f, 0.005f, 2.0f, -0.009f};
        const float second[] = {5.0f, 5.0f, 5.0f, 9.0f, 5.02f};
        QCOMPARE(sharingPositions({{first, 5, 1}}, 0, 0.01), (QList<qint64>{2, 4}));
        QCOMPARE(sharingPositions({{first, 5, 1}, {second, 5, 1}}, 0, 0.01), QList<qint64>{2});
        QVERIFY(sharingPositions({}, 0, 0.01).isEmpty());
        QVERIFY(sharingPositions({{first, 5, 1}, ColumnView{}}, 0, 0.01).isEmpty());
        QVERIFY(sharingPositions({{first, 5, 1}}, 5, 0.01).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
