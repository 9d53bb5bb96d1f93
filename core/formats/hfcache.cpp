#include "hfcache.h"

#include "io/userfile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace pe {

namespace {

// A repo-id part or a revision: what huggingface_hub allows, never "." or "..", no separators.
bool isPlainName(const QString &name)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9._-]+$"));
    return !name.isEmpty() && name != QLatin1String(".") && name != QLatin1String("..") &&
           !name.contains(QLatin1String("--")) && !name.contains(QLatin1String("..")) &&
           allowed.match(name).hasMatch();
}

// "models--org--name" -> "org/name"; "models--gpt2" -> "gpt2".
QString repoIdOf(const QString &folderName)
{
    QString rest = folderName.mid(int(qstrlen("models--")));
    const qsizetype split = rest.indexOf(QLatin1String("--"));
    if (split < 0)
        return rest;
    return rest.left(split) + QLatin1Char('/') + rest.mid(split + 2);
}

QString folderNameOf(const QString &repoId)
{
    QString name = repoId;
    return QStringLiteral("models--") + name.replace(QLatin1Char('/'), QLatin1String("--"));
}

// The first bytes of `path`, for files whose name says nothing.
QByteArray magicOf(const QString &path)
{
    QFile file(path);
    const QFileInfo info(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly))
        return {};
    return file.read(8);
}

} // namespace

QString HfCache::defaultHubPath()
{
    QString hub = qEnvironmentVariable("HF_HUB_CACHE");
    if (!hub.isEmpty())
        return hub;
    const QString home = qEnvironmentVariable("HF_HOME");
    if (!home.isEmpty())
        return QDir(home).filePath(QStringLiteral("hub"));
    return QDir::home().filePath(QStringLiteral(".cache/huggingface/hub"));
}

HfCache::HfCache(const QString &hubPath) : m_hub(hubPath) {}

std::optional<CachedModel> HfCache::snapshotOf(const QString &modelFolder, QString *error)
{
    const QDir folder(modelFolder);
    CachedModel model;
    model.folder = QDir::toNativeSeparators(folder.absolutePath());
    model.repoId = repoIdOf(folder.dirName());
    const QDir snapshots(folder.filePath(QStringLiteral("snapshots")));
    QFile ref(folder.filePath(QStringLiteral("refs/main")));
    if (ref.open(QIODevice::ReadOnly)) {
        // A commit hash is 40 characters; read a little more to see junk, never the file.
        const QString revision = QString::fromUtf8(ref.read(256)).trimmed();
        if (isPlainName(revision) && QFileInfo(snapshots.filePath(revision)).isDir()) {
            model.revision = revision;
            model.revisionFromRef = true;
        }
    }
    if (model.revision.isEmpty()) {
        QFileInfoList candidates =
            snapshots.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        candidates.erase(
            std::remove_if(candidates.begin(), candidates.end(),
                           [](const QFileInfo &info) { return !isPlainName(info.fileName()); }),
            candidates.end());
        if (candidates.isEmpty()) {
            if (error)
                *error = QStringLiteral("%1: no snapshot of %2 in the cache (an interrupted "
                                        "download?)")
                             .arg(model.folder, model.repoId);
            return std::nullopt;
        }
        // Newest first; the name breaks ties so the choice does not depend on listing order.
        const auto newest = std::max_element(
            candidates.cbegin(), candidates.cend(), [](const QFileInfo &a, const QFileInfo &b) {
                return a.lastModified() != b.lastModified() ? a.lastModified() < b.lastModified()
                                                            : a.fileName() < b.fileName();
            });
        model.revision = newest->fileName();
    }
    model.snapshot = QDir::toNativeSeparators(snapshots.filePath(model.revision));
    return model;
}

QList<CachedModel> HfCache::models() const
{
    QList<CachedModel> found;
    const QDir hub(m_hub);
    if (m_hub.isEmpty() || !hub.exists())
        return found;
    const QStringList folders =
        hub.entryList({QStringLiteral("models--*")}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &name : folders) {
        if (std::optional<CachedModel> model = snapshotOf(hub.filePath(name), nullptr))
            found += *model;
    }
    std::sort(found.begin(), found.end(),
              [](const CachedModel &a, const CachedModel &b) { return a.repoId < b.repoId; });
    return found;
}

std::optional<CachedModel> HfCache::find(const QString &repoId, QString *error) const
{
    const auto fail = [&](const QString &why) -> std::optional<CachedModel> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const QStringList parts = repoId.split(QLatin1Char('/'));
    if (parts.size() > 2 || !std::all_of(parts.cbegin(), parts.cend(), isPlainName))
        return fail(
            QStringLiteral("\"%1\" is not a Hugging Face repo id (ORG/NAME or NAME)").arg(repoId));
    const QDir hub(m_hub);
    if (m_hub.isEmpty() || !hub.exists())
        return fail(QStringLiteral("%1 is not a file or folder, and there is no Hugging Face "
                                   "cache at %2")
                        .arg(repoId, QDir::toNativeSeparators(m_hub)));
    const QString exact = folderNameOf(repoId);
    if (QFileInfo(hub.filePath(exact)).isDir())
        return snapshotOf(hub.filePath(exact), error);
    if (parts.size() == 1) {
        const QStringList matches = hub.entryList({QStringLiteral("models--*--") + repoId},
                                                  QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        if (matches.size() == 1)
            return snapshotOf(hub.filePath(matches.front()), error);
        if (matches.size() > 1) {
            QStringList ids;
            for (const QString &match : matches)
                ids += repoIdOf(match);
            return fail(QStringLiteral("\"%1\" matches several cached models: %2; name one")
                            .arg(repoId, ids.join(QLatin1String(", "))));
        }
    }
    return fail(QStringLiteral("%1 is not a file or folder, nor a model in the Hugging Face "
                               "cache at %2")
                    .arg(repoId, QDir::toNativeSeparators(m_hub)));
}

namespace {

QString nativePath(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

std::optional<ModelLocation> failWith(QString *error, const QString &why)
{
    if (error)
        *error = why;
    return std::nullopt;
}

// The weights a model folder holds: the shard index, model.safetensors, a single .safetensors,
// else a single .gguf when there is no config.json.
std::optional<ModelLocation> locateWeights(const QDir &dir, ModelLocation location, QString *error)
{
    const QString index = dir.filePath(QStringLiteral("model.safetensors.index.json"));
    const QString single = dir.filePath(QStringLiteral("model.safetensors"));
    const QStringList safetensors =
        dir.entryList({QStringLiteral("*.safetensors")}, QDir::Files, QDir::Name);
    const QStringList ggufs = dir.entryList({QStringLiteral("*.gguf")}, QDir::Files, QDir::Name);
    if (QFileInfo(index).isFile()) {
        location.kind = ModelSourceKind::ShardedSafetensors;
        location.weightsPath = nativePath(index);
    } else if (QFileInfo(single).isFile()) {
        location.kind = ModelSourceKind::Safetensors;
        location.weightsPath = nativePath(single);
    } else if (safetensors.size() == 1) {
        location.kind = ModelSourceKind::Safetensors;
        location.weightsPath = nativePath(dir.filePath(safetensors.front()));
    } else if (safetensors.size() > 1) {
        return failWith(error, QStringLiteral("%1 holds %2 .safetensors files but no "
                                              "model.safetensors.index.json; open one of them")
                                   .arg(location.folder)
                                   .arg(safetensors.size()));
    } else if (location.configPath.isEmpty() && ggufs.size() == 1) {
        location.kind = ModelSourceKind::Gguf;
        location.weightsPath = nativePath(dir.filePath(ggufs.front()));
    } else if (location.configPath.isEmpty()) {
        return failWith(error,
                        QStringLiteral("%1 holds no config.json, .safetensors or single .gguf file")
                            .arg(location.folder));
    } else {
        location.kind = ModelSourceKind::ConfigOnly;
    }
    return location;
}

// A folder: a model folder, or one snapshot of a cache's models--* folder.
std::optional<ModelLocation> locateFolder(const QDir &dir, const QString &repoId,
                                          const QString &revision, QString *error)
{
    ModelLocation location;
    location.folder = nativePath(dir.absolutePath());
    location.repoId = repoId;
    location.revision = revision;
    // A FIFO, folder or device under a name pescope reads is named, never skipped.
    const QStringList readNames = {QStringLiteral("config.json"), QStringLiteral("*.safetensors"),
                                   QStringLiteral("*.gguf"),
                                   QStringLiteral("model.safetensors.index.json")};
    for (const QString &name : dir.entryList(readNames, QDir::AllEntries | QDir::System |
                                                            QDir::Hidden | QDir::NoDotAndDotDot)) {
        if (const QString kind = nonRegularKind(dir.filePath(name)); !kind.isEmpty())
            return failWith(error, QStringLiteral("%1 is %2, not a regular file")
                                       .arg(nativePath(dir.filePath(name)), kind));
    }
    if (QFileInfo(dir.filePath(QStringLiteral("config.json"))).isFile())
        location.configPath = nativePath(dir.filePath(QStringLiteral("config.json")));
    return locateWeights(dir, location, error);
}

// A file: config.json (with the weights beside it), a config under another name, or weights
// of a format pescope reads (by name, else by magic), with a config.json beside them.
std::optional<ModelLocation> locateFile(const QFileInfo &info, const QString &path, QString *error)
{
    if (!info.isFile())
        return failWith(error, QStringLiteral("%1 is %2, not a regular file")
                                   .arg(nativePath(path), nonRegularKind(path)));
    ModelLocation location;
    const QDir dir = info.absoluteDir();
    location.folder = nativePath(dir.absolutePath());
    location.weightsPath = nativePath(info.absoluteFilePath());
    const QString name = info.fileName().toLower();
    const QString besideConfig = dir.filePath(QStringLiteral("config.json"));
    const QByteArray magic = magicOf(info.absoluteFilePath());
    if (name == QLatin1String("config.json")) {
        // The config was asked for: weights beside it when they are unambiguous, else none (and
        // no error: the config alone is a model).
        QString noWeights;
        std::optional<ModelLocation> folder = locateFolder(dir, {}, {}, &noWeights);
        if (!folder) {
            folder = ModelLocation{};
            folder->folder = location.folder;
        }
        folder->configPath = location.weightsPath;
        return folder;
    }
    if (name.endsWith(QLatin1String(".json")) &&
        !name.endsWith(QLatin1String(".safetensors.index.json"))) {
        // A config under another name (a fixture, a download renamed): that file alone.
        ModelLocation config;
        config.folder = location.folder;
        config.configPath = location.weightsPath;
        return config;
    }
    if (name.endsWith(QLatin1String(".safetensors.index.json"))) {
        location.kind = ModelSourceKind::ShardedSafetensors;
    } else if (name.endsWith(QLatin1String(".safetensors"))) {
        location.kind = ModelSourceKind::Safetensors;
    } else if (name.endsWith(QLatin1String(".gguf")) || magic.startsWith("GGUF")) {
        location.kind = ModelSourceKind::Gguf;
    } else if (name.endsWith(QLatin1String(".npy")) || magic.startsWith("\x93NUMPY")) {
        location.kind = ModelSourceKind::Npy;
    } else {
        return failWith(error, QStringLiteral("%1: not a model file pescope knows (.safetensors, "
                                              ".safetensors.index.json, .gguf, .npy or "
                                              "config.json)")
                                   .arg(nativePath(path)));
    }
    if ((location.kind == ModelSourceKind::Safetensors ||
         location.kind == ModelSourceKind::ShardedSafetensors) &&
        QFileInfo(besideConfig).isFile())
        location.configPath = nativePath(besideConfig);
    return location;
}

} // namespace

std::optional<ModelLocation> resolveModel(const QString &pathOrRepoId, QString *error,
                                          const HfCache &cache)
{
    if (pathOrRepoId.isEmpty())
        return failWith(error, QStringLiteral("no model named"));
    // No file name holds a NUL (a session or lesson can spell one, \u0000): Qt would warn
    // "Broken filename" on stderr and find nothing. Refused by name, the NUL written as \0.
    if (const qsizetype nul = pathOrRepoId.indexOf(QChar(u'\0')); nul >= 0) {
        const QString shown = QString(pathOrRepoId).replace(QChar(u'\0'), QStringLiteral("\\0"));
        return failWith(error, QStringLiteral("\"%1\": a model path or repo id cannot contain a "
                                              "NUL character (\\0, character %2)")
                                   .arg(shown, QString::number(nul + 1)));
    }
    const QFileInfo info(pathOrRepoId);
    if (info.isDir()) {
        const QDir dir(info.absoluteFilePath());
        if (dir.dirName().startsWith(QLatin1String("models--")) &&
            QFileInfo(dir.filePath(QStringLiteral("snapshots"))).isDir()) {
            const std::optional<CachedModel> model = HfCache::snapshotOf(dir.absolutePath(), error);
            if (!model)
                return std::nullopt;
            return locateFolder(QDir(model->snapshot), model->repoId, model->revision, error);
        }
        return locateFolder(dir, {}, {}, error);
    }
    if (info.exists())
        return locateFile(info, pathOrRepoId, error);

    // Not on disk: a repo id in the cache, unless it is plainly a path.
    if (pathOrRepoId.startsWith(QLatin1Char('/')) || pathOrRepoId.startsWith(QLatin1Char('.')) ||
        pathOrRepoId.startsWith(QLatin1Char('~')))
        return failWith(error,
                        QStringLiteral("%1: no such file or folder").arg(nativePath(pathOrRepoId)));
    const std::optional<CachedModel> model = cache.find(pathOrRepoId, error);
    if (!model)
        return std::nullopt;
    return locateFolder(QDir(model->snapshot), model->repoId, model->revision, error);
}

} // namespace pe
