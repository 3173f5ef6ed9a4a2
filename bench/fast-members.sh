#!/usr/bin/env bash
# `--fast` on the PyPI corpus members whose loader tables lie far from where a stream would reach
# them (lib/io/zip_archive.cc tail_rules, lib/io/deflate_tail.h): two abicheck binaries side by
# side, each member checked on its own (`check WHEEL!MEMBER --host-only --fast`), hyperfine's
# median and the peak RSS of one run (GNU time), and whether the two JSON reports are the same.
#   bench/fast-members.sh OLD_ABICHECK [PYPI_CACHE]   (the new binary is this tree's Release build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(realpath "$1")
wheels=${2:-${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}}/wheels
cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABICHECK_BUILD_TESTS=OFF > /dev/null
cmake --build "$root/build-bench" --target abicheck > /dev/null
new=$root/build-bench/tools/abicheck/abicheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| member | old | new | new / old | peak RSS old -> new | same JSON |"
echo "|---|---|---|---|---|---|"
while read -r pattern member; do
  whl=$(ls "$wheels"/$pattern 2>/dev/null | head -1)
  [ -n "$whl" ] || { echo "| $member | (no $pattern in $wheels) | | | | |"; continue; }
  args=(check "$whl!$member" --host-only --fast)
  hyperfine --style none --warmup 1 --runs "${ABICHECK_BENCH_RUNS:-6}" -i -N \
    --export-json "$work/h.json" "$old ${args[*]} -q" "$new ${args[*]} -q" > /dev/null 2>&1
  rss() { /usr/bin/time -f %M "$1" "${args[@]}" -q 2>&1 > /dev/null | tail -1; }
  "$old" "${args[@]}" --format json > "$work/old.json" 2>/dev/null || true
  "$new" "${args[@]}" --format json > "$work/new.json" 2>/dev/null || true
  same=$(cmp -s "$work/old.json" "$work/new.json" && echo yes || echo NO)
  python3 - "${member##*/}" "$work/h.json" "$(rss "$old") -> $(rss "$new") KB" "$same" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["results"]
o, n = r[0]["median"], r[1]["median"]
print(f"| {sys.argv[1]} | {o:.2f} s | {n:.2f} s | {n / o:.2f} | {sys.argv[3]} | {sys.argv[4]} |")
PY
done <<'EOF'
nvidia_cusparselt_cu12-0.7.1-*.whl nvidia/cusparselt/lib/libcusparseLt.so.0
nvidia_curand_cu12-10.3.9.90-*.whl nvidia/curand/lib/libcurand.so.10
nvidia_cublas-13.4.1.3-*.whl nvidia/cu13/lib/libcublasLt.so.13
triton-3.9.0-*.whl triton/_C/libtriton.so
torch-2.15.0-*.whl torch/lib/libtorch_cuda.so
EOF
