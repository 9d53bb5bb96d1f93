#!/usr/bin/python3
"""pescope's Python module against the seeds' NumPy formulas, side by side in one run.

  /usr/bin/python3 bench/bench_python.py [RUNS]

1. pescope.encode(positions=65536, dims=1024) (float32, written into the new array) against
   seed 004's NumPy formula (bench/numpy_baseline.py, the baseline of the C++ benchmark) and
   seed 000/003's (Géron's PositionalEncoding), each warm, alternating, median of RUNS
   (default 7), and numpy.ones of the same shape (what a new array costs by itself); also
   pescope.encode(..., out=) into one array reused across calls, as the C++ benchmark's buffer
   is. Target: at least 20x faster than the NumPy formula.
2. The overhead of one call for a 1 x 1 table, median of 7 repeats of 20,000 calls, with the
   same options as the call before (read once and reused) and with options that change every
   call, beside numpy.zeros((1, 1), numpy.float32) as a yardstick. Target: under 20 µs.

Imports the module from PYTHONPATH, else from build/python of this checkout. A benchmark, not a
test: it prints figures and ratios and never fails on time.
"""
import os
import pathlib
import platform
import statistics
import sys
import time
import timeit

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.append(str(HERE.parent / "build" / "python"))
sys.path.append(str(HERE))
import pescope  # noqa: E402
from numpy_baseline import positional_encoding as seed_004  # noqa: E402


def seed_000(max_steps, max_dims):
    # Géron, Hands-On ML (seeds 000/003): PositionalEncoding.__init__, without the batch axis.
    p, i = np.meshgrid(np.arange(max_steps), np.arange(max_dims // 2))
    pos_emb = np.empty((1, max_steps, max_dims))
    pos_emb[0, :, ::2] = np.sin(p / 10000**(2 * i / max_dims)).T
    pos_emb[0, :, 1::2] = np.cos(p / 10000**(2 * i / max_dims)).T
    return pos_emb


def seconds(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    n, d = 65536, 1024
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    print(f"pescope {pescope.__version__} from {pescope.__file__}")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}; {os.cpu_count()} CPUs "
          f"({cpu}); load average {os.getloadavg()[0]:.1f}")

    reused = np.empty((n, d), np.float32)
    contenders = {
        "pescope.encode": lambda: pescope.encode(positions=n, dims=d),
        # Into one array reused across calls (out=), as the C++ benchmark's buffer is.
        "pescope out=": lambda: pescope.encode(positions=n, dims=d, out=reused),
        "seed 004 NumPy": lambda: seed_004(n, d),
        "seed 000 NumPy": lambda: seed_000(n, d),
        # What a new array of that size costs by itself (the kernel's zeroed pages, one write).
        "numpy.ones f32": lambda: np.ones((n, d), np.float32),
    }
    for function in contenders.values():  # warm-up
        function()
    times = {name: [] for name in contenders}
    for _ in range(runs):
        for name, function in contenders.items():
            times[name].append(seconds(function))
    median = {name: statistics.median(t) for name, t in times.items()}
    ours = median["pescope.encode"]
    print(f"\n{n} x {d} matrix, median of {runs} (warm, alternating):")
    for name, value in median.items():
        ratio = "" if name.startswith("pescope") else f"   pescope {value / ours:.1f}x faster"
        if name == "numpy.ones f32":
            ratio = f"   pescope takes {ours / value:.2f}x the time of a new array of ones"
        print(f"  {name:16} {value * 1e3:9.1f} ms{ratio}")
    reused_time = median["pescope out="]
    print(f"  target: pescope >= 20x faster than NumPy (seed 004: "
          f"{median['seed 004 NumPy'] / ours:.1f}x with a new array each call, "
          f"{median['seed 004 NumPy'] / reused_time:.1f}x into out=)")

    calls = 20000
    bases = iter(np.tile([10000.0, 10001.0], calls * 8))
    overhead = {
        # The same options as the call before: read once, then reused.
        "pescope.encode 1 x 1": lambda: pescope.encode(positions=1, dims=1),
        # Options that change every call: the command line's option tables read each one.
        "  another base each": lambda: pescope.encode(positions=1, dims=1, base=next(bases)),
        "numpy.zeros 1 x 1": lambda: np.zeros((1, 1), np.float32),
    }
    print(f"\nOne call, median of 7 x {calls} calls:")
    for name, function in overhead.items():
        best = statistics.median(timeit.repeat(function, number=calls, repeat=7)) / calls
        print(f"  {name:22} {best * 1e6:6.2f} µs")
    print("  target: pescope.encode 1 x 1 < 20 µs")


if __name__ == "__main__":
    main()
