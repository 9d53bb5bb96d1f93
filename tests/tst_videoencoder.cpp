// VideoEncoder (issue 13): GIF, MP4 and WebM read back through FFmpeg's own demuxers and
// decoders: codec, pixel format, size, frame rate, frame count and the frames themselves; the
// GIF palette without banding; refusals before any work; nothing left behind on failure or cancel.
#include "media/videoencoder.h"

#include "io/atomicfile.h"

#include "testutil.h"
#include "videoreader.h"

#include <QDir>
#include <QFile>
#include <QPainter>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

#include <dlfcn.h>

using namespace pe;
using pe::test::imageDifference;
using pe::test::readVideo;

namespace {

// A smooth colour ramp (a colormap's kind of gradient) on top and a black bar that moves one
// step per frame below it.
QImage syntheticFrame(int width, int height, int index)
{
    QImage image(width, height, QImage::Format_RGB32);
    for (int y = 0; y < height / 2; ++y) {
        auto *row = reinterpret_cast<QRgb *>(image.scanLine(y));
        for (int x = 0; x < width; ++x) {
            const double t = double(x) / (width - 1);
            row[x] = qRgb(int(std::lround(68 + 185 * t)), int(std::lround(1 + 230 * t * t)),
                          int(std::lround(84 + 60 * std::sin(3.0 * t))));
        }
    }
    QPainter painter(&image);
    painter.fillRect(QRect(0, height / 2, width, height - height / 2), Qt::white);
    painter.fillRect(QRect(8 + index * 6, height / 2 + 4, 4, height / 2 - 8), Qt::black);
    return image;
}

QStringList entries(const QString &folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

} // namespace

class TestVideoEncoder : public QObject
{
    Q_OBJECT

private slots:
    void formats_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("codec");
        QTest::addColumn<QString>("pixelFormat");
        QTest::addColumn<double>("tolerance"); // mean difference per channel, 0..255
        QTest::addRow("gif") << QStringLiteral("a.gif") << QStringLiteral("gif") << QString()
                             << 4.0;
        QTest::addRow("mp4") << QStringLiteral("a.mp4") << QStringLiteral("h264")
                             << QStringLiteral("yuv420p") << 3.0;
        QTest::addRow("webm") << QStringLiteral("a.webm") << QStringLiteral("vp9")
                              << QStringLiteral("yuv420p") << 4.0;
    }

    // Frame count, size, rate and codec as written, and every frame close to its source and
    // closer to it than to its neighbour (the order and the moving bar survive).
    void formats()
    {
        QFETCH(QString, name);
        QFETCH(QString, codec);
        QFETCH(QString, pixelFormat);
        QFETCH(double, tolerance);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        VideoSettings settings;
        settings.format = *videoFormatForPath(path);
        settings.width = 160;
        settings.height = 96;
        settings.frames = 12;
        settings.fps = 10; // a GIF stores delays in 1/100 s
        int calls = 0;
        QList<int> progress;
        QString error;
        const auto status = VideoEncoder::encode(
            path, settings,
            [&](int i, QString *) {
                ++calls;
                return syntheticFrame(settings.width, settings.height, i);
            },
            [&](int done, int) {
                progress.append(done);
                return true;
            },
            &error);
        QVERIFY2(status == VideoEncoder::Status::Done, qPrintable(error));
        QCOMPARE(calls, settings.frames); // the GIF's palette samples are not rendered twice
        QCOMPARE(progress.last(), settings.frames);
        QCOMPARE(entries(dir.path()), QStringList{name});

        const auto video = readVideo(path);
        QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
        QCOMPARE(video.codec, codec);
        if (!pixelFormat.isEmpty())
            QCOMPARE(video.pixelFormat, pixelFormat);
        QCOMPARE(video.width, settings.width);
        QCOMPARE(video.height, settings.height);
        QCOMPARE(video.frameCount, settings.frames);
        PE_COMPARE_NEAR(video.fps, double(settings.fps), 1e-6);
        for (int i = 0; i < settings.frames; ++i) {
            const QImage source = syntheticFrame(settings.width, settings.height, i);
            const auto same = imageDifference(video.frames[i], source);
            QVERIFY2(
                same.mean < tolerance,
                qPrintable(QStringLiteral("frame %1: mean difference %2").arg(i).arg(same.mean)));
            const auto other = imageDifference(
                video.frames[i], syntheticFrame(settings.width, settings.height, (i + 1) % 12));
            QVERIFY2(other.worstBlock > 4 * same.worstBlock,
                     qPrintable(QStringLiteral("frame %1: %2 against its source, %3 against the "
                                               "next")
                                    .arg(i)
                                    .arg(same.worstBlock)
                                    .arg(other.worstBlock)));
        }
    }

    // Every animation row of the formats' table writes a file FFmpeg reads back: a format added
    // by its row alone (docs/engineering.md, "How to add a figure or animation format") is
    // encoded here without a line of this suite.
    void everyAnimationOfTheTableWrites_data()
    {
        QTest::addColumn<QString>("name");
        for (const OutputFormat &f : outputFormats())
            if (f.kind == OutputKind::Animation)
                QTest::addRow("%s", f.extension) << u"a."_qs + QLatin1String(f.extension);
    }

    void everyAnimationOfTheTableWrites()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        const VideoSettings settings{*videoFormatForPath(path), 64, 48, 4, 10};
        QString error;
        const auto status = VideoEncoder::encode(
            path, settings,
            [&](int i, QString *) { return syntheticFrame(settings.width, settings.height, i); },
            [](int, int) { return true; }, &error);
        QVERIFY2(status == VideoEncoder::Status::Done, qPrintable(error));
        const auto video = readVideo(path);
        QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
        QCOMPARE(video.width, settings.width);
        QCOMPARE(video.height, settings.height);
        QCOMPARE(video.frameCount, settings.frames);
        for (int i = 0; i < settings.frames; ++i) {
            const auto same = imageDifference(video.frames[i],
                                              syntheticFrame(settings.width, settings.height, i));
            QVERIFY2(
                same.mean < 8.0,
                qPrintable(QStringLiteral("frame %1: mean difference %2").arg(i).arg(same.mean)));
        }
    }

    // 256 colours for a smooth ramp: the palette follows the frames and dithering keeps every
    // 8 x 8 block's average on the ramp (banding would show as blocks a step off).
    void gifPaletteHasNoBanding()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ramp.gif"));
        VideoSettings settings{VideoFormat::Gif, 512, 64, 2, 10};
        const auto ramp = [&](int, QString *) {
            QImage image(settings.width, settings.height, QImage::Format_RGB32);
            for (int y = 0; y < settings.height; ++y)
                for (int x = 0; x < settings.width; ++x) {
                    const double t = double(x) / (settings.width - 1);
                    // Three channels changing at different rates: more than 256 distinct colours.
                    image.setPixel(
                        x, y,
                        qRgb(int(255 * t), int(255 * t * t), int(127 + 127 * std::sin(6.0 * t))));
                }
            return image;
        };
        QString error;
        QVERIFY2(VideoEncoder::encode(path, settings, ramp, {}, &error) ==
                     VideoEncoder::Status::Done,
                 qPrintable(error));
        const auto video = readVideo(path);
        QCOMPARE(video.frameCount, 2);
        const auto d = imageDifference(video.frames[0], ramp(0, nullptr), 8);
        QVERIFY2(d.worstBlock < 3.0, qPrintable(QString::number(d.worstBlock)));
    }

    // The frames a GIF's palette is built from (the window and the command line draw them
    // first, in this order): up to 16, spread from the first frame to the last, as many as fit
    // in 256 MiB; none for MP4 and WebM.
    void paletteFrames()
    {
        VideoSettings s;
        s.format = VideoFormat::Gif;
        s.width = 1280;
        s.height = 720;
        s.frames = 60;
        const QList<int> sixteen = VideoEncoder::paletteFrames(s);
        QCOMPARE(sixteen.size(), 16);
        QCOMPARE(sixteen.first(), 0);
        QCOMPARE(sixteen.last(), 59);
        QVERIFY(std::is_sorted(sixteen.begin(), sixteen.end()));
        QCOMPARE(QSet<int>(sixteen.begin(), sixteen.end()).size(), 16);
        s.frames = 5; // fewer frames than samples: each frame once
        QCOMPARE(VideoEncoder::paletteFrames(s), (QList<int>{0, 1, 2, 3, 4}));
        s.width = s.height = 4096; // 64 MiB a frame: 4 fit in 256 MiB
        s.frames = 100;
        QCOMPARE(VideoEncoder::paletteFrames(s), (QList<int>{0, 33, 66, 99}));
        for (VideoFormat other : {VideoFormat::Mp4, VideoFormat::WebM}) {
            s.format = other;
            QVERIFY(VideoEncoder::paletteFrames(s).isEmpty());
        }
    }

    void refusedBeforeAnyWork_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("frames");
        QTest::addColumn<int>("fps");
        QTest::addColumn<QString>("message");
        QTest::addRow("one frame") << "a.gif" << 64 << 64 << 1 << 10
                                   << "the frame count must be between 2 and 3600 (got 1)";
        QTest::addRow("too many frames")
            << "a.mp4" << 64 << 64 << 3601 << 10 << "the frame count must be between 2 and 3600";
        QTest::addRow("fps 0") << "a.mp4" << 64 << 64 << 10 << 0
                               << "the frame rate must be between 1 and 60 (got 0)";
        QTest::addRow("fps 61") << "a.webm" << 64 << 64 << 10 << 61
                                << "the frame rate must be between 1 and 60 (got 61)";
        QTest::addRow("odd width mp4")
            << "a.mp4" << 65 << 64 << 10 << 10 << "the width must be even for MP4";
        QTest::addRow("odd height webm")
            << "a.webm" << 64 << 63 << 10 << 10 << "the height must be even for WEBM";
        QTest::addRow("too wide") << "a.gif" << 4098 << 64 << 10 << 10
                                  << "the width must be between 16 and 4096 pixels";
    }

    void refusedBeforeAnyWork()
    {
        QFETCH(QString, name);
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, frames);
        QFETCH(int, fps);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        VideoSettings settings{*videoFormatForPath(path), width, height, frames, fps};
        int calls = 0;
        QString error;
        const auto status = VideoEncoder::encode(
            path, settings,
            [&](int, QString *) {
                ++calls;
                return QImage(width, height, QImage::Format_RGB32);
            },
            {}, &error);
        QVERIFY(status == VideoEncoder::Status::Failed);
        QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: ").arg(path)) &&
                     error.contains(message),
                 qPrintable(error));
        QCOMPARE(calls, 0);
        QCOMPARE(entries(dir.path()), QStringList());
    }

    // The muxers go back to fill in sizes, and a failure must leave nothing: no devices or pipes.
    void devicesAreRefused()
    {
        QString error;
        const auto status = VideoEncoder::encode(
            QStringLiteral("/dev/null"), VideoSettings{VideoFormat::Mp4, 64, 64, 2, 10},
            [](int, QString *) { return QImage(64, 64, QImage::Format_RGB32); }, {}, &error);
        QVERIFY(status == VideoEncoder::Status::Failed);
        QVERIFY2(error.startsWith(QLatin1String("cannot write /dev/null: an animation is written "
                                                "to a file, not to a device or pipe")),
                 qPrintable(error));
    }

    void cancelLeavesNothing_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("gif") << QStringLiteral("c.gif");
        QTest::addRow("mp4") << QStringLiteral("c.mp4");
        QTest::addRow("webm") << QStringLiteral("c.webm");
    }

    void cancelLeavesNothing()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        // An existing file stays as it was.
        const QString kept = dir.filePath(QStringLiteral("kept.") + QFileInfo(name).suffix());
        {
            QFile f(kept);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("precious");
        }
        for (const QString &target : {path, kept}) {
            VideoSettings settings{*videoFormatForPath(target), 64, 48, 20, 10};
            QString error;
            const auto status = VideoEncoder::encode(
                target, settings, [&](int i, QString *) { return syntheticFrame(64, 48, i % 8); },
                [](int done, int) { return done < 5; }, &error);
            QVERIFY(status == VideoEncoder::Status::Cancelled);
        }
        QCOMPARE(entries(dir.path()), QStringList{QFileInfo(kept).fileName()});
        QFile f(kept);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("precious"));
    }

    // A frame that cannot be made stops the encoding with its message; nothing is left.
    void failingFrameLeavesNothing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("f.mp4"));
        QString error;
        const auto status = VideoEncoder::encode(
            path, VideoSettings{VideoFormat::Mp4, 64, 48, 10, 10},
            [&](int i, QString *e) {
                if (i == 6) {
                    *e = QStringLiteral("frame 6 could not be drawn");
                    return QImage();
                }
                return syntheticFrame(64, 48, i);
            },
            {}, &error);
        QVERIFY(status == VideoEncoder::Status::Failed);
        QCOMPARE(error, QStringLiteral("frame 6 could not be drawn"));
        QCOMPARE(entries(dir.path()), QStringList());
    }

    // A frame of the wrong size is an error naming the file, not a crash.
    void wrongFrameSize()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.webm"));
        QString error;
        const auto status = VideoEncoder::encode(
            path, VideoSettings{VideoFormat::WebM, 64, 48, 4, 10},
            [&](int, QString *) { return QImage(32, 48, QImage::Format_RGB32); }, {}, &error);
        QVERIFY(status == VideoEncoder::Status::Failed);
        QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: frame 0 is 32 x 48 pixels, "
                                                 "not 64 x 48")
                                      .arg(path)),
                 qPrintable(error));
        QCOMPARE(entries(dir.path()), QStringList());
    }

    // The disk fills half-way (tests/support/failwrite): the message names the file and the
    // cause in words, and nothing is left behind.
    void diskFullLeavesNothing_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("gif") << QStringLiteral("full.gif");
        QTest::addRow("mp4") << QStringLiteral("full.mp4");
        QTest::addRow("webm") << QStringLiteral("full.webm");
    }

    void diskFullLeavesNothing()
    {
        QFETCH(QString, name);
        if (!dlsym(RTLD_DEFAULT, "failwrite_loaded"))
            PE_SKIP_MISSING(
                "needs tests/support/failwrite preloaded (ctest does it) to fill the disk");
        auto reset = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "failwrite_reset"));
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        qputenv("FAILWRITE_DIR", QDir(dir.path()).canonicalPath().toLocal8Bit());
        qputenv("FAILWRITE_BUDGET", "3000");
        if (reset)
            reset();
        QString error;
        const auto status = VideoEncoder::encode(
            path, VideoSettings{*videoFormatForPath(path), 320, 240, 30, 10},
            [&](int i, QString *) { return syntheticFrame(320, 240, i); }, {}, &error);
        qunsetenv("FAILWRITE_DIR");
        qunsetenv("FAILWRITE_BUDGET");
        if (reset)
            reset();
        QVERIFY(status == VideoEncoder::Status::Failed);
        QVERIFY2(error == QStringLiteral("cannot write %1: %2").arg(path, errnoText(ENOSPC)),
                 qPrintable(error));
        QCOMPARE(entries(dir.path()), QStringList());
    }

    void missingFolder()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("no/such/a.gif"));
        QString error;
        const auto status = VideoEncoder::encode(
            path, VideoSettings{VideoFormat::Gif, 64, 48, 4, 10},
            [&](int i, QString *) { return syntheticFrame(64, 48, i); }, {}, &error);
        QVERIFY(status == VideoEncoder::Status::Failed);
        QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: the folder").arg(path)),
                 qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestVideoEncoder)
#include "tst_videoencoder.moc"
