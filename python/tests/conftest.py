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


UNDER_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "skip_allowed(why): the test may skip under CI too (a reference CI does not "
        "install, or a case pescope does not take); every other skip fails under CI")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI (CI=true), whose script installs every tool and library the suites use, a skip
    is a failure naming what was missing, so CI never stays green while testing less."""
    outcome = yield
    report = outcome.get_result()
    if UNDER_CI and report.skipped and not item.get_closest_marker("skip_allowed"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"under CI (CI=true) nothing the suites use may be missing, but: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """The same for a whole module skipped while collecting (pytest.importorskip at its top)."""
    outcome = yield
    report = outcome.get_result()
    if UNDER_CI and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"under CI (CI=true) nothing the suites use may be missing, but: {reason}"


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
