// Timing helpers shared by the benchmarks: medians of warm runs, never pass/fail.
#pragma once

#include <QElapsedTimer>

#include <algorithm>
#include <functional>
#include <vector>

namespace pe::bench {

struct Timing
{
    double median = 0; // seconds
    double min = 0;
};

// Median of `values` (seconds); -1 when there are none.
inline double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? -1.0 : values[values.size() / 2];
}

// Seconds one run of `work` takes.
inline double timeOnce(const std::function<void()> &work)
{
    QElapsedTimer timer;
    timer.start();
    work();
    return double(timer.nsecsElapsed()) * 1e-9;
}

// One warm-up run (page faults, thread and shader start-up), then `runs` timed ones; with
// `runs` 0, one cold run only (no warm-up: a process that runs once, for its peak memory).
inline Timing timeRuns(int runs, const std::function<void()> &work)
{
    if (runs <= 0) {
        const double once = timeOnce(work);
        return {once, once};
    }
    work();
    std::vector<double> times;
    for (int i = 0; i < runs; ++i)
        times.push_back(timeOnce(work));
    return {median(times), *std::min_element(times.begin(), times.end())};
}

} // namespace pe::bench
