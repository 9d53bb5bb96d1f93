/* monkeyguard: an LD_PRELOAD library for the monkey test (tests/monkey/monkey.py), built for the
 * tests only. Random input reaches every save and export dialog, and typed junk can name any
 * path; the test runs as whoever runs CI (often root). This library keeps pescope's writes
 * inside one folder, reports what it refused, and gives a crash a backtrace.
 *
 *   MONKEYGUARD_ROOT=/abs/dir   writes are allowed under it (canonical, no trailing slash) and
 *                               under /dev; every other write is refused with EACCES: opening
 *                               for writing or creating, rename, link, unlink, mkdir, rmdir,
 *                               truncate, chmod, chown
 *   MONKEYGUARD_LOG=/abs/file   each refusal is appended there, one line each
 *
 * On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT it runs `gdb -p <pid> -batch -ex "thread apply
 * all bt"` (output to stderr) before dying of the same signal; not under AddressSanitizer,
 * whose own report says more. It also lets any process of the same user attach a debugger
 * (PR_SET_PTRACER_ANY), so that the test can take a hung process's backtrace under Yama's
 * ptrace_scope 1.
 */
#undef _FORTIFY_SOURCE /* its inline open() wrappers would clash with ours */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void *real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static int under(const char *path, const char *prefix)
{
    const size_t n = strlen(prefix);
    return n > 0 && strncmp(path, prefix, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The absolute form of `path` (relative to `dirfd`) with symbolic links resolved: the file's
 * own when it exists, else its folder's; as given when neither exists (then the call fails by
 * itself). */
static void absolute(int dirfd, const char *path, char *out, size_t size)
{
    char joined[PATH_MAX * 2];
    if (path[0] == '/') {
        snprintf(joined, sizeof joined, "%s", path);
    } else {
        char base[PATH_MAX] = "";
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base))
                base[0] = '\0';
        } else {
            char fdlink[64];
            snprintf(fdlink, sizeof fdlink, "/proc/self/fd/%d", dirfd);
            const ssize_t n = readlink(fdlink, base, sizeof base - 1);
            base[n > 0 ? n : 0] = '\0';
        }
        snprintf(joined, sizeof joined, "%s/%s", base, path);
    }
    char resolved[PATH_MAX];
    if (realpath(joined, resolved)) {
        snprintf(out, size, "%s", resolved);
        return;
    }
    const char *cut = strrchr(joined, '/');
    char folder[PATH_MAX * 2];
    const size_t length = cut && cut > joined ? (size_t)(cut - joined) : 1;
    memcpy(folder, joined, length);
    folder[length] = '\0';
    if (cut && realpath(folder, resolved))
        snprintf(out, size, "%s/%s", strcmp(resolved, "/") == 0 ? "" : resolved, cut + 1);
    else
        snprintf(out, size, "%s", joined);
}

/* Nonzero (errno EACCES, the refusal logged) when writing `path` is not allowed. */
static int refused(const char *operation, int dirfd, const char *path)
{
    const char *root = getenv("MONKEYGUARD_ROOT");
    if (!root || !*root || !path)
        return 0;
    char full[PATH_MAX * 2];
    absolute(dirfd, path, full, sizeof full);
    if (under(full, root) || under(full, "/dev"))
        return 0;
    const char *log = getenv("MONKEYGUARD_LOG");
    char line[PATH_MAX * 2 + 64];
    const int n = snprintf(line, sizeof line, "monkeyguard: refused %s %s\n", operation, full);
    int (*real_open)(const char *, int, ...) = (int (*)(const char *, int, ...))real("open");
    const int fd =
        log && real_open ? real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) < 0) { /* nothing more to do */
        }
        close(fd);
    }
    if (write(2, line, (size_t)n) < 0) { /* nothing more to do */
    }
    errno = EACCES;
    return 1;
}

static int writes(int flags)
{
    return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) != 0 ||
           (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags, mode)                                                                      \
    mode_t mode = 0;                                                                               \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                                         \
        va_list args;                                                                              \
        va_start(args, flags);                                                                     \
        mode = (mode_t)va_arg(args, int);                                                          \
        va_end(args);                                                                              \
    }

#define OPEN_HOOK(name)                                                                            \
    int name(const char *path, int flags, ...)                                                     \
    {                                                                                              \
        MODE_ARG(flags, mode)                                                                      \
        if (writes(flags) && refused(#name, AT_FDCWD, path))                                       \
            return -1;                                                                             \
        int (*next)(const char *, int, ...) = (int (*)(const char *, int, ...))real(#name);        \
        return next(path, flags, mode);                                                            \
    }
OPEN_HOOK(open)
OPEN_HOOK(open64)

#define OPENAT_HOOK(name)                                                                          \
    int name(int dirfd, const char *path, int flags, ...)                                          \
    {                                                                                              \
        MODE_ARG(flags, mode)                                                                      \
        if (writes(flags) && refused(#name, dirfd, path))                                          \
            return -1;                                                                             \
        int (*next)(int, const char *, int, ...) =                                                 \
            (int (*)(int, const char *, int, ...))real(#name);                                     \
        return next(dirfd, path, flags, mode);                                                     \
    }
OPENAT_HOOK(openat)
OPENAT_HOOK(openat64)

int creat(const char *path, mode_t mode)
{
    if (refused("creat", AT_FDCWD, path))
        return -1;
    return ((int (*)(const char *, mode_t))real("creat"))(path, mode);
}

#define FOPEN_HOOK(name)                                                                           \
    FILE *name(const char *path, const char *mode)                                                 \
    {                                                                                              \
        if (mode && strpbrk(mode, "wa+") && refused(#name, AT_FDCWD, path))                        \
            return NULL;                                                                           \
        return ((FILE * (*)(const char *, const char *)) real(#name))(path, mode);                 \
    }
FOPEN_HOOK(fopen)
FOPEN_HOOK(fopen64)

#define PATH_HOOK(name, params, args, path)                                                        \
    int name params                                                                                \
    {                                                                                              \
        if (refused(#name, AT_FDCWD, path))                                                        \
            return -1;                                                                             \
        return ((int(*) params)real(#name))args;                                                   \
    }
PATH_HOOK(unlink, (const char *p), (p), p)
PATH_HOOK(rmdir, (const char *p), (p), p)
PATH_HOOK(mkdir, (const char *p, mode_t m), (p, m), p)
PATH_HOOK(truncate, (const char *p, off_t n), (p, n), p)
PATH_HOOK(truncate64, (const char *p, off64_t n), (p, n), p)
PATH_HOOK(chmod, (const char *p, mode_t m), (p, m), p)
PATH_HOOK(chown, (const char *p, uid_t u, gid_t g), (p, u, g), p)
PATH_HOOK(lchown, (const char *p, uid_t u, gid_t g), (p, u, g), p)

int rename(const char *from, const char *to)
{
    if (refused("rename", AT_FDCWD, from) || refused("rename", AT_FDCWD, to))
        return -1;
    return ((int (*)(const char *, const char *))real("rename"))(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    if (refused("renameat", fromfd, from) || refused("renameat", tofd, to))
        return -1;
    return ((int (*)(int, const char *, int, const char *))real("renameat"))(fromfd, from, tofd,
                                                                             to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
    if (refused("renameat2", fromfd, from) || refused("renameat2", tofd, to))
        return -1;
    return ((int (*)(int, const char *, int, const char *, unsigned))real("renameat2"))(
        fromfd, from, tofd, to, flags);
}

int link(const char *from, const char *to)
{
    if (refused("link", AT_FDCWD, to))
        return -1;
    return ((int (*)(const char *, const char *))real("link"))(from, to);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
    /* linkat(fd, "", dirfd, name, AT_EMPTY_PATH) names an O_TMPFILE file: only `to` counts. */
    if (refused("linkat", tofd, to))
        return -1;
    return ((int (*)(int, const char *, int, const char *, int))real("linkat"))(fromfd, from, tofd,
                                                                                to, flags);
}

int symlink(const char *target, const char *path)
{
    if (refused("symlink", AT_FDCWD, path))
        return -1;
    return ((int (*)(const char *, const char *))real("symlink"))(target, path);
}

int unlinkat(int dirfd, const char *path, int flags)
{
    if (refused("unlinkat", dirfd, path))
        return -1;
    return ((int (*)(int, const char *, int))real("unlinkat"))(dirfd, path, flags);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
    if (refused("mkdirat", dirfd, path))
        return -1;
    return ((int (*)(int, const char *, mode_t))real("mkdirat"))(dirfd, path, mode);
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
    if (refused("fchmodat", dirfd, path))
        return -1;
    return ((int (*)(int, const char *, mode_t, int))real("fchmodat"))(dirfd, path, mode, flags);
}

static void on_crash(int sig)
{
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    static const char header[] = "monkeyguard: fatal signal, backtrace of every thread:\n";
    if (write(2, header, sizeof header - 1) < 0) { /* nothing more to do */
    }
    const pid_t child = fork();
    if (child == 0) {
        dup2(2, 1);
        execlp("gdb", "gdb", "-p", pid, "-batch", "-nx", "-ex", "thread apply all bt 40",
               (char *)NULL);
        _exit(127);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void monkeyguard_init(void)
{
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    if (dlsym(RTLD_DEFAULT, "__asan_init") || !getenv("MONKEYGUARD_ROOT"))
        return;
    const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_crash;
        action.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(signals[i], &action, NULL);
    }
}
