#!/usr/bin/env bash
# Builds abicheck twice — optimized, and with AddressSanitizer + UndefinedBehaviorSanitizer —
# with warnings as errors, runs clang-tidy over the sources and every test under ctest (the
# corpus suites once, in the optimized build), then the fuzzers, as many at once as there are
# cores. Installs its own dependencies first, and fetches the corpora while it builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-deps.sh
# Compiles are cached outside the clone (ccache in ~/.cache/ccache): the five builds of a run
# (optimized, sanitized, fuzzers, the two portable wheels') recompile only what changed since
# the last run on this machine. CMake reads the launchers from the environment; paths under the
# clone are hashed relative to it, so another clone of the same sources hits.
if command -v ccache > /dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache} CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
  ccache --zero-stats > /dev/null
  trap 'disk end; echo "== ccache: $(ccache --print-stats | grep -E "^(direct_cache_hit|preprocessed_cache_hit|cache_miss)" | tr "\t\n" "= ")"' EXIT
fi
# The real-file corpora are cached under ~/.cache/abicheck-corpus and skip when the disk has no
# room for them: the free space, at the start and the end, tells which happened and why.
disk() { echo "== disk $1: $(df -h --output=avail "$HOME" | tail -1 | tr -d ' ') free for the corpus cache, $(df -h --output=avail . | tail -1 | tr -d ' ') for the builds"; }
disk start
[ -n "${CCACHE_DIR:-}" ] || trap 'disk end' EXIT
# The corpora are fetched (network and disk, little CPU) while the builds run (CPU): each ctest
# fixture that prepares them then finds them ready, or waits on the same lock. Their logs are in
# build-logs/; the fixture says again why one is missing.
corpus=${ABICHECK_CORPUS_CACHE:-$HOME/.cache/abicheck-corpus}
mkdir -p build-logs
echo "== corpora fetched in the background into $corpus (build-logs/corpus-*.log)"
tests/corpus/prepare.sh "$corpus/debian" > build-logs/corpus-debian.log 2>&1 &
tests/pypi/make-venvs.sh "$corpus/pypi" > build-logs/corpus-pypi.log 2>&1 &
echo "== format"
scripts/check-format.sh
jobs=$(nproc)
build() {  # build-dir cmake-args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}
echo "== optimized build"
build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABICHECK_WERROR=ON
# Before the tests: the corpora have the tidy's minutes to arrive.
echo "== clang-tidy (.clang-tidy: bugprone, performance, identifier naming) over lib/ and tools/"
scripts/tidy.sh build
echo "== tests, optimized build"
(cd build && ctest --output-on-failure -j "$jobs" -LE '^long$')
echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
build build-asan -DCMAKE_BUILD_TYPE=Debug -DABICHECK_SANITIZE=ON -DABICHECK_WERROR=ON
# The Debian corpus and the PyPI suites run once, in the optimized build: under the sanitizers
# the same code meets corrupt input in the mutation campaign, the faults and the fuzzers.
echo "== tests, sanitized build (all but the corpus and long labels)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j "$jobs" -LE '^(corpus|long)$')
echo "== fuzzers (clang, libFuzzer + ASan/UBSan), ${ABICHECK_FUZZ_SECONDS:=60} s each from the committed corpus"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABICHECK_SANITIZE=ON \
  -DABICHECK_FUZZ=ON -DABICHECK_WERROR=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target elf_fuzzer pipeline_fuzzer zip_fuzzer index_fuzzer fatbin_fuzzer deflate_fuzzer
fuzz_one() {  # target: 0 when it ran its time clean
  local t=$1 work
  work=$(mktemp -d)
  cp -r tests/fuzz/corpus/$t/. "$work/" 2>/dev/null || true
  build-fuzz/tests/fuzz/${t}_fuzzer -max_total_time="$ABICHECK_FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="build-fuzz/$t-" "$work" > "build-fuzz/$t.log" 2>&1
  local rc=$?
  rm -rf "$work"
  return $rc
}
# As many fuzzers at once as there are cores, each for its full time.
fuzz_failed=0
targets=(elf pipeline zip index fatbin deflate)
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  pids=()
  for t in "${targets[@]:i:jobs}"; do fuzz_one "$t" & pids+=("$!:$t"); done
  for p in "${pids[@]}"; do
    t=${p#*:}
    if wait "${p%%:*}"; then
      echo "fuzz $t: $(grep -o 'Done [0-9]* runs' "build-fuzz/$t.log")"
    else
      echo "fuzz $t: FAILED"; tail -30 "build-fuzz/$t.log"; fuzz_failed=$((fuzz_failed + 1))
    fi
  done
done
echo "$((6 - fuzz_failed)) passed, $fuzz_failed failed"
[ "$fuzz_failed" -eq 0 ]
