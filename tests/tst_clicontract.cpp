// The command line where it meets the shell (issue 45): results on standard output that cannot
// be written are a failure (exit 1) naming the cause, for every subcommand; every argument is
// pescope's (Qt takes none: -session, -reverse, -style, -platform are refused like any option a
// command does not have); the same bad file gives the same exit code (2) whichever command
// reads it; a closed standard input or a folder is no text; no Qt warning reaches stderr.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <cerrno>
#include <cstring>

#include <sys/mount.h>
#include <sys/resource.h>

using namespace pe;
using namespace Qt::StringLiterals;

namespace {

using Run = test::RunResult;

// pescope with its standard output sent to `file` (/dev/full, a file on a small disk).
Run runToFile(const QStringList &args, const QString &file)
{
    QProcess process;
    process.setStandardOutputFile(file);
    process.start(QStringLiteral(PE_EXECUTABLE), args);
    return test::finishRun(process);
}

// pescope run by the shell with `redirection` applied to it ("<&-": standard input closed).
Run runRedirected(const QString &redirection, const QStringList &args)
{
    QProcess process;
    process.start(QStringLiteral("/bin/sh"),
                  QStringList{QStringLiteral("-c"),
                              QStringLiteral("exec \"$0\" \"$@\" ") + redirection,
                              QStringLiteral(PE_EXECUTABLE)} +
                      args);
    return test::finishRun(process);
}

QString modelFolder(const char *name)
{
    return QFINDTESTDATA(QStringLiteral("data/models/") + QLatin1String(name));
}

QString lessonFile()
{
    return QStringLiteral(PE_SOURCE_DIR "/resources/lessons/01-sinusoidal.pescope-lesson.json");
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    QCOMPARE(file.write(bytes), bytes.size());
}

// Every line on stderr is pescope's ("pescope ...: ..."): no Qt warning, no raw NUL.
bool onlyPescopeLines(const QByteArray &err)
{
    if (err.contains('\0'))
        return false;
    const QList<QByteArray> lines = err.trimmed().split('\n');
    return std::all_of(lines.begin(), lines.end(), [](const QByteArray &line) {
        return line.isEmpty() || line.startsWith("pescope");
    });
}

// A copy of a test model folder in `dir`, with one of its files cut to `keep` bytes.
QString cutModel(const QString &dir, const char *model, const QString &file, qint64 keep)
{
    const QString from = modelFolder(model);
    const QString to = QDir(dir).filePath(QLatin1String(model) + QLatin1Char('-') +
                                          QFileInfo(file).baseName() + QString::number(keep));
    QDir().mkpath(to);
    for (const QString &name : QDir(from).entryList(QDir::Files))
        QFile::copy(QDir(from).filePath(name), QDir(to).filePath(name));
    QFile cut(QDir(to).filePath(file));
    if (!cut.resize(keep < 0 ? cut.size() / 2 : keep))
        return {};
    return to;
}

} // namespace

class TestCliContract : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_mount;
    QString m_against; // a cos table for `verify`, written by pescope data

    QString path(const QString &name) const { return m_dir.filePath(name); }

    // Each subcommand (and the window's --help / --version) with arguments that print to stdout.
    void addPrintingCommands()
    {
        QTest::addColumn<QStringList>("args");
        const QString gpt2 = modelFolder("gpt2-tiny");
        const QString llama = modelFolder("llama-tiny");
        QTest::newRow("info") << QStringList{u"info"_s};
        QTest::newRow("inspect") << QStringList{u"inspect"_s, gpt2};
        QTest::newRow("inspect --json") << QStringList{u"inspect"_s, u"--json"_s, gpt2};
        QTest::newRow("tokens") << QStringList{u"tokens"_s, u"--model"_s, llama, u"Hello"_s};
        QTest::newRow("tokens --json")
            << QStringList{u"tokens"_s, u"--model"_s, llama, u"--json"_s, u"Hello"_s};
        QTest::newRow("verify") << QStringList{u"verify"_s, u"--model"_s, llama, u"--against"_s,
                                               m_against};
        QTest::newRow("phrases") << QStringList{u"phrases"_s, u"--text"_s, u"I am a robot"_s,
                                                u"--backend"_s, u"cpu"_s};
        QTest::newRow("lesson list") << QStringList{u"lesson"_s, u"list"_s, lessonFile()};
        QTest::newRow("data --help") << QStringList{u"data"_s, u"--help"_s};
        QTest::newRow("export --help") << QStringList{u"export"_s, u"--help"_s};
        QTest::newRow("window --help") << QStringList{u"--help"_s};
        QTest::newRow("window --version") << QStringList{u"--version"_s};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_against = path(u"cos.npy"_s);
        const test::RunResult made =
            test::runPescope({u"data"_s, u"--model"_s, modelFolder("llama-tiny"), u"--what"_s,
                              u"cos"_s, u"--positions"_s, u"64"_s, u"--out"_s, m_against});
        QVERIFY2(made.exitCode == 0, made.err.constData());
    }

    void cleanup()
    {
        if (!m_mount.isEmpty()) {
            ::umount2(QFile::encodeName(m_mount).constData(), MNT_DETACH);
            m_mount.clear();
        }
    }

    // /dev/full: every write fails with ENOSPC. Each command's output is first shown to be
    // there (so the row tests something), then its loss is exit 1 with the cause on stderr.
    void standardOutputChecked_data() { addPrintingCommands(); }
    void standardOutputChecked()
    {
        QFETCH(QStringList, args);
        if (!QFileInfo::exists(u"/dev/full"_s))
            QSKIP("no /dev/full here");
        const test::RunResult ok = test::runPescope(args);
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QVERIFY(!ok.out.isEmpty());

        const Run full = runToFile(args, u"/dev/full"_s);
        QCOMPARE(full.exitCode, 1);
        QVERIFY2(full.err.contains("cannot write to standard output: No space left on device"),
                 full.err.constData());
        QVERIFY2(full.err.startsWith("pescope"), full.err.constData());
        QVERIFY2(onlyPescopeLines(full.err), full.err.constData());
    }

    // A standard output the shell closed (`>&-`): what a command prints is lost (EBADF), exit 1;
    // a command that prints nothing there still succeeds, its file written.
    void closedStandardOutput()
    {
        const Run printing = runRedirected(
            u">&-"_s, {u"tokens"_s, u"--model"_s, modelFolder("llama-tiny"), u"Hello"_s});
        QCOMPARE(printing.exitCode, 1);
        QVERIFY2(printing.err.contains("cannot write to standard output: Bad file descriptor"),
                 printing.err.constData());
        const QString out = path(u"closed.npy"_s);
        const Run writing =
            runRedirected(u">&-"_s, {u"data"_s, u"--positions"_s, u"4"_s, u"--dims"_s, u"2"_s,
                                     u"--backend"_s, u"cpu"_s, u"--out"_s, out});
        QVERIFY2(writing.exitCode == 0, writing.err.constData());
        QVERIFY(QFileInfo(out).size() > 0);
    }

    // A real disk that fills part-way through the output (an 8 KiB tmpfs; needs root or
    // CAP_SYS_ADMIN, skipped otherwise): the JSON is cut at the disk's size, and that is exit 1.
    void smallDiskOutput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("tokens --json --file")
            << QStringList{u"tokens"_s, u"--model"_s, modelFolder("llama-tiny"),
                           u"--json"_s, u"--file"_s,  path(u"long.txt"_s)};
        QTest::newRow("tokens --lines")
            << QStringList{u"tokens"_s,  u"--model"_s, modelFolder("gpt2-tiny"),
                           u"--lines"_s, u"--file"_s,  path(u"long.txt"_s)};
    }
    void smallDiskOutput()
    {
        QFETCH(QStringList, args);
        QByteArray text;
        for (int i = 0; i < 400; ++i)
            text += "line " + QByteArray::number(i) + " of a text longer than the disk\n";
        writeFile(path(u"long.txt"_s), text);
        const test::RunResult ok = test::runPescope(args);
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QVERIFY(ok.out.size() > 16384); // twice what the disk holds

        const QString disk = path(u"disk"_s);
        QVERIFY(QDir().mkpath(disk));
        if (::mount("tmpfs", QFile::encodeName(disk).constData(), "tmpfs", MS_NOSUID | MS_NODEV,
                    "size=8k,mode=0700") != 0)
            QSKIP(qPrintable(u"cannot mount an 8 KiB tmpfs here (%1); /dev/full covers the "
                             u"same path"_s.arg(QString::fromLocal8Bit(std::strerror(errno)))));
        m_mount = disk;
        const QString out = QDir(disk).filePath(u"out.json"_s);
        const Run cut = runToFile(args, out);
        QCOMPARE(cut.exitCode, 1);
        QVERIFY2(cut.err.contains("cannot write to standard output: No space left on device"),
                 cut.err.constData());
        // What did fit is the output's beginning, cut short.
        QFile written(out);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray part = written.readAll();
        QVERIFY(part.size() < ok.out.size());
        QVERIFY(ok.out.startsWith(part));
    }

    // Qt's own options are pescope's arguments like any other: `data` has no --session, so it is
    // refused rather than taken by Qt's session management and the default matrix written.
    void dataSessionRefused()
    {
        writeFile(path(u"s.json"_s), "{}");
        const QString out = path(u"x.npy"_s);
        const test::RunResult r =
            test::runPescope({u"data"_s, u"--session"_s, path(u"s.json"_s), u"--out"_s, out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("session"), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    // After "--" every argument is a text, "-reverse" (Qt's right-to-left option) included.
    void textsAfterDoubleDash()
    {
        const test::RunResult r =
            test::runPescope({u"tokens"_s, u"--model"_s, modelFolder("llama-tiny"), u"--json"_s,
                              u"--"_s, u"-reverse"_s, u"hello"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray texts = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(texts.size(), 2);
        QCOMPARE(texts[0].toObject().value(u"text"_s).toString(), u"-reverse"_s);
        QCOMPARE(texts[1].toObject().value(u"text"_s).toString(), u"hello"_s);
    }

    // An option's value may start with a dash: `--text -reverse` is the phrase "-reverse",
    // which Keras' standardization makes the word "reverse".
    void phraseTextStartingWithDash()
    {
        const test::RunResult r =
            test::runPescope({u"phrases"_s, u"--text"_s, u"-reverse"_s, u"--text"_s, u"you too"_s,
                              u"--backend"_s, u"cpu"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("Vocabulary: ['', '[UNK]', ") && r.out.contains("'reverse'") &&
                     r.out.contains("'you'") && r.out.contains("'too'"),
                 r.out.constData());
    }

    // Qt's options, single or double dash, are refused (exit 2) by every command that does not
    // have them, and by the window, before anything is read or shown.
    void qtOptionsRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        const QList<std::pair<const char *, QStringList>> commands = {
            {"data", {u"data"_s, u"--positions"_s, u"4"_s, u"--out"_s, path(u"q.npy"_s)}},
            {"phrases", {u"phrases"_s, u"--text"_s, u"a b"_s}},
            {"tokens", {u"tokens"_s, u"--model"_s, modelFolder("llama-tiny"), u"hello"_s}},
            {"inspect", {u"inspect"_s, modelFolder("gpt2-tiny")}},
            {"verify",
             {u"verify"_s, u"--model"_s, modelFolder("llama-tiny"), u"--against"_s, m_against}},
            {"info", {u"info"_s}},
            {"export", {u"export"_s, u"--view"_s, u"heatmap"_s, u"--out"_s, path(u"q.png"_s)}},
            {"lesson", {u"lesson"_s, u"list"_s, lessonFile()}},
            {"window", {}},
        };
        const QList<QStringList> options = {{u"-reverse"_s},
                                            {u"--reverse"_s},
                                            {u"-style"_s, u"fusion"_s},
                                            {u"-platform"_s, u"offscreen"_s},
                                            {u"-session"_s, u"s"_s},
                                            {u"--session"_s, u"s"_s},
                                            {u"-qwindowgeometry"_s, u"100x100+0+0"_s}};
        for (const auto &[name, args] : commands)
            for (const QStringList &option : options) {
                // export and the window have a --session of their own (export reads single-dash
                // words as long options, the window as short ones).
                const bool session = option.constFirst().endsWith(u"-session"_s);
                if ((session && qstrcmp(name, "export") == 0) ||
                    (option.constFirst() == u"--session"_s && qstrcmp(name, "window") == 0))
                    continue;
                QTest::addRow("%s %s", name, qPrintable(option.join(u' '))) << (args + option);
            }
    }
    void qtOptionsRefused()
    {
        QFETCH(QStringList, args);
        QFile::remove(path(u"q.npy"_s));
        QFile::remove(path(u"q.png"_s));
        const test::RunResult r = test::runPescope(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("nknown option"), r.err.constData());
        QVERIFY2(onlyPescopeLines(r.err), r.err.constData());
        QVERIFY(!QFileInfo::exists(path(u"q.npy"_s)) && !QFileInfo::exists(path(u"q.png"_s)));
    }

    // One bad model file, every command that reads it: exit 2 (bad input), one line naming the
    // file, nothing written, a dry run included. The model phrase views of `export` read the
    // model only while computing and said 1.
    void badModelFileOneExitCode_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("file");
        const QString out = path(u"bad-out.npy"_s), fig = path(u"bad-out.png"_s);
        const QString st = u"model.safetensors"_s, tok = u"tokenizer.json"_s,
                      cfg = u"config.json"_s;
        struct Cut
        {
            const char *name;
            const char *model;
            QString file;
            qint64 keep;
        };
        const Cut cuts[] = {{"gpt2 weights cut half-way", "gpt2-tiny", st, -1},
                            {"gpt2 weights cut in the header", "gpt2-tiny", st, 20},
                            {"llama weights cut half-way", "llama-tiny", st, -1},
                            {"llama weights cut in the header", "llama-tiny", st, 20},
                            {"llama tokenizer cut", "llama-tiny", tok, 100},
                            {"llama config cut", "llama-tiny", cfg, 30}};
        for (const Cut &cut : cuts) {
            const QString model = cutModel(m_dir.path(), cut.model, cut.file, cut.keep);
            QVERIFY(!model.isEmpty());
            QList<std::pair<const char *, QStringList>> commands = {
                {"data --phrase",
                 {u"data"_s, u"--model"_s, model, u"--phrase"_s, u"hi"_s, u"--out"_s, out}},
                {"export tokens",
                 {u"export"_s, u"--view"_s, u"tokens"_s, u"--model"_s, model, u"--text"_s, u"hi"_s,
                  u"--out"_s, fig}},
                {"export attention",
                 {u"export"_s, u"--view"_s, u"attention"_s, u"--model"_s, model, u"--text"_s,
                  u"hi"_s, u"--out"_s, fig}},
                {"export embeddings --dry-run",
                 {u"export"_s, u"--view"_s, u"embeddings"_s, u"--model"_s, model, u"--text"_s,
                  u"hi"_s, u"--out"_s, fig, u"--dry-run"_s}},
                {"data --view embeddings",
                 {u"data"_s, u"--view"_s, u"embeddings"_s, u"--model"_s, model, u"--text"_s,
                  u"hi"_s, u"--out"_s, out}},
            };
            if (cut.file == st) {
                commands += {{"inspect", {u"inspect"_s, model}},
                             {"inspect --json", {u"inspect"_s, u"--json"_s, model}}};
                if (qstrcmp(cut.model, "gpt2-tiny") == 0) // its learned table is read
                    commands += {{"data", {u"data"_s, u"--model"_s, model, u"--out"_s, out}},
                                 {"export pca",
                                  {u"export"_s, u"--view"_s, u"pca"_s, u"--model"_s, model,
                                   u"--out"_s, fig}}};
            } else if (cut.file == tok) {
                commands += {{"tokens", {u"tokens"_s, u"--model"_s, model, u"hi"_s}}};
            } else {
                commands +=
                    {{"data", {u"data"_s, u"--model"_s, model, u"--out"_s, out}},
                     {"inspect", {u"inspect"_s, model}},
                     {"verify", {u"verify"_s, u"--model"_s, model, u"--against"_s, m_against}},
                     {"export rotation",
                      {u"export"_s, u"--view"_s, u"rotation"_s, u"--model"_s, model, u"--out"_s,
                       fig}}};
            }
            for (const auto &[name, args] : commands)
                QTest::addRow("%s: %s", cut.name, name) << args << cut.file;
        }
    }
    void badModelFileOneExitCode()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, file);
        const test::RunResult r = test::runPescope(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(file.toUtf8()), r.err.constData());
        QVERIFY2(onlyPescopeLines(r.err), r.err.constData());
        QVERIFY(!QFileInfo::exists(path(u"bad-out.npy"_s)));
        QVERIFY(!QFileInfo::exists(path(u"bad-out.png"_s)));
    }

    // `--file -` reads standard input: closed or a folder, there is no text to read (it read
    // as an empty one, exit 0); an empty input is an empty text.
    void standardInputRefused_data()
    {
        QTest::addColumn<QString>("redirection");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QStringList tokens = {u"tokens"_s, u"--model"_s, modelFolder("llama-tiny"),
                                    u"--file"_s, u"-"_s};
        const QStringList phrase = {u"data"_s,          u"--model"_s,  modelFolder("llama-tiny"),
                                    u"--phrase-file"_s, u"-"_s,        u"--out"_s,
                                    path(u"in.npy"_s),  u"--dry-run"_s};
        const QString folder = u"< '%1'"_s.arg(m_dir.path());
        QTest::newRow("tokens, closed") << u"<&-"_s << tokens << 2 << u"standard input is closed"_s;
        QTest::newRow("tokens, a folder") << folder << tokens << 2 << u"is a folder"_s;
        QTest::newRow("data --phrase-file, closed")
            << u"<&-"_s << phrase << 2 << u"standard input is closed"_s;
        QTest::newRow("data --phrase-file, a folder") << folder << phrase << 2 << u"is a folder"_s;
        QTest::newRow("tokens, empty") << u"< /dev/null"_s << tokens << 0 << QString();
    }
    void standardInputRefused()
    {
        QFETCH(QString, redirection);
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const Run r = runRedirected(redirection, args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        if (exitCode == 2)
            QVERIFY2(r.err.contains("--") && r.err.contains("-:"), r.err.constData());
        QVERIFY2(onlyPescopeLines(r.err), r.err.constData());
    }

    // Nothing but pescope's own lines on stderr: the rotation view with one pair (QCustomPlot
    // warned about its layout) and a model path holding a NUL (Qt's "Broken filename", and the
    // NUL itself in the message).
    void noQtWarnings_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        const QString fig = path(u"w.png"_s);
        QTest::newRow("rotation, 2 dims") << QStringList{u"export"_s,   u"--view"_s, u"rotation"_s,
                                                         u"--scheme"_s, u"rope"_s,   u"--dims"_s,
                                                         u"2"_s,        u"--out"_s,  fig}
                                          << 0;
        QTest::newRow("rotation, 1 dim")
            << QStringList{u"export"_s, u"--view"_s, u"rotation"_s, u"--dims"_s, u"1"_s,
                           u"--out"_s,  fig}
            << 0;
        QTest::newRow("rotation, 6 dims") << QStringList{u"export"_s,   u"--view"_s, u"rotation"_s,
                                                         u"--scheme"_s, u"rope"_s,   u"--dims"_s,
                                                         u"6"_s,        u"--out"_s,  fig}
                                          << 0;
        writeFile(path(u"nul.json"_s), R"({"format_version": 2, "state": {"spec": {"scheme":
                  "table", "source": "/tmp/a\u0000b", "positions": 10, "dims": 4}}})");
        QTest::newRow("NUL in a model path")
            << QStringList{u"export"_s, u"--session"_s, path(u"nul.json"_s),
                           u"--view"_s, u"heatmap"_s,   u"--out"_s,
                           fig}
            << 2;
    }
    void noQtWarnings()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        const test::RunResult r = test::runPescope(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(onlyPescopeLines(r.err), r.err.constData());
        if (exitCode == 2)
            QVERIFY2(r.err.contains("NUL character (\\0, character 7)"), r.err.constData());
        QFile::remove(path(u"w.png"_s));
    }

    // Memory refused (a ulimit, a container's limit) while a command works: one line and exit
    // 1, never an abort (std::bad_alloc ended it with SIGABRT, exit 134), and no file.
    void outOfMemoryIsAFailure()
    {
        if (test::underSanitizer)
            QSKIP("AddressSanitizer's shadow memory counts against RLIMIT_DATA");
        const QString fig = path(u"big.png"_s);
        QProcess process;
        process.setChildProcessModifier([] {
            const rlimit limit{rlim_t(300) << 20, rlim_t(300) << 20};
            setrlimit(RLIMIT_DATA, &limit);
        });
        // 30,000 x 8,192 floats (0.9 GiB) fit the explorer's 1 GiB budget but not the limit.
        process.start(QStringLiteral(PE_EXECUTABLE),
                      {u"export"_s, u"--view"_s, u"heatmap"_s, u"--positions"_s, u"30000"_s,
                       u"--dims"_s, u"8192"_s, u"--out"_s, fig});
        const Run r = test::finishRun(process);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err == "pescope export: out of memory while running the command (the input "
                          "needs more memory than the system gives)\n",
                 r.err.constData());
        QVERIFY(!QFile::exists(fig));
    }
};

QTEST_GUILESS_MAIN(TestCliContract)
#include "tst_clicontract.moc"
