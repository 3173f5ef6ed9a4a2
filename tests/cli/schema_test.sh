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
  "$abicheck" gpu "$fx/common_ops.abi3.so" "$fx/libc10_cuda.so" --gpu sm_90 --gpu H100 --format json \
    -o "$work/gpu.json" || true
  args+=("matrix:$work/matrix.json" "diff:$work/diff.json" "gpu:$work/gpu.json")
  # An installed environment: torch's libc10_cuda and an extension module built for the old one.
  site=$work/venv/lib/python3.12/site-packages
  "$root/tests/support/headline_venv.sh" "$work/venv" "$fx"
  "$abicheck" env "$work/venv" --format json -o "$work/env.json" || true
  "$abicheck" env "$work/venv" --against "$site/torch" --against "$fx/old" --format json \
    -o "$work/env2.json" || true
  args+=("environment:$work/env.json" "environment:$work/env2.json")
fi
# The document a command writes instead when it stops (exit 3: an input it cannot read; exit 2:
# a usage error found after the options were read).
set +e
"$abicheck" check "$work/missing.so" --host-only --format json -o "$work/error3.json"
rc3=$?
"$abicheck" check "$work/missing.so" --host-only --format junit -o "$work/error3.xml"
mkdir -p "$work/bare/lib/python3.12/site-packages"
"$abicheck" env "$work/bare" --package nothing --against "$work/bare" --format json > "$work/error2.json"
rc2=$?
set -e
[ "$rc3" = 3 ] || { echo "check missing.so exited $rc3, not 3"; exit 1; }
[ "$rc2" = 2 ] || [ "$rc2" = 3 ] || { echo "env --package nothing exited $rc2"; exit 1; }
args+=("error:$work/error3.json" "error:$work/error2.json")
exec /usr/bin/python3 "$root/tests/cli/validate_json.py" "$root/docs/schema" "${args[@]}"
