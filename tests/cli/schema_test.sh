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
  mkdir -p "$site/torch/lib" "$site/torch-2.10.0.dist-info" "$site/sgl_kernel" "$site/sgl_kernel-0.3.21.dist-info"
  echo "version_info = 3.12.1" > "$work/venv/pyvenv.cfg"
  cp "$fx/libc10_cuda.so" "$site/torch/lib/"
  printf 'Name: torch\nVersion: 2.10.0\n' > "$site/torch-2.10.0.dist-info/METADATA"
  echo "torch/lib/libc10_cuda.so,," > "$site/torch-2.10.0.dist-info/RECORD"
  cp "$fx/common_ops.abi3.so" "$site/sgl_kernel/"
  printf 'Name: sgl-kernel\nVersion: 0.3.21\n' > "$site/sgl_kernel-0.3.21.dist-info/METADATA"
  echo "sgl_kernel/common_ops.abi3.so,," > "$site/sgl_kernel-0.3.21.dist-info/RECORD"
  "$abicheck" env "$work/venv" --format json -o "$work/env.json" || true
  "$abicheck" env "$work/venv" --against "$site/torch" --against "$fx/old" --format json \
    -o "$work/env2.json" || true
  args+=("environment:$work/env.json" "environment:$work/env2.json")
fi
exec /usr/bin/python3 "$root/tests/cli/validate_json.py" "$root/docs/schema" "${args[@]}"
