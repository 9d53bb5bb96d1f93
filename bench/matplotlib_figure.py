#!/usr/bin/env python3
"""The seeds' way to draw the encoding matrix, the baseline of bench_export.sh:
seed 004's NumPy formula, then matshow + colorbar + savefig (as seed 001 draws its heatmaps).

  matplotlib_figure.py POSITIONS DIMS OUT.png [WIDTH_PX HEIGHT_PX]
"""
import sys

import matplotlib

matplotlib.use("Agg")  # headless, as `pescope export` runs
import matplotlib.pyplot as plt  # noqa: E402
from numpy_baseline import positional_encoding  # noqa: E402  (seed 004's formula)


def main():
    positions, dims, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    width = int(sys.argv[4]) if len(sys.argv) > 4 else 1500
    height = int(sys.argv[5]) if len(sys.argv) > 5 else 900
    dpi = 100
    fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    ax = fig.add_subplot(1, 1, 1)
    # aspect="auto" fills the figure as pescope's heatmap does (matshow's default is square cells).
    cax = ax.matshow(positional_encoding(positions, dims), aspect="auto")
    fig.colorbar(cax)
    fig.savefig(out, dpi=dpi)


if __name__ == "__main__":
    main()
