#!/usr/bin/env bash
# What a library's symbol count costs `abicheck diff` (issue 37 item 11; docs/limits.md): two
# generated libraries of N one-instruction C++ functions, diffed when nothing changed and when no
# name is in common (2N changes). Prints wall time and peak memory (/usr/bin/time) per N.
#   bench/diff-scale.sh ABICHECK [N...]     (default N: 262144 1048576)
set -euo pipefail
abicheck=$(realpath "$1"); shift
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(262144 1048576)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
echo "| N | nothing changed | no name in common |"
echo "|---|---|---|"
for n in "${sizes[@]}"; do
  for tag in a b; do
    python3 - "$n" "$tag" > "$tag.s" <<'PY'
import sys
n, tag = int(sys.argv[1]), sys.argv[2]
print(".text")
for i in range(n):
    print(f".globl _ZN3big{tag}{i}Ev\n_ZN3big{tag}{i}Ev: ret")
PY
    cc -shared -o "lib$tag.so" -Wl,-soname,libbig.so -Wl,-z,noexecstack "$tag.s"
  done
  cp liba.so liba2.so
  same=$( { /usr/bin/time -f "%e s, %M KB" "$abicheck" diff liba.so liba2.so -q > /dev/null; } 2>&1 | tail -1)
  diff=$( { /usr/bin/time -f "%e s, %M KB" "$abicheck" diff liba.so libb.so -q > /dev/null || true; } 2>&1 | tail -1)
  echo "| $n | $same | $diff |"
done
