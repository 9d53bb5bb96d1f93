// The window's motion control (issue 13) under Xvfb: play moves the selected position (never the
// markers, issue 25) and the rotation view's position step by step, the state always holding one
// whole step (the slider's value, its label and the selection agree whenever looked at), pause
// returns control at once and nothing moves after it, a scheme field is swept on the spectrum
// page as a preview no session or undo step sees, the play icon is visible in both themes, and
// without loop it stops at the end by itself.
#include "dialogs/animationexportdialog.h"
#include "state/explorerstate.h"
#include "testutil.h"
#include "videoreader.h"
#include "views/mainwindow.h"
#include "widgets/playbar.h"
#include "windowtestutil.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>

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
    // Issue 25: play moves the selected cell (where the user looks, as a click does), never the
    // markers, and is no undo step; the knob and its label say the same position throughout.
    void playMovesTheSelectionNotTheMarkers()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(state->setMarkers({22, 60}));
        window->undoStack()->clear();
        const Controls c = controls(*window);
        QVERIFY(c.bar && c.play && c.slider && c.parameter);
        QCOMPARE(c.parameter->currentText(), QStringLiteral("position"));
        const qint64 last = state->spec().positions - 1;
        const auto knobPosition = [&] {
            return std::llround(double(c.slider->value()) * double(last) /
                                double(c.slider->maximum()));
        };
        // Before playing the knob sits on the selected position.
        QCOMPARE(knobPosition(), state->selection().position);
        QCOMPARE(c.bar->valueText(), QStringLiteral("position = %1").arg(knobPosition()));

        const qint64 start = state->selection().position;
        QTest::mouseClick(c.play, Qt::LeftButton);
        QVERIFY(c.bar->isPlaying());
        QVERIFY(QTest::qWaitFor([&] { return state->selection().position != start; }, 5000));
        // Whenever looked at, the selection is the slider's step: never half a step.
        qint64 previous = -1;
        int increases = 0;
        for (int i = 0; i < 12; ++i) {
            QTest::qWait(60);
            QCOMPARE(state->selection().position, knobPosition());
            QCOMPARE(c.bar->valueText(), QStringLiteral("position = %1").arg(knobPosition()));
            QCOMPARE(state->markers(), (QList<qint64>{22, 60}));
            increases += state->selection().position > previous;
            previous = state->selection().position;
        }
        QVERIFY2(increases >= 8, qPrintable(QString::number(increases)));

        QElapsedTimer timer;
        timer.start();
        QTest::mouseClick(c.play, Qt::LeftButton);
        QVERIFY(timer.elapsed() < 100);
        QVERIFY(!c.bar->isPlaying());
        const Selection stopped = state->selection();
        QTest::qWait(300);
        QCOMPARE(state->selection(), stopped);
        QCOMPARE(state->markers(), (QList<qint64>{22, 60}));
        QCOMPARE(window->undoStack()->count(), 0);
        QVERIFY(!window->isWindowModified());

        // The slider moves the selection by hand too.
        c.slider->setValue(c.slider->maximum());
        QCOMPARE(state->selection().position, last);
        QCOMPARE(state->markers(), (QList<qint64>{22, 60}));
        // A click on the heatmap moves the knob to the clicked position.
        state->setSelection({30, 7});
        QCOMPARE(knobPosition(), 30);
        QCOMPARE(c.bar->valueText(), QStringLiteral("position = 30"));
    }

    // A page switch rebuilds the bar: the knob and the label still agree, on the state's value.
    void knobAndLabelAgreeAfterAPageSwitch()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        const Controls c = controls(*window);
        c.slider->setValue(c.slider->maximum() / 3);
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier);
        const qint64 last = state->spec().positions - 1;
        const qint64 knob =
            std::llround(double(c.slider->value()) * double(last) / double(c.slider->maximum()));
        QCOMPARE(knob, state->selection().position);
        QCOMPARE(c.bar->valueText(), QStringLiteral("position = %1").arg(knob));
    }

    // The play icon is drawn in the palette's text colour: it stands out from the button in both
    // themes (Fusion's own media icons are dark grey, nearly invisible on the dark theme).
    void playIconFollowsTheTheme()
    {
        auto window = openWindow();
        const Controls c = controls(*window);
        for (Theme theme : {Theme::Light, Theme::Dark}) {
            window->state()->setTheme(theme);
            QCoreApplication::processEvents();
            const QImage icon =
                c.play->icon().pixmap(24, 24).toImage().convertToFormat(QImage::Format_ARGB32);
            const QColor text = c.play->palette().color(QPalette::ButtonText);
            const QColor button = c.play->palette().color(QPalette::Button);
            // The opaque pixels are the text colour, far from the button's.
            int opaque = 0;
            for (int y = 0; y < icon.height(); ++y)
                for (int x = 0; x < icon.width(); ++x) {
                    const QColor pixel = icon.pixelColor(x, y);
                    if (pixel.alpha() < 250)
                        continue;
                    ++opaque;
                    QCOMPARE(pixel.rgb(), text.rgb());
                }
            QVERIFY(opaque > 50);
            QVERIFY2(std::abs(text.lightness() - button.lightness()) > 100,
                     qPrintable(QStringLiteral("%1 on %2").arg(text.name(), button.name())));
        }
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
        // The played position is a preview: a session would keep the typed one, no undo step.
        const qint64 typed = s.rotationPosition;
        QCOMPARE(state->toJson()
                     .value(QStringLiteral("schemes"))
                     .toObject()
                     .value(QStringLiteral("rotationPosition"))
                     .toInteger(),
                 typed);
        QCOMPARE(window->undoStack()->count(), 1); // the view chosen above, no more
        QVERIFY(state->isPreviewing());
        // A change of the user's own ends it: back to the typed position, the knob with it.
        QTest::keyClick(window.get(), Qt::Key_M, Qt::ControlModifier);
        QVERIFY(!state->isPreviewing());
        QCOMPARE(state->schemeSettings().rotationPosition, typed);
        QCOMPARE(c.bar->valueText(), QStringLiteral("position = %1").arg(typed));
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
        QCOMPARE(state->toJson()
                     .value(QStringLiteral("spec"))
                     .toObject()
                     .value(QStringLiteral("base"))
                     .toDouble(),
                 base); // a sweep is shown, never saved
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
        QCOMPARE(window->state()->selection().position, window->state()->spec().positions - 1);
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
