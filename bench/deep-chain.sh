#!/usr/bin/env bash
# Scale of a dependency chain (issue 37 item 10): a module needing lib0.so, which needs lib1.so,
# ... lib(N-1).so, all in one directory, checked three ways — the directory as providers, as an
# --against build, and as a search path (-L) — by each ABICHECK given. Prints wall time and peak
# memory (/usr/bin/time), the median of RUNS runs; the chain is built once per N with cc.
#   bench/deep-chain.sh ABICHECK... [-- N...]     (default N: 750 1500; RUNS=3)
set -euo pipefail
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bins+=("$(realpath "$1")"); shift; done
[ $# -gt 0 ] && shift
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(750 1500)
runs=${RUNS:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
cc -c -fPIC -x c - -o f.o <<< 'int f(void) { return 0; }'
median() {  # command... -> "wall_s peak_MB"
  for r in $(seq "$runs"); do /usr/bin/time -f "%e %M" -o t.$r "$@" > /dev/null 2>&1 || true; done
  cat t.* | sort -n | awk -v r="$runs" '{w[NR]=$1; m[NR]=$2} END {i=int((r+1)/2); printf "%6.2f s %7.1f MB", w[i], m[i]/1024}'
  rm -f t.*
}
echo "| N | abicheck | DIR as providers | --against DIR | -L DIR |"
echo "|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  rm -rf d && mkdir d
  cc -shared -o "d/lib$((n - 1)).so" -Wl,-soname,"lib$((n - 1)).so" f.o
  for i in $(seq $((n - 2)) -1 0); do
    cc -shared -o "d/lib$i.so" -Wl,-soname,"lib$i.so" f.o -Wl,--no-as-needed -Ld -l:"lib$((i + 1)).so"
  done
  cc -shared -fPIC -x c - -o mod.so -Wl,--no-as-needed -Ld -l:lib0.so <<< 'int g(void) { return 0; }'
  for b in "${bins[@]}"; do
    echo "| $n | $b | $(median "$b" check mod.so d -q) | $(median "$b" check mod.so --against d -q) | $(median "$b" check mod.so -L d --host-only -q) |"
  done
done
