// The sizes every spec is checked against (DESIGN.md's command-line limits), and the memory a
// command or view may hold at once.
#pragma once

#include <QtGlobal>

namespace pe::limits {

constexpr qint64 maxPositions = qint64(1) << 24;
constexpr qint64 maxDims = 65536;
constexpr double maxBase = 1e12;
// Largest matrix a command or view may hold in memory at once. Streaming paths ignore it.
constexpr qint64 maxInMemoryBytes = qint64(1) << 30;

} // namespace pe::limits
