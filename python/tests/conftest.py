"""Shared fixtures of the pescope module's tests (run by CTest as `python`, docs/python.md).

PYTHONPATH names the folder holding the built module (build/python); PE_SOURCE_DIR the checkout
(tests/data); PESCOPE_EXECUTABLE the command line, for the checks that the module gives what
the command line gives (skipped without it).
"""
import importlib.util
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(
    os.environ.get("PE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DATA = SOURCE_DIR / "tests" / "data"


@pytest.fixture(scope="session")
def data():
    return DATA


@pytest.fixture(scope="session")
def references():
    """tests/data/rope/make_references.py: NumPy transcriptions of transformers v5's RoPE."""
    spec = importlib.util.spec_from_file_location(
        "make_references", DATA / "rope" / "make_references.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def run_pescope():
    """Runs the command line; skips the test where it is not known."""
    executable = os.environ.get("PESCOPE_EXECUTABLE")
    if not executable or not os.access(executable, os.X_OK):
        pytest.skip("PESCOPE_EXECUTABLE does not name the pescope executable")

    def run(*args):
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        return subprocess.run([executable, *map(str, args)], capture_output=True, text=True,
                              env=env, timeout=300)

    return run
