// Sinusoidal encodings: the seeds' printed values, and float64 cross-checks up to 2^20 positions.
#include "testutil.h"

#include "backends/cpubackend.h"
#include "schemes/sinusoidalscheme.h"

#include <vector>

using namespace pe;

class TestSinusoidal : public QObject
{
    Q_OBJECT

    static std::vector<float> encodeRows(const EncodingSpec &spec, qint64 first, qint64 count)
    {
        std::vector<float> out(std::size_t(count * spec.dims));
        CpuBackend backend;
        QString error;
        if (!backend.encode(spec, first, count, out.data(), &error))
            qFatal("encode failed: %s", qPrintable(error));
        return out;
    }

    static EncodingSpec sinusoidal(qint64 positions, qint64 dims, double base = 10000.0,
                                   Layout layout = Layout::Interleaved)
    {
        return test::sinusoidalSpec(positions, dims, base, layout);
    }

private slots:
    // Values the seeds print: seed 002 prints its 20 x 200 matrix to 4 decimals
    // (np.set_printoptions(precision=4)); seed 004 prints 6 x 512 to 9 significant digits.
    void seedPrintedValues_data()
    {
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("column");
        QTest::addColumn<double>("printed");
        QTest::addColumn<double>("tolerance");
        const struct
        {
            const char *seed;
            int p, column;
            double printed;
        } cells[] = {
            {"002", 0, 0, 0.0},
            {"002", 0, 1, 1.0},
            {"002", 0, 2, 0.0},
            {"002", 0, 199, 1.0},
            {"002", 1, 0, 0.8415},
            {"002", 1, 1, 0.5403},
            {"002", 1, 2, 0.7907},
            {"002", 1, 198, 0.0001},
            {"002", 2, 0, 0.9093},
            {"002", 2, 1, -0.4161},
            {"002", 2, 2, 0.9681},
            {"002", 2, 198, 0.0002},
            {"002", 17, 0, -0.9614},
            {"002", 17, 1, -0.2752},
            {"002", 17, 2, 0.2024},
            {"002", 17, 198, 0.0019},
            {"002", 18, 0, -0.751},
            {"002", 18, 1, 0.6603},
            {"002", 18, 2, -0.6505},
            {"002", 18, 198, 0.002},
            {"002", 19, 0, 0.1499},
            {"002", 19, 1, 0.9887},
            {"002", 19, 2, -0.9988},
            {"002", 19, 198, 0.0021},
            {"002", 19, 197, 1.0},
            {"002", 19, 199, 1.0},
            {"004", 0, 0, 0.0},
            {"004", 0, 1, 1.0},
            {"004", 1, 0, 8.41470985e-01},
            {"004", 1, 1, 5.40302306e-01},
            {"004", 1, 2, 8.21856190e-01},
            {"004", 1, 509, 9.99999994e-01},
            {"004", 1, 510, 1.03663293e-04},
            {"004", 1, 511, 9.99999995e-01},
            {"004", 2, 0, 9.09297427e-01},
            {"004", 2, 1, -4.16146837e-01},
            {"004", 2, 2, 9.36414739e-01},
            {"004", 2, 510, 2.07326584e-04},
            {"004", 3, 0, 1.41120008e-01},
            {"004", 3, 1, -9.89992497e-01},
            {"004", 3, 2, 2.45085415e-01},
            {"004", 3, 510, 3.10989874e-04},
            {"004", 4, 0, -7.56802495e-01},
            {"004", 4, 1, -6.53643621e-01},
            {"004", 4, 2, -6.57166863e-01},
            {"004", 4, 510, 4.14653159e-04},
            {"004", 5, 0, -9.58924275e-01},
            {"004", 5, 1, 2.83662185e-01},
            {"004", 5, 2, -9.93854779e-01},
            {"004", 5, 510, 5.18316441e-04},
            {"004", 5, 511, 9.99999866e-01},
        };
        for (const auto &c : cells) {
            const bool seed002 = qstrcmp(c.seed, "002") == 0;
            QTest::addRow("seed%s_p%d_col%d", c.seed, c.p, c.column)
                << qint64(seed002 ? 20 : 6) << qint64(seed002 ? 200 : 512) << c.p << c.column
                << c.printed << (seed002 ? 0.5e-4 : 1e-6);
        }
    }
    void seedPrintedValues()
    {
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(int, p);
        QFETCH(int, column);
        QFETCH(double, printed);
        QFETCH(double, tolerance);
        const auto m = encodeRows(sinusoidal(positions, dims), 0, positions);
        PE_COMPARE_NEAR(m[std::size_t(p * dims + column)], printed, tolerance);
    }

    // Géron, Fig 16-9: positions 22 and 60 (38 apart) share their values in dims 100 and 101.
    void geronSharedValues()
    {
        const auto m = encodeRows(sinusoidal(201, 512), 0, 201);
        for (int column : {100, 101})
            PE_COMPARE_CLOSER_THAN(m[22 * 512 + column], m[60 * 512 + column], 0.01);
        // ... and the pair is what tells them apart from their neighbours.
        QVERIFY(std::abs(m[22 * 512 + 100] - m[40 * 512 + 100]) > 0.1);
    }

    // Every position below 2^20, against float64, for small odd and even dims and several bases.
    void everyPositionBelow2to20_data()
    {
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<double>("base");
        QTest::addColumn<int>("layout");
        QTest::addRow("d7_base10_interleaved") << qint64(7) << 10.0 << int(Layout::Interleaved);
        QTest::addRow("d8_base1e4_interleaved") << qint64(8) << 1e4 << int(Layout::Interleaved);
        QTest::addRow("d5_base1e7_split") << qint64(5) << 1e7 << int(Layout::Split);
        QTest::addRow("d6_base500000_split") << qint64(6) << 5e5 << int(Layout::Split);
    }
    void everyPositionBelow2to20()
    {
        QFETCH(qint64, dims);
        QFETCH(double, base);
        QFETCH(int, layout);
        const qint64 positions = qint64(1) << 20;
        const EncodingSpec spec = sinusoidal(positions, dims, base, Layout(layout));
        const auto m = encodeRows(spec, 0, positions);
        double worst = 0.0;
        qint64 worstAt = 0;
        for (qint64 p = 0; p < positions; ++p)
            for (qint64 j = 0; j < dims; ++j) {
                const double expected = spec.get<SinusoidalScheme>()->layout == Layout::Interleaved
                                            ? test::referenceInterleaved(p, j, dims, base)
                                            : test::referenceSplit(p, j, dims, base);
                const double error = std::abs(double(m[std::size_t(p * dims + j)]) - expected);
                if (error > worst) {
                    worst = error;
                    worstAt = p * dims + j;
                }
            }
        QVERIFY2(worst <= 1e-6, qPrintable(QStringLiteral("error %1 at p=%2, column %3")
                                               .arg(worst)
                                               .arg(worstAt / dims)
                                               .arg(worstAt % dims)));
    }

    // Wide matrices at the top of the range: windows of rows ending at 2^20 and 2^24.
    void wideRowsNearTheTop_data()
    {
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<double>("base");
        QTest::addColumn<int>("layout");
        QTest::addColumn<qint64>("lastRow");
        for (qint64 dims : {qint64(1), qint64(511), qint64(1024), qint64(8192)})
            for (double base : {10.0, 1e4, 1e7})
                for (int layout : {int(Layout::Interleaved), int(Layout::Split)})
                    QTest::addRow("d%lld_base%g_%s", dims, base,
                                  layout == int(Layout::Split) ? "split" : "interleaved")
                        << dims << base << layout << (qint64(1) << 20);
        QTest::addRow("d4096_at_2to24")
            << qint64(4096) << 1e4 << int(Layout::Interleaved) << (qint64(1) << 24);
    }
    void wideRowsNearTheTop()
    {
        QFETCH(qint64, dims);
        QFETCH(double, base);
        QFETCH(int, layout);
        QFETCH(qint64, lastRow);
        const EncodingSpec spec = sinusoidal(lastRow, dims, base, Layout(layout));
        const qint64 rows = 48;
        for (qint64 first : {qint64(0), lastRow / 3, lastRow - rows}) {
            const auto m = encodeRows(spec, first, rows);
            for (qint64 r = 0; r < rows; ++r)
                for (qint64 j = 0; j < dims; ++j) {
                    const qint64 p = first + r;
                    const double expected =
                        spec.get<SinusoidalScheme>()->layout == Layout::Interleaved
                            ? test::referenceInterleaved(p, j, dims, base)
                            : test::referenceSplit(p, j, dims, base);
                    PE_COMPARE_NEAR(m[std::size_t(r * dims + j)], expected, 1e-6);
                }
        }
    }

    // Odd dims: interleaved ends in a sine column; split ends in a column of zeros.
    void oddDims()
    {
        const auto interleaved = encodeRows(sinusoidal(50, 5), 0, 50);
        const auto split = encodeRows(sinusoidal(50, 5, 1e4, Layout::Split), 0, 50);
        for (qint64 p = 0; p < 50; ++p) {
            PE_COMPARE_NEAR(interleaved[std::size_t(p * 5 + 4)],
                            std::sin(double(p) / std::pow(1e4, 4.0 / 5.0)), 1e-6);
            QCOMPARE(split[std::size_t(p * 5 + 4)], 0.0f);
            // Split's halves hold the same frequencies as the interleaved pairs.
            PE_COMPARE_NEAR(split[std::size_t(p * 5 + 1)], interleaved[std::size_t(p * 5 + 2)],
                            1e-6);
            PE_COMPARE_NEAR(split[std::size_t(p * 5 + 3)], interleaved[std::size_t(p * 5 + 3)],
                            1e-6);
        }
    }

    // A window of rows equals the same rows of the whole matrix (chunked streaming relies on it).
    void rowWindowsMatchWholeMatrix()
    {
        const EncodingSpec spec = sinusoidal(1000, 33);
        const auto whole = encodeRows(spec, 0, 1000);
        const auto window = encodeRows(spec, 617, 100);
        for (qint64 i = 0; i < 100 * 33; ++i)
            QCOMPARE(window[std::size_t(i)], whole[std::size_t(617 * 33 + i)]);
    }

    void invalidSpecs_data()
    {
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<double>("base");
        QTest::addColumn<QString>("field");
        QTest::addRow("zero positions") << qint64(0) << qint64(8) << 1e4 << u"positions"_qs;
        QTest::addRow("negative positions") << qint64(-5) << qint64(8) << 1e4 << u"positions"_qs;
        QTest::addRow("too many positions")
            << (qint64(1) << 25) << qint64(8) << 1e4 << u"positions"_qs;
        QTest::addRow("zero dims") << qint64(10) << qint64(0) << 1e4 << u"dims"_qs;
        QTest::addRow("too many dims") << qint64(10) << qint64(65537) << 1e4 << u"dims"_qs;
        QTest::addRow("base 1") << qint64(10) << qint64(8) << 1.0 << u"base"_qs;
        QTest::addRow("base 0.5") << qint64(10) << qint64(8) << 0.5 << u"base"_qs;
        QTest::addRow("base nan") << qint64(10) << qint64(8) << std::nan("") << u"base"_qs;
        QTest::addRow("base inf") << qint64(10) << qint64(8) << HUGE_VAL << u"base"_qs;
        QTest::addRow("base 1e13") << qint64(10) << qint64(8) << 1e13 << u"base"_qs;
    }
    void invalidSpecs()
    {
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(double, base);
        QFETCH(QString, field);
        const EncodingSpec spec = sinusoidal(positions, dims, base);
        const QString message = spec.validate();
        QVERIFY2(message.startsWith(field), qPrintable(message));
        float sink = 0;
        QString error;
        CpuBackend backend;
        QVERIFY(!backend.encode(spec, 0, 0, &sink, &error));
        QCOMPARE(error, message);
    }

    void rowsOutsideTheMatrixAreRefused()
    {
        std::vector<float> out(100);
        QString error;
        CpuBackend backend;
        QVERIFY(!backend.encode(sinusoidal(10, 10), 5, 6, out.data(), &error));
        QVERIFY(error.contains(u"outside"));
    }
};

QTEST_GUILESS_MAIN(TestSinusoidal)
#include "tst_sinusoidal.moc"
