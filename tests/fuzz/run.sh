#!/usr/bin/env bash
# Fuzzes the parsers of users' model files with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer (Debian's clang; package clang). Builds pe_core and the targets of
# tests/fuzz in their own folder, then runs each target for SECONDS on a working copy of its
# seed corpus (tests/fuzz/corpus/<target>, checked in; make_seeds.py writes it), as many at a
# time as there are cores.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]     default 60 s each, every target
# A crash, leak or sanitizer report stops that target, leaves its reproducer in
# build-fuzz/crashes/ and makes the script exit 1; then make it a regression test.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${PE_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(safetensors gguf npy hfconfig textvectorizer tokenizer session cli)

# The flags of bash bootstrap.sh sanitize, whose build (PE_FUZZ_BUILD_DIR) CI fuzzes. UBSan's
# checks stay recoverable so that tests/sanitizers/ubsan.supp applies; halt_on_error below makes
# any other report a crash all the same.
flags="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-omit-frame-pointer"
flags+=" -gline-tables-only"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DPE_BUILD_TESTS=OFF -DPE_BUILD_BENCH=OFF -DPE_BUILD_FUZZERS=ON \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" >/dev/null
fi
cmake --build "$build" --parallel --target "${targets[@]/#/fuzz_}"

mkdir -p "$build/crashes"
# One target fuzzes on one core: PE_FUZZ_JOBS (default: the cores) run at a time, each for the
# full SECONDS.
jobs=${PE_FUZZ_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
rm -f "$build"/fuzz_*.log.result
fuzz_one() {
  local target=$1
  local work="$build/corpus/$target" log="$build/fuzz_$target.log"
  mkdir -p "$work"
  # Qt's leak of its global statics at exit is no finding of ours. close_fd_mask=3 silences the
  # code's own stdout and stderr (pescope's one-line messages, for every input); libFuzzer and the
  # sanitizers keep writing their reports to the log. stdin is /dev/null, so that an input
  # naming /dev/stdin reads nothing rather than waiting.
  if ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$here/../sanitizers/lsan.supp" \
     UBSAN_OPTIONS="suppressions=$here/../sanitizers/ubsan.supp:halt_on_error=1:print_stacktrace=1" \
     "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=65536 \
       -rss_limit_mb=2048 -timeout=10 -close_fd_mask=3 -artifact_prefix="$build/crashes/$target-" \
       "$work" "$here/corpus/$target" </dev/null >"$log" 2>&1; then
    echo "fuzz_$target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1), nothing found" \
      >"$log.result"
  else
    { echo "fuzz_$target: FOUND A PROBLEM, see $log and $build/crashes/$target-*"
      grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$log" || true; } >"$log.result"
    return 1
  fi
}
status=0
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
for target in "${targets[@]}"; do
  cat "$build/fuzz_$target.log.result" 2>/dev/null || echo "fuzz_$target: no result (see $build/fuzz_$target.log)"
done
exit $status
