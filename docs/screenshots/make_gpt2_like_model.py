#!/usr/bin/python3
"""Writes a GPT-2-like model folder (config.json + model.safetensors) with a synthetic learned
position table, for docs/models.md's screenshot (no weights can be downloaded).

GPT-2's wpe is known to lie close to a low-dimensional helix: its top principal components are
close to the first cosines cos(pi k p / n) of the position. This table is exactly that plus noise:
k = 1..6 with falling amplitudes, mixed into 64 dims by a random orthonormal matrix.

    /usr/bin/python3 docs/screenshots/make_gpt2_like_model.py OUT_FOLDER
"""
import json
import os
import struct
import sys

import numpy as np

n, dims = 1024, 64
rng = np.random.default_rng(2019)
p = np.arange(n) / (n - 1)
basis = np.stack([np.cos(np.pi * k * p) for k in range(1, 7)], axis=1)  # n x 6
amplitudes = np.array([1.0, 0.62, 0.4, 0.22, 0.12, 0.08])
mix, _ = np.linalg.qr(rng.standard_normal((dims, 6)))  # dims x 6, orthonormal columns
table = (basis * amplitudes) @ mix.T + 0.01 * rng.standard_normal((n, dims))
table = table.astype("<f4")

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "config.json"), "w") as f:
    json.dump({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": dims,
               "n_head": 4, "n_layer": 2, "n_positions": n}, f, indent=2)
data = table.tobytes()
header = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [n, dims],
                                    "data_offsets": [0, len(data)]}}).encode()
header += b" " * (-len(header) % 8)
with open(os.path.join(out, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header + data)
print(f"wrote {out}: wpe.weight {n} x {dims} float32")
