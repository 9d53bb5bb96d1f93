#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid files of each
format, written from the published specifications (safetensors: 8-byte little-endian header
length, JSON header, data; GGUF v3: magic, version, counts, typed metadata, tensor infos,
aligned data; npy v1/v2: magic, version, header dict, data), the config.json fixtures of
tests/data/configs and phrase texts for the text vectorizer. Run it again after changing it; the files are checked in.

  /usr/bin/python3 tests/fuzz/make_seeds.py
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def safetensors(tensors, metadata=None):
    header, blob = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + blob


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf(metadata, tensors, alignment=32):
    # Value types: 4 uint32, 5 int32, 6 float32, 7 bool, 8 string, 9 array, 10 uint64.
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, (kind, value) in metadata.items():
        out += gguf_string(key) + struct.pack("<I", kind)
        if kind == 4:
            out += struct.pack("<I", value)
        elif kind == 6:
            out += struct.pack("<f", value)
        elif kind == 7:
            out += struct.pack("<?", value)
        elif kind == 8:
            out += gguf_string(value)
        elif kind == 9:
            item, values = value
            out += struct.pack("<IQ", item, len(values))
            for v in values:
                out += gguf_string(v) if item == 8 else struct.pack("<i", v)
    data = b""
    for name, (ggml_type, ne, raw) in tensors.items():
        out += gguf_string(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
        out += struct.pack("<IQ", ggml_type, len(data))
        data += raw + b"\0" * (-len(raw) % alignment)
    out += b"\0" * (-len(out) % alignment)
    return out + data


def npy(descr, shape, raw, version=1):
    header = repr({"descr": descr, "fortran_order": False, "shape": tuple(shape)}).encode()
    fixed = 10 if version == 1 else 12
    header += b" " * (-(fixed + len(header) + 1) % 64) + b"\n"
    length = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + raw


def floats(n, fmt="f"):
    return struct.pack(f"<{n}{fmt}", *[0.25 * i - 1 for i in range(n)])


def main():
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    put("safetensors", "gpt2-like.safetensors",
        safetensors({"wpe.weight": ("F32", [4, 3], floats(12)),
                     "wte.weight": ("F16", [2, 3], struct.pack("<6e", *[0.5] * 6))},
                    {"format": "pt"}))
    put("safetensors", "bf16-f64.safetensors",
        safetensors({"a": ("BF16", [2, 2], bytes([0x80, 0x3f] * 4)),
                     "b": ("F64", [3], floats(3, "d")),
                     "empty": ("F32", [0, 4], b"")}))
    put("gguf", "llama.gguf",
        gguf({"general.architecture": (8, "llama"),
              "general.alignment": (4, 32),
              "llama.context_length": (4, 4096),
              "llama.block_count": (4, 4),
              "llama.attention.head_count": (4, 8),
              "llama.embedding_length": (4, 64),
              "llama.rope.freq_base": (6, 500000.0),
              "llama.rope.dimension_count": (4, 8),
              "llama.rope.scaling.type": (8, "yarn"),
              "llama.rope.scaling.factor": (6, 4.0),
              "llama.rope.scaling.original_context_length": (4, 1024),
              "llama.attention.sliding_window": (4, 0),
              "tokenizer.ggml.tokens": (9, (8, ["a", "b", "<s>"])),
              "llama.no_rope_layers": (9, (5, [1, 1, 1, 0]))},
             {"position_embd.weight": (0, [3, 4], floats(12)),
              "rope_freqs.weight": (0, [4], struct.pack("<4f", 1.0, 1.0, 2.0, 4.0)),
              "half": (1, [2], struct.pack("<2e", 1.0, -2.0))}))
    put("gguf", "empty.gguf", gguf({"general.architecture": (8, "gpt2")}, {}))
    put("npy", "f4.npy", npy("<f4", [4, 3], floats(12)))
    put("npy", "f8-v2.npy", npy("<f8", [2, 2], floats(4, "d"), version=2))
    put("npy", "f2.npy", npy("<f2", [3], struct.pack("<3e", 1.0, 2.0, 3.0)))
    configs = os.path.join(HERE, "..", "data", "configs")
    for name in sorted(os.listdir(configs)):
        if name.endswith(".json"):
            with open(os.path.join(configs, name), "rb") as f:
                put("hfconfig", name, f.read())
    # Text vectorizer: two size bytes (maxTokens, sequenceLength), then phrases one per line.
    with open(os.path.join(HERE, "..", "..", "resources", "examples", "phrases.txt"), "rb") as f:
        put("textvectorizer", "examples.txt", bytes([20, 10]) + f.read())
    put("textvectorizer", "keras-seed.txt",
        bytes([21, 10]) + b"I am a robot\nYou know I want your love\nI love you\n")
    put("textvectorizer", "punctuation-utf8.txt",
        bytes([5, 3]) + "Don't! Stop... caf\u00e9 \u00c9T\u00c9\t\tnaïve [UNK]\n\n  \r\n".encode())

    # Sessions: the format-1 session of the baseline tests (migrated on load), and each preset's
    # state as a current-format session; then hostile cases of tst_session's kind.
    root = os.path.join(HERE, "..", "..")
    with open(os.path.join(root, "tests", "data", "baseline-0.1", "session-v1.json"), "rb") as f:
        put("session", "baseline-v1.json", f.read())
    presets = os.path.join(root, "resources", "presets")
    for name in sorted(os.listdir(presets)):
        with open(os.path.join(presets, name), "rb") as f:
            state = json.load(f)["state"]
        put("session", "preset-" + name,
            json.dumps({"format_version": 2, "generator": "pescope 0.2.0", "state": state},
                       indent=1).encode())
    put("session", "future-format.json", b'{"format_version": 99, "state": {}}')
    put("session", "truncated.json", b'{"format_version": 2, "state": {"spec": {"scheme": "ro')
    put("session", "wrong-types.json",
        b'{"format_version": 2, "state": {"spec": {"positions": "many", "dims": -4},'
        b' "phrases": [1, 2], "waveDims": {"a": 1}}}')
    # The command line: the command's name, then its arguments, separated by NUL bytes. Paths are
    # relative to the repository's root, where bootstrap.sh runs the fuzzers.
    def args(*a):
        return b"\0".join(x.encode() for x in a)
    shutil.rmtree(os.path.join(CORPUS, "cli"), ignore_errors=True)
    llama = "tests/data/configs/llama-3.1-8b.json"
    put("cli", "data-sinusoidal.args", args("data", "--positions", "2048", "--dims", "512", "--out", "pe.npy"))
    put("cli", "data-rope-yarn.args", args("data", "--scheme", "rope", "--rope-type", "yarn", "--factor", "4",
                                           "--original-context", "4096", "--what",
                                           "cos", "--out", "cos.csv", "--format", "csv"))
    put("cli", "data-mrope-ids.args", args("data", "--scheme", "rope", "--mrope-section", "4,2,2", "--dims", "16",
                                           "--what", "cos", "--position-ids", "0;1;2,3,4;5 6 7 # x",
                                           "--out", "/dev/stdout"))
    put("cli", "data-alibi.args", args("data", "--scheme", "alibi", "--heads", "12", "--what", "slopes",
                                       "--out", "s.npy", "--backend", "cpu"))
    put("cli", "data-model.args", args("data", "--config", llama, "--layer", "0", "--positions", "64",
                                       "--out", "m.npy"))
    put("cli", "data-table.args", args("data", "--model", "tests/fuzz/corpus/safetensors/gpt2-like.safetensors",
                                       "--what", "positions", "--out", "t.npy"))
    put("cli", "data-phrase.args", args("data", "--model", "tests/data/models/llama-tiny", "--phrase",
                                        "na\u00efve caf\u00e9 \U0001F642", "--what", "attention",
                                        "--no-positions", "--layer", "0", "--out", "a.npy"))
    put("cli", "data-phrase-gpt2.args", args("data", "--model", "tests/data/models/gpt2-tiny", "--phrase",
                                             "the the the", "--out", "h.csv"))
    put("cli", "data-bad.args", args("data", "--dims", "0", "--positions", "-1", "--no-such-option"))
    put("cli", "export-waves.args", args("export", "--view", "waves+heatmap", "--positions", "50", "--dims", "128",
                                         "--mark-dims", "4,5,6,7", "--markers", "10,20", "--width", "1000",
                                         "--out", "fig.svg"))
    put("cli", "export-preset.args", args("export", "--preset", "rope-llama31-vs-yarn", "--view", "compare",
                                          "--out", "fig.pdf", "--theme", "dark"))
    put("cli", "export-session.args", args("export", "--session", "tests/data/baseline-0.1/session-v1.json",
                                           "--view", "phrases", "--text", "I love you", "--text",
                                           "You love me", "--token", "1,2,fixed", "--out", "p.png"))
    put("cli", "export-animate.args", args("export", "--view", "rotation", "--animate", "position", "--from", "0",
                                           "--to", "40", "--frames", "12", "--fps", "10", "--out", "r.gif"))
    put("cli", "export-model.args", args("export", "--config", llama, "--view", "spectrum", "--out", "s.npy"))
    put("cli", "phrases.args", args("phrases", "--text", "I am a robot", "--text", "You know I want your love",
                                    "--dims", "8", "--seed", "7", "--out", "e.csv", "--vocab-out", "v.txt"))
    put("cli", "verify-npy.args", args("verify", "--config", llama, "--against",
                                       "tests/fuzz/corpus/npy/f8-v2.npy", "--what", "inv-freq",
                                       "--tolerance", "1e-6"))
    put("cli", "verify-gguf.args", args("verify", "--model", "tests/fuzz/corpus/gguf/llama.gguf",
                                        "--against", "tests/fuzz/corpus/gguf/llama.gguf"))
    put("cli", "inspect.args", args("inspect", "tests/fuzz/corpus/gguf/llama.gguf", "--json"))
    put("cli", "inspect-config.args", args("inspect", llama))
    put("cli", "gui.args", args("gui", "--preset", "geron-16-9", "--page", "schemes", "--theme", "dark",
                                "--size", "1600x1000", "--screenshot", "s.png", "--model-view", "pca"))
    put("cli", "gui-session.args", args("gui", "tests/data/baseline-0.1/session-v1.json"))
    put("cli", "help.args", args("export", "--help"))
    put("cli", "tokens.args", args("tokens", "--tokenizer", "tests/fuzz/corpus/tokenizer/wordpiece.json",
                                   "--json", "Hello world", "--", "-x"))
    put("cli", "tokens-model.args", args("tokens", "--model", "tests/data/tokenizers/models/llama-tiny",
                                         "--no-special-tokens", "caf\u00e9 \U0001F642"))
    tokenizer_seeds()


def bytes_to_unicode():
    """GPT-2's encoder.py bytes_to_unicode: printable bytes as themselves, the rest from U+0100."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, n = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


def tokenizer_json(model, normalizer=None, pre_tokenizer=None, post_processor=None, decoder=None, added=()):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": list(added),
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "model": model,
            "post_processor": post_processor, "decoder": decoder}


def added_token(i, content, special=True, **flags):
    token = {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": not special, "special": special}
    token.update(flags)
    return token


def template(single, pair, specials):
    def pieces(text):
        out = []
        for part in text.split():
            name, _, type_id = part.partition(":")
            type_id = int(type_id or 0)
            if name in ("$A", "$B"):
                out.append({"Sequence": {"id": name[1], "type_id": type_id}})
            else:
                out.append({"SpecialToken": {"id": name, "type_id": type_id}})
        return out
    return {"type": "TemplateProcessing", "single": pieces(single), "pair": pieces(pair),
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in specials.items()}}


def tokenizer_seeds():
    """Small tokenizer.json files of each family, written from tokenizers' serialization (the
    fields its components read), each followed by texts after NUL bytes."""
    texts = ["Hello world", "  na\u00efve caf\u00e9 \U0001F642\n", "\u6771\u4eac 1,000 <|endoftext|>",
             "e\u0301 \ufb01 I'm [CLS] <mask> x"]
    def seed(name, tokenizer):
        put("tokenizer", name, json.dumps(tokenizer, ensure_ascii=False).encode() + b"\0" +
            b"\0".join(t.encode() for t in texts))
    shutil.rmtree(os.path.join(CORPUS, "tokenizer"), ignore_errors=True)
    chars = bytes_to_unicode()
    vocab = {chars[b]: b for b in range(256)}
    merges = []
    for a, b in [("\u0120", "w"), ("o", "r"), ("\u0120w", "or"), ("l", "d"), ("H", "e"), ("l", "l"),
                 ("He", "ll"), ("Hell", "o")]:
        vocab[a + b] = len(vocab)
        merges.append([a, b])
    seed("bytelevel.json", tokenizer_json(
        {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
         "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
         "vocab": vocab, "merges": merges},
        pre_tokenizer={"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        post_processor={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        decoder={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        added=[added_token(len(vocab), "<|endoftext|>")]))
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hel", "##lo", "wor", "##ld", "na", "##ive",
              "cafe", "\u6771", "1", ",", "000", "'", "i", "m", "e", "x", "<", ">", "|"]
    seed("wordpiece.json", tokenizer_json(
        {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
         "max_input_chars_per_word": 100, "vocab": {p: i for i, p in enumerate(pieces)}},
        normalizer={"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                    "strip_accents": None, "lowercase": True},
        pre_tokenizer={"type": "BertPreTokenizer"},
        post_processor=template("[CLS]:0 $A:0 [SEP]:0", "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
                                {"[CLS]": 2, "[SEP]": 3}),
        decoder={"type": "WordPiece", "prefix": "##", "cleanup": True},
        added=[added_token(i, p) for i, p in enumerate(pieces[:5])] +
              [added_token(4, "[MASK]", lstrip=True)]))
    scored = [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0], ["\u2581", -2.0], ["\u2581Hello", -5.0],
              ["H", -6.0], ["e", -4.0], ["l", -4.5], ["o", -4.2], ["\u2581world", -7.0], ["w", -6.5],
              ["r", -5.5], ["d", -6.1], ["<0xC3>", -9.0], ["<0xA9>", -9.0], ["1", -5.0], [",", -5.0]]
    seed("unigram.json", tokenizer_json(
        {"type": "Unigram", "unk_id": 2, "vocab": scored, "byte_fallback": True},
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Nmt"}, {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        pre_tokenizer={"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        post_processor=template("$A:0 </s>:0", "$A:0 </s>:0 $B:0 </s>:0", {"</s>": 1}),
        decoder={"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        added=[added_token(0, "<pad>"), added_token(1, "</s>"), added_token(2, "<unk>")]))
    fallback = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        fallback["<0x%02X>" % b] = len(fallback)
    for p in ["\u2581", "H", "e", "l", "o", "w", "r", "d", "\u2581H", "ll", "\u2581Hell"]:
        fallback[p] = len(fallback)
    seed("bytefallback.json", tokenizer_json(
        {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
         "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
         "vocab": fallback, "merges": ["\u2581 H", "l l"]},
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        post_processor=template("<s>:0 $A:0", "<s>:0 $A:0 <s>:0 $B:0", {"<s>": 1}),
        decoder={"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        added=[added_token(0, "<unk>"), added_token(1, "<s>"), added_token(2, "</s>")]))
    words = ["[UNK]", "<s>", "</s>", "hello", "world", "1", "0", ",", "'", "m", "i", "naive", "cafe"]
    seed("wordlevel.json", tokenizer_json(
        {"type": "WordLevel", "vocab": {w: i for i, w in enumerate(words)}, "unk_token": "[UNK]"},
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"},
            {"type": "Strip", "strip_left": True, "strip_right": True}]},
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed", "invert": False},
            {"type": "Digits", "individual_digits": True},
            {"type": "Punctuation", "behavior": "MergedWithNext"},
            {"type": "UnicodeScripts"}, {"type": "WhitespaceSplit"}, {"type": "Whitespace"},
            {"type": "CharDelimiterSplit", "delimiter": "|"}, {"type": "FixedLength", "length": 8}]},
        post_processor={"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1], "trim_offsets": True,
             "add_prefix_space": False}]},
        decoder={"type": "Sequence", "decoders": [
            {"type": "BPEDecoder", "suffix": "</w>"},
            {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}]},
        added=[added_token(13, "<mask>", lstrip=True, rstrip=True),
               added_token(14, "ab", special=False, single_word=True)]))

    # SentencePiece's compiled rules (T5, XLM-R): a charsmap written from the format spm_precompiled
    # reads (see precompiled_charsmap below), and files whose steps grow text without bound.
    rules = [("A", "a"), ("\ufb01", "fi"), ("\u00ad", ""), ("o\u0308", "\u00f6"), ("e", "E"),
             ("e\u0301", "\u00e9"), ("\u3000", " ")]
    unigram_words = [["<unk>", 0.0], ["</s>", 0.0], ["\u2581", -2.0], ["\u2581hello", -5.0],
                     ["fi", -4.0], ["a", -3.0], ["E", -3.5], ["\u00f6", -6.0]]
    seed("precompiled.json", tokenizer_json(
        {"type": "Unigram", "unk_id": 0, "vocab": unigram_words, "byte_fallback": False},
        normalizer={"type": "Precompiled", "precompiled_charsmap": precompiled_charsmap(rules)},
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}]},
        post_processor=template("$A:0 </s>:0", "$A:0 </s>:0 $B:0 </s>:0", {"</s>": 1})))
    seed("growing.json", tokenizer_json(
        {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}] * 40},
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}] * 8}))
    # Growing stages of other shapes (issue 37): many Prepends of a long string, and Replaces of a
    # space by a thousand; the stages' length bound refuses them with a message.
    seed("prepending.json", tokenizer_json(
        {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581" + "p" * 99}] * 200},
        pre_tokenizer={"type": "WhitespaceSplit"}))
    seed("spaces.json", tokenizer_json(
        {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Replace", "pattern": {"String": " "}, "content": " " * 1000}] * 5},
        pre_tokenizer={"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Isolated",
                       "invert": False}))


def precompiled_charsmap(rules):
    """A precompiled_charsmap as spm_precompiled reads one: a little-endian u32 with the trie's size
    in bytes, the trie (a double array over the keys' UTF-8 bytes: a node's unit holds its label
    in bits 0-7, bit 8 when a key ends there, and the XOR offset to its children's block from bit
    10; the child with label c at base ^ c, the value unit, bit 31 set, at base ^ 0), then the
    replacement strings, each ended by NUL. Each node gets a block of 256 units of its own."""
    import base64
    strings = b""
    nodes = [{"children": {}, "value": None, "label": 0, "position": 0, "base": 0}]
    for key, replacement in rules:
        n = 0
        for c in key.encode():
            if c not in nodes[n]["children"]:
                nodes.append({"children": {}, "value": None, "label": c, "position": 0, "base": 0})
                nodes[n]["children"][c] = len(nodes) - 1
            n = nodes[n]["children"][c]
        nodes[n]["value"] = len(strings)
        strings += replacement.encode() + b"\0"
    units = [0] * 256
    order = [0]
    for index in order:
        node = nodes[index]
        node["base"] = len(units)
        units += [0] * 256
        for c, child in sorted(node["children"].items()):
            nodes[child]["position"] = node["base"] + c
            order.append(child)
    for i, node in enumerate(nodes):
        offset = node["position"] ^ node["base"]
        if i == 0:
            units[0] = offset << 10
        else:
            units[node["position"]] = (offset << 10) | (0x100 if node["value"] is not None else 0) | node["label"]
        if node["value"] is not None:
            units[node["base"]] = (1 << 31) | node["value"]
    blob = struct.pack("<I", len(units) * 4) + struct.pack("<%dI" % len(units), *units) + strings
    return base64.b64encode(blob).decode()


if __name__ == "__main__":
    main()
