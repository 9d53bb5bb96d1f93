// Streams a whole encoding matrix through a MatrixWriter in fixed-size chunks, so memory stays
// flat (two chunk buffers) whatever the matrix size; computing the next chunk overlaps writing.
#pragma once

#include "backends/backend.h"
#include "io/matrixwriter.h"

#include <functional>

namespace pe {

// Rows per chunk so that one chunk holds about `chunkBytes` (at least one row).
qint64 chunkRows(qint64 dims, qint64 chunkBytes = qint64(16) << 20);

// Called after each chunk with rows done so far; return false to cancel.
using ProgressCallback = std::function<bool(qint64 rowsDone, qint64 rowsTotal)>;

// Opens, fills and commits `writer` (shape positions x dims). On failure or cancel nothing is
// left at the output path and *error says why.
[[nodiscard]] bool streamEncoding(Backend &backend, const EncodingSpec &spec, MatrixWriter &writer,
                                  QString *error, const ProgressCallback &progress = {});

} // namespace pe
