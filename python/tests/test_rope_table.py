"""pescope.rope_table against NumPy transcriptions of transformers v5 (tests/data/rope)."""
import json

import numpy as np
import pytest

import pescope
from conftest import DATA


def config_of(case):
    """A config.json (as a dict) holding the case's parameters."""
    head = case["head_dim"]
    return {"model_type": "llama", "head_dim": head, "hidden_size": 2 * head,
            "num_attention_heads": 2, "max_position_embeddings": case["max_position_embeddings"],
            "rope_parameters": case["rope_parameters"]}


def sequence_length(case):
    """The sequence length the case's rule saw: its own, else as transformers' module is when
    loaded (dynamic: max_position_embeddings; longrope: the short factors, the original
    context); None for the rules that do not read it."""
    parameters = case["rope_parameters"]
    if parameters["rope_type"] not in ("dynamic", "longrope"):
        return None
    if case["sequence_length"] > 0:
        return case["sequence_length"]
    if parameters["rope_type"] == "longrope":
        return parameters["original_max_position_embeddings"]
    return case["max_position_embeddings"]


CASES = json.loads((DATA / "rope" / "references.json").read_text())["cases"]


@pytest.mark.skip_allowed("odd head_dim cases: pescope's rope scheme takes an even head_dim")
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_cases(case):
    if case["head_dim"] % 2:
        pytest.skip("pescope's rope scheme takes an even head_dim (as `pescope data --config`)")
    config = config_of(case)
    length = sequence_length(case)
    keywords = {"positions": length} if length else {}
    inv_freq = pescope.rope_table(config, **keywords)
    assert inv_freq.dtype == np.float64
    np.testing.assert_allclose(inv_freq, case["inv_freq"], rtol=1e-14, atol=0)
    factor = pescope.rope_table(config, what="attention_factor", **keywords)
    np.testing.assert_allclose(factor, [case["attention_factor"]], rtol=1e-15)

    # Hugging Face's forward at the recorded position ids (those within the table's rows).
    rows = length or 8193
    ids = [p for p in case["positions"] if p < rows]
    columns = len(case["cos"]) // len(case["positions"])
    for what in ("cos", "sin"):
        table = pescope.rope_table(config, what=what, positions=rows, scaled=True)
        assert table.shape == (rows, columns)
        expected = np.reshape(case[what], (-1, columns))[:len(ids)]
        np.testing.assert_allclose(table[ids], expected, rtol=0, atol=1e-10)


def test_a_real_config_file(data, references):
    # Llama 3.1 8B's config.json (tests/data/configs): rope_scaling llama3, rope_theta 500000.
    path = data / "configs" / "llama-3.1-8b.json"
    config = json.loads(path.read_text())
    parameters = dict(config["rope_scaling"], rope_theta=config["rope_theta"])
    head_dim = config["hidden_size"] // config["num_attention_heads"]
    inv_freq, scaling = references.INIT["llama3"](
        parameters, head_dim, config["max_position_embeddings"], None)
    np.testing.assert_allclose(pescope.rope_table(path), inv_freq, rtol=1e-14)
    np.testing.assert_allclose(pescope.rope_table(str(path)), inv_freq, rtol=1e-14)
    np.testing.assert_allclose(pescope.rope_table(config), inv_freq, rtol=1e-14)
    cos, sin = references.rotary_forward(inv_freq, scaling, np.arange(300), False)
    np.testing.assert_allclose(pescope.rope_table(path, what="cos", positions=300), cos,
                               atol=1e-12)
    np.testing.assert_allclose(pescope.rope_table(path, what="sin", positions=300), sin,
                               atol=1e-12)


def test_a_model_folder_and_its_layers(data):
    # llama-tiny (tests/data/models): rope_theta 10000, head_dim 16, two layers.
    folder = data / "models" / "llama-tiny"
    expected = 1.0 / 10000.0**(np.arange(0, 16, 2) / 16)
    np.testing.assert_allclose(pescope.rope_table(folder), expected, rtol=1e-15)
    np.testing.assert_allclose(pescope.rope_table(folder, layer=1), expected, rtol=1e-15)
    matrix = pescope.rope_table(folder, what="matrix", positions=10)
    assert matrix.dtype == np.float32 and matrix.shape == (10, 16)


@pytest.mark.parametrize("keywords, message", [
    (dict(what="phase"), '--what must be matrix or inv-freq or attention-factor or cos or sin'),
    (dict(positions=100), "--positions does not apply to --what inv-freq"),
    (dict(what="cos", positions=0), "--positions must be between 1"),
    (dict(layer=32), "--layer must be between 0 and 31 (got 32)"),
])
def test_bad_values_raise_the_command_lines_message(data, keywords, message):
    with pytest.raises(ValueError) as error:
        pescope.rope_table(data / "configs" / "llama-3.1-8b.json", **keywords)
    assert message in str(error.value)


def test_bad_configs(data, tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        pescope.rope_table(tmp_path / "missing" / "config.json")
    assert error.value.filename == str(tmp_path / "missing" / "config.json")
    broken = tmp_path / "config.json"
    broken.write_text('{"rope_theta": "fast"')
    with pytest.raises(ValueError, match="config.json"):
        pescope.rope_table(broken)
    with pytest.raises(ValueError, match="learned|absolute|not rotary|no rotation|positions"):
        pescope.rope_table(data / "configs" / "gpt2.json")
    with pytest.raises(TypeError, match="config must be a path"):
        pescope.rope_table(42)
    with pytest.raises(ValueError):  # JSON has no NaN
        pescope.rope_table({"rope_theta": float("nan")})
