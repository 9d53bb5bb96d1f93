#!/usr/bin/python3
"""Tiny random models of the architectures pescope's forward pass computes beyond the four of
../models-layers, and their whole forward pass computed by an independent NumPy float64 port of
transformers' modeling code (no torch, no transformers: this script reads only what it writes).

Run from this folder: /usr/bin/python3 make_forward_refs.py  (NumPy only; output is deterministic).

Each <name>/ holds config.json, the weights (model.safetensors, or shards with
model.safetensors.index.json) and ref/: ids.json (the token ids), attn.npy (layers x heads x L x L),
hidden.npy ((layers + 1) x L x hidden, the last after the final norm, as output_hidden_states),
prenorm.npy (L x hidden) and logits.npy (L x vocab), all float32 (computed in float64); for
mistral-tiny and opt-tiny also attn_nopos.npy and hidden_nopos.npy: the same model without its
positions in every layer (no rotation in any layer; no position table added at the input).

The port follows these functions of transformers (v4.49-v5 source, same formulas):
- LlamaRMSNorm.forward (weight * x / sqrt(mean(x^2) + eps)); GemmaRMSNorm.forward (x / sqrt(...)
  * (1 + weight)); nn.LayerNorm.
- LlamaRotaryEmbedding / _compute_default_rope_parameters (inv_freq = 1 / theta^(2i/d), cos/sin
  of position * inv_freq repeated over both halves), rotate_half, apply_rotary_pos_emb (partial
  rotary: Phi3's rotary_ndims); Gemma3's local rotary embedding (rope_local_base_freq) on its
  sliding layers.
- repeat_kv; eager_attention_forward (scores * scaling, causal mask, softmax in float32);
  Gemma2's / Gemma3's scaling = query_pre_attn_scalar^-0.5 and tanh soft-capping; sliding
  windows as sliding_window_causal (key j seen from query i when j <= i and i - j < window).
- Qwen3Attention / Gemma3Attention: q_norm / k_norm per head before RoPE.
- Phi3Attention (qkv_proj split [q | k | v]); Phi3MLP (gate_up_proj.chunk(2): gate first).
- LlamaMLP (down(act(gate(x)) * up(x))), Gemma's gelu_pytorch_tanh, silu.
- LlamaDecoderLayer (sequential residual); Gemma2DecoderLayer / Gemma3DecoderLayer (sandwich:
  post_attention_layernorm on the attention output, pre/post_feedforward_layernorm around the MLP).
- GemmaModel's embedding scale sqrt(hidden_size); Gemma2ForCausalLM's final_logit_softcapping.
- Qwen2Attention: q/k/v biases, o_proj without.
- SmolLM3Attention: use_rope = no_rope_layers[layer_idx] (0: the layer is not rotated).
- OPTDecoder (embed_tokens + embed_positions from row 2), OPTDecoderLayer with
  do_layer_norm_before (self_attn_layer_norm, OPTAttention's q_proj(x) * scaling, fc1, relu, fc2,
  final_layer_norm), decoder.final_layer_norm, lm_head tied to embed_tokens.
- BertEmbeddings (LayerNorm(word + token_type[0] + position)), RobertaEmbeddings'
  create_position_ids_from_input_ids (padding_idx + running count), BertSelfAttention
  (bidirectional, / sqrt(head_dim)), BertSelfOutput / BertOutput (LayerNorm(dense(h) + input)),
  BertIntermediate (gelu, exact erf). BertModel has no output matrix: no logits.
"""
import json
import math
import os
import struct
import zlib

import numpy as np

HIDDEN, HEADS, KV, HEAD_DIM, INTER, LAYERS, VOCAB = 32, 4, 2, 8, 48, 3, 64
IDS = [5, 17, 3, 42, 8, 8, 61, 0, 23, 11, 37, 2]


def write_safetensors(path, tensors, dtype="F32"):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float16 if dtype == "F16" else np.float32)
        data = a.tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def random_weights(seed, shapes):
    out = {}
    for name, shape in shapes.items():
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        if len(shape) == 2:
            out[name] = rng.normal(0, 0.2, shape)
        elif name.endswith("bias"):
            out[name] = rng.normal(0, 0.1, shape)
        elif "gemma" in MODEL_TYPE[0]:  # GemmaRMSNorm multiplies by (1 + weight)
            out[name] = rng.normal(0, 0.1, shape)
        else:
            out[name] = 1 + rng.normal(0, 0.1, shape)
        out[name] = out[name].astype(np.float32)
    return out


MODEL_TYPE = [""]

# ---- the port -----------------------------------------------------------------------------------


def rms(x, w, eps, gemma):
    n = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return n * (1 + w) if gemma else w * n


def llama3_inv_freq(inv, rule):
    """_compute_llama3_parameters: wavelengths longer than original / low_freq_factor divided by
    factor, shorter than original / high_freq_factor kept, the ones between smoothed."""
    factor, low, high = rule["factor"], rule["low_freq_factor"], rule["high_freq_factor"]
    old = rule["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv
    out = np.where(wavelen > low_wavelen, inv / factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, out)


def rope(x, positions, theta, dims, rule=None):
    inv = 1.0 / theta ** (np.arange(0, dims, 2, dtype=np.float64) / dims)
    if rule and rule["rope_type"] == "linear":  # _compute_linear_scaling_rope_parameters
        inv = inv / rule["factor"]
    elif rule and rule["rope_type"] == "llama3":
        inv = llama3_inv_freq(inv, rule)
    elif rule and rule["rope_type"] == "dynamic":
        # dynamic_rope_update: seq_len = max(position_ids) + 1; _compute_dynamic_ntk_parameters
        # rescales the base beyond max_position_embeddings.
        seq_len, longest, factor = positions.max() + 1, rule["max_position_embeddings"], rule["factor"]
        if seq_len > longest:
            base = theta * ((factor * seq_len / longest) - (factor - 1)) ** (dims / (dims - 2))
            inv = 1.0 / base ** (np.arange(0, dims, 2, dtype=np.float64) / dims)
    freqs = np.outer(positions, inv)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    rot, rest = x[..., :dims], x[..., dims:]
    half = dims // 2
    rotated = np.concatenate([-rot[..., half:], rot[..., :half]], axis=-1)
    return np.concatenate([rot * cos + rotated * sin, rest], axis=-1)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x / (1 + np.exp(-x))


def forward(spec, w, positions=True, shift=0, theta_to=None, rule=None):
    """shift: position_ids = arange(shift, shift + L); theta_to: every layer's rope_theta; rule:
    a rope_parameters dict replacing the default rule ("linear" or "llama3")."""
    c = spec["config"]
    t = c["model_type"]
    gemma = t.startswith("gemma")
    eps = c["rms_norm_eps"]
    L = len(IDS)
    pos = np.arange(L, dtype=np.float64) + shift
    g = lambda n: w[n].astype(np.float64)
    x = g("model.embed_tokens.weight")[IDS]
    if gemma:
        x = x * np.sqrt(HIDDEN)
    hidden, attns = [x], []
    act = gelu_tanh if gemma else silu
    scaling = c.get("query_pre_attn_scalar", HEAD_DIM) ** -0.5
    cap = c.get("attn_logit_softcapping") or 0
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        h = rms(x, g(p + "input_layernorm.weight"), eps, gemma)
        if t == "phi3":
            qkv = h @ g(p + "self_attn.qkv_proj.weight").T
            q, k, v = np.split(qkv, [HEADS * HEAD_DIM, (HEADS + KV) * HEAD_DIM], axis=-1)
        else:
            lin = lambda n: h @ g(p + f"self_attn.{n}.weight").T + (
                g(p + f"self_attn.{n}.bias") if p + f"self_attn.{n}.bias" in w else 0)
            q, k, v = lin("q_proj"), lin("k_proj"), lin("v_proj")
        q = q.reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2)
        k = k.reshape(L, KV, HEAD_DIM).transpose(1, 0, 2)
        v = v.reshape(L, KV, HEAD_DIM).transpose(1, 0, 2)
        if p + "self_attn.q_norm.weight" in w:
            q = rms(q, g(p + "self_attn.q_norm.weight"), eps, gemma)
            k = rms(k, g(p + "self_attn.k_norm.weight"), eps, gemma)
        kind = c["layer_types"][i] if "layer_types" in c else "full_attention"
        theta = c["rope_theta"]
        if t == "gemma3_text" and kind == "sliding_attention":
            theta = c["rope_local_base_freq"]
        theta = theta_to or theta
        dims = int(HEAD_DIM * c.get("partial_rotary_factor", 1.0))
        if positions and c.get("no_rope_layers", [1] * LAYERS)[i]:  # SmolLM3Attention: use_rope
            q, k = rope(q, pos, theta, dims, rule), rope(k, pos, theta, dims, rule)
        k = np.repeat(k, HEADS // KV, axis=0)
        v = np.repeat(v, HEADS // KV, axis=0)
        s = q @ k.transpose(0, 2, 1) * scaling
        if cap:
            s = np.tanh(s / cap) * cap
        ii, jj = np.meshgrid(np.arange(L), np.arange(L), indexing="ij")
        seen = jj <= ii
        window = c.get("sliding_window")
        if window and (kind == "sliding_attention" or (t == "mistral" and "layer_types" not in c)):
            seen &= (ii - jj) < window
        s = np.where(seen, s, -np.inf)
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        a = s / s.sum(axis=-1, keepdims=True)
        attns.append(a)
        o = (a @ v).transpose(1, 0, 2).reshape(L, HEADS * HEAD_DIM) @ g(p + "self_attn.o_proj.weight").T
        if gemma and t != "gemma":
            o = rms(o, g(p + "post_attention_layernorm.weight"), eps, gemma)
            x = x + o
            h = rms(x, g(p + "pre_feedforward_layernorm.weight"), eps, gemma)
        else:
            x = x + o
            h = rms(x, g(p + "post_attention_layernorm.weight"), eps, gemma)
        if t == "phi3":
            gate, up = np.split(h @ g(p + "mlp.gate_up_proj.weight").T, 2, axis=-1)
        else:
            gate, up = h @ g(p + "mlp.gate_proj.weight").T, h @ g(p + "mlp.up_proj.weight").T
        m = (act(gate) * up) @ g(p + "mlp.down_proj.weight").T
        if gemma and t != "gemma":
            m = rms(m, g(p + "post_feedforward_layernorm.weight"), eps, gemma)
        x = x + m
        hidden.append(x)
    prenorm = x
    final = rms(x, g("model.norm.weight"), eps, gemma)
    hidden[-1] = final
    head = g("model.embed_tokens.weight") if c.get("tie_word_embeddings") else g("lm_head.weight")
    logits = final @ head.T
    fcap = c.get("final_logit_softcapping") or 0
    if fcap:
        logits = np.tanh(logits / fcap) * fcap
    return np.stack(attns), np.stack(hidden), prenorm, logits


def layer_norm(x, w, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def mha(h, g, names, causal, scale_query):
    """Multi-head attention (heads = key/value heads): probabilities and the context."""
    L = h.shape[0]
    q, k, v = (h @ g(n + ".weight").T + g(n + ".bias") for n in names)
    scaling = HEAD_DIM ** -0.5
    if scale_query:  # OPTAttention: q_proj(x) * scaling
        q = q * scaling
    q, k, v = (t.reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2) for t in (q, k, v))
    s = q @ k.transpose(0, 2, 1)
    if not scale_query:
        s = s / math.sqrt(HEAD_DIM)
    if causal:
        s = np.where(np.tril(np.ones((L, L), dtype=bool)), s, -np.inf)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    a = s / s.sum(axis=-1, keepdims=True)
    return a, (a @ v).transpose(1, 0, 2).reshape(L, HEADS * HEAD_DIM)


def forward_opt(spec, w, positions=True, shift=0):
    """shift: position_ids = arange(shift, shift + L), OPTLearnedPositionalEmbedding adding its
    offset 2."""
    g = lambda n: w[n].astype(np.float64)
    L = len(IDS)
    x = g("model.decoder.embed_tokens.weight")[IDS]
    if positions:
        x = x + g("model.decoder.embed_positions.weight")[np.arange(L) + shift + 2]
    hidden, attns = [x], []
    for i in range(LAYERS):
        p = f"model.decoder.layers.{i}."
        h = layer_norm(x, g(p + "self_attn_layer_norm.weight"), g(p + "self_attn_layer_norm.bias"), 1e-5)
        a, ctx = mha(h, g, [p + "self_attn." + n for n in ("q_proj", "k_proj", "v_proj")], True, True)
        attns.append(a)
        x = x + ctx @ g(p + "self_attn.out_proj.weight").T + g(p + "self_attn.out_proj.bias")
        h = layer_norm(x, g(p + "final_layer_norm.weight"), g(p + "final_layer_norm.bias"), 1e-5)
        h = np.maximum(h @ g(p + "fc1.weight").T + g(p + "fc1.bias"), 0)
        x = x + h @ g(p + "fc2.weight").T + g(p + "fc2.bias")
        hidden.append(x)
    prenorm = x
    final = layer_norm(x, g("model.decoder.final_layer_norm.weight"), g("model.decoder.final_layer_norm.bias"), 1e-5)
    hidden[-1] = final
    return np.stack(attns), np.stack(hidden), prenorm, final @ g("model.decoder.embed_tokens.weight").T


def forward_gpt2(spec, w, positions=True, shift=0):
    """GPT2Model / GPT2LMHeadModel: wte[id] + wpe[p + shift] (position_ids = arange(shift,
    shift + L)), GPT2Block (ln_1, GPT2Attention: Conv1D c_attn x @ W + b split [q | k | v], scores
    / sqrt(head_dim), causal; c_proj; ln_2, GPT2MLP c_fc, gelu_new, c_proj), ln_f, lm_head tied
    to wte."""
    g = lambda n: w[n].astype(np.float64)
    c = spec["config"]
    eps = c["layer_norm_epsilon"]
    L = len(IDS)
    x = g("transformer.wte.weight")[IDS]
    if positions:
        x = x + g("transformer.wpe.weight")[np.arange(L) + shift]
    hidden, attns = [x], []
    for i in range(LAYERS):
        p = f"transformer.h.{i}."
        h = layer_norm(x, g(p + "ln_1.weight"), g(p + "ln_1.bias"), eps)
        qkv = h @ g(p + "attn.c_attn.weight") + g(p + "attn.c_attn.bias")
        q, k, v = (t.reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2) for t in np.split(qkv, 3, axis=-1))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(HEAD_DIM)
        s = np.where(np.tril(np.ones((L, L), dtype=bool)), s, -np.inf)
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        a = s / s.sum(axis=-1, keepdims=True)
        attns.append(a)
        ctx = (a @ v).transpose(1, 0, 2).reshape(L, HIDDEN)
        x = x + ctx @ g(p + "attn.c_proj.weight") + g(p + "attn.c_proj.bias")
        h = layer_norm(x, g(p + "ln_2.weight"), g(p + "ln_2.bias"), eps)
        m = gelu_tanh(h @ g(p + "mlp.c_fc.weight") + g(p + "mlp.c_fc.bias"))
        x = x + m @ g(p + "mlp.c_proj.weight") + g(p + "mlp.c_proj.bias")
        hidden.append(x)
    prenorm = x
    final = layer_norm(x, g("transformer.ln_f.weight"), g("transformer.ln_f.bias"), eps)
    hidden[-1] = final
    return np.stack(attns), np.stack(hidden), prenorm, final @ g("transformer.wte.weight").T


def forward_bert(spec, w):
    g = lambda n: w[n].astype(np.float64)
    eps = spec["config"]["layer_norm_eps"]
    L = len(IDS)
    if spec["config"]["model_type"] == "roberta":
        pad = spec["config"]["pad_token_id"]
        mask = np.array([i != pad for i in IDS], dtype=np.int64)
        positions = np.cumsum(mask) * mask + pad
    else:
        positions = np.arange(L)
    x = g("embeddings.word_embeddings.weight")[IDS] + g("embeddings.token_type_embeddings.weight")[0]
    x = x + g("embeddings.position_embeddings.weight")[positions]
    x = layer_norm(x, g("embeddings.LayerNorm.weight"), g("embeddings.LayerNorm.bias"), eps)
    hidden, attns = [x], []
    gelu = lambda t: 0.5 * t * (1 + np.vectorize(math.erf)(t / math.sqrt(2)))
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        a, ctx = mha(x, g, [p + "attention.self." + n for n in ("query", "key", "value")], False, False)
        attns.append(a)
        h = ctx @ g(p + "attention.output.dense.weight").T + g(p + "attention.output.dense.bias")
        x = layer_norm(h + x, g(p + "attention.output.LayerNorm.weight"), g(p + "attention.output.LayerNorm.bias"), eps)
        m = gelu(x @ g(p + "intermediate.dense.weight").T + g(p + "intermediate.dense.bias"))
        m = m @ g(p + "output.dense.weight").T + g(p + "output.dense.bias")
        x = layer_norm(m + x, g(p + "output.LayerNorm.weight"), g(p + "output.LayerNorm.bias"), eps)
        hidden.append(x)
    return np.stack(attns), np.stack(hidden), x, None


# ---- the models ---------------------------------------------------------------------------------


def base_config(model_type, arch, **extra):
    c = {
        "architectures": [arch], "model_type": model_type, "hidden_size": HIDDEN,
        "intermediate_size": INTER, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "num_key_value_heads": KV, "head_dim": HEAD_DIM, "vocab_size": VOCAB,
        "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
        "tie_word_embeddings": False, "torch_dtype": "float32", "hidden_act": "silu",
    }
    c.update(extra)
    return c


MODELS = {
    "mistral-tiny": dict(seed=2001, config=base_config(
        "mistral", "MistralForCausalLM", sliding_window=4)),
    "qwen2-tiny": dict(seed=2002, shards=2, config=base_config(
        "qwen2", "Qwen2ForCausalLM", use_sliding_window=False, sliding_window=None,
        tie_word_embeddings=True)),
    "gemma-tiny": dict(seed=2003, config=base_config(
        "gemma", "GemmaForCausalLM", hidden_act="gelu_pytorch_tanh",
        hidden_activation="gelu_pytorch_tanh", tie_word_embeddings=True)),
    "gemma2-tiny": dict(seed=2004, config=base_config(
        "gemma2", "Gemma2ForCausalLM", hidden_activation="gelu_pytorch_tanh",
        hidden_act="gelu_pytorch_tanh", tie_word_embeddings=True, query_pre_attn_scalar=16,
        attn_logit_softcapping=5.0, final_logit_softcapping=3.0, sliding_window=4,
        layer_types=["sliding_attention", "full_attention", "sliding_attention"])),
    "gemma3-tiny": dict(seed=2005, config=base_config(
        "gemma3_text", "Gemma3ForCausalLM", hidden_activation="gelu_pytorch_tanh",
        hidden_act="gelu_pytorch_tanh", tie_word_embeddings=True, query_pre_attn_scalar=8,
        rope_theta=1000000.0, rope_local_base_freq=10000.0, sliding_window=4,
        attn_logit_softcapping=None, final_logit_softcapping=None,
        layer_types=["sliding_attention", "sliding_attention", "full_attention"])),
    "phi3-tiny": dict(seed=2006, dtype="F16", config=base_config(
        "phi3", "Phi3ForCausalLM", partial_rotary_factor=0.5, sliding_window=None,
        rms_norm_eps=1e-5)),
}


def opt_config():
    return {"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": HIDDEN,
            "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "ffn_dim": INTER,
            "max_position_embeddings": 64, "do_layer_norm_before": True,
            "word_embed_proj_dim": HIDDEN, "enable_bias": True, "activation_function": "relu",
            "vocab_size": VOCAB, "torch_dtype": "float32", "pad_token_id": 1}


def bert_config(model_type, arch, **extra):
    c = {"architectures": [arch], "model_type": model_type, "hidden_size": HIDDEN,
         "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "intermediate_size": INTER,
         "max_position_embeddings": 64, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
         "hidden_act": "gelu", "vocab_size": VOCAB, "torch_dtype": "float32",
         "position_embedding_type": "absolute"}
    c.update(extra)
    return c


MODELS["smollm3-tiny"] = dict(seed=2010, config=base_config(
    "smollm3", "SmolLM3ForCausalLM", no_rope_layers=[1, 1, 0], rope_theta=2000000.0,
    use_sliding_window=False, sliding_window=None, attention_bias=False, mlp_bias=False,
    tie_word_embeddings=True))
MODELS["opt-tiny"] = dict(seed=2007, config=opt_config())
MODELS["gpt2-tiny"] = dict(seed=2011, config={
    "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": HIDDEN, "n_head": HEADS,
    "n_layer": LAYERS, "n_inner": INTER, "n_positions": 32, "vocab_size": VOCAB,
    "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5, "scale_attn_weights": True,
    "tie_word_embeddings": True, "torch_dtype": "float32"})
MODELS["bert-tiny"] = dict(seed=2008, config=bert_config("bert", "BertModel", pad_token_id=0))
MODELS["roberta-tiny"] = dict(seed=2009, config=bert_config(
    "roberta", "RobertaModel", pad_token_id=1, max_position_embeddings=66))


# Position ablations (pescope's PositionAblation), as transformers computes them: position_ids
# starting at 5 (shift5); rope_scaling {"rope_type": "linear", "factor": 2} (scale2: pescope's
# positions p -> p / 2); rope_theta 1000 in every layer (theta1000); the llama3 rule with
# factor 8, low 1, high 4, original 128, whose four wavelengths (6.3, 63, 628, 6283) fall in the
# high, medium and low bands (llama3).
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 128}
# dynamic NTK (factor 2) with position ids from 1000: seq_len 1012 > max_position_embeddings 512,
# so the base grows, and the shift changes the attention (it does not with the other rules).
DYNAMIC = {"rope_type": "dynamic", "factor": 2.0, "max_position_embeddings": 512}
ABLATIONS = {
    "mistral-tiny": [("shift5", dict(shift=5)),
                     ("scale2", dict(rule={"rope_type": "linear", "factor": 2.0})),
                     ("theta1000", dict(theta_to=1000.0)), ("llama3", dict(rule=LLAMA3)),
                     ("dynamic_shift1000", dict(shift=1000, rule=DYNAMIC))],
    "opt-tiny": [("shift5", dict(shift=5))],
    "gpt2-tiny": [("shift5", dict(shift=5))],
}


def shapes_of(c):
    t = c["model_type"]
    if t == "opt":
        s = {"model.decoder.embed_tokens.weight": (VOCAB, HIDDEN),
             "model.decoder.embed_positions.weight": (66, HIDDEN),
             "model.decoder.final_layer_norm.weight": (HIDDEN,),
             "model.decoder.final_layer_norm.bias": (HIDDEN,)}
        for i in range(LAYERS):
            p = f"model.decoder.layers.{i}."
            for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
                s[p + f"self_attn.{n}.weight"] = (HIDDEN, HIDDEN)
                s[p + f"self_attn.{n}.bias"] = (HIDDEN,)
            for n in ("self_attn_layer_norm", "final_layer_norm"):
                s[p + n + ".weight"] = (HIDDEN,)
                s[p + n + ".bias"] = (HIDDEN,)
            s[p + "fc1.weight"], s[p + "fc1.bias"] = (INTER, HIDDEN), (INTER,)
            s[p + "fc2.weight"], s[p + "fc2.bias"] = (HIDDEN, INTER), (HIDDEN,)
        return s
    if t == "gpt2":
        s = {"transformer.wte.weight": (VOCAB, HIDDEN), "transformer.wpe.weight": (32, HIDDEN),
             "transformer.ln_f.weight": (HIDDEN,), "transformer.ln_f.bias": (HIDDEN,)}
        for i in range(LAYERS):
            p = f"transformer.h.{i}."
            for n in ("ln_1", "ln_2"):
                s[p + n + ".weight"], s[p + n + ".bias"] = (HIDDEN,), (HIDDEN,)
            # Conv1D: weight in x out
            s[p + "attn.c_attn.weight"], s[p + "attn.c_attn.bias"] = (HIDDEN, 3 * HIDDEN), (3 * HIDDEN,)
            s[p + "attn.c_proj.weight"], s[p + "attn.c_proj.bias"] = (HIDDEN, HIDDEN), (HIDDEN,)
            s[p + "mlp.c_fc.weight"], s[p + "mlp.c_fc.bias"] = (HIDDEN, INTER), (INTER,)
            s[p + "mlp.c_proj.weight"], s[p + "mlp.c_proj.bias"] = (INTER, HIDDEN), (HIDDEN,)
        return s
    if t in ("bert", "roberta"):
        s = {"embeddings.word_embeddings.weight": (VOCAB, HIDDEN),
             "embeddings.position_embeddings.weight": (c["max_position_embeddings"], HIDDEN),
             "embeddings.token_type_embeddings.weight": (2, HIDDEN),
             "embeddings.LayerNorm.weight": (HIDDEN,), "embeddings.LayerNorm.bias": (HIDDEN,)}
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            for n in ("attention.self.query", "attention.self.key", "attention.self.value",
                      "attention.output.dense"):
                s[p + n + ".weight"], s[p + n + ".bias"] = (HIDDEN, HIDDEN), (HIDDEN,)
            for n in ("attention.output.LayerNorm", "output.LayerNorm"):
                s[p + n + ".weight"], s[p + n + ".bias"] = (HIDDEN,), (HIDDEN,)
            s[p + "intermediate.dense.weight"], s[p + "intermediate.dense.bias"] = (INTER, HIDDEN), (INTER,)
            s[p + "output.dense.weight"], s[p + "output.dense.bias"] = (HIDDEN, INTER), (HIDDEN,)
        return s
    s = {"model.embed_tokens.weight": (VOCAB, HIDDEN), "model.norm.weight": (HIDDEN,)}
    if not c["tie_word_embeddings"]:
        s["lm_head.weight"] = (VOCAB, HIDDEN)
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        s[p + "input_layernorm.weight"] = (HIDDEN,)
        s[p + "post_attention_layernorm.weight"] = (HIDDEN,)
        if t in ("gemma2", "gemma3_text"):
            s[p + "pre_feedforward_layernorm.weight"] = (HIDDEN,)
            s[p + "post_feedforward_layernorm.weight"] = (HIDDEN,)
        if t == "phi3":
            s[p + "self_attn.qkv_proj.weight"] = ((HEADS + 2 * KV) * HEAD_DIM, HIDDEN)
            s[p + "mlp.gate_up_proj.weight"] = (2 * INTER, HIDDEN)
        else:
            s[p + "self_attn.q_proj.weight"] = (HEADS * HEAD_DIM, HIDDEN)
            s[p + "self_attn.k_proj.weight"] = (KV * HEAD_DIM, HIDDEN)
            s[p + "self_attn.v_proj.weight"] = (KV * HEAD_DIM, HIDDEN)
            s[p + "mlp.gate_proj.weight"] = (INTER, HIDDEN)
            s[p + "mlp.up_proj.weight"] = (INTER, HIDDEN)
        if t == "qwen2":
            s[p + "self_attn.q_proj.bias"] = (HEADS * HEAD_DIM,)
            s[p + "self_attn.k_proj.bias"] = (KV * HEAD_DIM,)
            s[p + "self_attn.v_proj.bias"] = (KV * HEAD_DIM,)
        if t == "gemma3_text":
            s[p + "self_attn.q_norm.weight"] = (HEAD_DIM,)
            s[p + "self_attn.k_norm.weight"] = (HEAD_DIM,)
        s[p + "self_attn.o_proj.weight"] = (HIDDEN, HEADS * HEAD_DIM)
        s[p + "mlp.down_proj.weight"] = (HIDDEN, INTER)
    return s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for name, spec in MODELS.items():
        c = spec["config"]
        MODEL_TYPE[0] = c["model_type"]
        folder = os.path.join(here, name)
        os.makedirs(os.path.join(folder, "ref"), exist_ok=True)
        w = random_weights(spec["seed"], shapes_of(c))
        dtype = spec.get("dtype", "F32")
        if dtype == "F16":  # stored in half precision, run in float32: the port uses those values
            w = {k: v.astype(np.float16).astype(np.float32) for k, v in w.items()}
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(c, f, indent=2, sort_keys=True)
        shards = spec.get("shards", 1)
        if shards == 1:
            write_safetensors(os.path.join(folder, "model.safetensors"), w, dtype)
        else:
            names = sorted(w)
            weight_map = {}
            for s in range(shards):
                part = names[s::shards]
                file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
                write_safetensors(os.path.join(folder, file), {k: w[k] for k in part}, dtype)
                weight_map.update({k: file for k in part})
            with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
                json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
        run = {"opt": forward_opt, "bert": forward_bert, "roberta": forward_bert,
               "gpt2": forward_gpt2}.get(c["model_type"], forward)
        attn, hidden, prenorm, logits = run(spec, w)
        for key, value in (("attn", attn), ("hidden", hidden), ("prenorm", prenorm), ("logits", logits)):
            if value is None:
                continue
            np.save(os.path.join(folder, "ref", key + ".npy"), value.astype(np.float32))
        if name in ("mistral-tiny", "opt-tiny"):
            attn, hidden, _, _ = run(spec, w, positions=False)
            np.save(os.path.join(folder, "ref", "attn_nopos.npy"), attn.astype(np.float32))
            np.save(os.path.join(folder, "ref", "hidden_nopos.npy"), hidden.astype(np.float32))
        for suffix, kwargs in ABLATIONS.get(name, []):
            attn, hidden, _, _ = run(spec, w, **kwargs)
            np.save(os.path.join(folder, "ref", f"attn_{suffix}.npy"), attn.astype(np.float32))
            np.save(os.path.join(folder, "ref", f"hidden_{suffix}.npy"), hidden.astype(np.float32))
        with open(os.path.join(folder, "ref", "ids.json"), "w") as f:
            json.dump({"ids": IDS}, f)
        print(name, "attn", attn.shape, "max |hidden|", float(np.abs(hidden).max()))


if __name__ == "__main__":
    main()
