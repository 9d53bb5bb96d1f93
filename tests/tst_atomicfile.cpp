// AtomicFile: all or nothing at the path, the file already there untouched on every failure,
// messages naming the file and the cause. Failures are real system-call failures, injected by
// the failwrite library that ctest preloads into this suite (tests/support/failwrite.c).
#include "testutil.h"

#include "io/atomicfile.h"
#include "io/deckfolder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <cerrno>
#include <clocale>
#include <memory>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace pe;

namespace {

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
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

void writeRaw(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

QByteArray randomBytes(qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (char &c : bytes)
        c = char(QRandomGenerator::global()->bounded(256));
    return bytes;
}

const char *const injectionVariables[] = {
    "FAILWRITE_DIR",        "FAILWRITE_BUDGET",      "FAILWRITE_ERRNO",
    "FAILWRITE_OPEN_ERRNO", "FAILWRITE_FSYNC_ERRNO", "FAILWRITE_NO_TMPFILE",
    "FAILWRITE_MAX_WRITE",  "FAILWRITE_EINTR_EVERY", "FAILWRITE_DELAY_US"};

bool messagesInEnglish()
{
    const char *locale = std::setlocale(LC_MESSAGES, nullptr);
    const QByteArray name = locale ? QByteArray(locale) : QByteArray("C");
    return name == "C" || name == "POSIX" || name.startsWith("C.") || name.startsWith("en");
}

} // namespace

class TestAtomicFile : public QObject
{
    Q_OBJECT

    bool m_shim = false;
    void (*m_reset)() = nullptr;
    std::unique_ptr<QTemporaryDir> m_dir;

    QString path(const QString &name) const { return m_dir->filePath(name); }
    QString folder() const { return QDir(m_dir->path()).canonicalPath(); }

    // The named-temporary rows need the shim to take O_TMPFILE away.
    void useMethod(bool named)
    {
        if (named && !m_shim)
            PE_SKIP_MISSING(
                "needs tests/support/failwrite preloaded (ctest does it) to refuse O_TMPFILE");
        if (named) {
            qputenv("FAILWRITE_DIR", folder().toLocal8Bit());
            qputenv("FAILWRITE_NO_TMPFILE", "1");
        }
    }
    void requireShim()
    {
        if (!m_shim)
            PE_SKIP_MISSING(
                "needs tests/support/failwrite preloaded (ctest does it) to make writes fail");
        qputenv("FAILWRITE_DIR", folder().toLocal8Bit());
    }
    static AtomicFile::Method expectedMethod(bool named)
    {
        return named ? AtomicFile::Method::NamedTemporary : AtomicFile::Method::UnnamedTemporary;
    }
    static void addMethods()
    {
        QTest::addColumn<bool>("named");
        QTest::addRow("unnamed temporary") << false;
        QTest::addRow("named temporary") << true;
    }

private slots:
    void initTestCase()
    {
        m_shim = dlsym(RTLD_DEFAULT, "failwrite_loaded") != nullptr;
        m_reset = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "failwrite_reset"));
        if (!m_shim)
            qWarning("failwrite is not preloaded: the injected-failure cases will skip");
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void cleanup()
    {
        for (const char *name : injectionVariables)
            qunsetenv(name);
        if (m_reset)
            m_reset();
        QFile::setPermissions(m_dir->path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                 QFileDevice::ExeOwner);
        m_dir.reset();
    }

    void nothingAppearsBeforeCommit_data() { addMethods(); }
    void nothingAppearsBeforeCommit()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString target = path(QStringLiteral("out.bin"));
        const QByteArray first = randomBytes(3 << 20), second = randomBytes(1000);
        AtomicFile file(target);
        QString error;
        QVERIFY2(file.open(&error), qPrintable(error));
        QCOMPARE(file.method(), expectedMethod(named));
        QVERIFY(file.write(first, &error));
        QVERIFY(file.write(second.constData(), second.size(), &error));
        QCOMPARE(file.bytesWritten(), first.size() + second.size());
        QVERIFY(!QFileInfo::exists(target));
        const QStringList during = entries(m_dir->path());
        if (named) {
            QCOMPARE(during.size(), 1); // the hidden temporary, beside the target
            QVERIFY2(during[0].startsWith(QLatin1String(".out.bin.")) &&
                         during[0].endsWith(QLatin1String(".part")),
                     qPrintable(during[0]));
        } else {
            QCOMPARE(during, QStringList());
        }
        QVERIFY2(file.commit(&error), qPrintable(error));
        QCOMPARE(readAll(target), first + second);
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("out.bin")});
    }

    void replacesOnlyOnCommit_data() { addMethods(); }
    void replacesOnlyOnCommit()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString target = path(QStringLiteral("existing.txt"));
        writeRaw(target, "precious");
        AtomicFile file(target);
        QString error;
        QVERIFY(file.open(&error));
        QVERIFY(file.write(QByteArray("replacement"), &error));
        QCOMPARE(readAll(target), QByteArray("precious"));
        QVERIFY(file.commit(&error));
        QCOMPARE(readAll(target), QByteArray("replacement"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("existing.txt")});
    }

    void cancelKeepsWhatWasThere_data() { addMethods(); }
    void cancelKeepsWhatWasThere()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString existing = path(QStringLiteral("existing.txt"));
        writeRaw(existing, "precious");
        QString error;
        for (const QString &target : {existing, path(QStringLiteral("new.txt"))}) {
            AtomicFile file(target);
            QVERIFY(file.open(&error));
            QVERIFY(file.write(randomBytes(100000), &error));
            file.cancel();
            QVERIFY(!file.isOpen());
            QVERIFY(!file.commit(&error)); // nothing left to commit
            QVERIFY2(error.startsWith(QLatin1String("cannot write ") + target), qPrintable(error));
        }
        QCOMPARE(readAll(existing), QByteArray("precious"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("existing.txt")});
    }

    void destructionWithoutCommit_data() { addMethods(); }
    void destructionWithoutCommit()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString existing = path(QStringLiteral("existing.txt"));
        writeRaw(existing, "precious");
        QString error;
        for (const QString &target : {existing, path(QStringLiteral("new.txt"))}) {
            AtomicFile file(target);
            QVERIFY(file.open(&error));
            QVERIFY(file.write(randomBytes(4096), &error));
        }
        QCOMPARE(readAll(existing), QByteArray("precious"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("existing.txt")});
    }

    // A full disk, a quota, a failing disk: at write() the error names the file and the cause;
    // the file already there is untouched and no temporary remains.
    void failedWriteKeepsWhatWasThere_data()
    {
        QTest::addColumn<bool>("named");
        QTest::addColumn<QByteArray>("err");
        QTest::addColumn<QString>("cause");
        QTest::addColumn<int>("budget");
        for (const bool named : {false, true}) {
            const char *method = named ? "named" : "unnamed";
            QTest::addRow("%s, full disk", method)
                << named << QByteArray("ENOSPC") << QStringLiteral("No space left on device")
                << 5000;
            QTest::addRow("%s, full disk at the first byte", method)
                << named << QByteArray("ENOSPC") << QStringLiteral("No space left on device") << 0;
            QTest::addRow("%s, quota", method)
                << named << QByteArray("EDQUOT") << QStringLiteral("Disk quota exceeded") << 5000;
            QTest::addRow("%s, disk error", method)
                << named << QByteArray("EIO") << QStringLiteral("Input/output error") << 5000;
        }
    }
    void failedWriteKeepsWhatWasThere()
    {
        QFETCH(bool, named);
        QFETCH(QByteArray, err);
        QFETCH(QString, cause);
        QFETCH(int, budget);
        requireShim();
        useMethod(named);
        const QString target = path(QStringLiteral("existing.npy"));
        writeRaw(target, "precious");
        qputenv("FAILWRITE_BUDGET", QByteArray::number(budget));
        qputenv("FAILWRITE_ERRNO", err);
        AtomicFile file(target);
        QString error;
        QVERIFY2(file.open(&error), qPrintable(error));
        QVERIFY(!file.write(randomBytes(20000), &error));
        if (messagesInEnglish())
            QCOMPARE(error, QStringLiteral("cannot write %1: %2").arg(target, cause));
        else
            QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: ").arg(target)),
                     qPrintable(error));
        QVERIFY(!file.isOpen());
        QVERIFY(!file.commit(&error));
        QCOMPARE(readAll(target), QByteArray("precious"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("existing.npy")});
    }

    // Short writes are continued and EINTR retried: every byte arrives.
    void shortAndInterruptedWritesAreContinued_data() { addMethods(); }
    void shortAndInterruptedWritesAreContinued()
    {
        QFETCH(bool, named);
        requireShim();
        useMethod(named);
        qputenv("FAILWRITE_MAX_WRITE", "777");
        qputenv("FAILWRITE_EINTR_EVERY", "3");
        const QString target = path(QStringLiteral("pieces.bin"));
        const QByteArray bytes = randomBytes(200000);
        AtomicFile file(target);
        QString error;
        QVERIFY2(file.open(&error) && file.write(bytes, &error) && file.commit(&error),
                 qPrintable(error));
        QCOMPARE(readAll(target), bytes);
    }

    // Delayed allocation (and NFS) report a full disk only when the data is flushed.
    void failedFlushKeepsWhatWasThere_data() { addMethods(); }
    void failedFlushKeepsWhatWasThere()
    {
        QFETCH(bool, named);
        requireShim();
        useMethod(named);
        const QString target = path(QStringLiteral("existing.txt"));
        writeRaw(target, "precious");
        qputenv("FAILWRITE_FSYNC_ERRNO", "ENOSPC");
        AtomicFile file(target);
        QString error;
        QVERIFY(file.open(&error));
        QVERIFY(file.write(randomBytes(10000), &error));
        QVERIFY(!file.commit(&error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: ").arg(target)),
                 qPrintable(error));
        if (messagesInEnglish())
            QVERIFY2(error.endsWith(QLatin1String("No space left on device")), qPrintable(error));
        QCOMPARE(readAll(target), QByteArray("precious"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("existing.txt")});
    }

    // Root ignores permission bits, so a refused open is injected there; others get the real one.
    void permissionDenied_data() { addMethods(); }
    void permissionDenied()
    {
        QFETCH(bool, named);
        const QString target = path(QStringLiteral("existing.txt"));
        writeRaw(target, "precious");
        QString error;
        if (::geteuid() != 0) {
            QVERIFY(QFile::setPermissions(m_dir->path(),
                                          QFileDevice::ReadOwner | QFileDevice::ExeOwner));
            AtomicFile file(target);
            QVERIFY(!file.open(&error));
            QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: the folder ").arg(target)),
                     qPrintable(error));
            if (messagesInEnglish())
                QVERIFY2(error.endsWith(QLatin1String("is not writable (Permission denied)")),
                         qPrintable(error));
            QFile::setPermissions(m_dir->path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                     QFileDevice::ExeOwner);
        }
        requireShim();
        useMethod(named);
        qputenv("FAILWRITE_OPEN_ERRNO", "EACCES");
        AtomicFile file(target);
        QVERIFY(!file.open(&error));
        if (messagesInEnglish())
            QCOMPARE(error, QStringLiteral("cannot write %1: Permission denied").arg(target));
        QVERIFY(!file.write(QByteArray("x"), &error));
        QCOMPARE(readAll(target), QByteArray("precious"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("existing.txt")});
    }

    // A read-only file is not replaced behind the user's back.
    void readOnlyFileIsRefused()
    {
        if (::geteuid() == 0)
            QSKIP("root may write any file, so there is no read-only file to refuse");
        const QString target = path(QStringLiteral("readonly.txt"));
        writeRaw(target, "precious");
        QVERIFY(QFile::setPermissions(target, QFileDevice::ReadOwner));
        AtomicFile file(target);
        QString error;
        QVERIFY(!file.open(&error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot write %1: ").arg(target)),
                 qPrintable(error));
        QCOMPARE(readAll(target), QByteArray("precious"));
    }

    void keepsPermissions_data() { addMethods(); }
    void keepsPermissions()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString target = path(QStringLiteral("script.sh"));
        writeRaw(target, "old");
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0750) == 0);
        QString error;
        QVERIFY(writeFileAtomically(target, "new", &error));
        struct stat st;
        QCOMPARE(::stat(QFile::encodeName(target).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0750));
        // A new file gets what open(2) gives: 0666 less the umask.
        const mode_t mask = ::umask(0);
        ::umask(mask);
        const QString fresh = path(QStringLiteral("fresh.txt"));
        QVERIFY(writeFileAtomically(fresh, "new", &error));
        QCOMPARE(::stat(QFile::encodeName(fresh).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0666 & ~mask));
    }

    // Writing through a symbolic link updates the file it points to; the link stays a link.
    void followsSymbolicLinks_data() { addMethods(); }
    void followsSymbolicLinks()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString real = path(QStringLiteral("real.txt"));
        const QString link = path(QStringLiteral("link.txt"));
        writeRaw(real, "old");
        QVERIFY(QFile::link(real, link));
        QString error;
        QVERIFY2(writeFileAtomically(link, "new", &error), qPrintable(error));
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(readAll(real), QByteArray("new"));
        QCOMPARE(entries(m_dir->path()),
                 (QStringList{QStringLiteral("link.txt"), QStringLiteral("real.txt")}));
    }

    void pathProblems_data()
    {
        QTest::addColumn<QString>("name"); // relative to the temporary folder unless absolute
        QTest::addColumn<QString>("reason");
        QTest::addRow("missing folder")
            << QStringLiteral("/nonexistent-pescope-folder/x.npy")
            << QStringLiteral("the folder /nonexistent-pescope-folder does not exist");
        QTest::addRow("folder is a file")
            << QStringLiteral("blocker/x.npy") << QStringLiteral("blocker is not a folder");
        QTest::addRow("a folder") << QStringLiteral("sub") << QStringLiteral("it is a folder");
        // procfs refuses new files even to root; others are refused by its permissions first.
        QTest::addRow("file system without new files")
            << QStringLiteral("/proc/pescope-test.npy")
            << (::geteuid() == 0 ? QStringLiteral("the folder /proc does not accept new files")
                                 : QStringLiteral("the folder /proc is not writable"));
    }
    void pathProblems()
    {
        QFETCH(QString, name);
        QFETCH(QString, reason);
        writeRaw(path(QStringLiteral("blocker")), "a file where a folder is expected");
        QVERIFY(QDir(m_dir->path()).mkdir(QStringLiteral("sub")));
        const QStringList before = entries(m_dir->path());
        const QString target = name.startsWith(QLatin1Char('/')) ? name : path(name);
        const QString expected = QStringLiteral("cannot write %1: ").arg(target);
        const QString problem = outputPathProblem(target);
        AtomicFile file(target);
        QString error;
        QVERIFY(!file.open(&error));
        QVERIFY2(error.startsWith(expected) && error.contains(reason), qPrintable(error));
        QVERIFY(!error.contains(QLatin1Char('\n')));
        if (!problem.isEmpty())
            QCOMPARE(problem, error);
        QVERIFY(!writeFileAtomically(target, "x", &error));
        QVERIFY2(error.contains(reason), qPrintable(error));
        QCOMPARE(entries(m_dir->path()), before);
    }

    void emptyPath()
    {
        QString error;
        QVERIFY(!writeFileAtomically(QString(), "x", &error));
        QVERIFY(!outputPathProblem(QString()).isEmpty());
    }

    // A muxer writes a placeholder, goes on, then seeks back to fill it in (MP4's mdat size).
    void seekOverwritesInPlace_data() { addMethods(); }
    void seekOverwritesInPlace()
    {
        QFETCH(bool, named);
        useMethod(named);
        const QString target = path(QStringLiteral("movie.mp4"));
        AtomicFile file(target);
        QString error;
        QVERIFY2(file.open(&error), qPrintable(error));
        QVERIFY(file.write(QByteArray("0000 header"), &error));
        QVERIFY(file.write(QByteArray(" body"), &error));
        QVERIFY2(file.seek(0, &error), qPrintable(error));
        QVERIFY(file.write(QByteArray("1234"), &error));
        QVERIFY(file.seek(16, &error)); // back at the end: appending goes on from there
        QVERIFY(file.write(QByteArray(" tail"), &error));
        QVERIFY(!QFileInfo::exists(target));
        QVERIFY2(file.commit(&error), qPrintable(error));
        QCOMPARE(readAll(target), QByteArray("1234 header body tail"));
    }

    // A device or pipe cannot go back: the message says so and names the file.
    void seekOnDeviceIsRefused()
    {
        AtomicFile file(QStringLiteral("/dev/null"));
        QString error;
        QVERIFY2(file.open(&error), qPrintable(error));
        QVERIFY(!file.seek(0, &error));
        QVERIFY2(error.startsWith(QLatin1String("cannot write /dev/null: a device or pipe")),
                 qPrintable(error));
    }

    // Devices and pipes cannot be replaced: they are written in place (the CLI's /dev/null and
    // /dev/stdout rely on it).
    void devicesAreWrittenInPlace()
    {
        QVERIFY(AtomicFile::writesInPlace(QStringLiteral("/dev/null")));
        QVERIFY(AtomicFile::writesInPlace(QStringLiteral("/dev/stdout")));
        QVERIFY(AtomicFile::writesInPlace(QStringLiteral("/proc/self/fd/1")));
        QVERIFY(!AtomicFile::writesInPlace(path(QStringLiteral("new.npy"))));
        QVERIFY(!AtomicFile::writesInPlace(m_dir->path()));
        QCOMPARE(outputPathProblem(QStringLiteral("/dev/null")), QString());
        AtomicFile file(QStringLiteral("/dev/null"));
        QString error;
        QVERIFY2(file.open(&error), qPrintable(error));
        QCOMPARE(file.method(), AtomicFile::Method::Direct);
        QVERIFY(file.write(randomBytes(100000), &error));
        QVERIFY2(file.commit(&error), qPrintable(error));
        QVERIFY(QFileInfo(QStringLiteral("/dev/null")).exists());
    }

    void fifoIsWrittenInPlace()
    {
        const QString fifo = path(QStringLiteral("pipe"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        // The reading end first, so that opening the writing end does not wait.
        const int reader = ::open(QFile::encodeName(fifo).constData(), O_RDONLY | O_NONBLOCK);
        QVERIFY(reader >= 0);
        AtomicFile file(fifo);
        QString error;
        QVERIFY2(file.open(&error), qPrintable(error));
        QCOMPARE(file.method(), AtomicFile::Method::Direct);
        QVERIFY(file.write(QByteArray("through the pipe\n"), &error));
        QVERIFY(file.commit(&error));
        char buffer[64] = {};
        const ssize_t n = ::read(reader, buffer, sizeof buffer);
        ::close(reader);
        QCOMPARE(QByteArray(buffer, int(n)), QByteArray("through the pipe\n"));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("pipe")});
    }

    // More files open at once than the signal-cleanup table has slots: all still work.
    void manyFilesAtOnce_data() { addMethods(); }
    void manyFilesAtOnce()
    {
        QFETCH(bool, named);
        useMethod(named);
        std::vector<std::unique_ptr<AtomicFile>> files;
        QString error;
        for (int i = 0; i < 100; ++i) {
            files.push_back(std::make_unique<AtomicFile>(path(QStringLiteral("f%1").arg(i))));
            QVERIFY2(files.back()->open(&error), qPrintable(error));
            QVERIFY(files.back()->write(QByteArray::number(i), &error));
        }
        for (int i = 0; i < 100; ++i)
            QVERIFY2(i % 2 == 0 ? files[i]->commit(&error) : (files[i]->cancel(), true),
                     qPrintable(error));
        files.clear();
        QCOMPARE(entries(m_dir->path()).size(), 50);
        QCOMPARE(readAll(path(QStringLiteral("f42"))), QByteArray("42"));
    }

    void writeFileAtomicallyFailure()
    {
        requireShim();
        qputenv("FAILWRITE_BUDGET", "10");
        const QString target = path(QStringLiteral("session.json"));
        QString error;
        QVERIFY(!writeFileAtomically(target, randomBytes(100), &error));
        if (messagesInEnglish())
            QCOMPARE(error, QStringLiteral("cannot write %1: No space left on device").arg(target));
        QCOMPARE(entries(m_dir->path()), QStringList());
    }

    void errnoTextHasWords()
    {
        for (const int err : {ENOSPC, EACCES, EROFS, EDQUOT, EIO})
            QVERIFY(!errnoText(err).isEmpty());
        if (!messagesInEnglish())
            QSKIP("the C library's messages are not in English here");
        QCOMPARE(errnoText(ENOSPC), QStringLiteral("No space left on device"));
        QCOMPARE(errnoText(EACCES), QStringLiteral("Permission denied"));
        QCOMPARE(errnoText(EROFS), QStringLiteral("Read-only file system"));
    }

    // StagingFolder (an HTML deck's, issue 45): removed with its files unless released; an
    // error names what the user named, with the cause.
    void stagingFolderIsRemovedUnlessReleased()
    {
        const QString path = m_dir->filePath(QStringLiteral(".deck.partial"));
        {
            StagingFolder staging(path);
            QString error;
            QVERIFY2(staging.create(QStringLiteral("deck"), &error), qPrintable(error));
            QFile file(staging.filePath(QStringLiteral("a.svg")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("<svg/>");
            file.close();
            QVERIFY(QFile::link(QStringLiteral("/etc/hostname"),
                                staging.filePath(QStringLiteral(".link"))));
        }
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(QFileInfo::exists(QStringLiteral("/etc/hostname")) ||
                !QFileInfo(QStringLiteral("/etc")).exists());
        {
            StagingFolder staging(path);
            QString error;
            QVERIFY(staging.create(QStringLiteral("deck"), &error));
            StagingFolder twice(path);
            QVERIFY(!twice.create(QStringLiteral("my deck"), &error));
            QVERIFY2(error.startsWith(QStringLiteral("cannot write my deck: ")) &&
                         !error.contains(QStringLiteral("partial")),
                     qPrintable(error));
            staging.release();
        }
        QVERIFY(QFileInfo(path).isDir());
        QVERIFY(QDir(path).removeRecursively());
    }

    // A deck's list of files is trusted only for names the deck writes: a hostile or mistaken
    // pescope-deck.txt cannot make an export remove the user's files.
    void deckManifestOwnsOnlyDeckNames()
    {
        const QRegularExpression names(QRegularExpression::anchoredPattern(
            QStringLiteral("index\\.html|step-[0-9]{2}\\.svg")));
        const QByteArray text = "A deck.\n\nindex.html\nstep-01.svg\r\nnotes.txt\n../x\n"
                                "/etc/passwd\nstep-01.svg.bak\n";
        QCOMPARE(deckManifestNames(text, names, {}),
                 (QStringList{QStringLiteral("index.html"), QStringLiteral("step-01.svg")}));
        // A pescope before the list: the deck's own names among those present.
        QCOMPARE(deckManifestNames("An HTML deck written by pescope 0.1.0.\n", names,
                                   {QStringLiteral("index.html"), QStringLiteral("notes.txt"),
                                    QStringLiteral("step-02.svg")}),
                 (QStringList{QStringLiteral("index.html"), QStringLiteral("step-02.svg")}));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
