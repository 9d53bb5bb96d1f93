#!/usr/bin/python3
"""Independent float64 references for pescope's RoPE code (tst_ropetypes, tst_ropeverify).

Each function below transcribes, line by line, the Hugging Face transformers v5 function it is
named after (src/transformers/modeling_rope_utils.py on the v5 line, the copy of newest main that
has _compute_proportional_rope_parameters; model code for the forward passes), with NumPy in
float64 instead of torch in float32. Nothing here comes from pescope's C++.

Writes references.json (real models' parameters: inv_freq, attention factor, cos/sin rows) and
mistakes.json (deliberately wrong tables for `verify`'s diagnoses) beside this script.

Run with Debian's python3 (it has NumPy):  /usr/bin/python3 tests/data/rope/make_references.py
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# --- Hugging Face v5 init functions, float64 --------------------------------------------------


def compute_default_rope_parameters(rp, head_dim, max_pos, seq_len):
    # LlamaRotaryEmbedding.compute_default_rope_parameters (with partial_rotary_factor, as the
    # models that have one read it)
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    return inv_freq, 1.0


def _compute_linear_scaling_rope_parameters(rp, head_dim, max_pos, seq_len):
    factor = rp["factor"]
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    inv_freq /= factor
    return inv_freq, 1.0


def _compute_dynamic_ntk_parameters(rp, head_dim, max_pos, seq_len):
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    factor = rp["factor"]
    if seq_len is None:
        seq_len = max_pos
    else:
        seq_len = max(seq_len, max_pos)
    base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    return inv_freq, 1.0


def community_ntk(rp, head_dim, max_pos, seq_len):
    # Not an HF v5 type: the "NTK-aware" formula base * s^(dim / (dim - 2)).
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    base = base * rp["factor"] ** (dim / (dim - 2))
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    return inv_freq, 1.0


def _compute_yarn_parameters(rp, head_dim, max_pos, seq_len):
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    factor = rp["factor"]
    attention_factor = rp.get("attention_factor")
    mscale = rp.get("mscale")
    mscale_all_dim = rp.get("mscale_all_dim")
    original_max_position_embeddings = rp["original_max_position_embeddings"]
    if factor is None:
        factor = max_pos / original_max_position_embeddings

    def get_mscale(scale, mscale=1):
        if scale <= 1:
            return 1.0
        return 0.1 * mscale * math.log(scale) + 1.0

    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
        else:
            attention_factor = get_mscale(factor)
    beta_fast = rp.get("beta_fast") or 32
    beta_slow = rp.get("beta_slow") or 1

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings, truncate):
        low = find_correction_dim(low_rot, dim, base, max_position_embeddings)
        high = find_correction_dim(high_rot, dim, base, max_position_embeddings)
        if truncate:
            low = math.floor(low)
            high = math.ceil(high)
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):
        if min == max:
            max += 0.001
        linear_func = (np.arange(dim, dtype=np.float64) - min) / (max - min)
        return np.clip(linear_func, 0, 1)

    pos_freqs = base ** (np.arange(0, dim, 2).astype(np.float64) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    truncate = rp.get("truncate", True)
    low, high = find_correction_range(beta_fast, beta_slow, dim, base, original_max_position_embeddings, truncate)
    inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2)
    inv_freq = (
        inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
        + inv_freq_extrapolation * inv_freq_extrapolation_factor
    )
    return inv_freq, attention_factor


def _compute_longrope_parameters(rp, head_dim, max_pos, seq_len):
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    long_factor = rp["long_factor"]
    short_factor = rp["short_factor"]
    factor = rp.get("factor")
    attention_factor = rp.get("attention_factor")
    original_max_position_embeddings = rp["original_max_position_embeddings"]
    if factor is None:
        factor = max_pos / original_max_position_embeddings
    if attention_factor is None:
        if factor <= 1.0:
            attention_factor = 1.0
        else:
            attention_factor = math.sqrt(1 + math.log(factor) / math.log(original_max_position_embeddings))
    if seq_len and seq_len > original_max_position_embeddings:
        ext_factors = np.array(long_factor, dtype=np.float64)
    else:
        ext_factors = np.array(short_factor, dtype=np.float64)
    inv_freq_shape = np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim
    inv_freq = 1.0 / (ext_factors * base**inv_freq_shape)
    return inv_freq, attention_factor


def _compute_llama3_parameters(rp, head_dim, max_pos, seq_len):
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    factor = rp["factor"]
    low_freq_factor = rp["low_freq_factor"]
    high_freq_factor = rp["high_freq_factor"]
    old_context_len = rp["original_max_position_embeddings"]
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    inv_freq_llama = np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
    return inv_freq_llama, 1.0


def _compute_proportional_rope_parameters(rp, head_dim, max_pos, seq_len):
    base = rp["rope_theta"]
    factor = rp.get("factor", 1.0)
    rope_proportion = rp.get("partial_rotary_factor", 1.0)
    rope_angles = int(rope_proportion * head_dim // 2)
    inv_freq_rotated = 1.0 / (base ** (np.arange(0, 2 * rope_angles, 2, dtype=np.int64).astype(np.float64) / head_dim))
    nope_angles = head_dim // 2 - rope_angles
    if nope_angles > 0:
        inv_freq = np.concatenate((inv_freq_rotated, np.zeros(nope_angles, dtype=np.float64)))
    else:
        inv_freq = inv_freq_rotated
    inv_freq /= factor
    return inv_freq, 1.0


INIT = {
    "default": compute_default_rope_parameters,
    "linear": _compute_linear_scaling_rope_parameters,
    "dynamic": _compute_dynamic_ntk_parameters,
    "yarn": _compute_yarn_parameters,
    "longrope": _compute_longrope_parameters,
    "llama3": _compute_llama3_parameters,
    "proportional": _compute_proportional_rope_parameters,
    "ntk": community_ntk,
}

# --- The forward passes -------------------------------------------------------------------------


def rotary_forward(inv_freq, attention_scaling, position_ids, interleaved):
    # LlamaRotaryEmbedding.forward: freqs = inv_freq @ position_ids, emb = cat(freqs, freqs),
    # cos = emb.cos() * attention_scaling. Interleaved (GPT-J): repeat_interleave(freqs, 2).
    freqs = np.asarray(position_ids, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.repeat(freqs, 2, axis=-1) if interleaved else np.concatenate((freqs, freqs), axis=-1)
    return np.cos(emb) * attention_scaling, np.sin(emb) * attention_scaling


def qwen2_vl_mrope_forward(inv_freq, attention_scaling, position_ids_thw, mrope_section):
    # Qwen2VLRotaryEmbedding.forward (3 position axes) + apply_multimodal_rotary_pos_emb's mixing:
    # cos.split(mrope_section * 2) and chunk i taken from axis i % 3.
    pos = np.asarray(position_ids_thw, dtype=np.float64).T  # (3, seq)
    freqs = pos[:, :, None] * inv_freq[None, None, :]  # (3, seq, dim/2)
    emb = np.concatenate((freqs, freqs), axis=-1)
    cos = np.cos(emb) * attention_scaling
    sin = np.sin(emb) * attention_scaling
    sections = mrope_section * 2
    bounds = np.cumsum(sections)[:-1]
    cos = np.concatenate([m[i % 3] for i, m in enumerate(np.split(cos, bounds, axis=-1))], axis=-1)
    sin = np.concatenate([m[i % 3] for i, m in enumerate(np.split(sin, bounds, axis=-1))], axis=-1)
    return cos, sin


def qwen3_vl_mrope_forward(inv_freq, attention_scaling, position_ids_thw, mrope_section):
    # Qwen3VLTextRotaryEmbedding.forward with apply_interleaved_mrope.
    pos = np.asarray(position_ids_thw, dtype=np.float64).T
    freqs = pos[:, :, None] * inv_freq[None, None, :]
    freqs_t = freqs[0].copy()
    for dim, offset in enumerate((1, 2), start=1):
        length = mrope_section[dim] * 3
        idx = slice(offset, length, 3)
        freqs_t[..., idx] = freqs[dim, ..., idx]
    emb = np.concatenate((freqs_t, freqs_t), axis=-1)
    return np.cos(emb) * attention_scaling, np.sin(emb) * attention_scaling


# --- Parameters of real models ------------------------------------------------------------------

# microsoft/Phi-3-mini-128k-instruct config.json rope_scaling (type "longrope"; hidden 3072 / 32
# heads = head dim 96, rope_theta 10000, max_position_embeddings 131072,
# original_max_position_embeddings 4096 at the top level, no factor).
PHI3_MINI_128K_LONG = [
    1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558,
    1.5699999332427979, 1.7999999523162842, 2.129999876022339, 2.129999876022339,
    3.009999990463257, 5.910000324249268, 6.950000286102295, 9.070000648498535,
    9.930000305175781, 10.710000038146973, 11.130000114440918, 14.609999656677246,
    15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
    38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516,
    53.66000747680664, 54.9373893737793, 56.89738845825195, 57.28738784790039,
    59.98738479614258, 60.86738586425781, 60.887386322021484, 61.71739196777344,
    62.91739273071289, 62.957393646240234, 63.41739273071289, 63.8173942565918,
    63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
    64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906,
    64.24435424804688, 64.57435607910156, 64.69000244140625, 64.76000213623047,
]
PHI3_MINI_128K_SHORT = [
    1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003, 1.3500000000000003,
    1.4000000000000004, 1.5500000000000005, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.0500000000000007,
    2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007,
    2.0500000000000007, 2.1000000000000005, 2.1000000000000005, 2.1500000000000004,
    2.25, 2.25, 2.25, 2.25, 2.25, 2.3999999999999995, 2.4499999999999993, 2.499999999999999,
    2.6999999999999984, 2.6999999999999984, 2.7499999999999982, 2.799999999999998,
    2.8999999999999977, 3.049999999999997,
]

POSITIONS = [0, 1, 3, 100, 4095, 4096, 8192, 131071]

# name, head_dim, max_position_embeddings, seq_len (None = HF's init call), rope_parameters
# (normalized, as standardize_rope_params leaves them; "rope_interleave" marks the GPT-J /
# DeepSeek pairing, which is not a rope_parameters key)
CASES = [
    ("llama2 default", 128, 4096, None, {"rope_type": "default", "rope_theta": 10000.0}),
    ("qwen2.5 default", 128, 32768, None, {"rope_type": "default", "rope_theta": 1000000.0}),
    ("gpt-j interleaved, partial 0.25", 256, 2048, None,
     {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25, "rope_interleave": True}),
    ("odd rotary dims (head 10, partial 0.5)", 10, 2048, None,
     {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}),
    ("linear x4", 128, 16384, None, {"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}),
    ("dynamic x2, init", 64, 4096, None, {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}),
    ("dynamic x2, seq_len 4096", 64, 4096, 4096, {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}),
    ("dynamic x2, seq_len 10000", 64, 4096, 10000, {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}),
    ("ntk (community) x4", 128, 4096, None, {"rope_type": "ntk", "rope_theta": 10000.0, "factor": 4.0}),
    ("llama 3.1", 128, 131072, None,
     {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
    ("llama 3.1, odd rotary dims (head 75)", 75, 131072, None,
     {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
    ("deepseek-v3 yarn", 64, 163840, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0,
      "original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1, "rope_interleave": True}),
    ("yarn, mscale 1 / mscale_all_dim 0.707 (synthetic)", 64, 163840, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 0.707,
      "original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1}),
    ("gpt-oss yarn", 64, 131072, None,
     {"rope_type": "yarn", "rope_theta": 150000.0, "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
      "truncate": False, "original_max_position_embeddings": 4096}),
    ("qwen2.5 yarn x4", 128, 131072, None,
     {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0, "original_max_position_embeddings": 32768}),
    # The rows of pescope's earlier YaRN test.
    ("yarn: llama 2 x16", 128, 65536, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 16.0, "original_max_position_embeddings": 4096}),
    ("yarn: llama 2 x8, head 80", 80, 32768, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0, "original_max_position_embeddings": 4096}),
    ("yarn: betas 16 / 2, head 96", 96, 32768, None,
     {"rope_type": "yarn", "rope_theta": 500000.0, "factor": 4.0, "beta_fast": 16.0, "beta_slow": 2.0,
      "original_max_position_embeddings": 8192}),
    ("yarn: equal betas, no truncation", 32, 4096, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 2.0, "beta_fast": 4.0, "beta_slow": 4.0,
      "truncate": False, "original_max_position_embeddings": 2048}),
    ("yarn: tiny context", 16, 32, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 2.0, "original_max_position_embeddings": 16}),
    ("yarn: original beyond 2 pi theta (the dim - 1 clamp, synthetic)", 64, 524288, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 131072}),
    ("yarn: factor 0.5 (get_mscale 1)", 64, 4096, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 0.5, "original_max_position_embeddings": 4096}),
    ("yarn, factor null (inferred 163840 / 4096)", 64, 163840, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": None, "original_max_position_embeddings": 4096}),
    ("yarn, explicit attention_factor, beta_fast < beta_slow", 64, 32768, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0, "attention_factor": 1.0,
      "beta_fast": 2.0, "beta_slow": 4.0, "original_max_position_embeddings": 4096}),
    ("yarn, 3 rotary dims (ramp broadcast)", 6, 8192, None,
     {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "partial_rotary_factor": 0.5,
      "original_max_position_embeddings": 2048}),
    ("phi-3-mini-128k longrope, init (short)", 96, 131072, None,
     {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": PHI3_MINI_128K_SHORT,
      "long_factor": PHI3_MINI_128K_LONG, "original_max_position_embeddings": 4096}),
    ("phi-3-mini-128k longrope, seq_len 4097 (long)", 96, 131072, 4097,
     {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": PHI3_MINI_128K_SHORT,
      "long_factor": PHI3_MINI_128K_LONG, "original_max_position_embeddings": 4096}),
    ("gemma 4 proportional (full attention)", 512, 131072, None,
     {"rope_type": "proportional", "rope_theta": 1000000.0, "partial_rotary_factor": 0.25}),
    ("gemma 4 default (sliding attention)", 256, 131072, None,
     {"rope_type": "default", "rope_theta": 10000.0}),
]

# (t, h, w) position ids: a text run (t = h = w), then an image grid of 2 x 3 patches starting at
# 5 (get_mrope_vision_positions with start 5), then text again from 8.
MROPE_IDS = [[0, 0, 0], [1, 1, 1], [4, 4, 4],
             [5, 5, 5], [5, 5, 6], [5, 5, 7], [5, 6, 5], [5, 6, 6], [5, 6, 7],
             [8, 8, 8], [9, 9, 9], [1000, 1000, 1000], [1000, 1017, 1031]]
MROPE_CASES = [
    ("qwen2.5-vl mrope [16, 24, 24]", 128, 128000,
     {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]}, qwen2_vl_mrope_forward),
    ("qwen3-vl interleaved mrope [24, 20, 20]", 128, 262144,
     {"rope_type": "default", "rope_theta": 5000000.0, "mrope_section": [24, 20, 20], "mrope_interleaved": True},
     qwen3_vl_mrope_forward),
    ("interleaved mrope, sections [24, 16, 24] (synthetic)", 128, 262144,
     {"rope_type": "default", "rope_theta": 5000000.0, "mrope_section": [24, 16, 24], "mrope_interleaved": True},
     qwen3_vl_mrope_forward),
]


def floats(a):
    return [float(x) for x in np.asarray(a, dtype=np.float64).ravel()]


def case_record(name, head_dim, max_pos, seq_len, rp):
    params = {k: v for k, v in rp.items() if k != "rope_interleave"}
    inv_freq, attention = INIT[rp["rope_type"]](params, head_dim, max_pos, seq_len)
    positions = [p for p in POSITIONS if p < max_pos]
    cos, sin = rotary_forward(inv_freq, attention, positions, rp.get("rope_interleave", False))
    return {
        "name": name,
        "head_dim": head_dim,
        "max_position_embeddings": max_pos,
        "sequence_length": seq_len or 0,
        "rope_parameters": rp,
        "inv_freq": floats(inv_freq),
        "attention_factor": float(attention),
        "positions": positions,
        "cos": floats(cos),
        "sin": floats(sin),
    }


def mrope_record(name, head_dim, max_pos, rp, forward):
    inv_freq, attention = compute_default_rope_parameters(rp, head_dim, max_pos, None)
    cos, sin = forward(inv_freq, attention, MROPE_IDS, rp["mrope_section"])
    return {
        "name": name,
        "head_dim": head_dim,
        "max_position_embeddings": max_pos,
        "sequence_length": 0,
        "rope_parameters": rp,
        "inv_freq": floats(inv_freq),
        "attention_factor": float(attention),
        "position_ids_thw": MROPE_IDS,
        "cos": floats(cos),
        "sin": floats(sin),
    }


# --- Deliberately wrong tables for verify ----------------------------------------------------


def hf_float32_yarn_cos(rp, head_dim, positions):
    # _compute_yarn_parameters and the forward as torch runs them, in float32 (numpy float32 with
    # the same operation order): the numbers a real HF model produces.
    f32 = np.float32
    base = rp["rope_theta"]
    dim = int(head_dim * rp.get("partial_rotary_factor", 1.0))
    factor = rp["factor"]
    attention_factor = 0.1 * math.log(factor) + 1.0
    orig = rp["original_max_position_embeddings"]
    low = (dim * math.log(orig / (32 * 2 * math.pi))) / (2 * math.log(base))
    high = (dim * math.log(orig / (1 * 2 * math.pi))) / (2 * math.log(base))
    if rp.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    pos_freqs = f32(base) ** (np.arange(0, dim, 2).astype(f32) / f32(dim))
    inv_extra = f32(1.0) / pos_freqs
    inv_inter = f32(1.0) / (f32(factor) * pos_freqs)
    ramp = np.clip((np.arange(dim // 2, dtype=f32) - f32(low)) / f32(high - low), f32(0), f32(1))
    extra_factor = f32(1) - ramp
    inv_freq = inv_inter * (f32(1) - extra_factor) + inv_extra * extra_factor
    freqs = np.asarray(positions, dtype=f32)[:, None] * inv_freq[None, :]
    emb = np.concatenate((freqs, freqs), axis=-1)
    return (np.cos(emb) * f32(attention_factor)).astype(f32), inv_freq.astype(f32)


def mistakes():
    head_dim = 32
    positions = list(range(64))
    yarn = {"rope_type": "yarn", "rope_theta": 150000.0, "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
            "truncate": False, "original_max_position_embeddings": 4096}
    max_pos = 131072
    inv, af = _compute_yarn_parameters(yarn, head_dim, max_pos, None)
    default_inv, _ = compute_default_rope_parameters(yarn, head_dim, max_pos, None)
    on_base_inv, _ = compute_default_rope_parameters(dict(yarn, rope_theta=150000.0 * 32.0), head_dim, max_pos, None)
    cos = lambda i, a, inter=False: rotary_forward(i, a, positions, inter)[0]
    sin = lambda i, a, inter=False: rotary_forward(i, a, positions, inter)[1]

    f32 = np.float32
    freqs32 = np.asarray(positions, dtype=f32)[:, None] * inv.astype(f32)[None, :]
    emb32 = np.concatenate((freqs32, freqs32), axis=-1)
    cos_float32_angles = (np.cos(emb32) * f32(af)).astype(f32)
    hf_cos32, hf_inv32 = hf_float32_yarn_cos(yarn, head_dim, positions)

    tables = [
        # name, what, candidate, expected diagnosis (RopeMistake name, "" for agreement)
        ("correct", "cos", cos(inv, af), ""),
        ("correct, rounded to float32", "cos", cos(inv, af).astype(f32), ""),
        ("attention factor dropped", "cos", cos(inv, 1.0), "AttentionFactorDropped"),
        ("attention factor twice", "cos", cos(inv, af * af), "AttentionFactorTwice"),
        ("scaling ignored (default frequencies)", "cos", cos(default_inv, 1.0), "ScalingIgnored"),
        ("factor applied to the base", "cos", cos(on_base_inv, af), "FactorOnBase"),
        ("interleaved instead of half", "cos", cos(inv, af, True), "PairingSwapped"),
        ("sin, interleaved instead of half", "sin", sin(inv, af, True), "PairingSwapped"),
        ("float32 angles", "cos", cos_float32_angles, "Float32Angles"),
        ("hf's own float32 forward", "cos", hf_cos32, "Float32Angles"),
        ("inv_freq, scaling ignored", "inv-freq", default_inv, "ScalingIgnored"),
        ("inv_freq, factor applied to the base", "inv-freq", on_base_inv, "FactorOnBase"),
        ("inv_freq, hf's float32", "inv-freq", hf_inv32, ""),
        ("attention factor 1", "attention-factor", np.array([1.0]), "AttentionFactorDropped"),
        ("attention factor squared", "attention-factor", np.array([af * af]), "AttentionFactorTwice"),
    ]
    out = {
        "head_dim": head_dim,
        "max_position_embeddings": max_pos,
        "rope_parameters": yarn,
        "tables": [
            {"name": n, "what": w, "rows": int(np.asarray(c).shape[0]) if np.asarray(c).ndim == 2 else 1,
             "columns": int(np.asarray(c).shape[-1]), "values": floats(c), "mistake": m}
            for n, w, c, m in tables
        ],
    }
    # Attention-factor formulas of other engines, on DeepSeek-style parameters (synthetic mscale
    # values: DeepSeek's own are equal, which makes the ratio 1).
    ds = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 0.8, "mscale_all_dim": 0.707,
          "original_max_position_embeddings": 4096}
    explicit = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 32.0, "attention_factor": 1.0,
                "original_max_position_embeddings": 4096}
    get_mscale = lambda s, m=1.0: 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0
    out["attention_cases"] = [
        {"name": "mscale ratio ignored", "rope_parameters": ds, "head_dim": 64, "max_position_embeddings": 163840,
         "value": get_mscale(40.0), "mistake": "AttentionFactorFormula"},
        {"name": "mscale_all_dim ignored", "rope_parameters": ds, "head_dim": 64, "max_position_embeddings": 163840,
         "value": get_mscale(40.0, 0.8), "mistake": "AttentionFactorFormula"},
        {"name": "explicit attention_factor ignored", "rope_parameters": explicit, "head_dim": 64,
         "max_position_embeddings": 131072, "value": get_mscale(32.0), "mistake": "AttentionFactorFormula"},
        {"name": "explicit attention_factor used", "rope_parameters": explicit, "head_dim": 64,
         "max_position_embeddings": 131072, "value": 1.0, "mistake": ""},
    ]
    return out


def write(path, obj):
    # One record per line: small diffs when a value changes, still valid JSON.
    with open(path, "w") as f:
        f.write(json.dumps(obj, separators=(",", ":"), allow_nan=False).replace('},{"name"', '},\n{"name"'))
        f.write("\n")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    references = {
        "source": "transcriptions of transformers v5 modeling_rope_utils.py in float64 (make_references.py)",
        "cases": [case_record(*c) for c in CASES],
        "mrope_cases": [mrope_record(*c) for c in MROPE_CASES],
    }
    write(os.path.join(out_dir, "references.json"), references)
    write(os.path.join(out_dir, "mistakes.json"), mistakes())


if __name__ == "__main__":
    main()
