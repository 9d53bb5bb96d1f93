// Colormaps: matplotlib's published table values and its lookup rule (floor(t * 256), t == 1 to
// the last entry, 8-bit channels truncated), and QCPColorGradient reproducing that lookup.
#include "figures/colormaps.h"
#include "figures/qcpinclude.h"
#include "testutil.h"

#include <QTest>

using namespace pe;

class TestColormaps : public QObject
{
    Q_OBJECT
private slots:
    void publishedValues_data()
    {
        QTest::addColumn<QString>("map");
        QTest::addColumn<int>("index");
        QTest::addColumn<double>("r");
        QTest::addColumn<double>("g");
        QTest::addColumn<double>("b");
        // matplotlib's _cm_listed.py (viridis, magma) and ColorBrewer's RdBu end points.
        QTest::addRow("viridis first") << "viridis" << 0 << 0.267004 << 0.004874 << 0.329415;
        QTest::addRow("viridis last") << "viridis" << 255 << 0.993248 << 0.906157 << 0.143936;
        QTest::addRow("viridis middle") << "viridis" << 128 << 0.127568 << 0.566949 << 0.550556;
        QTest::addRow("magma first") << "magma" << 0 << 0.001462 << 0.000466 << 0.013866;
        QTest::addRow("magma last") << "magma" << 255 << 0.987053 << 0.991438 << 0.749504;
        QTest::addRow("RdBu first") << "RdBu" << 0 << 103 / 255.0 << 0.0 << 31 / 255.0;
        QTest::addRow("RdBu last") << "RdBu" << 255 << 5 / 255.0 << 48 / 255.0 << 97 / 255.0;
        QTest::addRow("gray 17") << "gray" << 17 << 17 / 255.0 << 17 / 255.0 << 17 / 255.0;
    }
    void publishedValues()
    {
        QFETCH(QString, map);
        QFETCH(int, index);
        QFETCH(double, r);
        QFETCH(double, g);
        QFETCH(double, b);
        const auto parsed = parseAs<Colormap>(colormapNames, map);
        QVERIFY(parsed);
        double rgb[3];
        colormapEntry(*parsed, index, rgb);
        PE_COMPARE_NEAR(rgb[0], r, 1e-6);
        PE_COMPARE_NEAR(rgb[1], g, 1e-6);
        PE_COMPARE_NEAR(rgb[2], b, 1e-6);
    }

    void lookupRule()
    {
        QCOMPARE(colormapIndex(0.0), 0);
        QCOMPARE(colormapIndex(1.0 / 256.0), 1);
        QCOMPARE(colormapIndex(0.999), 255);
        QCOMPARE(colormapIndex(1.0), 255);
        QCOMPARE(colormapIndex(-0.5), 0);
        QCOMPARE(colormapIndex(7.0), 255);
        QCOMPARE(normalizeValue(3.0, 3.0, 3.0), 0.0);
        // 8-bit channels truncate, as matplotlib's (lut * 255).astype(uint8).
        QCOMPARE(colormapRgb(Colormap::Viridis, 0), qRgb(68, 1, 84));
        QCOMPARE(colormapRgb(Colormap::Viridis, 255), qRgb(253, 231, 36));
    }

    // QCPColorMap colours cells through QCPColorGradient::colorize; it must pick the same entry.
    void gradientMatchesLookup()
    {
        for (Colormap map : allColormaps()) {
            QCPColorGradient gradient = colormapGradient(map);
            const QCPRange range(-1.0, 1.0);
            for (int k = 0; k <= 1000; ++k) {
                const double value = -1.0 + 2.0 * k / 1000.0 + 1e-9 * (k % 3);
                QRgb out = 0;
                gradient.colorize(&value, range, &out, 1);
                const QRgb expected = colormapColor(map, value, -1.0, 1.0);
                if ((out & 0xffffff) != (expected & 0xffffff))
                    QFAIL(qPrintable(QStringLiteral("%1 at %2: got %3, expected %4")
                                         .arg(colormapName(map))
                                         .arg(value)
                                         .arg(out & 0xffffff, 6, 16)
                                         .arg(expected & 0xffffff, 6, 16)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestColormaps)
#include "tst_colormaps.moc"
