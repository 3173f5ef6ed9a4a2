#!/usr/bin/env bash
# headline_fixture.sh DIR: builds the headline scenario (fixtures/loader/headline_signature_change:
# common_ops.abi3.so, the newer libc10_cuda.so, old/libc10_cuda.so) in DIR with $CC/$CXX (default
# cc/c++), and puts the newer library alone in DIR/new/ as a build to check against. Prints nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
(cd "$1" && SRC="$root/fixtures/loader/headline_signature_change" \
   sh -c '. "$0" && . "$SRC/build.sh"' "$root/fixtures/loader/lib.sh") > /dev/null
mkdir -p "$1/new" && cp "$1/libc10_cuda.so" "$1/new/"
