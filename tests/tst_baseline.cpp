// Figures after the redesign equal pescope 0.1's: every preset's views and a session saved in
// format 1 are exported by today's `pescope export` and compared, pixel by pixel, with the PNGs
// pescope 0.1 rendered of the same command lines (tests/data/baseline-0.1, made before the
// redesign by the 0.1 executable; cases.txt lists the command lines). The cases whose layout
// issue 12 changed on purpose (tick labels no longer cut, legends beside the plot, Fig 16-9 as
// the book draws it; the phrase difference's padding rows greyed, Compare's A − B panel) are
// not here, nor the phrase and token-similarity figures whose titles issue 25 laid out on two
// lines at most with the legend beside the plot, nor the spectrum, whose legend issue 38 moved
// under the plots (it covered curves) and whose two panels now share one x axis: property tests
// check them (tst_export's noTextOutsideFigure and selectionOnlyWhenAsked, tst_explorer's
// geronPresetByShortcut, tst_phrasepage's titles and ticks, tst_schemeviews'
// legendAndLabelsClearAtAnyFontScale), since an image rendered by today's code would only test
// the code against itself.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace pe;

class TestBaseline : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_data;

private slots:
    void initTestCase()
    {
        m_data = QFINDTESTDATA("data/baseline-0.1/cases.txt");
        QVERIFY2(!m_data.isEmpty(), "tests/data/baseline-0.1/cases.txt not found");
        m_data = QFileInfo(m_data).absolutePath();
    }

    void sameFigures_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("folder");
        int count = 0;
        for (const QString &folder : {m_data}) {
            QFile cases(folder + QStringLiteral("/cases.txt"));
            QVERIFY(cases.open(QIODevice::ReadOnly | QIODevice::Text));
            for (const QString &line :
                 QString::fromUtf8(cases.readAll()).split(QLatin1Char('\n'))) {
                if (line.trimmed().isEmpty() || line.startsWith(QLatin1Char('#')))
                    continue;
                const QString name = line.section(QLatin1Char('|'), 0, 0).trimmed();
                QStringList args =
                    line.section(QLatin1Char('|'), 1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
                for (QString &arg : args)
                    if (arg.endsWith(QLatin1String(".json")))
                        arg = folder + QLatin1Char('/') + arg; // the session beside the PNGs
                QTest::addRow("%s", qPrintable(name)) << name << args << folder;
                ++count;
            }
        }
        QVERIFY(count >= 4); // the cases file was read whole
    }
    void sameFigures()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, args);
        QFETCH(QString, folder);
        const QString out = m_dir.filePath(name + QStringLiteral(".png"));
        const test::RunResult run =
            test::runPescope(QStringList{QStringLiteral("export")} + args +
                             QStringList{QStringLiteral("--width"), QStringLiteral("640"),
                                         QStringLiteral("--height"), QStringLiteral("420"),
                                         QStringLiteral("--backend"), QStringLiteral("cpu"),
                                         QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QImage now = QImage(out).convertToFormat(QImage::Format_ARGB32);
        const QImage then = QImage(folder + QLatin1Char('/') + name + QStringLiteral(".png"))
                                .convertToFormat(QImage::Format_ARGB32);
        QVERIFY(!then.isNull());
        QCOMPARE(now.size(), then.size());
        // Equal here; a different CPU may round a heatmap cell onto the next colormap entry,
        // so a few pixels (0.2%) may differ, never more.
        qint64 differing = 0;
        for (int y = 0; y < now.height(); ++y)
            for (int x = 0; x < now.width(); ++x)
                differing += now.pixel(x, y) != then.pixel(x, y);
        const qint64 allowed = qint64(now.width()) * now.height() / 500;
        QVERIFY2(differing <= allowed, qPrintable(QStringLiteral("%1 pixels differ from %2/%3.png")
                                                      .arg(differing)
                                                      .arg(QFileInfo(folder).fileName(), name)));
    }
};

QTEST_GUILESS_MAIN(TestBaseline)
#include "tst_baseline.moc"
