// `pescope lesson export --out FOLDER` (issues 45 and 46): an HTML deck never touches a file it
// did not write. A re-export keeps what the user put beside the deck (the lesson file, notes)
// and removes only the earlier deck's own files (its pescope-deck.txt lists them); a symbolic
// link to a folder is written through and stays a link; a folder holding anything else is
// refused naming the file, before any work (exit 2), as are a missing parent and a file; a new
// folder (with or without the slash) and an empty one are written. A full disk (a real tmpfs, or
// tests/support/failwrite), a refused write and SIGINT / SIGTERM / SIGHUP leave no staging folder
// and the earlier deck as it was; errors name the deck, never the hidden staging folder, and keep
// the cause.
#include "failwritetestutil.h"
#include "lessontestutil.h"
#include "testutil.h"

#include "state/lessonfile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>

#include <sys/mount.h>
#include <unistd.h>

using namespace pe;
using namespace pe::test;
using namespace Qt::StringLiterals;

namespace {

LessonStep stillStep(const QString &title, const QString &view, const QString &preset)
{
    return LessonStep{.title = title,
                      .caption = u"A caption."_s,
                      .view = view,
                      .animation = std::nullopt,
                      .state = presetState(preset)};
}

// `steps` still steps (waves, decay, waves, ...): SVG figures only.
Lesson stillLesson(int steps)
{
    Lesson lesson;
    lesson.title = u"Deck check"_s;
    for (int i = 0; i < steps; ++i)
        lesson.steps.append(i % 2 == 0
                                ? stillStep(u"Waves %1"_s.arg(i + 1), u"waves"_s, u"geron-16-9"_s)
                                : stillStep(u"Decay %1"_s.arg(i + 1), u"decay"_s, u"rope-decay"_s));
    return lesson;
}

// Every entry under `folder` (hidden ones included, links not followed), relative, sorted.
QStringList tree(const QString &folder)
{
    QStringList out;
    QDirIterator it(folder, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        out.append(QDir(folder).relativeFilePath(it.next()));
    out.sort();
    return out;
}

// Each file's name and a digest of its bytes (links by their target's name).
QMap<QString, QByteArray> snapshot(const QString &folder)
{
    QMap<QString, QByteArray> out;
    for (const QString &name : tree(folder)) {
        const QFileInfo info(QDir(folder).filePath(name));
        if (info.isSymLink()) {
            out.insert(name, "-> " + info.symLinkTarget().toUtf8());
            continue;
        }
        QFile file(info.filePath());
        if (info.isFile() && file.open(QIODevice::ReadOnly))
            out.insert(name, QCryptographicHash::hash(file.readAll(), QCryptographicHash::Md5));
        else
            out.insert(name, "dir");
    }
    return out;
}

void writeText(const QString &path, const QByteArray &text)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(text), text.size());
}

QByteArray readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The manifest's list of files (after its first empty line).
QStringList manifestNames(const QString &deck)
{
    const QString text = QString::fromUtf8(readText(deck + u"/pescope-deck.txt"_s));
    QStringList names = text.section(u"\n\n"_s, 1).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    names.sort();
    return names;
}

QStringList deckFilesOf(int steps)
{
    QStringList names{u"index.html"_s};
    for (int i = 1; i <= steps; ++i)
        names.append(u"step-%1.svg"_s.arg(i, 2, 10, QLatin1Char('0')));
    names.sort();
    return names;
}

RunResult runWith(const QStringList &args, const QProcessEnvironment &env)
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(PE_EXECUTABLE), args);
    return finishRun(process);
}

} // namespace

class TestLessonDeck : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_two, m_three; // lessons of 2 and 3 still steps
    QString m_mount;        // a mounted tmpfs, unmounted in cleanup()

    QString fresh(const QString &name)
    {
        static int counter = 0;
        const QString dir = m_dir.filePath(u"case%1"_s.arg(++counter));
        [&] { QVERIFY(QDir().mkpath(dir)); }();
        return QDir(dir).filePath(name);
    }

    RunResult exportTo(const QString &lesson, const QString &out)
    {
        return runPescope({u"lesson"_s, u"export"_s, lesson, u"--out"_s, out});
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_two = m_dir.filePath(u"two.pescope-lesson.json"_s);
        m_three = m_dir.filePath(u"three.pescope-lesson.json"_s);
        QString error;
        QVERIFY2(saveLesson(stillLesson(2), m_two, &error), qPrintable(error));
        QVERIFY2(saveLesson(stillLesson(3), m_three, &error), qPrintable(error));
    }

    void cleanup()
    {
        if (!m_mount.isEmpty()) {
            if (::umount(QFile::encodeName(m_mount).constData()) != 0)
                ::umount2(QFile::encodeName(m_mount).constData(), MNT_DETACH);
            m_mount.clear();
        }
    }

    // The case: the lesson file and notes put into the deck's folder survive a
    // re-export; the earlier deck's step no longer written is removed; the list is the new one.
    void reExportKeepsTheUsersFiles()
    {
        const QString deck = fresh(u"deck"_s);
        RunResult run = exportTo(m_three, deck + u"/"_s); // a new folder, named with the slash
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(manifestNames(deck), deckFilesOf(3));
        QVERIFY(QFile::copy(m_two, deck + u"/lecture.pescope-lesson.json"_s));
        writeText(deck + u"/notes.txt"_s, "my notes\n");
        run = exportTo(m_two, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(tree(deck),
                 (QStringList{u"index.html"_s, u"lecture.pescope-lesson.json"_s, u"notes.txt"_s,
                              u"pescope-deck.txt"_s, u"step-01.svg"_s, u"step-02.svg"_s}));
        QCOMPARE(readText(deck + u"/notes.txt"_s), QByteArray("my notes\n"));
        QCOMPARE(readText(deck + u"/lecture.pescope-lesson.json"_s), readText(m_two));
        QCOMPARE(manifestNames(deck), deckFilesOf(2));
        QVERIFY(readText(deck + u"/index.html"_s).contains("Decay 2"));
        QVERIFY(!tree(QFileInfo(deck).absolutePath()).join(u' ').contains(u"partial"_s));
    }

    // A deck of a pescope before the list (its pescope-deck.txt one sentence): its own files
    // are the deck's names among those there; the user's stay.
    void deckOfAnEarlierPescopeIsReplaced()
    {
        const QString deck = fresh(u"deck"_s);
        QVERIFY(QDir().mkpath(deck));
        writeText(deck + u"/pescope-deck.txt"_s,
                  "An HTML deck written by pescope 0.1.0 (`pescope lesson export`); open "
                  "index.html.\n");
        for (const QString &name : {u"index.html"_s, u"step-01.svg"_s, u"step-02.png"_s,
                                    u"step-02.webm"_s, u"step-03.svg"_s, u"notes.txt"_s})
            writeText(deck + u"/"_s + name, "old");
        const RunResult run = exportTo(m_two, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(tree(deck), (QStringList{u"index.html"_s, u"notes.txt"_s, u"pescope-deck.txt"_s,
                                          u"step-01.svg"_s, u"step-02.svg"_s}));
        QCOMPARE(readText(deck + u"/notes.txt"_s), QByteArray("old"));
    }

    // A link to a folder: the deck goes into the folder, the link stays, the user's file there
    // stays, and nothing named after the link or the staging folder is left.
    void symbolicLinkIsWrittenThrough()
    {
        const QString real = fresh(u"real"_s);
        const QString parent = QFileInfo(real).absolutePath();
        RunResult run = exportTo(m_three, real);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        writeText(real + u"/notes.txt"_s, "keep\n");
        const QString link = parent + u"/link"_s;
        QVERIFY(QFile::link(real, link));
        run = exportTo(m_two, link);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(readText(real + u"/notes.txt"_s), QByteArray("keep\n"));
        QCOMPARE(manifestNames(real), deckFilesOf(2));
        QCOMPARE(QDir(parent).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden |
                                        QDir::System),
                 (QStringList{u"link"_s, u"real"_s}));
        QVERIFY(!tree(real).join(u' ').contains(u"partial"_s));
    }

    // An earlier deck's file turned into a link to someone else's file: removed as a link, the
    // file it names untouched.
    void staleLinkIsRemovedNotFollowed()
    {
        const QString deck = fresh(u"deck"_s);
        const QString victim = QFileInfo(deck).absolutePath() + u"/victim.txt"_s;
        writeText(victim, "not the deck's\n");
        RunResult run = exportTo(m_three, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(QFile::remove(deck + u"/step-03.svg"_s));
        QVERIFY(QFile::link(victim, deck + u"/step-03.svg"_s));
        run = exportTo(m_two, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(!QFileInfo(deck + u"/step-03.svg"_s).exists());
        QVERIFY(!QFileInfo(deck + u"/step-03.svg"_s).isSymLink());
        QCOMPARE(readText(victim), QByteArray("not the deck's\n"));
    }

    // Refused before any work, exit 2, naming the file; nothing changes.
    void foreignFilesAreRefusedByName()
    {
        const QString other = fresh(u"notes"_s);
        QVERIFY(QDir().mkpath(other));
        writeText(other + u"/mine.txt"_s, "keep me");
        const auto before = snapshot(QFileInfo(other).absolutePath());
        RunResult run = exportTo(m_two, other);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("holds other files") && run.err.contains("mine.txt"),
                 run.err.constData());
        QVERIFY2(!run.err.contains("step 1 /"), run.err.constData()); // no step was rendered
        QCOMPARE(snapshot(QFileInfo(other).absolutePath()), before);

        // A deck's folder where the user put a file the new deck would write: refused too.
        const QString deck = fresh(u"deck"_s);
        run = exportTo(m_two, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        writeText(deck + u"/step-03.svg"_s, "<svg>mine</svg>");
        const auto deckBefore = snapshot(deck);
        run = exportTo(m_three, deck);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("step-03.svg is not a file an earlier deck wrote"),
                 run.err.constData());
        QCOMPARE(snapshot(deck), deckBefore);
    }

    // issue 46: the docs' `--out deck/` (a new folder), `--out deck` and an existing empty
    // folder are written; what cannot be is refused before any work.
    void newAndEmptyFoldersAreWritten()
    {
        for (const QString &suffix : {u"/"_s, QString()}) {
            const QString deck = fresh(u"deck"_s);
            const RunResult run = exportTo(m_two, deck + suffix);
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QCOMPARE(manifestNames(deck), deckFilesOf(2));
        }
        const QString empty = fresh(u"empty"_s);
        QVERIFY(QDir().mkpath(empty));
        const RunResult run = exportTo(m_two, empty + u"/"_s);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(tree(empty), (QStringList{u"index.html"_s, u"pescope-deck.txt"_s, u"step-01.svg"_s,
                                           u"step-02.svg"_s}));
    }

    void outputCheckedBeforeWork_data()
    {
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("message");
        QTest::addRow("pdf in a missing folder")
            << u"/nonexistent-pescope/a.pdf"_s
            << u"the folder /nonexistent-pescope does not exist"_s;
        QTest::addRow("deck in a missing folder")
            << u"/nonexistent-pescope/deck/"_s
            << u"the folder /nonexistent-pescope does not exist"_s;
        QTest::addRow("deck over a file") << u"FILE"_s << u"is a file; an HTML deck is a folder"_s;
        QTest::addRow("empty") << QString() << u"--out is empty"_s;
    }
    void outputCheckedBeforeWork()
    {
        QFETCH(QString, out);
        QFETCH(QString, message);
        if (out == u"FILE")
            out = m_two;
        const RunResult run = exportTo(m_two, out);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY2(!run.err.contains("step 1 /"), run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);
    }

    // failwrite in the deck's parent: the disk fills halfway, or opening a file is refused. Exit
    // 1, the deck's file and the cause named, no staging folder left, the earlier deck as it was.
    void injectedFailures_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("cause");
        QTest::addColumn<bool>("earlier"); // over an earlier deck
        for (const bool earlier : {false, true}) {
            const char *where = earlier ? "over a deck" : "new";
            QTest::addRow("full disk, %s", where)
                << u"FAILWRITE_BUDGET"_s << u"150000"_s << u"No space left on device"_s << earlier;
            QTest::addRow("permission denied, %s", where)
                << u"FAILWRITE_OPEN_ERRNO"_s << u"EACCES"_s << u"Permission denied"_s << earlier;
        }
    }
    void injectedFailures()
    {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, cause);
        QFETCH(bool, earlier);
        const QString deck = fresh(u"deck"_s);
        const QString parent = QFileInfo(deck).absolutePath();
        if (earlier) {
            const RunResult run = exportTo(m_two, deck);
            QVERIFY2(run.exitCode == 0, run.err.constData());
            writeText(deck + u"/notes.txt"_s, "mine");
        }
        const auto before = snapshot(parent);
        const RunResult run = runWith({u"lesson"_s, u"export"_s, m_three, u"--out"_s, deck},
                                      failwriteEnvironment(parent, {{variable, value}}));
        QCOMPARE(run.exitCode, 1);
        const QString err = QString::fromUtf8(run.err).trimmed();
        QVERIFY2(err.section(u'\n', -1).contains(u"cannot write "_s + deck) && err.contains(cause),
                 qPrintable(err));
        QVERIFY2(!err.contains(u"partial"_s), qPrintable(err));
        QCOMPARE(snapshot(parent), before);
    }

    // An animated step's video is written by the video encoder into the staging folder: its
    // failure names the deck's file too, never the staging folder.
    void videoFailureNamesTheDeck()
    {
        Lesson lesson;
        lesson.title = u"Moving"_s;
        lesson.steps.append(LessonStep{
            .title = u"Fig 16-9 moving"_s,
            .caption = QString(),
            .view = u"waves+heatmap"_s,
            .animation =
                LessonAnimation{.parameter = u"position"_s, .from = 22.0, .to = 27.0, .frames = 6},
            .state = presetState(u"geron-16-9"_s)});
        const QString path = fresh(u"moving.pescope-lesson.json"_s);
        QString error;
        QVERIFY(saveLesson(lesson, path, &error));
        const QString deck = fresh(u"deck"_s);
        const QString parent = QFileInfo(deck).absolutePath();
        // Measured once: the poster fits the budget, the video does not.
        RunResult run = exportTo(path, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const qint64 poster = QFileInfo(deck + u"/step-01.png"_s).size();
        QVERIFY(poster > 0 && QFileInfo(deck + u"/step-01.webm"_s).size() > 100);
        QVERIFY(QDir(deck).removeRecursively());
        run = runWith(
            {u"lesson"_s, u"export"_s, path, u"--out"_s, deck},
            failwriteEnvironment(parent, {{u"FAILWRITE_BUDGET"_s, QString::number(poster + 100)}}));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(u"its video: cannot write %1/step-01.webm: No space left on "
                                  u"device"_s.arg(deck)
                                      .toUtf8()),
                 run.err.constData());
        QVERIFY2(!run.err.contains("partial"), run.err.constData());
        QCOMPARE(tree(parent), QStringList()); // (the lesson is in a folder of its own)
    }

    // PDF slides stream into their file (issue 45): a disk that fills, a refused write are exit
    // 1 naming the file and the cause, and leave nothing (an earlier file as it was).
    void pdfWriteFailures_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("cause");
        QTest::addRow("full disk")
            << u"FAILWRITE_BUDGET"_s << u"20000"_s << u"No space left on device"_s;
        QTest::addRow("permission denied")
            << u"FAILWRITE_OPEN_ERRNO"_s << u"EACCES"_s << u"Permission denied"_s;
        QTest::addRow("flush fails")
            << u"FAILWRITE_FSYNC_ERRNO"_s << u"EIO"_s << u"Input/output error"_s;
    }
    void pdfWriteFailures()
    {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, cause);
        const QString pdf = fresh(u"slides.pdf"_s);
        const QString parent = QFileInfo(pdf).absolutePath();
        writeText(pdf, "an earlier export");
        const RunResult run = runWith({u"lesson"_s, u"export"_s, m_three, u"--out"_s, pdf},
                                      failwriteEnvironment(parent, {{variable, value}}));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.trimmed().split('\n').constLast() ==
                     u"pescope lesson: cannot write %1: %2"_s.arg(pdf, cause).toUtf8(),
                 run.err.constData());
        QCOMPARE(tree(parent), QStringList{u"slides.pdf"_s});
        QCOMPARE(readText(pdf), QByteArray("an earlier export"));
    }

    // A real full disk: a 400 KiB tmpfs holds a 2-step deck (about 200 KB), not a second copy
    // of a 3-step one beside it (needs root or CAP_SYS_ADMIN; skipped otherwise).
    void realFullDisk()
    {
        const QString mount = fresh(u"tmpfs"_s);
        QVERIFY(QDir().mkpath(mount));
        if (::mount("tmpfs", QFile::encodeName(mount).constData(), "tmpfs", MS_NOSUID | MS_NODEV,
                    "size=400k,mode=0700") != 0)
            QSKIP(qPrintable(u"cannot mount a tmpfs here (%1); injectedFailures covers the same "
                             u"paths"_s.arg(QString::fromLocal8Bit(strerror(errno)))));
        m_mount = mount;
        const QString deck = mount + u"/deck"_s;
        RunResult run = exportTo(m_two, deck);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        writeText(deck + u"/notes.txt"_s, "mine");
        const auto before = snapshot(mount);
        run = exportTo(m_three, deck);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(u"cannot write %1/"_s.arg(deck).toUtf8()) &&
                     run.err.contains("No space left on device") && !run.err.contains("partial"),
                 run.err.constData());
        QCOMPARE(snapshot(mount), before);
        // A new deck that does not fit leaves nothing at all.
        QVERIFY(QDir(deck).removeRecursively());
        writeText(mount + u"/filler"_s, QByteArray(250000, 'x'));
        run = exportTo(m_two, deck);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("No space left on device"), run.err.constData());
        QCOMPARE(tree(mount), QStringList{u"filler"_s});
    }

    // SIGINT, SIGTERM or SIGHUP while the deck is written (every write throttled) leave no
    // staging folder, and an earlier deck as it was.
    void signalMidExport_data()
    {
        QTest::addColumn<int>("sig");
        QTest::addColumn<bool>("earlier");
        for (const bool earlier : {false, true})
            for (const auto &[name, sig] :
                 {std::pair{"SIGINT", SIGINT}, std::pair{"SIGTERM", SIGTERM},
                  std::pair{"SIGHUP", SIGHUP}})
                QTest::addRow("%s, %s", name, earlier ? "over a deck" : "new") << sig << earlier;
    }
    void signalMidExport()
    {
        QFETCH(int, sig);
        QFETCH(bool, earlier);
        const QString deck = fresh(u"deck"_s);
        const QString parent = QFileInfo(deck).absolutePath();
        if (earlier) {
            const RunResult run = exportTo(m_two, deck);
            QVERIFY2(run.exitCode == 0, run.err.constData());
        }
        const auto before = snapshot(parent);
        QProcess process;
        process.setProcessEnvironment(failwriteEnvironment(
            parent, {{u"FAILWRITE_MAX_WRITE"_s, u"64"_s}, {u"FAILWRITE_DELAY_US"_s, u"2000"_s}}));
        process.start(QStringLiteral(PE_EXECUTABLE),
                      {u"lesson"_s, u"export"_s, m_three, u"--out"_s, deck});
        QVERIFY(process.waitForStarted());
        // Mid-write: a staging folder holds a file with bytes in it.
        const auto writing = [&] {
            for (const QString &name : tree(parent))
                if (name.contains(u"partial"_s) && QFileInfo(parent + u"/"_s + name).isFile() &&
                    QFileInfo(parent + u"/"_s + name).size() > 0)
                    return true;
            return false;
        };
        QElapsedTimer timer;
        timer.start();
        while (!writing() && process.state() == QProcess::Running && timer.elapsed() < 60000)
            QThread::msleep(5);
        QVERIFY2(process.state() == QProcess::Running, process.readAllStandardError().constData());
        QVERIFY2(writing(), "never started writing");
        QCOMPARE(::kill(pid_t(process.processId()), sig), 0);
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit); // died of the signal
        QCOMPARE(snapshot(parent), before);
    }
};

QTEST_GUILESS_MAIN(TestLessonDeck)
#include "tst_lessondeck.moc"
