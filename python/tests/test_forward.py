"""pescope.forward: the whole forward pass and its layer analyses as NumPy arrays.

Known answers: transformers' own arrays in tests/data/models-layers/*/ref (attn_N.npy,
hidden_N.npy, logits_0.npy), and the analyses computed here in NumPy float64 from those
arrays, following their definitions in docs/models.md.
"""
import json

import numpy as np
import pytest

import pescope

MODELS = ["gpt2-tiny4", "llama-tiny4", "qwen3-tiny4", "neox-tiny4"]


def first_case(data, model):
    folder = data / "models-layers" / model
    cases = json.loads((folder / "ref" / "phrases.json").read_text())["cases"]
    return folder, cases[0]


def reference_head_scores(attn, window=8):
    n = attn.shape[-1]
    a = attn.astype(np.float64)
    idx = np.arange(n)
    previous = a[..., idx[1:], idx[:-1]].mean(-1)
    self_ = a[..., idx, idx].mean(-1)
    first = a[..., :, 0].mean(-1)
    offsets = idx[:, None] - idx[None, :]
    local = (a * ((offsets >= 0) & (offsets < window))).sum(-1).mean(-1)
    return np.stack([previous, self_, first, local, (first > 0.3).astype(np.float64)], -1)


def reference_distance(attn):
    n = attn.shape[-1]
    a = attn.astype(np.float64)
    return np.stack([np.diagonal(a, offset=-d, axis1=-2, axis2=-1).mean(-1) for d in range(n)], -1)


@pytest.mark.parametrize("model", MODELS)
def test_forward_matches_transformers(data, model):
    folder, case = first_case(data, model)
    out = pescope.forward(folder, case["text"])
    assert out["ids"] == case["ids"]
    attn = np.load(folder / "ref" / case["attn"])
    hidden = np.load(folder / "ref" / case["hidden"])
    assert out["attentions"].dtype == np.float32
    np.testing.assert_allclose(out["attentions"], attn, atol=2.5e-5)
    scale = np.abs(hidden).max(-1, keepdims=True)
    assert (np.abs(out["hidden_states"] - hidden) <= 1e-4 * scale).all()
    logits = np.load(folder / "ref" / case["logits"])
    assert out["logits"].shape == logits.shape
    np.testing.assert_allclose(out["distance"], reference_distance(attn), atol=2.5e-5)
    scores = reference_head_scores(attn)
    np.testing.assert_allclose(out["head_scores"], scores, atol=2.5e-5)
    np.testing.assert_allclose(out["sink_rate"], scores[..., 4].mean(-1), atol=1e-6)
    norms = np.linalg.norm(hidden.astype(np.float64), axis=-1)
    np.testing.assert_allclose(out["norms"], norms, rtol=1e-4)
    top = out["top_activations"]
    assert top.shape == (hidden.shape[0], 5, 4)
    for layer in range(hidden.shape[0]):
        flat = np.abs(hidden[layer]).ravel()
        largest = np.sort(flat)[::-1][:5]
        np.testing.assert_allclose(np.abs(top[layer, :, 0]), largest, rtol=1e-4)
        np.testing.assert_allclose(top[layer, :, 3], largest / np.median(flat), rtol=1e-3)
    assert out["probe"] is not None and out["probe"].shape == (hidden.shape[0],)
    if model == "gpt2-tiny4":
        assert out["frequency_atlas"] is None
    else:
        atlas = out["frequency_atlas"]
        assert atlas.shape[:2] == attn.shape[:2]
        np.testing.assert_allclose(atlas.sum(-1), 1.0, atol=1e-5)


def test_forward_refuses(data):
    folder, _ = first_case(data, "llama-tiny4")
    # Each bad value names its argument.
    for keywords, name in [(dict(folds=1), "folds"), (dict(window=0), "window"),
                           (dict(ridge=-1), "ridge"), (dict(top_k=-1), "top_k")]:
        with pytest.raises(ValueError, match=f"^{name} must be"):
            pescope.forward(folder, "a cat", **keywords)
    with pytest.raises(TypeError):
        pescope.forward(folder, 3)
    # Fewer tokens than folds: the probe is None, the rest is there.
    out = pescope.forward(folder, "a", folds=50)
    assert out["probe"] is None and out["norms"] is not None


def test_forward_ablations(data):
    """shift, scale, theta, rope_scaling (pescope data --shift/--scale/--theta/--rope-scaling);
    their numbers against the NumPy port are tests/tst_forwardablation's."""
    folder, case = first_case(data, "qwen3-tiny4")  # default RoPE
    plain = pescope.forward(folder, case["text"])
    # Changing nothing is the plain pass, bit for bit.
    same = pescope.forward(folder, case["text"], shift=0, scale=1.0)
    assert np.array_equal(same["attentions"], plain["attentions"])
    # RoPE depends on i - j only: a shift changes the attention by rounding alone.
    shifted = pescope.forward(folder, case["text"], shift=7)
    assert np.abs(shifted["attentions"] - plain["attentions"]).max() < 1e-5
    # p -> p / 2 is rope_type "linear" with factor 2 (inv_freq / 2) on a default-RoPE model.
    scaled = pescope.forward(folder, case["text"], scale=2.0)
    linear = pescope.forward(folder, case["text"], rope_scaling={"rope_type": "linear", "factor": 2.0})
    assert np.abs(scaled["attentions"] - plain["attentions"]).max() > 1e-3
    assert np.abs(scaled["attentions"] - linear["attentions"]).max() < 1e-6
    based = pescope.forward(folder, case["text"], theta=100.0)
    assert np.abs(based["attentions"] - plain["attentions"]).max() > 1e-3
    # A learned table: a shift reads other rows.
    gpt2, case2 = first_case(data, "gpt2-tiny4")
    moved = pescope.forward(gpt2, case2["text"], shift=5)
    assert np.abs(moved["attentions"] - pescope.forward(gpt2, case2["text"])["attentions"]).max() > 1e-3


@pytest.mark.parametrize("kwargs, match", [
    (dict(shift=-1), "shift must be >= 0"),
    (dict(scale=0.0), "scale must be"),
    (dict(scale=float("nan")), "scale must be"),
    (dict(theta=0.0), "theta must be"),
    (dict(theta=float("nan")), "theta must be"),
    (dict(rope_scaling={"rope_type": "warp"}), "warp"),
    (dict(rope_scaling="not json"), "rope_scaling must be"),
    (dict(positions=False, shift=2), "removes the positions"),
])
def test_forward_ablation_refusals(data, kwargs, match):
    folder, _ = first_case(data, "llama-tiny4")
    with pytest.raises(ValueError, match=match):
        pescope.forward(folder, "a cat", **kwargs)


def test_forward_ablation_learned_table(data):
    folder, _ = first_case(data, "gpt2-tiny4")
    with pytest.raises(ValueError, match="not defined for a learned position table"):
        pescope.forward(folder, "a cat", scale=2.0)
    with pytest.raises(ValueError, match="position shift 300"):
        pescope.forward(folder, "a cat", shift=300)


def write_llama_gguf(folder, path):
    """llama-tiny4 as llama.cpp's convert_hf_to_gguf.py writes it with --outtype f32: GGUF v3
    (ggml/docs/gguf.md) with its tensor names, LlamaModel.permute on q_proj / k_proj and
    rope_freqs.weight for the llama3 scaling (LlamaModel.generate_extra_tensors)."""
    import math
    import struct
    raw = (folder / "model.safetensors").read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    base = 8 + length
    hf = {name: np.frombuffer(raw[base + t["data_offsets"][0]:base + t["data_offsets"][1]],
                              dtype="<f4").reshape(t["shape"])
          for name, t in header.items() if name != "__metadata__"}
    config = json.loads((folder / "config.json").read_text())
    heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
    dim = config["head_dim"]

    def permute(w, n):
        return w.reshape(n, 2, w.shape[0] // n // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    tensors = {"token_embd.weight": hf["model.embed_tokens.weight"],
               "output_norm.weight": hf["model.norm.weight"],
               "output.weight": hf["lm_head.weight"]}
    names = {"input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm",
             "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
             "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
             "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}
    for i in range(config["num_hidden_layers"]):
        for hf_name, name in names.items():
            w = hf[f"model.layers.{i}.{hf_name}.weight"]
            if name == "attn_q":
                w = permute(w, heads)
            elif name == "attn_k":
                w = permute(w, kv)
            tensors[f"blk.{i}.{name}.weight"] = w
    s = config["rope_scaling"]
    exponents = np.arange(0, dim, 2, dtype=np.float32) / dim
    freqs = 1.0 / (np.float32(config["rope_theta"]) ** exponents)
    old = s["original_max_position_embeddings"]
    factors = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < old / s["high_freq_factor"]:
            factors.append(1)
        elif wavelen > old / s["low_freq_factor"]:
            factors.append(s["factor"])
        else:
            low, high = s["low_freq_factor"], s["high_freq_factor"]
            smooth = (old / wavelen - low) / (high - low)
            factors.append(1 / ((1 - smooth) / s["factor"] + smooth))
    tensors["rope_freqs.weight"] = np.array(factors, dtype=np.float32)

    def string(text):
        return struct.pack("<Q", len(text)) + text.encode()

    keys = [("general.architecture", 8, string("llama"))]
    for key, value in [("context_length", config["max_position_embeddings"]),
                       ("embedding_length", config["hidden_size"]),
                       ("feed_forward_length", config["intermediate_size"]),
                       ("block_count", config["num_hidden_layers"]),
                       ("attention.head_count", heads), ("attention.head_count_kv", kv),
                       ("attention.key_length", dim), ("rope.dimension_count", dim)]:
        keys.append((f"llama.{key}", 4, struct.pack("<I", value)))
    keys.append(("llama.rope.freq_base", 6, struct.pack("<f", config["rope_theta"])))
    keys.append(("llama.attention.layer_norm_rms_epsilon", 6,
                 struct.pack("<f", config["rms_norm_eps"])))
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(keys))
    for key, kind, value in keys:
        out += string(key) + struct.pack("<I", kind) + value
    data = b""
    for name, w in tensors.items():
        data += b"\0" * (-len(data) % 32)
        out += string(name) + struct.pack("<I", w.ndim)
        out += struct.pack(f"<{w.ndim}Q", *w.shape[::-1])
        out += struct.pack("<IQ", 0, len(data))  # F32 at this offset of the data section
        data += np.ascontiguousarray(w, dtype="<f4").tobytes()
    out += b"\0" * (-len(out) % 32)
    path.write_bytes(out + data)


def test_forward_of_a_gguf_file(data, tmp_path):
    """The same model as a GGUF file (a tokenizer.json beside it): transformers' attention."""
    folder, case = first_case(data, "llama-tiny4")
    gguf = tmp_path / "llama-tiny4-f32.gguf"
    write_llama_gguf(folder, gguf)
    (tmp_path / "tokenizer.json").write_bytes((folder / "tokenizer.json").read_bytes())
    out = pescope.forward(gguf, case["text"])
    assert out["ids"] == case["ids"]
    np.testing.assert_allclose(out["attentions"], np.load(folder / "ref" / case["attn"]),
                               atol=2.5e-5)
    logits = np.load(folder / "ref" / case["logits"])
    scale = np.abs(logits).max(-1, keepdims=True)
    assert (np.abs(out["logits"] - logits) <= 1e-4 * scale).all()
