"""pescope.tokens and pescope.phrase: a model's own tokenizer and layer 0 for typed text.

Known answers: transformers' and tokenizers' own outputs in tests/data (models/*/ref/phrases.json
with hidden_states[0] and layer 0's attention per phrase; tokenizers/*/cases.json). Without
positions, where transformers gave no array: the token table's rows read from the safetensors
file here, and the equal weights NoPE gives keys that hold the same token.
"""
import json
import struct

import numpy as np
import pytest

import pescope
from conftest import DATA

MODELS = {"gpt2-tiny": "transformer.wte.weight", "llama-tiny": "model.embed_tokens.weight"}


def phrases(data, model):
    return json.loads((data / "models" / model / "ref" / "phrases.json").read_text())["cases"]


def cases(data, model):
    return [pytest.param(model, case, id=f"{model}: {case['text']}") for case in phrases(data, model)]


def all_cases():
    return [c for model in MODELS for c in cases(DATA, model)]


def table_rows(path, name, rows):
    # safetensors: an 8-byte little-endian header length, the JSON header, then the data.
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(length))
        data = file.read()
    entry = header[name]
    assert entry["dtype"] == "F32"
    begin, end = entry["data_offsets"]
    table = np.frombuffer(data[begin:end], dtype="<f4").reshape(entry["shape"])
    return table[rows]


@pytest.mark.parametrize("model,case", all_cases())
def test_known_answers(data, model, case):
    folder = data / "models" / model
    tokens = pescope.tokens(folder, case["text"])
    assert tokens["ids"] == case["ids"]
    assert tokens["tokens"] == case["tokens"]
    hidden = pescope.phrase(folder, case["text"])
    reference = np.load(folder / "ref" / case["hidden0"])
    assert hidden.dtype == np.float32 and hidden.shape == reference.shape
    np.testing.assert_allclose(hidden, reference, rtol=1e-5, atol=1e-30)
    attention = pescope.phrase(folder, case["text"], what="attention")
    reference = np.load(folder / "ref" / case["attn0"])
    assert attention.dtype == np.float32 and attention.shape == reference.shape
    np.testing.assert_allclose(attention, reference, rtol=0, atol=1e-4)


@pytest.mark.parametrize("model", MODELS)
def test_embeddings_without_positions_are_the_token_table(data, model):
    folder = data / "models" / model
    for case in phrases(data, model):
        hidden = pescope.phrase(folder, case["text"], positions=False)
        rows = table_rows(folder / "model.safetensors", MODELS[model], case["ids"])
        np.testing.assert_allclose(hidden, rows, rtol=1e-5, atol=1e-30)


@pytest.mark.parametrize("model", MODELS)
def test_attention_without_positions_cannot_tell_repeats_apart(data, model):
    folder = data / "models" / model
    case = next(c for c in phrases(data, model) if c["text"].startswith("same same"))
    ids = case["ids"]
    same = [j for j, i in enumerate(ids) if i == ids[len(ids) // 2]]
    assert len(same) >= 4
    without = pescope.phrase(folder, case["text"], what="attention", positions=False)
    with_positions = np.load(folder / "ref" / case["attn0"])
    query = same[-1]
    np.testing.assert_allclose(without.sum(axis=2), 1.0, atol=1e-5)
    np.testing.assert_allclose(without[:, query, same],
                               np.repeat(without[:, query, same[:1]], len(same), axis=1),
                               rtol=0, atol=1e-6)
    assert np.ptp(with_positions[:, query, same], axis=1).max() > 1e-3


@pytest.mark.parametrize("model", MODELS)
def test_attention_head_and_mean(data, model, run_pescope, tmp_path):
    # head=: one head's slice, or the mean of the heads in float64 (as the attention view draws
    # it); the view's data with --attention-head is with, without and their difference.
    folder = data / "models" / model
    text = phrases(data, model)[0]["text"]
    every = pescope.phrase(folder, text, what="attention")
    np.testing.assert_array_equal(pescope.phrase(folder, text, what="attention", head=1), every[1])
    mean = pescope.phrase(folder, text, what="attention", head="mean")
    assert mean.dtype == np.float32 and mean.shape == every.shape[1:]
    np.testing.assert_allclose(mean, every.astype(np.float64).mean(axis=0), rtol=1e-7, atol=1e-12)
    without = pescope.phrase(folder, text, what="attention", head="mean", positions=False)
    out = tmp_path / "panels.npy"
    result = run_pescope("data", "--model", folder, "--view", "attention", "--text", text,
                         "--attention-head", "mean", "--out", out)
    assert result.returncode == 0, result.stderr
    np.testing.assert_array_equal(np.load(out), np.stack([mean, without, mean - without]))
    with pytest.raises(ValueError, match="4 heads"):
        pescope.phrase(folder, text, what="attention", head=4)
    with pytest.raises(ValueError, match="attention"):
        pescope.phrase(folder, text, head="mean")
    with pytest.raises(TypeError):
        pescope.phrase(folder, text, what="attention", head=1.5)


def test_tokens_against_the_library(data):
    # Every case of the byte-fallback BPE family (the Llama 2 / Mistral kind), with and without
    # the special tokens, from a tokenizer.json file and in one call for the list.
    folder = data / "tokenizers" / "bpe-bytefallback"
    expected = json.loads((folder / "cases.json").read_text())["cases"]
    texts = [c["text"] for c in expected]
    plain = pescope.tokens(folder / "tokenizer.json", texts, no_special_tokens=True)
    special = pescope.tokens(folder / "tokenizer.json", texts)
    assert len(plain) == len(expected)
    for got, with_special, case in zip(plain, special, expected):
        assert got["text"] == case["text"]
        assert got["ids"] == case["ids"] and got["tokens"] == case["tokens"]
        assert [list(o) for o in got["offsets"]] == case["offsets"]
        assert with_special["ids"] == case["ids_special"]


def test_equals_the_command_line(data, run_pescope, tmp_path):
    folder = data / "models" / "llama-tiny"
    text = "naïve café — déjà vu 🙂"
    result = run_pescope("tokens", "--model", folder, "--json", text)
    assert result.returncode == 0, result.stderr
    (line,) = json.loads(result.stdout)
    got = pescope.tokens(folder, text)
    assert {**got, "offsets": [list(o) for o in got["offsets"]]} == line
    for what in ("embeddings", "attention"):
        out = tmp_path / f"{what}.npy"
        result = run_pescope("data", "--model", folder, "--phrase", text, "--what", what,
                             "--no-positions", "--out", out)
        assert result.returncode == 0, result.stderr
        np.testing.assert_array_equal(pescope.phrase(folder, text, what=what, positions=False),
                                      np.load(out))


def test_refusals(data, tmp_path):
    folder = data / "models" / "gpt2-tiny"
    with pytest.raises(ValueError, match=r"layer 2: GPT2LMHeadModel has 2 layers \(0 to 1\)"):
        pescope.phrase(folder, "a cat", what="attention", layer=2)
    with pytest.raises(ValueError, match=r"--what must be embeddings or attention"):
        pescope.phrase(folder, "a cat", what="matrix")
    with pytest.raises(ValueError, match="at most 256"):
        pescope.phrase(folder, " cat" * 300)
    with pytest.raises(ValueError, match="no tokens"):
        pescope.phrase(folder, "")
    with pytest.raises(TypeError):
        pescope.phrase(folder, ["a", "b"])
    with pytest.raises(TypeError):
        pescope.tokens(folder, 7)
    with pytest.raises(FileNotFoundError):
        pescope.tokens(tmp_path / "nowhere", "a")
    with pytest.raises(FileNotFoundError):
        pescope.phrase(tmp_path / "nowhere", "a")
    # Weights without tokenizer.json: the tokenizer is named.
    (tmp_path / "weights").mkdir()
    for name in ("config.json", "model.safetensors"):
        (tmp_path / "weights" / name).write_bytes((folder / name).read_bytes())
    with pytest.raises(ValueError, match="tokenizer.json"):
        pescope.phrase(tmp_path / "weights", "a")
    hostile = tmp_path / "tokenizer.json"
    hostile.write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}')
    with pytest.raises(ValueError, match="tokenizer.json"):
        pescope.tokens(hostile, "a")


def test_byte_order_mark_is_a_character(data):
    # U+FEFF reaches the tokenizer as typed, at the start of a str too (issue 37): GPT-2's
    # published file, ids from tokenizers 0.23.2 (EF BB BF as their byte-level tokens).
    gpt2 = data / "tokenizers-real" / "gpt2" / "tokenizer.json"
    first, second = pescope.tokens(gpt2, ["\ufeffhello", "a\ufeffb"], no_special_tokens=True)
    assert first["text"] == "\ufeffhello"
    assert first["ids"] == [171, 119, 123, 31373]
    assert second["ids"] == [64, 171, 119, 123, 65]
