// EncodingSpec: every parameter that defines one positional-encoding matrix, and its validation.
// Validation is the single place where limits are checked; nothing downstream re-checks.
#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace pe {

enum class Scheme { Sinusoidal, Learned };
enum class Layout { Interleaved, Split };

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

// Human-readable byte count ("1.5 GiB") for messages.
QString formatBytes(double bytes);

} // namespace pe
