#!/usr/bin/env python3
"""Seed 004's NumPy formula, as the baseline pescope's benchmarks compare against.

  numpy_baseline.py compute N D RUNS   prints the median seconds of computing the matrix,
                                       timed inside Python (imports excluded), warm
  numpy_baseline.py save N D OUT       computes it once and saves float32 with numpy.save
"""
import statistics
import sys
import time

import numpy as np


def positional_encoding(max_len, d_model):
    # Verbatim from seed 004 (float64, as the tutorial computes it).
    pe = np.zeros((max_len, d_model))
    position = np.arange(0, max_len).reshape(-1, 1)
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def main():
    mode, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if mode == "compute":
        runs = int(sys.argv[4])
        positional_encoding(n, d)  # warm-up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            positional_encoding(n, d)
            times.append(time.perf_counter() - start)
        print(statistics.median(times))
    elif mode == "save":
        np.save(sys.argv[4], positional_encoding(n, d).astype(np.float32))
    else:
        sys.exit("mode must be compute or save")


if __name__ == "__main__":
    main()
