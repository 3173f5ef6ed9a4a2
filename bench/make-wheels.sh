#!/usr/bin/env bash
# Packs pip-style wheels (zips with torch/lib/*.so, torchvision/_C.so, ...) from the Debian
# packages bench/fetch-corpus.sh unpacked, so that wheel input is tested and measured on real
# libraries. Debian's sonames stay versioned (libc10.so.2.6) inside; member names follow them.
#   bench/make-wheels.sh CORPUS_DIR OUT_DIR
set -euo pipefail
corpus=$(cd "${1:?corpus dir}" && pwd)
out=${2:?out dir}
mkdir -p "$out"
out=$(cd "$out" && pwd)
lib=usr/lib/x86_64-linux-gnu
site=usr/lib/python3/dist-packages

pack() {  # wheel-name dest-prefix:source-dir ...
  local whl=$out/$1; shift
  [ -f "$whl" ] && return 0
  python3 - "$whl" "$@" <<'PY'
import os, sys, zipfile
whl, specs = sys.argv[1], sys.argv[2:]
with zipfile.ZipFile(whl + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
    for spec in specs:
        prefix, src, pattern = spec.split(":")
        for name in sorted(os.listdir(src)):
            path = os.path.join(src, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue  # one copy per library, under its soname-like name
            if pattern and pattern not in name:
                continue
            z.write(path, prefix + "/" + name)
os.rename(whl + ".tmp", whl)
PY
  echo "$whl"
}

pack torch-1.13.1-bookworm.whl "torch/lib:$corpus/bookworm/libtorch1.13/$lib:.so"
pack torch-2.6.0-trixie.whl "torch/lib:$corpus/trixie/libtorch2.6/$lib:.so"
pack torch-2.14.1-sid.whl "torch/lib:$corpus/sid/libtorch2.14/$lib:.so"
pack torchvision-0.14.1-bookworm.whl "torchvision:$corpus/bookworm/python3-torchvision/$site/torchvision:.so"
pack torchvision-0.21.0-trixie.whl "torchvision:$corpus/trixie/python3-torchvision/$site/torchvision:.so"
pack torchvision-0.27.0-sid.whl "torchvision:$corpus/sid/python3-torchvision/$site/torchvision:.so"
pack torchaudio-2.6.0-trixie.whl "torchaudio/lib:$corpus/trixie/python3-torchaudio/$site/torchaudio/lib:.so" \
  "torchaudio:$corpus/trixie/python3-torchaudio/$site/torchaudio:.so"
pack torch_scatter-2.1.2-trixie.whl "torch_scatter:$corpus/trixie/python3-torch-scatter/$site/torch_scatter:.so"
# The CUDA build last: its libtorch_cuda.so is 1.18 GB.
pack torch-2.6.0+cuda-sid.whl "torch/lib:$corpus/sid/libtorch-cuda-2.6/$lib:.so"
