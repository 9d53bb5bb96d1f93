#!/usr/bin/env python3
"""Whole-process time of `pescope export` against the same figure from matplotlib, run side by
side (alternating), median of several runs, and the ratio. A benchmark, not a test: it prints
figures and never fails on time.

  bench_export.py PESCOPE [RUNS] [POSITIONS DIMS WIDTH HEIGHT]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"  # Debian's, with NumPy and matplotlib


def timed(command, env=None):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return time.perf_counter() - start


def main():
    pescope = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    positions, dims, width, height = (int(a) for a in (sys.argv[3:7] or (2048, 512, 1500, 900)))
    with tempfile.TemporaryDirectory() as folder:
        ours = os.path.join(folder, "pescope.png")
        theirs = os.path.join(folder, "matplotlib.png")
        pe_cmd = [pescope, "export", "--view", "heatmap", "--positions", str(positions),
                  "--dims", str(dims), "--out", ours, "--width", str(width),
                  "--height", str(height)]
        mpl_cmd = [PYTHON, os.path.join(HERE, "matplotlib_figure.py"), str(positions), str(dims),
                   theirs, str(width), str(height)]
        # One warm-up each: libraries into the page cache, matplotlib's font cache built.
        timed(pe_cmd)
        timed(mpl_cmd)
        pe_times, mpl_times = [], []
        for _ in range(runs):
            pe_times.append(timed(pe_cmd))
            mpl_times.append(timed(mpl_cmd))
        pe_med, mpl_med = statistics.median(pe_times), statistics.median(mpl_times)
        print(f"figure: heatmap of {positions} x {dims}, {width} x {height} px PNG, "
              f"{runs} runs each, alternating, on {os.cpu_count()} cores")
        print(f"  pescope export            median {pe_med * 1000:7.1f} ms  "
              f"(min {min(pe_times) * 1000:.1f}, {os.path.getsize(ours) // 1024} KiB)")
        print(f"  matplotlib matshow+save   median {mpl_med * 1000:7.1f} ms  "
              f"(min {min(mpl_times) * 1000:.1f}, {os.path.getsize(theirs) // 1024} KiB)")
        print(f"  ratio (matplotlib / pescope): {mpl_med / pe_med:.1f}x")


if __name__ == "__main__":
    main()
