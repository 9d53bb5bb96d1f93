// Backend::sample(): box-filtered viewports of virtual matrices, on the CPU and (where OpenGL 4.3
// exists) the GPU, against float64 box means computed here cell by cell.
#include "backends/cpubackend.h"
#include "backends/gpubackend.h"
#include "backends/phasekernels.h"
#include "backends/samplingplan.h"
#include "gputestutil.h"
#include "testutil.h"

#include <QGuiApplication>

#include <vector>

using namespace pe;

Q_DECLARE_METATYPE(pe::MatrixWindow)

namespace {

// The schemes these tests sample (data rows carry them as ints).
enum class Scheme { Sinusoidal, Learned };

EncodingSpec makeSpec(Scheme scheme, qint64 positions, qint64 dims, double base, Layout layout,
                      quint64 seed = 0)
{
    return scheme == Scheme::Learned ? test::learnedSpec(positions, dims, seed)
                                     : test::sinusoidalSpec(positions, dims, base, layout);
}

// One cell in float64: the seeds' formulas; the learned scheme's definition is its hash.
double cellValue(const EncodingSpec &spec, qint64 p, qint64 j)
{
    if (const auto *learned = spec.get<LearnedScheme>())
        return kernels::learnedValue(kernels::rowKey(learned->seed, std::uint32_t(p)),
                                     std::uint32_t(j));
    const auto &s = *spec.get<SinusoidalScheme>();
    return s.layout == Layout::Interleaved ? test::referenceInterleaved(p, j, spec.dims, s.base)
                                           : test::referenceSplit(p, j, spec.dims, s.base);
}

// Length of [c, c + 1) within [lo, hi).
double overlap(qint64 c, double lo, double hi)
{
    return std::max(0.0, std::min(double(c + 1), hi) - std::max(double(c), lo));
}

// The documented pixel value: the mean over the footprint of the matrix held constant per cell.
double boxMean(const EncodingSpec &spec, double p0, double p1, double d0, double d1)
{
    double sum = 0.0;
    for (auto p = qint64(std::floor(p0)); double(p) < p1; ++p) {
        const double wp = overlap(p, p0, p1);
        if (wp <= 0)
            continue;
        double row = 0.0;
        for (auto j = qint64(std::floor(d0)); double(j) < d1; ++j)
            row += overlap(j, d0, d1) * cellValue(spec, p, j);
        sum += wp * row;
    }
    return sum / ((p1 - p0) * (d1 - d0));
}

double pixelBoxMean(const EncodingSpec &spec, const MatrixWindow &w, int width, int height, int x,
                    int y)
{
    const double sp = w.positionCount / height, sd = w.dimCount / width;
    return boxMean(spec, w.firstPosition + y * sp, w.firstPosition + (y + 1) * sp,
                   w.firstDim + x * sd, w.firstDim + (x + 1) * sd);
}

} // namespace

class TestSampling : public QObject
{
    Q_OBJECT

    CpuBackend m_cpu;
    std::unique_ptr<GpuBackend> m_gpu;

    // The backend a data row names; nullptr after QSKIP/QFAIL when the GPU is missing.
    Backend *backend(const QString &name)
    {
        if (name == u"cpu"_qs)
            return &m_cpu;
        if (!test::cachedMissingOpenGl43().isEmpty())
            return nullptr;
        if (!m_gpu) {
            QString why;
            // A debug context: a driver's error message fails the call it belongs to.
            GpuBackend::Options options;
            options.debugContext = true;
            m_gpu = GpuBackend::create(&why, options);
            if (!m_gpu)
                qWarning("GPU backend failed to start: %s", qPrintable(why));
        }
        return m_gpu.get();
    }

    static void addBackends(const std::function<void(const QString &)> &rows)
    {
        rows(u"cpu"_qs);
        rows(u"gpu"_qs);
    }

private slots:
    void axisSpans()
    {
        // Whole cells: 10 cells over 5 pixels.
        auto spans = pe::axisSpans(0, 10, 5);
        QCOMPARE(spans.size(), std::size_t(5));
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(spans[std::size_t(i)].first, qint64(2 * i));
            QCOMPARE(spans[std::size_t(i)].count, qint64(2));
            QCOMPARE(spans[std::size_t(i)].lowWeight, 0.0);
            QCOMPARE(spans[std::size_t(i)].highWeight, 0.0);
            QCOMPARE(spans[std::size_t(i)].scale, 0.5);
        }
        // Fractional edges: [0.5, 2) and [2, 3.5).
        spans = pe::axisSpans(0.5, 3, 2);
        QCOMPARE(spans[0].first, qint64(1));
        QCOMPARE(spans[0].count, qint64(1));
        QCOMPARE(spans[0].lowWeight, 0.5);
        QCOMPARE(spans[0].highWeight, 0.0);
        QCOMPARE(spans[1].first, qint64(2));
        QCOMPARE(spans[1].count, qint64(1));
        QCOMPARE(spans[1].lowWeight, 0.0);
        QCOMPARE(spans[1].highWeight, 0.5);
        // Zoomed in: both pixels inside cell 2 show it.
        spans = pe::axisSpans(2.25, 0.5, 2);
        for (const AxisSpan &s : spans) {
            QCOMPARE(s.first, qint64(3));
            QCOMPARE(s.count, qint64(0));
            QCOMPARE(s.lowWeight, 1.0);
            QCOMPARE(s.scale, 1.0);
        }
    }

    void singleCellsEqualMaterialised_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<int>("scheme");
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<int>("layout");
        QTest::addColumn<qint64>("firstRow");
        QTest::addColumn<qint64>("firstDim");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        const qint64 p20 = qint64(1) << 20;
        addBackends([&](const QString &b) {
            QTest::addRow("%s 300 x 37", qPrintable(b))
                << b << int(Scheme::Sinusoidal) << 300ll << 37ll << int(Layout::Interleaved)
                << 100ll << 5ll << 11 << 20;
            QTest::addRow("%s end of 2^20 x 8192", qPrintable(b))
                << b << int(Scheme::Sinusoidal) << p20 << 8192ll << int(Layout::Split) << p20 - 30
                << 8192ll - 40 << 40 << 30;
            QTest::addRow("%s learned", qPrintable(b))
                << b << int(Scheme::Learned) << 500ll << 64ll << int(Layout::Interleaved) << 480ll
                << 0ll << 64 << 20;
        });
    }
    void singleCellsEqualMaterialised()
    {
        QFETCH(QString, backend);
        QFETCH(int, scheme);
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(int, layout);
        QFETCH(qint64, firstRow);
        QFETCH(qint64, firstDim);
        QFETCH(int, width);
        QFETCH(int, height);
        if (backend == u"gpu"_qs)
            PE_REQUIRE_OPENGL43();
        Backend *b = this->backend(backend);
        QVERIFY(b);
        const EncodingSpec spec =
            makeSpec(Scheme(scheme), positions, dims, 1e4, Layout(layout), 11);
        std::vector<float> rows(std::size_t(height * dims)), pixels(std::size_t(width * height));
        QString error;
        QVERIFY(m_cpu.encode(spec, firstRow, height, rows.data(), &error));
        const MatrixWindow window{double(firstRow), double(firstDim), double(height),
                                  double(width)};
        QVERIFY2(b->sample(spec, window, width, height, pixels.data(), &error), qPrintable(error));
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                PE_COMPARE_NEAR(pixels[std::size_t(y * width + x)],
                                rows[std::size_t(y * dims + firstDim + x)], 1e-6);
    }

    void zoomedOutEqualsBoxMean_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<int>("scheme");
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<double>("base");
        QTest::addColumn<int>("layout");
        QTest::addColumn<MatrixWindow>("window");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        const qint64 p20 = qint64(1) << 20;
        const int sin = int(Scheme::Sinusoidal), il = int(Layout::Interleaved),
                  split = int(Layout::Split);
        addBackends([&](const QString &b) {
            const QByteArray name = b.toUtf8();
            const char *n = name.constData();
            QTest::addRow("%s fractional window", n)
                << b << sin << 5000ll << 48ll << 1e4 << il
                << MatrixWindow{123.4, 2.5, 4321.7, 40.25} << 29 << 37;
            QTest::addRow("%s whole matrix, odd dims, split, base 10", n)
                << b << sin << 4097ll << 33ll << 10.0 << split << MatrixWindow{0, 0, 4097, 33} << 10
                << 13;
            QTest::addRow("%s zoomed in: pixels smaller than cells", n)
                << b << sin << 1000ll << 64ll << 1e4 << il << MatrixWindow{500.2, 10.1, 3.5, 2.5}
                << 50 << 40;
            QTest::addRow("%s near 2^20, base 1e7", n)
                << b << sin << p20 << 256ll << 1e7 << split
                << MatrixWindow{p20 - 20000.5, 100.3, 20000.5, 150.2} << 16 << 12;
            QTest::addRow("%s learned", n) << b << int(Scheme::Learned) << 3000ll << 40ll << 1e4
                                           << il << MatrixWindow{0.5, 0.5, 2999, 39} << 17 << 19;
        });
    }
    void zoomedOutEqualsBoxMean()
    {
        QFETCH(QString, backend);
        QFETCH(int, scheme);
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(double, base);
        QFETCH(int, layout);
        QFETCH(MatrixWindow, window);
        QFETCH(int, width);
        QFETCH(int, height);
        if (backend == u"gpu"_qs)
            PE_REQUIRE_OPENGL43();
        Backend *b = this->backend(backend);
        QVERIFY(b);
        const EncodingSpec spec =
            makeSpec(Scheme(scheme), positions, dims, base, Layout(layout), 3);
        std::vector<float> pixels(std::size_t(width * height), NAN);
        QString error;
        QVERIFY2(b->sample(spec, window, width, height, pixels.data(), &error), qPrintable(error));
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                PE_COMPARE_NEAR(pixels[std::size_t(y * width + x)],
                                pixelBoxMean(spec, window, width, height, x, y), 1e-6);
    }

    // The heatmap's case: a 1920 x 1080 view of 2^20 x 8192, checked at pixels spread over it
    // (corners included: the last row holds the phases nearest 2^20).
    void fullViewportOfTheLargestMatrix_data()
    {
        QTest::addColumn<QString>("backend");
        addBackends([](const QString &b) { QTest::addRow("%s", qPrintable(b)) << b; });
    }
    void fullViewportOfTheLargestMatrix()
    {
        QFETCH(QString, backend);
        if (backend == u"gpu"_qs)
            PE_REQUIRE_OPENGL43();
        Backend *b = this->backend(backend);
        QVERIFY(b);
        const EncodingSpec spec =
            makeSpec(Scheme::Sinusoidal, qint64(1) << 20, 8192, 1e4, Layout::Interleaved);
        const int width = 1920, height = 1080;
        std::vector<float> pixels(std::size_t(width * height), NAN);
        const MatrixWindow window = MatrixWindow::whole(spec);
        QString error;
        QVERIFY2(b->sample(spec, window, width, height, pixels.data(), &error), qPrintable(error));
        const int xs[] = {0, 1, 7, 333, 960, 1500, 1918, 1919};
        const int ys[] = {0, 1, 540, 1078, 1079};
        for (int y : ys)
            for (int x : xs)
                PE_COMPARE_NEAR(pixels[std::size_t(y * width + x)],
                                pixelBoxMean(spec, window, width, height, x, y), 1e-6);
        for (float v : pixels)
            QVERIFY(std::isfinite(v) && std::abs(v) <= 1.0f + 1e-6f);
    }

    // Point sampling a column whose period is near the pixel stride gives a slow false wave
    // (a moire in the heatmap); the box mean averages whole periods away.
    void noAliasing_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<qint64>("column");
        QTest::addColumn<int>("height");
        // dims 2: column 0 is sin(p), period 2 pi = 6.283 rows; 6434 rows / 1024 px = 6.283.
        // 2^20 x 8192: column 4482 has a period of 970.4 rows; 2^20 / 1080 px = 970.9.
        addBackends([](const QString &b) {
            QTest::addRow("%s sin(p)", qPrintable(b)) << b << 6434ll << 2ll << 0ll << 1024;
            QTest::addRow("%s 2^20 x 8192 column 4482", qPrintable(b))
                << b << (qint64(1) << 20) << 8192ll << 4482ll << 1080;
        });
    }
    void noAliasing()
    {
        QFETCH(QString, backend);
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(qint64, column);
        QFETCH(int, height);
        if (backend == u"gpu"_qs)
            PE_REQUIRE_OPENGL43();
        Backend *b = this->backend(backend);
        QVERIFY(b);
        const EncodingSpec spec =
            makeSpec(Scheme::Sinusoidal, positions, dims, 1e4, Layout::Interleaved);
        const double stride = double(positions) / height;
        const double period =
            2 * std::numbers::pi * std::pow(1e4, 2.0 * double(column / 2) / double(dims));
        PE_COMPARE_CLOSER_THAN(period / stride, 1, 0.01);
        // What point sampling at pixel centres would show: close to the full amplitude.
        double pointAmplitude = 0;
        for (int y = 0; y < height; ++y)
            pointAmplitude = std::max(
                pointAmplitude, std::abs(cellValue(spec, qint64((y + 0.5) * stride), column)));
        QVERIFY(pointAmplitude > 0.8);
        std::vector<float> pixels(static_cast<std::size_t>(height));
        QString error;
        const MatrixWindow window{0, double(column), double(positions), 1};
        QVERIFY2(b->sample(spec, window, 1, height, pixels.data(), &error), qPrintable(error));
        double boxAmplitude = 0;
        for (float v : pixels)
            boxAmplitude = std::max(boxAmplitude, double(std::abs(v)));
        qInfo("point-sampled amplitude %.3f, box-filtered %.4f", pointAmplitude, boxAmplitude);
        QVERIFY2(boxAmplitude < 0.03, qPrintable(QString::number(boxAmplitude)));
        for (int y : {0, height / 3, height - 1})
            PE_COMPARE_NEAR(pixels[std::size_t(y)], pixelBoxMean(spec, window, 1, height, 0, y),
                            1e-6);
    }

    // Past the row budget the learned scheme averages evenly spaced rows: values stay in range.
    void learnedBeyondTheBudget()
    {
        const EncodingSpec spec =
            makeSpec(Scheme::Learned, qint64(1) << 20, 8192, 1e4, Layout::Interleaved, 1);
        QString error;
        const auto plan = buildSamplingPlan(spec, MatrixWindow::whole(spec), 64, 36, &error);
        QVERIFY2(plan, qPrintable(error));
        QVERIFY(plan->rowsPerPixel < (qint64(1) << 20) / 36);
        QCOMPARE(plan->sampleRows.size(), std::size_t(plan->rowsPerPixel) * 36);
        std::vector<float> pixels(64 * 36);
        QVERIFY(m_cpu.sample(spec, MatrixWindow::whole(spec), 64, 36, pixels.data(), &error));
        for (float v : pixels)
            PE_COMPARE_CLOSER_THAN(v, 0.0f, 0.05f);
    }

    void badRequestsAreRefused_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<MatrixWindow>("window");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<QString>("message");
        addBackends([](const QString &b) {
            const QByteArray name = b.toUtf8();
            const char *n = name.constData();
            QTest::addRow("%s past the last position", n)
                << b << MatrixWindow{0, 0, 101, 8} << 4 << 4 << u"positions 0 to 101"_qs;
            QTest::addRow("%s negative dims", n)
                << b << MatrixWindow{0, -2, 10, 4} << 4 << 4 << u"dims -2 to 2"_qs;
            QTest::addRow("%s empty", n)
                << b << MatrixWindow{5, 0, 0, 8} << 4 << 4 << u"non-empty"_qs;
            QTest::addRow("%s nan", n)
                << b << MatrixWindow{NAN, 0, 10, 8} << 4 << 4 << u"positions"_qs;
            QTest::addRow("%s zero width", n)
                << b << MatrixWindow{0, 0, 10, 8} << 0 << 4 << u"sample size 0 x 4"_qs;
            QTest::addRow("%s huge", n)
                << b << MatrixWindow{0, 0, 10, 8} << 20000 << 4 << u"sample size"_qs;
        });
    }
    void badRequestsAreRefused()
    {
        QFETCH(QString, backend);
        QFETCH(MatrixWindow, window);
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(QString, message);
        if (backend == u"gpu"_qs)
            PE_REQUIRE_OPENGL43();
        Backend *b = this->backend(backend);
        QVERIFY(b);
        const EncodingSpec spec = makeSpec(Scheme::Sinusoidal, 100, 8, 1e4, Layout::Interleaved);
        std::vector<float> pixels(16);
        QString error;
        QVERIFY(!b->sample(spec, window, width, height, pixels.data(), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void cleanupTestCase() { m_gpu.reset(); }
};

int main(int argc, char **argv)
{
    pe::test::preferOffscreenWithoutDisplay();
    QGuiApplication app(argc, argv);
    TestSampling test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_sampling.moc"
