#!/usr/bin/env bash
# Installs abicheck from BUILD_DIR into a temporary prefix, builds tests/install and a pkg-config
# consumer against it, and runs both on the headline fixture (expects exit 1, then exit 0).
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -S "$root/tests/install" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/consumer" > /dev/null
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" c++ -std=c++20 "$root/examples/check_module.cc" -o "$work/pc_consumer" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs abicheck)
fx="$work/fixture"
"$root/tests/support/headline_fixture.sh" "$fx"
for exe in "$work/consumer/consumer" "$work/pc_consumer"; do
  set +e
  LD_LIBRARY_PATH="$work/prefix/lib" "$exe" "$fx/common_ops.abi3.so" "$fx/libc10_cuda.so" > "$work/out.txt"
  rc_new=$?
  LD_LIBRARY_PATH="$work/prefix/lib" "$exe" "$fx/common_ops.abi3.so" "$fx/old/libc10_cuda.so" > /dev/null
  rc_old=$?
  set -e
  grep -q "parameter 4: int → unsigned int" "$work/out.txt" || { cat "$work/out.txt"; echo "FAIL: no diagnosis"; exit 1; }
  [ "$rc_new" -eq 1 ] && [ "$rc_old" -eq 0 ] || { echo "FAIL: $exe exit codes $rc_new $rc_old"; exit 1; }
done
# The C API: a C program and a Python ctypes script, built and run against the installed prefix
# alone (opaque handles, the report as JSON), each answering as the C++ consumers do.
cc -std=c11 -Wall -Werror -I"$work/prefix/include" "$root/examples/check_module.c" -o "$work/c_consumer" \
  -L"$work/prefix/lib" -labicheck
set +e
LD_LIBRARY_PATH="$work/prefix/lib" "$work/c_consumer" "$fx/common_ops.abi3.so" "$fx/libc10_cuda.so" > "$work/c.json"
rc_new=$?
LD_LIBRARY_PATH="$work/prefix/lib" "$work/c_consumer" "$fx/common_ops.abi3.so" "$fx/old" > /dev/null
rc_old=$?
py_new=$(python3 "$root/tests/install/ctypes_check.py" "$work/prefix/lib/libabicheck.so" "$fx/common_ops.abi3.so" "$fx/libc10_cuda.so")
py_rc_new=$?
python3 "$root/tests/install/ctypes_check.py" "$work/prefix/lib/libabicheck.so" "$fx/common_ops.abi3.so" "$fx/old" > /dev/null
py_rc_old=$?
set -e
grep -q '"int → unsigned int"\|parameter 4: int → unsigned int' "$work/c.json" || { cat "$work/c.json"; echo "FAIL: C API: no diagnosis"; exit 1; }
[ "$rc_new" -eq 1 ] && [ "$rc_old" -eq 0 ] || { echo "FAIL: C consumer exit codes $rc_new $rc_old"; exit 1; }
case "$py_new" in
  "1 False c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)") ;;
  *) echo "FAIL: ctypes: $py_new"; exit 1 ;;
esac
[ "$py_rc_new" -eq 1 ] && [ "$py_rc_old" -eq 0 ] || { echo "FAIL: ctypes exit codes $py_rc_new $py_rc_old"; exit 1; }
# The installed tool and man page are there; the shared library exports only the API.
"$work/prefix/bin/abicheck" --version > /dev/null
[ -f "$work/prefix/share/man/man1/abicheck.1" ]
# What --help points to is installed (issue 36 item 12): every docs/... file it names.
for f in $( { for c in check env gpu symbols diff index cache; do "$work/prefix/bin/abicheck" $c --help; done; } | grep -o 'docs/[a-z/.-]*\.\(md\|json\)' | sort -u); do
  [ -f "$work/prefix/share/doc/abicheck/$f" ] || { echo "FAIL: --help names $f, not installed"; exit 1; }
done
syms=$("$work/prefix/bin/abicheck" symbols --defined-only -C "$work/prefix/lib/libabicheck.so" | grep -v ' A ')
bad=$(echo "$syms" | grep -v ' abicheck::.*@@ABICHECK_CXX_[0-9]*\.[0-9]*$' | grep -vc ' abicheck_[a-z_]*@@ABICHECK_C_[0-9]*$' || true)
echo "$syms" | grep -q ' abicheck_check@@ABICHECK_C_1$' || { echo "FAIL: no versioned C API"; exit 1; }
echo "$syms" | grep -q ' abicheck_run@@ABICHECK_C_2$' || { echo "FAIL: abicheck_run is not under ABICHECK_C_2"; exit 1; }
[ "$bad" -eq 0 ] || { echo "FAIL: libabicheck.so exports $bad non-API symbols"; exit 1; }
# env and a matrix from C (examples/env_matrix.c): the environment of tests/cli/schema_test.sh.
cc -std=c11 -Wall -Werror -I"$work/prefix/include" "$root/examples/env_matrix.c" -o "$work/env_matrix" \
  -L"$work/prefix/lib" -labicheck
site=$work/venv/lib/python3.12/site-packages
"$root/tests/support/headline_venv.sh" "$work/venv" "$fx"
set +e
LD_LIBRARY_PATH="$work/prefix/lib" "$work/env_matrix" env "$work/venv" "$site/torch" "$fx/old" > "$work/env.json"
rc_env=$?
LD_LIBRARY_PATH="$work/prefix/lib" "$work/env_matrix" matrix "$fx/common_ops.abi3.so" "$fx/libc10_cuda.so" "$fx/old" > "$work/matrix.json"
rc_matrix=$?
set -e
python3 - "$work/env.json" "$work/matrix.json" <<'PY' || { echo "FAIL: env_matrix.c: exit $rc_env $rc_matrix"; exit 1; }
import json, sys
env, matrix = (json.load(open(p)) for p in sys.argv[1:3])
# sgl-kernel fails with the installed torch, loads with the old build, which is recommended.
cells = [c["report"]["verdict"] for c in env["matrix"]["cells"]]
assert cells == ["fails", "loads"], cells
assert env["matrix"]["recommendation"]["build"].endswith("old"), env["matrix"]["recommendation"]
assert [c["report"]["verdict"] for c in matrix["cells"]] == ["fails", "loads"], matrix["cells"]
PY
[ "$rc_env" -eq 1 ] && [ "$rc_matrix" -eq 1 ] || { echo "FAIL: env_matrix exit codes $rc_env $rc_matrix"; exit 1; }
# Every command through the installed C API (abicheck_run, abicheck_run_json): the program's bytes.
python3 "$root/tests/install/c_api_same.py" "$work/prefix/lib/libabicheck.so" "$work/prefix/bin/abicheck" "$fx"
echo "install consumer: ok"
