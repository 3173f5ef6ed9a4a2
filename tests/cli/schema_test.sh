#!/usr/bin/env bash
# Every golden JSON report, and a fresh matrix and diff from fixtures, validate against the schemas.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
abicheck=$1 fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=()
for f in "$root"/tests/golden/*.json; do args+=("report:$f"); done
fx=$fixtures/headline_signature_change
if [ -f "$fx/common_ops.abi3.so" ]; then
  "$abicheck" check "$fx/common_ops.abi3.so" --against "$fx/libc10_cuda.so" --against "$fx/old/libc10_cuda.so" \
    --format json -o "$work/matrix.json" || true
  "$abicheck" diff "$fx/old/libc10_cuda.so" "$fx/libc10_cuda.so" --format json -o "$work/diff.json" || true
  args+=("matrix:$work/matrix.json" "diff:$work/diff.json")
fi
exec /usr/bin/python3 "$root/tests/cli/validate_json.py" "$root/docs/schema" "${args[@]}"
