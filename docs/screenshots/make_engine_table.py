#!/usr/bin/python3
"""Writes the cos table an inference engine with a common mistake produces for Llama 3.1 8B, for
the README's "Checking an inference engine's RoPE" figure: the llama3 scaling rule ignored (the
default frequencies 1 / 500000^(2i/128)), computed in float32 as engines do, 16,384 positions x
128 columns in HF's cat(freqs, freqs) layout. `pescope verify` names the mistake; the figure shows
its error growing in the low-frequency pairs only, beyond float32's noise elsewhere.

    /usr/bin/python3 docs/screenshots/make_engine_table.py OUT.npy
"""
import sys

import numpy as np

f32 = np.float32
base, dim, positions = 500000.0, 128, 16384
inv_freq = f32(1.0) / (f32(base) ** (np.arange(0, dim, 2).astype(f32) / f32(dim)))
freqs = np.arange(positions, dtype=f32)[:, None] * inv_freq[None, :]
np.save(sys.argv[1], np.cos(np.concatenate((freqs, freqs), axis=-1)).astype(f32))
