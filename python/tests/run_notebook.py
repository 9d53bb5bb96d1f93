"""Runs a notebook top to bottom with jupyter-nbconvert --execute (CTest: python_notebook).

Exits 77, which CTest reports as skipped, with the reason when Jupyter's nbconvert or the Python
kernel (Debian: jupyter-nbconvert, python3-ipykernel) is not installed; under CI (CI=true) that
is a failure (exit 1) naming it. The kernel is this
interpreter, so it imports the module PYTHONPATH names.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    notebook = sys.argv[1]
    for module, package in (("nbconvert", "jupyter-nbconvert"), ("ipykernel", "python3-ipykernel")):
        if importlib.util.find_spec(module) is None:
            # Under CI (CI=true), whose script installs it, a missing one fails by name.
            if os.environ.get("CI", "").lower() not in ("", "0", "false"):
                print(f"FAILED under CI: {module} is not installed (Debian: {package})")
                return 1
            print(f"skipped: {module} is not installed (Debian: {package})")
            return SKIP
    # The kernel spec names "python3": this interpreter, whatever else is first on PATH.
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                   "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=python3",
                   "--output-dir", out, notebook]
        return subprocess.run(command, env=env, cwd=os.path.dirname(notebook)).returncode


if __name__ == "__main__":
    sys.exit(main())
