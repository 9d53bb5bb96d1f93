// Reading user files (readUserFile) and what the command line makes of it: regular files only,
// never more than the stated limit, and devices, FIFOs, sockets and folders refused at once,
// both by the function and by `pescope --session` / `pescope export --session`.
#include "testutil.h"

#include "io/userfile.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstring>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace pe;

namespace {

void writeRaw(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

// Waits at most `seconds`; a process still running then is killed and reported as hung.
struct Finished
{
    int exitCode = -1;
    bool hung = false;
    qint64 ms = 0;
    QString err;
};

Finished runWithTimeout(const QStringList &args, int seconds, const QString &runtimeDir)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (env.value(QStringLiteral("DISPLAY")).isEmpty())
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    // Else the window's Qt says on stderr that it picked one, and the message is not alone.
    if (env.value(QStringLiteral("XDG_RUNTIME_DIR")).isEmpty())
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtimeDir);
    process.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    process.start(QStringLiteral(PE_EXECUTABLE), args);
    Finished result;
    if (!process.waitForFinished(seconds * 1000)) {
        process.kill();
        process.waitForFinished();
        result.hung = true;
    }
    result.ms = timer.elapsed();
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.err = QString::fromLocal8Bit(process.readAllStandardError()).trimmed();
    return result;
}

} // namespace

class TestUserFile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_socket = -1;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    // Every kind of thing that is not a regular file, created in the temporary folder.
    void addNotFiles()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reason");
        QTest::addRow("/dev/zero") << QStringLiteral("/dev/zero")
                                   << QStringLiteral("/dev/zero is a character device, not ");
        QTest::addRow("link to /dev/zero") << path(QStringLiteral("zero-link.json"))
                                           << QStringLiteral("is a character device, not ");
        QTest::addRow("FIFO without a writer")
            << path(QStringLiteral("fifo.json")) << QStringLiteral("is a named pipe (FIFO), not ");
        QTest::addRow("socket") << path(QStringLiteral("socket.json"))
                                << QStringLiteral("is a socket, not ");
        QTest::addRow("folder") << m_dir.path() << QStringLiteral("is a folder, not ");
        QTest::addRow("missing") << path(QStringLiteral("absent.json"))
                                 << QStringLiteral("absent.json does not exist");
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCOMPARE(::mkfifo(QFile::encodeName(path(QStringLiteral("fifo.json"))).constData(), 0600),
                 0);
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path(QStringLiteral("zero-link.json"))));
        // A listening Unix socket, as a running program would leave one.
        m_socket = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(m_socket >= 0);
        sockaddr_un address = {};
        address.sun_family = AF_UNIX;
        const QByteArray name = QFile::encodeName(path(QStringLiteral("socket.json")));
        QVERIFY(std::size_t(name.size()) < sizeof address.sun_path);
        std::memcpy(address.sun_path, name.constData(), std::size_t(name.size()));
        QCOMPARE(::bind(m_socket, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
        QCOMPARE(::listen(m_socket, 1), 0);
    }

    void cleanupTestCase()
    {
        if (m_socket >= 0)
            ::close(m_socket);
    }

    void readsRegularFiles_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<qint64>("limit");
        QTest::addRow("empty") << QByteArray() << qint64(10);
        QTest::addRow("small") << QByteArray("{\"a\": 1}\n") << qint64(100);
        QTest::addRow("exactly the limit") << QByteArray(4096, 'x') << qint64(4096);
        QTest::addRow("larger than a read") << QByteArray(300000, 'y') << (qint64(1) << 20);
    }
    void readsRegularFiles()
    {
        QFETCH(QByteArray, content);
        QFETCH(qint64, limit);
        const QString file = path(QStringLiteral("regular.json"));
        writeRaw(file, content);
        QString error;
        const std::optional<QByteArray> bytes = readUserFile(file, limit, &error);
        QVERIFY2(bytes.has_value(), qPrintable(error));
        QCOMPARE(*bytes, content);
        // With spare bytes (a parser's padding): the same content, and 64 zero bytes readable
        // past its end, inside the array's capacity.
        const std::optional<QByteArray> padded =
            readUserFile(file, limit, &error, QStringLiteral("a file"), 64);
        QVERIFY2(padded.has_value(), qPrintable(error));
        QCOMPARE(*padded, content);
        QVERIFY(padded->capacity() - padded->size() >= 64);
        const QByteArrayView spare(padded->constData() + padded->size(), 64);
        QVERIFY(std::all_of(spare.begin(), spare.end(), [](char c) { return c == 0; }));
    }

    void refusesFilesOverTheLimit()
    {
        const QString file = path(QStringLiteral("big.json"));
        writeRaw(file, QByteArray(4097, 'x'));
        QString error;
        QVERIFY(!readUserFile(file, 4096, &error, QStringLiteral("a session file")));
        QCOMPARE(error, QStringLiteral("%1 is 4.0 KiB, too large for a session file (at most "
                                       "4.0 KiB)")
                            .arg(file));
    }

    // procfs says 0 bytes for files that hold more: the read itself stops at the limit.
    void readsNoMoreThanTheLimitWhateverTheSizeSays()
    {
        const QString file = QStringLiteral("/proc/self/status");
        QFileInfo info(file);
        if (!info.exists() || info.size() != 0)
            QSKIP("no /proc/self/status that claims 0 bytes here");
        QString error;
        QVERIFY(!readUserFile(file, 64, &error));
        QCOMPARE(error, QStringLiteral("/proc/self/status is more than 64 bytes, too large for "
                                       "a file (at most 64 bytes)"));
        const std::optional<QByteArray> whole = readUserFile(file, 1 << 20, &error);
        QVERIFY2(whole.has_value(), qPrintable(error));
        QVERIFY(whole->size() > 64);
        QVERIFY(whole->contains("Name:"));
    }

    void refusesWhatIsNotAFile_data() { addNotFiles(); }
    void refusesWhatIsNotAFile()
    {
        QFETCH(QString, file);
        QFETCH(QString, reason);
        QElapsedTimer timer;
        timer.start();
        QString error;
        QVERIFY(
            !readUserFile(file, limits::maxSessionBytes, &error, QStringLiteral("a session file")));
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY2(error.startsWith(QDir::toNativeSeparators(file)), qPrintable(error));
        QVERIFY2(error.contains(reason), qPrintable(error));
        if (reason.endsWith(QLatin1String("not ")))
            QVERIFY2(error.endsWith(QLatin1String("not a session file")), qPrintable(error));
    }

    void unreadable()
    {
        if (::geteuid() == 0)
            QSKIP("root reads any file, so there is no unreadable file to try");
        const QString file = path(QStringLiteral("secret.json"));
        writeRaw(file, "{}");
        QVERIFY(QFile::setPermissions(file, QFileDevice::WriteOwner));
        QString error;
        QVERIFY(!readUserFile(file, 100, &error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot read %1: ").arg(file)), qPrintable(error));
    }

    // The reproductions of issue 16: each is refused within a second with a message, instead of
    // reading forever (/dev/zero) or blocking in open (a FIFO).
    void commandLineRefusesSessionsThatAreNotFiles_data() { addNotFiles(); }
    void commandLineRefusesSessionsThatAreNotFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, reason);
        for (const bool window : {false, true}) {
            const QStringList args = window ? QStringList{QStringLiteral("--session"), file}
                                            : QStringList{QStringLiteral("export"),
                                                          QStringLiteral("--session"),
                                                          file,
                                                          QStringLiteral("--view"),
                                                          QStringLiteral("heatmap"),
                                                          QStringLiteral("--out"),
                                                          path(QStringLiteral("fig.png"))};
            const Finished r = runWithTimeout(args, 20, m_dir.path());
            const QString what = window ? QStringLiteral("pescope --session")
                                        : QStringLiteral("pescope export --session");
            QVERIFY2(!r.hung, qPrintable(what + QStringLiteral(" did not finish in 20 s")));
            qInfo("%s %s: refused in %lld ms", qPrintable(what), qPrintable(file), r.ms);
            // Starting pescope takes a few hundred milliseconds; reading /dev/zero took forever.
            QVERIFY2(r.ms < 5000, qPrintable(QString::number(r.ms)));
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("--session: ")) && r.err.contains(reason),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains(QLatin1Char('\n')), qPrintable(r.err));
            QVERIFY(!QFileInfo::exists(path(QStringLiteral("fig.png"))));
        }
    }
};

QTEST_GUILESS_MAIN(TestUserFile)
#include "tst_userfile.moc"
