# Issue 27's checks on an NVIDIA machine: sourced by run.sh (../shared/device/run.sh, copied
# into build-gpu/ by device-check.sh) once a route is chosen; `run ROUTE TIMEOUT PROGRAM ARGS`,
# `note`, `section`, `elapsed`, $chosen, $OUT and $SUMMARY are run.sh's. About a minute on an
# H200; each step is skipped past EXTRA_BUDGET seconds of the run, so that run.sh's own steps
# (bench_backends, both GPU suites, the 4 GiB run) keep their time on a slow driver.
# shellcheck shell=bash disable=SC2154 # chosen, OUT, SUMMARY: run.sh's
EXTRA_BUDGET=${EXTRA_BUDGET:-200}
extra_time_left() {
  [ "$(elapsed)" -lt "$EXTRA_BUDGET" ] && return 0
  note "extra.sh: past its ${EXTRA_BUDGET} s, skipped: $*"
  return 1
}

section "issue 27: what auto chooses and why (route $chosen)"
run "$chosen" 60 pescope info 2>&1 | tee "$OUT/info.txt"
note "auto: $(grep -m1 '^backend auto' "$OUT/info.txt")"

# The H200's failing case on fb2ffab (chunks of 3,000 bytes: 2 rows of 333 floats), through each
# read-back path, in a debug context. shader-buffer is the pre-fix pattern (glGetBufferSubData
# from the buffer the shader writes): if it shows wrong rows and the others none, that pattern
# was the cause. The driver's messages (buffer placement, errors) are printed at the end.
section "issue 27: read-back paths at the failing chunk size"
for path in shader-buffer plain persistent; do
  extra_time_left "bench_backends --readback $path at 3,000-byte chunks" || break
  run "$chosen" 60 bench_backends --runs 1 --positions 5000 --dims 333 --chunk-bytes 3000 \
    --readback "$path" --gl-debug --no-sampling 2>&1 | tee "$OUT/paths-$path.txt"
  note "3,000-byte chunks, $path: $(grep -m1 'GPU vs CPU' "$OUT/paths-$path.txt" || tail -1 "$OUT/paths-$path.txt")"
  note "  driver messages: $(grep -m1 "debug messages" "$OUT/paths-$path.txt")"
done

# The fallback path (no buffer storage) at full size, for the README's table.
section "issue 27: bench_backends --readback plain"
if extra_time_left "bench_backends --readback plain"; then
  run "$chosen" 90 bench_backends --runs 7 --readback plain 2>&1 | tee "$OUT/bench-plain.txt"
  grep -E '^materialise|^sample|bandwidth \(result|GPU speed|GPU vs CPU' "$OUT/bench-plain.txt" |
    sed 's/^/plain: /' >>"$SUMMARY"
fi

# `pescope data` whole processes, alternating: auto must be as fast as cpu (issue 27 item 3).
section "issue 27: pescope data 65,536 x 1,024 to /dev/null, whole process"
declare -A pe_times
for _ in 1 2 3 4 5; do
  extra_time_left "pescope data rounds" || break
  for backend in cpu auto gpu; do
    t0=$(date +%s%N)
    out=$(run "$chosen" 30 pescope data --positions 65536 --dims 1024 --backend "$backend" \
      --out /dev/null 2>&1)
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    echo "$out" | grep -vE '^\$ '
    if [ "$rc" -eq 0 ]; then pe_times[$backend]+="$ms "; else pe_times[$backend]+="failed:$rc "; fi
  done
done
for backend in cpu auto gpu; do
  # shellcheck disable=SC2086 # the times are meant to split
  note "pescope data --backend $backend: $(printf '%s\n' ${pe_times[$backend]:-} | sort -n | tr '\n' ' ')ms (sorted)"
done
