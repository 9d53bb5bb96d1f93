// The window's motion control (issue 13) under Xvfb: play moves the selected position (never the
// markers, issue 25) and the rotation view's position step by step, the state always holding one
// whole step (the slider's value, its label and the selection agree whenever looked at), pause
// returns control at once and nothing moves after it, a scheme field is swept on the spectrum
// page as a preview no session or undo step sees, the play icon is visible in both themes, and
// without loop it stops at the end by itself. Its Export… is File > Export figure preset to what
// it plays: the same frames as `pescope export --animate`, written off the GUI thread, stopped by
// Escape or by closing.
#include "compute/computescheduler.h"
#include "dialogs/exportdialog.h"
#include "media/outputformats.h"
#include "state/explorerstate.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "testutil.h"
#include "videoreader.h"
#include "views/fileactions.h"
#include "views/mainwindow.h"
#include "views/modelphraseview.h"
#include "widgets/playbar.h"
#include "windowtestutil.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
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

    // Clicks the Motion bar's Export…: File > Export figure, preset to what the bar plays.
    static ExportDialog *openMotionExport(MainWindow &window)
    {
        auto *button = window.findChild<QToolButton *>(QStringLiteral("motionExport"));
        if (!button)
            return nullptr;
        QTest::mouseClick(button, Qt::LeftButton);
        auto *dialog = window.findChild<ExportDialog *>();
        return dialog && dialog->isVisible() && dialog->isAnimated() ? dialog : nullptr;
    }

    static QPushButton *exportButton(ExportDialog &dialog)
    {
        for (QPushButton *button : dialog.findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("&Export"))
                return button;
        return nullptr;
    }

    // `pescope export --session FILE` with `options` (words split at spaces) and `more`.
    static pe::test::RunResult exportSession(const QString &session, const QString &options,
                                             const QStringList &more)
    {
        return pe::test::runPescope(
            QStringList{QStringLiteral("export"), QStringLiteral("--session"), session} +
            options.split(QLatin1Char(' ')) + more);
    }

    // Two animations decoded: `count` frames each, pixel for pixel the same, and moving (the
    // first and last frames differ).
    static void sameFrames(const pe::test::DecodedVideo &a, const pe::test::DecodedVideo &b,
                           int count)
    {
        QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
        QVERIFY2(b.error.isEmpty(), qPrintable(b.error));
        QCOMPARE(a.frames.size(), count);
        QCOMPARE(b.frames.size(), count);
        for (int k = 0; k < count; ++k)
            QVERIFY2(a.frames[k] == b.frames[k],
                     qPrintable(QStringLiteral("frame %1 differs").arg(k)));
        QVERIFY(a.frames.first() != a.frames.last());
    }

    static QStringList entries(const QString &folder)
    {
        return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
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

        // More positions than the slider has steps: the knob goes to the nearest step, the
        // label says the clicked position (it said the step's, "778" for p = 777, issue 46.8).
        EncodingSpec spec = state->spec();
        spec.positions = 1000;
        QVERIFY(state->setSpec(spec));
        state->setSelection({777, 7});
        QCOMPARE(state->selection().position, 777);
        QCOMPARE(c.bar->valueText(), QStringLiteral("position = 777"));
        const double knob = double(c.slider->value()) * 999.0 / double(c.slider->maximum());
        QVERIFY2(std::abs(knob - 777.0) <= 999.0 / double(c.slider->maximum()),
                 qPrintable(QString::number(knob)));
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
        s.view = FigureView::Rotation;
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
        s.view = FigureView::Spectrum;
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
        QCOMPARE(c.bar->valueText(), QStringLiteral("base = 10,000"));

        // Written as the rest of the window writes numbers, not "base = 1e+06" (issue 46).
        EncodingSpec spec = state->spec();
        std::get<SinusoidalScheme>(spec.scheme).base = 1e6;
        QVERIFY(state->setSpec(spec));
        c.parameter->setCurrentIndex(c.parameter->findText(QStringLiteral("base")));
        c.slider->setValue(0);
        QCOMPARE(c.bar->valueText(), QStringLiteral("base = 1,000,000"));
        c.slider->setValue(c.slider->maximum());
        QCOMPARE(c.bar->valueText(), QStringLiteral("base = 8,000,000"));
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

    // Issue 32: Motion bar → Export… → Enter → Escape while it renders crashed (SIGSEGV: the
    // dialog deleted itself while the encoder's progress callback, pumping the event loop, still
    // called into it). Escape now stops the export: no crash, no file, nothing left running.
    void escapeWhileExportingCancels()
    {
        auto window = openWindow();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        ExportDialog *dialog = openMotionExport(*window);
        QVERIFY(dialog);
        // The file field holds an animation's name: the Motion bar asked for one.
        auto *file = dialog->findChild<QLineEdit *>(QStringLiteral("exportPath"));
        QVERIFY(file && file->text().endsWith(QLatin1String(".gif")));
        QCOMPARE(dialog->options().views,
                 (QList<FigureView>{FigureView::Waves, FigureView::Heatmap}));
        QTemporaryDir dir;
        file->setText(dir.filePath(QStringLiteral("waves.gif")));
        QVERIFY(QTest::qWaitFor([&] { return exportButton(*dialog)->isEnabled(); }, 20000));

        const QPointer<ExportDialog> alive(dialog);
        bool escaped = false;
        bool wasExporting = false;
        QTimer::singleShot(700, window.get(), [&] {
            escaped = true;
            if (!alive)
                return;
            wasExporting = alive->isExporting();
            QWidget *target = alive->focusWidget();
            QTest::keyClick(target ? target : alive.data(), Qt::Key_Escape);
        });
        // Enter and Escape go where a person's keys go: the focused field of the active dialog.
        QVERIFY(QTest::qWaitForWindowActive(dialog));
        QWidget *focus = dialog->focusWidget();
        QTest::keyClick(focus ? focus : dialog, Qt::Key_Return);
        QVERIFY(dialog->isExporting()); // started, and Enter returned at once
        QVERIFY(QTest::qWaitFor([&] { return escaped; }, 20000));
        QVERIFY(wasExporting);
        QVERIFY(alive);
        QVERIFY(QTest::qWaitFor([&] { return !dialog->isExporting(); }, 10000));
        QCOMPARE(dialog->message(), QStringLiteral("Stopped; no file was written."));
        QVERIFY(dialog->isVisible()); // Escape stopped the export; a second one closes
        QVERIFY(QTest::qWaitFor([&] { return window->scheduler()->isIdle(); }, 10000));
        QCOMPARE(entries(dir.path()), QStringList());
        QTest::keyClick(dialog, Qt::Key_Escape);
        QVERIFY(!dialog->isVisible());
    }

    // The window closed while an animation is written: the export stops and waits for the
    // writer's frame, and leaves no file.
    void closingTheWindowStopsTheExport()
    {
        auto window = openWindow();
        ExportDialog *dialog = openMotionExport(*window);
        QVERIFY(dialog);
        QTemporaryDir dir;
        dialog->setPath(dir.filePath(QStringLiteral("long.mp4")));
        AnimationOptions animation = dialog->animation();
        animation.frames = 3600;
        dialog->setAnimation(animation);
        QVERIFY(QTest::qWaitFor([&] { return exportButton(*dialog)->isEnabled(); }, 20000));
        QString error;
        QVERIFY2(dialog->exportFigure(&error), qPrintable(error));
        QVERIFY(dialog->isExporting());
        QTest::qWait(800);
        window.reset();
        QCOMPARE(entries(dir.path()), QStringList());
    }

    // Export… from the window writes what `pescope export --animate` writes for the same
    // session and options: Fig 16-9 (waves over heatmap) with its marker moving, frame for
    // frame; the window's own marker stays where it was.
    void windowExportEqualsTheCommandLine()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        QString error;
        QVERIFY(applyPreset(*state, QStringLiteral("geron-16-9"), &error));
        const QList<qint64> markers = state->markers();
        ExportDialog *dialog = openMotionExport(*window);
        QVERIFY(dialog);
        AnimationOptions animation = dialog->animation();
        QCOMPARE(animation.parameter, QStringLiteral("position"));
        animation.from = 10;
        animation.to = 150;
        animation.frames = 6;
        FigureOptions figure = dialog->options();
        figure.width = 480;
        figure.height = 360;
        figure.style.fontScale = 1.5;
        figure.title = QStringLiteral("Fig 16-9, animated");
        dialog->setOptions(figure);
        dialog->setAnimation(animation, 10);
        QTemporaryDir dir;
        const QString windowFile = dir.filePath(QStringLiteral("window.gif"));
        dialog->setPath(windowFile);
        QVERIFY(QTest::qWaitFor([&] { return exportButton(*dialog)->isEnabled(); }, 20000));
        QSignalSpy exported(dialog, &ExportDialog::exported);
        QTest::mouseClick(exportButton(*dialog), Qt::LeftButton);
        QVERIFY2(exported.wait(60000) || exported.size() == 1, qPrintable(dialog->message()));
        QCOMPARE(state->markers(), markers);

        const QString session = dir.filePath(QStringLiteral("s.pescope.json"));
        QVERIFY2(saveSession(*state, session, &error), qPrintable(error));
        const QString cliFile = dir.filePath(QStringLiteral("cli.gif"));
        const pe::test::RunResult r = exportSession(
            session,
            QStringLiteral("--view waves+heatmap --animate position --from 10 --to 150 --frames 6 "
                           "--fps 10 --width 480 --height 360 --font-scale 1.5 --backend cpu"),
            {QStringLiteral("--title"), figure.title, QStringLiteral("--out"), cliFile});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto fromWindow = pe::test::readVideo(windowFile);
        QCOMPARE(fromWindow.width, 480);
        PE_COMPARE_NEAR(fromWindow.fps, 10.0, 1e-6);
        sameFrames(fromWindow, pe::test::readVideo(cliFile), 6); // the marker moves
    }

    // Issue 47: the Motion bar's Export… and the export dialog's format choice name every
    // format of the table in their tooltips, so a new format cannot be left out of them.
    void tooltipsNameEveryFormat()
    {
        auto window = openWindow();
        auto *button = window->findChild<QToolButton *>(QStringLiteral("motionExport"));
        QVERIFY(button);
        ExportDialog *dialog = openMotionExport(*window);
        QVERIFY(dialog);
        auto *format = dialog->findChild<QComboBox *>(QStringLiteral("exportFormat"));
        QVERIFY(format);
        for (const OutputFormat &f : outputFormats()) {
            const QRegularExpression label(u"\\b"_qs + QLatin1String(f.label) + u"\\b"_qs);
            QVERIFY2(format->toolTip().contains(label), f.label);
            if (f.kind == OutputKind::Animation)
                QVERIFY2(button->toolTip().contains(label), f.label);
        }
    }

    // Issue 46: the Motion bar's Export… with the model's attention on screen opened on the
    // tutorial's phrases ("Phrases: random vs fixed"). It opens on the view shown.
    void motionExportOpensOnTheViewShown()
    {
        auto window = openWindow();
        window->state()->setPage(Page::Phrases);
        QSignalSpy opened(FileActions::of(window.get()), &FileActions::modelOpened);
        FileActions::of(window.get())
            ->openModel(QFINDTESTDATA(QStringLiteral("data/models/llama-tiny")));
        QVERIFY(opened.wait(30000));
        QCOMPARE(opened.at(0).at(0).toString(), QString());
        PhraseSource source = window->state()->phraseSource();
        source.tokenizer = PhraseTokenizer::Model;
        QVERIFY(window->state()->setPhraseSource(source));
        QVERIFY(QTest::qWaitFor([&] { return window->isSettled(); }, 60000));
        auto *model = window->findChild<ModelPhraseView *>();
        QVERIFY(model && model->isVisible());
        QCOMPARE(model->currentView(), FigureView::ModelAttention);
        auto *button = window->findChild<QToolButton *>(QStringLiteral("motionExport"));
        QTest::mouseClick(button, Qt::LeftButton);
        auto *dialog = window->findChild<ExportDialog *>();
        QVERIFY(dialog && dialog->isVisible());
        QCOMPARE(dialog->options().views, QList<FigureView>{FigureView::ModelAttention});
        QVERIFY2(
            QFileInfo(dialog->path()).fileName().startsWith(QLatin1String("pescope-attention")),
            qPrintable(dialog->path()));
    }

    // Issue 46: Export… offered the previous export's name and replaced that file silently.
    // Each opening offers a name no file has; a file that exists is replaced only when the user
    // says so (the question is the dialog's message box, answered here by its hook).
    void exportOffersAFreshNameAndAsksBeforeReplacing()
    {
        auto window = openWindow();
        QTemporaryDir dir;
        QAction *action = window->findChild<QAction *>(QStringLiteral("exportFigureAction"));
        action->trigger();
        auto *dialog = window->findChild<ExportDialog *>();
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(!QFileInfo::exists(dialog->path()));
        QVERIFY(QTest::qWaitFor([&] { return !dialog->previewImage().isNull(); }, 20000));
        QStringList asked;
        bool replace = false;
        dialog->setReplaceQuestion([&](const QString &path) {
            asked.append(path);
            return replace;
        });
        const QString first = dir.filePath(QStringLiteral("figure.png"));
        dialog->setPath(first);
        QString error;
        QVERIFY2(dialog->exportFigure(&error), qPrintable(error));
        QVERIFY(asked.isEmpty()); // a new file: nothing to ask
        dialog->close();

        // Opened again: the same folder, a name that is not the file just written.
        action->trigger();
        QVERIFY(dialog->isVisible());
        QCOMPARE(QFileInfo(dialog->path()).absolutePath(), QFileInfo(first).absolutePath());
        QVERIFY2(!QFileInfo::exists(dialog->path()), qPrintable(dialog->path()));
        QVERIFY(QTest::qWaitFor([&] { return !dialog->previewImage().isNull(); }, 20000));

        // The user points it at the earlier file: asked, and "No" keeps it.
        QFile old(first);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("kept");
        old.close();
        dialog->setPath(first);
        QVERIFY(!dialog->exportFigure(&error));
        QCOMPARE(asked, QStringList{first});
        QFile kept(first);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("kept"));
        kept.close();
        // "Yes" replaces it.
        replace = true;
        QVERIFY2(dialog->exportFigure(&error), qPrintable(error));
        QCOMPARE(asked.size(), 2);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QVERIFY(kept.read(8).startsWith("\x89PNG"));
        // An animation asks too.
        replace = false;
        const QString gif = dir.filePath(QStringLiteral("moving.gif"));
        QFile(gif).open(QIODevice::WriteOnly);
        dialog->setAnimation(AnimationOptions{});
        dialog->setPath(gif);
        QVERIFY(!dialog->exportFigure(&error));
        QVERIFY(!dialog->isExporting());
        QCOMPARE(asked.last(), gif);
        QCOMPARE(QFileInfo(gif).size(), 0);
    }

    // A swept field of the scheme: each frame's numbers come from the scheduler's frame lane,
    // and the frames are the command line's.
    void parameterSweepEqualsTheCommandLine()
    {
        auto window = openWindow();
        ExplorerState *state = window->state();
        QString error;
        EncodingSpec spec = state->spec();
        spec.positions = 64;
        spec.dims = 32;
        QVERIFY(state->setSpec(spec, &error));
        ExportDialog *dialog = openMotionExport(*window);
        QVERIFY(dialog);
        const int base = dialog->findChild<QComboBox *>(QStringLiteral("exportAnimate"))
                             ->findText(QStringLiteral("base"));
        QVERIFY(base >= 0);
        AnimationOptions animation;
        animation.parameter = QStringLiteral("base");
        animation.from = 100;
        animation.to = 10000;
        animation.frames = 4;
        FigureOptions figure = dialog->options();
        figure.width = 400;
        figure.height = 300;
        dialog->setOptions(figure);
        dialog->setAnimation(animation, 5);
        QTemporaryDir dir;
        const QString windowFile = dir.filePath(QStringLiteral("window.gif"));
        dialog->setPath(windowFile);
        QVERIFY(QTest::qWaitFor([&] { return exportButton(*dialog)->isEnabled(); }, 20000));
        QSignalSpy exported(dialog, &ExportDialog::exported);
        QVERIFY2(dialog->exportFigure(&error), qPrintable(error));
        QVERIFY2(exported.wait(60000) || exported.size() == 1, qPrintable(dialog->message()));
        QCOMPARE(std::get<SinusoidalScheme>(state->spec().scheme).base, 10000.0); // unmoved

        const QString session = dir.filePath(QStringLiteral("s.pescope.json"));
        QVERIFY2(saveSession(*state, session, &error), qPrintable(error));
        const QString cliFile = dir.filePath(QStringLiteral("cli.gif"));
        const pe::test::RunResult r = exportSession(
            session,
            QStringLiteral("--view waves+heatmap --animate base --from 100 --to 10000 --frames 4 "
                           "--fps 5 --width 400 --height 300 --backend cpu"),
            {QStringLiteral("--out"), cliFile});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        sameFrames(pe::test::readVideo(windowFile), pe::test::readVideo(cliFile), 4);
    }
};

QTEST_MAIN(TestPlayBar)
#include "tst_playbar.moc"
