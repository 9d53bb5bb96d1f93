#include "atomicfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pe {

namespace {

// --- Removing named temporaries on SIGTERM / SIGINT / SIGHUP --------------------------------
// An unnamed (O_TMPFILE) temporary vanishes with the process by itself; a named one must be
// unlinked. Live names sit in a fixed table the handler can read without locks or allocation.

constexpr int cleanupSlotCount = 64;
constexpr int cleanupSignals[] = {SIGTERM, SIGINT, SIGHUP};
constexpr int cleanupSignalCount = int(std::size(cleanupSignals));

// state = generation << 2 | phase; phase 0 free, 1 being filled, 2 live. The generation lets
// the handler notice that a slot changed while it copied the name.
struct CleanupSlot
{
    std::atomic<quint32> state{0};
    char path[PATH_MAX];
};
static_assert(std::atomic<quint32>::is_always_lock_free, "the signal handler reads it");

CleanupSlot cleanupSlots[cleanupSlotCount];
// Staging folders (StagingFolder): their files are removed, then the folder.
constexpr int folderSlotCount = 8;
CleanupSlot folderSlots[folderSlotCount];
struct sigaction previousActions[cleanupSignalCount];
std::once_flag installOnce;

// The slot's name copied out, or false when the slot is not live or changed meanwhile.
bool copyLiveSlot(const CleanupSlot &slot, char (&copy)[PATH_MAX])
{
    const quint32 state = slot.state.load(std::memory_order_acquire);
    if ((state & 3) != 2)
        return false;
    std::memcpy(copy, slot.path, sizeof copy);
    copy[PATH_MAX - 1] = '\0';
    std::atomic_thread_fence(std::memory_order_acquire); // the copy before the re-check
    return slot.state.load(std::memory_order_relaxed) == state;
}

// Removes the plain files in `folder`, then the folder, with system calls only (no allocation,
// no locks: it runs in a signal handler). getdents64 is called directly: readdir allocates.
void removeFolderForSignal(const char *folder)
{
    const int fd = ::open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    alignas(8) char buffer[4096];
    // Entries removed while listing may shift the listing: a second pass from the start
    // catches any the first skipped.
    for (int pass = 0; pass < 2; ++pass) {
        ::lseek(fd, 0, SEEK_SET);
        for (;;) {
            const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
            if (n <= 0)
                break;
            for (long offset = 0; offset < n;) {
                // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
                unsigned short length = 0;
                std::memcpy(&length, buffer + offset + 16, sizeof length);
                const char *name = buffer + offset + 19;
                if (length == 0)
                    break;
                if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0)
                    ::unlinkat(fd, name, 0);
                offset += length;
            }
        }
    }
    ::close(fd);
    ::rmdir(folder);
}

extern "C" void removeTemporariesAndReraise(int sig, siginfo_t *info, void *context)
{
    const int savedErrno = errno;
    char copy[PATH_MAX];
    for (const CleanupSlot &slot : cleanupSlots)
        if (copyLiveSlot(slot, copy))
            ::unlink(copy);
    for (const CleanupSlot &slot : folderSlots)
        if (copyLiveSlot(slot, copy))
            removeFolderForSignal(copy);
    int index = 0;
    while (index < cleanupSignalCount && cleanupSignals[index] != sig)
        ++index;
    if (index == cleanupSignalCount)
        return;
    const struct sigaction &previous = previousActions[index];
    // A handler installed before ours still runs (the media module's copy of this file chains
    // to the program's, or the other way round, whichever installed first); the default action
    // (terminate) is taken as it would have been without us, so the exit status stays the same.
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(sig, info, context);
    } else if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL &&
               previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        ::sigaction(sig, &previous, nullptr);
        ::raise(sig); // delivered when this handler returns and the signal is unblocked
    }
    errno = savedErrno;
}

void installCleanupHandlers()
{
    std::call_once(installOnce, [] {
        for (int i = 0; i < cleanupSignalCount; ++i) {
            struct sigaction current = {};
            if (::sigaction(cleanupSignals[i], nullptr, &current) != 0)
                continue;
            // An ignored signal (nohup) stays ignored: it will not end the process.
            if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN)
                continue;
            previousActions[i] = current;
            struct sigaction action = {};
            action.sa_sigaction = removeTemporariesAndReraise;
            action.sa_flags = SA_SIGINFO | SA_RESTART;
            sigemptyset(&action.sa_mask);
            for (int other : cleanupSignals)
                sigaddset(&action.sa_mask, other);
            ::sigaction(cleanupSignals[i], &action, nullptr);
        }
    });
}

// Registers `path` for removal on a signal; -1 when the table is full or the name too long
// (the write still works, only a signal could then leave the temporary behind).
int registerIn(CleanupSlot *table, int count, const QByteArray &path)
{
    installCleanupHandlers();
    if (path.size() >= PATH_MAX)
        return -1;
    for (int i = 0; i < count; ++i) {
        CleanupSlot &slot = table[i];
        quint32 state = slot.state.load(std::memory_order_relaxed);
        if ((state & 3) != 0 || !slot.state.compare_exchange_strong(state, state | 1))
            continue;
        std::atomic_thread_fence(std::memory_order_release); // "being filled" before the name
        std::memcpy(slot.path, path.constData(), std::size_t(path.size()) + 1);
        slot.state.store((state & ~quint32(3)) | 2, std::memory_order_release);
        return i;
    }
    return -1;
}

int registerTemporary(const QByteArray &path)
{
    return registerIn(cleanupSlots, cleanupSlotCount, path);
}

void releaseIn(CleanupSlot *table, int index)
{
    if (index < 0)
        return;
    CleanupSlot &slot = table[index];
    const quint32 state = slot.state.load(std::memory_order_relaxed);
    slot.state.store(((state >> 2) + 1) << 2, std::memory_order_release);
}

void releaseTemporary(int index)
{
    releaseIn(cleanupSlots, index);
}

// --- Paths -----------------------------------------------------------------------------------

QByteArray encoded(const QString &path)
{
    return QFile::encodeName(path);
}

// The file a write replaces: symbolic links are followed (as QSaveFile does), so writing
// through a link updates what it points to instead of replacing the link.
QString resolvedTarget(const QString &path)
{
    QString target = QFileInfo(path).absoluteFilePath();
    for (int depth = 0; depth < 40; ++depth) {
        const QFileInfo info(target);
        if (!info.isSymLink())
            break;
        target = info.symLinkTarget();
    }
    return target;
}

bool isStreamAlias(const QString &path)
{
    const QString clean = QDir::cleanPath(path);
    static const QStringList names = {QStringLiteral("/dev/stdout"), QStringLiteral("/dev/stderr")};
    if (names.contains(clean))
        return true;
    for (const QLatin1String prefix : {QLatin1String("/dev/fd/"), QLatin1String("/proc/self/fd/")})
        if (clean.startsWith(prefix)) {
            bool number = false;
            clean.mid(prefix.size()).toInt(&number);
            return number;
        }
    return false;
}

// A hidden name beside the target, recognisable if a crash ever leaves one behind.
QByteArray temporaryName(const QByteArray &folder, const QByteArray &target)
{
    QByteArray base = target.mid(target.lastIndexOf('/') + 1).left(180);
    QByteArray random(12, '\0');
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (char &c : random)
        c = alphabet[QRandomGenerator::global()->bounded(36)];
    return folder + "/." + base + '.' + random + ".part";
}

void syncFolder(const QByteArray &folder)
{
    const int fd = ::open(folder.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd); // best effort: the rename is already visible; this only makes it durable
    ::close(fd);
}

QByteArray folderOf(const QByteArray &target)
{
    const qsizetype slash = target.lastIndexOf('/');
    return slash <= 0 ? QByteArray("/") : target.left(slash);
}

} // namespace

QString errnoText(int err)
{
    char buffer[256] = {};
    // GNU strerror_r returns the message, possibly not in `buffer`.
    const char *text = strerror_r(err, buffer, sizeof buffer);
    if (!text || !*text)
        return QStringLiteral("error %1").arg(err);
    return QString::fromLocal8Bit(text);
}

bool AtomicFile::writesInPlace(const QString &path)
{
    if (isStreamAlias(path))
        return true;
    struct stat st;
    return ::stat(encoded(path).constData(), &st) == 0 && !S_ISREG(st.st_mode) &&
           !S_ISDIR(st.st_mode);
}

QString outputPathProblem(const QString &path)
{
    if (path.isEmpty())
        return QStringLiteral("cannot write a file without a name");
    // Checked on the name itself: the kernel resolves /proc/self/fd links ("pipe:[...]") that
    // QFileInfo cannot follow.
    if (AtomicFile::writesInPlace(path)) {
        if (::access(encoded(path).constData(), W_OK) != 0)
            return QStringLiteral("cannot write %1: %2").arg(path, errnoText(errno));
        return {};
    }
    const QByteArray target = encoded(resolvedTarget(path));
    struct stat st;
    if (::stat(target.constData(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return QStringLiteral("cannot write %1: it is a folder").arg(path);
        // An existing file must be writable: a read-only file is not replaced behind the
        // user's back (QSaveFile refused it too).
        if (::access(target.constData(), W_OK) != 0)
            return QStringLiteral("cannot write %1: %2").arg(path, errnoText(errno));
    }
    const QByteArray folder = folderOf(target);
    const QString folderName = QDir::toNativeSeparators(QFile::decodeName(folder));
    if (::stat(folder.constData(), &st) != 0) {
        if (errno == ENOTDIR)
            return QStringLiteral("cannot write %1: %2 is not a folder")
                .arg(path, QDir::toNativeSeparators(QFileInfo(folderName).absoluteFilePath()));
        if (errno == ENOENT)
            return QStringLiteral("cannot write %1: the folder %2 does not exist")
                .arg(path, folderName);
        return QStringLiteral("cannot write %1: %2").arg(path, errnoText(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return QStringLiteral("cannot write %1: %2 is not a folder").arg(path, folderName);
    if (::access(folder.constData(), W_OK | X_OK) != 0)
        return QStringLiteral("cannot write %1: the folder %2 is not writable (%3)")
            .arg(path, folderName, errnoText(errno));
    return {};
}

bool writeFileAtomically(const QString &path, const QByteArray &bytes, QString *error)
{
    AtomicFile file(path);
    return file.open(error) && file.write(bytes, error) && file.commit(error);
}

AtomicFile::AtomicFile(const QString &path) : m_path(path) {}

AtomicFile::~AtomicFile()
{
    cancel();
}

bool AtomicFile::fail(const QString &cause, QString *error)
{
    cancel();
    m_failed = true;
    if (error)
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, cause);
    return false;
}

bool AtomicFile::failErrno(int err, QString *error)
{
    return fail(errnoText(err), error);
}

bool AtomicFile::open(QString *error)
{
    cancel();
    m_failed = false;
    m_written = 0;
    m_flushed = false;
    if (const QString problem = outputPathProblem(m_path); !problem.isEmpty()) {
        m_failed = true;
        if (error)
            *error = problem;
        return false;
    }
    if (writesInPlace(m_path))
        return openDirect(error);
    m_target = encoded(resolvedTarget(m_path));
    const QByteArray folder = folderOf(m_target);
    if (openUnnamed(folder, error))
        return true;
    if (m_failed)
        return false;
    return openNamed(folder, error);
}

bool AtomicFile::openDirect(QString *error)
{
    m_method = Method::Direct;
    m_target = encoded(m_path);
    struct stat st;
    // A regular file reached through /dev/stdout was opened by the shell (`>` truncated it,
    // `>>` appends): appending is right for both.
    int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
    if (::stat(m_target.constData(), &st) == 0 && S_ISREG(st.st_mode))
        flags |= O_APPEND;
    do
        m_fd = ::open(m_target.constData(), flags);
    while (m_fd < 0 && errno == EINTR);
    if (m_fd < 0)
        return failErrno(errno, error);
    return true;
}

// Returns false without an error (m_failed unset) when the file system has no O_TMPFILE, so
// that open() falls back to a named temporary.
bool AtomicFile::openUnnamed(const QByteArray &folder, QString *error)
{
#ifdef O_TMPFILE
    m_method = Method::UnnamedTemporary;
    do
        m_fd = ::open(folder.constData(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    while (m_fd < 0 && errno == EINTR);
    if (m_fd < 0) {
        const int err = errno;
        // Unsupported here (EOPNOTSUPP; EISDIR or EINVAL from kernels that predate it): try a
        // named temporary. Anything else would fail that way too; say it now.
        if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL)
            return false;
        return failErrno(err, error);
    }
    struct stat st;
    if (::stat(m_target.constData(), &st) == 0 && S_ISREG(st.st_mode))
        ::fchmod(m_fd, st.st_mode & 07777); // keep the permissions of the file it replaces
    return true;
#else
    Q_UNUSED(folder);
    Q_UNUSED(error);
    return false;
#endif
}

bool AtomicFile::openNamed(const QByteArray &folder, QString *error)
{
    m_method = Method::NamedTemporary;
    for (int attempt = 0; attempt < 16; ++attempt) {
        const QByteArray name = temporaryName(folder, m_target);
        // Registered before it exists, so that no instant has a file the handler cannot see;
        // the random name makes it someone else's file only in theory (O_EXCL refuses that).
        m_tempSlot = registerTemporary(name);
        do
            m_fd = ::open(name.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        while (m_fd < 0 && errno == EINTR);
        if (m_fd >= 0) {
            m_temporary = name;
            struct stat st;
            if (::stat(m_target.constData(), &st) == 0 && S_ISREG(st.st_mode))
                ::fchmod(m_fd, st.st_mode & 07777);
            return true;
        }
        const int err = errno;
        releaseTemporary(m_tempSlot);
        m_tempSlot = -1;
        if (err == EEXIST)
            continue;
        // procfs and sysfs answer "No such file" to any new name in a folder that exists.
        if (err == ENOENT)
            return fail(QStringLiteral("the folder %1 does not accept new files")
                            .arg(QDir::toNativeSeparators(QFile::decodeName(folder))),
                        error);
        return failErrno(err, error);
    }
    return fail(QStringLiteral("no unused temporary name in %1")
                    .arg(QDir::toNativeSeparators(QFile::decodeName(folder))),
                error);
}

bool AtomicFile::write(const QByteArray &bytes, QString *error)
{
    return write(bytes.constData(), bytes.size(), error);
}

bool AtomicFile::write(const char *data, qint64 size, QString *error)
{
    if (m_fd < 0)
        return fail(QStringLiteral("the file is not open"), error);
    // Linux moves at most 0x7ffff000 bytes per call; smaller pieces keep EINTR cheap.
    constexpr qint64 maxPiece = qint64(1) << 30;
    while (size > 0) {
        const ssize_t n = ::write(m_fd, data, std::size_t(std::min(size, maxPiece)));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return failErrno(errno, error);
        }
        if (n == 0) // not seen on Linux for a non-empty write; never loop on it
            return fail(QStringLiteral("the system wrote nothing (%1 bytes left)").arg(size),
                        error);
        data += n;
        size -= n;
        m_written += n;
    }
    m_flushed = false;
    return true;
}

bool AtomicFile::seek(qint64 offset, QString *error)
{
    if (m_fd < 0)
        return fail(QStringLiteral("the file is not open"), error);
    if (m_method == Method::Direct)
        return fail(QStringLiteral("a device or pipe cannot go back to fill in what this format "
                                   "writes last; name a file"),
                    error);
    if (offset < 0)
        return fail(QStringLiteral("cannot seek to %1").arg(offset), error);
    if (::lseek(m_fd, off_t(offset), SEEK_SET) < 0)
        return failErrno(errno, error);
    m_flushed = false;
    return true;
}

bool AtomicFile::flush(QString *error)
{
    if (m_fd < 0)
        return fail(QStringLiteral("the file is not open"), error);
    if (m_method == Method::Direct || m_flushed)
        return true;
    // Delayed allocation and network file systems may report a full disk only here.
    int rc;
    do
        rc = ::fdatasync(m_fd);
    while (rc != 0 && errno == EINTR);
    if (rc != 0)
        return failErrno(errno, error);
    m_flushed = true;
    return true;
}

void AtomicFile::closeFd()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool AtomicFile::commit(QString *error)
{
    if (m_fd < 0)
        return fail(QStringLiteral("the file is not open"), error);
    if (m_method == Method::Direct) {
        const int fd = m_fd;
        m_fd = -1;
        if (::close(fd) != 0 && errno != EINTR)
            return failErrno(errno, error);
        return true;
    }
    if (!flush(error))
        return false;
    const QByteArray folder = folderOf(m_target);

    if (m_method == Method::UnnamedTemporary) {
        // Give the unnamed file a hidden name, then rename it over the target: link(2) cannot
        // replace an existing file, rename(2) can, atomically.
        const QByteArray source = "/proc/self/fd/" + QByteArray::number(m_fd);
        for (int attempt = 0; attempt < 16 && m_temporary.isEmpty(); ++attempt) {
            const QByteArray name = temporaryName(folder, m_target);
            m_tempSlot = registerTemporary(name);
            int rc = ::linkat(AT_FDCWD, source.constData(), AT_FDCWD, name.constData(),
                              AT_SYMLINK_FOLLOW);
            if (rc != 0 && errno == ENOENT) // no /proc: needs CAP_DAC_READ_SEARCH
                rc = ::linkat(m_fd, "", AT_FDCWD, name.constData(), AT_EMPTY_PATH);
            if (rc == 0) {
                m_temporary = name;
                break;
            }
            const int err = errno;
            releaseTemporary(m_tempSlot);
            m_tempSlot = -1;
            if (err != EEXIST)
                return failErrno(err, error);
        }
        if (m_temporary.isEmpty())
            return fail(QStringLiteral("no unused temporary name in %1")
                            .arg(QDir::toNativeSeparators(QFile::decodeName(folder))),
                        error);
    }

    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0 && errno != EINTR) {
        const int err = errno;
        ::unlink(m_temporary.constData());
        releaseTemporary(m_tempSlot);
        m_tempSlot = -1;
        m_temporary.clear();
        return failErrno(err, error);
    }
    if (::rename(m_temporary.constData(), m_target.constData()) != 0) {
        const int err = errno;
        ::unlink(m_temporary.constData());
        releaseTemporary(m_tempSlot);
        m_tempSlot = -1;
        m_temporary.clear();
        return failErrno(err, error);
    }
    releaseTemporary(m_tempSlot);
    m_tempSlot = -1;
    m_temporary.clear();
    syncFolder(folder);
    return true;
}

void AtomicFile::cancel()
{
    closeFd();
    if (!m_temporary.isEmpty())
        ::unlink(m_temporary.constData());
    m_temporary.clear();
    releaseTemporary(m_tempSlot);
    m_tempSlot = -1;
}

// --- StagingFolder ------------------------------------------------------------------------------

StagingFolder::StagingFolder(const QString &path) : m_path(path) {}

StagingFolder::~StagingFolder()
{
    remove();
}

QString StagingFolder::filePath(const QString &name) const
{
    return m_path + QLatin1Char('/') + name;
}

bool StagingFolder::create(const QString &shownAs, QString *error, unsigned mode)
{
    remove();
    const QByteArray name = encoded(m_path);
    // Registered before it exists, as AtomicFile's named temporaries are.
    m_slot = registerIn(folderSlots, folderSlotCount, name);
    if (::mkdir(name.constData(), mode_t(mode)) != 0) {
        const int err = errno;
        releaseIn(folderSlots, m_slot);
        m_slot = -1;
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(shownAs, errnoText(err));
        return false;
    }
    m_created = true;
    return true;
}

void StagingFolder::remove()
{
    if (m_created) {
        const QByteArray name = encoded(m_path);
        const QStringList files = QDir(m_path).entryList(QDir::AllEntries | QDir::NoDotAndDotDot |
                                                         QDir::Hidden | QDir::System);
        for (const QString &file : files)
            ::unlink(encoded(filePath(file)).constData());
        ::rmdir(name.constData());
        m_created = false;
    }
    releaseIn(folderSlots, m_slot);
    m_slot = -1;
}

void StagingFolder::release()
{
    m_created = false;
    releaseIn(folderSlots, m_slot);
    m_slot = -1;
}

} // namespace pe
