// What a desktop install relies on: a session file given as a bare argument (a double-click:
// `pescope %f`) opens like --session; `pescope --version` and Help > About show the version,
// git revision, library versions and the CPU kernels in use; the application icon renders.
#include "testutil.h"

#include "buildinfo.h"
#include "dialogs/aboutdialog.h"
#include "figures/qcpinclude.h"
#include "state/sessionfile.h"
#include "views/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>

using namespace pe;
using namespace pe::test;

class TestDesktop : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString &name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("QT_QPA_PLATFORM", "offscreen"); // for the pescope processes started below
    }

    void bareFileOpensTheSession()
    {
        ExplorerState state;
        EncodingSpec spec = state.spec();
        spec.positions = 99;
        spec.dims = 77;
        QString error;
        QVERIFY2(state.setSpec(spec, &error), qPrintable(error));
        const QString session = path(QStringLiteral("lesson.pescope.json"));
        QVERIFY2(saveSession(state, session, &error), qPrintable(error));
        const QString shot = path(QStringLiteral("shot.png"));
        RunResult r = runPescope({session, QStringLiteral("--screenshot"), shot,
                                  QStringLiteral("--size"), QStringLiteral("800x600")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QImage(shot).width() > 0);

        // A file that is no session is refused as --session refuses it: the bare path was read.
        QFile newer(path(QStringLiteral("newer.pescope.json")));
        QVERIFY(newer.open(QIODevice::WriteOnly));
        newer.write("{\"format_version\": 7, \"state\": {}}");
        newer.close();
        r = runPescope(
            {newer.fileName(), QStringLiteral("--screenshot"), path(QStringLiteral("no.png"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("newer.pescope.json") && r.err.contains("newer pescope"),
                 r.err.constData());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("no.png"))));

        // A word that is neither a subcommand nor a file stays an error, as do two files.
        r = runPescope({QStringLiteral("dta")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("unknown command \"dta\""), r.err.constData());
        r = runPescope({session, session});
        QCOMPARE(r.exitCode, 2);
    }

    void versionNamesTheBuild()
    {
        const RunResult r = runPescope({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("pescope " PE_VERSION));
        const auto value = [&](const QString &name) {
            for (const QString &line : lines)
                if (line.startsWith(name + QStringLiteral(": ")))
                    return line.mid(name.size() + 2);
            return QString();
        };
        QVERIFY(!value(QStringLiteral("revision")).isEmpty());
        QVERIFY2(value(QStringLiteral("Qt")).startsWith(QString::fromLatin1(qVersion())),
                 r.out.constData());
        QCOMPARE(value(QStringLiteral("QCustomPlot")), QStringLiteral(QCUSTOMPLOT_VERSION_STR));
        QVERIFY2(value(QStringLiteral("Eigen")).startsWith(QLatin1String("3.")), r.out.constData());
        const QString kernels = value(QStringLiteral("CPU kernels"));
        QVERIFY2(kernels.startsWith(QLatin1String("avx512 ")) ||
                     kernels.startsWith(QLatin1String("avx2 ")) ||
                     kernels.startsWith(QLatin1String("sse2 ")),
                 r.out.constData());
        // The same text as this process builds (the same kernels: the same CPU, no override).
        if (qEnvironmentVariableIsEmpty("PE_CPU_KERNELS"))
            QCOMPARE(QString::fromUtf8(r.out).trimmed(), buildInfoText());

        // A source tree under git names its revision.
        QProcess git;
        git.setWorkingDirectory(QStringLiteral(PE_SOURCE_DIR));
        git.start(QStringLiteral("git"),
                  {QStringLiteral("rev-parse"), QStringLiteral("--short"), QStringLiteral("HEAD")});
        if (git.waitForFinished(30000) && git.exitCode() == 0)
            QVERIFY2(value(QStringLiteral("revision")) != QLatin1String("unknown"),
                     r.out.constData());
    }

    void aboutDialog()
    {
        MainWindowOptions options;
        options.persistent = false;
        MainWindow window(options);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *about = window.findChild<QAction *>(QStringLiteral("aboutAction"));
        QVERIFY(about);
        bool helpMenu = false;
        for (QAction *menu : window.menuBar()->actions())
            helpMenu = helpMenu || (menu->text() == QLatin1String("&Help") && menu->menu() &&
                                    menu->menu()->actions().contains(about));
        QVERIFY(helpMenu);

        QString shown, copied;
        bool found = false;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<AboutDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            found = true;
            if (auto *text = dialog->findChild<QLabel *>(QStringLiteral("aboutText")))
                shown = text->text();
            if (auto *copy = dialog->findChild<QPushButton *>(QStringLiteral("aboutCopyButton"))) {
                QTest::mouseClick(copy, Qt::LeftButton);
                copied = QGuiApplication::clipboard()->text();
            }
            dialog->reject();
        });
        about->trigger(); // modal: returns when the dialog closes
        QVERIFY(found);
        const QString info = buildInfoText();
        QCOMPARE(shown, info.section(QLatin1Char('\n'), 1));
        for (const char *name : {"revision: ", "Qt: ", "QCustomPlot: ", "Eigen: ", "CPU kernels: "})
            QVERIFY2(shown.contains(QLatin1String(name)), name);
        QCOMPARE(copied, info);
    }

    void iconRenders()
    {
        const QIcon icon = applicationIcon();
        for (const int size : {16, 24, 32, 256}) {
            QVERIFY(icon.availableSizes().contains(QSize(size, size)));
            const QImage image = icon.pixmap(size, size).toImage();
            QCOMPARE(image.size(), QSize(size, size));
            QCOMPARE(qAlpha(image.pixel(size / 2, size / 2)), 255); // drawn, not blank
            QCOMPARE(qAlpha(image.pixel(0, 0)), 0);                 // rounded corner
        }
    }
};

QTEST_MAIN(TestDesktop)
#include "tst_desktop.moc"
