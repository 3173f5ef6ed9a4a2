#!/usr/bin/env bash
# Seeds for the fuzzers from fixtures built by the differential tests (build/tests/fixtures):
# elf: every .so; pipeline: module+provider halves padded to equal size; zip: small wheels;
# index: an index of each fixture directory (needs the abicheck tool).
#   tests/fuzz/make_seeds.sh FIXTURES_DIR OUT_DIR [ABICHECK]
set -euo pipefail
fixtures=$1 out=$2
abicheck=${3:-build/tools/abicheck/abicheck}
mkdir -p "$out/elf" "$out/pipeline" "$out/zip" "$out/index"
find "$fixtures" -name '*.so*' -type f -size -200k | while read -r f; do
  cp "$f" "$out/elf/$(echo "$f" | md5sum | cut -c1-16)"
done
for dir in "$fixtures"/*/; do
  mod=$dir/mod.so; [ -f "$mod" ] || continue
  for lib in "$dir"/lib*.so*; do
    [ -f "$lib" ] || continue
    python3 - "$mod" "$lib" "$out/pipeline/$(echo "$lib" | md5sum | cut -c1-16)" <<'PY'
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
n = max(len(a), len(b))
open(sys.argv[3], "wb").write(a.ljust(n, b"\0") + b.ljust(n, b"\0"))
PY
  done
  python3 - "$dir" "$out/zip/$(echo "$dir" | md5sum | cut -c1-16).whl" <<'PY'
import os, sys, zipfile
d, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if os.path.isfile(p) and ".so" in n:
            z.write(p, "pkg/" + n)
PY
done
for dir in "$fixtures"/*/; do
  ls "$dir"/lib*.so* > /dev/null 2>&1 || continue
  "$abicheck" index "$dir" -o "$out/index/$(basename "$dir").abix" -q || true
done
echo "seeds: $(ls "$out/elf" | wc -l) elf, $(ls "$out/pipeline" | wc -l) pipeline, $(ls "$out/zip" | wc -l) zip, $(ls "$out/index" | wc -l) index"
