#!/usr/bin/env python3
"""Two builds of pescope side by side, e.g. a portable build (PE_NATIVE_ARCH=OFF, the kernels
picked at run time) against a -march=native one: the same workloads alternating between the
builds, medians, and the ratio. A benchmark, not a test: it prints figures and never fails.

  bench/compare_builds.py BUILD_DIR_A BUILD_DIR_B [RUNS]

Workloads: bench_encode's in-process CPU fill of 65,536 x 1,024 (its own median of 9, taken
over RUNS alternating runs of bench_encode); whole processes of `pescope data` 65,536 x 1,024 to
/dev/null; `pescope export` of bench_export.sh's heatmap (2,048 x 512 at 1,500 x 900 px PNG);
and bench_backends' CPU viewport sampling of 1,048,576 x 8,192 at 1,920 x 1,080 (whole and a
zoomed window near 2^20; its median of 7, over alternating runs).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def timed(command, env):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return time.perf_counter() - start


def in_process_ms(build, env):
    out = subprocess.run([os.path.join(build, "bench", "bench_encode"), "--runs", "9"],
                         check=True, capture_output=True, text=True, env=env).stdout
    return float(re.search(r"pescope CPU backend\s+([0-9.]+) ms", out).group(1))


def sampling_ms(build, env):
    out = subprocess.run([os.path.join(build, "bench", "bench_backends"), "--runs", "7"],
                         check=True, capture_output=True, text=True, env=env).stdout
    whole = re.search(r"^sample 1920 x 1080 of [0-9]+ x [0-9]+\s+([0-9.]+) ms", out, re.M).group(1)
    zoomed = re.search(r"^sample 1920 x 1080, zoomed.*?\s([0-9.]+) ms", out, re.M).group(1)
    return float(whole), float(zoomed)


def kernels(build, env):
    out = subprocess.run([os.path.join(build, "app", "pescope"), "--version"], check=True,
                         capture_output=True, text=True, env=env).stdout
    found = dict(line.split(": ", 1) for line in out.splitlines()[1:] if ": " in line)
    return f"{found.get('build', '?')}; kernels {found.get('CPU kernels', '?').split(' ')[0]}"


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    builds = sys.argv[1:3]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    with tempfile.TemporaryDirectory() as folder:
        png = os.path.join(folder, "fig.png")
        workloads = {
            "data 65536 x 1024 -> /dev/null": ["data", "--positions", "65536", "--dims", "1024",
                                               "--backend", "cpu", "--out", "/dev/null"],
            "export heatmap 2048 x 512, 1500 x 900 PNG": [
                "export", "--view", "heatmap", "--positions", "2048", "--dims", "512",
                "--out", png, "--width", "1500", "--height", "900"],
        }
        times = {name: ([], []) for name in workloads}
        encode = ([], [])
        sampled = ([], [])
        for name, args in workloads.items():  # warm-up: page cache, font cache
            for build in builds:
                timed([os.path.join(build, "app", "pescope"), *args], env)
        for _ in range(runs):
            for name, args in workloads.items():
                for i, build in enumerate(builds):
                    times[name][i].append(timed([os.path.join(build, "app", "pescope"), *args],
                                                env))
        for _ in range(max(3, runs // 3)):
            for i, build in enumerate(builds):
                encode[i].append(in_process_ms(build, env))
                sampled[i].append(sampling_ms(build, env))

    print(f"A: {builds[0]} ({kernels(builds[0], env)})")
    print(f"B: {builds[1]} ({kernels(builds[1], env)})")
    print(f"medians; {runs} alternating runs of each process, {len(encode[0])} of bench_encode; "
          f"{os.cpu_count()} cores\n")
    # Medians, and minimums (the better estimate when other work shares the machine).
    print(f"{'workload (ms: median / min)':46} {'A':>15} {'B':>15} {'B / A':>13}")

    def line(name, a, b):
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{name:46} {ma:7.1f} /{min(a):6.1f} {mb:7.1f} /{min(b):6.1f} "
              f"{mb / ma:6.3f} /{min(b) / min(a):6.3f}")

    line("in process: CPU fill 65536 x 1024 (256 MiB)", encode[0], encode[1])
    for k, name in enumerate(("in process: sample 1920 x 1080 of 2^20 x 8192",
                              "in process: the same, zoomed near 2^20")):
        line(name, [s[k] for s in sampled[0]], [s[k] for s in sampled[1]])
    for name in workloads:
        line(name, [t * 1e3 for t in times[name][0]], [t * 1e3 for t in times[name][1]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
