#!/usr/bin/env bash
# headline_venv.sh VENV FIXTURE: an installed environment made of the headline fixture's files
# (FIXTURE: a built headline_signature_change scenario) — torch 2.10.0 whose torch/lib holds
# libc10_cuda.so, and sgl-kernel 0.3.21 whose common_ops.abi3.so was built for the old one — laid
# out as pip lays a virtualenv out (pyvenv.cfg, dist-info METADATA and RECORD). Prints nothing.
set -euo pipefail
venv=$1 fx=$2
site=$venv/lib/python3.12/site-packages
mkdir -p "$site/torch/lib" "$site/torch-2.10.0.dist-info" "$site/sgl_kernel" "$site/sgl_kernel-0.3.21.dist-info"
echo "version_info = 3.12.1" > "$venv/pyvenv.cfg"
cp "$fx/libc10_cuda.so" "$site/torch/lib/"
printf 'Name: torch\nVersion: 2.10.0\n' > "$site/torch-2.10.0.dist-info/METADATA"
echo "torch/lib/libc10_cuda.so,," > "$site/torch-2.10.0.dist-info/RECORD"
cp "$fx/common_ops.abi3.so" "$site/sgl_kernel/"
printf 'Name: sgl-kernel\nVersion: 0.3.21\n' > "$site/sgl_kernel-0.3.21.dist-info/METADATA"
echo "sgl_kernel/common_ops.abi3.so,," > "$site/sgl_kernel-0.3.21.dist-info/RECORD"
