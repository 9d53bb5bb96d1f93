// The numbers behind figures that moved from ui/ to core (issue 47 item 3): the attention view's
// one head or mean of the heads and its with − without, the heatmap's box-filtered grid, and a
// RoPE configuration's frequency variants. Each against a float64 loop written here from the
// definition, not against pescope's own output.
#include "testutil.h"

#include "analysis/attentionheads.h"
#include "analysis/boxgrid.h"
#include "analysis/ropeconfigdata.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace pe;

namespace {

std::vector<float> randomValues(std::size_t count, unsigned seed, float lo, float hi)
{
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<float> out(count);
    for (float &v : out)
        v = uniform(engine);
    return out;
}

// |a − b| within `relative` of the reference's magnitude (and a floor of one float ulp near 0).
bool near(double value, double reference, double relative)
{
    return std::abs(value - reference) <= relative * std::max(std::abs(reference), 1e-30) + 1e-38;
}

// r^(-2i/d), i over the d/2 pairs: RoFormer's frequencies.
std::vector<double> defaultThetas(double base, qint64 dims)
{
    std::vector<double> out;
    for (qint64 i = 0; i < dims / 2; ++i)
        out.push_back(std::pow(base, -2.0 * double(i) / double(dims)));
    return out;
}

EncodingSpec ropeSpec(const RopeScheme &rope, qint64 positions, qint64 dims)
{
    EncodingSpec spec;
    spec.scheme = rope;
    spec.positions = positions;
    spec.dims = dims;
    return spec;
}

} // namespace

class TestViewNumbers : public QObject
{
    Q_OBJECT

private slots:
    // One head is that head's slice; the mean is Σ_h a[h] / heads per cell, in float64.
    void headAttentionIsTheHeadOrTheMean()
    {
        const qint64 heads = 7, tokens = 9, cells = tokens * tokens;
        const std::vector<float> attention =
            randomValues(std::size_t(heads * cells), 11, 0.0f, 1.0f);
        for (int head = 0; head < heads; ++head) {
            const std::vector<float> one = headAttention(attention, heads, tokens, head);
            QCOMPARE(qint64(one.size()), cells);
            for (qint64 i = 0; i < cells; ++i)
                QCOMPARE(one[std::size_t(i)], attention[std::size_t(head * cells + i)]);
        }
        const std::vector<float> mean =
            headAttention(attention, heads, tokens, meanOfAttentionHeads);
        QCOMPARE(qint64(mean.size()), cells);
        for (qint64 i = 0; i < cells; ++i) {
            double sum = 0.0;
            for (qint64 h = 0; h < heads; ++h)
                sum += double(attention[std::size_t(h * cells + i)]);
            // float32's rounding of the float64 mean: within half an ulp.
            QVERIFY2(near(mean[std::size_t(i)], sum / double(heads), 6e-8),
                     qPrintable(QString::number(i)));
        }
        // A mean of heads that all hold the same value is that value, exactly.
        const std::vector<float> same(std::size_t(heads * cells), 0.125f);
        for (float v : headAttention(same, heads, tokens, meanOfAttentionHeads))
            QCOMPARE(v, 0.125f);
    }

    void headAttentionRefusesWhatIsNotThere()
    {
        const std::vector<float> attention(2 * 3 * 3, 0.5f);
        QVERIFY(headAttention(attention, 2, 3, 2).empty());
        QVERIFY(headAttention(attention, 2, 3, -2).empty());
        QVERIFY(headAttention(attention, 3, 3, 0).empty()); // 3 heads of 3 x 3 is 27 values
        QVERIFY(!headAttention(attention, 2, 3, 1).empty());
    }

    // with − without per cell, float32 as the grids; NaN stays NaN.
    void differenceIsWithMinusWithout()
    {
        std::vector<float> with = randomValues(50, 3, 0.0f, 1.0f);
        const std::vector<float> without = randomValues(50, 4, 0.0f, 1.0f);
        with[7] = std::numeric_limits<float>::quiet_NaN();
        const std::vector<float> d = attentionDifference(with, without);
        QCOMPARE(d.size(), with.size());
        QVERIFY(std::isnan(d[7]));
        for (std::size_t i = 0; i < d.size(); ++i)
            if (i != 7)
                QVERIFY2(near(d[i], double(with[i]) - double(without[i]), 6e-8),
                         qPrintable(QString::number(i)));
        QVERIFY(attentionDifference(with, std::vector<float>(49)).empty());
    }

    // Each value the float64 mean of the whole cells its row and column ranges cover
    // ([y·R/n, (y+1)·R/n) by integer division), for grids from 1 x 1 to the block itself.
    void boxGridIsTheMeanOfTheCellsCovered()
    {
        const qint64 matrixRows = 37, matrixCols = 23;
        const std::vector<float> m =
            randomValues(std::size_t(matrixRows * matrixCols), 5, -2.0f, 2.0f);
        const MatrixBlock block{m.data(), matrixCols, 3, 31, 2, 21};
        const qint64 R = block.rows(), C = block.cols();
        for (const auto &[outRows, outCols] : std::vector<std::pair<qint64, qint64>>{
                 {1, 1}, {7, 5}, {R, 5}, {7, C}, {R, C}, {R - 1, C - 1}, {3, 1}}) {
            std::vector<float> out(std::size_t(outRows * outCols));
            boxMeanGrid(block, outRows, outCols, out.data());
            for (qint64 y = 0; y < outRows; ++y)
                for (qint64 x = 0; x < outCols; ++x) {
                    const qint64 r0 = block.row0 + y * R / outRows;
                    const qint64 r1 = block.row0 + (y + 1) * R / outRows;
                    const qint64 c0 = block.col0 + x * C / outCols;
                    const qint64 c1 = block.col0 + (x + 1) * C / outCols;
                    double sum = 0.0;
                    for (qint64 r = r0; r < r1; ++r)
                        for (qint64 c = c0; c < c1; ++c)
                            sum += double(m[std::size_t(r * matrixCols + c)]);
                    const double mean = sum / double((r1 - r0) * (c1 - c0));
                    QVERIFY2(near(out[std::size_t(y * outCols + x)], mean, 6e-8),
                             qPrintable(QStringLiteral("%1 x %2 grid, (%3, %4)")
                                            .arg(outRows)
                                            .arg(outCols)
                                            .arg(y)
                                            .arg(x)));
                }
            if (outRows == R && outCols == C) // full resolution: the block's own values
                for (qint64 y = 0; y < R; ++y)
                    for (qint64 x = 0; x < C; ++x)
                        QCOMPARE(out[std::size_t(y * C + x)],
                                 m[std::size_t((block.row0 + y) * matrixCols + block.col0 + x)]);
        }
    }

    // Default RoPE: original and scaled are both base^(-2i/d); linear divides the scaled set
    // by the factor and leaves the original.
    void ropeConfigDataDefaultAndLinear()
    {
        RopeScheme rope;
        rope.ropeTheta = 500000.0;
        const RopeConfigData plain = ropeConfigData(ropeSpec(rope, 256, 64));
        const std::vector<double> reference = defaultThetas(500000.0, 64);
        QCOMPARE(plain.original.size(), reference.size());
        QCOMPARE(plain.scaled.size(), reference.size());
        for (std::size_t i = 0; i < reference.size(); ++i) {
            QVERIFY(near(plain.original[i], reference[i], 1e-14));
            QVERIFY(near(plain.scaled[i], reference[i], 1e-14));
        }
        QCOMPARE(plain.attentionFactor, 1.0);
        QCOMPARE(plain.label, rope.configLabel());
        QVERIFY(plain.shortScaled.empty() && plain.longScaled.empty() && plain.mropeAxes.empty());

        rope.ropeType = RopeType::Linear;
        rope.factor = 4.0;
        const RopeConfigData linear = ropeConfigData(ropeSpec(rope, 256, 64));
        for (std::size_t i = 0; i < reference.size(); ++i) {
            QVERIFY(near(linear.original[i], reference[i], 1e-14));
            QVERIFY(near(linear.scaled[i], reference[i] / 4.0, 1e-14));
        }
    }

    // LongRoPE (HF's _compute_longrope_parameters): 1 / (ext_i · base^(2i/d)) with the short
    // factors up to the original context and the long ones beyond it; the positions shown pick.
    void ropeConfigDataLongrope()
    {
        const qint64 dims = 16, pairs = dims / 2;
        RopeScheme rope;
        rope.ropeType = RopeType::Longrope;
        rope.originalMaxPositionEmbeddings = 4096;
        rope.maxPositionEmbeddings = 131072;
        for (qint64 i = 0; i < pairs; ++i) {
            rope.shortFactor.push_back(1.0 + 0.05 * double(i));
            rope.longFactor.push_back(1.0 + 2.5 * double(i));
        }
        const auto reference = [&](const std::vector<double> &ext) {
            std::vector<double> out;
            for (qint64 i = 0; i < pairs; ++i)
                out.push_back(1.0 / (ext[std::size_t(i)] *
                                     std::pow(10000.0, 2.0 * double(i) / double(dims))));
            return out;
        };
        const std::vector<double> shortRef = reference(rope.shortFactor);
        const std::vector<double> longRef = reference(rope.longFactor);
        const std::vector<double> plainRef = defaultThetas(10000.0, dims);
        for (const qint64 positions : {qint64(2048), qint64(8192)}) {
            const RopeConfigData data = ropeConfigData(ropeSpec(rope, positions, dims));
            const bool beyond = positions > rope.originalMaxPositionEmbeddings;
            QCOMPARE(data.longApplies, beyond);
            QCOMPARE(data.originalContext, qint64(4096));
            QCOMPARE(qint64(data.shortScaled.size()), pairs);
            QCOMPARE(qint64(data.longScaled.size()), pairs);
            for (qint64 i = 0; i < pairs; ++i) {
                const auto k = std::size_t(i);
                QVERIFY(near(data.shortScaled[k], shortRef[k], 1e-14));
                QVERIFY(near(data.longScaled[k], longRef[k], 1e-14));
                QVERIFY(near(data.scaled[k], beyond ? longRef[k] : shortRef[k], 1e-14));
                QVERIFY(near(data.original[k], plainRef[k], 1e-14));
            }
            // HF: sqrt(1 + ln(s) / ln(original)) with s = 131072 / 4096.
            QVERIFY(near(data.attentionFactor, std::sqrt(1.0 + std::log(32.0) / std::log(4096.0)),
                         1e-14));
        }
    }
};

QTEST_GUILESS_MAIN(TestViewNumbers)
#include "tst_viewnumbers.moc"
