// The figure and animation formats' one table (core/media/outputformats.h): every row found by its
// extension and back, the MIME types as IANA registers them, the file dialogs' filters, the export
// dialog's tooltip and the command line's help and messages built from the table and naming
// exactly its extensions, and every animation's FFmpeg muxer and encoder.
#include "testutil.h"

#include "media/outputformats.h"

#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace pe;

class TestOutputFormats : public QObject
{
    Q_OBJECT

private slots:
    // Each row round-trips: path → row → its writer → its name, in any letter case.
    void everyFormatRoundTrips()
    {
        QSet<QString> extensions;
        for (const OutputFormat &f : outputFormats()) {
            const QString ext = QString::fromLatin1(f.extension);
            QVERIFY2(!extensions.contains(ext), f.extension);
            extensions.insert(ext);
            for (const QString &path :
                 QStringList{u"x."_qs + ext, u"/tmp/a.b/fig."_qs + ext.toUpper()}) {
                QCOMPARE(outputFormatForPath(path), &f);
                if (f.kind == OutputKind::Figure) {
                    QCOMPARE(figureFormatForPath(path), FigureFormat(f.writer));
                    QVERIFY(!videoFormatForPath(path));
                } else {
                    QCOMPARE(videoFormatForPath(path), VideoFormat(f.writer));
                    QVERIFY(!figureFormatForPath(path));
                }
            }
            if (f.kind == OutputKind::Figure)
                QCOMPARE(figureFormatName(FigureFormat(f.writer)), ext);
            else
                QCOMPARE(videoFormatName(VideoFormat(f.writer)), ext);
            QVERIFY(QString::fromLatin1(f.label).size() >= 3);
            QVERIFY(QString::fromLatin1(f.fileDialog).contains(QLatin1String(f.label)));
        }
        // Every writer has its row.
        for (FigureFormat f : {FigureFormat::Png, FigureFormat::Svg, FigureFormat::Pdf})
            QCOMPARE(outputFormat(f).writer, int(f));
        for (VideoFormat f : {VideoFormat::Gif, VideoFormat::Mp4, VideoFormat::WebM})
            QCOMPARE(outputFormat(f).writer, int(f));
        for (const char *path : {"x", "x.npy", "x.png.bak", "png", "x.jpeg"})
            QVERIFY2(!outputFormatForPath(QString::fromLatin1(path)), path);
    }

    // The MIME types IANA registers for each extension (written here, not read from pescope).
    void mimeTypesAreIanas()
    {
        const QHash<QString, QString> iana = {
            {u"png"_qs, u"image/png"_qs},       {u"svg"_qs, u"image/svg+xml"_qs},
            {u"pdf"_qs, u"application/pdf"_qs}, {u"gif"_qs, u"image/gif"_qs},
            {u"mp4"_qs, u"video/mp4"_qs},       {u"webm"_qs, u"video/webm"_qs},
        };
        QCOMPARE(qsizetype(outputFormats().size()), iana.size());
        for (const OutputFormat &f : outputFormats())
            QCOMPARE(QString::fromLatin1(f.mime), iana.value(QString::fromLatin1(f.extension)));
    }

    // File dialogs' filters and the messages' lists come from the table, in its order.
    void filtersAndListsAreBuiltFromTheTable()
    {
        for (OutputKind kind : {OutputKind::Figure, OutputKind::Animation}) {
            QStringList filters, extensions;
            for (const OutputFormat &f : outputFormats())
                if (f.kind == kind) {
                    filters.append(
                        QStringLiteral("%1 (*.%2)")
                            .arg(QLatin1String(f.fileDialog), QLatin1String(f.extension)));
                    extensions.append(QLatin1String(f.extension));
                }
            QCOMPARE(outputFileFilter(kind), filters.join(u";;"_qs));
            const QString list = outputExtensionList(kind);
            for (const QString &ext : extensions)
                QVERIFY2(list.contains(u"."_qs + ext), qPrintable(list));
        }
        QCOMPARE(outputFileFilter(OutputKind::Figure),
                 u"PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"_qs);
        QCOMPARE(outputExtensionList(OutputKind::Figure), u".png, .svg or .pdf"_qs);
        QCOMPARE(outputExtensionList(OutputKind::Animation, u"FIG"_qs),
                 u"FIG.gif, FIG.mp4 or FIG.webm"_qs);
        QCOMPARE(outputLabelList(OutputKind::Figure), u"PNG, SVG or PDF"_qs);
    }

    // The export dialog's format tooltip is built from the table: every label in it, runs of
    // the same summary joined, and today's table gives the words the dialog had by hand.
    void summaryNamesEveryFormat()
    {
        const QString summary = outputFormatSummary();
        for (const OutputFormat &f : outputFormats()) {
            const QRegularExpression word(u"\\b"_qs + QLatin1String(f.label) + u"\\b"_qs);
            QVERIFY2(summary.contains(word), f.label);
            QVERIFY2(summary.contains(QLatin1String(f.summary)), f.extension);
        }
        QCOMPARE(summary, u"PNG: pixels; SVG and PDF: lines, markers and text stay vectors, "
                          "heatmaps are embedded at full resolution; GIF, MP4 and WebM: the "
                          "figure animated, as pescope export --animate writes it"_qs);
    }

    // Every animation row says how FFmpeg writes it (ffmpegcodec.cpp reads nothing else); a
    // still's row says nothing of it. Known answers: the muxers and encoders FFmpeg names.
    void animationsSayHowFfmpegWritesThem()
    {
        for (const OutputFormat &f : outputFormats()) {
            if (f.kind == OutputKind::Figure) {
                QVERIFY2(!f.muxer && !f.encoder && !f.encoderLabel, f.extension);
                QCOMPARE(f.pixels, VideoPixels::None);
                continue;
            }
            QVERIFY2(f.muxer && *f.muxer && f.encoder && *f.encoder, f.extension);
            QVERIFY2(f.encoderLabel && *f.encoderLabel, f.extension);
            QVERIFY(f.pixels != VideoPixels::None);
            QCOMPARE(videoPixels(VideoFormat(f.writer)), f.pixels);
            static const QRegularExpression option(u"^[a-z0-9_-]+=[^:=]+$"_qs);
            for (const QString &pair :
                 QString::fromLatin1(f.encoderOptions).split(u':', Qt::SkipEmptyParts))
                QVERIFY2(option.match(pair).hasMatch(), qPrintable(pair));
        }
        const OutputFormat &gif = outputFormat(VideoFormat::Gif);
        QCOMPARE(QByteArray(gif.muxer), "gif");
        QCOMPARE(QByteArray(gif.encoder), "gif");
        QCOMPARE(gif.pixels, VideoPixels::Palette);
        const OutputFormat &mp4 = outputFormat(VideoFormat::Mp4);
        QCOMPARE(QByteArray(mp4.muxer), "mp4");
        QCOMPARE(QByteArray(mp4.encoder), "libx264");
        QCOMPARE(mp4.pixels, VideoPixels::Yuv420);
        const OutputFormat &webm = outputFormat(VideoFormat::WebM);
        QCOMPARE(QByteArray(webm.muxer), "webm");
        QCOMPARE(QByteArray(webm.encoder), "libvpx-vp9");
        QCOMPARE(webm.pixels, VideoPixels::Yuv420);
    }

    // `pescope export --help` names exactly the table's extensions for --out, and a name it
    // cannot write is refused with the table's list.
    void commandLineListsExactlyTheTable()
    {
        const test::RunResult help = test::runPescope({u"export"_qs, u"--help"_qs});
        QCOMPARE(help.exitCode, 0);
        const QString text = QString::fromUtf8(help.out);
        QSet<QString> listed;
        static const QRegularExpression figure(u"FIG\\.(\\w+)"_qs);
        for (auto it = figure.globalMatch(text); it.hasNext();)
            listed.insert(it.next().captured(1));
        QSet<QString> table;
        for (const OutputFormat &f : outputFormats())
            table.insert(QString::fromLatin1(f.extension));
        QCOMPARE(listed, table);

        const test::RunResult refused =
            test::runPescope({u"export"_qs, u"--view"_qs, u"heatmap"_qs, u"--positions"_qs, u"8"_qs,
                              u"--dims"_qs, u"4"_qs, u"--out"_qs, u"x.bmp"_qs});
        QCOMPARE(refused.exitCode, 2);
        const QString err = QString::fromUtf8(refused.err);
        for (const OutputFormat &f : outputFormats())
            QVERIFY2(err.contains(u"."_qs + QLatin1String(f.extension)), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestOutputFormats)
#include "tst_outputformats.moc"
