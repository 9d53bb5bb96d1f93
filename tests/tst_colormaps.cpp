// Colormaps: matplotlib's published table values and its lookup rule (floor(t * 256), t == 1 to
// the last entry, 8-bit channels truncated), and QCPColorGradient reproducing that lookup.
#include "compute/phrasemodeldata.h"
#include "figures/attentionfigures.h"
#include "figures/colormapgradient.h"
#include "figures/plottheme.h"
#include "figures/qcpinclude.h"
#include "state/explorervalues.h"
#include "state/figurestate.h"
#include "testutil.h"

#include <QProcess>
#include <QTest>

#include <cmath>
#include <vector>

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
        // _cm_listed.py: _plasma_data, _inferno_data, _cividis_data, _twilight_data ends.
        QTest::addRow("plasma first") << "plasma" << 0 << 0.050383 << 0.029803 << 0.527975;
        QTest::addRow("plasma last") << "plasma" << 255 << 0.940015 << 0.975158 << 0.131326;
        QTest::addRow("inferno last") << "inferno" << 255 << 0.988362 << 0.998364 << 0.644924;
        QTest::addRow("cividis first") << "cividis" << 0 << 0.0 << 0.135112 << 0.304751;
        QTest::addRow("cividis last") << "cividis" << 255 << 0.995737 << 0.909344 << 0.217772;
        QTest::addRow("twilight first")
            << "twilight" << 0 << 0.88575016 << 0.85000925 << 0.88797365;
        QTest::addRow("twilight last")
            << "twilight" << 509 << 0.88571155 << 0.85002186 << 0.88572539;
        // ColorBrewer's Greys ends (#ffffff, #000000); _cm.py's coolwarm (Moreland) ends.
        QTest::addRow("Greys first") << "Greys" << 0 << 1.0 << 1.0 << 1.0;
        QTest::addRow("Greys last") << "Greys" << 255 << 0.0 << 0.0 << 0.0;
        QTest::addRow("coolwarm first")
            << "coolwarm" << 0 << 0.2298057 << 0.298717966 << 0.753683153;
        QTest::addRow("coolwarm last")
            << "coolwarm" << 255 << 0.705673158 << 0.01555616 << 0.150232812;
        // Reversed maps read the table backwards.
        QTest::addRow("viridis_r first") << "viridis_r" << 0 << 0.993248 << 0.906157 << 0.143936;
        QTest::addRow("RdBu_r last") << "RdBu_r" << 255 << 103 / 255.0 << 0.0 << 31 / 255.0;
        QTest::addRow("twilight_r first")
            << "twilight_r" << 0 << 0.88571155 << 0.85002186 << 0.88572539;
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

    // Every entry of every map (reversed too) against matplotlib itself, when Debian's
    // python3-matplotlib is here: the table is matplotlib's cmap(np.arange(cmap.N)).
    void matchesMatplotlib()
    {
        const QString python = test::pythonWithNumpy();
        if (python.isEmpty())
            PE_SKIP_MISSING("no python3 with NumPy on this machine");
        QStringList args{QStringLiteral("-c"),
                         QStringLiteral("import sys, matplotlib, numpy as np\n"
                                        "for name in sys.argv[1:]:\n"
                                        "    c = matplotlib.colormaps[name]\n"
                                        "    lut = c(np.arange(c.N))[:, :3]\n"
                                        "    print(name, c.N, ' '.join('%.9g' % v for v in "
                                        "lut.ravel()))\n")};
        for (Colormap map : allColormaps())
            args.append(colormapName(map));
        QProcess process;
        process.start(python, args);
        QVERIFY(process.waitForFinished(120000));
        if (process.exitCode() != 0 &&
            process.readAllStandardError().contains("No module named 'matplotlib'"))
            PE_SKIP_MISSING("no matplotlib for this python3 (.ci/run installs python3-matplotlib)");
        QCOMPARE(process.exitCode(), 0);
        const QList<QByteArray> lines = process.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), allColormaps().size());
        for (const QByteArray &line : lines) {
            const QList<QByteArray> words = line.split(' ');
            const auto map = parseAs<Colormap>(colormapNames, QString::fromUtf8(words[0]));
            QVERIFY(map);
            const int n = words[1].toInt();
            QCOMPARE(colormapSize(*map), n);
            QCOMPARE(words.size(), 2 + 3 * n);
            std::vector<double> ours, matplotlib;
            for (int k = 0; k < n; ++k) {
                double rgb[3];
                colormapEntry(*map, k, rgb);
                for (int c = 0; c < 3; ++c) {
                    ours.push_back(rgb[c]);
                    matplotlib.push_back(words[2 + 3 * k + c].toDouble());
                }
            }
            const QString mismatch = test::arrayMismatch(ours, matplotlib, {.absolute = 1e-8}, 3);
            QVERIFY2(mismatch.isEmpty(),
                     qPrintable(QStringLiteral("%1, row: entry, column: channel: %2")
                                    .arg(colormapName(*map))
                                    .arg(mismatch)));
        }
    }

    void lookupRule()
    {
        QCOMPARE(colormapIndex(0.0), 0);
        QCOMPARE(colormapIndex(1.0 / 256.0), 1);
        QCOMPARE(colormapIndex(0.999), 255);
        QCOMPARE(colormapIndex(1.0), 255);
        QCOMPARE(colormapIndex(-0.5), 0);
        QCOMPARE(colormapIndex(7.0), 255);
        // twilight's 510 entries: floor(t * 510).
        QCOMPARE(colormapIndex(0.5, 510), 255);
        QCOMPARE(colormapIndex(1.0, 510), 509);
        QCOMPARE(colormapColor(Colormap::TwilightR, 0.0, 0.0, 1.0),
                 colormapRgb(Colormap::Twilight, 509));
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

    // Issue 45: a NaN cell (an attention made of NaN weights) was coloured as some level of the
    // map, drawn as data. Every map draws NaN and infinities in the NaN colour, no map's colour.
    void nanIsNotData()
    {
        const QRgb nan = colormapNanColor().rgb() & 0xffffff;
        QCOMPARE(nan, QRgb(0xff00ff));
        for (Colormap map : allColormaps()) {
            for (int k = 0; k < colormapSize(map); ++k)
                QVERIFY2((colormapRgb(map, k) & 0xffffff) != nan, qPrintable(colormapName(map)));
            QCPColorGradient gradient = colormapGradient(map);
            for (const double raw : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
                const double value = colormapCell(raw);
                QRgb out = 0;
                gradient.colorize(&value, QCPRange(0.0, 1.0), &out, 1);
                QCOMPARE(out & 0xffffff, nan);
            }
        }
        QCOMPARE(nonFiniteCount(std::vector<float>{1.0f, NAN, INFINITY, 0.0f}), qint64(2));
        QCOMPARE(nonFiniteNote(0, 10), QString());
        QVERIFY(nonFiniteNote(2, 10).startsWith(QStringLiteral("2 of 10 values are NaN")));
    }

    // The attention figure of a model whose weights hold NaN says so in its title, naming the
    // tensor, and draws those cells magenta.
    void attentionTitleNamesNaN()
    {
        PhraseModelResult result;
        result.architecture = QStringLiteral("LlamaForCausalLM");
        result.heads = 1;
        ModelPhrase phrase;
        phrase.tokens.ids = {1, 2};
        phrase.tokens.tokens = {QStringLiteral("a"), QStringLiteral("b")};
        for (LayerZeroArray &a : phrase.attention) {
            a.shape = {1, 2, 2};
            a.values = {1.0f, 0.0f, NAN, NAN};
            a.warnings = {QStringLiteral("q_proj.weight holds 1 NaN or infinite values of 64")};
        }
        for (LayerZeroArray &a : phrase.embeddings) {
            a.shape = {2, 2};
            a.values = {0.5f, 0.25f, 1.0f, 2.0f};
        }
        result.phrases = {phrase, phrase};
        QCustomPlot plot;
        plot.resize(900, 500);
        const FigureState state(ExplorerValues::defaults());
        AttentionFigures(state, plotTheme(Theme::Light)).buildAttention(&plot, result, 0, 0);
        const auto titleOf = [&] {
            QString title;
            for (QCPTextElement *t : plot.findChildren<QCPTextElement *>())
                title += t->text() + QLatin1Char(' ');
            return title.replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified();
        };
        QString title = titleOf();
        QVERIFY2(title.contains(QStringLiteral("values are NaN or infinite, drawn magenta")),
                 qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("q_proj.weight holds 1 NaN")), qPrintable(title));
        // The embeddings hold none: no note.
        AttentionFigures(state, plotTheme(Theme::Light)).buildEmbeddings(&plot, result, 0);
        title = titleOf();
        QVERIFY2(!title.contains(QStringLiteral("NaN")), qPrintable(title));
    }
};

QTEST_MAIN(TestColormaps)
#include "tst_colormaps.moc"
