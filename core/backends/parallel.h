// parallelFor: split [begin, end) into one contiguous block per thread and wait for all.
#pragma once

#include <QtGlobal>

#include <functional>

namespace pe {

// Calls body(blockBegin, blockEnd) on up to `threads` threads; the calling thread takes one block.
// Blocks smaller than minBlock are merged, so tiny jobs run inline with no thread start-up.
void parallelFor(qint64 begin, qint64 end, int threads, qint64 minBlock,
                 const std::function<void(qint64, qint64)> &body);

int hardwareThreads();

} // namespace pe
