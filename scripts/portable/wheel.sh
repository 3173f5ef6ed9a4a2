#!/usr/bin/env bash
# Builds the portable wheel (docs/portable.md): scripts/portable/deps.sh's dependencies, Zig's
# compiler for glibc 2.28 (cmake/zig-toolchain.cmake), scikit-build-core from the repository,
# then auditwheel's manylinux_2_28 tag.
#   scripts/portable/wheel.sh [OUT_DIR [ARCH]]   (default dist/, x86_64; or aarch64, cross-built)
#   -> prints the wheel's path
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-$root/dist}")
arch=${2:-x86_64}
cache=${ABICHECK_PORTABLE_CACHE:-$HOME/.cache/abicheck-portable}
# One deps.sh at a time (ctest runs the x86_64 and aarch64 tests side by side): on a new machine
# both would make the toolchain's virtualenv and fetch the sources at once.
mkdir -p "$cache"
prefix=$(flock "$cache/deps.lock" "$root/scripts/portable/deps.sh" "$arch") || exit $?
# The wheel's platform tag names the target, not this machine (scikit-build-core reads it here).
export _PYTHON_HOST_PLATFORM=linux-$arch
tools=$cache/tools
export ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$cache/zig-cache
export CMAKE_TOOLCHAIN_FILE=$root/cmake/zig-toolchain.cmake ABICHECK_PORTABLE_PREFIX=$prefix
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
# --no-build-isolation: scikit-build-core comes from the toolchain venv (pinned, cached), so the
# build fetches nothing; build-dir keeps the compile incremental between runs.
# The compile is kept per build of the dependencies (CMake caches their paths): another deps.sh
# key starts afresh, and the older ones' directories go.
build=build-wheel/$(basename "$prefix")
find "$root/build-wheel" -mindepth 1 -maxdepth 1 -name "deps-$arch-*" ! -name "$(basename "$prefix")" \
  -exec rm -rf {} + 2>/dev/null || true
(cd "$root" && "$tools/bin/pip" wheel --no-build-isolation --no-deps --disable-pip-version-check -q \
   --config-settings=build-dir="$build" -w "$raw" . >&2)
mkdir -p "$out"
plat=manylinux_2_28_$arch; [ "$arch" = "$(uname -m)" ] || plat=auto  # auditwheel names only the host's arch
PATH=$tools/bin:$PATH "$tools/bin/auditwheel" repair --plat "$plat" -w "$out" \
  "$raw"/abicheck_loader-*.whl >&2
ls -t "$out"/abicheck_loader-*manylinux*"$arch".whl | head -1
