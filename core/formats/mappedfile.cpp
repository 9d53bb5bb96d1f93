#include "mappedfile.h"

#include "io/userfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <utility>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace pe {

namespace {

#ifdef Q_OS_UNIX
QString errnoText(int code)
{
    return QString::fromLocal8Bit(std::strerror(code));
}
#endif

} // namespace

MappedFile::MappedFile() = default;

MappedFile::~MappedFile()
{
    close();
}

MappedFile::MappedFile(MappedFile &&other) noexcept
    : m_path(std::move(other.m_path)), m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)), m_open(std::exchange(other.m_open, false)),
      m_file(std::move(other.m_file))
{}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept
{
    if (this != &other) {
        close();
        m_path = std::move(other.m_path);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_open = std::exchange(other.m_open, false);
        m_file = std::move(other.m_file);
    }
    return *this;
}

void MappedFile::close()
{
#ifdef Q_OS_UNIX
    if (m_data && !m_file)
        ::munmap(const_cast<uchar *>(m_data), size_t(m_size));
#endif
    m_file.reset(); // unmaps a QFile::map() mapping
    m_data = nullptr;
    m_size = 0;
    m_open = false;
}

bool MappedFile::open(const QString &path, QString *error)
{
    close();
    m_path = QDir::toNativeSeparators(path);
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(m_path, why);
        close();
        return false;
    };
    if (path.isEmpty())
        return fail(QStringLiteral("no file name given"));

#ifdef Q_OS_UNIX
    const QByteArray native = QFile::encodeName(path);
    struct stat before;
    if (::stat(native.constData(), &before) != 0)
        return fail(errno == ENOENT ? QStringLiteral("no such file")
                                    : QStringLiteral("cannot be read: %1").arg(errnoText(errno)));
    if (const QString kind = nonRegularKind(quint32(before.st_mode)); !kind.isEmpty())
        return fail(QStringLiteral("is %1, not a model file").arg(kind));

    // O_NONBLOCK: should the path have become a FIFO since stat(), open() must not wait for a
    // writer; fstat() below refuses it.
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return fail(QStringLiteral("cannot be opened: %1").arg(errnoText(errno)));
    struct stat opened;
    if (::fstat(fd, &opened) != 0) {
        const int code = errno;
        ::close(fd);
        return fail(QStringLiteral("cannot be read: %1").arg(errnoText(code)));
    }
    if (const QString kind = nonRegularKind(quint32(opened.st_mode)); !kind.isEmpty()) {
        ::close(fd);
        return fail(QStringLiteral("is %1, not a model file").arg(kind));
    }
    if (opened.st_size < 0 || quint64(opened.st_size) > quint64(SIZE_MAX)) {
        ::close(fd);
        return fail(QStringLiteral("is too large to map on this system"));
    }
    m_size = qint64(opened.st_size);
    if (m_size > 0) {
        void *address = ::mmap(nullptr, size_t(m_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (address == MAP_FAILED) {
            const int code = errno;
            ::close(fd);
            return fail(QStringLiteral("cannot be mapped into memory: %1").arg(errnoText(code)));
        }
        m_data = static_cast<const uchar *>(address);
    }
    ::close(fd); // the mapping keeps the file alive
#else
    const QFileInfo info(path);
    if (!info.exists())
        return fail(QStringLiteral("no such file"));
    if (info.isDir())
        return fail(QStringLiteral("is a directory, not a model file"));
    if (!info.isFile())
        return fail(QStringLiteral("is not a regular file"));
    m_file = std::make_unique<QFile>(path);
    if (!m_file->open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot be opened: %1").arg(m_file->errorString()));
    m_size = m_file->size();
    if (m_size > 0) {
        m_data = m_file->map(0, m_size);
        if (!m_data)
            return fail(
                QStringLiteral("cannot be mapped into memory: %1").arg(m_file->errorString()));
    }
#endif
    m_open = true;
    return true;
}

} // namespace pe
