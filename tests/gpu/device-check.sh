#!/usr/bin/env bash
# The GPU backend's checks on a machine with an NVIDIA GPU, in one device call (issue 27).
#
# 1. Here, after a Release build of pescope, bench_backends, tst_gpubackend and tst_sampling in
#    build/ (Debian 12, with ../shared/device/ beside the checkout):
#      bash tests/gpu/device-check.sh prepare [BUILD_DIR]
#    makes build-gpu/ (ignored through .gitignore's /build*/, about 32 MiB): the bundle of
#    ../shared/device/make-bundle.sh, its run.sh, and tests/gpu/extra.sh.
# 2. The device call (the run tool), carry ["build-gpu"], timeout_s 540:
#      OUT=$OUT bash tests/gpu/device-check.sh run
#    runs build-gpu/run.sh (see ../shared/device/README.md): pescope info per route until one
#    names an NVIDIA renderer; then extra.sh (auto's choice, each read-back path at the chunk
#    size that failed on fb2ffab, the fallback path's figures, `pescope data` by backend);
#    bench_backends --runs 7; tst_gpubackend and tst_sampling with PE_REQUIRE_GPU=1;
#    bench_backends at 1,048,576 x 1,024 (4 GiB). $OUT/summary.txt is the short version,
#    $OUT/gpu.log everything. Ends within PE_GPU_DEADLINE seconds (480 here).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bundle=$root/build-gpu
case ${1:-} in
prepare)
  build=$(cd "${2:-$root/build}" && pwd)
  shared=$root/../shared/device
  for f in make-bundle.sh run.sh; do
    [ -f "$shared/$f" ] || { echo "missing $shared/$f" >&2; exit 1; }
  done
  for t in app/pescope bench/bench_backends tests/tst_gpubackend tests/tst_sampling; do
    [ -x "$build/$t" ] || { echo "build $t first (Release) in $build" >&2; exit 1; }
  done
  mkdir -p "$bundle"
  rm -f "$bundle/make-bundle.sh" "$bundle/run.sh" # read-only copies from an earlier prepare
  cp "$shared/make-bundle.sh" "$shared/run.sh" "$bundle/"
  cp "$root/tests/gpu/extra.sh" "$bundle/extra.sh"
  bash "$bundle/make-bundle.sh" "$build"
  echo "ready: carry [\"build-gpu\"] and run: OUT=\$OUT bash tests/gpu/device-check.sh run"
  ;;
run)
  if [ ! -f "$bundle/run.sh" ] || [ ! -f "$bundle/pe-gpu-bundle.deb" ]; then
    echo "no bundle in $bundle: run 'bash tests/gpu/device-check.sh prepare' here first," \
      "and name build-gpu in the run tool's carry" >&2
    exit 1
  fi
  cp "$root/tests/gpu/extra.sh" "$bundle/extra.sh" # the tracked version wins
  PE_GPU_DEADLINE=${PE_GPU_DEADLINE:-480} bash "$bundle/run.sh"
  ;;
*)
  echo "usage: $0 prepare [BUILD_DIR] | run" >&2
  exit 2
  ;;
esac
