#!/usr/bin/env bash
# Whole-process time of `pescope export --view heatmap --positions 2048 --dims 512 --out fig.png
# --width 1500 --height 900` against the same figure from matplotlib (matshow + colorbar +
# savefig), side by side, median of RUNS runs each, and the ratio.
#   bench/bench_export.sh [PATH/TO/pescope] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pescope=${1:-$here/../build/app/pescope}
runs=${2:-9}
if [ ! -x "$pescope" ]; then
  echo "bench_export.sh: no pescope at $pescope (build first, or pass its path)" >&2
  exit 2
fi
exec /usr/bin/python3 "$here/bench_export.py" "$pescope" "$runs"
