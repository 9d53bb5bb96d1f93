#!/usr/bin/env python3
"""Opening a model: `pescope inspect` and `pescope data --model DIR --what positions` against a
NumPy script that parses the same safetensors header and reads the same tensor, and against that
script plus a matplotlib heatmap of it; whole processes, median of RUNS runs each, side by side.

The model folder is made here: a GPT-2-like config.json and a model.safetensors holding the
learned position table (POSITIONS x DIMS float32) and a 4 GiB tensor stored sparse, so the file
is several GB but only headers and the one table are read (the page cache is warm: every tool
runs on the same files, and the first run of each is discarded).

    /usr/bin/python3 bench/bench_model.py [PATH/TO/pescope] [RUNS] [POSITIONS] [DIMS]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
pescope = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "app", "pescope")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
positions = int(sys.argv[3]) if len(sys.argv) > 3 else 8192
dims = int(sys.argv[4]) if len(sys.argv) > 4 else 1024

READ = r"""
import json, sys, numpy as np
path = sys.argv[1]
with open(path, "rb") as f:
    n = int.from_bytes(f.read(8), "little")
    header = json.loads(f.read(n))
t = header["wpe.weight"]
start, end = t["data_offsets"]
table = np.fromfile(path, dtype="<f4", count=(end - start) // 4, offset=8 + n + start)
table = table.reshape(t["shape"])
"""
PLOT = READ + r"""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.matshow(table, aspect="auto")
plt.colorbar()
plt.savefig(sys.argv[2], dpi=100)
"""


def make_model(folder):
    table = np.sin(np.arange(positions * dims, dtype=np.float64) * 1e-3).astype("<f4")
    big = 1 << 30  # floats: 4 GiB, left sparse
    header = {
        "wpe.weight": {"dtype": "F32", "shape": [positions, dims],
                       "data_offsets": [0, table.nbytes]},
        "h.weight": {"dtype": "F32", "shape": [big],
                     "data_offsets": [table.nbytes, table.nbytes + 4 * big]},
    }
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path = os.path.join(folder, "model.safetensors")
    with open(path, "wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.write(table.tobytes())
        f.truncate(8 + len(raw) + table.nbytes + 4 * big)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_embd": dims, "n_head": 16, "n_layer": 2,
                   "n_positions": positions}, f)
    return path


def median_ms(command):
    times = []
    for i in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i:  # the first run warms the page cache
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    with tempfile.TemporaryDirectory() as folder:
        weights = make_model(folder)
        out = os.path.join(folder, "out")
        read_ms = median_ms(["/usr/bin/python3", "-c", READ, weights])
        plot_ms = median_ms(["/usr/bin/python3", "-c", PLOT, weights, out + ".png"])
        noop_ms = median_ms(["/usr/bin/python3", "-c", "import numpy"])
        inspect_ms = median_ms([pescope, "inspect", folder])
        data_ms = median_ms([pescope, "data", "--model", folder, "--what", "positions",
                             "--out", out + ".npy"])
        # The bytes alone, in-process: what "reading the tensor" costs without any program around it.
        start = time.perf_counter()
        for _ in range(runs):
            np.fromfile(weights, dtype="<f4", count=positions * dims, offset=8)
        bytes_ms = (time.perf_counter() - start) * 1000 / runs
        size = os.path.getsize(weights) / 2**30
        print(f"model.safetensors: {size:.1f} GiB (sparse), wpe.weight {positions} x {dims} float32"
              f" ({positions * dims * 4 / 2**20:.0f} MiB); median of {runs} whole-process runs")
        rows = [
            ("reading the table's bytes (np.fromfile, in-process)", bytes_ms),
            ("python3 -c 'import numpy' (process start)", noop_ms),
            ("NumPy: parse header + read wpe.weight", read_ms),
            ("NumPy + matplotlib heatmap (matshow, colorbar, savefig)", plot_ms),
            ("pescope inspect DIR", inspect_ms),
            ("pescope data --model DIR --what positions --out x.npy", data_ms),
        ]
        for name, ms in rows:
            print(f"  {name:58s} {ms:8.1f} ms   {ms / read_ms:5.2f} x NumPy read")


if __name__ == "__main__":
    main()
