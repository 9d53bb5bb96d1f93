#include "backends/parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace pe {

int hardwareThreads()
{
    return std::max(1, int(std::thread::hardware_concurrency()));
}

void parallelFor(qint64 begin, qint64 end, int threads, qint64 minBlock,
                 const std::function<void(qint64, qint64)> &body)
{
    const qint64 total = end - begin;
    if (total <= 0)
        return;
    const qint64 blocks = std::clamp<qint64>(total / std::max<qint64>(1, minBlock), 1, threads);
    if (blocks == 1) {
        body(begin, end);
        return;
    }
    std::vector<std::jthread> workers;
    workers.reserve(std::size_t(blocks - 1));
    const qint64 perBlock = (total + blocks - 1) / blocks;
    for (qint64 b = 1; b < blocks; ++b) {
        const qint64 lo = begin + b * perBlock;
        const qint64 hi = std::min(end, lo + perBlock);
        if (lo < hi)
            workers.emplace_back([&body, lo, hi] { body(lo, hi); });
    }
    body(begin, std::min(end, begin + perBlock));
}

} // namespace pe
