#!/usr/bin/env bash
# Builds abicheck twice — optimized, and with AddressSanitizer + UndefinedBehaviorSanitizer —
# and runs every test under ctest in both builds. Installs its own dependencies first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-deps.sh
jobs=$(nproc)
run() {  # build-dir cmake-args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure -j "$jobs")
}
echo "== optimized build"
run build -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run build-asan -DCMAKE_BUILD_TYPE=Debug -DABICHECK_SANITIZE=ON
