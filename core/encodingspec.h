// EncodingSpec: every parameter that defines one positional-encoding matrix, and its validation.
// Validation is the single place where limits are checked; nothing downstream re-checks.
#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace pe {

enum class Scheme { Sinusoidal, Learned, Rope };
enum class Layout { Interleaved, Split };

// RoPE (Su et al., RoFormer) pair layout: GPT-J interleaved (columns 2i, 2i+1) or GPT-NeoX /
// Llama half-split (columns i, i + r/2, r = rotary dims).
enum class RopePairing { Interleaved, Half };
// Hugging Face rope_type names: linear, ntk, dynamic, yarn, llama3 (see rope.h).
enum class RopeScaling { None, Linear, Ntk, DynamicNtk, Yarn, Llama3 };

// The RoPE-only fields of a spec; the base is EncodingSpec::base. Defaults are HF's.
struct RopeParameters
{
    RopePairing pairing = RopePairing::Interleaved;
    RopeScaling scaling = RopeScaling::None;
    double factor = 1.0;         // s: linear, ntk, dynamic-ntk, yarn, llama3
    qint64 originalContext = 0;  // original_max_position_embeddings (dynamic-ntk, yarn, llama3)
    qint64 currentLength = 0;    // dynamic-ntk's seq_len; <= 0: the original context (HF init)
    double lowFreqFactor = 1.0;  // llama3
    double highFreqFactor = 4.0; // llama3
    double betaFast = 32.0;      // yarn
    double betaSlow = 1.0;       // yarn
    bool yarnTruncate = true;    // yarn: floor/ceil the correction range (HF's default)
    double partialRotaryFactor = 1.0; // rotary dims = int(dims * factor), as HF computes `dim`
    bool operator==(const RopeParameters &) const = default;
};

namespace limits {
constexpr qint64 maxPositions = qint64(1) << 24;
constexpr qint64 maxDims = 65536;
constexpr double maxBase = 1e12;
// Largest matrix a command or view may hold in memory at once. Streaming paths ignore it.
constexpr qint64 maxInMemoryBytes = qint64(1) << 30;
} // namespace limits

struct EncodingSpec
{
    Scheme scheme = Scheme::Sinusoidal;
    qint64 positions = 0;
    qint64 dims = 0;
    double base = 10000.0;
    Layout layout = Layout::Interleaved;
    quint64 seed = 0;
    RopeParameters rope; // Scheme::Rope only

    // Empty when valid; otherwise one sentence naming the bad field, e.g. "dims must be ...".
    QString validate() const;

    qint64 elementCount() const { return positions * dims; }
    qint64 byteCount() const { return elementCount() * qint64(sizeof(float)); }
    bool operator==(const EncodingSpec &) const = default;
};

QString schemeName(Scheme scheme);
QString layoutName(Layout layout);
std::optional<Scheme> parseScheme(const QString &name);
std::optional<Layout> parseLayout(const QString &name);
QString ropePairingName(RopePairing pairing);
QString ropeScalingName(RopeScaling scaling); // the CLI spelling: none, linear, ntk, ...
std::optional<RopePairing> parseRopePairing(const QString &name);
std::optional<RopeScaling> parseRopeScaling(const QString &name);

// Human-readable byte count ("1.5 GiB") for messages.
QString formatBytes(double bytes);

} // namespace pe
