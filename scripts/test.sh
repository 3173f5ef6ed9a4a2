#!/usr/bin/env bash
# Builds abicheck twice — optimized, and with AddressSanitizer + UndefinedBehaviorSanitizer —
# with warnings as errors, and runs every test under ctest in both builds, clang-tidy over the
# sources, then the fuzzers. Installs its own dependencies first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-deps.sh
# The real-file corpora are cached under ~/.cache/abicheck-corpus and skip when the disk has no
# room for them: the free space, at the start and the end, tells which happened and why.
disk() { echo "== disk $1: $(df -h --output=avail "$HOME" | tail -1 | tr -d ' ') free for the corpus cache, $(df -h --output=avail . | tail -1 | tr -d ' ') for the builds"; }
disk start
trap 'disk end' EXIT
echo "== format"
scripts/check-format.sh
jobs=$(nproc)
run() {  # build-dir cmake-args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure -j "$jobs")
}
echo "== optimized build"
run build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABICHECK_WERROR=ON
echo "== clang-tidy (.clang-tidy: bugprone, performance, identifier naming) over lib/ and tools/"
scripts/tidy.sh build
echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run build-asan -DCMAKE_BUILD_TYPE=Debug -DABICHECK_SANITIZE=ON -DABICHECK_WERROR=ON
echo "== fuzzers (clang, libFuzzer + ASan/UBSan), ${ABICHECK_FUZZ_SECONDS:=60} s each from the committed corpus"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABICHECK_SANITIZE=ON \
  -DABICHECK_FUZZ=ON -DABICHECK_WERROR=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target elf_fuzzer pipeline_fuzzer zip_fuzzer index_fuzzer fatbin_fuzzer deflate_fuzzer
fuzz_failed=0
for t in elf pipeline zip index fatbin deflate; do
  work=$(mktemp -d)
  cp -r tests/fuzz/corpus/$t/. "$work/" 2>/dev/null || true
  if build-fuzz/tests/fuzz/${t}_fuzzer -max_total_time="$ABICHECK_FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 \
       -artifact_prefix="build-fuzz/$t-" "$work" > "build-fuzz/$t.log" 2>&1; then
    echo "fuzz $t: $(grep -o 'Done [0-9]* runs' "build-fuzz/$t.log")"
  else
    echo "fuzz $t: FAILED"; tail -30 "build-fuzz/$t.log"; fuzz_failed=$((fuzz_failed + 1))
  fi
  rm -rf "$work"
done
echo "$((6 - fuzz_failed)) passed, $fuzz_failed failed"
[ "$fuzz_failed" -eq 0 ]
