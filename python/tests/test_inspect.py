"""pescope.inspect: the command line's JSON, and the files read independently here."""
import json
import struct

import pytest

import pescope


def safetensors_header(path):
    # The format: an 8-byte little-endian length, then that many bytes of JSON.
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        return json.loads(file.read(length))


@pytest.mark.parametrize("model", ["gpt2-tiny", "llama-tiny"])
def test_tensors_and_config_are_the_files(data, model):
    folder = data / "models" / model
    report = pescope.inspect(folder)
    header = safetensors_header(folder / "model.safetensors")
    tensors = {name: entry["shape"] for name, entry in header.items() if name != "__metadata__"}
    assert {t["name"]: t["shape"] for t in report["tensors"]} == tensors
    config = json.loads((folder / "config.json").read_text())
    assert report["config"]["model_type"] == config["model_type"]
    assert report["config"]["num_hidden_layers"] == config.get("num_hidden_layers",
                                                               config.get("n_layer"))
    assert len(report["config"]["layers"]) == report["config"]["num_hidden_layers"]


def test_positions_of_a_published_config(data):
    report = pescope.inspect(data / "configs" / "llama-3.1-8b.json")
    rope = report["config"]["rope_parameters"]
    assert rope["rope_type"] == "llama3" and rope["factor"] == 8.0
    assert rope["rope_theta"] == 500000.0
    assert {layer["position"] for layer in report["config"]["layers"]} == {"rope"}


def test_equals_the_command_lines_json(data, run_pescope):
    for path in (data / "models" / "gpt2-tiny", data / "configs" / "gemma-3-4b-it.json"):
        result = run_pescope("inspect", path, "--json")
        assert result.returncode == 0, result.stderr
        assert pescope.inspect(path) == json.loads(result.stdout)


def test_missing_and_hostile_files(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        pescope.inspect(tmp_path / "nothing-here")
    assert error.value.filename == str(tmp_path / "nothing-here")
    hostile = tmp_path / "model.safetensors"
    hostile.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")  # a header larger than the file
    with pytest.raises(ValueError, match="model.safetensors"):
        pescope.inspect(hostile)
