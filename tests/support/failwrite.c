/* failwrite: an LD_PRELOAD library, built for the tests only, that makes real processes meet
 * the write failures a full disk, a quota or a broken disk would cause, without needing one.
 *
 * Only regular files under FAILWRITE_DIR are affected (their /proc/self/fd link starts with it;
 * unset: every regular file but stdin, stdout and stderr), so messages on stderr get through.
 *
 *   FAILWRITE_DIR=/abs/dir       where failures happen (canonical path, no trailing slash)
 *   FAILWRITE_BUDGET=N           bytes that may be written in all; the write that crosses the
 *                                budget is cut short, the next fails with FAILWRITE_ERRNO;
 *                                fallocate / ftruncate beyond it fail the same way
 *   FAILWRITE_ERRNO=ENOSPC       ENOSPC (default), EDQUOT, EIO, EFBIG or EROFS
 *   FAILWRITE_OPEN_ERRNO=EACCES  opening for writing (or O_TMPFILE, O_CREAT) fails with it
 *   FAILWRITE_FSYNC_ERRNO=EIO    fsync / fdatasync fail with it
 *   FAILWRITE_NO_TMPFILE=1       O_TMPFILE fails with EOPNOTSUPP, as on file systems without it
 *   FAILWRITE_MAX_WRITE=N        no write moves more than N bytes (short writes, as pipes or
 *                                signals cause)
 *   FAILWRITE_EINTR_EVERY=N      every Nth write fails with EINTR before writing anything
 *   FAILWRITE_DELAY_US=N         each write sleeps N microseconds first (to signal mid-write)
 *
 * Used by tst_atomicfile (preloaded into the test itself) and tst_fullwrite (into pescope).
 */
#undef _FORTIFY_SOURCE /* its inline open() wrappers would clash with ours */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long budget_used;
static long long write_calls;

/* For a test that preloads this into itself: failwrite_loaded tells it is there, and
 * failwrite_reset() starts the budget and the EINTR count afresh (the variables are read from
 * the environment at every call, so setenv() changes them at once). */
int failwrite_loaded = 1;

void failwrite_reset(void)
{
    __atomic_store_n(&budget_used, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&write_calls, 0, __ATOMIC_RELAXED);
}

static long long env_number(const char *name, long long fallback)
{
    const char *text = getenv(name);
    return text && *text ? atoll(text) : fallback;
}

static int env_errno(const char *name, int fallback)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    static const struct
    {
        const char *name;
        int value;
    } names[] = {{"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT}, {"EIO", EIO},    {"EFBIG", EFBIG},
                 {"EROFS", EROFS},   {"EACCES", EACCES}, {"EPERM", EPERM}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(text, names[i].name) == 0)
            return names[i].value;
    return atoi(text);
}

static void *real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static int under_dir(const char *path)
{
    const char *dir = getenv("FAILWRITE_DIR");
    if (!dir || !*dir)
        return 1;
    const size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int affected_fd(int fd)
{
    if (fd <= 2)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t len = readlink(link, target, sizeof target - 1);
    if (len < 0)
        return 0;
    target[len] = '\0';
    return under_dir(target);
}

/* The absolute form of `path` as opened relative to `dirfd`, for matching FAILWRITE_DIR. */
static void absolute(int dirfd, const char *path, char *out, size_t size)
{
    if (path[0] == '/') {
        snprintf(out, size, "%s", path);
        return;
    }
    char base[PATH_MAX] = "";
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base))
            base[0] = '\0';
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        const ssize_t len = readlink(link, base, sizeof base - 1);
        base[len < 0 ? 0 : len] = '\0';
    }
    snprintf(out, size, "%s/%s", base, path);
}

/* 0 to go ahead; else the errno the open fails with. */
static int open_failure(int dirfd, const char *path, int flags)
{
    char full[PATH_MAX];
    absolute(dirfd, path, full, sizeof full);
    if (!under_dir(full))
        return 0;
#ifdef O_TMPFILE
    const int tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
#else
    const int tmpfile = 0;
#endif
    if (tmpfile && env_number("FAILWRITE_NO_TMPFILE", 0))
        return EOPNOTSUPP;
    const int writing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT) || tmpfile;
    if (writing)
        return env_errno("FAILWRITE_OPEN_ERRNO", 0);
    return 0;
}

/* How many of `count` bytes may be written now; -1 with errno set for a failure. */
static ssize_t allowance(int fd, size_t count)
{
    if (!affected_fd(fd))
        return (ssize_t)count;
    const long long delay = env_number("FAILWRITE_DELAY_US", 0);
    if (delay > 0)
        usleep((useconds_t)delay);
    const long long every = env_number("FAILWRITE_EINTR_EVERY", 0);
    if (every > 0 && __atomic_add_fetch(&write_calls, 1, __ATOMIC_RELAXED) % every == 0) {
        errno = EINTR;
        return -1;
    }
    const long long most = env_number("FAILWRITE_MAX_WRITE", 0);
    if (most > 0 && count > (size_t)most)
        count = (size_t)most;
    const long long budget = env_number("FAILWRITE_BUDGET", -1);
    if (budget < 0 || count == 0)
        return (ssize_t)count;
    const long long used = __atomic_load_n(&budget_used, __ATOMIC_RELAXED);
    if (used >= budget) {
        errno = env_errno("FAILWRITE_ERRNO", ENOSPC);
        return -1;
    }
    if ((long long)count > budget - used)
        count = (size_t)(budget - used);
    return (ssize_t)count;
}

static void spend(int fd, ssize_t written)
{
    if (written > 0 && affected_fd(fd))
        __atomic_add_fetch(&budget_used, (long long)written, __ATOMIC_RELAXED);
}

ssize_t write(int fd, const void *buffer, size_t count)
{
    static ssize_t (*next)(int, const void *, size_t);
    if (!next)
        next = (ssize_t(*)(int, const void *, size_t))real("write");
    const ssize_t allowed = allowance(fd, count);
    if (allowed < 0)
        return -1;
    const ssize_t n = next(fd, buffer, (size_t)allowed);
    spend(fd, n);
    return n;
}

static ssize_t positioned(const char *name, int fd, const void *buffer, size_t count, off_t at)
{
    ssize_t (*next)(int, const void *, size_t, off_t) =
        (ssize_t(*)(int, const void *, size_t, off_t))real(name);
    const ssize_t allowed = allowance(fd, count);
    if (allowed < 0)
        return -1;
    const ssize_t n = next(fd, buffer, (size_t)allowed, at);
    spend(fd, n);
    return n;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t at)
{
    return positioned("pwrite", fd, buffer, count, at);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t at)
{
    return positioned("pwrite64", fd, buffer, count, at);
}

/* Vectored writes: cut the vector at the allowance. */
static ssize_t vectored(const char *name, int fd, const struct iovec *iov, int iovcnt, off_t at,
                        int has_offset)
{
    size_t total = 0;
    for (int i = 0; i < iovcnt; ++i)
        total += iov[i].iov_len;
    ssize_t allowed = allowance(fd, total);
    if (allowed < 0)
        return -1;
    struct iovec cut[64];
    int count = 0;
    for (int i = 0; i < iovcnt && count < 64 && allowed > 0; ++i) {
        cut[count] = iov[i];
        if ((ssize_t)cut[count].iov_len > allowed)
            cut[count].iov_len = (size_t)allowed;
        allowed -= (ssize_t)cut[count].iov_len;
        ++count;
    }
    ssize_t n;
    if (has_offset)
        n = ((ssize_t(*)(int, const struct iovec *, int, off_t))real(name))(fd, cut, count, at);
    else
        n = ((ssize_t(*)(int, const struct iovec *, int))real(name))(fd, cut, count);
    spend(fd, n);
    return n;
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    return vectored("writev", fd, iov, iovcnt, 0, 0);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t at)
{
    return vectored("pwritev", fd, iov, iovcnt, at, 1);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off_t at)
{
    return vectored("pwritev64", fd, iov, iovcnt, at, 1);
}

/* Growing a file reserves space: refused once it would pass the budget. */
static int growth_failure(int fd, off_t new_end)
{
    if (!affected_fd(fd))
        return 0;
    const long long budget = env_number("FAILWRITE_BUDGET", -1);
    struct stat st;
    if (budget < 0 || fstat(fd, &st) != 0 || new_end <= st.st_size)
        return 0;
    const long long growth = (long long)(new_end - st.st_size);
    if (__atomic_load_n(&budget_used, __ATOMIC_RELAXED) + growth > budget)
        return env_errno("FAILWRITE_ERRNO", ENOSPC);
    return 0;
}

int fallocate(int fd, int mode, off_t offset, off_t length)
{
    const int err = growth_failure(fd, offset + length);
    if (err) {
        errno = err;
        return -1;
    }
    return ((int (*)(int, int, off_t, off_t))real("fallocate"))(fd, mode, offset, length);
}

int fallocate64(int fd, int mode, off_t offset, off_t length)
{
    return fallocate(fd, mode, offset, length);
}

int posix_fallocate(int fd, off_t offset, off_t length)
{
    const int err = growth_failure(fd, offset + length);
    if (err)
        return err; /* posix_fallocate returns the error instead of setting errno */
    return ((int (*)(int, off_t, off_t))real("posix_fallocate"))(fd, offset, length);
}

int posix_fallocate64(int fd, off_t offset, off_t length)
{
    return posix_fallocate(fd, offset, length);
}

int ftruncate(int fd, off_t length)
{
    const int err = growth_failure(fd, length);
    if (err) {
        errno = err;
        return -1;
    }
    return ((int (*)(int, off_t))real("ftruncate"))(fd, length);
}

int ftruncate64(int fd, off_t length)
{
    return ftruncate(fd, length);
}

static int sync_call(const char *name, int fd)
{
    if (affected_fd(fd)) {
        const int err = env_errno("FAILWRITE_FSYNC_ERRNO", 0);
        if (err) {
            errno = err;
            return -1;
        }
    }
    return ((int (*)(int))real(name))(fd);
}

int fsync(int fd)
{
    return sync_call("fsync", fd);
}

int fdatasync(int fd)
{
    return sync_call("fdatasync", fd);
}

static int needs_mode(int flags)
{
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) == O_TMPFILE)
        return 1;
#endif
    return (flags & O_CREAT) != 0;
}

static int open_at(const char *name, int dirfd, const char *path, int flags, mode_t mode)
{
    const int err = path ? open_failure(dirfd, path, flags) : 0;
    if (err) {
        errno = err;
        return -1;
    }
    if (dirfd == AT_FDCWD && strncmp(name, "open", 4) == 0 && name[4] != 'a')
        return ((int (*)(const char *, int, ...))real(name))(path, flags, mode);
    return ((int (*)(int, const char *, int, ...))real(name))(dirfd, path, flags, mode);
}

#define MODE_ARG(flags)                                                                            \
    mode_t mode = 0;                                                                               \
    if (needs_mode(flags)) {                                                                       \
        va_list args;                                                                              \
        va_start(args, flags);                                                                     \
        mode = va_arg(args, mode_t);                                                               \
        va_end(args);                                                                              \
    }

int open(const char *path, int flags, ...)
{
    MODE_ARG(flags)
    return open_at("open", AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    MODE_ARG(flags)
    return open_at("open64", AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    MODE_ARG(flags)
    return open_at("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    MODE_ARG(flags)
    return open_at("openat64", dirfd, path, flags, mode);
}

/* What _FORTIFY_SOURCE turns open() into when the flags are not a constant. */
int __open_2(const char *path, int flags)
{
    return open_at("open", AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags)
{
    return open_at("open64", AT_FDCWD, path, flags, 0);
}

int __openat_2(int dirfd, const char *path, int flags)
{
    return open_at("openat", dirfd, path, flags, 0);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    return open_at("openat64", dirfd, path, flags, 0);
}

int creat(const char *path, mode_t mode)
{
    return open_at("open", AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int creat64(const char *path, mode_t mode)
{
    return creat(path, mode);
}
