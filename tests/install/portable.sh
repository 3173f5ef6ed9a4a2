#!/usr/bin/env bash
# The portable wheel (docs/portable.md), as a user gets it: built by scripts/portable/wheel.sh,
# classified by auditwheel, checked by abicheck itself for what it needs of the host, installed
# with pip into a fresh virtualenv, then the headline demo through the program on PATH and
# through the Python API, and the GitHub action installing the wheel.
#   portable.sh WORK_DIR   (exit 77: PyPI or Debian's archive unreachable)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "$1")
rm -rf "$work" && mkdir -p "$work"
cache=${ABICHECK_PORTABLE_CACHE:-$HOME/.cache/abicheck-portable}
fail() { echo "FAIL: $*"; exit 1; }

set +e
wheel=$("$root/scripts/portable/wheel.sh" "$work/dist" 2> "$work/wheel.log")
rc=$?
set -e
if [ "$rc" -eq 77 ]; then tail -1 "$work/wheel.log"; echo "SKIP: the portable toolchain cannot be fetched"; exit 77; fi
[ "$rc" -eq 0 ] || { tail -30 "$work/wheel.log"; fail "wheel.sh exit $rc"; }
size=$(stat -c %s "$wheel")
echo "wheel: $(basename "$wheel"), $((size / 1024)) KiB"
[ "$size" -le $((15 * 1024 * 1024)) ] || fail "the wheel is over 15 MB"

# auditwheel's own verdict: a manylinux tag no newer than 2_28.
"$cache/tools/bin/auditwheel" show "$wheel" > "$work/show.txt"
tag=$(grep -o 'manylinux_2_[0-9]*_x86_64' "$work/show.txt" | head -1)
echo "auditwheel show: $tag"
[ -n "$tag" ] && [ "$(echo "$tag" | cut -d_ -f3)" -le 28 ] || { cat "$work/show.txt"; fail "not manylinux_2_28"; }

# abicheck on itself: every version the program and the library need from the host is GLIBC_2.28
# or older, none from libstdc++ or libgcc, and loaded against the host they need only glibc.
mkdir -p "$work/unpacked" && (cd "$work/unpacked" && python3 -m zipfile -e "$wheel" .)
bin=$(ls "$work"/unpacked/*.data/scripts/abicheck)
chmod +x "$bin"  # zipfile keeps no modes
lib=$work/unpacked/abicheck_loader/libabicheck.so.1
for f in "$bin" "$lib"; do
  "$bin" symbols -u "$f" > "$work/needs.txt"
  [ -s "$work/needs.txt" ] || fail "$f: abicheck symbols -u printed nothing"
  python3 - "$f" "$work/needs.txt" <<'PY'
import re, sys
bad = []
for line in open(sys.argv[2]):
    m = re.search(r"@([A-Z_]+)_([0-9.]+)\s*$", line)
    if not m: continue
    family, version = m.group(1), tuple(int(x) for x in m.group(2).split("."))
    if family != "GLIBC" or version > (2, 28): bad.append(line.split()[-1])
if bad: sys.exit(f"FAIL: {sys.argv[1]} needs {', '.join(sorted(set(bad)))}")
PY
done
# The library loaded against this host (abicheck's loader model), the program's DT_NEEDED (an
# executable cannot be dlopen'ed): glibc's libraries only.
"$bin" check "$lib" --host-only --format json > "$work/self.json" || fail "$lib does not load here"
readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' > "$work/bin-needed.txt"
for f in "$lib" "$bin"; do
  python3 - "$f" "$work/self.json" "$work/bin-needed.txt" <<'PY'
import json, sys
if sys.argv[1].endswith(".so.1"):
    libs = [l["name"] for l in json.load(open(sys.argv[2]))["libraries"]]
else:
    libs = open(sys.argv[3]).read().split()
glibc = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2"}
other = [n for n in libs if n not in glibc and n.rsplit("/", 1)[-1] != sys.argv[1].rsplit("/", 1)[-1]]
if other: sys.exit(f"FAIL: {sys.argv[1]} loads {other} besides glibc")
print(f"{sys.argv[1].rsplit('/', 1)[-1]}: needs only glibc ({', '.join(sorted(set(libs) & glibc))})")
PY
done

# pip install into a fresh virtualenv; the program on PATH; the demo.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index --disable-pip-version-check "$wheel"
fx=$work/fixture
"$root/tests/support/headline_fixture.sh" "$fx"
cd "$fx"
set +e
PATH=$work/venv/bin:/usr/bin:/bin abicheck common_ops.abi3.so libc10_cuda.so > "$work/new.txt"
rc_new=$?
PATH=$work/venv/bin:/usr/bin:/bin abicheck common_ops.abi3.so old/libc10_cuda.so > /dev/null
rc_old=$?
set -e
[ "$rc_new" -eq 1 ] && [ "$rc_old" -eq 0 ] || fail "installed abicheck exit codes $rc_new $rc_old (want 1 0)"
grep -q "parameter 4: int → unsigned int" "$work/new.txt" || { cat "$work/new.txt"; fail "no diagnosis"; }
echo "installed abicheck: the demo fails (1) against the new build, loads (0) against the old"

# The Python API, from a three-line script, in the same virtualenv.
cat > "$work/three_lines.py" <<'PY'
import abicheck_loader as abicheck
r = abicheck.check("common_ops.abi3.so", against="new")
print(r.verdict, r.exit_code, r.problems[0].demangled if r.problems else "-")
PY
out=$("$work/venv/bin/python" "$work/three_lines.py")
echo "python: $out"
[ "$out" = "fails 1 c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)" ] ||
  fail "the Python API answered '$out'"
"$work/venv/bin/python" "$root/tests/install/python_api.py" "$fx"
# The GitHub action installing this wheel with pip, as a job would.
"$root/tests/install/action_test.sh" "$work/action" "$wheel"
