#!/usr/bin/env python3
"""The whole forward pass (issue 48 item 6): pescope's ForwardPass (bench_forward, built beside
app/pescope) against PyTorch's eager float32 forward on the CPU, side by side in one run, with the
same thread count, on two models with random weights that this script writes to a temporary
folder (safetensors + config.json, removed afterwards):

  gpt2-small  GPT-2 small's shape (12 layers, 768 wide, 50,257 tokens, tied output; 124M
              parameters), float32 as OpenAI's checkpoint is stored;
  qwen3-0.6b  Qwen3-0.6B's shape (28 layers, 1,024 wide, 16 query / 8 key-value heads of 128,
              q/k norms, 151,936 tokens, tied output; 596M parameters), bfloat16 as Qwen's
              checkpoint is stored;

at 128 and 1,024 tokens. transformers is not needed: the PyTorch forward is written here with
torch ops that mirror transformers' modeling_gpt2.py and modeling_qwen3.py (eager attention,
float32 as from_pretrained(torch_dtype=torch.float32) loads them, every token's logits as the
plain forward returns them, or the last token's only as logits_to_keep=1 computes them), and is
checked against pescope's logits on the same models before anything is timed. Both keep every
token's logits ("all") and the last token's only ("last"), each timed and measured in its own
process. Each case runs in its own processes; medians of RUNS warm runs after one
discarded warm-up. Peak memory is each process's own max RSS (VmHWM), set against the bytes of
the weights as stored: pescope maps the file and widens one layer at a time, PyTorch holds the
model in float32.

    /usr/bin/python3 bench/bench_forward.py [PATH/TO/bench_forward] [RUNS] [THREADS]
                                            [MODELS] [TOKEN,COUNTS]

MODELS: gpt2-small,qwen3-0.6b (both by default); TOKEN,COUNTS: 128,1024 by default. With
PE_BENCH_BASELINE=PATH/TO/another/bench_forward (another build, say before a change) its time
and peak memory are measured beside, one warm run each.

Needs Debian's python3-torch and, so that PyTorch's matrix products do not fall back on the
reference BLAS, libopenblas0-pthread. It never passes or fails on time.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))

MODELS = {
    "gpt2-small": {
        "dtype": "F32",
        "config": {
            "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
            "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
            "n_embd": 768, "n_head": 12, "n_inner": None, "n_layer": 12, "n_positions": 1024,
            "vocab_size": 50257, "scale_attn_weights": True, "torch_dtype": "float32",
            "reorder_and_upcast_attn": False, "scale_attn_by_inverse_layer_idx": False,
        },
    },
    "qwen3-0.6b": {
        "dtype": "BF16",
        "config": {
            "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
            "attention_bias": False, "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024,
            "intermediate_size": 3072, "max_position_embeddings": 40960,
            "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0,
            "sliding_window": None, "use_sliding_window": False, "tie_word_embeddings": True,
            "torch_dtype": "bfloat16", "vocab_size": 151936,
        },
    },
}


def gpt2_tensors(c):
    d, v, inner = c["n_embd"], c["vocab_size"], 4 * c["n_embd"]
    yield "transformer.wte.weight", (v, d), "normal"
    yield "transformer.wpe.weight", (c["n_positions"], d), "normal"
    for i in range(c["n_layer"]):
        p = f"transformer.h.{i}."
        for norm in ("ln_1", "ln_2"):
            yield p + norm + ".weight", (d,), "norm"
            yield p + norm + ".bias", (d,), "bias"
        # Conv1D: stored in x out
        for name, shape in (("attn.c_attn", (d, 3 * d)), ("attn.c_proj", (d, d)),
                            ("mlp.c_fc", (d, inner)), ("mlp.c_proj", (inner, d))):
            yield p + name + ".weight", shape, "normal"
            yield p + name + ".bias", (shape[1],), "bias"
    yield "transformer.ln_f.weight", (d,), "norm"
    yield "transformer.ln_f.bias", (d,), "bias"


def qwen3_tensors(c):
    d, v, hd = c["hidden_size"], c["vocab_size"], c["head_dim"]
    q, kv, inner = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd, c["intermediate_size"]
    yield "model.embed_tokens.weight", (v, d), "normal"
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        yield p + "input_layernorm.weight", (d,), "norm"
        yield p + "post_attention_layernorm.weight", (d,), "norm"
        yield p + "self_attn.q_norm.weight", (hd,), "norm"
        yield p + "self_attn.k_norm.weight", (hd,), "norm"
        for name, shape in (("self_attn.q_proj", (q, d)), ("self_attn.k_proj", (kv, d)),
                            ("self_attn.v_proj", (kv, d)), ("self_attn.o_proj", (d, q)),
                            ("mlp.gate_proj", (inner, d)), ("mlp.up_proj", (inner, d)),
                            ("mlp.down_proj", (d, inner))):
            yield p + name + ".weight", shape, "normal"
    yield "model.norm.weight", (d,), "norm"


def random_values(shape, kind, rng):
    if kind == "norm":
        return (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
    if kind == "bias":
        return (0.02 * rng.standard_normal(shape)).astype(np.float32)
    return (0.02 * rng.standard_normal(shape, dtype=np.float32)).astype(np.float32)


def to_stored(values, dtype):
    if dtype == "F32":
        return values.astype("<f4")
    bits = values.astype("<f4").view("<u4")  # bfloat16: round to nearest even
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def write_model(folder, name):
    """The model's config.json and model.safetensors; returns the weights' bytes."""
    spec = MODELS[name]
    config = spec["config"]
    tensors = list((gpt2_tensors if config["model_type"] == "gpt2" else qwen3_tensors)(config))
    size = 4 if spec["dtype"] == "F32" else 2
    header, offset = {}, 0
    for tensor, shape, _ in tensors:
        count = int(np.prod(shape)) * size
        header[tensor] = {"dtype": spec["dtype"], "shape": list(shape),
                          "data_offsets": [offset, offset + count]}
        offset += count
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(48)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.safetensors"), "wb") as out:
        out.write(len(text).to_bytes(8, "little") + text)
        for _, shape, kind in tensors:
            out.write(to_stored(random_values(shape, kind, rng), spec["dtype"]).tobytes())
    with open(os.path.join(folder, "config.json"), "w") as out:
        json.dump(config, out, indent=1)
    return offset


def token_ids(tokens, vocabulary):  # what bench_forward.cpp gives pescope
    return [(p * 7919 + 13) % vocabulary for p in range(tokens)]


# ---- PyTorch's eager forward, mirroring transformers (run in a worker process) ----

def load_weights(folder):
    import torch
    path = os.path.join(folder, "model.safetensors")
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    weights = {}
    for name, info in header.items():
        lo, hi = info["data_offsets"]
        chunk = np.array(raw[lo:hi])
        if info["dtype"] == "F32":
            t = torch.from_numpy(chunk.view("<f4"))
        else:  # from_pretrained(torch_dtype=torch.float32) widens bfloat16 to float32 on load
            t = torch.from_numpy(chunk.view("<i2")).view(torch.bfloat16).float()
        weights[name] = t.reshape(info["shape"]).contiguous()
    return weights


def causal_mask(tokens):
    import torch
    return torch.full((tokens, tokens), torch.finfo(torch.float32).min).triu(1)


def gpt2_forward(w, c, ids, last=False):
    """modeling_gpt2.GPT2LMHeadModel, eager attention, every token's logits (last: the last
    token's, as logits_to_keep=1 slices the hidden states before lm_head)."""
    import torch
    import torch.nn.functional as F
    d, heads = c["n_embd"], c["n_head"]
    hd, eps, t = d // heads, c["layer_norm_epsilon"], ids.shape[0]
    x = w["transformer.wte.weight"][ids] + w["transformer.wpe.weight"][torch.arange(t)]
    mask = causal_mask(t)
    for i in range(c["n_layer"]):
        p = f"transformer.h.{i}."
        a = F.layer_norm(x, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = torch.addmm(w[p + "attn.c_attn.bias"], a, w[p + "attn.c_attn.weight"])
        q, k, v = (m.view(t, heads, hd).transpose(0, 1) for m in qkv.split(d, dim=1))
        scores = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5)
        probs = F.softmax(scores + mask, dim=-1)
        a = torch.matmul(probs, v).transpose(0, 1).reshape(t, d)
        x = x + torch.addmm(w[p + "attn.c_proj.bias"], a, w[p + "attn.c_proj.weight"])
        m = F.layer_norm(x, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        m = torch.addmm(w[p + "mlp.c_fc.bias"], m, w[p + "mlp.c_fc.weight"])
        m = 0.5 * m * (1.0 + torch.tanh(0.7978845608028654 * (m + 0.044715 * torch.pow(m, 3.0))))
        x = x + torch.addmm(w[p + "mlp.c_proj.bias"], m, w[p + "mlp.c_proj.weight"])
    x = F.layer_norm(x, (d,), w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], eps)
    return F.linear(x[-1:] if last else x, w["transformer.wte.weight"])


def rms_norm(x, weight, eps):  # Qwen3RMSNorm
    import torch
    variance = x.pow(2).mean(-1, keepdim=True)
    return weight * (x * torch.rsqrt(variance + eps))


def rotate_half(x):
    import torch
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def qwen3_forward(w, c, ids, last=False):
    """modeling_qwen3.Qwen3ForCausalLM, eager attention, every token's logits (or the last's)."""
    import torch
    import torch.nn.functional as F
    d, heads, kv, hd = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                        c["head_dim"])
    eps, t = c["rms_norm_eps"], ids.shape[0]
    inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    freqs = torch.arange(t).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    mask = causal_mask(t)
    x = w["model.embed_tokens.weight"][ids]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = rms_norm(F.linear(a, w[p + "self_attn.q_proj.weight"]).view(t, heads, hd),
                     w[p + "self_attn.q_norm.weight"], eps).transpose(0, 1)
        k = rms_norm(F.linear(a, w[p + "self_attn.k_proj.weight"]).view(t, kv, hd),
                     w[p + "self_attn.k_norm.weight"], eps).transpose(0, 1)
        v = F.linear(a, w[p + "self_attn.v_proj.weight"]).view(t, kv, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(heads // kv, dim=0)  # repeat_kv
        v = v.repeat_interleave(heads // kv, dim=0)
        scores = torch.matmul(q, k.transpose(-1, -2)) * hd ** -0.5 + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32)
        a = torch.matmul(probs, v).transpose(0, 1).reshape(t, heads * hd)
        x = x + F.linear(a, w[p + "self_attn.o_proj.weight"])
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        m = F.linear(F.silu(F.linear(m, w[p + "mlp.gate_proj.weight"])) *
                     F.linear(m, w[p + "mlp.up_proj.weight"]), w[p + "mlp.down_proj.weight"])
        x = x + m
    x = rms_norm(x, w["model.norm.weight"], eps)
    return F.linear(x[-1:] if last else x, w["model.embed_tokens.weight"])


def vm_hwm_mib():
    """This process's own peak RSS: ru_maxrss would keep the parent's from before exec."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return -1.0


def torch_worker(folder, name, tokens, threads, runs, dump, last):
    import torch
    torch.set_num_threads(threads)
    config = MODELS[name]["config"]
    weights = load_weights(folder)
    ids = torch.tensor(token_ids(tokens, config["vocab_size"]))
    forward = gpt2_forward if config["model_type"] == "gpt2" else qwen3_forward
    times = []
    with torch.inference_mode():
        start = time.perf_counter()
        logits = forward(weights, config, ids, last)  # warm-up (runs 0: the one run timed)
        times.append(time.perf_counter() - start)
        for run in range(runs):
            logits = None  # not held while the next run computes: the peak is one run's
            start = time.perf_counter()
            logits = forward(weights, config, ids, last)
            if run == 0:
                times.clear()
            times.append(time.perf_counter() - start)
    if dump:
        logits.numpy().astype("<f4").tofile(dump)
    peak = vm_hwm_mib()
    print(json.dumps({"median": statistics.median(times), "min": min(times), "peak_mib": peak}))


# ---- the side-by-side run ----

def run_json(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def torch_command(folder, name, tokens, threads, runs, dump="", last=False):
    return [sys.executable, os.path.abspath(__file__), "--torch-worker", folder, name,
            str(tokens), str(threads), str(runs), dump, "last" if last else "all"]


def check_same(binary, folder, name, threads, work):
    """pescope's logits against the PyTorch forward's on the same model (64 tokens)."""
    ours, theirs = os.path.join(work, "pescope.f32"), os.path.join(work, "torch.f32")
    run_json([binary, "--model", folder, "--tokens", "64", "--threads", str(threads),
              "--runs", "1", "--dump", ours])
    run_json(torch_command(folder, name, 64, threads, 1, theirs))
    a, b = np.fromfile(ours, "<f4"), np.fromfile(theirs, "<f4")
    if a.shape != b.shape:
        sys.exit(f"{name}: pescope gave {a.size} logits, PyTorch {b.size}")
    relative = float(np.abs(a - b).max() / np.abs(b).max())
    print(f"{name}: pescope's logits against PyTorch's, 64 tokens: largest difference "
          f"{relative:.2e} of the largest logit" + ("" if relative <= 1e-4 else "  (OVER 1e-4)"),
          flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-worker":
        folder, name, tokens, threads, runs, dump, logits = sys.argv[2:9]
        torch_worker(folder, name, int(tokens), int(threads), int(runs), dump, logits == "last")
        return
    binary = (sys.argv[1] if len(sys.argv) > 1 else
              os.path.join(here, "..", "build", "bench", "bench_forward"))
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count()
    names = [n for n in MODELS if len(sys.argv) <= 4 or n in sys.argv[4].split(",")]
    # Another build's bench_forward (say, before a change), timed beside: median of 1 warm run.
    baseline = os.environ.get("PE_BENCH_BASELINE", "")
    token_counts = [int(t) for t in (sys.argv[5] if len(sys.argv) > 5 else "128,1024").split(",")]
    import torch
    print(f"PyTorch {torch.__version__}, {threads} threads (torch.set_num_threads), "
          f"{os.cpu_count()} CPUs, median of {runs} warm runs; load average at the start "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()), flush=True)
    work = tempfile.mkdtemp(prefix="pescope-bench-forward-")
    header = (f"{'model':<11} {'tokens':>6} {'logits':>6} {'pescope s':>9} {'torch s':>8} "
              f"{'ratio':>6} {'weights MiB':>11} {'pescope peak':>14} {'torch peak':>13}" +
              (f" {'before s':>8} {'ratio':>5} {'peak':>6}" if baseline else ""))
    try:
        rows = []
        for name in names:
            folder = os.path.join(work, name)
            weight_bytes = write_model(folder, name)
            check_same(binary, folder, name, threads, work)
            for tokens in token_counts:
                for logits in ("all", "last"):
                    flag = ["--last-logits"] if logits == "last" else []
                    ours = run_json([binary, "--model", folder, "--tokens", str(tokens),
                                     "--threads", str(threads), "--runs", str(runs)] + flag)
                    theirs = run_json(torch_command(folder, name, tokens, threads, runs,
                                                    last=logits == "last"))
                    before = (run_json([baseline, "--model", folder, "--tokens", str(tokens),
                                        "--threads", str(threads), "--runs", "1"] + flag)
                              if baseline else None)
                    rows.append(row_text(name, tokens, logits, weight_bytes / 2**20, ours,
                                         theirs, before))
                    print(header + "\n" + rows[-1], flush=True)
            shutil.rmtree(folder)
        load = os.getloadavg()
        print()
        print(header)
        print("\n".join(rows))
        print("ratio: pescope's time over PyTorch's (below 1: pescope faster); peak: max RSS "
              "(VmHWM) of the process, and over the weights' bytes as stored; logits all: every "
              "token's (the plain forward), last: the last token's only (logits_to_keep=1)" +
              ("; before: PE_BENCH_BASELINE's build, one warm run" if baseline else ""))
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def row_text(name, tokens, logits, mib, ours, theirs, before):
    text = (f"{name:<11} {tokens:>6} {logits:>6} {ours['median']:>9.3f} {theirs['median']:>8.3f} "
            f"{ours['median'] / theirs['median']:>6.2f} {mib:>11.0f} "
            f"{ours['peak_mib']:>7.0f} {ours['peak_mib'] / mib:>5.2f}x "
            f"{theirs['peak_mib']:>7.0f} {theirs['peak_mib'] / mib:>4.2f}x")
    if before:
        text += (f" {before['median']:>8.3f} {before['median'] / theirs['median']:>5.2f} "
                 f"{before['peak_mib']:>6.0f}")
    return text


if __name__ == "__main__":
    main()
