"""pescope.verify: NumPy's own tables, the planted mistakes of tests/data/rope/mistakes.json,
array-likes, and the command line's report."""
import json

import numpy as np
import pytest

import pescope
from conftest import DATA

MISTAKES = json.loads((DATA / "rope" / "mistakes.json").read_text())
# The words of each diagnosis (core/rope/ropeverify.cpp names the mistake it matches).
DIAGNOSES = {
    "AttentionFactorDropped": "attention factor dropped",
    "AttentionFactorTwice": "attention factor applied twice",
    "ScalingIgnored": "scaling ignored",
    "FactorOnBase": "factor applied to the base",
    "PairingSwapped": "pairing swapped",
    "Float32Angles": "float32 rounding",
}
LLAMA31 = DATA / "configs" / "llama-3.1-8b.json"


def mistakes_config():
    head = MISTAKES["head_dim"]
    return {"model_type": "llama", "head_dim": head, "hidden_size": 4 * head,
            "num_attention_heads": 4, "max_position_embeddings": MISTAKES["max_position_embeddings"],
            "rope_parameters": MISTAKES["rope_parameters"]}


def table_of(entry):
    values = np.reshape(entry["values"], (entry["rows"], entry["columns"]))
    return values[0] if entry["rows"] == 1 and entry["columns"] > 1 else values


@pytest.mark.parametrize("entry", MISTAKES["tables"], ids=[t["name"] for t in MISTAKES["tables"]])
def test_planted_mistakes_are_diagnosed(entry):
    table = table_of(entry)
    if "float32" in entry["name"]:
        table = table.astype(np.float32)
    what = entry["what"].replace("-", "_")
    # As tst_ropeverify: against the model's own (half) layout, float64 exactness demanded; then
    # a table in the other layout, or one made with float32 angles, differs and is diagnosed.
    layout = {"layout": "half"} if what in ("cos", "sin") else {}
    result = pescope.verify(mistakes_config(), table, what=what, strict=True, **layout)
    if entry["mistake"] == "Float32Angles":  # without strict=, they agree and say so
        relaxed = pescope.verify(mistakes_config(), table, what=what, **layout)
        assert relaxed and "up to float32 rounding of the angles" in str(relaxed), str(relaxed)
    if not entry["mistake"]:
        assert result, str(result)
        assert result.diagnosis is None and result.first_difference is None
        return
    assert not result and result.differing > 0
    assert DIAGNOSES[entry["mistake"]] in result.diagnosis, str(result)
    assert result.diagnosis in str(result)
    first = result.first_difference
    assert first["value"] != first["expected"]


def llama31_tables(references, positions):
    config = json.loads(LLAMA31.read_text())
    parameters = dict(config["rope_scaling"], rope_theta=config["rope_theta"])
    head = config["hidden_size"] // config["num_attention_heads"]
    inv_freq, scaling = references.INIT["llama3"](parameters, head, 131072, None)
    default, _ = references.INIT["default"](parameters, head, 131072, None)
    ids = np.arange(positions)
    return (references.rotary_forward(inv_freq, scaling, ids, False),
            references.rotary_forward(default, 1.0, ids, False), inv_freq)


def test_a_float32_table_agrees(references):
    (cos, sin), _, inv_freq = llama31_tables(references, 512)
    for table, what in ((cos, "cos"), (sin, "sin")):
        result = pescope.verify(LLAMA31, table.astype(np.float32), what=what)
        assert result, str(result)
        assert 0 < result.max_abs_error <= 1e-6 and result.compared == table.size
    assert pescope.verify(LLAMA31, inv_freq.astype(np.float32))  # 1-D: inv_freq


def test_strict_and_layout(references):
    (cos, _), _, _ = llama31_tables(references, 512)
    assert pescope.verify(LLAMA31, cos, strict=True)  # float64: exact
    # Values rounded once to float32 are exact at the array's own precision, strict or not
    # (float32 angles are what strict refuses: test_planted_mistakes_are_diagnosed).
    result = pescope.verify(LLAMA31, cos.astype(np.float32), strict=True)
    assert result and "at F32 precision" in str(result), str(result)
    interleaved = np.repeat(cos[:, :cos.shape[1] // 2], 2, axis=1)
    assert "interleaved" in str(pescope.verify(LLAMA31, interleaved))
    assert not pescope.verify(LLAMA31, interleaved, layout="half")


def test_a_planted_mistake_is_diagnosed(references):
    # An engine that ignored rope_scaling: Llama 3.1's cos with the default frequencies.
    _, (ignored, _), _ = llama31_tables(references, 512)
    result = pescope.verify(LLAMA31, ignored.astype(np.float32))
    assert not result
    assert result.what == "cos"
    assert "scaling ignored" in result.diagnosis
    assert result.max_abs_error > 1e-3
    assert "diagnosis: " + result.diagnosis in str(result)


def test_strided_and_array_like_tables_are_read(references):
    (cos, _), _, _ = llama31_tables(references, 64)
    wide = np.zeros((64, 2 * cos.shape[1]))
    wide[:, ::2] = cos
    assert pescope.verify(LLAMA31, wide[:, ::2])  # a view with a stride, read in place
    assert pescope.verify(LLAMA31, np.asfortranarray(cos))

    class OnlyArray:  # what a PyTorch-like tensor offers NumPy
        def __init__(self, values):
            self.values = values

        def __array__(self, dtype=None):
            return self.values if dtype is None else self.values.astype(dtype)

    result = pescope.verify(LLAMA31, OnlyArray(cos.astype(np.float32)))
    assert result and "a float32 array" in str(result)

    class OnlyDlpack:  # DLPack alone (JAX, PyTorch): read through numpy.from_dlpack
        def __init__(self, values):
            self.values = values

        def __dlpack__(self, stream=None):
            return self.values.__dlpack__()

        def __dlpack_device__(self):
            return self.values.__dlpack_device__()

    assert pescope.verify(LLAMA31, OnlyDlpack(cos))
    assert pescope.verify(LLAMA31, cos.tolist())  # anything numpy.asarray takes


@pytest.mark.skip_allowed("PyTorch is an optional cross-check: neither CI nor Debian's test "
                          "packages install it")
def test_pytorch_tensors(references):
    torch = pytest.importorskip("torch")
    (cos, _), _, _ = llama31_tables(references, 64)
    assert pescope.verify(LLAMA31, torch.from_numpy(cos.astype(np.float32)))


def test_the_report_is_the_command_lines(references, run_pescope, tmp_path):
    _, (ignored, _), _ = llama31_tables(references, 128)
    path = tmp_path / "cos.npy"
    np.save(path, ignored.astype(np.float32))
    result = run_pescope("verify", "--config", LLAMA31, "--against", path)
    assert result.returncode == 4, result.stderr
    module = str(pescope.verify(LLAMA31, ignored.astype(np.float32))).splitlines()
    cli = result.stdout.splitlines()
    # All but the "checked:" line, which names the file or the array.
    assert module[0].startswith("reference: ") and module[1].startswith("checked:   ")
    assert [module[0]] + module[2:] == [cli[0]] + cli[2:]


@pytest.mark.parametrize("keywords, error, message", [
    (dict(what="phase"), ValueError, '--what must be inv-freq, attention-factor, cos, sin'),
    (dict(tolerance=-1), ValueError, "--tolerance must be at least 0 (got -1)"),
    (dict(positions=0), ValueError, "--positions must be between 1"),
    (dict(layout="diagonal"), ValueError, '--layout must be auto, half, interleaved, pairs'),
    (dict(unscaled="yes"), TypeError, "--unscaled is a switch"),
])
def test_bad_arguments(keywords, error, message):
    with pytest.raises(error) as raised:
        pescope.verify(LLAMA31, np.ones((4, 128)), **keywords)
    assert message in str(raised.value)


def test_bad_tables():
    with pytest.raises(ValueError, match=r"table is \[2, 2, 3\]: a RoPE table has 2 dimensions"):
        pescope.verify(LLAMA31, np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="expected positions x 128"):
        pescope.verify(LLAMA31, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="real numbers"):
        pescope.verify(LLAMA31, np.zeros((3, 128), dtype=bool))
    with pytest.raises(ValueError, match=r"table is \[0, 128\]: an empty table"):
        pescope.verify(LLAMA31, np.zeros((0, 128)))
    with pytest.raises(ValueError, match="no rotation|not rotary|learned|absolute"):
        pescope.verify(DATA / "configs" / "gpt2.json", np.zeros((3, 64)))


def test_half_precision_and_complex_arrays_as_the_command_line(references, run_pescope, tmp_path):
    (cos, sin), _, _ = llama31_tables(references, 256)
    # float16: compared at its precision, one verdict with the same values saved as float16.
    half = cos.astype(np.float16)
    result = pescope.verify(LLAMA31, half)
    assert result and "at F16 precision" in str(result), str(result)
    path = tmp_path / "half.npy"
    np.save(path, half)
    cli = run_pescope("verify", "--config", LLAMA31, "--against", path)
    assert cli.returncode == 0 and "at F16 precision" in cli.stdout, cli.stdout
    # The same float16 values widened to float32: named, not "no known mistake".
    widened = pescope.verify(LLAMA31, half.astype(np.float32))
    assert not widened and "rounded to float16" in widened.diagnosis, str(widened)
    # freqs_cis as Meta's code holds it: complex64 (cos, sin) pairs, leading 1s dropped.
    pairs = cos.shape[1] // 2
    freqs_cis = (cos[:, :pairs] + 1j * sin[:, :pairs]).astype(np.complex64)[None]
    result = pescope.verify(LLAMA31, freqs_cis)
    assert result and result.what == "cos-sin", str(result)
    path = tmp_path / "freqs_cis.npy"
    np.save(path, freqs_cis[0])
    cli = run_pescope("verify", "--config", LLAMA31, "--against", path)
    assert cli.returncode == 0 and "as cos-sin" in cli.stdout, cli.stdout


@pytest.mark.parametrize("shape", [(2, 4, 64), (64,), (4, 0)])
def test_complex_shapes_as_the_command_line(run_pescope, tmp_path, shape):
    # A complex array is read as the command line reads the same array saved as .npy (its
    # (real, imag) pairs a trailing dimension of 2): the same shapes refused with the same
    # message, the same verdict on the others.
    table = np.ones(shape, dtype=np.complex64)
    path = tmp_path / "freqs_cis.npy"
    np.save(path, table)
    cli = run_pescope("verify", "--config", LLAMA31, "--against", path)
    try:
        result = pescope.verify(LLAMA31, table)
    except ValueError as raised:
        assert cli.returncode == 2, cli.stdout + cli.stderr
        # The command line names the file ("tensor ... of PATH is [...]", "(... of PATH, <c8
        # [...])"), Python the table ("table is [...]", "(a complex64 array [...])").
        message = str(raised)
        if message.startswith("table is "):
            assert cli.stderr.strip().endswith(message[len("table"):]), (cli.stderr, message)
        else:
            assert message.endswith(f"(a complex64 array {list(table.shape) + [2]})"), message
            assert message.rsplit(" (", 1)[0] in cli.stderr, (cli.stderr, message)
        return
    assert cli.returncode == (0 if result else 4), (cli.stdout, str(result))
