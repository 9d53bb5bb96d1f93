#!/usr/bin/env python3
"""Benchmark for issue 37: pescope's tokenizer against Hugging Face's `tokenizers` (0.23.2, the
Rust library through its official Node binding, npm "tokenizers") on the same machine, one
thread each: the time to read each published tokenizer.json and to encode about 1 MB of mixed
text (bench_tokenizer's), medians of warm runs. Prints both and the ratios; never passes or
fails on time.

  npm install --prefix bench/node tokenizers@0.23.2     (once; or set NODE_PATH)
  python3 bench/bench_tokenizers_vs_hf.py --build build [--runs 5] [--megabytes 1]

The files: tests/data/tokenizers-real/{gpt2,bert-base-uncased,t5-small} and, where the session's
shared data is there, ../shared/data/tokenizers-real/qwen3 (11 MB, not in the repository).
Without node or the package it says so and exits 0 (nothing to compare against).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent


def files():
    out = [(name, SOURCE / "tests" / "data" / "tokenizers-real" / name / "tokenizer.json")
           for name in ("gpt2", "bert-base-uncased", "t5-small")]
    qwen = SOURCE.parent / "shared" / "data" / "tokenizers-real" / "qwen3" / "tokenizer.json"
    if qwen.exists():
        out.append(("qwen3", qwen))
    return out


def node_environment():
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        return None, None, "node is not installed"
    env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    paths = [p for p in [env.get("NODE_PATH"), str(HERE / "node" / "node_modules")] if p]
    env["NODE_PATH"] = os.pathsep.join(paths)
    probe = subprocess.run([node, "-e", "require('tokenizers')"], env=env, capture_output=True)
    if probe.returncode != 0:
        return None, None, ("the npm package tokenizers is not installed (npm install --prefix "
                            "bench/node tokenizers@0.23.2)")
    version = subprocess.run([node, "-p", "require('tokenizers/package.json').version"], env=env,
                             capture_output=True, text=True).stdout.strip()
    return node, env, version


def run_json(command, env=None):
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("%s failed: %s" % (command[0], result.stderr.strip()))
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(SOURCE / "build"), help="the build folder")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--megabytes", type=float, default=1.0)
    args = parser.parse_args()
    bench = pathlib.Path(args.build) / "bench" / "bench_tokenizer"
    if not bench.exists():
        sys.exit("%s is not built (cmake --build %s --target bench_tokenizer)" % (bench, args.build))
    node, env, version = node_environment()
    if node is None:
        print("skipped: %s; nothing to compare against" % version)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        text = pathlib.Path(folder) / "text.txt"
        subprocess.run([str(bench), "--write-text", str(text), "--megabytes", str(args.megabytes)],
                       check=True)
        megabytes = text.stat().st_size / 1e6
        print("text: %.2f MB; tokenizers %s (Node binding), one thread each; medians of %d runs"
              % (megabytes, version, args.runs))
        print("%-18s %10s %10s %8s | %10s %10s %8s | %s" % (
            "", "load pe s", "load HF s", "pe/HF", "enc pe MB/s", "enc HF MB/s", "pe/HF",
            "tokens pe/HF"))
        for name, path in files():
            pe = run_json([str(bench), "--tokenizer", str(path), "--text-file", str(text),
                           "--runs", str(args.runs)])
            hf = run_json([node, str(HERE / "hf_tokenizers.js"), str(path), str(text),
                           str(args.runs)], env)
            print("%-18s %10.3f %10.3f %8.2f | %10.2f %10.2f %8.2f | %d/%d" % (
                name, pe["load_s"], hf["load_s"], pe["load_s"] / hf["load_s"],
                megabytes / pe["encode_s"], megabytes / hf["encode_s"],
                hf["encode_s"] / pe["encode_s"], pe["tokens"], hf["tokens"]))
        print("load pe/HF: pescope's time over HF's (goal <= 1); encode pe/HF: pescope's speed "
              "over HF's (goal >= 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
