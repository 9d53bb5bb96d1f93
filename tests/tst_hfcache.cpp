// Hugging Face cache and model locations: the hub folder from the environment, the cached
// models and their snapshots (refs/main, else the newest), repo ids resolved (ORG/NAME, a bare
// NAME), and what a user names (folders, files, repo ids) resolved to the files to read. The
// cache is a layout built in a temporary folder, files symlinked into blobs/ as the hub does.
#include "formats/hfcache.h"
#include "formats/modelconfig.h"
#include "formats/modeltensors.h"
#include "formats/safetensorsfile.h"
#include "modelfilewriter.h"

#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_UNIX
#include <sys/time.h>
#endif

using namespace pe;
using namespace pe::test;

namespace {

// Restores an environment variable when it goes out of scope.
class EnvGuard
{
public:
    explicit EnvGuard(const char *name)
        : m_name(name), m_had(qEnvironmentVariableIsSet(name)), m_value(qgetenv(name))
    {}
    ~EnvGuard()
    {
        if (m_had)
            qputenv(m_name, m_value);
        else
            qunsetenv(m_name);
    }

private:
    const char *m_name;
    bool m_had;
    QByteArray m_value;
};

bool setModified(const QString &path, qint64 secondsSinceEpoch)
{
#ifdef Q_OS_UNIX
    const timeval times[2] = {{secondsSinceEpoch, 0}, {secondsSinceEpoch, 0}};
    return ::utimes(QFile::encodeName(path).constData(), times) == 0;
#else
    Q_UNUSED(path);
    Q_UNUSED(secondsSinceEpoch);
    return true;
#endif
}

} // namespace

class TestHfCache : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void hubPathFromEnvironment();
    void listsCachedModels();
    void findsRepoIds_data();
    void findsRepoIds();
    void resolvesUserPaths();
    void opensAModelThroughTheCache();
    void modelTensorsOverEveryKind();
    void findsThePositionTable();

private:
    // A snapshot file stored as the hub stores it: a symlink into blobs/.
    bool addFile(const QString &model, const QString &revision, const QString &name,
                 const QByteArray &bytes);
    QString hub() const { return m_dir.filePath(QStringLiteral("hub")); }
    QTemporaryDir m_dir;
    QByteArray m_gpt2;
};

bool TestHfCache::addFile(const QString &model, const QString &revision, const QString &name,
                          const QByteArray &bytes)
{
    const QDir folder(hub() + QLatin1Char('/') + model);
    const QString blob = folder.filePath(QStringLiteral("blobs/") + QString::number(qHash(bytes)) +
                                         QLatin1Char('-') + name);
    const QString link = folder.filePath(QStringLiteral("snapshots/%1/%2").arg(revision, name));
    if (!writeBytes(blob, bytes) || !QDir().mkpath(QFileInfo(link).absolutePath()))
        return false;
#ifdef Q_OS_UNIX
    return QFile::link(blob, link);
#else
    return writeBytes(link, bytes);
#endif
}

void TestHfCache::initTestCase()
{
    QVERIFY(m_dir.isValid());
    std::vector<float> wpe;
    for (int i = 0; i < 8; ++i)
        wpe.push_back(float(i) / 8);
    m_gpt2 = safetensorsBytes(
        {{QStringLiteral("wpe.weight"), QStringLiteral("F32"), {4, 2}, f32Bytes(wpe)}});
    const QByteArray config = R"({"model_type":"gpt2","n_positions":4,"n_embd":2})";
    // openai-community/gpt2: refs/main names the current snapshot; an older one lingers.
    QVERIFY(addFile(QStringLiteral("models--openai-community--gpt2"), QStringLiteral("abc123"),
                    QStringLiteral("config.json"), config));
    QVERIFY(addFile(QStringLiteral("models--openai-community--gpt2"), QStringLiteral("abc123"),
                    QStringLiteral("model.safetensors"), m_gpt2));
    QVERIFY(addFile(QStringLiteral("models--openai-community--gpt2"), QStringLiteral("old999"),
                    QStringLiteral("config.json"), config));
    QVERIFY(writeBytes(hub() + QStringLiteral("/models--openai-community--gpt2/refs/main"),
                       "abc123\n"));
    // gpt2 (the legacy id): no refs, two snapshots; the newer one wins.
    QVERIFY(addFile(QStringLiteral("models--gpt2"), QStringLiteral("aaa"),
                    QStringLiteral("config.json"), config));
    QVERIFY(addFile(QStringLiteral("models--gpt2"), QStringLiteral("zzz"),
                    QStringLiteral("config.json"), config));
    QVERIFY(setModified(hub() + QStringLiteral("/models--gpt2/snapshots/aaa"), 2000000000));
    QVERIFY(setModified(hub() + QStringLiteral("/models--gpt2/snapshots/zzz"), 1000000000));
    // facebook/opt-125m: refs/main names a snapshot that is gone; the one present is used.
    QVERIFY(addFile(QStringLiteral("models--facebook--opt-125m"), QStringLiteral("present"),
                    QStringLiteral("config.json"), R"({"model_type":"opt"})"));
    QVERIFY(writeBytes(hub() + QStringLiteral("/models--facebook--opt-125m/refs/main"), "gone"));
    // Two orgs with the same model name, and an interrupted download without snapshots.
    QVERIFY(addFile(QStringLiteral("models--a--shared"), QStringLiteral("r"),
                    QStringLiteral("config.json"), "{}"));
    QVERIFY(addFile(QStringLiteral("models--b--shared"), QStringLiteral("r"),
                    QStringLiteral("config.json"), "{}"));
    QVERIFY(QDir().mkpath(hub() + QStringLiteral("/models--org--broken/blobs")));
    // A hostile refs/main pointing outside the snapshots.
    QVERIFY(addFile(QStringLiteral("models--org--tricky"), QStringLiteral("safe"),
                    QStringLiteral("config.json"), "{}"));
    QVERIFY(writeBytes(hub() + QStringLiteral("/models--org--tricky/refs/main"), "../../.."));
    // A sharded model.
    QVERIFY(addFile(QStringLiteral("models--org--big"), QStringLiteral("r1"),
                    QStringLiteral("model.safetensors.index.json"),
                    R"({"weight_map":{"wpe.weight":"model-00001-of-00001.safetensors"}})"));
    QVERIFY(addFile(QStringLiteral("models--org--big"), QStringLiteral("r1"),
                    QStringLiteral("model-00001-of-00001.safetensors"), m_gpt2));
    // Not model folders.
    QVERIFY(QDir().mkpath(hub() + QStringLiteral("/datasets--org--data/snapshots/r")));
    QVERIFY(writeBytes(hub() + QStringLiteral("/version.txt"), "1"));
}

void TestHfCache::hubPathFromEnvironment()
{
    const EnvGuard hubGuard("HF_HUB_CACHE"), homeGuard("HF_HOME"), userHome("HOME");
    qputenv("HF_HUB_CACHE", "/somewhere/hub-cache");
    qputenv("HF_HOME", "/elsewhere/hf");
    QCOMPARE(HfCache::defaultHubPath(), QStringLiteral("/somewhere/hub-cache"));
    qputenv("HF_HUB_CACHE", "");
    QCOMPARE(QDir::cleanPath(HfCache::defaultHubPath()), QStringLiteral("/elsewhere/hf/hub"));
    qunsetenv("HF_HUB_CACHE");
    QCOMPARE(QDir::cleanPath(HfCache::defaultHubPath()), QStringLiteral("/elsewhere/hf/hub"));
    qunsetenv("HF_HOME");
#ifdef Q_OS_UNIX
    qputenv("HOME", m_dir.path().toUtf8());
    QCOMPARE(QDir::cleanPath(HfCache::defaultHubPath()),
             QDir::cleanPath(m_dir.path() + QStringLiteral("/.cache/huggingface/hub")));
#endif
    qputenv("HF_HUB_CACHE", hub().toUtf8());
    QCOMPARE(HfCache().hubPath(), hub());
    QCOMPARE(HfCache().models().size(), qsizetype(7));
}

void TestHfCache::listsCachedModels()
{
    const QList<CachedModel> models = HfCache(hub()).models();
    QStringList ids;
    for (const CachedModel &m : models)
        ids += m.repoId;
    // Sorted; the broken download and the dataset are left out.
    QCOMPARE(ids, (QStringList{QStringLiteral("a/shared"), QStringLiteral("b/shared"),
                               QStringLiteral("facebook/opt-125m"), QStringLiteral("gpt2"),
                               QStringLiteral("openai-community/gpt2"), QStringLiteral("org/big"),
                               QStringLiteral("org/tricky")}));
    const CachedModel &community = models[4];
    QCOMPARE(community.revision, QStringLiteral("abc123"));
    QVERIFY(community.revisionFromRef);
    QVERIFY(community.snapshot.endsWith(
        QStringLiteral("models--openai-community--gpt2/snapshots/abc123")));
    QCOMPARE(models[3].revision, QStringLiteral("aaa"));
    QVERIFY(!models[3].revisionFromRef);
    QCOMPARE(models[2].revision, QStringLiteral("present"));
    QVERIFY(!models[2].revisionFromRef);
    QCOMPARE(models[6].revision, QStringLiteral("safe"));
    // No hub folder: no models, no error.
    QVERIFY(HfCache(m_dir.filePath(QStringLiteral("nothing-here"))).models().isEmpty());
}

void TestHfCache::findsRepoIds_data()
{
    QTest::addColumn<QString>("repoId");
    QTest::addColumn<QString>("foundId");
    QTest::addColumn<QString>("revision");
    QTest::addColumn<QString>("error");
    QTest::addRow("ORG/NAME") << "openai-community/gpt2"
                              << "openai-community/gpt2"
                              << "abc123"
                              << "";
    QTest::addRow("bare name, exact folder") << "gpt2"
                                             << "gpt2"
                                             << "aaa"
                                             << "";
    QTest::addRow("bare name, unique suffix") << "opt-125m"
                                              << "facebook/opt-125m"
                                              << "present"
                                              << "";
    QTest::addRow("ambiguous") << "shared"
                               << ""
                               << ""
                               << "\"shared\" matches several cached models: a/shared, b/shared";
    QTest::addRow("no snapshot") << "org/broken"
                                 << ""
                                 << ""
                                 << "no snapshot of org/broken";
    QTest::addRow("not cached") << "meta-llama/Llama-3.1-8B"
                                << ""
                                << ""
                                << "nor a model in the Hugging Face cache";
    QTest::addRow("parent folder") << "../hub"
                                   << ""
                                   << ""
                                   << "is not a Hugging Face repo id";
    QTest::addRow("three parts") << "a/b/c"
                                 << ""
                                 << ""
                                 << "is not a Hugging Face repo id";
    QTest::addRow("double dash") << "a--b"
                                 << ""
                                 << ""
                                 << "is not a Hugging Face repo id";
    QTest::addRow("wildcard") << "*"
                              << ""
                              << ""
                              << "is not a Hugging Face repo id";
}

void TestHfCache::findsRepoIds()
{
    QFETCH(QString, repoId);
    QFETCH(QString, foundId);
    QFETCH(QString, revision);
    QFETCH(QString, error);
    QString message;
    const std::optional<CachedModel> model = HfCache(hub()).find(repoId, &message);
    if (foundId.isEmpty()) {
        QVERIFY(!model);
        QVERIFY2(message.contains(error), qPrintable(message));
        return;
    }
    QVERIFY2(model, qPrintable(message));
    QCOMPARE(model->repoId, foundId);
    QCOMPARE(model->revision, revision);
    QVERIFY(QFileInfo(model->snapshot).isDir());
}

void TestHfCache::resolvesUserPaths()
{
    const HfCache cache(hub());
    QString error;
    const auto resolve = [&](const QString &what) { return resolveModel(what, &error, cache); };

    // A repo id: the snapshot's config and weights.
    std::optional<ModelLocation> gpt2 = resolve(QStringLiteral("openai-community/gpt2"));
    QVERIFY2(gpt2, qPrintable(error));
    QCOMPARE(gpt2->kind, ModelSourceKind::Safetensors);
    QCOMPARE(gpt2->repoId, QStringLiteral("openai-community/gpt2"));
    QCOMPARE(gpt2->revision, QStringLiteral("abc123"));
    QVERIFY(gpt2->configPath.endsWith(QStringLiteral("snapshots/abc123/config.json")));
    QVERIFY(gpt2->weightsPath.endsWith(QStringLiteral("snapshots/abc123/model.safetensors")));
    // Config only.
    std::optional<ModelLocation> legacy = resolve(QStringLiteral("gpt2"));
    QVERIFY2(legacy, qPrintable(error));
    QCOMPARE(legacy->kind, ModelSourceKind::ConfigOnly);
    QVERIFY(legacy->weightsPath.isEmpty());
    // A sharded model, by repo id and by its models--* folder.
    std::optional<ModelLocation> big = resolve(QStringLiteral("org/big"));
    QVERIFY2(big, qPrintable(error));
    QCOMPARE(big->kind, ModelSourceKind::ShardedSafetensors);
    QVERIFY(big->weightsPath.endsWith(QStringLiteral("model.safetensors.index.json")));
    QVERIFY(big->configPath.isEmpty());
    std::optional<ModelLocation> byFolder = resolve(hub() + QStringLiteral("/models--org--big"));
    QVERIFY2(byFolder, qPrintable(error));
    QCOMPARE(byFolder->repoId, QStringLiteral("org/big"));
    QCOMPARE(byFolder->weightsPath, big->weightsPath);

    // Plain folders and files.
    const QString plain = m_dir.filePath(QStringLiteral("plain"));
    QVERIFY(writeBytes(plain + QStringLiteral("/weights.safetensors"), m_gpt2));
    std::optional<ModelLocation> single = resolve(plain);
    QVERIFY2(single, qPrintable(error));
    QCOMPARE(single->kind, ModelSourceKind::Safetensors);
    QVERIFY(single->weightsPath.endsWith(QStringLiteral("weights.safetensors")));
    QVERIFY(writeBytes(plain + QStringLiteral("/other.safetensors"), m_gpt2));
    QVERIFY(!resolve(plain));
    QVERIFY2(error.contains(QLatin1String("holds 2 .safetensors files but no "
                                          "model.safetensors.index.json")),
             qPrintable(error));
    QVERIFY(writeBytes(plain + QStringLiteral("/config.json"), "{}"));
    // The config asked for by name: with two weight files beside it, the config alone.
    std::optional<ModelLocation> config = resolve(plain + QStringLiteral("/config.json"));
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->kind, ModelSourceKind::ConfigOnly);
    QVERIFY(config->weightsPath.isEmpty());
    QVERIFY(config->configPath.endsWith(QStringLiteral("plain/config.json")));
    std::optional<ModelLocation> file = resolve(plain + QStringLiteral("/other.safetensors"));
    QVERIFY2(file, qPrintable(error));
    QCOMPARE(file->kind, ModelSourceKind::Safetensors);
    QVERIFY(file->configPath.endsWith(QStringLiteral("plain/config.json")));

    const QString ggufFolder = m_dir.filePath(QStringLiteral("gguf"));
    QVERIFY(writeBytes(ggufFolder + QStringLiteral("/tiny-Q4_K_M.gguf"), GgufBuilder(3).build()));
    std::optional<ModelLocation> gguf = resolve(ggufFolder);
    QVERIFY2(gguf, qPrintable(error));
    QCOMPARE(gguf->kind, ModelSourceKind::Gguf);
    // A GGUF file by its magic, whatever its name.
    QVERIFY(writeBytes(ggufFolder + QStringLiteral("/model.bin"), GgufBuilder(2).build()));
    gguf = resolve(ggufFolder + QStringLiteral("/model.bin"));
    QVERIFY2(gguf, qPrintable(error));
    QCOMPARE(gguf->kind, ModelSourceKind::Gguf);
    const QString npyPath = m_dir.filePath(QStringLiteral("table.npy"));
    QVERIFY(writeBytes(npyPath, npyBytes("<f4", {1}, f32Bytes({1}))));
    std::optional<ModelLocation> npy = resolve(npyPath);
    QVERIFY2(npy, qPrintable(error));
    QCOMPARE(npy->kind, ModelSourceKind::Npy);

    const QString configOnly = m_dir.filePath(QStringLiteral("configonly"));
    QVERIFY(writeBytes(configOnly + QStringLiteral("/config.json"), "{}"));
    std::optional<ModelLocation> onlyConfig = resolve(configOnly + QStringLiteral("/config.json"));
    QVERIFY2(onlyConfig, qPrintable(error));
    QCOMPARE(onlyConfig->kind, ModelSourceKind::ConfigOnly);
    QCOMPARE(onlyConfig->configPath,
             QDir::toNativeSeparators(configOnly + QStringLiteral("/config.json")));

    const QString unknown = m_dir.filePath(QStringLiteral("weights.bin"));
    QVERIFY(writeBytes(unknown, "PK\x03\x04 not a model"));
    QVERIFY(!resolve(unknown));
    QVERIFY2(error.contains(QLatin1String("not a model file pescope knows")), qPrintable(error));
    const QString empty = m_dir.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(empty));
    QVERIFY(!resolve(empty));
    QVERIFY2(error.contains(QLatin1String("holds no config.json, .safetensors or single .gguf")),
             qPrintable(error));
    QVERIFY(!resolve(QString()));
    QVERIFY(!resolve(QStringLiteral("not/cached")));
    QVERIFY2(error.contains(QLatin1String("not/cached is not a file or folder")),
             qPrintable(error));
}

void TestHfCache::opensAModelThroughTheCache()
{
    // End to end: a repo id, through the snapshot's symlink, to the tensor's rows.
    const EnvGuard hubGuard("HF_HUB_CACHE");
    qputenv("HF_HUB_CACHE", hub().toUtf8());
    QString error;
    const std::optional<ModelLocation> location =
        resolveModel(QStringLiteral("openai-community/gpt2"), &error);
    QVERIFY2(location, qPrintable(error));
    const std::optional<ModelConfig> config = readHfConfig(location->configPath, &error);
    QVERIFY2(config, qPrintable(error));
    ModelTensors tensors;
    QVERIFY2(tensors.open(*location, &error), qPrintable(error));
    const QString table = findPositionTable(*config, tensors.tensorNames());
    QCOMPARE(table, QStringLiteral("wpe.weight"));
    std::vector<float> rows;
    QVERIFY2(tensors.readRows(table, 2, 2, &rows, &error), qPrintable(error));
    QCOMPARE(rows, (std::vector<float>{0.5f, 0.625f, 0.75f, 0.875f}));
}

void TestHfCache::modelTensorsOverEveryKind()
{
    const HfCache cache(hub());
    QString error;
    // Sharded, through the index.
    ModelTensors sharded;
    QVERIFY2(sharded.open(*resolveModel(QStringLiteral("org/big"), &error, cache), &error),
             qPrintable(error));
    QCOMPARE(sharded.kind(), ModelSourceKind::ShardedSafetensors);
    QCOMPARE(sharded.tensorNames(), QStringList{QStringLiteral("wpe.weight")});
    std::vector<float> out;
    QVERIFY2(sharded.readRows(QStringLiteral("wpe.weight"), 3, 1, &out, &error), qPrintable(error));
    QCOMPARE(out, (std::vector<float>{0.75f, 0.875f}));
    std::vector<TensorInfo> all;
    QVERIFY2(sharded.forEachTensor([&](const TensorInfo &t) { all.push_back(t); }, &error),
             qPrintable(error));
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all.front().shape, (std::vector<qint64>{4, 2}));
    QVERIFY(!sharded.gguf());
    QVERIFY(!sharded.find(QStringLiteral("nope"), &error));
    QVERIFY2(error.contains(QLatin1String("lists no tensor nope")), qPrintable(error));

    // GGUF and npy.
    GgufBuilder builder(3);
    builder.addString("general.architecture", "gpt2");
    builder.addTensor("position_embd.weight", {2, 3}, 0, f32Bytes({1, 2, 3, 4, 5, 6}));
    const QString ggufPath = m_dir.filePath(QStringLiteral("kinds/gpt2.gguf"));
    QVERIFY(writeBytes(ggufPath, builder.build()));
    ModelTensors gguf;
    QVERIFY2(gguf.open(ggufPath, ModelSourceKind::Gguf, &error), qPrintable(error));
    QVERIFY(gguf.gguf());
    QCOMPARE(gguf.gguf()->architecture(), QStringLiteral("gpt2"));
    QVERIFY(gguf.readRows(QStringLiteral("position_embd.weight"), 1, 2, &out, &error));
    QCOMPARE(out, (std::vector<float>{3, 4, 5, 6}));
    const QString npyPath = m_dir.filePath(QStringLiteral("kinds/wpe.npy"));
    QVERIFY(writeBytes(npyPath, npyBytes("<f8", {2}, f64Bytes({0.25, -1}))));
    ModelTensors npy;
    QVERIFY2(npy.open(*resolveModel(npyPath, &error, cache), &error), qPrintable(error));
    QCOMPARE(npy.tensorNames(), QStringList{QStringLiteral("wpe")});
    QVERIFY(npy.readRows(QStringLiteral("wpe"), 0, -1, &out, &error));
    QCOMPARE(out, (std::vector<float>{0.25f, -1.0f}));
    QVERIFY(!npy.find(QStringLiteral("other"), &error));
    QVERIFY2(error.startsWith(npy.path()), qPrintable(error));

    // A config without weights, and a file of the wrong kind: messages, no crash.
    ModelTensors none;
    QVERIFY(!none.open(*resolveModel(QStringLiteral("gpt2"), &error, cache), &error));
    QVERIFY2(error.contains(QLatin1String("no weights beside the config")), qPrintable(error));
    QVERIFY(!none.isOpen());
    QVERIFY(none.tensorNames().isEmpty());
    QVERIFY(!none.readRows(QStringLiteral("x"), 0, 1, &out, &error));
    QVERIFY(!none.open(npyPath, ModelSourceKind::Gguf, &error));
    QVERIFY2(error.contains(QLatin1String("not a GGUF file")), qPrintable(error));
    QVERIFY(!none.isOpen());
}

void TestHfCache::findsThePositionTable()
{
    ModelConfig roberta;
    roberta.absolute.tensorNames = {QStringLiteral("roberta.embeddings.position_embeddings.weight"),
                                    QStringLiteral("embeddings.position_embeddings.weight")};
    // Exact names first, then a prefixed checkpoint, then GGUF's name; else nothing.
    QCOMPARE(findPositionTable(roberta,
                               {QStringLiteral("embeddings.position_embeddings.weight"),
                                QStringLiteral("roberta.embeddings.position_embeddings.weight")}),
             QStringLiteral("roberta.embeddings.position_embeddings.weight"));
    QCOMPARE(findPositionTable(
                 roberta, {QStringLiteral("encoder.layer.0.attention.self.query.weight"),
                           QStringLiteral("model.roberta.embeddings.position_embeddings.weight")}),
             QStringLiteral("model.roberta.embeddings.position_embeddings.weight"));
    QCOMPARE(findPositionTable(roberta, {QStringLiteral("position_embd.weight")}),
             QStringLiteral("position_embd.weight"));
    QCOMPARE(findPositionTable(roberta, {QStringLiteral("token_embd.weight")}), QString());
}

QTEST_GUILESS_MAIN(TestHfCache)
#include "tst_hfcache.moc"
