"""pescope.encode against the seeds' NumPy formulas, its memory and its arguments."""
import gc
import re
import subprocess
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import pescope


def geron_positional_encoding(max_steps, max_dims):
    # Seeds 000/003 (Géron, Hands-On ML, PositionalEncoding.__init__), float64, without the
    # batch axis.
    p, i = np.meshgrid(np.arange(max_steps), np.arange(max_dims // 2))
    pos_emb = np.empty((max_steps, max_dims))
    pos_emb[:, ::2] = np.sin(p / 10000**(2 * i / max_dims)).T
    pos_emb[:, 1::2] = np.cos(p / 10000**(2 * i / max_dims)).T
    return pos_emb


def sinusoid_angles(positions, dims, base=10000.0):
    p = np.asarray(positions, dtype=np.float64)[:, None]
    i = np.arange(dims // 2)[None, :]
    return p / base**(2 * i / dims)


def test_figure_16_9_matrix_is_the_seed_formula():
    table = pescope.encode(positions=201, dims=512)
    assert table.dtype == np.float32 and table.shape == (201, 512)
    assert table.flags.c_contiguous
    np.testing.assert_allclose(table, geron_positional_encoding(201, 512), rtol=0, atol=1e-6)


def test_the_array_owns_the_memory_the_backend_wrote():
    table = pescope.encode(positions=8, dims=16)
    # Allocated by NumPy and filled in place: no base object, nothing copied out of another
    # buffer.
    assert table.base is None and table.flags.owndata and table.flags.writeable


def test_first_gives_later_rows_exactly():
    # Positions near 2^20: float32 angles would be off by 1e-3 here (DESIGN.md, precision).
    first = (1 << 20) - 5
    table = pescope.encode(positions=5, dims=256, first=first)
    angles = sinusoid_angles(np.arange(first, first + 5), 256)
    expected = np.empty((5, 256))
    expected[:, ::2], expected[:, 1::2] = np.sin(angles), np.cos(angles)
    np.testing.assert_allclose(table, expected, rtol=0, atol=1e-6)


def test_scheme_options_are_keywords():
    # Split layout ([sin | cos] halves, tensor2tensor) with another base.
    table = pescope.encode(positions=50, dims=64, base=500, layout="split")
    angles = sinusoid_angles(np.arange(50), 64, base=500.0)
    np.testing.assert_allclose(table, np.hstack([np.sin(angles), np.cos(angles)]), atol=1e-6)


def test_rope_matrix_pairs_cos_and_sin():
    # pescope's RoPE matrix, half pairing: pair k's cos in column k, its sin in column n + k,
    # theta_k = base^(-2k/d) (transformers' default inv_freq).
    table = pescope.encode("rope", positions=40, dims=32, base=500, pairing="half")
    angles = np.arange(40)[:, None] * (1.0 / 500.0**(np.arange(0, 32, 2) / 32))[None, :]
    np.testing.assert_allclose(table, np.hstack([np.cos(angles), np.sin(angles)]), atol=1e-6)


def test_learned_table_is_keras_uniform_and_seeded():
    a = pescope.encode("learned", positions=100, dims=50, seed=7)
    assert np.array_equal(a, pescope.encode("learned", positions=100, dims=50, seed=7))
    assert not np.array_equal(a, pescope.encode("learned", positions=100, dims=50, seed=8))
    # Keras' Embedding default: uniform in [-0.05, 0.05).
    assert a.min() >= -0.05 and a.max() < 0.05 and a.std() > 0.02


@pytest.mark.parametrize("keywords, message", [
    (dict(positions=0), "--positions must be between 1 and 16777216 (got 0)"),
    (dict(positions=2.5), '--positions must be a whole number between 1 and 16777216 (got "2.5")'),
    (dict(base=1), "--base must be greater than 1"),
    (dict(factor=2.0), "--factor does not apply to --scheme sinusoidal"),
    (dict(backend="tpu"), '--backend must be auto, cpu or gpu (got "tpu")'),
    (dict(scheme="sinusoidal2"), '--scheme must be'),
    (dict(first=-1), "first must be a whole number from 0"),
    (dict(positions=65536, dims=65536), "pescope makes arrays of at most 1.0 GiB"),
])
def test_bad_values_raise_the_command_lines_message(keywords, message):
    with pytest.raises(ValueError) as error:
        pescope.encode(**keywords)
    assert message in str(error.value)


def test_unknown_keywords_and_types_raise_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        pescope.encode(colour="red")
    with pytest.raises(TypeError, match="--base takes a number or text"):
        pescope.encode(base=object())


# Issue 45: text and lists were read as the numbers they spell (positions="10", positions=[5]),
# and an out-of-range number raised TypeError for first= but ValueError for positions=.
@pytest.mark.parametrize("keywords, name", [
    (dict(positions="10"), "positions"),
    (dict(positions=[5]), "positions"),
    (dict(dims=(8,)), "dims"),
    (dict(base="10000"), "base"),
    (dict(first="3"), "first"),
    (dict(first=[1]), "first"),
])
def test_text_and_lists_for_numbers_raise_type_error_naming_the_argument(keywords, name):
    with pytest.raises(TypeError, match=f"^{name} must be a"):
        pescope.encode(**keywords)


@pytest.mark.parametrize("keywords, message", [
    (dict(first=1e308), "first must be a whole number from 0 to 16777016"),
    (dict(first=2.5), "first must be a whole number from 0 to 16777016"),
    (dict(first=10**30), "first must be a whole number from 0 to 16777016"),
    (dict(positions=1e308), "--positions must be a whole number between 1 and 16777216"),
    (dict(positions=10**30), "--positions must be a whole number between 1 and 16777216"),
    (dict(dims=1e308), "--dims must be a whole number between 1 and 65536"),
])
def test_out_of_range_numbers_raise_value_error_naming_the_range(keywords, message):
    with pytest.raises(ValueError) as error:
        pescope.encode(**keywords)
    assert message in str(error.value)


def test_a_large_array_is_freed_with_the_array():
    def resident():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096

    gc.collect()
    before = resident()
    table = pescope.encode(positions=65536, dims=1024)  # 256 MiB
    assert resident() - before > 200 << 20
    gone = weakref.ref(table)
    del table
    gc.collect()
    assert gone() is None
    assert resident() - before < 32 << 20


def test_the_matrix_is_written_once_without_a_second_buffer():
    # Peak resident memory of a fresh interpreter making a 256 MiB matrix: a copy from a
    # buffer of the library's would need twice that.
    # VmHWM, the high-water mark of this process's memory (getrusage's ru_maxrss would carry
    # the parent's over the exec).
    script = (
        "import re, pescope\n"
        "def peak():\n"
        "    return int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1])\n"
        "before = peak()\n"
        "table = pescope.encode(positions=65536, dims=1024, backend='cpu')\n"
        "print(peak() - before)\n")
    grown_kib = int(subprocess.run([sys.executable, "-c", script], check=True,
                                   capture_output=True, text=True).stdout)
    assert 256 << 10 <= grown_kib < 320 << 10


def test_other_threads_run_while_it_computes():
    # The GIL is released while the backend works: this thread keeps counting meanwhile.
    window = {}

    def work():
        window["start"] = time.perf_counter()
        for _ in range(4):
            pescope.encode(positions=65536, dims=512, backend="cpu")
        window["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    inside = [t for t in ticks if window["start"] < t < window["end"]]
    assert len(inside) > 1000


def test_each_call_reads_its_own_options():
    # Options read once are reused only by calls that repeat them exactly.
    a = pescope.encode(positions=4, dims=8, base=500)
    b = pescope.encode(positions=4, dims=8)
    with pytest.raises(ValueError):
        pescope.encode(positions=4, dims=8, base=0.5)
    assert np.array_equal(pescope.encode(positions=4, dims=8, base=500), a)
    np.testing.assert_allclose(b, geron_positional_encoding(4, 8), atol=1e-6)
    assert not np.allclose(a, b)


def test_chunks_with_first_make_the_whole_matrix():
    whole = pescope.encode(positions=1000, dims=96)
    chunks = [pescope.encode(positions=100, dims=96, first=first) for first in range(0, 1000, 100)]
    assert np.array_equal(np.vstack(chunks), whole)


def test_out_is_written_in_place_and_returned():
    expected = pescope.encode(positions=300, dims=64, base=500)
    buffer = np.full((300, 64), np.nan, np.float32)
    result = pescope.encode(positions=300, dims=64, base=500, out=buffer)
    assert result is buffer or np.shares_memory(result, buffer)
    np.testing.assert_array_equal(buffer, expected)
    later = np.empty((100, 64), np.float32)
    pescope.encode(positions=100, dims=64, base=500, first=200, out=later)
    np.testing.assert_array_equal(later, expected[200:])


@pytest.mark.parametrize("out, error, message", [
    ([[0.0]], TypeError, "out must be a NumPy array"),
    (np.zeros((4, 8), np.float64), TypeError, "out must hold float32"),
    (np.zeros((8, 4), np.float32), ValueError, "out must have shape (4, 8)"),
    (np.zeros((4, 16), np.float32)[:, ::2], ValueError, "C-contiguous"),
])
def test_a_bad_out_is_refused_before_anything_is_written(out, error, message):
    with pytest.raises(error, match=re.escape(message)):
        pescope.encode(positions=4, dims=8, out=out)
