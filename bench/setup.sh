# Sourced by bench/compare.sh and bench/profile.sh, after they set `root`: the Debian packages a
# script needs, the Release build in build-bench, the Debian corpus (fetched if missing), and the
# files their rows read.
#   bench_setup CORPUS_DIR PACKAGE...
# sets corpus, A (abicheck), B (the bench binaries), lib (the CUDA build's directory), big
# (libtorch_cuda.so), tv (torchvision's _C.so), whl, tvwhl (their wheels) and work (a temporary
# folder, removed on exit).
bench_setup() {
  corpus=$(cd "$1" && pwd)
  shift
  local need=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    local SUDO=
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}" > /dev/null
  fi
  "$root/scripts/setup-deps.sh"
  cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DABICHECK_BUILD_TESTS=OFF -DABICHECK_BUILD_BENCH=ON > /dev/null
  cmake --build "$root/build-bench" > /dev/null
  A=$root/build-bench/tools/abicheck/abicheck
  B=$root/build-bench/bench
  [ -d "$corpus/sid/libtorch-cuda-2.6" ] || "$root/bench/fetch-corpus.sh" "$corpus" > /dev/null
  [ -f "$corpus/wheels/torch-2.6.0+cuda-sid.whl" ] ||
    "$root/bench/make-wheels.sh" "$corpus" "$corpus/wheels" > /dev/null
  lib=$corpus/sid/libtorch-cuda-2.6/usr/lib/x86_64-linux-gnu
  big=$lib/libtorch_cuda.so.2.6.0
  tv=$corpus/trixie/python3-torchvision/usr/lib/python3/dist-packages/torchvision/_C.cpython-313-x86_64-linux-gnu.so
  whl=$corpus/wheels/torch-2.6.0+cuda-sid.whl
  tvwhl=$corpus/wheels/torchvision-0.21.0-trixie.whl
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
