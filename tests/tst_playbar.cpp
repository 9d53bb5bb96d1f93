// The window's motion control (issue 13) under Xvfb: play moves the waves' marker and the
// rotation view's position step by step, the state always holding one whole step (the slider's
// value and the marker agree whenever looked at), pause returns control at once and nothing
// moves after it, a scheme field is swept on the spectrum page, and without loop it stops at
// the end by itself.
#include "dialogs/animationexportdialog.h"
#include "state/explorerstate.h"
#include "testutil.h"
#include "videoreader.h"
#include "views/mainwindow.h"
#include "widgets/playbar.h"
#include "windowtestutil.h"

#include <QCheckBox>
#include <QComboBox>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

using namespace pe;
using pe::test::openWindow;

class TestPlayBar : public QObject
{
    Q_OBJECT

    struct Controls
    {
        PlayBar *bar = nullptr;
        QToolButton *play = nullptr;
        QSlider *slider = nullptr;
        QComboBox *parameter = nullptr;
        QComboBox *speed = nullptr;
        QCheckBox *loop = nullptr;
    };

    static Controls controls(MainWindow &window)
    {
        Controls c;
        c.bar = window.findChild<PlayBar *>(QStringLiteral("motion"));
        c.play = window.findChild<QToolButton *>(QStringLiteral("motionPlay"));
        c.slider = window.findChild<QSlider *>(QStringLiteral("motionSlider"));
        c.parameter = window.findChild<QComboBox *>(QStringLiteral("motionParameter"));
        c.speed = window.findChild<QComboBox *>(QStringLiteral("motionSpeed"));
        c.loop = window.findChild<QCheckBox *>(QStringLiteral("motionLoop"));
        return c;
    }

private slots:
    void playMovesTheMarkerAndPauseStopsAtOnce()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        const Controls c = controls(*window);
        QVERIFY(c.bar && c.play && c.slider && c.parameter);
        QCOMPARE(c.parameter->currentText(), QStringLiteral("position"));
        const qint64 last = state->spec().positions - 1;

        QTest::mouseClick(c.play, Qt::LeftButton);
        QVERIFY(c.bar->isPlaying());
        QVERIFY(QTest::qWaitFor([&] { return !state->markers().isEmpty(); }, 5000));
        // Whenever looked at, the marker is the slider's step: never half a step.
        qint64 previous = -1;
        int increases = 0;
        for (int i = 0; i < 12; ++i) {
            QTest::qWait(60);
            QVERIFY(!state->markers().isEmpty());
            const qint64 marker = state->markers().constFirst();
            const qint64 expected = std::llround(double(c.slider->value()) * double(last) /
                                                 double(c.slider->maximum()));
            QCOMPARE(marker, expected);
            QCOMPARE(state->selection().position, marker); // the readout follows
            increases += marker > previous;
            previous = marker;
        }
        QVERIFY2(increases >= 8, qPrintable(QString::number(increases)));

        QElapsedTimer timer;
        timer.start();
        QTest::mouseClick(c.play, Qt::LeftButton);
        QVERIFY(timer.elapsed() < 100);
        QVERIFY(!c.bar->isPlaying());
        const QList<qint64> stopped = state->markers();
        QTest::qWait(300);
        QCOMPARE(state->markers(), stopped);

        // The slider moves the marker by hand too.
        c.slider->setValue(c.slider->maximum());
        QCOMPARE(state->markers().constFirst(), last);
    }

    void rotationTurns()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        state->setPage(Page::Schemes);
        SchemeSettings s = state->schemeSettings();
        s.view = SchemeView::Rotation;
        QVERIFY(state->setSchemeSettings(s));
        const Controls c = controls(*window);
        QCOMPARE(c.bar->currentViews(), QList<FigureView>{FigureView::Rotation});
        QCOMPARE(c.parameter->currentText(), QStringLiteral("position"));
        c.slider->setValue(c.slider->maximum() / 2); // 120 of 240 steps over p = 0..199
        QCOMPARE(state->schemeSettings().rotationPosition, 100);
        c.slider->setValue(0);
        QCOMPARE(state->schemeSettings().rotationPosition, 0);
        c.bar->play();
        QVERIFY(
            QTest::qWaitFor([&] { return state->schemeSettings().rotationPosition >= 5; }, 5000));
        c.bar->pause();
        const qint64 at = state->schemeSettings().rotationPosition;
        QTest::qWait(200);
        QCOMPARE(state->schemeSettings().rotationPosition, at);
    }

    // The spectrum page sweeps a field of the scheme: the base from its value to 8 times it.
    void parameterSweep()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        state->setPage(Page::Schemes);
        SchemeSettings s = state->schemeSettings();
        s.view = SchemeView::Spectrum;
        QVERIFY(state->setSchemeSettings(s));
        const Controls c = controls(*window);
        QCOMPARE(c.parameter->findText(QStringLiteral("position")), -1); // no position here
        const int index = c.parameter->findText(QStringLiteral("base"));
        QVERIFY(index >= 0);
        const double base = std::get<SinusoidalScheme>(state->spec().scheme).base;
        c.parameter->setCurrentIndex(index);
        c.slider->setValue(c.slider->maximum());
        PE_COMPARE_NEAR(std::get<SinusoidalScheme>(state->spec().scheme).base, 8 * base,
                        1e-9 * base);
        c.slider->setValue(0);
        PE_COMPARE_NEAR(std::get<SinusoidalScheme>(state->spec().scheme).base, base, 1e-9 * base);
    }

    void withoutLoopStopsAtTheEnd()
    {
        auto window = openWindow();
        const Controls c = controls(*window);
        c.loop->setChecked(false);
        c.speed->setCurrentIndex(c.speed->count() - 1); // 4x
        c.slider->setValue(c.slider->maximum() - 20);
        c.bar->play();
        QVERIFY(QTest::qWaitFor([&] { return !c.bar->isPlaying(); }, 5000));
        QCOMPARE(c.slider->value(), c.slider->maximum());
        QCOMPARE(window->state()->markers().constFirst(), window->state()->spec().positions - 1);
    }

    // Issue 32: Motion bar → Export… → Enter → Escape while it renders crashed (SIGSEGV: the
    // dialog deleted itself while the encoder's progress callback, pumping the event loop, still
    // called into it). Escape now cancels the export: no crash, no file, nothing left running.
    void escapeWhileExportingCancels()
    {
        auto window = openWindow();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        auto *button = window->findChild<QToolButton *>(QStringLiteral("motionExport"));
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        QDialog *dialog = nullptr;
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (QDialog *d : window->findChildren<QDialog *>())
                    if (d->isVisible())
                        dialog = d;
                return dialog != nullptr;
            },
            5000));
        // The file field is the one holding an animation's name.
        QLineEdit *file = nullptr;
        for (QLineEdit *edit : dialog->findChildren<QLineEdit *>())
            if (edit->text().endsWith(QLatin1String(".gif")))
                file = edit;
        QVERIFY(file);
        QTemporaryDir dir;
        file->setText(dir.filePath(QStringLiteral("waves.gif")));
        QTest::qWait(200); // the dialog's preview and frame plan settle

        const QPointer<QDialog> alive(dialog);
        bool escaped = false;
        QTimer::singleShot(700, window.get(), [&] {
            QWidget *target = QApplication::focusWidget();
            QTest::keyClick(target ? target : alive.data(), Qt::Key_Escape);
            escaped = true;
        });
        QWidget *focus = QApplication::focusWidget();
        QTest::keyClick(focus ? focus : dialog, Qt::Key_Return);
        QVERIFY(QTest::qWaitFor([&] { return escaped; }, 20000));
        // Cancelled within moments, not rendered to the end.
        QVERIFY(QTest::qWaitFor(
            [&] { return !alive || !alive->findChild<QProgressBar *>() ||
                         !alive->property("exporting").toBool(); },
            5000));
        QTest::qWait(500);
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList());
        QVERIFY(window->isVisible());
    }

    // Export… writes what the bar plays from a copy of the state (the window's marker stays),
    // and Cancel stops it with no file left.
    void exportDialogWritesAndCancels()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        const Controls c = controls(*window);
        c.slider->setValue(30);
        const QList<qint64> markers = state->markers();
        c.bar->exportAnimation();
        auto *dialog = window->findChild<AnimationExportDialog *>();
        QVERIFY(dialog);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("waves.gif"));
        dialog->setPath(path);
        dialog->setFrames(6);
        dialog->setFps(10);
        dialog->setFigureSize(320, 240);
        QString error;
        QVERIFY2(dialog->exportAnimation(&error), qPrintable(error));
        QCOMPARE(state->markers(), markers);
        const auto video = pe::test::readVideo(path, false);
        QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
        QCOMPARE(video.frameCount, 6);
        QCOMPARE(video.width, 320);

        const QString long_ = dir.filePath(QStringLiteral("long.mp4"));
        dialog->setPath(long_);
        dialog->setFrames(3600);
        QTimer::singleShot(200, dialog, &AnimationExportDialog::cancel);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!dialog->exportAnimation(&error));
        QVERIFY(timer.elapsed() < 20000);
        QCOMPARE(error, QStringLiteral("Cancelled; no file was written."));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("waves.gif")});
    }
};

QTEST_MAIN(TestPlayBar)
#include "tst_playbar.moc"
