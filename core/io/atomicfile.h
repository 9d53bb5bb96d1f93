// AtomicFile: the one way pescope writes a file. The bytes appear at the path only when commit()
// succeeds; a failure, cancel(), destruction without commit or SIGTERM / SIGINT / SIGHUP leaves
// nothing new behind and any file already there untouched.
#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

namespace pe {

class AtomicFile
{
public:
    // How the bytes reach the path: an unnamed temporary (Linux O_TMPFILE) linked into place, a
    // hidden named temporary renamed into place where the file system has no O_TMPFILE, or
    // straight through for a device or pipe (/dev/null, /dev/stdout, a FIFO), which cannot be
    // replaced and has no half-written state to clean up.
    enum class Method { UnnamedTemporary, NamedTemporary, Direct };

    explicit AtomicFile(const QString &path);
    ~AtomicFile(); // cancels unless committed
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;

    // Checks the path (outputPathProblem) and creates the temporary. Errors name the file and
    // the cause ("cannot write out/a.npy: Permission denied").
    [[nodiscard]] bool open(QString *error);
    // Every byte or an error: short writes are continued, EINTR retried. Unbuffered: each call
    // is at least one system call, so callers write in chunks.
    [[nodiscard]] bool write(const char *data, qint64 size, QString *error);
    [[nodiscard]] bool write(const QByteArray &bytes, QString *error);
    // Moves the write position to `offset` bytes from the start, for writers that go back to
    // fill in a header (the MP4 and WebM muxers). Only a temporary can seek: for a device or
    // pipe (Method::Direct) it fails with a message saying so.
    [[nodiscard]] bool seek(qint64 offset, QString *error);
    // Forces the written bytes to the disk now (commit() does it too). Call it before committing
    // another file, so that a late failure here cannot follow that other file's commit.
    [[nodiscard]] bool flush(QString *error);
    // Flushes, then makes the file appear at its path, replacing what was there (its
    // permissions are kept). On failure nothing is left at the path but what was there before.
    [[nodiscard]] bool commit(QString *error);
    // Discards everything written; nothing new is left at the path. Safe to call at any time.
    void cancel();

    bool isOpen() const { return m_fd >= 0; }
    QString path() const { return m_path; }
    Method method() const { return m_method; } // meaningful once open
    qint64 bytesWritten() const { return m_written; }

    // True when `path` names something written in place: an existing device, FIFO or socket,
    // or one of the standard-stream aliases (/dev/stdout, /dev/stderr, /dev/fd/N,
    // /proc/self/fd/N).
    static bool writesInPlace(const QString &path);

private:
    bool fail(const QString &cause, QString *error);
    bool failErrno(int err, QString *error);
    bool openDirect(QString *error);
    bool openUnnamed(const QByteArray &folder, QString *error);
    bool openNamed(const QByteArray &folder, QString *error);
    void closeFd();

    QString m_path;
    QByteArray m_target;    // the (symlink-resolved) file the commit replaces, local 8-bit
    QByteArray m_temporary; // the named temporary's path, while one exists
    int m_fd = -1;
    int m_tempSlot = -1; // the signal-cleanup slot holding m_temporary
    Method m_method = Method::UnnamedTemporary;
    qint64 m_written = 0;
    bool m_flushed = false;
    bool m_failed = false;
};

// A hidden folder whose files appear together somewhere else (an HTML deck's, moved into place
// file by file or as a whole): made new and empty by create(), and removed with every file in it
// by remove(), by destruction unless release() was called, and by SIGTERM / SIGINT / SIGHUP (the
// handler that removes AtomicFile's temporaries, after them). It holds plain files only; a
// sub-folder in it is left, and so is the folder then.
class StagingFolder
{
public:
    explicit StagingFolder(const QString &path);
    ~StagingFolder(); // remove() unless released
    StagingFolder(const StagingFolder &) = delete;
    StagingFolder &operator=(const StagingFolder &) = delete;

    // Makes the folder with `mode` (less the umask); fails when something is already at the
    // path. Errors name `shownAs` (what the user named, not this hidden folder) and the cause.
    [[nodiscard]] bool create(const QString &shownAs, QString *error, unsigned mode = 0700);
    // Its files, then itself; safe to call at any time.
    void remove();
    // The folder was moved into place (or is to be kept): no longer removed by this object or
    // on a signal.
    void release();

    QString path() const { return m_path; }
    QString filePath(const QString &name) const;

private:
    QString m_path;
    int m_slot = -1; // the signal-cleanup slot holding the folder's name
    bool m_created = false;
};

// Empty when `path` can be written: a new or existing regular file in an existing writable
// folder, or an existing writable device or pipe; else one sentence why not, naming the path.
QString outputPathProblem(const QString &path);
// Writes `bytes` to `path` through AtomicFile (all or nothing).
bool writeFileAtomically(const QString &path, const QByteArray &bytes, QString *error);
// The C library's words for an errno value ("No space left on device"), never empty.
QString errnoText(int err);

} // namespace pe
