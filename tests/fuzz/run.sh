#!/usr/bin/env bash
# Runs the libFuzzer targets over the parsers of user input, under AddressSanitizer and
# UndefinedBehaviorSanitizer (Debian's clang; package clang). Two modes:
#
#   tests/fuzz/run.sh check [TARGET...]
#       CI's (bash bootstrap.sh sanitize). Each target replays its committed inputs -- the seed
#       corpus (tests/fuzz/corpus/<target>, written by make_seeds.py) and every input that ever
#       found a problem (tests/fuzz/findings/<target>) -- then mutates them for a fixed number of
#       runs (the table below) from a fixed seed (PE_FUZZ_SEED, default 1), starting from an
#       empty working folder each time. The result depends only on the code: the same commit
#       passes or fails the same way on every machine and every run.
#   tests/fuzz/run.sh explore SECONDS [TARGET...]
#       Random fuzzing for as long as you like (bash bootstrap.sh fuzz MINUTES runs it): a random
#       seed each time, new inputs kept in <build>/corpus/<target> across runs. Run it before
#       resolving any change to a parser; whatever it finds gets fixed, and its reproducer joins
#       tests/fuzz/findings/<target>/ so that `check` replays it from then on.
#
# Both build pe_core and the targets in their own folder (build-fuzz/) unless PE_FUZZ_BUILD_DIR
# names a build with the same flags (bootstrap.sh's build-sanitize/), and run as many targets at
# a time as there are cores (PE_FUZZ_JOBS). A crash, leak, timeout or sanitizer report stops that
# target, leaves its reproducer in <build>/crashes/ and makes the script exit 1.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${PE_FUZZ_BUILD_DIR:-$root/build-fuzz}
mode=${1:-}
shift || true
case "$mode" in
  check) ;;
  explore)
    seconds=${1:-}
    shift || true
    [[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 explore SECONDS [TARGET...]" >&2; exit 2; }
    ;;
  *)
    echo "usage: $0 check [TARGET...] | explore SECONDS [TARGET...]" >&2
    exit 2
    ;;
esac
targets=("$@")
all_targets=(safetensors gguf npy hfconfig textvectorizer tokenizer session lesson cli)
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# `check`'s executions per target, replayed inputs included: about 10 to 20 s each on one core
# of this project's 2-core machine (docs/engineering.md, "Fuzzing"). The command line builds a
# command's whole option set for every input, hence fewer.
check_runs() {
  # The tokenizer's inputs grow to 27 KB of tokenizer.json, about 30 executions a second under
  # ASan: 30,000 of them took 17 min on one build, past what the sanitize stage's share leaves.
  case "$1" in
    cli) echo 4000 ;;
    tokenizer) echo 10000 ;;
    *) echo 30000 ;;
  esac
}

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
jobs=${PE_FUZZ_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
seed=${PE_FUZZ_SEED:-1}
rm -f "$build"/fuzz_*.log.result

fuzz_one() {
  local target=$1 work search fixed=()
  local log="$build/fuzz_$target.log"
  if [ "$mode" = check ]; then
    # A fresh working folder: what an earlier run found must not steer this one.
    work="$build/fuzz-check/$target"
    rm -rf "$work"
    search=(-seed="$seed" -runs="$(check_runs "$target")")
    # Addresses steer the parsers' coverage (ASan's allocator, pointer-keyed hashing): with ASLR
    # on, the same seed took another path each run (fuzz_tokenizer: 11 s one run, 17 min
    # another). Without it the search repeats exactly; where the kernel refuses, as it is.
    setarch -R true 2>/dev/null && fixed=(setarch -R)
  else
    work="$build/corpus/$target"
    search=(-max_total_time="$seconds")
  fi
  mkdir -p "$work"
  local inputs=("$work" "$here/corpus/$target")
  [ -d "$here/findings/$target" ] && inputs+=("$here/findings/$target")
  # Qt's leak of its global statics at exit is no finding of ours. close_fd_mask=3 silences the
  # code's own stdout and stderr (pescope's one-line messages, for every input); libFuzzer and the
  # sanitizers keep writing their reports to the log. stdin is /dev/null, so that an input
  # naming /dev/stdin reads nothing rather than waiting. The time limit per input is generous
  # (a slow machine must not turn a slow input into a finding); a real hang still trips it.
  if ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$here/../sanitizers/lsan.supp" \
     UBSAN_OPTIONS="suppressions=$here/../sanitizers/ubsan.supp:halt_on_error=1:print_stacktrace=1" \
     "${fixed[@]}" "$build/tests/fuzz/fuzz_$target" "${search[@]}" -max_len=65536 \
       -rss_limit_mb=2048 -timeout=60 -close_fd_mask=3 -artifact_prefix="$build/crashes/$target-" \
       "${inputs[@]}" </dev/null >"$log" 2>&1; then
    echo "fuzz_$target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1)" \
      "($(grep -o 'Seed: [0-9]*' "$log" | head -1)), nothing found" >"$log.result"
  else
    { echo "fuzz_$target: FOUND A PROBLEM, see $log and $build/crashes/$target-*"
      grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$log" || true
      echo "  fix it, then add the reproducer to tests/fuzz/findings/$target/"; } >"$log.result"
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
