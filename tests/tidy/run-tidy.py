#!/usr/bin/python3
"""clang-tidy over pescope's own translation units, skipping those already checked as they are.

bash bootstrap.sh tidy runs this. Each translation unit of app/, core/ and ui/ in a build's
compile_commands.json gets a key: the SHA-256 of clang-tidy's version number, the checked-in
.clang-tidy, the unit's compile flags and the project's part of its preprocessed text (the unit,
every header of pescope's it includes and the moc output, with the checkout's and the build's
paths taken out; the text of system headers -- Qt's, Eigen's, the C++ library's -- left out,
though what their macros expand to in pescope's code stays in). clang-tidy reports nothing in
system headers, so a unit whose key is in the result cache (tests/tidy/passed.txt, checked in)
passed these checks on exactly this code and is not checked again; any change to the unit, to a
header of pescope's it includes, to the flags, the checks or clang-tidy's version changes its
key. The key leaves out what differs between two Debian machines that build the same commit
(the patch level of a -dev package, the "Host CPU" line of `clang-tidy --version`), so a new
machine finds the cache as a developer left it (issue 35: all 160 keys missed there).
The cache is rewritten with the keys of every unit that passes now (keys of units that no longer
exist drop out); commit it with the change that made it, so CI checks only what that change
touched. `--all` ignores the cache.

Exit status 0 when every unit passes, 1 when any has a finding or clang-tidy fails.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

FINDING = re.compile(r"(warning|error): ")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="build folder with compile_commands.json")
    parser.add_argument("--cache", required=True, help="result cache (one key a line)")
    parser.add_argument("--log", required=True, help="where clang-tidy's whole output goes")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--all", action="store_true", help="check every unit, cache or not")
    return parser.parse_args()


def without_precompiled_headers(args):
    """Clang's use of a precompiled header (-Xclang -include-pch FILE, then -Xclang -include
    HEADER) as the plain `-include HEADER` it stands for: the same code, which the preprocessor
    then shows in full and clang-tidy parses itself."""
    out = []
    i = 0
    while i < len(args):
        if args[i] == "-Xclang" and i + 3 < len(args) and args[i + 2] == "-Xclang":
            if args[i + 1] == "-include-pch":
                i += 4
                continue
            if args[i + 1] == "-include":
                out += ["-include", args[i + 3]]
                i += 4
                continue
        out.append(args[i])
        i += 1
    return out


def own_units(build, root):
    """The compile commands of app/, core/ and ui/ sources under this checkout, by file."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    pattern = re.compile(re.escape(root) + r"/(app|core|ui)/.*\.cpp$")
    units = {}
    for entry in entries:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if pattern.match(path):
            args = entry.get("arguments") or shlex.split(entry["command"])
            units[path] = (entry["directory"], without_precompiled_headers(args))
    return units


def write_compile_commands(units, folder):
    """The units' commands as clang-tidy reads them (-p folder)."""
    os.makedirs(folder, exist_ok=True)
    entries = [{"directory": d, "file": p, "arguments": a} for p, (d, a) in units.items()]
    with open(os.path.join(folder, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=0)


def preprocess_args(args, path):
    """The compile command turned into `-E -P` to stdout: no object, no dependency file."""
    out = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip_next = True
            continue
        if arg in ("-c", "-MD", "-MMD") or os.path.normpath(arg) == path:
            continue
        out.append(arg)
    return out + ["-E", "-w", path, "-o", "-"]


LINE_MARKER = re.compile(rb'^# \d+ "(.*)"((?: \d)*)$')


def project_text(preprocessed):
    """The lines of the preprocessed text that come from pescope's own files, with the markers
    that name those files (without their line numbers): a system header's lines (line-marker
    flag 3) are left out."""
    kept = []
    in_system = False
    for line in preprocessed.split(b"\n"):
        marker = LINE_MARKER.match(line)
        if marker:
            in_system = b"3" in marker.group(2).split()
            if not in_system:
                kept.append(b"# " + marker.group(1))
        elif not in_system and line.strip():
            kept.append(line)
    return b"\n".join(kept)


def unit_key(unit, root, build, salt):
    path, (directory, args) = unit
    pre = subprocess.run(preprocess_args(args, path), cwd=directory, capture_output=True)
    if pre.returncode != 0:
        return path, None  # clang-tidy will say why
    # The checkout's and the build's locations are not part of the code.
    text = project_text(pre.stdout).replace(build.encode(), b"@BUILD@")
    text = text.replace(root.encode(), b"@ROOT@")
    flags = " ".join(preprocess_args(args, path)).replace(build, "@BUILD@").replace(root, "@ROOT@")
    digest = hashlib.sha256()
    for part in (salt, flags.encode(), text):
        digest.update(part)
        digest.update(b"\0")
    return path, digest.hexdigest()


def tidy(path, commands):
    run = subprocess.run(["clang-tidy", "-p", commands, "--quiet", path], capture_output=True,
                         text=True)
    output = run.stdout + run.stderr
    # Without WarningsAsErrors a finding would not fail the run; count them all the same.
    findings = [line for line in output.splitlines() if FINDING.search(line)]
    return path, run.returncode == 0 and not findings, output


def main():
    opts = parse_args()
    root = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    build = os.path.realpath(opts.build)
    started = time.monotonic()
    # The version number alone: the rest of `--version` names this machine's CPU.
    version_text = subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout
    version = re.search(rb"version \S+", version_text).group(0)
    with open(os.path.join(root, ".clang-tidy"), "rb") as f:
        salt = version + b"\0" + f.read()
    cached = set()
    if not opts.all and os.path.exists(opts.cache):
        with open(opts.cache, encoding="utf-8") as f:
            cached = {line.strip() for line in f if line.strip() and not line.startswith("#")}

    units = own_units(build, root)
    commands = os.path.join(build, "tidy")
    write_compile_commands(units, commands)
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        keys = dict(pool.map(lambda u: unit_key(u, root, build, salt), units.items()))
    todo = sorted(p for p, k in keys.items() if k is None or k not in cached)
    keyed = time.monotonic() - started

    passed, failed = [], []
    with open(opts.log, "w", encoding="utf-8") as log, \
            concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for path, ok, output in pool.map(lambda p: tidy(p, commands), todo):
            log.write(f"clang-tidy {os.path.relpath(path, root)}\n{output}\n")
            (passed if ok else failed).append(path)
            if not ok:
                sys.stdout.write(output)

    good = sorted(keys[p] for p in keys if keys[p] and p not in failed)
    with open(opts.cache, "w", encoding="utf-8") as f:
        f.write("# tests/tidy/run-tidy.py: keys of translation units that passed clang-tidy\n")
        f.writelines(k + "\n" for k in good)
    print(f"tidy: {len(units)} units, {len(units) - len(todo)} unchanged since they passed, "
          f"{len(todo)} checked ({len(failed)} with findings); keys in {keyed:.0f} s, "
          f"all in {time.monotonic() - started:.0f} s")
    if not units:
        print("tidy: no units found in the compile commands", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
