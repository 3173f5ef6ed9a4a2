#!/usr/bin/env bash
# The aarch64 wheel (GH200/GB200 servers; docs/portable.md), cross-built here, run under
# qemu-user: its abicheck prints --version and checks the headline demo's modules, compiled for
# aarch64 by the same Zig compiler, as the x86_64 one does (exit 1 against the newer build, 0
# against the old), and needs no symbol version above GLIBC_2.28.
#   portable_aarch64.sh WORK_DIR   (exit 77: qemu-user or the aarch64 glibc is not installed, or
#   the toolchain cannot be fetched)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "$1")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
sysroot=/usr/aarch64-linux-gnu  # Debian's libc6-arm64-cross
for need in qemu-aarch64-static aarch64-linux-gnu-as; do
  command -v "$need" > /dev/null || { echo "SKIP: no $need (scripts/setup-deps.sh installs it)"; exit 77; }
done
[ -e "$sysroot/lib/ld-linux-aarch64.so.1" ] || { echo "SKIP: no aarch64 glibc in $sysroot"; exit 77; }

set +e
wheel=$("$root/scripts/portable/wheel.sh" "$work/dist" aarch64 2> "$work/wheel.log")
rc=$?
set -e
if [ "$rc" -eq 77 ]; then tail -1 "$work/wheel.log"; echo "SKIP: the toolchain cannot be fetched"; exit 77; fi
[ "$rc" -eq 0 ] || { tail -30 "$work/wheel.log"; fail "wheel.sh aarch64 exit $rc"; }
echo "wheel: $(basename "$wheel"), $(($(stat -c %s "$wheel") / 1024)) KiB"
case "$wheel" in *manylinux_2_2[0-8]_aarch64*) ;; *) fail "not a manylinux_2_28 aarch64 wheel" ;; esac
mkdir -p "$work/unpacked" && (cd "$work/unpacked" && python3 -m zipfile -e "$wheel" .)
bin=$(ls "$work"/unpacked/*.data/scripts/abicheck)
chmod +x "$bin"
file -b "$bin" | grep -q "ARM aarch64" || fail "$bin: $(file -b "$bin")"
run() { qemu-aarch64-static -L "$sysroot" "$bin" "$@"; }

version=$(run --version)
echo "under qemu: $version"
[ "$version" = "abicheck $(sed -n 's/^project(abicheck VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")" ] ||
  fail "--version printed '$version'"
# What it needs of the host, read by itself: GLIBC_2.28 at most, nothing from libstdc++.
run symbols -u "$bin" > "$work/needs.txt"
bad=$(grep -o '@[A-Z_]*_[0-9.]*$' "$work/needs.txt" | sort -u | python3 -c '
import sys
for v in sys.stdin.read().split():
    fam, _, ver = v[1:].rpartition("_")
    if fam != "GLIBC" or tuple(map(int, ver.split("."))) > (2, 28): print(v)')
[ -z "$bad" ] || fail "the aarch64 program needs $bad"

fx=$work/fixture
mkdir -p "$fx"
prefix=$("$root/scripts/portable/deps.sh" aarch64)
CC="$prefix/bin/zcc" CXX="$prefix/bin/zc++" "$root/tests/support/headline_fixture.sh" "$fx"
file -b "$fx/common_ops.abi3.so" | grep -q "ARM aarch64" || fail "the fixture is not aarch64"
cd "$fx"
set +e
run common_ops.abi3.so libc10_cuda.so > "$work/new.txt" 2>&1
rc_new=$?
run common_ops.abi3.so old/libc10_cuda.so > "$work/old.txt" 2>&1
rc_old=$?
set -e
[ "$rc_new" -eq 1 ] && [ "$rc_old" -eq 0 ] || { cat "$work/new.txt" "$work/old.txt"; fail "exit codes $rc_new $rc_old (want 1 0)"; }
grep -q "parameter 4: int → unsigned int" "$work/new.txt" || { cat "$work/new.txt"; fail "no diagnosis"; }
echo "under qemu: the aarch64 demo fails (1) against the new build with the diagnosis, loads (0) against the old"
