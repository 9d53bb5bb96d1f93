#include "encodingspec.h"

#include "rope.h"

#include <cmath>

namespace pe {

QString EncodingSpec::validate() const
{
    if (positions < 1 || positions > limits::maxPositions)
        return QStringLiteral("positions must be between 1 and %1 (got %2)")
            .arg(limits::maxPositions)
            .arg(positions);
    if (dims < 1 || dims > limits::maxDims)
        return QStringLiteral("dims must be between 1 and %1 (got %2)")
            .arg(limits::maxDims)
            .arg(dims);
    if ((scheme == Scheme::Sinusoidal || scheme == Scheme::Rope) &&
        !(std::isfinite(base) && base > 1.0 && base <= limits::maxBase))
        return QStringLiteral(
                   "base must be a finite number greater than 1 and at most 1e12 (got %1)")
            .arg(base);
    if (scheme == Scheme::Rope)
        return ropeProblem(dims, rope);
    return {};
}

QString schemeName(Scheme scheme)
{
    switch (scheme) {
    case Scheme::Sinusoidal:
        return QStringLiteral("sinusoidal");
    case Scheme::Learned:
        return QStringLiteral("learned");
    case Scheme::Rope:
        return QStringLiteral("rope");
    }
    return {};
}

QString layoutName(Layout layout)
{
    return layout == Layout::Split ? QStringLiteral("split") : QStringLiteral("interleaved");
}

std::optional<Scheme> parseScheme(const QString &name)
{
    for (Scheme s : {Scheme::Sinusoidal, Scheme::Learned, Scheme::Rope})
        if (name == schemeName(s))
            return s;
    if (name == QLatin1String("random"))
        return Scheme::Learned;
    return std::nullopt;
}

std::optional<Layout> parseLayout(const QString &name)
{
    for (Layout l : {Layout::Interleaved, Layout::Split})
        if (name == layoutName(l))
            return l;
    return std::nullopt;
}

QString ropePairingName(RopePairing pairing)
{
    return pairing == RopePairing::Half ? QStringLiteral("half") : QStringLiteral("interleaved");
}

QString ropeScalingName(RopeScaling scaling)
{
    switch (scaling) {
    case RopeScaling::None:
        return QStringLiteral("none");
    case RopeScaling::Linear:
        return QStringLiteral("linear");
    case RopeScaling::Ntk:
        return QStringLiteral("ntk");
    case RopeScaling::DynamicNtk:
        return QStringLiteral("dynamic-ntk");
    case RopeScaling::Yarn:
        return QStringLiteral("yarn");
    case RopeScaling::Llama3:
        return QStringLiteral("llama3");
    }
    return {};
}

std::optional<RopePairing> parseRopePairing(const QString &name)
{
    for (RopePairing p : {RopePairing::Interleaved, RopePairing::Half})
        if (name == ropePairingName(p))
            return p;
    return std::nullopt;
}

std::optional<RopeScaling> parseRopeScaling(const QString &name)
{
    for (RopeScaling s : {RopeScaling::None, RopeScaling::Linear, RopeScaling::Ntk,
                          RopeScaling::DynamicNtk, RopeScaling::Yarn, RopeScaling::Llama3})
        if (name == ropeScalingName(s))
            return s;
    return std::nullopt;
}

QString formatBytes(double bytes)
{
    const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 5) {
        bytes /= 1024.0;
        ++unit;
    }
    return unit == 0
               ? QStringLiteral("%1 bytes").arg(qint64(bytes))
               : QStringLiteral("%1 %2").arg(bytes, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

} // namespace pe
