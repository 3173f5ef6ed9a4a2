#!/usr/bin/env bash
# Fails when a C/C++ source differs from .clang-format (clang-format 14, Debian's). Run by
# scripts/test.sh; `scripts/check-format.sh --fix` rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' '*.cu' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "not formatted with .clang-format (scripts/check-format.sh --fix): ${bad[*]}"
  exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
