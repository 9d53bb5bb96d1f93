// Every writer of the command line against real write failures (issue 16) and signals
// (issue 14): `pescope data` (.npy, .csv), `pescope phrases --out/--vocab-out` and
// `pescope export` (.png, .svg, .pdf) run with tests/support/failwrite preloaded, on a small
// tmpfs where one can be mounted, and killed mid-write. Each must exit 1 (or die of the signal),
// name the file and the cause, and leave nothing in the folder.
#include "failwritetestutil.h"
#include "testutil.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <memory>

#include <sys/mount.h>
#include <unistd.h>

using namespace pe;
using pe::test::failwriteEnvironment;

namespace {

// One writer of the command line: its arguments for output folder `dir`, and its outputs.
struct Writer
{
    QStringList args;
    QStringList outputs; // file names in the folder
};

// Words that each occur once: the vocabulary is '', '[UNK]', then the words in descending
// order (Keras breaks count ties by token, descending).
QStringList distinctWords(int count)
{
    QStringList words;
    for (int i = 0; i < count; ++i)
        words += QStringLiteral("w%1").arg(i, 5, 10, QLatin1Char('0'));
    return words;
}

Writer writerNamed(const QString &name, const QString &dir, int vocabularyWords = 3000)
{
    const auto at = [&](const QString &file) { return QDir(dir).filePath(file); };
    const QStringList data = {QStringLiteral("data"), QStringLiteral("--positions"),
                              QStringLiteral("2000"), QStringLiteral("--dims"),
                              QStringLiteral("256"),  QStringLiteral("--backend"),
                              QStringLiteral("cpu"),  QStringLiteral("--out")};
    const QStringList words = distinctWords(vocabularyWords);
    const int half = int(words.size() / 2);
    const QStringList phrases = {QStringLiteral("phrases"),
                                 QStringLiteral("--text"),
                                 words.mid(0, half).join(QLatin1Char(' ')),
                                 QStringLiteral("--text"),
                                 words.mid(half).join(QLatin1Char(' ')),
                                 QStringLiteral("--max-tokens"),
                                 QStringLiteral("40000"),
                                 QStringLiteral("--backend"),
                                 QStringLiteral("cpu")};
    const QStringList figure = {
        QStringLiteral("export"),      QStringLiteral("--view"),    QStringLiteral("heatmap"),
        QStringLiteral("--positions"), QStringLiteral("200"),       QStringLiteral("--dims"),
        QStringLiteral("128"),         QStringLiteral("--backend"), QStringLiteral("cpu"),
        QStringLiteral("--width"),     QStringLiteral("800"),       QStringLiteral("--height"),
        QStringLiteral("600"),         QStringLiteral("--out")};
    if (name == QLatin1String("data npy"))
        return {data + QStringList{at(QStringLiteral("enc.npy"))}, {QStringLiteral("enc.npy")}};
    if (name == QLatin1String("data csv"))
        return {data + QStringList{at(QStringLiteral("enc.csv"))}, {QStringLiteral("enc.csv")}};
    if (name == QLatin1String("rope cos table")) // a golden table for inference engines
        return {data + QStringList{at(QStringLiteral("cos.npy")), QStringLiteral("--scheme"),
                                   QStringLiteral("rope"), QStringLiteral("--what"),
                                   QStringLiteral("cos")},
                {QStringLiteral("cos.npy")}};
    if (name == QLatin1String("phrases vocabulary"))
        return {phrases + QStringList{QStringLiteral("--vocab-out"), at(QStringLiteral("v.txt"))},
                {QStringLiteral("v.txt")}};
    if (name == QLatin1String("phrases npy and vocabulary"))
        return {phrases + QStringList{QStringLiteral("--vocab-out"), at(QStringLiteral("v.txt")),
                                      QStringLiteral("--out"), at(QStringLiteral("e.npy"))},
                {QStringLiteral("e.npy"), QStringLiteral("v.txt")}};
    for (const QString &format :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")})
        if (name == QLatin1String("export ") + format)
            return {figure + QStringList{at(QStringLiteral("fig.") + format)},
                    {QStringLiteral("fig.") + format}};
    qFatal("unknown writer %s", qPrintable(name));
}

const QStringList allWriters = {QStringLiteral("data npy"),
                                QStringLiteral("data csv"),
                                QStringLiteral("rope cos table"),
                                QStringLiteral("phrases vocabulary"),
                                QStringLiteral("phrases npy and vocabulary"),
                                QStringLiteral("export png"),
                                QStringLiteral("export svg"),
                                QStringLiteral("export pdf")};

QStringList entries(const QString &folder)
{
    QStringList list = QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System |
                                              QDir::NoDotAndDotDot);
    list.sort();
    return list;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

struct Outcome
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString err;
};

Outcome run(const QStringList &args, const QProcessEnvironment &env)
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(PE_EXECUTABLE), args);
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return {-1, QProcess::CrashExit, QStringLiteral("timed out")};
    }
    return {process.exitCode(), process.exitStatus(),
            QString::fromLocal8Bit(process.readAllStandardError()).trimmed()};
}

qint64 totalSize(const QString &dir, const QStringList &files)
{
    qint64 total = 0;
    for (const QString &file : files)
        total += QFileInfo(QDir(dir).filePath(file)).size();
    return total;
}

// True when stderr's last line reports `cause` for one of the writer's files and no line before
// it reports an error or a file written (the lines before say what is computed: a model, a
// RoPE table's layout).
bool namesFileAndCause(const QString &err, const QString &dir, const QStringList &outputs,
                       const QString &cause)
{
    const QStringList lines = err.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i + 1 < lines.size(); ++i)
        if (lines[i].contains(QLatin1String("cannot")) ||
            lines[i].contains(QLatin1String("written")))
            return false;
    return std::any_of(outputs.begin(), outputs.end(), [&](const QString &file) {
        return lines.constLast().contains(
            QStringLiteral("cannot write %1: %2").arg(QDir(dir).filePath(file), cause));
    });
}

} // namespace

class TestFullWrite : public QObject
{
    Q_OBJECT

    QTemporaryDir m_root;
    QString m_mount;                // a mounted tmpfs, unmounted in cleanup()
    QHash<QString, qint64> m_sizes; // bytes a successful run of each writer writes

    // A fresh empty folder per run.
    QString freshFolder()
    {
        static int counter = 0;
        const QString dir = m_root.filePath(QStringLiteral("run%1").arg(++counter));
        [&] { QVERIFY(QDir().mkpath(dir)); }();
        return dir;
    }

private slots:
    void initTestCase() { QVERIFY(m_root.isValid()); }

    void cleanup()
    {
        if (!m_mount.isEmpty()) {
            if (::umount(QFile::encodeName(m_mount).constData()) != 0)
                ::umount2(QFile::encodeName(m_mount).constData(), MNT_DETACH);
            m_mount.clear();
        }
    }

    // Through the shim without failures, but with every write cut short and every other one
    // interrupted: the files are whole, identical to an undisturbed run.
    void shortAndInterruptedWritesLoseNothing_data()
    {
        QTest::addColumn<QString>("writer");
        for (const QString &writer : allWriters)
            if (!writer.startsWith(QLatin1String("export "))) // figures carry a timestamp
                QTest::addRow("%s", qPrintable(writer)) << writer;
        QTest::addRow("export svg") << QStringLiteral("export svg");
    }
    void shortAndInterruptedWritesLoseNothing()
    {
        QFETCH(QString, writer);
        const QString plain = freshFolder(), pieces = freshFolder();
        const Writer a = writerNamed(writer, plain), b = writerNamed(writer, pieces);
        Outcome r = run(a.args, failwriteEnvironment(plain, {}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = run(b.args,
                failwriteEnvironment(
                    pieces, {{QStringLiteral("FAILWRITE_MAX_WRITE"), QStringLiteral("4093")},
                             {QStringLiteral("FAILWRITE_EINTR_EVERY"), QStringLiteral("2")}}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const QString &file : a.outputs) {
            const QByteArray whole = readAll(QDir(plain).filePath(file));
            QVERIFY(!whole.isEmpty());
            QCOMPARE(readAll(QDir(pieces).filePath(file)), whole);
        }
        QCOMPARE(entries(pieces), a.outputs);
        // The vocabulary, one token a line and a final newline: '', '[UNK]', then the words
        // (each seen once) in descending order.
        if (a.outputs.contains(QStringLiteral("v.txt"))) {
            QStringList words = distinctWords(3000);
            std::sort(words.begin(), words.end(), std::greater<>());
            const QByteArray expected = (QStringList{QString(), QStringLiteral("[UNK]")} + words)
                                            .join(QLatin1Char('\n'))
                                            .toUtf8() +
                                        '\n';
            QCOMPARE(readAll(QDir(pieces).filePath(QStringLiteral("v.txt"))), expected);
        }
    }

    // /dev/stdout is written in place, whether it is a pipe or a file the shell redirected it
    // to (appended to, as the shell opened it), and whatever its name's extension.
    void writesToStandardOutput()
    {
        const QString dir = freshFolder();
        const QStringList args = {QStringLiteral("data"), QStringLiteral("--positions"),
                                  QStringLiteral("30"),   QStringLiteral("--dims"),
                                  QStringLiteral("6"),    QStringLiteral("--backend"),
                                  QStringLiteral("cpu"),  QStringLiteral("--format"),
                                  QStringLiteral("csv"),  QStringLiteral("--out")};
        const QString file = QDir(dir).filePath(QStringLiteral("m.csv"));
        const test::RunResult plain = test::runPescope(args + QStringList{file});
        QCOMPARE(plain.exitCode, 0);
        const QByteArray expected = readAll(file);
        QCOMPARE(expected.count('\n'), 30);

        const test::RunResult piped =
            test::runPescope(args + QStringList{QStringLiteral("/dev/stdout")});
        QVERIFY2(piped.exitCode == 0, piped.err.constData());
        QCOMPARE(piped.out, expected);

        const QString redirected = QDir(dir).filePath(QStringLiteral("redirected.txt"));
        {
            QFile f(redirected);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("first line\n");
        }
        QProcess process;
        process.setStandardOutputFile(redirected, QIODevice::Append);
        process.start(QStringLiteral(PE_EXECUTABLE),
                      args + QStringList{QStringLiteral("/dev/stdout")});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QCOMPARE(readAll(redirected), QByteArray("first line\n") + expected);
    }

    // The disk fills at the first byte, halfway or at the last byte, with an unnamed
    // (O_TMPFILE) temporary or a named one (file systems without O_TMPFILE).
    void fullDisk_data()
    {
        QTest::addColumn<QString>("writer");
        QTest::addColumn<bool>("named");
        QTest::addColumn<double>("fraction"); // of the bytes a successful run writes
        for (const QString &writer : allWriters)
            for (const bool named : {false, true})
                for (const double fraction : {0.0, 0.5, 1.0}) {
                    const char *where = fraction == 0.0   ? "first byte"
                                        : fraction == 0.5 ? "halfway"
                                                          : "last byte";
                    QTest::addRow("%s, %s temporary, %s", qPrintable(writer),
                                  named ? "named" : "unnamed", where)
                        << writer << named << fraction;
                }
    }
    void fullDisk()
    {
        QFETCH(QString, writer);
        QFETCH(bool, named);
        QFETCH(double, fraction);
        // How much a successful run writes, measured once in a folder of its own.
        if (!m_sizes.contains(writer)) {
            const QString measured = freshFolder();
            const Outcome ok =
                run(writerNamed(writer, measured).args, failwriteEnvironment(measured, {}));
            QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
            m_sizes[writer] = totalSize(measured, writerNamed(writer, measured).outputs);
        }
        const qint64 total = m_sizes.value(writer);
        QVERIFY(total > 0);
        const qint64 budget = fraction >= 1.0 ? total - 1 : qint64(double(total) * fraction);

        const QString dir = freshFolder();
        const Writer w = writerNamed(writer, dir);
        QList<std::pair<QString, QString>> variables = {
            {QStringLiteral("FAILWRITE_BUDGET"), QString::number(budget)}};
        if (named)
            variables.append({QStringLiteral("FAILWRITE_NO_TMPFILE"), QStringLiteral("1")});
        const Outcome r = run(w.args, failwriteEnvironment(dir, variables));
        QCOMPARE(r.status, QProcess::NormalExit);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            namesFileAndCause(r.err, dir, w.outputs, QStringLiteral("No space left on device")),
            qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String("Unknown error")), qPrintable(r.err));
        QCOMPARE(entries(dir), QStringList()); // no file, no temporary
    }

    // Other causes reach the message in words too: a refused open (Permission denied), a quota,
    // and a disk that fails when the data is flushed.
    void otherFailures_data()
    {
        QTest::addColumn<QString>("writer");
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("cause");
        for (const QString &writer : allWriters) {
            QTest::addRow("%s, permission denied", qPrintable(writer))
                << writer << QStringLiteral("FAILWRITE_OPEN_ERRNO") << QStringLiteral("EACCES")
                << QStringLiteral("Permission denied");
            QTest::addRow("%s, flush fails", qPrintable(writer))
                << writer << QStringLiteral("FAILWRITE_FSYNC_ERRNO") << QStringLiteral("EIO")
                << QStringLiteral("Input/output error");
        }
        QTest::addRow("phrases vocabulary, quota")
            << QStringLiteral("phrases vocabulary") << QStringLiteral("FAILWRITE_ERRNO")
            << QStringLiteral("EDQUOT") << QStringLiteral("Disk quota exceeded");
    }
    void otherFailures()
    {
        QFETCH(QString, writer);
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, cause);
        const QString dir = freshFolder();
        const Writer w = writerNamed(writer, dir);
        QList<std::pair<QString, QString>> variables = {{variable, value}};
        if (variable == QLatin1String("FAILWRITE_ERRNO"))
            variables.append({QStringLiteral("FAILWRITE_BUDGET"), QStringLiteral("1000")});
        const Outcome r = run(w.args, failwriteEnvironment(dir, variables));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(namesFileAndCause(r.err, dir, w.outputs, cause), qPrintable(r.err));
        QCOMPARE(entries(dir), QStringList());
    }

    // A real full disk: a 64 KiB tmpfs (needs root or CAP_SYS_ADMIN; skipped otherwise).
    void realFullDisk_data()
    {
        QTest::addColumn<QString>("writer");
        QTest::addColumn<QString>("cause");
        QTest::addRow("data csv") << QStringLiteral("data csv")
                                  << QStringLiteral("No space left on device");
        // .npy sizes are exact, so the free space is checked before anything is written.
        QTest::addRow("data npy") << QStringLiteral("data npy") << QStringLiteral("it needs");
        QTest::addRow("phrases vocabulary")
            << QStringLiteral("phrases vocabulary") << QStringLiteral("No space left on device");
        QTest::addRow("export png")
            << QStringLiteral("export png") << QStringLiteral("No space left on device");
        QTest::addRow("export pdf")
            << QStringLiteral("export pdf") << QStringLiteral("No space left on device");
    }
    void realFullDisk()
    {
        QFETCH(QString, writer);
        QFETCH(QString, cause);
        const QString dir = freshFolder();
        if (::mount("tmpfs", QFile::encodeName(dir).constData(), "tmpfs", MS_NOSUID | MS_NODEV,
                    "size=64k,mode=0700") != 0)
            QSKIP(qPrintable(QStringLiteral("cannot mount a 64 KiB tmpfs here (%1); the injected "
                                            "failures above cover the same paths")
                                 .arg(QString::fromLocal8Bit(strerror(errno)))));
        m_mount = dir;
        // Ten thousand words make a vocabulary of ~70 KiB, more than the file system holds.
        Writer w = writerNamed(writer, dir, 10000);
        if (writer == QLatin1String("data csv"))
            w.args[2] = QStringLiteral("50"); // ~150 KB, but at least 25 KB by the size check
        if (writer.startsWith(QLatin1String("export "))) {
            w.args[w.args.indexOf(QStringLiteral("--width")) + 1] = QStringLiteral("2000");
            w.args[w.args.indexOf(QStringLiteral("--height")) + 1] = QStringLiteral("2000");
        }
        const Outcome r = run(w.args, QProcessEnvironment::systemEnvironment());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(cause) && r.err.contains(QDir(dir).filePath(w.outputs.first())),
                 qPrintable(r.err));
        QVERIFY(!r.err.contains(QLatin1Char('\n')));
        QCOMPARE(entries(dir), QStringList());
    }

    // SIGTERM, SIGINT or SIGHUP while the file is being written leaves nothing behind: an
    // unnamed temporary vanishes with the process, a named one is removed by AtomicFile's
    // handler, which then lets the signal end the process as it would have.
    void signalMidWrite_data()
    {
        QTest::addColumn<QString>("writer");
        QTest::addColumn<bool>("named");
        QTest::addColumn<int>("sig");
        QTest::addRow("data npy, unnamed, SIGTERM")
            << QStringLiteral("data npy") << false << int(SIGTERM);
        QTest::addRow("data npy, named, SIGTERM")
            << QStringLiteral("data npy") << true << int(SIGTERM);
        QTest::addRow("data npy, named, SIGINT")
            << QStringLiteral("data npy") << true << int(SIGINT);
        QTest::addRow("data npy, named, SIGHUP")
            << QStringLiteral("data npy") << true << int(SIGHUP);
        QTest::addRow("data csv, named, SIGTERM")
            << QStringLiteral("data csv") << true << int(SIGTERM);
        QTest::addRow("phrases vocabulary, named, SIGTERM")
            << QStringLiteral("phrases vocabulary") << true << int(SIGTERM);
        QTest::addRow("export png, unnamed, SIGTERM")
            << QStringLiteral("export png") << false << int(SIGTERM);
        QTest::addRow("export png, named, SIGTERM")
            << QStringLiteral("export png") << true << int(SIGTERM);
        QTest::addRow("export pdf, named, SIGINT")
            << QStringLiteral("export pdf") << true << int(SIGINT);
        QTest::addRow("export svg, named, SIGTERM")
            << QStringLiteral("export svg") << true << int(SIGTERM);
        QTest::addRow("rope cos table, unnamed, SIGTERM")
            << QStringLiteral("rope cos table") << false << int(SIGTERM);
        QTest::addRow("rope cos table, named, SIGTERM")
            << QStringLiteral("rope cos table") << true << int(SIGTERM);
        QTest::addRow("phrases npy and vocabulary, named, SIGTERM")
            << QStringLiteral("phrases npy and vocabulary") << true << int(SIGTERM);
    }
    void signalMidWrite()
    {
        QFETCH(QString, writer);
        QFETCH(bool, named);
        QFETCH(int, sig);
        const QString dir = freshFolder();
        const Writer w = writerNamed(writer, dir);
        // Throttled so that every write takes many seconds: 64 bytes per call, 20 ms each.
        QList<std::pair<QString, QString>> variables = {
            {QStringLiteral("FAILWRITE_MAX_WRITE"), QStringLiteral("64")},
            {QStringLiteral("FAILWRITE_DELAY_US"), QStringLiteral("20000")}};
        if (named)
            variables.append({QStringLiteral("FAILWRITE_NO_TMPFILE"), QStringLiteral("1")});
        QProcess process;
        process.setProcessEnvironment(failwriteEnvironment(dir, variables));
        process.start(QStringLiteral(PE_EXECUTABLE), w.args);
        QVERIFY(process.waitForStarted());
        const qint64 pid = process.processId();

        // Mid-write: the process holds a file in the folder open (for O_TMPFILE, an unnamed
        // "#inode (deleted)" one) and has written into it.
        const QByteArray folderPrefix = QFile::encodeName(QDir(dir).canonicalPath()) + "/";
        const auto writingInFolder = [&] {
            const QString proc = QStringLiteral("/proc/%1/").arg(pid);
            const QStringList fds =
                QDir(proc + QStringLiteral("fd")).entryList(QDir::AllEntries | QDir::System);
            for (const QString &fd : fds) {
                char target[4096];
                const ssize_t n = ::readlink(QFile::encodeName(proc + QStringLiteral("fd/") + fd),
                                             target, sizeof target - 1);
                if (n <= 0 || !QByteArray(target, n).startsWith(folderPrefix))
                    continue;
                QFile info(proc + QStringLiteral("fdinfo/") + fd);
                if (info.open(QIODevice::ReadOnly) && !info.readLine().startsWith("pos:\t0\n"))
                    return true;
            }
            return false;
        };
        QElapsedTimer timer;
        timer.start();
        while (!writingInFolder() && process.state() == QProcess::Running &&
               timer.elapsed() < 20000)
            QThread::msleep(5);
        QVERIFY2(process.state() == QProcess::Running,
                 qPrintable(QStringLiteral("finished before it could be interrupted: ") +
                            QString::fromLocal8Bit(process.readAllStandardError())));
        QVERIFY2(writingInFolder(), "never started writing");
        if (named) { // hidden temporaries, visible while they are written: one per output
            const QStringList now = entries(dir);
            QVERIFY2(!now.isEmpty() && now.size() <= w.outputs.size(), qPrintable(now.join(u' ')));
            for (const QString &name : now)
                QVERIFY2(name.startsWith(QLatin1Char('.')), qPrintable(name));
        }
        QCOMPARE(::kill(pid_t(pid), sig), 0);
        QVERIFY(process.waitForFinished(30000));
        // Died of the signal, as without the handler: not finished, not exited with a code.
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        QCOMPARE(entries(dir), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestFullWrite)
#include "tst_fullwrite.moc"
