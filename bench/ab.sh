#!/usr/bin/env bash
# Two abicheck binaries side by side on the millisecond rows of bench/compare.sh: whether a change
# made a row slower. The VMs' speed drifts between runs of bench/compare.sh by more than most
# changes move a row, so the two binaries run alternately in one hyperfine call per row.
#   bench/ab.sh OLD_ABICHECK [CORPUS_DIR]   (the new binary is this tree's Release build)
# Build the old one from a worktree, e.g.
#   git worktree add /tmp/old REV && cmake -S /tmp/old -B /tmp/old-build -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release -DABICHECK_BUILD_TESTS=OFF && cmake --build /tmp/old-build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(realpath "$1")
runs=${ABICHECK_BENCH_RUNS:-40}
fast_runs=${ABICHECK_BENCH_FAST_RUNS:-300}
# shellcheck source=bench/setup.sh
. "$root/bench/setup.sh"
bench_setup "${2:-$HOME/.cache/abicheck-corpus/debian}" hyperfine
"$A" index "$whl" -o "$work/cuda.abix" -q

pair() {  # runs, what, arguments... -> one table row: old and new medians
  local n=$1 what=$2
  shift 2
  hyperfine --style none --warmup 5 --runs "$n" -i -N --export-json "$work/h.json" \
    "$old $*" "$A $*" > /dev/null 2>&1
  python3 - "$what" "$work/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["results"]
o, n = r[0], r[1]
print(f"| {sys.argv[1]} | {o['median']*1000:.2f} ms (±{o['stddev']*1000:.2f}) | "
      f"{n['median']*1000:.2f} ms (±{n['stddev']*1000:.2f}) | {n['median']/o['median']:.3f} |")
PY
}

echo "## $old (old) against this tree's build (new), $(date -u +%F), $(git -C "$root" rev-parse --short HEAD)"
echo
echo "| row | old | new | new / old |"
echo "|---|---|---|---|"
pair "$runs" "symbols, libtorch_cuda.so" symbols "$big"
pair "$runs" "symbols -C, libtorch_cuda.so" symbols -C "$big"
pair "$fast_runs" "torchvision _C.so against the CUDA build directory" "$tv" "$lib" -q
pair "$fast_runs" "the same against the build's index" "$tv" "$work/cuda.abix" -q
