#!/usr/bin/env bash
# Fetches the PyPI corpus (bench/pypi-corpus.txt) into CACHE/wheels with `pip download
# --only-binary=:all:` for cp312 / manylinux x86_64: real torch wheels, their nvidia-* CUDA
# libraries, extension wheels. Cached outside the clone (default ~/.cache/abicheck-corpus/pypi,
# or $ABICHECK_PYPI_CACHE) and verified against CACHE/SHA256SUMS on reuse, so CI fetches once.
# Exit 0: fetched; 2: the package index cannot be reached (the reason on the last line).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}}
wheels=$cache/wheels
mkdir -p "$wheels"
manifest=$root/bench/pypi-corpus.txt
stamp=$cache/fetched.$(sha256sum "$manifest" | cut -c1-16)
# Reuse: the files hashed after the last fetch, unchanged since (name, size, mtime); a changed one
# is hashed again against SHA256SUMS.
listing() { (cd "$wheels" && stat -c '%n %s %Y' -- *.whl); }
if [ -f "$stamp" ] && { [ "$(listing)" = "$(cat "$stamp")" ] ||
                        (cd "$wheels" && sha256sum --quiet -c ../SHA256SUMS); }; then
  listing > "$stamp"
  echo "pypi corpus: cached in $wheels ($(du -sh "$wheels" | cut -f1))"
  exit 0
fi
# Every manylinux tag this machine's glibc (2.36) accepts, as pip itself would on it.
plat=(--only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none
      --platform manylinux2014_x86_64 -d "$wheels" -q)
for minor in $(seq 17 36); do plat+=(--platform "manylinux_2_${minor}_x86_64"); done
start=$(date +%s)
fetch() {  # pip download args...; a failure to reach the index is exit 2
  local out
  if ! out=$(pip download "${plat[@]}" "$@" 2>&1); then
    if echo "$out" | grep -qiE 'connection|resolve|network|timed out|temporary failure'; then
      echo "$out" | tail -3
      echo "pypi corpus unavailable: the package index cannot be reached"
      exit 2
    fi
    echo "$out"
    exit 1
  fi
}
while read -r kind req _; do
  case "$kind" in
    deps) fetch "$req" ;;
    torch|ext|tool) fetch --no-deps "$req" ;;
    ''|'#'*) ;;
  esac
done < "$manifest"
(cd "$wheels" && sha256sum -- *.whl > ../SHA256SUMS)
rm -f "$cache"/fetched.*
listing > "$stamp"
echo "pypi corpus: $(ls "$wheels" | wc -l) wheels, $(du -sh "$wheels" | cut -f1), fetched in $(( $(date +%s) - start )) s"
