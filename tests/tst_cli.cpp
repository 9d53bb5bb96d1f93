// The command-line contract, run as a user runs it: exit codes 0 / 2 / 1, one-line messages
// naming the option, no output file on any failure, streaming memory, NumPy-readable output.
#include "testutil.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>

using namespace pe;

class TestCli : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    static QString seed001Python(const QString &body)
    {
        return u"import sys, numpy as np\n"_qs + body;
    }

    // resources/examples/phrases.txt as the window reads it: one phrase a line, # comments.
    static QStringList examplePhrasesFromResource()
    {
        QFile file(QStringLiteral(PE_SOURCE_DIR "/resources/examples/phrases.txt"));
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
            return {};
        QStringList phrases;
        for (const QByteArray &line : file.readAll().split('\n'))
            if (!line.trimmed().isEmpty() && !line.startsWith('#'))
                phrases.append(QString::fromUtf8(line.trimmed()));
        return phrases;
    }

    static void checkWithNumpy(const QString &script, const QStringList &args)
    {
        const QString python = test::pythonWithNumpy();
        if (python.isEmpty())
            PE_SKIP_MISSING(
                "no python3 with NumPy on this machine (.ci/run installs python3-numpy)");
        QProcess check;
        check.start(python, QStringList{u"-c"_qs, script} + args);
        QVERIFY(check.waitForFinished(120000));
        QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
    }

private slots:
    void badUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString out = u"--out"_qs;
        QTest::addRow("zero positions")
            << QStringList{u"data"_qs, u"--positions"_qs, u"0"_qs, u"--dims"_qs, u"8"_qs,
                           out,        u"x.npy"_qs}
            << u"--positions must be between 1 and 16777216 (got 0)"_qs;
        QTest::addRow("negative dims")
            << QStringList{u"data"_qs, u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"-3"_qs,
                           out,        u"x.npy"_qs}
            << u"--dims must be between 1 and 65536 (got -3)"_qs;
        QTest::addRow("positions beyond 2^24")
            << QStringList{u"data"_qs, u"--positions"_qs, u"16777217"_qs, u"--dims"_qs, u"8"_qs,
                           out,        u"x.npy"_qs}
            << u"--positions must be between"_qs;
        QTest::addRow("dims too large")
            << QStringList{u"data"_qs, u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"99999999999"_qs,
                           out,        u"x.npy"_qs}
            << u"--dims must be between"_qs;
        // Issue 35: numbers no integer type holds, NaN and infinities are refused by name.
        for (const QString &huge :
             {u"3.3e56"_qs, u"-3.3e56"_qs, u"9223372036854775808"_qs, u"-9223372036854775809"_qs,
              u"nan"_qs, u"inf"_qs, u"-inf"_qs, u"1e3"_qs}) {
            QTest::addRow("positions %s", qPrintable(huge))
                << QStringList{u"data"_qs, u"--positions"_qs, huge, u"--dims"_qs, u"8"_qs,
                               out,        u"x.npy"_qs}
                << u"--positions must be a whole number between 1 and 16777216 (got \""_qs + huge +
                       u"\")"_qs;
        }
        QTest::addRow("dims negative")
            << QStringList{u"data"_qs, u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"-8"_qs,
                           out,        u"x.npy"_qs}
            << u"--dims must be between 1 and 65536 (got -8)"_qs;
        QTest::addRow("positions not a number")
            << QStringList{u"data"_qs, u"--positions"_qs, u"many"_qs, u"--dims"_qs, u"8"_qs,
                           out,        u"x.npy"_qs}
            << u"--positions must be a whole number between 1 and 16777216 (got \"many\")"_qs;
        QTest::addRow("base 1") << QStringList{u"data"_qs, u"--positions"_qs, u"5"_qs, u"--dims"_qs,
                                               u"8"_qs,    u"--base"_qs,      u"1"_qs, out,
                                               u"x.npy"_qs}
                                << u"--base must be greater than 1"_qs;
        QTest::addRow("base negative")
            << QStringList{u"data"_qs,   u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"8"_qs,
                           u"--base"_qs, u"-10"_qs,         out,     u"x.npy"_qs}
            << u"--base must be greater than 1"_qs;
        QTest::addRow("base not a number")
            << QStringList{u"data"_qs,   u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"8"_qs,
                           u"--base"_qs, u"ten"_qs,         out,     u"x.npy"_qs}
            << u"--base must be a finite number (got \"ten\")"_qs;
        QTest::addRow("base nan") << QStringList{u"data"_qs, u"--positions"_qs,
                                                 u"5"_qs,    u"--dims"_qs,
                                                 u"8"_qs,    u"--base"_qs,
                                                 u"nan"_qs,  out,
                                                 u"x.npy"_qs}
                                  << u"--base must be a finite number"_qs;
        QTest::addRow("unknown scheme")
            << QStringList{u"data"_qs,   u"--scheme"_qs, u"cosine"_qs, u"--positions"_qs, u"5"_qs,
                           u"--dims"_qs, u"8"_qs,        out,          u"x.npy"_qs}
            << u"--scheme must be"_qs;
        QTest::addRow("unknown layout")
            << QStringList{u"data"_qs,   u"--layout"_qs, u"zigzag"_qs, u"--positions"_qs, u"5"_qs,
                           u"--dims"_qs, u"8"_qs,        out,          u"x.npy"_qs}
            << u"--layout must be interleaved or split"_qs;
        QTest::addRow("unknown backend")
            << QStringList{u"data"_qs,   u"--backend"_qs, u"tpu"_qs, u"--positions"_qs, u"5"_qs,
                           u"--dims"_qs, u"8"_qs,         out,       u"x.npy"_qs}
            << u"--backend must be auto, cpu or gpu"_qs;
        QTest::addRow("unknown option")
            << QStringList{u"data"_qs, u"--colour"_qs, u"--positions"_qs,
                           u"5"_qs,    u"--dims"_qs,   u"8"_qs,
                           out,        u"x.npy"_qs}
            << u"Unknown option 'colour'"_qs;
        QTest::addRow("missing out")
            << QStringList{u"data"_qs, u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"8"_qs}
            << u"--out is required"_qs;
        QTest::addRow("unknown extension")
            << QStringList{u"data"_qs, u"--positions"_qs, u"5"_qs, u"--dims"_qs, u"8"_qs,
                           out,        u"x.txt"_qs}
            << u"--out must end in .npy or .csv"_qs;
        QTest::addRow("seed negative")
            << QStringList{u"data"_qs,        u"--scheme"_qs, u"learned"_qs, u"--seed"_qs, u"-1"_qs,
                           u"--positions"_qs, u"5"_qs,        u"--dims"_qs,  u"8"_qs,      out,
                           u"x.npy"_qs}
            << u"--seed must be a whole number"_qs;
        QTest::addRow("empty phrase")
            << QStringList{u"phrases"_qs, u"--text"_qs, u"hello"_qs, u"--text"_qs,
                           u""_qs,        out,          u"x.npy"_qs}
            << u"phrase 2 is empty"_qs;
        QTest::addRow("punctuation phrase")
            << QStringList{u"phrases"_qs, u"--text"_qs, u"?!"_qs, out, u"x.npy"_qs}
            << u"phrase 1 (\"?!\") has no words once punctuation is removed"_qs;
        QTest::addRow("phrases too big for memory")
            << QStringList{u"phrases"_qs,  u"--text"_qs, u"a b"_qs,   u"--sequence-length"_qs,
                           u"16777216"_qs, u"--dims"_qs, u"65536"_qs, out,
                           u"x.npy"_qs}
            << u"of memory; the limit is 1.0 GiB"_qs;
        QTest::addRow("bad embedding")
            << QStringList{u"phrases"_qs, u"--text"_qs, u"a"_qs,    u"--embedding"_qs,
                           u"learned"_qs, out,          u"x.npy"_qs}
            << u"--embedding must be random or fixed"_qs;
        QTest::addRow("max tokens too small")
            << QStringList{u"phrases"_qs, u"--text"_qs, u"a"_qs,    u"--max-tokens"_qs,
                           u"1"_qs,       out,          u"x.npy"_qs}
            << u"--max-tokens must be between 3"_qs;
    }
    void badUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        // Outputs go to the temporary folder, so "no file left" can be checked there.
        const qsizetype outAt = args.indexOf(u"--out"_qs);
        if (outAt >= 0)
            args[outAt + 1] = path(args[outAt + 1]);
        const test::RunResult run = test::runPescope(args);
        QCOMPARE(run.exitCode, 2);
        const QString err = QString::fromLocal8Bit(run.err);
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(err.count(QLatin1Char('\n')) == 1, qPrintable(err)); // one line
        if (outAt >= 0)
            QVERIFY(!QFile::exists(args[outAt + 1]));
    }

    void failuresWhileWorkingExit1_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::addRow("missing folder") << u"/nonexistent-pescope/x.npy"_qs << u"does not exist"_qs;
        QTest::addRow("read-only filesystem")
            << u"/proc/pescope-cli.npy"_qs << u"cannot write /proc/pescope-cli.npy"_qs;
    }
    void failuresWhileWorkingExit1()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const test::RunResult run = test::runPescope(
            {u"data"_qs, u"--positions"_qs, u"10"_qs, u"--dims"_qs, u"4"_qs, u"--out"_qs, file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(QString::fromLocal8Bit(run.err).contains(message), run.err.constData());
        QVERIFY(!QFile::exists(file));
    }

    // A 4 TiB request is refused before any work, and nothing is left behind.
    void refusesAMatrixTheDiskCannotHold()
    {
        const QString file = path(u"huge.npy"_qs);
        const test::RunResult run =
            test::runPescope({u"data"_qs, u"--positions"_qs, u"16777216"_qs, u"--dims"_qs,
                              u"65536"_qs, u"--out"_qs, file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("needs 4.0 TiB"), run.err.constData());
        QVERIFY(!QFile::exists(file));
    }

    void dataNpyIsSeed002sMatrix()
    {
        const QString file = path(u"seed002.npy"_qs);
        const test::RunResult run = test::runPescope(
            {u"data"_qs, u"--positions"_qs, u"20"_qs, u"--dims"_qs, u"200"_qs, u"--out"_qs, file});
        QCOMPARE(run.exitCode, 0);
        // auto: the GPU where an OpenGL 4.3 context exists (Xvfb's llvmpipe), else the CPU.
        QVERIFY2(run.err.contains("by the cpu backend") || run.err.contains("by the gpu backend"),
                 run.err.constData());
        // Seed 002's printed rows (4 decimals).
        checkWithNumpy(
            seed001Python(u"a = np.load(sys.argv[1])\n"
                          "assert a.shape == (20, 200) and a.dtype == np.float32\n"
                          "assert np.allclose(a[1, :3], [0.8415, 0.5403, 0.7907], atol=5e-5)\n"
                          "assert np.allclose(a[19, :3], [0.1499, 0.9887, -0.9988], atol=5e-5)\n"
                          "assert np.allclose(a[19, -3:], [1.0, 0.0021, 1.0], atol=5e-5)\n"_qs),
            {file});
    }

    void dataCsvMatchesNpy()
    {
        const QStringList spec = {u"data"_qs,   u"--positions"_qs, u"64"_qs,
                                  u"--dims"_qs, u"9"_qs,           u"--layout"_qs,
                                  u"split"_qs,  u"--base"_qs,      u"100"_qs};
        QCOMPARE(test::runPescope(spec + QStringList{u"--out"_qs, path(u"m.csv"_qs)}).exitCode, 0);
        QCOMPARE(test::runPescope(spec + QStringList{u"--out"_qs, path(u"m.npy"_qs)}).exitCode, 0);
        checkWithNumpy(
            seed001Python(u"a = np.load(sys.argv[1])\n"
                          "b = np.loadtxt(sys.argv[2], delimiter=',', dtype=np.float32)\n"
                          "assert (a == b).all()\n"
                          "assert (a[:, 8] == 0).all()\n"_qs),
            {path(u"m.npy"_qs), path(u"m.csv"_qs)});
    }

    // Seed 001: vocabulary, ids and the fixed-weights tensor, through the command line.
    void phrasesSeed001()
    {
        const QString file = path(u"phrases.npy"_qs);
        const QString vocab = path(u"vocab.txt"_qs);
        const test::RunResult run = test::runPescope(
            {u"phrases"_qs, u"--text"_qs, u"I am a robot"_qs, u"--text"_qs, u"you too robot"_qs,
             u"--max-tokens"_qs, u"10"_qs, u"--sequence-length"_qs, u"5"_qs, u"--dims"_qs, u"6"_qs,
             u"--embedding"_qs, u"fixed"_qs, u"--out"_qs, file, u"--vocab-out"_qs, vocab});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(
            run.out.contains("Vocabulary: ['', '[UNK]', 'robot', 'you', 'too', 'i', 'am', 'a']"),
            run.out.constData());
        QVERIFY2(run.out.contains("[[5 6 7 2 0]\n [3 4 2 0 0]]"), run.out.constData());
        QFile vocabFile(vocab);
        QVERIFY(vocabFile.open(QIODevice::ReadOnly));
        QCOMPARE(vocabFile.readAll(), QByteArray("\n[UNK]\nrobot\nyou\ntoo\ni\nam\na\n"));
        checkWithNumpy(
            seed001Python(
                u"a = np.load(sys.argv[1])\n"
                "assert a.shape == (2, 5, 6) and a.dtype == np.float32\n"
                "assert abs(a[0, 0] - [-0.9589243, 1.2836622, 0.23000172, 1.9731903, 0.01077196, "
                "1.9999421]).max() < 1e-6\n"
                "assert abs(a[1, 2] - [1.8185948, -0.8322937, 0.185397, 1.9913884, 0.00861771, 1.9999814]).max() < 1e-6\n"_qs),
            {file});
    }

    // Options left out take the window's defaults: the 200 x 128 sinusoid (base 10,000,
    // interleaved sin/cos) and the example phrases of resources/phrases.
    void dataAndPhrasesWithWindowDefaults()
    {
        const QString matrix = path(u"default.npy"_qs);
        QCOMPARE(test::runPescope({u"data"_qs, u"--out"_qs, matrix}).exitCode, 0);
        checkWithNumpy(
            seed001Python(u"a = np.load(sys.argv[1])\n"
                          "assert a.shape == (200, 128) and a.dtype == np.float32, a.shape\n"
                          "p = np.arange(200)[:, None]\n"
                          "i = np.arange(64)[None, :]\n"
                          "ang = p / 10000.0 ** (2 * i / 128)\n"
                          "assert abs(a[:, 0::2] - np.sin(ang)).max() < 1e-6\n"
                          "assert abs(a[:, 1::2] - np.cos(ang)).max() < 1e-6\n"_qs),
            {matrix});

        const QString phrases = path(u"default-phrases.npy"_qs);
        const test::RunResult run = test::runPescope(
            {u"phrases"_qs, u"--out"_qs, phrases, u"--embedding"_qs, u"random"_qs});
        QCOMPARE(run.exitCode, 0);
        const QStringList examples = examplePhrasesFromResource();
        QVERIFY(examples.size() >= 2);
        // Keras lower-cases and splits on spaces: every word of the examples is in the vocabulary.
        for (const QString &word : examples.constFirst().toLower().split(u' '))
            QVERIFY2(QString::fromUtf8(run.out).contains(u"'"_qs + word + u"'"_qs),
                     run.out.constData());
        checkWithNumpy(seed001Python(u"a = np.load(sys.argv[1])\n"
                                     "assert a.shape == (int(sys.argv[2]), 20, 50), a.shape\n"_qs),
                       {phrases, QString::number(examples.size())});
    }

    void phrasesWithoutOutPrintsOnly()
    {
        const test::RunResult run = test::runPescope(
            {u"phrases"_qs, u"--text"_qs, u"Ünïcode, wörds!"_qs, u"--text"_qs, u"more words"_qs});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(QString::fromUtf8(run.out).contains(u"'words'"), run.out.constData());
        QVERIFY2(QString::fromUtf8(run.out).contains(u"'Ünïcode'"), run.out.constData());
    }

    void infoListsBackends()
    {
        const test::RunResult run = test::runPescope({u"info"_qs});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith("pescope "));
        QVERIFY(run.out.contains("Qt 6."));
        QVERIFY(run.out.contains("backend cpu: available"));
        QVERIFY(run.out.contains("backend gpu: "));
    }

    // The window without a display: one line and exit 1, not Qt's abort and a core dump.
    void windowWithoutADisplaySaysSo()
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QLatin1String(name));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PE_EXECUTABLE), {u"--page"_qs, u"schemes"_qs});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 1);
        const QByteArray err = process.readAllStandardError().trimmed();
        QVERIFY2(err.startsWith("pescope: no display") && !err.contains('\n'), err.constData());
    }

    // The window's options are checked before any window or display is needed: one line, exit 2.
    void windowOptionsRefusedFirst_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("empty model") << QStringList{u"--model"_qs, QString()} << u"--model: "_qs;
        QTest::addRow("size") << QStringList{u"--size"_qs, u"10x10"_qs} << u"--size: "_qs;
        QTest::addRow("page") << QStringList{u"--page"_qs, u"bogus"_qs} << u"--page must be"_qs;
        QTest::addRow("model view")
            << QStringList{u"--model-view"_qs, u"heatmap"_qs} << u"--model-view must be"_qs;
        QTest::addRow("screenshot")
            << QStringList{u"--screenshot"_qs, u"shot.jpg"_qs} << u"--screenshot: "_qs;
    }
    void windowOptionsRefusedFirst()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QLatin1String(name));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PE_EXECUTABLE), args);
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        const QString err = QString::fromLocal8Bit(process.readAllStandardError());
        QVERIFY2(err.startsWith(u"pescope: "_qs + message) && err.count(QLatin1Char('\n')) == 1,
                 qPrintable(err));
    }

    // Each subcommand's usage line names it ("Usage: pescope export [options]"), not the
    // executable's path.
    void usageNamesSubcommand_data()
    {
        QTest::addColumn<QString>("command");
        for (const char *name :
             {"data", "phrases", "info", "export", "inspect", "verify", "tokens", "context"})
            QTest::addRow("%s", name) << QString::fromLatin1(name);
    }
    void usageNamesSubcommand()
    {
        QFETCH(QString, command);
        const test::RunResult run = test::runPescope({command, u"--help"_qs});
        QCOMPARE(run.exitCode, 0);
        const QString first = QString::fromUtf8(run.out).section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(first.startsWith(u"Usage: pescope "_qs + command + u" [options]"_qs),
                 qPrintable(first));
    }

    // An unknown command is answered with every command there is.
    void unknownCommandListsAll()
    {
        const test::RunResult run = test::runPescope({u"bogus"_qs});
        QCOMPARE(run.exitCode, 2);
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.contains(u"unknown command \"bogus\""_qs), run.err.constData());
        for (const char *name :
             {"data", "phrases", "info", "export", "inspect", "verify", "tokens", "context"})
            QVERIFY2(err.contains(QString::fromLatin1(name)), qPrintable(err));
    }

    // One phrase is "1 phrase embedded"; the vocabulary file ends with a newline.
    void onePhraseSingular()
    {
        const QString vocab = path(u"vocab.txt"_qs);
        const test::RunResult run = test::runPescope(
            {u"phrases"_qs, u"--text"_qs, u"hello world"_qs, u"--vocab-out"_qs, vocab});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("1 phrase embedded ("), run.err.constData());
        QFile file(vocab);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.endsWith("\n"));
        QVERIFY(!text.endsWith("\n\n"));
    }

    // The window's defaults stand in for every option left out: a bare export works.
    void exportWithWindowDefaults_data()
    {
        QTest::addColumn<QString>("view");
        for (const char *view : {"heatmap", "waves", "waves+heatmap", "phrases",
                                 "phrase-difference", "token-similarity", "spectrum", "alibi"})
            QTest::addRow("%s", view) << QString::fromLatin1(view);
    }
    void exportWithWindowDefaults()
    {
        QFETCH(QString, view);
        const QString out = path(u"defaults-"_qs + view + u".png"_qs);
        const test::RunResult run =
            test::runPescope({u"export"_qs, u"--view"_qs, view, u"--out"_qs, out});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        // The PNG's IHDR: width and height, big-endian, at bytes 16 and 20.
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray head = file.read(24);
        QCOMPARE(head.size(), 24);
        const auto be32 = [&](int at) {
            return (quint32(quint8(head[at])) << 24) | (quint32(quint8(head[at + 1])) << 16) |
                   (quint32(quint8(head[at + 2])) << 8) | quint32(quint8(head[at + 3]));
        };
        QCOMPARE(be32(16), 1200u);
        QCOMPARE(be32(20), 800u);
    }

    // --dry-run reads and checks everything a real run would, says what it would do, and
    // neither computes (no vocabulary printed) nor writes; what a real run refuses it refuses
    // with the same exit code. OUT and VOCAB stand for files in the temporary folder.
    void dryRunWritesNothing_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QString out = u"OUT"_qs;
        QTest::addRow("data matrix")
            << QStringList{u"data"_qs, u"--positions"_qs, u"2048"_qs,      u"--dims"_qs,
                           u"512"_qs,  u"--out"_qs,       out + u".npy"_qs}
            << 0 << u"dry run: would write the 2048 x 512 sinusoidal matrix to"_qs;
        QTest::addRow("data slopes")
            << QStringList{u"data"_qs,   u"--scheme"_qs, u"alibi"_qs, u"--heads"_qs,   u"12"_qs,
                           u"--what"_qs, u"slopes"_qs,   u"--out"_qs, out + u".csv"_qs}
            << 0 << u"dry run: would write 12 alibi slopes"_qs;
        QTest::addRow("data disk too small")
            << QStringList{u"data"_qs,  u"--positions"_qs, u"16777216"_qs,  u"--dims"_qs,
                           u"65536"_qs, u"--out"_qs,       out + u".npy"_qs}
            << 1 << u"needs 4.0 TiB"_qs;
        QTest::addRow("data missing folder")
            << QStringList{u"data"_qs, u"--out"_qs, u"/nonexistent-pescope/x.npy"_qs} << 1
            << u"does not exist"_qs;
        QTest::addRow("data bad dims")
            << QStringList{u"data"_qs, u"--dims"_qs, u"0"_qs, u"--out"_qs, out + u".npy"_qs} << 2
            << u"--dims"_qs;
        QTest::addRow("export figure")
            << QStringList{u"export"_qs, u"--view"_qs, u"heatmap"_qs, u"--out"_qs, out + u".png"_qs}
            << 0 << u"dry run: would render the heatmap figure (1200 x 800 px"_qs;
        QTest::addRow("export data")
            << QStringList{u"export"_qs, u"--view"_qs, u"waves"_qs, u"--out"_qs, out + u".npy"_qs}
            << 0 << u"dry run: would write the waves view's data"_qs;
        QTest::addRow("export animation")
            << QStringList{u"export"_qs,    u"--view"_qs,   u"waves"_qs,
                           u"--animate"_qs, u"position"_qs, u"--frames"_qs,
                           u"12"_qs,        u"--out"_qs,    out + u".gif"_qs}
            << 0 << u"dry run: would write 12 frames of the waves figure"_qs;
        QTest::addRow("export one phrase to compare")
            << QStringList{u"export"_qs,   u"--view"_qs, u"phrase-difference"_qs, u"--text"_qs,
                           u"only one"_qs, u"--out"_qs,  out + u".png"_qs}
            << 2 << u"two phrases"_qs;
        QTest::addRow("phrases") << QStringList{u"phrases"_qs,      u"--text"_qs,
                                                u"I am a robot"_qs, u"--out"_qs,
                                                out + u".npy"_qs,   u"--vocab-out"_qs,
                                                u"VOCAB.txt"_qs}
                                 << 0 << u"dry run: would embed 1 phrase"_qs;
        QTest::addRow("phrases empty vocabulary name") // as a real run: no vocabulary file
            << QStringList{u"phrases"_qs, u"--vocab-out"_qs, QString()} << 0
            << u"dry run: would embed "_qs;
        QTest::addRow("phrases vocabulary folder missing")
            << QStringList{u"phrases"_qs, u"--vocab-out"_qs, u"/nonexistent-pescope/v.txt"_qs} << 1
            << u"does not exist"_qs;
    }
    void dryRunWritesNothing()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        for (QString &arg : args)
            if (arg.startsWith(u"OUT."_qs) || arg.startsWith(u"VOCAB."_qs))
                arg = dir.filePath(arg);
        const test::RunResult run = test::runPescope(args + QStringList{u"--dry-run"_qs});
        const QString err = QString::fromLocal8Bit(run.err);
        QVERIFY2(run.exitCode == exitCode, qPrintable(err));
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(run.out.isEmpty(), run.out.constData());
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList());
    }

    void helpExitsZero()
    {
        const test::RunResult run = test::runPescope({u"data"_qs, u"--help"_qs});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("--positions"));
    }

    // A 1,048,576 x 8,192 matrix (32 GiB) streams through no more memory than a small one.
    // The sanitizer build computes several times slower (32 GiB ran past Qt Test's 5 min there),
    // so it streams 1,048,576 x 512: 2 GiB, still well past its memory limit below were it held
    // rather than streamed.
    void streamingKeepsMemoryFlat()
    {
        const QString dims = test::underSanitizer ? u"512"_qs : u"8192"_qs;
        const test::RunResult run =
            test::runPescope({u"data"_qs, u"--positions"_qs, u"1048576"_qs, u"--dims"_qs, dims,
                              u"--backend"_qs, u"cpu"_qs, u"--out"_qs, u"/dev/null"_qs},
                             600000);
        QCOMPARE(run.exitCode, 0);
        rusage usage{};
        QCOMPARE(getrusage(RUSAGE_CHILDREN, &usage), 0);
        const double peakMiB = double(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB
        qInfo("peak resident memory of any pescope child so far: %.1f MiB", peakMiB);
        // Under AddressSanitizer a process also holds shadow memory (1/8 of what it touches)
        // and up to 256 MiB of freed blocks in quarantine: 393 MiB measured, so 3x the limit.
        const double limitMiB = test::underSanitizer ? 768.0 : 256.0;
        QVERIFY2(peakMiB < limitMiB, qPrintable(QString::number(peakMiB)));
    }

    // Issue 16: the phrases figure cost grows with what is drawn (one page of phrases), not with
    // how many phrases there are; a phrase over the length limit is refused, not embedded.
    // (After streamingKeepsMemoryFlat: these children's memory would count in its peak.)
    void manyOrLongPhrasesFinishOrAreRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("refusal"); // empty: must succeed
        const auto sessionWith = [this](const QString &name, const QJsonArray &phrases) {
            const QJsonObject state{{u"page"_qs, u"phrases"_qs},
                                    {u"phrases"_qs, QJsonObject{{u"phrases"_qs, phrases}}}};
            QFile file(path(name));
            if (!file.open(QIODevice::WriteOnly))
                return QString();
            file.write(QJsonDocument(QJsonObject{{u"format_version"_qs, 2}, {u"state"_qs, state}})
                           .toJson(QJsonDocument::Compact));
            return file.fileName();
        };
        QJsonArray tenThousand;
        QStringList twoThousandTexts;
        for (int i = 0; i < 10000; ++i)
            tenThousand.append(u"w%1"_qs.arg(i));
        for (int i = 0; i < 2000; ++i)
            twoThousandTexts << u"--text"_qs << u"w%1"_qs.arg(i);
        // 60 MB of words (the session itself stays under the 64 MiB session limit).
        QString sixtyMegabytes;
        sixtyMegabytes.reserve(60'000'000);
        while (sixtyMegabytes.size() < 60'000'000)
            sixtyMegabytes += u"lorem ipsum dolor sit amet "_qs;
        const QString many = sessionWith(u"many.json"_qs, tenThousand);
        const QString longOne =
            sessionWith(u"long.json"_qs, QJsonArray{sixtyMegabytes, u"a short phrase"_qs});
        QTest::addRow("10,000 phrases from a session, exported")
            << QStringList{u"export"_qs, u"--session"_qs,     many, u"--view"_qs, u"phrases"_qs,
                           u"--out"_qs,  path(u"many.png"_qs)}
            << QString();
        QTest::addRow("10,000 phrases from a session, in the window")
            << QStringList{u"--session"_qs, many, u"--screenshot"_qs, path(u"window.png"_qs)}
            << QString();
        QTest::addRow("2,000 --text options")
            << (QStringList{u"export"_qs, u"--view"_qs, u"phrases"_qs, u"--out"_qs,
                            path(u"texts.png"_qs)} +
                twoThousandTexts)
            << QString();
        QTest::addRow("a 60 MB phrase, exported")
            << QStringList{u"export"_qs, u"--session"_qs,     longOne, u"--view"_qs, u"phrases"_qs,
                           u"--out"_qs,  path(u"long.png"_qs)}
            << u"at most 1048576 characters long"_qs;
        QTest::addRow("a 60 MB phrase, in the window")
            << QStringList{u"--session"_qs, longOne, u"--screenshot"_qs, path(u"long2.png"_qs)}
            << u"at most 1048576 characters long"_qs;
    }

    void manyOrLongPhrasesFinishOrAreRefused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, refusal);
        QElapsedTimer clock;
        clock.start();
        const test::RunResult run = test::runPescope(args, 60000);
        const QString err = QString::fromUtf8(run.err);
        qInfo("exit %d in %lld ms", run.exitCode, qint64(clock.elapsed()));
        QVERIFY2(clock.elapsed() < 30000, "took longer than 30 s"); // "within seconds", generously
        const QString out = args.at(
            args.indexOf(args.contains(u"--out"_qs) ? u"--out"_qs : u"--screenshot"_qs) + 1);
        if (refusal.isEmpty()) {
            QVERIFY2(run.exitCode == 0, qPrintable(err));
            QVERIFY(QFileInfo(out).size() > 0);
        } else {
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(err.contains(refusal), qPrintable(err));
            QVERIFY(!QFileInfo::exists(out));
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
