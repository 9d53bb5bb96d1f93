#include "io/deckfolder.h"

#include "io/userfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pe {

namespace {

QByteArray encoded(const QString &path)
{
    return QFile::encodeName(path);
}

bool fullMatch(const QRegularExpression &pattern, const QString &name)
{
    const QRegularExpressionMatch match = pattern.match(name);
    return match.hasMatch() && match.capturedStart() == 0 && match.capturedLength() == name.size();
}

// `bytes` into a new file at `path` (never through a link), flushed to the disk; the errno of
// the first failure, or 0.
int writeNewFile(const QString &path, const QByteArray &bytes)
{
    int fd = -1;
    do
        fd = ::open(encoded(path).constData(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno;
    const char *data = bytes.constData();
    qint64 left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, std::size_t(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            ::close(fd);
            return err;
        }
        data += n;
        left -= n;
    }
    // A full disk may be reported only here (delayed allocation, network file systems).
    int rc = 0;
    do
        rc = ::fdatasync(fd);
    while (rc != 0 && errno == EINTR);
    const int syncError = rc != 0 ? errno : 0;
    if (::close(fd) != 0 && errno != EINTR && syncError == 0)
        return errno;
    return syncError;
}

void syncFolder(const QString &folder)
{
    const int fd = ::open(encoded(folder).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd); // best effort: the renames are visible already; this makes them durable
    ::close(fd);
}

// Why a folder that exists cannot take new files; empty when it can.
QString writableFolderProblem(const QString &shown, const QString &folder)
{
    if (::access(encoded(folder).constData(), W_OK | X_OK) != 0)
        return QStringLiteral("cannot write %1: the folder %2 is not writable (%3)")
            .arg(shown, QDir::toNativeSeparators(folder), errnoText(errno));
    return {};
}

} // namespace

QStringList deckManifestNames(const QByteArray &text, const QRegularExpression &ownNames,
                              const QStringList &present)
{
    QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'));
    for (QString &line : lines)
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    if (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast(); // the final line break
    const qsizetype blank = lines.indexOf(QString());
    QStringList names;
    if (blank < 0) { // a deck of a pescope before the list: its names are the deck's own
        for (const QString &name : present)
            if (fullMatch(ownNames, name))
                names.append(name);
        return names;
    }
    for (qsizetype i = blank + 1; i < lines.size(); ++i) {
        const QString &name = lines.at(i);
        if (fullMatch(ownNames, name) && !names.contains(name))
            names.append(name);
    }
    return names;
}

DeckFolder::DeckFolder(const QString &path, const QString &header,
                       const QRegularExpression &ownNames)
    : m_path(QDir::cleanPath(QFileInfo(path).absoluteFilePath())),
      m_shown(QDir::toNativeSeparators(QDir::cleanPath(path))), m_header(header),
      m_ownNames(ownNames)
{}

DeckFolder::~DeckFolder() = default;

QString DeckFolder::shownFile(const QString &name) const
{
    return m_shown + QDir::separator() + name;
}

bool DeckFolder::failErrno(const QString &what, int err, QString *error) const
{
    *error = QStringLiteral("cannot write %1: %2").arg(what, errnoText(err));
    return false;
}

QString DeckFolder::shown(const QString &message) const
{
    if (!m_staging)
        return message;
    QString text = message;
    text.replace(m_staging->path(), m_shown);
    text.replace(QDir::toNativeSeparators(m_staging->path()), m_shown);
    return text;
}

DeckFolder::Target DeckFolder::inspect() const
{
    Target target;
    const QByteArray path = encoded(m_path);
    struct stat st;
    if (::lstat(path.constData(), &st) != 0) {
        if (errno != ENOENT) {
            target.problem = QStringLiteral("cannot write %1: %2").arg(m_shown, errnoText(errno));
            return target;
        }
        // A new folder: its parent must be a folder that takes new entries.
        const QString parent = QFileInfo(m_path).absolutePath();
        struct stat up;
        if (::stat(encoded(parent).constData(), &up) != 0 || !S_ISDIR(up.st_mode)) {
            const bool missing = errno == ENOENT;
            target.problem = QStringLiteral("cannot write %1: the folder %2 %3")
                                 .arg(m_shown, QDir::toNativeSeparators(parent),
                                      missing ? QStringLiteral("does not exist")
                                              : QStringLiteral("is not a folder"));
            return target;
        }
        target.problem = writableFolderProblem(m_shown, parent);
        return target;
    }
    target.exists = true;
    if (::stat(path.constData(), &st) != 0) {
        target.problem = QStringLiteral("cannot write %1: it is a symbolic link to nothing (%2)")
                             .arg(m_shown, errnoText(errno));
        return target;
    }
    if (!S_ISDIR(st.st_mode)) {
        target.problem = QStringLiteral("%1 is a file; an HTML deck is a folder (name a .pdf "
                                        "for slides)")
                             .arg(m_shown);
        return target;
    }
    target.folder = QFileInfo(m_path).canonicalFilePath();
    if (const QString problem = writableFolderProblem(m_shown, target.folder); !problem.isEmpty()) {
        target.problem = problem;
        return target;
    }
    QStringList present =
        QDir(target.folder)
            .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                       QDir::Name);
    if (m_staging) // this deck's own staging folder, inside
        present.removeAll(QFileInfo(m_staging->path()).fileName());
    const QString manifestPath = target.folder + QLatin1Char('/') + manifestName();
    const bool hasManifest = present.contains(manifestName());
    if (hasManifest) {
        struct stat ms;
        if (::lstat(encoded(manifestPath).constData(), &ms) != 0 || !S_ISREG(ms.st_mode)) {
            target.problem = QStringLiteral("cannot write %1: %2 is not a plain file")
                                 .arg(m_shown, shownFile(manifestName()));
            return target;
        }
        QString error;
        const std::optional<QByteArray> text =
            readUserFile(manifestPath, qint64(1) << 20, &error, QStringLiteral("a deck's list"));
        if (!text) {
            target.problem = QStringLiteral("cannot write %1: %2").arg(m_shown, error);
            return target;
        }
        target.owned = deckManifestNames(*text, m_ownNames, present);
    }
    QStringList foreign;
    for (const QString &name : present)
        if (name != manifestName() && !target.owned.contains(name))
            foreign.append(name);
    // A deck written before keeps what the user added beside it; any other folder must be empty.
    if (!hasManifest && !foreign.isEmpty())
        target.problem =
            QStringLiteral("%1 holds other files (%2%3); name a new or empty folder")
                .arg(m_shown, shownFile(foreign.first()),
                     foreign.size() > 1 ? QStringLiteral(" and %1 more").arg(foreign.size() - 1)
                                        : QString());
    return target;
}

QString DeckFolder::problem(const QStringList &names) const
{
    const Target target = inspect();
    if (!target.problem.isEmpty() || !target.exists)
        return target.problem;
    for (const QString &name : names) {
        const QString path = target.folder + QLatin1Char('/') + name;
        struct stat st;
        if (::lstat(encoded(path).constData(), &st) != 0)
            continue;
        if (!target.owned.contains(name))
            return QStringLiteral("%1 is not a file an earlier deck wrote there; move it away "
                                  "or name another folder")
                .arg(shownFile(name));
        if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            return QStringLiteral("%1 is not a plain file; move it away or name another folder")
                .arg(shownFile(name));
    }
    return {};
}

bool DeckFolder::begin(QString *error)
{
    const Target target = inspect();
    if (!target.problem.isEmpty()) {
        *error = target.problem;
        return false;
    }
    const QString pid = QString::number(QCoreApplication::applicationPid());
    // A new deck is made beside its place and renamed into it whole; an existing folder (or the
    // one a link names) gets a hidden folder inside it, on the same file system.
    const QString staging =
        target.exists
            ? QStringLiteral("%1/.pescope-deck.partial-%2").arg(target.folder, pid)
            : QStringLiteral("%1/.%2.partial-%3")
                  .arg(QFileInfo(m_path).absolutePath(), QFileInfo(m_path).fileName(), pid);
    m_staging = std::make_unique<StagingFolder>(staging);
    m_names.clear();
    if (!m_staging->create(m_shown, error, target.exists ? 0700 : 0777)) {
        m_staging.reset();
        return false;
    }
    return true;
}

QString DeckFolder::stagedPath(const QString &name) const
{
    return m_staging ? m_staging->filePath(name) : QString();
}

bool DeckFolder::write(const QString &name, const QByteArray &bytes, QString *error)
{
    if (!m_staging) {
        *error = QStringLiteral("cannot write %1: the deck was not begun").arg(shownFile(name));
        return false;
    }
    if (const int err = writeNewFile(m_staging->filePath(name), bytes); err != 0)
        return failErrno(shownFile(name), err, error);
    m_names.append(name);
    return true;
}

QByteArray DeckFolder::manifest(const QStringList &names) const
{
    return (m_header.trimmed() + QStringLiteral("\n\n") + names.join(QLatin1Char('\n')) +
            QLatin1Char('\n'))
        .toUtf8();
}

bool DeckFolder::commit(QString *error)
{
    if (!m_staging) {
        *error = QStringLiteral("cannot write %1: the deck was not begun").arg(m_shown);
        return false;
    }
    const Target target = inspect();
    QString problem = target.problem.isEmpty() ? this->problem(m_names) : target.problem;
    if (!problem.isEmpty()) {
        *error = problem;
        return false;
    }
    const bool done = target.exists ? commitInto(target, error) : commitNew(error);
    m_staging.reset(); // removes what is left of it
    return done;
}

bool DeckFolder::commitNew(QString *error)
{
    if (const int err = writeNewFile(m_staging->filePath(manifestName()), manifest(m_names));
        err != 0)
        return failErrno(shownFile(manifestName()), err, error);
    if (::rename(encoded(m_staging->path()).constData(), encoded(m_path).constData()) != 0)
        return failErrno(m_shown, errno, error);
    m_staging->release();
    syncFolder(QFileInfo(m_path).absolutePath());
    return true;
}

bool DeckFolder::commitInto(const Target &target, QString *error)
{
    const auto placed = [&](const QString &name) {
        return encoded(target.folder + QLatin1Char('/') + name);
    };
    const auto moveIn = [&](const QString &name) {
        if (::rename(encoded(m_staging->filePath(name)).constData(), placed(name).constData()) == 0)
            return true;
        return failErrno(shownFile(name), errno, error);
    };
    const auto writeManifest = [&](const QStringList &names) {
        if (const int err = writeNewFile(m_staging->filePath(manifestName()), manifest(names));
            err != 0)
            return failErrno(shownFile(manifestName()), err, error);
        return moveIn(manifestName());
    };
    // First a list of the old files and the new, so that the folder's list covers every file of
    // either deck whatever happens from here; then the files; then the list of the new alone.
    QStringList both = target.owned;
    for (const QString &name : m_names)
        if (!both.contains(name))
            both.append(name);
    if (!writeManifest(both))
        return false;
    for (const QString &name : m_names)
        if (!moveIn(name))
            return false;
    for (const QString &name : target.owned) {
        if (m_names.contains(name))
            continue;
        struct stat st;
        // unlink(2) removes a link itself, never what it points to; a folder is left alone.
        if (::lstat(placed(name).constData(), &st) == 0 &&
            (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            ::unlink(placed(name).constData());
    }
    if (!writeManifest(m_names))
        return false;
    syncFolder(target.folder);
    return true;
}

} // namespace pe
