// Where models are: Hugging Face's local hub cache (models--ORG--NAME/snapshots/REV/...), and
// what a user names (a model folder, a .safetensors / .gguf / .npy file, or a repo id such as
// "gpt2" or "openai-community/gpt2") resolved to the files to open. Nothing is downloaded.
#pragma once

#include "fields/choicenames.h"

#include <QList>
#include <QString>

#include <optional>

namespace pe {

struct CachedModel
{
    QString repoId;   // "openai-community/gpt2", or "gpt2" for a legacy un-namespaced repo
    QString folder;   // <hub>/models--openai-community--gpt2
    QString revision; // the snapshot's commit
    QString snapshot; // <folder>/snapshots/<revision>
    bool revisionFromRef = false; // from refs/main; otherwise the newest snapshot
};

class HfCache
{
public:
    // $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub (huggingface_hub's order);
    // empty variables count as unset.
    static QString defaultHubPath();

    explicit HfCache(const QString &hubPath = defaultHubPath());
    const QString &hubPath() const { return m_hub; }

    // The models with at least one snapshot, sorted by repo id. A missing hub folder has none.
    QList<CachedModel> models() const;
    // "org/name" matches models--org--name; a bare "name" matches models--name, else a unique
    // models--*--name. `error` says why not: malformed id, not cached, ambiguous (naming the
    // candidates), or no snapshot.
    std::optional<CachedModel> find(const QString &repoId, QString *error) const;
    // The snapshot of one models--* folder: refs/main when it names an existing snapshot,
    // else the most recently modified snapshot.
    static std::optional<CachedModel> snapshotOf(const QString &modelFolder, QString *error);

private:
    QString m_hub;
};

enum class ModelSourceKind {
    ConfigOnly,         // a folder (or config.json) without weights
    Safetensors,        // one .safetensors file
    ShardedSafetensors, // model.safetensors.index.json and its shards
    Gguf,
    Npy,
};

// Names for `pescope inspect` and messages.
inline constexpr ChoiceName modelSourceKindNames[] = {
    choice(ModelSourceKind::ConfigOnly, "config-only", "config.json without weights"),
    choice(ModelSourceKind::Safetensors, "safetensors", "safetensors"),
    choice(ModelSourceKind::ShardedSafetensors, "sharded-safetensors", "sharded safetensors"),
    choice(ModelSourceKind::Gguf, "gguf", "GGUF"),
    choice(ModelSourceKind::Npy, "npy", ".npy array"),
};

struct ModelLocation
{
    ModelSourceKind kind = ModelSourceKind::ConfigOnly;
    QString folder;      // the model folder (or the folder of the file given)
    QString configPath;  // config.json when there is one
    QString weightsPath; // the .safetensors / index / .gguf / .npy file; empty for ConfigOnly
    QString repoId;      // when resolved through the cache
    QString revision;
};

// Resolves `pathOrRepoId`: an existing folder (config.json and/or safetensors weights: the
// shard index first, then model.safetensors, then a single *.safetensors; or a single .gguf),
// an existing file (.safetensors, *.safetensors.index.json, .gguf, .npy; config.json, with the
// weights beside it when the folder's are unambiguous; other names by their magic bytes), a
// models--* cache folder, or else a repo id looked up in `cache`. `error` names what was tried.
std::optional<ModelLocation> resolveModel(const QString &pathOrRepoId, QString *error,
                                          const HfCache &cache = HfCache());

} // namespace pe
