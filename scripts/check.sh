#!/usr/bin/env bash
# The inner loop: the optimized build and the suites that decide most changes — unit, golden,
# docs (layers, function length, loader-model citations) — in a few minutes, before the full
# scripts/test.sh. Installs its dependencies first, as scripts/test.sh does. Extra arguments go
# to ctest (`scripts/check.sh -R Env` narrows it).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v ccache > /dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache} CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
fi
scripts/setup-deps.sh
scripts/check-format.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABICHECK_WERROR=ON > /dev/null
cmake --build build -j "$(nproc)"
cd build && ctest --output-on-failure -j "$(nproc)" -L '^(unit|golden|docs)$' "$@"
