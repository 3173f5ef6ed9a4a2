#!/usr/bin/env bash
# clang-tidy over lib/ and tools/ with the checks of .clang-tidy (which says why each is kept),
# from a build directory's compile_commands.json. Any finding fails. Usage: scripts/tidy.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/tidy.sh BUILD_DIR}
[ -f "$build/compile_commands.json" ] || { echo "tidy: no $build/compile_commands.json"; exit 2; }
cd "$root"
files=$(git ls-files 'lib/*.cc' 'tools/*.cc' | grep -v '^lib/layer_probe.cc$')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One file per clang-tidy, as many at once as there are cores; each prints its findings.
if ! echo "$files" | xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet > "$log" 2>/dev/null; then
  grep -E 'warning:|error:' "$log" | sort -u
  echo "tidy: $(grep -cE 'warning:|error:' "$log") findings in $(echo "$files" | wc -l) files"
  exit 1
fi
echo "tidy: $(echo "$files" | wc -l) files clean"
