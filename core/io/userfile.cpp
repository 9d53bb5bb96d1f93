#include "userfile.h"

#include "atomicfile.h"
#include "encodingspec.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pe {

namespace {

class Descriptor
{
public:
    explicit Descriptor(int fd) : m_fd(fd) {}
    ~Descriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

} // namespace

QString nonRegularKind(quint32 mode)
{
    if (S_ISREG(mode))
        return {};
    if (S_ISDIR(mode))
        return QStringLiteral("a folder");
    if (S_ISFIFO(mode))
        return QStringLiteral("a named pipe (FIFO)");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a regular file");
}

QString nonRegularKind(const QString &path)
{
    struct stat st;
    if (path.isEmpty() || ::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {};
    return nonRegularKind(quint32(st.st_mode));
}

std::optional<QByteArray> readUserFile(const QString &path, qint64 maxBytes, QString *error,
                                       const QString &what, qsizetype spare)
{
    const QString name = QDir::toNativeSeparators(path);
    const auto refuse = [&](const QString &message) -> std::optional<QByteArray> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    const auto tooLarge = [&](const QString &size) {
        return refuse(QStringLiteral("%1 is %2, too large for %3 (at most %4)")
                          .arg(name, size, what, formatBytes(double(maxBytes))));
    };
    const auto kindProblem = [&](mode_t mode) {
        const QString kind = nonRegularKind(quint32(mode));
        return refuse(kind.startsWith(QLatin1String("a "))
                          ? QStringLiteral("%1 is %2, not %3").arg(name, kind, what)
                          : QStringLiteral("%1 is %2").arg(name, kind));
    };
    const QByteArray local = QFile::encodeName(path);

    // Decided before opening: opening a device or FIFO can block or have effects of its own.
    struct stat st;
    if (::stat(local.constData(), &st) != 0) {
        if (errno == ENOENT)
            return refuse(QStringLiteral("%1 does not exist").arg(name));
        return refuse(QStringLiteral("cannot read %1: %2").arg(name, errnoText(errno)));
    }
    if (!S_ISREG(st.st_mode))
        return kindProblem(st.st_mode);
    if (st.st_size > maxBytes)
        return tooLarge(formatBytes(double(st.st_size)));

    int fd;
    do
        fd = ::open(local.constData(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return refuse(QStringLiteral("cannot read %1: %2").arg(name, errnoText(errno)));
    const Descriptor file(fd);
    // The name may have been replaced since stat(); what was opened is what counts.
    if (::fstat(fd, &st) != 0)
        return refuse(QStringLiteral("cannot read %1: %2").arg(name, errnoText(errno)));
    if (!S_ISREG(st.st_mode))
        return kindProblem(st.st_mode);

    // The size is only a hint (procfs says 0; a file can grow while read): read up to
    // maxBytes + 1 bytes and refuse when that last byte exists.
    QByteArray bytes;
    const qint64 expected = std::min<qint64>(std::max<qint64>(st.st_size, 0), maxBytes) + 1;
    bytes.reserve(qsizetype(expected) + spare);
    bytes.resize(qsizetype(expected));
    qint64 filled = 0;
    for (;;) {
        if (filled == bytes.size()) {
            if (filled > maxBytes)
                return tooLarge(QStringLiteral("more than ") + formatBytes(double(maxBytes)));
            bytes.resize(
                qsizetype(std::min<qint64>(std::max<qint64>(filled * 2, 4096), maxBytes + 1)));
        }
        const ssize_t n = ::read(fd, bytes.data() + filled, std::size_t(bytes.size() - filled));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return refuse(QStringLiteral("cannot read %1: %2").arg(name, errnoText(errno)));
        }
        if (n == 0)
            break;
        filled += n;
    }
    if (filled > maxBytes)
        return tooLarge(QStringLiteral("more than ") + formatBytes(double(maxBytes)));
    if (spare > 0) {
        // Shrinking keeps the capacity; the spare bytes lie inside it, zeroed.
        bytes.resize(qsizetype(filled) + spare);
        std::memset(bytes.data() + filled, 0, std::size_t(spare));
    }
    bytes.resize(qsizetype(filled));
    return bytes;
}

} // namespace pe
