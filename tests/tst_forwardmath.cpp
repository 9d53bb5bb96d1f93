// pe forwardmath: the forward pass's matrix products on OpenBLAS, cut into blocks of rows and
// columns. Known answers: the same products summed in float64 here; strided views (a head's
// columns), an output with a wider row stride, Conv1D's in x out layout; and results bit for
// bit the same on any thread count.
#include "model/forwardmath.h"

#include <QTest>

#include <Eigen/Dense>

#include <cmath>
#include <random>

using namespace pe;

namespace {

RowMatrix randomMatrix(qint64 rows, qint64 cols, unsigned seed)
{
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    RowMatrix m(rows, cols);
    for (qint64 i = 0; i < m.size(); ++i)
        m.data()[i] = normal(generator);
    return m;
}

// The largest |ours - a @ b| over the largest |a @ b|, the product summed in float64.
double relativeError(const float *ours, qint64 outStride, const MatrixView &a,
                     const Eigen::MatrixXd &b)
{
    double worst = 0, scale = 0;
    for (qint64 i = 0; i < a.rows; ++i)
        for (qint64 j = 0; j < b.cols(); ++j) {
            double sum = 0;
            for (qint64 k = 0; k < a.cols; ++k)
                sum += double(a.data[i * a.stride + k]) * b(k, j);
            scale = std::max(scale, std::abs(sum));
            worst = std::max(worst, std::abs(double(ours[i * outStride + j]) - sum));
        }
    return worst / scale;
}

} // namespace

class TestForwardMath : public QObject
{
    Q_OBJECT

private slots:
    void productsAgainstFloat64();
    void sameOnAnyThreadCount();
    void linearBothLayouts();
};

// 600 rows (split into row blocks) x 1,000 columns (column blocks, a short last one), the left
// matrix a strided view of a wider one, the output written with a row stride of 1,003 and
// nothing written between rows.
void TestForwardMath::productsAgainstFloat64()
{
    const RowMatrix wide = randomMatrix(600, 90, 1);
    const MatrixView a = columns(wide, 10, 70);
    const RowMatrix w = randomMatrix(1000, 70, 2); // out x in
    const qint64 stride = 1003;
    std::vector<float> out(std::size_t(600 * stride), 7.0f);
    productTransposed(a, view(w), 2, out.data(), stride);
    const Eigen::MatrixXd wt = w.cast<double>().transpose();
    QVERIFY(relativeError(out.data(), stride, a, wt) <= 1e-6);
    for (qint64 i = 0; i < 600; ++i)
        for (qint64 j = 1000; j < stride; ++j)
            QCOMPARE(out[std::size_t(i * stride + j)], 7.0f);

    const RowMatrix v = randomMatrix(70, 1000, 3); // in x out (Conv1D)
    product(a, view(v), 3, out.data(), stride);
    QVERIFY(relativeError(out.data(), stride, a, v.cast<double>()) <= 1e-6);

    // One head's scores and context on the calling thread: q_h @ k_h^T, then p @ v_h.
    const RowMatrix qk = randomMatrix(33, 64, 4);
    RowMatrix scores(33, 33);
    productTransposedHere(columns(qk, 0, 32), columns(qk, 32, 32), scores.data(), 33);
    const Eigen::MatrixXd k = qk.rightCols(32).cast<double>().transpose();
    QVERIFY(relativeError(scores.data(), 33, columns(qk, 0, 32), k) <= 1e-6);
    RowMatrix context(33, 16);
    productHere(view(scores), columns(qk, 8, 16), context.data(), 16);
    QVERIFY(relativeError(context.data(), 16, view(scores), qk.middleCols(8, 16).cast<double>()) <=
            1e-6);
}

void TestForwardMath::sameOnAnyThreadCount()
{
    const RowMatrix a = randomMatrix(1030, 64, 5);
    const RowMatrix w = randomMatrix(2500, 64, 6);
    RowMatrix one(1030, 2500), more(1030, 2500);
    productTransposed(view(a), view(w), 1, one.data(), 2500);
    for (const int threads : {2, 3, 7, 16}) {
        more.setZero();
        productTransposed(view(a), view(w), threads, more.data(), 2500);
        QVERIFY2(more == one, qPrintable(QString::number(threads)));
    }
}

// nn.Linear (out x in) and Conv1D (in x out, inputMajor) of the same map, with a bias.
void TestForwardMath::linearBothLayouts()
{
    const RowMatrix x = randomMatrix(130, 48, 7);
    Projection linear;
    linear.weight = randomMatrix(300, 48, 8);
    linear.bias = Eigen::VectorXf::LinSpaced(300, -1.0f, 1.0f);
    Projection conv = linear;
    conv.weight = linear.weight.transpose();
    conv.inputMajor = true;
    RowMatrix y1, y2;
    linearProduct(x, linear, 2, &y1);
    linearProduct(x, conv, 2, &y2);
    QCOMPARE(y1.rows(), qint64(130));
    QCOMPARE(y1.cols(), qint64(300));
    QCOMPARE(y2.cols(), qint64(300));
    const Eigen::MatrixXd expected =
        (x.cast<double>() * linear.weight.cast<double>().transpose()).rowwise() +
        linear.bias.cast<double>().transpose();
    const double scale = expected.cwiseAbs().maxCoeff();
    QVERIFY((y1.cast<double>() - expected).cwiseAbs().maxCoeff() <= 1e-6 * scale);
    QVERIFY((y2.cast<double>() - expected).cwiseAbs().maxCoeff() <= 1e-6 * scale);
}

QTEST_GUILESS_MAIN(TestForwardMath)
#include "tst_forwardmath.moc"
