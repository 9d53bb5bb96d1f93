#!/usr/bin/env python3
"""Seeded monkey test of pescope's window (issue 32).

Starts pescope on its own Xvfb display, with models open, and sends it seeded random input
through the X server with xdotool, as a person would: clicks, double clicks, drags and wheel
turns anywhere in the window or the dialog in front, every keyboard shortcut (Ctrl, Ctrl+Shift,
Ctrl+Alt and Alt with every letter and digit, function keys, navigation keys), typed and
pasted junk (path-like text, /proc/, numbers at and past every limit, Unicode, pastes up to
1 MiB), dialogs accepted and dismissed, and the four pages in turn. After every 50 events it
checks that the process lives and that its main thread is back in its event loop: the
window must answer a _NET_WM_PING (tests/monkey/x11.py), which Qt answers on the GUI thread.

On failure it prints the seed, the command that replays the run, the last events, pescope's
stderr, a backtrace of every thread (gdb -p), and keeps a screenshot and the run's folder.

Nothing is written outside a temporary folder: HOME, the XDG folders and TMPDIR point into it,
and tests/monkey/monkeyguard.c (preloaded) refuses pescope's writes anywhere else and lists
them. A Ctrl+Q or File > Quit ends pescope normally: it is started again and the run goes on.

    python3 tests/monkey/monkey.py --pescope build/app/pescope \\
        --guard build/tests/libmonkeyguard.so --seed 7 --events 20000 --seconds 3600

CI runs it through CTest (`ctest -L monkey`) with 3,000 events in at most 150 s;
docs/engineering.md ("Monkey test") says how to run it longer before a release.
"""

import argparse
import ctypes
import os
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import x11  # noqa: E402

SKIP = 77  # CTest's SKIP_RETURN_CODE for this test: a tool it needs is missing

_libc = ctypes.CDLL(None, use_errno=True)


def dies_with_us():
    """For Popen's preexec_fn: the child gets SIGKILL when this script ends, however it ends
    (CTest's timeout kills it with SIGKILL), so no Xvfb or pescope outlives a run."""
    _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

PAGES = ["ctrl+1", "ctrl+2", "ctrl+3", "ctrl+4"]
NAVIGATION = ["Return", "KP_Enter", "Escape", "Tab", "shift+Tab", "space", "BackSpace", "Delete",
              "Up", "Down", "Left", "Right", "Page_Up", "Page_Down", "Home", "End", "Menu",
              "shift+F10", "shift+Up", "shift+Down", "shift+End", "ctrl+a", "plus", "minus"]
FUNCTION_KEYS = [f"F{i}" for i in range(1, 13)]
# Every shortcut pescope has is among these, whatever its menus hold today.
SHORTCUTS = [f"{m}+{k}" for m in ("ctrl", "ctrl+shift", "ctrl+alt", "alt")
             for k in "abcdefghijklmnopqrstuvwxyz0123456789"]
SHORTCUTS += ["ctrl+Return", "ctrl+Tab", "ctrl+shift+Tab", "ctrl+plus", "ctrl+minus",
              "ctrl+Home", "ctrl+End", "ctrl+Page_Up", "ctrl+Page_Down", "ctrl+BackSpace",
              "ctrl+Delete", "ctrl+Escape", "alt+Return", "alt+F4"]
SNIPPETS = ["/proc/", "/proc/kmsg", "/proc/self/", "/dev/zero", "/dev/", "/sys/", "/", "../",
            "~/", "./", "*", "?", "\"", "'", "\\", ";", ",", ":", ".", "..", "-", "e", "E",
            "0", "-0", "1", "-1", "1e308", "-1e308", "1e-320", "nan", "NaN", "inf", "-inf",
            "65536", "65537", "16777216", "16777217", "1048576", "2147483648",
            "9223372036854775808", "9" * 40, "0x10", "1,5", "1.5.5", " ", "\t", "é", "ß",
            "ΣΩ", "漢字", "😀", "\u202e", "\u200b", "%s%n", "<b>", "&amp;", "\\u0000",
            "model.safetensors", "config.json", "session.pescope.json", "x.png", "x.svg",
            "x.pdf", "x.gif", "x.mp4", "x.npy", "x.csv"]
ASCII = [chr(c) for c in range(32, 127)]


def keysym(character):
    """The X keysym name xdotool's key command takes for `character`: Xlib's Uxxxx form
    (XStringToKeysym), which xdotool binds to a spare key when no key has it."""
    named = {"\t": "Tab", "\n": "Return", " ": "space"}
    if character in named:
        return named[character]
    code = ord(character)
    return f"U{code:04X}" if code >= 0x20 else "space"


def junk(rng, length):
    """Random text of about `length` characters: printable ASCII mixed with SNIPPETS."""
    parts, size = [], 0
    while size < length:
        piece = rng.choice(SNIPPETS) if rng.random() < 0.3 else rng.choice(ASCII)
        parts.append(piece)
        size += len(piece)
    return "".join(parts)


def paste_text(rng):
    """Clipboard contents: mostly short, sometimes the size of a long phrase, rarely 1 MiB."""
    roll = rng.random()
    if roll < 0.75:
        return junk(rng, rng.randint(1, 200))
    if roll < 0.97:
        return junk(rng, rng.randint(1000, 60000))
    return rng.choice("abc xyz") * rng.choice([1048576, 1048577, 1100000])


class Event:
    """One input action, drawn from the seed. Positions are fractions of the target window,
    which is 'focus' (the window or dialog in front) or 'main'."""

    def __init__(self, kind, **fields):
        self.kind = kind
        self.fields = fields

    def __str__(self):
        shown = {k: (v if not isinstance(v, str) or len(v) <= 60
                     else f"{v[:40]!r}... ({len(v)} characters)")
                 for k, v in self.fields.items()}
        return f"{self.kind} {shown}"


def draw_event(rng):
    roll = rng.random()
    where = dict(target="focus" if rng.random() < 0.8 else "main",
                 x=round(rng.random(), 4), y=round(rng.random(), 4))
    if roll < 0.30:
        return Event("click", button=rng.choice([1, 1, 1, 1, 3, 2]), **where)
    if roll < 0.35:
        return Event("doubleclick", **where)
    if roll < 0.43:
        return Event("drag", button=rng.choice([1, 1, 3]), x2=round(rng.random(), 4),
                     y2=round(rng.random(), 4), steps=rng.randint(2, 8), **where)
    if roll < 0.51:
        return Event("wheel", button=rng.choice([4, 5, 4, 5, 6, 7]), turns=rng.randint(1, 6),
                     modifier=rng.choice(["", "", "", "ctrl", "shift"]), **where)
    if roll < 0.63:
        return Event("key", key=rng.choice(SHORTCUTS))
    if roll < 0.78:
        return Event("key", key=rng.choice(NAVIGATION + FUNCTION_KEYS))
    if roll < 0.84:
        return Event("dialog", key=rng.choice(["Return", "Escape", "Escape", "space"]))
    if roll < 0.93:
        return Event("type", text=junk(rng, rng.randint(1, 24)))
    return Event("paste", text=paste_text(rng), select_all=rng.random() < 0.5)


class Failure(Exception):
    pass


class Run:
    def __init__(self, args):
        self.args = args
        self.root = Path(tempfile.mkdtemp(prefix="pescope-monkey-")).resolve()
        self.history = []  # (session, index, str(event))
        self.sent = 0
        self.pings = 0
        self.slowest_ping = 0.0
        self.restarts = 0
        self.slow = []  # (seconds, the events before) for answers slower than a quarter limit
        self.xvfb = self.app = self.conn = self.xdo = None
        self.display = ""
        self.env = {}
        self.main_window = 0
        self.main_geometry = (0, 0, 1280, 720)
        self.session = ""
        self.stderr_path = None
        self.started = time.monotonic()

    # --- the display and pescope -------------------------------------------------------
    def start_display(self, geometry):
        read_end, write_end = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{geometry}x24",
             "-nolisten", "tcp", "-noreset"],
            pass_fds=[write_end], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=dies_with_us)
        os.close(write_end)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(read_end, 16)
            if not chunk:
                raise Failure("Xvfb did not start")
            number += chunk
        os.close(read_end)
        self.display = ":" + number.decode().strip()
        self.conn = x11.Connection(self.display)

    def environment(self, scale):
        home = self.root / "home"
        for sub in ["Documents", ".config", ".local/share", ".local/state", ".cache"]:
            (home / sub).mkdir(parents=True, exist_ok=True)
        runtime = self.root / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER",
                            "QT_QPA_PLATFORMTHEME", "QT_SCALE_FACTOR", "HF_HUB_CACHE")}
        env.update(DISPLAY=self.display, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                   XDG_DATA_HOME=str(home / ".local/share"),
                   XDG_STATE_HOME=str(home / ".local/state"), XDG_CACHE_HOME=str(home / ".cache"),
                   XDG_RUNTIME_DIR=str(runtime), TMPDIR=str(self.root / "tmp"),
                   HF_HOME=str(self.root / "hf"), QT_QPA_PLATFORM="xcb",
                   # Qt's own dialogs, the ones pescope hardens (no native ones under Xvfb).
                   QT_QPA_PLATFORMTHEME="", QT_ACCESSIBILITY="0", NO_AT_BRIDGE="1",
                   LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   MONKEYGUARD_ROOT=str(self.root), MONKEYGUARD_LOG=str(self.root / "refused.log"))
        if scale != 1:
            env["QT_SCALE_FACTOR"] = str(scale)
        preload = [str(Path(self.args.guard).resolve())] if self.args.guard else []
        if env.get("LD_PRELOAD"):
            preload.append(env["LD_PRELOAD"])
        if preload:
            env["LD_PRELOAD"] = ":".join(preload)
        return env

    def start_pescope(self, model):
        command = [self.args.pescope] + (["--model", str(model)] if model else [])
        self.stderr_path = self.root / f"pescope-{self.session}-{self.restarts}.log"
        with open(self.stderr_path, "wb") as stderr:
            self.app = subprocess.Popen(command, env=self.env, cwd=self.env["HOME"],
                                        stdout=subprocess.DEVNULL, stderr=stderr,
                                        preexec_fn=dies_with_us)
        deadline = time.monotonic() + self.args.start_timeout
        while time.monotonic() < deadline:
            if self.app.poll() is not None:
                raise Failure(f"pescope exited on start ({describe_exit(self.app.returncode)})")
            found = self.xdotool("search", "--onlyvisible", "--pid", str(self.app.pid))
            if found.split():
                self.main_window = int(found.split()[0])
                self.main_geometry = self.conn.geometry(self.main_window) or self.main_geometry
                self.xdotool("mousemove", "--window", str(self.main_window), "40", "10",
                             "click", "1")
                return
            time.sleep(0.25)
        raise Failure(f"pescope showed no window within {self.args.start_timeout} s")

    def stop(self):
        # Our own connection first: Xlib ends the process when its server goes away.
        if self.conn:
            self.conn.close()
        for process in (self.xdo, self.app, self.xvfb):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        self.xdo = self.app = self.xvfb = self.conn = None

    # --- input ---------------------------------------------------------------------------
    def xdotool(self, *args):
        """A one-off xdotool command (finding the window); its output."""
        result = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True,
                                timeout=60)
        return result.stdout.strip()

    def input_stream(self):
        """One xdotool for the session, reading commands from stdin: it runs each line as it
        comes, so input costs no process per event."""
        if self.xdo is None or self.xdo.poll() is not None:
            self.xdo = subprocess.Popen(["xdotool", "-"], env=self.env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1, preexec_fn=dies_with_us)
        return self.xdo

    def run_lines(self, lines):
        """Sends xdotool command lines and waits until xdotool has run them (it prints the
        pointer's place after the last one)."""
        stream = self.input_stream()
        try:
            stream.stdin.write("".join(line + "\n" for line in lines) + "getmouselocation\n")
            stream.stdin.flush()
        except BrokenPipeError:
            self.xdo = None
            return
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([stream.stdout], [], [], 1.0)
            if ready:
                line = stream.stdout.readline()
                if not line or line.startswith("x:"):
                    return
            elif stream.poll() is not None:
                self.xdo = None  # a command it could not run ended it: a new one next time
                return
        raise Failure("xdotool did not finish its commands within 120 s")

    def geometry(self, window=None):
        """(x, y, width, height) of `window`, or of the window with the input focus (the dialog
        in front); the main window's when that is gone or tiny."""
        window = window or self.conn.focus() or self.main_window
        geometry = self.conn.geometry(window)
        if not geometry or geometry[2] < 8 or geometry[3] < 8:
            return self.main_geometry
        return geometry

    def command(self, event, geometries):
        """The xdotool line for `event`. Delays are given: xdotool's defaults (100 ms after a
        click, 12 ms between keys) would make input, not pescope, the test's bottleneck."""
        f = event.fields
        if "target" in f:
            x0, y0, w, h = geometries[f["target"]]
            x, y = x0 + int(f["x"] * (w - 1)), y0 + int(f["y"] * (h - 1))
        if event.kind == "click":
            return f"mousemove {x} {y} click --delay 0 {f['button']}"
        if event.kind == "doubleclick":
            return f"mousemove {x} {y} click --repeat 2 --delay 40 1"
        if event.kind == "drag":
            x2, y2 = x0 + int(f["x2"] * (w - 1)), y0 + int(f["y2"] * (h - 1))
            steps = f["steps"]
            moves = " ".join(f"mousemove {x + (x2 - x) * i // steps} {y + (y2 - y) * i // steps} "
                             "sleep 0.01" for i in range(1, steps + 1))
            return f"mousemove {x} {y} mousedown {f['button']} {moves} mouseup {f['button']}"
        if event.kind == "wheel":
            down = f"keydown --delay 0 {f['modifier']} " if f["modifier"] else ""
            up = f" keyup --delay 0 {f['modifier']}" if f["modifier"] else ""
            return (f"mousemove {x} {y} {down}click --repeat {f['turns']} --delay 5 "
                    f"{f['button']}{up}")
        if event.kind in ("key", "dialog"):
            return f"key --delay 0 --clearmodifiers {f['key']}"
        if event.kind == "type":
            return "key --delay 2 " + " ".join(keysym(c) for c in f["text"])
        if event.kind == "paste":
            return ("key --delay 0 ctrl+a " if f["select_all"] else "") + "key --delay 0 ctrl+v"
        raise ValueError(event.kind)

    def set_clipboard(self, text):
        # xclip stays in the background to serve the selection until another owner takes it
        # or the display goes.
        subprocess.run(["xclip", "-selection", "clipboard", "-i"], input=text.encode(),
                       env=self.env, timeout=60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def send(self, events, index):
        geometries = {"focus": self.geometry(), "main": self.main_geometry}
        lines = []
        for offset, event in enumerate(events):
            self.history.append((self.session, index + offset, str(event)))
            if event.kind == "paste":
                # The clipboard must hold the text when the paste runs: what came before first.
                self.run_lines(lines)
                lines = []
                self.set_clipboard(event.fields["text"])
            lines += [self.command(event, geometries), f"sleep {self.args.pause}"]
        self.run_lines(lines)
        self.sent += len(events)

    # --- checks ------------------------------------------------------------------------
    def check_alive(self, model):
        code = self.app.poll()
        if code == 0:
            # Ctrl+Q or File > Quit: a normal end. Start again and go on.
            self.restarts += 1
            self.history.append((self.session, -1, "pescope quit normally; started again"))
            self.start_pescope(model)
            return
        if code is not None:
            raise Failure(f"pescope died: {describe_exit(code)}")
        waited = self.conn.ping(self.main_window, self.args.ping_timeout)
        self.pings += 1
        if waited is None:
            if self.app.poll() is not None:
                return self.check_alive(model)
            raise Failure(f"pescope's main thread did not return to its event loop: no answer "
                          f"to _NET_WM_PING within {self.args.ping_timeout} s")
        self.slowest_ping = max(self.slowest_ping, waited)
        if waited > self.args.ping_timeout / 4:
            # Not a failure, but worth a look: the events that led to it.
            self.slow.append((waited, self.history[-12:]))
        if self.args.screenshots:
            subprocess.run(["import", "-window", "root",
                            str(self.root / f"check-{self.pings:04d}.png")],
                           env=self.env, capture_output=True, timeout=60)
        self.main_geometry = self.conn.geometry(self.main_window) or self.main_geometry

    def report(self, failure, seed):
        lines = [f"monkey: FAILED: {failure}",
                 f"monkey: seed {seed}, session {self.session}, {self.sent} events sent",
                 "monkey: replay: " + " ".join(replay_command(self.args, seed)),
                 "monkey: this session alone: add --only-session "
                 + self.session.split(":", 1)[0]]
        lines.append(f"monkey: the last {min(len(self.history), 60)} events:")
        lines += [f"  [{s} #{i}] {e}" for s, i, e in self.history[-60:]]
        if self.app and self.app.poll() is None:
            shot = self.root / "failure.png"
            subprocess.run(["import", "-window", "root", str(shot)], env=self.env,
                           capture_output=True, timeout=60)
            lines.append(f"monkey: screenshot: {shot}")
            lines.append("monkey: backtrace of every thread (gdb -p):")
            gdb = subprocess.run(["gdb", "-p", str(self.app.pid), "-batch", "-nx", "-ex",
                                  "thread apply all bt 40"], capture_output=True, text=True,
                                 timeout=180)
            lines += [line for line in (gdb.stdout + gdb.stderr).splitlines()
                      if line.startswith(("#", "Thread ", "[", "warning", "ptrace"))
                      or "Could not attach" in line]
        if self.stderr_path and self.stderr_path.exists():
            text = self.stderr_path.read_text(errors="replace").splitlines()
            lines.append(f"monkey: pescope's stderr, last {min(len(text), 120)} lines "
                         "(with the guard's backtrace after a fatal signal):")
            lines += ["  " + line for line in text[-120:]]
        (self.root / "events.log").write_text(
            "".join(f"[{s} #{i}] {e}\n" for s, i, e in self.history))
        lines.append(f"monkey: the run's folder is kept (events.log has every event): {self.root}")
        print("\n".join(lines), flush=True)


def describe_exit(code):
    if code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def replay_command(args, seed):
    return [sys.executable, str(Path(__file__).resolve()), "--pescope", args.pescope,
            "--guard", args.guard or "''", "--seed", str(seed), "--events", str(args.events),
            "--seconds", str(args.seconds)] + (["--data", args.data] if args.data else [])


def make_gpt2_folder(folder, data):
    """A GPT-2 folder: the published config.json (tests/data/configs) and a learned position
    table of its shape (1024 x 768 float32, a sinusoid so that the views have structure)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = Path(data) / "configs" / "gpt2.json" if data else None
    if config and config.exists():
        shutil.copy(config, folder / "config.json")
    else:
        (folder / "config.json").write_text(
            '{"model_type": "gpt2", "n_positions": 1024, "n_embd": 768, "n_layer": 12, '
            '"n_head": 12, "vocab_size": 50257}')
    rows, cols = 1024, 768
    import math
    values = [math.sin(p / 10000 ** ((c // 2 * 2) / cols)) if c % 2 == 0
              else math.cos(p / 10000 ** ((c // 2 * 2) / cols))
              for p in range(rows) for c in range(cols)]
    payload = struct.pack(f"<{rows * cols}f", *values)
    header = ('{"wpe.weight":{"dtype":"F32","shape":[%d,%d],"data_offsets":[0,%d]}}'
              % (rows, cols, len(payload))).encode()
    header += b" " * (-len(header) % 8)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + payload)
    return folder


def models(run, data):
    """The models the sessions open, in turn: a learned table, rotary configs, and any model
    folder under tests/data/models."""
    found = [make_gpt2_folder(run.root / "models" / "gpt2", data)]
    if data:
        for name in ["llama-3.1-8b.json", "gemma-3-4b-it.json", "phi-3.5-mini-instruct.json"]:
            if (Path(data) / "configs" / name).exists():
                found.append(Path(data) / "configs" / name)
        folders = Path(data) / "models"
        if folders.is_dir():
            found += sorted(p for p in folders.iterdir() if p.is_dir())
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pescope", required=True, help="the pescope executable")
    parser.add_argument("--guard", help="libmonkeyguard.so (keeps writes in the run's folder)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--events", type=int, default=3000, help="events in all")
    parser.add_argument("--seconds", type=float, default=150,
                        help="stop sending events after this long (the check still runs)")
    parser.add_argument("--sessions", default="1280x720@1,1280x720@2",
                        help="displays and scale factors, one session each, in turn")
    parser.add_argument("--data", help="tests/data: model configs, tests/data/models")
    parser.add_argument("--ping-timeout", type=float, default=20)
    parser.add_argument("--start-timeout", type=float, default=60)
    parser.add_argument("--pause", type=float, default=0.01, help="seconds between events")
    parser.add_argument("--only-session", type=int,
                        help="run only session N (1, 2, ...) of the list, with its own events")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder")
    parser.add_argument("--screenshots", action="store_true",
                        help="a screenshot at every check, in the run's folder (with --keep)")
    args = parser.parse_args()
    # pescope runs in its HOME: relative paths would not be found from there.
    args.pescope = str(Path(args.pescope).resolve())
    args.guard = str(Path(args.guard).resolve()) if args.guard else None
    args.data = str(Path(args.data).resolve()) if args.data else None

    missing = [tool for tool in ("xdotool", "Xvfb", "xclip") if not shutil.which(tool)]
    if missing:
        # Under CI (CI=true), whose script installs them, missing tools fail the test by name.
        under_ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
        print(f"monkey: {'FAILED under CI' if under_ci else 'skipped'}: {', '.join(missing)} "
              "not installed (bash bootstrap.sh test installs them)")
        return 1 if under_ci else SKIP
    if args.guard and not Path(args.guard).exists():
        print(f"monkey: {args.guard} does not exist")
        return 2

    run = Run(args)
    # The hard limit: whatever hangs (pescope, an X call, gdb), the test ends, with its report.
    # Events stop at --seconds; a last check may wait a ping timeout; starts, the report and
    # its backtrace fit in the 90 s left.
    hard_limit = int(args.seconds + args.ping_timeout + 90)

    def on_alarm(signum, frame):
        raise Failure(f"the monkey test ran past its hard limit of {hard_limit} s")
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(hard_limit)

    def on_stop(signum, frame):
        raise Failure(f"stopped by {signal.Signals(signum).name}")
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)

    sessions = [s.split("@") for s in args.sessions.split(",")]
    per_session = max(args.events // len(sessions), 1)
    status = 0
    try:
        available = models(run, args.data)
        for number, (geometry, scale) in enumerate(sessions):
            if args.only_session and number + 1 != args.only_session:
                continue
            run.session = f"{number + 1}:{geometry}@{scale}"
            rng = random.Random(f"{args.seed}:{number}")
            model = available[(args.seed + number) % len(available)]
            run.start_display(geometry)
            run.env = run.environment(float(scale) if "." in scale else int(scale))
            run.start_pescope(model)
            run.history.append((run.session, -1, f"pescope --model {model}"))
            index = 0
            share = 1 if args.only_session else (number + 1) / len(sessions)
            budget_end = run.started + args.seconds * share
            while index < per_session and time.monotonic() < budget_end:
                if index % 100 == 0:
                    # Every page gets its share, whatever the draw.
                    run.send([Event("key", key=PAGES[(index // 100) % len(PAGES)])], index)
                batch = [draw_event(rng) for _ in range(min(25, per_session - index))]
                run.send(batch, index)
                index += len(batch)
                if index % 50 == 0 or index >= per_session:  # batches of 25
                    run.check_alive(model)
            run.check_alive(model)
            run.stop()
    except (Failure, subprocess.TimeoutExpired) as failure:
        signal.alarm(0)
        run.report(failure, args.seed)
        run.stop()
        return 1
    finally:
        signal.alarm(0)
    (run.root / "events.log").write_text("".join(f"[{s} #{i}] {e}\n" for s, i, e in run.history))
    refused = (run.root / "refused.log")
    refusals = refused.read_text().splitlines() if refused.exists() else []
    ran = 1 if args.only_session else len(sessions)
    print(f"monkey: seed {args.seed}: {run.sent} events in {ran} session(s) "
          f"({args.sessions}{f', session {args.only_session} only' if args.only_session else ''}), {run.pings} pings answered (slowest {run.slowest_ping:.2f} s), "
          f"{run.restarts} normal quits restarted, {len(refusals)} writes outside the run's "
          f"folder refused, {time.monotonic() - run.started:.0f} s: passed")
    for line in refusals[:20]:
        print("  " + line)
    for waited, before in run.slow:
        print(f"monkey: a slow answer, {waited:.1f} s, after:")
        print("\n".join(f"  [{s} #{i}] {e}" for s, i, e in before))
    if run.sent < args.events:
        print(f"monkey: the time limit ({args.seconds:.0f} s) came before {args.events} events")
    if not args.keep:
        shutil.rmtree(run.root, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
