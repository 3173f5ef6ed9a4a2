#!/usr/bin/env bash
# Builds abicheck and runs its main job on the bundled demo: sgl-kernel's common_ops module,
# compiled against a torch whose c10_cuda_check_implementation takes an `int` line number,
# checked against a newer libc10_cuda.so (takes `unsigned int`: exit 1) and the matching one
# (exit 0). Sources: fixtures/loader/headline_signature_change.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target abicheck
demo=build/demo
rm -rf "$demo" && mkdir -p "$demo"
(cd "$demo" && SRC="$root/fixtures/loader/headline_signature_change" \
   sh -c '. "$0" && . "$SRC/build.sh"' "$root/fixtures/loader/lib.sh")
cd "$demo"
abicheck=$root/build/tools/abicheck/abicheck

echo
echo "\$ abicheck common_ops.abi3.so libc10_cuda.so          # the newer torch build"
set +e
"$abicheck" common_ops.abi3.so libc10_cuda.so
new_rc=$?
echo "(exit $new_rc)"
echo
echo "\$ abicheck common_ops.abi3.so old/libc10_cuda.so      # the build it was compiled for"
"$abicheck" common_ops.abi3.so old/libc10_cuda.so
old_rc=$?
echo "(exit $old_rc)"
set -e
[ "$new_rc" -eq 1 ] && [ "$old_rc" -eq 0 ] || { echo "demo: unexpected exit codes" >&2; exit 1; }
