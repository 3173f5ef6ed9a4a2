#!/usr/bin/env bash
# Scale of one wheel: `abicheck check WHEEL --against m.so` on synthetic wheels of N distinct
# tiny shared objects (issue 17's "quadratic archives"). Every member is a module, checked with
# its N-1 siblings loaded first (docs/loader-model.md E7). Prints wall time and peak memory
# (/usr/bin/time) per N, the median of RUNS runs.
#   bench/many-members.sh ABICHECK [N...]     (default N: 500 1000 2000; RUNS=3)
set -euo pipefail
abicheck=$(realpath "$1"); shift
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(500 1000 2000)
runs=${RUNS:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
cc -shared -fPIC -x c - -o m.so <<< 'int g(void) { return 0; }'
echo "members  wall_s  peak_MB   (median of $runs)"
for n in "${sizes[@]}"; do
  python3 - "$n" <<'PY'
import sys, zipfile
n = int(sys.argv[1]); data = open("m.so", "rb").read()
with zipfile.ZipFile(f"w{n}.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for i in range(n):
        b = bytearray(data); b[-4:] = i.to_bytes(4, "little")  # distinct members
        z.writestr(f"pkg/lib{i}.so", bytes(b))
PY
  for r in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o t.$r "$abicheck" check "w$n.whl" --against m.so --no-diagnose > /dev/null || true
  done
  cat t.* | sort -n | awk -v n="$n" -v r="$runs" '{w[NR]=$1; m[NR]=$2} END {i=int((r+1)/2); printf "%7d  %6.2f  %7.1f\n", n, w[i], m[i]/1024}'
  rm -f t.*
done
