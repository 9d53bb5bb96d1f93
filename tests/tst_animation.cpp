// Animated export (issue 13): `pescope export --animate` read back through FFmpeg's demuxers and
// decoders (codec, pixel format, size, frame rate, frame count), its first and last frames
// against the still export at those values, the marker-only painting against the still path,
// the window's AnimationJob writing the same file (issue 39), refusals before any work with one
// message naming the option, and no file after a failure or SIGTERM.
#include "backends/backendfactory.h"
#include "compute/computescheduler.h"
#include "figures/animationexporter.h"
#include "figures/animationjob.h"
#include "figures/figureexporter.h"
#include "state/explorerstate.h"
#include "state/presets.h"

#include "testutil.h"
#include "videoreader.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <optional>

#include <sys/stat.h>

using namespace pe;
using pe::test::imageDifference;
using pe::test::readVideo;
using pe::test::runPescope;
using pe::test::RunResult;

namespace {

const QStringList wavesArgs = {
    QStringLiteral("export"), QStringLiteral("--view"), QStringLiteral("waves"),
    QStringLiteral("--scheme"), QStringLiteral("sinusoidal"), QStringLiteral("--positions"),
    QStringLiteral("200"), QStringLiteral("--dims"), QStringLiteral("128"),
    QStringLiteral("--mark-dims"), QStringLiteral("20,21"), QStringLiteral("--backend"),
    QStringLiteral("cpu"), QStringLiteral("--width"), QStringLiteral("320"),
    QStringLiteral("--height"), QStringLiteral("240"),
    // The selection stays put (with --mark-dims alone it would follow the first marker).
    QStringLiteral("--select"), QStringLiteral("50@20")};

QStringList entries(const QString &folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

QString describe(const pe::test::ImageDifference &d)
{
    return QStringLiteral("mean %1, worst 8x8 block %2").arg(d.mean).arg(d.worstBlock);
}

} // namespace

class TestAnimation : public QObject
{
    Q_OBJECT

    // The still export of `args` with `extra`, as an image.
    static QImage still(const QTemporaryDir &dir, QStringList args, const QStringList &extra)
    {
        const QString path =
            dir.filePath(QStringLiteral("still-%1.png")
                             .arg(extra.join(QLatin1Char('_')).remove(QLatin1Char('-'))));
        args << extra << QStringLiteral("--out") << path;
        const RunResult r = runPescope(args);
        if (r.exitCode != 0)
            qWarning("%s", r.err.constData());
        return QImage(path);
    }

    // `frame` matches `right` within the codec's loss and is clearly further from `wrong`.
    // A grey frame (a luma plane) is compared by brightness only: yuv420p smears thin lines' hue.
    static void checkFrame(const QImage &frame, const QImage &right, const QImage &wrong,
                           double tolerance, const char *what)
    {
        QVERIFY2(!right.isNull() && !wrong.isNull(), what);
        const auto same = imageDifference(frame, right);
        const auto other = imageDifference(frame, wrong);
        QVERIFY2(same.mean < tolerance, qPrintable(QStringLiteral("%1 against the still: %2")
                                                       .arg(QLatin1String(what), describe(same))));
        QVERIFY2(other.worstBlock > 2 * same.worstBlock,
                 qPrintable(QStringLiteral("%1: against the still %2, against another %3")
                                .arg(QLatin1String(what), describe(same), describe(other))));
    }

private slots:
    void positionSweep_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("codec");
        QTest::addColumn<double>("tolerance"); // mean difference per channel, 0..255
        // GIF: the palette's dithering; MP4 and WebM: luma through the lossy codec.
        QTest::addRow("gif") << QStringLiteral("w.gif") << QStringLiteral("gif") << 1.0;
        QTest::addRow("mp4") << QStringLiteral("w.mp4") << QStringLiteral("h264") << 2.5;
        QTest::addRow("webm") << QStringLiteral("w.webm") << QStringLiteral("vp9") << 2.5;
    }

    // The waves' marker from p = 10 to p = 150: the file as asked, and its first and last
    // frames equal to the still export with the marker there.
    void positionSweep()
    {
        QFETCH(QString, name);
        QFETCH(QString, codec);
        QFETCH(double, tolerance);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        const RunResult r = runPescope(
            QStringList(wavesArgs)
            << QStringLiteral("--animate") << QStringLiteral("position") << QStringLiteral("--from")
            << QStringLiteral("10") << QStringLiteral("--to") << QStringLiteral("150")
            << QStringLiteral("--frames") << QStringLiteral("8") << QStringLiteral("--fps")
            << QStringLiteral("10") << QStringLiteral("--out") << path);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains(QByteArray("waves animation written to " + path.toUtf8() +
                                           " (8 frames of 320 x 240 px at 10 fps, position "
                                           "from 10 to 150)")),
                 r.err.constData());
        const auto video = readVideo(path);
        QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
        QCOMPARE(video.codec, codec);
        if (codec != QLatin1String("gif"))
            QCOMPARE(video.pixelFormat, QStringLiteral("yuv420p"));
        QCOMPARE(video.width, 320);
        QCOMPARE(video.height, 240);
        QCOMPARE(video.frameCount, 8);
        PE_COMPARE_NEAR(video.fps, 10.0, 1e-6);

        const auto at = [&](int p) {
            return still(dir, wavesArgs, {QStringLiteral("--mark-positions"), QString::number(p)});
        };
        // yuv420p: the stored luma plane, free of any colour conversion.
        const QList<QImage> &frames =
            codec == QLatin1String("gif") ? video.frames : video.lumaFrames;
        QCOMPARE(frames.size(), 8);
        checkFrame(frames.first(), at(10), at(30), tolerance, "first frame");
        checkFrame(frames.last(), at(150), at(130), tolerance, "last frame");
        // Frame 4 of 8: p = 10 + 140 x 4 / 7 = 90.
        checkFrame(frames[4], at(90), at(110), tolerance, "frame 4");
    }

    // The marker-only painting equals the still export's whole path but where the marker
    // crosses a curve or another marker (drawn over it instead of under it): with one marker,
    // and with Fig 16-9's (the first moves; p = 60, its dots and the cross at p = 35 stay).
    void markerOnlyEqualsStillPath_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addRow("one marker") << QString();
        QTest::addRow("Fig 16-9: a still marker and a cross") << QStringLiteral("geron-16-9");
    }

    void markerOnlyEqualsStillPath()
    {
        QFETCH(QString, preset);
        ExplorerState state;
        QString error;
        if (preset.isEmpty()) {
            EncodingSpec spec = state.spec();
            spec.positions = 200;
            spec.dims = 128;
            QVERIFY(state.setSpec(spec, &error));
            QVERIFY(state.setWaveDims({20, 21}, &error));
            QVERIFY(state.setMarkers({}, &error));
        } else {
            QVERIFY2(applyPreset(state, preset, &error), qPrintable(error));
            QCOMPARE(state.markers(), (QList<qint64>{22, 60}));
            QCOMPARE(state.crosses().size(), 1);
        }
        const QList<qint64> stillMarkers = state.markers().mid(1);
        FigureOptions figure;
        figure.views = {FigureView::Waves};
        figure.width = 640;
        figure.height = 400;
        AnimationOptions options;
        options.frames = 12;
        const auto animation = FigureAnimation::plan(state, figure.views, options, &error);
        QVERIFY2(animation, qPrintable(error));
        const double last = double(state.spec().positions - 1);
        QCOMPARE(animation->valueAt(11), last);
        const auto backend = makeBackend(BackendChoice::Cpu, &error);
        QVERIFY(backend);
        AnimationExporter fast(state, figure, *animation);
        for (int k : {0, 5, 11}) {
            const QImage frame = fast.renderFrame(k, *backend, &error);
            QVERIFY2(!frame.isNull(), qPrintable(error));
            QVERIFY(fast.paintsMarkerOnly());
            QCOMPARE(fast.state().markers(),
                     QList<qint64>{qint64(animation->valueAt(k))} + stillMarkers);
            const QImage reference = fast.renderStill(k, *backend, &error);
            QCOMPARE(frame.size(), reference.size());
            QCOMPARE(frame.dotsPerMeterX(), reference.dotsPerMeterX());
            int differing = 0;
            for (int y = 0; y < frame.height(); ++y)
                for (int x = 0; x < frame.width(); ++x)
                    differing += frame.pixel(x, y) != reference.pixel(x, y);
            if (qEnvironmentVariableIsSet("PE_DUMP")) {
                frame.save(QStringLiteral("/tmp/dump-fast-%1.png").arg(k));
                reference.save(QStringLiteral("/tmp/dump-still-%1.png").arg(k));
            }
            // A crossing touches a few dozen pixels; a misplaced layer, or a still marker or
            // cross left out or painted twice, would touch hundreds to thousands.
            QVERIFY2(
                differing < 200,
                qPrintable(QStringLiteral("frame %1: %2 pixels differ").arg(k).arg(differing)));
        }
    }

    // The window's export (AnimationJob: the numbers from the ComputeScheduler, the frames drawn
    // a batch per turn of the event loop, encoded by a FrameWriter) writes the command line's MP4
    // byte for byte. The writer's bounded queue makes the job hand the event loop back between
    // batches (the window stays live), and progress counts every frame, in order, to the last.
    void windowJobWritesTheCommandLinesFile()
    {
        constexpr int frames = 40;
        QTemporaryDir dir;
        const QString cliPath = dir.filePath(QStringLiteral("cli.mp4"));
        const RunResult r = runPescope(
            QStringList(wavesArgs)
            << QStringLiteral("--animate") << QStringLiteral("position") << QStringLiteral("--from")
            << QStringLiteral("0") << QStringLiteral("--to") << QStringLiteral("199")
            << QStringLiteral("--frames") << QString::number(frames) << QStringLiteral("--fps")
            << QStringLiteral("30") << QStringLiteral("--out") << cliPath);
        QVERIFY2(r.exitCode == 0, r.err.constData());

        // The state wavesArgs make.
        QString error;
        ExplorerState state;
        state.setBackendChoice(BackendChoice::Cpu);
        EncodingSpec spec = state.spec();
        spec.positions = 200;
        spec.dims = 128;
        QVERIFY2(state.setSpec(spec, &error), qPrintable(error));
        ViewOptions view = state.viewOptions();
        view.waveDims = {20, 21};
        view.markers.clear();
        view.selection = {50, 20};
        QVERIFY2(state.setViewOptions(view, &error), qPrintable(error));
        FigureOptions figure;
        figure.views = {FigureView::Waves};
        figure.width = 320;
        figure.height = 240;
        AnimationOptions options;
        options.from = 0;
        options.to = 199;
        options.frames = frames;
        const auto plan = FigureAnimation::plan(state, figure.views, options, &error);
        QVERIFY2(plan, qPrintable(error));

        ComputeScheduler scheduler(&state);
        AnimationJob job(state, figure, *plan, &scheduler);
        QList<int> written;
        connect(&job, &AnimationJob::progress, this, [&](int done, int total, bool palette) {
            QVERIFY(!palette); // an MP4 has no palette pass
            QCOMPARE(total, frames);
            written.append(done);
        });
        std::optional<VideoEncoder::Status> status;
        QString why;
        connect(&job, &AnimationJob::finished, this, [&](VideoEncoder::Status s, const QString &e) {
            status = s;
            why = e;
        });
        int turns = 0;
        QTimer turn; // fires on every turn of the event loop
        turn.setInterval(0);
        connect(&turn, &QTimer::timeout, this, [&] { turns += status ? 0 : 1; });
        const QString windowPath = dir.filePath(QStringLiteral("window.mp4"));
        QVERIFY2(job.start(windowPath, 30, &error), qPrintable(error));
        turn.start();
        QVERIFY(QTest::qWaitFor([&] { return status.has_value(); }, 60000));
        QVERIFY2(*status == VideoEncoder::Status::Done, qPrintable(why));
        QVERIFY(turns > 0);
        QVERIFY(!written.isEmpty());
        QCOMPARE(written.constFirst(), 0);
        QCOMPARE(written.constLast(), frames);
        QVERIFY(std::is_sorted(written.cbegin(), written.cend()));

        QFile window(windowPath), cli(cliPath);
        QVERIFY(window.open(QIODevice::ReadOnly) && cli.open(QIODevice::ReadOnly));
        const QByteArray bytes = window.readAll();
        QVERIFY(!bytes.isEmpty());
        QVERIFY2(bytes == cli.readAll(), "the window's MP4 differs from the command line's");
        QCOMPARE(entries(dir.path()),
                 (QStringList{QStringLiteral("cli.mp4"), QStringLiteral("window.mp4")}));
    }

    // A parameter swept for the spectrum view, each frame recomputed: the first and last frames
    // are the still figures at those values.
    void parameterSweep()
    {
        QTemporaryDir dir;
        const QStringList args = {
            QStringLiteral("export"),   QStringLiteral("--view"),    QStringLiteral("spectrum"),
            QStringLiteral("--scheme"), QStringLiteral("rope"),      QStringLiteral("--rope-type"),
            QStringLiteral("linear"),   QStringLiteral("--backend"), QStringLiteral("cpu"),
            QStringLiteral("--width"),  QStringLiteral("320"),       QStringLiteral("--height"),
            QStringLiteral("240")};
        const QString path = dir.filePath(QStringLiteral("factor.mp4"));
        const RunResult r =
            runPescope(QStringList(args)
                       << QStringLiteral("--factor") << QStringLiteral("1")
                       << QStringLiteral("--animate") << QStringLiteral("factor")
                       << QStringLiteral("--from") << QStringLiteral("1") << QStringLiteral("--to")
                       << QStringLiteral("8") << QStringLiteral("--frames") << QStringLiteral("5")
                       << QStringLiteral("--fps") << QStringLiteral("5") << QStringLiteral("--out")
                       << path);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto video = readVideo(path);
        QCOMPARE(video.frameCount, 5);
        PE_COMPARE_NEAR(video.fps, 5.0, 1e-6);
        const auto at = [&](const char *factor) {
            return still(dir, args, {QStringLiteral("--factor"), QLatin1String(factor)});
        };
        QCOMPARE(video.lumaFrames.size(), 5);
        checkFrame(video.lumaFrames.first(), at("1"), at("8"), 2.5, "factor 1");
        checkFrame(video.lumaFrames.last(), at("8"), at("1"), 2.5, "factor 8");
        checkFrame(video.lumaFrames[2], at("4.5"), at("8"), 2.5, "factor 4.5");
    }

    // The rotation view's position: the vectors turn; first and last frames are the stills.
    void rotationSweep()
    {
        QTemporaryDir dir;
        const QStringList args = {
            QStringLiteral("export"),   QStringLiteral("--view"),  QStringLiteral("rotation"),
            QStringLiteral("--scheme"), QStringLiteral("rope"),    QStringLiteral("--backend"),
            QStringLiteral("cpu"),      QStringLiteral("--width"), QStringLiteral("320"),
            QStringLiteral("--height"), QStringLiteral("240")};
        const QString path = dir.filePath(QStringLiteral("rotation.gif"));
        const RunResult r =
            runPescope(QStringList(args)
                       << QStringLiteral("--animate") << QStringLiteral("position")
                       << QStringLiteral("--from") << QStringLiteral("3") << QStringLiteral("--to")
                       << QStringLiteral("40") << QStringLiteral("--frames") << QStringLiteral("4")
                       << QStringLiteral("--fps") << QStringLiteral("4") << QStringLiteral("--out")
                       << path);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto video = readVideo(path);
        QCOMPARE(video.codec, QStringLiteral("gif"));
        QCOMPARE(video.frameCount, 4);
        PE_COMPARE_NEAR(video.fps, 4.0, 1e-6);
        const auto at = [&](int p) {
            return still(dir, args, {QStringLiteral("--rotation-position"), QString::number(p)});
        };
        checkFrame(video.frames.first(), at(3), at(40), 1.0, "p = 3");
        checkFrame(video.frames.last(), at(40), at(3), 1.0, "p = 40");
    }

    void refusedBeforeAnyWork_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("message");
        const auto row = [](const char *name, const char *extra, const char *message) {
            QTest::addRow("%s", name)
                << QString::fromUtf8(extra).split(QLatin1Char(' ')) << QString::fromUtf8(message);
        };
        row("one frame", "--animate position --frames 1 --out a.gif",
            "--frames must be between 2 and 3600 (got 1)");
        row("3601 frames", "--animate position --frames 3601 --out a.gif",
            "--frames must be between 2 and 3600 (got 3601)");
        row("fps 0", "--animate position --fps 0 --out a.mp4",
            "--fps must be between 1 and 60 (got 0)");
        row("fps 61", "--animate position --fps 61 --out a.webm",
            "--fps must be between 1 and 60 (got 61)");
        row("odd width", "--animate position --width 321 --out a.mp4",
            "--width must be even for MP4 (yuv420p halves the colour resolution; got 321)");
        row("too high", "--animate position --height 5000 --out a.gif",
            "--height must be between 16 and 4096 pixels for an animation (got 5000)");
        row("past the end", "--animate position --to 200 --out a.gif",
            "--to must be a whole number from 0 to 199 for --animate position of the waves "
            "view (got 200)");
        row("half a position", "--animate position --from 2.5 --out a.gif",
            "--from must be a whole number from 0 to 199");
        row("unknown field", "--animate bogus --out a.gif",
            "--animate must be position or a numeric field of --scheme sinusoidal: position, "
            "base (got \"bogus\")");
        row("no range", "--animate base --out a.gif", "--animate base needs --from and --to");
        row("outside the field", "--animate base --from 0.5 --to 10 --out a.gif",
            "--from: --base must be greater than 1 and at most 1e+12 (got 0.5)");
        row("still with frames", "--frames 10 --out a.png",
            "--frames does not apply to a still figure (add --animate)");
        row("gif without animate", "--out a.gif",
            "--out a.gif is an animation: add --animate position or --animate PARAM");
        row("animate to png", "--animate position --out a.png",
            "--animate writes --out FIG.gif, FIG.mp4 or FIG.webm (got \"a.png\")");
    }

    // One line naming the option, exit 2, nothing written.
    void refusedBeforeAnyWork()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        QTemporaryDir dir;
        for (QString &arg : extra)
            if (arg.startsWith(QLatin1String("a.")))
                arg = dir.filePath(arg);
        const RunResult r = runPescope(QStringList(wavesArgs) << extra);
        QCOMPARE(r.exitCode, 2);
        const QString err =
            QString::fromUtf8(r.err).replace(dir.path() + QLatin1Char('/'), QString());
        QVERIFY2(err.startsWith(QStringLiteral("pescope export: ") + message), qPrintable(err));
        QCOMPARE(err.count(QLatin1Char('\n')), 1);
        QCOMPARE(entries(dir.path()), QStringList());
    }

    void positionNeedsAPositionView()
    {
        const RunResult r = runPescope({QStringLiteral("export"), QStringLiteral("--view"),
                                        QStringLiteral("spectrum"), QStringLiteral("--scheme"),
                                        QStringLiteral("rope"), QStringLiteral("--animate"),
                                        QStringLiteral("position"), QStringLiteral("--out"),
                                        QStringLiteral("/nonexistent/a.gif")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("pescope export: --animate position moves the marker of the "
                                  "waves, heatmap, rotation and phrase views; the spectrum view "
                                  "has none"),
                 r.err.constData());
    }

    // A pipe cannot take an animation (the muxers go back to fill in sizes).
    void pipeIsRefused()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("pipe.mp4"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const RunResult r = runPescope(QStringList(wavesArgs)
                                       << QStringLiteral("--animate") << QStringLiteral("position")
                                       << QStringLiteral("--out") << fifo);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err == QStringLiteral("pescope export: --out %1: an animation is written to a "
                                         "file, not to a device or pipe\n")
                              .arg(fifo)
                              .toUtf8(),
                 r.err.constData());
    }

    // FFmpeg lives in the media module, loaded only for animations: without it an animation
    // fails with one message naming the module, leaves nothing, and still figures work.
    void missingMediaModuleIsReported()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.gif"));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PE_MEDIA_MODULE"), dir.filePath(QStringLiteral("none.so")));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PE_EXECUTABLE), QStringList(wavesArgs)
                                                         << QStringLiteral("--animate")
                                                         << QStringLiteral("position")
                                                         << QStringLiteral("--out") << path);
        QVERIFY(process.waitForFinished(120000));
        const QByteArray err = process.readAllStandardError();
        QCOMPARE(process.exitCode(), 1);
        QVERIFY2(err.contains("media module (libpe_media.so"), err.constData());
        QVERIFY2(err.contains("none.so"), err.constData());
        QCOMPARE(entries(dir.path()), QStringList());
        process.start(QStringLiteral(PE_EXECUTABLE),
                      QStringList(wavesArgs)
                          << QStringLiteral("--out") << dir.filePath(QStringLiteral("still.png")));
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
    }

    void missingFolderFailsBeforeWork()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("no/such/a.mp4"));
        const RunResult r = runPescope(QStringList(wavesArgs)
                                       << QStringLiteral("--animate") << QStringLiteral("position")
                                       << QStringLiteral("--out") << path);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.startsWith(
                QStringLiteral("pescope export: cannot write %1: the folder").arg(path).toUtf8()),
            r.err.constData());
        QCOMPARE(entries(dir.path()), QStringList());
    }

    // SIGTERM half-way through: nothing at the path, no temporary beside it.
    void sigtermLeavesNothing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("long.webm"));
        QProcess process;
        process.start(QStringLiteral(PE_EXECUTABLE),
                      QStringList(wavesArgs)
                          << QStringLiteral("--animate") << QStringLiteral("position")
                          << QStringLiteral("--frames") << QStringLiteral("3600")
                          << QStringLiteral("--out") << path);
        QVERIFY(process.waitForStarted());
        QTest::qWait(1500);
        QCOMPARE(process.state(), QProcess::Running);
        ::kill(pid_t(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        QCOMPARE(entries(dir.path()), QStringList());
    }
};

QTEST_MAIN(TestAnimation)
#include "tst_animation.moc"
