#!/usr/bin/env python3
"""Animated export (issues 13, 39): 120 frames of 1280 x 720 of the waves view to MP4 (H.264),
by `pescope export --animate position` and by the window's File > Export figure (AnimationJob,
run by bench_animationjob offscreen) against matplotlib's FuncAnimation saved with its ffmpeg
writer making the same animation (two waves of the sinusoidal encoding, 200 positions x 128
dims, columns 20 and 21, a dashed marker moving from p = 0 to p = 199 with a dot on each wave,
a legend); then Geron's Fig 16-9 preset animated the same way (`--preset geron-16-9`: 201
positions x 512 dims, waves i = 100 and 101, the moving marker from p = 0 to 200 beside the faded
one at p = 60, dots on both curves at both markers, the cross at p = 35, a legend of five), against
matplotlib drawing that figure. Whole processes, the median of RUNS runs each (after one
discarded warm-up run), side by side, and the ratios. The window's file must be the command
line's, byte for byte.

    /usr/bin/python3 bench/bench_animation.py [PATH/TO/pescope] [RUNS] [FRAMES]
                                              [PATH/TO/bench_animationjob]

bench_animationjob is looked for in the build tree's bench/ beside app/pescope; without it the
window's line is left out. matplotlib's writer runs the `ffmpeg` program (Debian: ffmpeg);
pescope encodes in-process.
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
pescope = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "app", "pescope")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
frames = int(sys.argv[3]) if len(sys.argv) > 3 else 120
window = (sys.argv[4] if len(sys.argv) > 4 else
          os.path.join(os.path.dirname(pescope), "..", "bench", "bench_animationjob"))

POSITIONS, DIMS, WAVES = 200, 128, (20, 21)

MATPLOTLIB = r"""
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation, FFMpegWriter

out, frames, positions, dims = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
waves = [int(w) for w in sys.argv[5].split(",")]
p = np.arange(positions)[:, None]
i = np.arange(dims)[None, :] // 2
angle = p / 10000.0 ** (2 * i / dims)
pe = np.where(np.arange(dims)[None, :] % 2 == 0, np.sin(angle), np.cos(angle))

fig, ax = plt.subplots(figsize=(12.8, 7.2), dpi=100)
for k, w in enumerate(waves):
    ax.plot(pe[:, w], color="br"[k], ls="-" if w % 2 == 0 else "--",
            label=f"i = {w} ({'sin' if w % 2 == 0 else 'cos'})")
marker = ax.axvline(0, color="k", ls="--", label="p = 0")
dots = ax.scatter([0] * len(waves), [pe[0, w] for w in waves], c=["b", "r"][: len(waves)],
                  zorder=3)
ax.set_xlim(0, positions - 1)
ax.set_xlabel("position p")
ax.set_ylabel("PE(p, i)")
ax.grid(True, ls=":")
legend = ax.legend(loc="center right")


def update(frame):
    q = round(frame * (positions - 1) / (frames - 1))
    marker.set_xdata([q, q])
    marker.set_label(f"p = {q}")
    legend.get_texts()[0].set_text(f"p = {q}")
    dots.set_offsets([[q, pe[q, w]] for w in waves])
    return marker, dots


animation = FuncAnimation(fig, update, frames=frames)
animation.save(out, writer=FFMpegWriter(fps=30, codec="h264", extra_args=["-pix_fmt", "yuv420p"]))
"""


# Fig 16-9 as Geron's notebook draws it, the first marker moving.
GERON = r"""
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation, FFMpegWriter

out, frames = sys.argv[1], int(sys.argv[2])
positions, dims, waves, still, cross = 201, 512, (100, 101), 60, 35
p = np.arange(positions)[:, None]
i = np.arange(dims)[None, :] // 2
angle = p / 10000.0 ** (2 * i / dims)
pe = np.where(np.arange(dims)[None, :] % 2 == 0, np.sin(angle), np.cos(angle))

fig, ax = plt.subplots(figsize=(12.8, 7.2), dpi=100)
marker = ax.axvline(0, color="k", ls="--", label="p = 0")
ax.axvline(still, color="k", ls="--", alpha=0.5, label=f"p = {still}")
ax.plot([cross], [pe[cross, waves[0]]], "bx", markersize=10, label=f"p = {cross}")
for k, w in enumerate(waves):
    ax.plot(pe[:, w], color="br"[k], label=f"i = {w} ({'sin' if w % 2 == 0 else 'cos'})")
ax.scatter([still] * 2, [pe[still, w] for w in waves], c=["b", "r"], zorder=3)
dots = ax.scatter([0] * 2, [pe[0, w] for w in waves], c=["b", "r"], zorder=3)
ax.set_xlim(0, positions - 1)
ax.set_xlabel("position p")
ax.set_ylabel("PE(p, i)")
ax.grid(True, ls=":")
legend = ax.legend(loc="center right")


def update(frame):
    q = round(frame * (positions - 1) / (frames - 1))
    marker.set_xdata([q, q])
    legend.get_texts()[0].set_text(f"p = {q}")
    dots.set_offsets([[q, pe[q, w]] for w in waves])
    return marker, dots


animation = FuncAnimation(fig, update, frames=frames)
animation.save(out, writer=FFMpegWriter(fps=30, codec="h264", extra_args=["-pix_fmt", "yuv420p"]))
"""


def timed(cmd, env=None):
    """Wall seconds, CPU seconds (user + system, the process and what it waited for: for
    matplotlib that includes its ffmpeg) and the standard output of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env, text=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def alternate(commands, env):
    """Each command RUNS times after a discarded warm-up, alternating: {name: (walls, cpus,
    outputs)} of the kept runs."""
    kept = {name: ([], [], []) for name in commands}
    for run in range(runs + 1):
        for name, cmd in commands.items():
            w, c, out = timed(cmd, env)
            if run > 0:  # the first run of each warms the caches
                for values, value in zip(kept[name], (w, c, out)):
                    values.append(value)
    return kept


def frame_count(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                          "-show_entries", "stream=nb_read_frames,codec_name,width,height",
                          "-of", "csv=p=0", path], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def main():
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "anim.py")
        with open(script, "w") as f:
            f.write(MATPLOTLIB)
        mpl_out = os.path.join(folder, "matplotlib.mp4")
        pe_out = os.path.join(folder, "pescope.mp4")
        win_out = os.path.join(folder, "window.mp4")
        waves = ",".join(str(w) for w in WAVES)
        commands = {
            "matplotlib": [sys.executable, script, mpl_out, str(frames), str(POSITIONS),
                           str(DIMS), waves],
            "pescope": [pescope, "export", "--view", "waves", "--scheme", "sinusoidal",
                        "--positions", str(POSITIONS), "--dims", str(DIMS), "--mark-dims", waves,
                        "--backend", "cpu", "--width", "1280", "--height", "720",
                        "--animate", "position", "--from", "0", "--to", str(POSITIONS - 1),
                        "--frames", str(frames), "--fps", "30", "--out", pe_out],
        }
        if os.path.exists(window):
            commands["window"] = [window, win_out, str(frames), str(POSITIONS), str(DIMS), waves]
        # The window's job with no display: Qt's offscreen platform.
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        kept = alternate(commands, env)
        wall = {name: walls for name, (walls, _, _) in kept.items()}
        cpu = {name: cpus for name, (_, cpus, _) in kept.items()}
        # The window's line: "job S s, longest event-loop gap MS ms".
        job = [float(out.split()[1]) for out in kept.get("window", ([], [], []))[2]]
        gap = [float(out.split()[6]) for out in kept.get("window", ([], [], []))[2]]
        m, p = statistics.median(wall["matplotlib"]), statistics.median(wall["pescope"])
        mc, pc = statistics.median(cpu["matplotlib"]), statistics.median(cpu["pescope"])
        print(f"{frames} frames of 1280 x 720, waves view to MP4 (H.264, yuv420p), "
              f"median of {runs} runs, whole processes (os.cpu_count() = {os.cpu_count()}, "
              f"load average before {os.getloadavg()[0]:.2f})")
        print(f"  matplotlib FuncAnimation + FFMpegWriter: {m:7.2f} s wall {mc:7.2f} s CPU"
              f"   ({frame_count(mpl_out)})")
        print(f"  pescope export --animate position:       {p:7.2f} s wall {pc:7.2f} s CPU"
              f"   ({frame_count(pe_out)})")
        if "window" in commands:
            wn, wc = statistics.median(wall["window"]), statistics.median(cpu["window"])
            with open(win_out, "rb") as a, open(pe_out, "rb") as b:
                same = a.read() == b.read()
            print(f"  window's export (AnimationJob):          {wn:7.2f} s wall {wc:7.2f} s CPU"
                  f"   ({frame_count(win_out)}; the job {statistics.median(job):.2f} s, "
                  f"longest event-loop gap {statistics.median(gap):.0f} ms; "
                  f"{'the same file' if same else 'NOT the same file'} as the command line's)")
        print(f"  pescope export is {m / p:.1f}x faster (wall), {mc / pc:.1f}x less CPU time")
        if "window" in commands:
            print(f"  the window's export is {m / wn:.1f}x faster (wall), {mc / wc:.1f}x less "
                  f"CPU time")
        else:
            print(f"  (no {window}: the window's export was not measured)")


def geron_preset():
    """Fig 16-9's preset, pescope against matplotlib drawing the same figure."""
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "geron.py")
        with open(script, "w") as f:
            f.write(GERON)
        mpl_out = os.path.join(folder, "matplotlib.mp4")
        pe_out = os.path.join(folder, "pescope.mp4")
        commands = {
            "matplotlib": [sys.executable, script, mpl_out, str(frames)],
            "pescope": [pescope, "export", "--preset", "geron-16-9", "--view", "waves",
                        "--backend", "cpu", "--width", "1280", "--height", "720",
                        "--animate", "position", "--frames", str(frames), "--fps", "30",
                        "--out", pe_out],
        }
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        kept = alternate(commands, env)
        wall = {name: walls for name, (walls, _, _) in kept.items()}
        cpu = {name: cpus for name, (_, cpus, _) in kept.items()}
        m, p = statistics.median(wall["matplotlib"]), statistics.median(wall["pescope"])
        mc, pc = statistics.median(cpu["matplotlib"]), statistics.median(cpu["pescope"])
        print(f"{frames} frames of 1280 x 720, Fig 16-9's preset (two markers, dots, a cross, "
              f"five legend entries) to MP4, median of {runs} runs "
              f"(load average before {os.getloadavg()[0]:.2f})")
        print(f"  matplotlib FuncAnimation + FFMpegWriter: {m:7.2f} s wall {mc:7.2f} s CPU"
              f"   ({frame_count(mpl_out)})")
        print(f"  pescope export --preset geron-16-9:      {p:7.2f} s wall {pc:7.2f} s CPU"
              f"   ({frame_count(pe_out)})")
        print(f"  pescope export is {m / p:.1f}x faster (wall), {mc / pc:.1f}x less CPU time")


if __name__ == "__main__":
    main()
    geron_preset()
