#!/usr/bin/env bash
# The glibc-hwcaps level the loader picks follows the CPU features glibc found usable in the
# process, GLIBC_TUNABLES included (docs/loader-model.md C8): with glibc.cpu.hwcaps=-AVX512F an
# x86-64-v4 machine searches from x86-64-v3 down. abicheck, run in the same environment, must pick
# the copy the real loader picks — with and without the tunable.
#   tests/cli/tunables_test.sh ABICHECK DLOPEN_PROBE WORKDIR     (exit 77: the CPU is not v4)
set -uo pipefail
A=$1 probe=$2 work=$3
/lib64/ld-linux-x86-64.so.2 --help 2>/dev/null | grep -q '^  x86-64-v4 (supported' ||
  { echo "skipped: this CPU is not x86-64-v4, so the tunable has no level to take away"; exit 77; }
rm -rf "$work" && mkdir -p "$work/d/glibc-hwcaps/x86-64-v4" "$work/d/glibc-hwcaps/x86-64-v3" &&
  cd "$work" || exit 1
lib() { cc -shared -fPIC -x c - -o "$1" <<< "$2" || exit 1; }
lib d/glibc-hwcaps/x86-64-v4/libfoo.so 'int other(void) { return 1; }'
lib d/glibc-hwcaps/x86-64-v3/libfoo.so 'int foo(void) { return 1; }'
lib d/libfoo.so 'int foo(void) { return 1; }'
cc -shared -fPIC -x c - -o mod.so -Ld -lfoo -Wl,-rpath,'$ORIGIN/d' \
  <<< 'int foo(void); int use(void) { return foo(); }' || exit 1
fail=0
for tunables in "" "glibc.cpu.hwcaps=-AVX512F"; do
  real=$(env GLIBC_TUNABLES="$tunables" "$probe" -- "$PWD/mod.so")
  real_rc=$?
  ours=$(env GLIBC_TUNABLES="$tunables" "$A" check "$PWD/mod.so" --host-only 2>&1)
  ours_rc=$?
  want=1; [ -n "$tunables" ] && want=0  # v4's copy lacks foo; v3's has it
  if [ "$real_rc" != "$want" ]; then
    echo "FAIL: the fixture no longer shows it (GLIBC_TUNABLES='$tunables'): dlopen says $real"
    fail=1
  elif [ "$ours_rc" != "$real_rc" ]; then
    echo "FAIL: GLIBC_TUNABLES='$tunables': dlopen exits $real_rc ($real), abicheck $ours_rc:"
    echo "$ours"
    fail=1
  else
    echo "ok: GLIBC_TUNABLES='$tunables': both exit $real_rc"
  fi
done
exit $fail
