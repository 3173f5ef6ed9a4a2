#!/usr/bin/env bash
# Device code read from wheels (issue 37 item 9): `gpu WHEEL --gpu ARCH` and `check WHEEL
# --against BUILD --gpu ARCH` by each ABICHECK given, wall time and peak memory (/usr/bin/time),
# the median of RUNS runs. Members past 64 MiB keep their loader tables and have their .nv_fatbin
# walked while they inflate a second time; before, they were kept whole.
#   bench/gpu-wheel.sh ABICHECK... -- WHEEL [BUILD]     (RUNS=3; ARCH=sm_120)
set -euo pipefail
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bins+=("$(realpath "$1")"); shift; done
shift
wheel=$(realpath "$1") build=${2:+$(realpath "$2")}
runs=${RUNS:-3} arch=${ARCH:-sm_120}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
median() {  # command... -> "wall_s peak_MB"
  for r in $(seq "$runs"); do /usr/bin/time -q -f "%e %M" -o "$work/t.$r" "$@" > /dev/null 2>&1 || true; done
  cat "$work"/t.* | sort -n | awk -v r="$runs" '{w[NR]=$1; m[NR]=$2} END {i=int((r+1)/2); printf "%6.2f s %7.1f MB", w[i], m[i]/1024}'
  rm -f "$work"/t.*
}
echo "| abicheck | gpu $(basename "$wheel") --gpu $arch |${build:+ check --against $(basename "$build") --gpu $arch |}"
echo "|---|---|${build:+---|}"
for b in "${bins[@]}"; do
  row="| $b | $(median "$b" gpu "$wheel" --gpu "$arch") |"
  [ -n "$build" ] && row="$row $(median "$b" check "$wheel" --against "$build" --gpu "$arch") |"
  echo "$row"
done
