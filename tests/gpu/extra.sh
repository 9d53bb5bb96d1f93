# Issue 27's checks on an NVIDIA machine: sourced by run.sh (../shared/device/run.sh, copied
# into build-gpu/ by device-check.sh) once a route is chosen; `run ROUTE TIMEOUT PROGRAM ARGS`,
# `note`, `section`, $chosen and $OUT are run.sh's. About 90 s on an H200.
# shellcheck shell=bash disable=SC2154 # chosen, OUT, SUMMARY: run.sh's

section "issue 27: what auto chooses and why (route $chosen)"
run "$chosen" 60 pescope info 2>&1 | tee "$OUT/info.txt"
note "auto: $(grep -m1 '^backend auto' "$OUT/info.txt")"

# The H200's failing case on fb2ffab (chunks of 3,000 bytes: 2 rows of 333 floats), through each
# read-back path, in a debug context. shader-buffer is the pre-fix pattern (glGetBufferSubData
# from the buffer the shader writes): if it shows wrong rows and the others none, that pattern
# was the cause. The driver's messages (buffer placement, errors) are printed at the end.
section "issue 27: read-back paths at the failing chunk size"
for path in shader-buffer plain persistent; do
  run "$chosen" 90 bench_backends --runs 1 --positions 5000 --dims 333 --chunk-bytes 3000 \
    --readback "$path" --gl-debug 2>&1 | tee "$OUT/paths-$path.txt"
  note "3,000-byte chunks, $path: $(grep -m1 'GPU vs CPU' "$OUT/paths-$path.txt")"
  note "  driver messages: $(grep -m1 "debug messages" "$OUT/paths-$path.txt")"
done

# The fallback path (no buffer storage) at full size, for the README's table.
section "issue 27: bench_backends --readback plain"
run "$chosen" 90 bench_backends --runs 7 --readback plain 2>&1 | tee "$OUT/bench-plain.txt"
grep -E '^materialise|bandwidth \(result|GPU speed|GPU vs CPU' "$OUT/bench-plain.txt" |
  sed 's/^/plain: /' >>"$SUMMARY"

# `pescope data` whole processes, alternating: auto must be as fast as cpu (issue 27 item 3).
section "issue 27: pescope data 65,536 x 1,024 to /dev/null, whole process"
declare -A pe_times
for _ in 1 2 3 4 5; do
  for backend in cpu auto gpu; do
    t0=$(date +%s%N)
    run "$chosen" 30 pescope data --positions 65536 --dims 1024 --backend "$backend" \
      --out /dev/null 2>&1 | grep -E 'written|error|failed' | head -2
    pe_times[$backend]+="$((($(date +%s%N) - t0) / 1000000)) "
  done
done
for backend in cpu auto gpu; do
  # shellcheck disable=SC2086 # the times are meant to split
  note "pescope data --backend $backend: $(printf '%s\n' ${pe_times[$backend]} | sort -n | tr '\n' ' ')ms (5 runs, sorted)"
done
