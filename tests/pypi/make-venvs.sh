#!/usr/bin/env bash
# ctest fixture: fetches the PyPI corpus and builds one virtualenv per torch release of
# bench/pypi-corpus.txt under CACHE/venvs (pip install --no-index from the cached wheels, so
# nothing else is fetched): torch, its CUDA libraries, every extension distribution. Reused while
# the manifest is unchanged. When the index or a Python 3.12 cannot be had, writes
# CACHE/UNAVAILABLE with the reason and exits 0 (the tests then skip, saying why).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9  # both builds' ctest runs may prepare at once
rm -f "$cache/UNAVAILABLE"
unavailable() { echo "$*" > "$cache/UNAVAILABLE"; cat "$cache/UNAVAILABLE"; exit 0; }
# The corpus takes about 12 GB of wheels and 22 GB of virtualenvs (35 before link-duplicates.py
# links each new one to those before it, so one virtualenv's 8 GB of duplicates exist for a
# while), and the rest of the test run writes up to about 8 GB more (two builds, the Debian
# corpus, the fault tests' scratch files): on a disk without room for what is still missing and
# that, say so and skip rather than fill the disk half-way.
have=$(du -sk "$cache" 2>/dev/null | cut -f1)
avail=$(df --output=avail -k "$cache" | tail -1)
missing=$(( 34 * 1024 * 1024 - ${have:-0} ))
if [ "$missing" -gt 0 ] && [ "$avail" -lt $(( missing + 16 * 1024 * 1024 )) ]; then
  unavailable "not enough disk for the PyPI corpus: $(( avail / 1048576 )) GB free under $cache, about $(( missing / 1048576 )) GB more needed, 8 GB while a virtualenv is linked and 8 GB for the rest of the run"
fi
out=$("$root/bench/fetch-pypi-corpus.sh" "$cache" 2>&1)
rc=$?
echo "$out" | tail -1
[ $rc -eq 2 ] && unavailable "$(echo "$out" | tail -1)"
[ $rc -eq 0 ] || { echo "$out"; exit 1; }
# A CPython 3.12: $ABICHECK_PYTHON312, python3.12 on PATH, or one pyenv installed.
py=
for c in ${ABICHECK_PYTHON312:-} python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
  if "$c" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] ||
  unavailable "no Python 3.12 on this machine (the corpus wheels are cp312): set ABICHECK_PYTHON312"
manifest=$root/bench/pypi-corpus.txt
# What a virtualenv is made of: the torch, deps and ext lines (and this layout's version).
key=$( (echo layout-1; grep -E '^(torch|deps|ext) ' "$manifest") | sha256sum | cut -c1-16)
mapfile -t exts < <(awk '$1 == "ext" {print $2}' "$manifest")
# Identical files at the same path as in the other complete virtualenvs become one (hard links;
# see the script), once per virtualenv.
link_venv() {
  local v=$1 others=() o
  [ -f "$v/.complete-$key" ] && [ ! -f "$v/.linked-$key" ] || return 0
  for o in "$cache"/venvs/torch-*; do [ "$o" != "$v" ] && [ -f "$o/.complete-$key" ] && others+=("$o"); done
  [ ${#others[@]} -eq 0 ] || python3 "$root/tests/pypi/link-duplicates.py" "$v" "${others[@]}" || return 1
  touch "$v/.linked-$key"
}
pipi() {  # venv, pip install arguments...: from the cached wheels only
  local venv=$1; shift
  pip --python "$venv/bin/python" --disable-pip-version-check install --no-index \
    --find-links "$cache/wheels" --no-compile -q "$@"
}
while read -r kind req cuda_req; do
  [ "$kind" = torch ] || continue
  v=$cache/venvs/${req/==/-}
  [ -f "$v/.complete-$key" ] && continue
  start=$(date +%s)
  rm -rf "$v"
  "$py" -m venv --without-pip "$v" || exit 1
  # The CUDA libraries (and pure-Python dependencies) of the release named for them, then this
  # torch itself in place of that one, then every extension without dependencies.
  pipi "$v" "$cuda_req" || exit 1
  if [ "$cuda_req" != "$req" ]; then pipi "$v" --no-deps "$req" || exit 1; fi
  pipi "$v" --no-deps "${exts[@]}" || exit 1
  touch "$v/.complete-$key"
  link_venv "$v" || exit 1  # at once: the next one is built with this one's duplicates gone
  echo "venv $v: $(du -sh "$v" | cut -f1), built in $(( $(date +%s) - start )) s"
done < "$manifest"
for v in "$cache"/venvs/torch-*; do link_venv "$v" || exit 1; done
# The driver's libcuda.so.1 is not on this machine: the toolkit's stub plays it (it exports the
# driver API; nothing is run).
stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda*/targets/*/lib/stubs/libcuda.so 2>/dev/null | head -1)
mkdir -p "$cache/driver-stub"
[ -n "$stub" ] && ln -sf "$stub" "$cache/driver-stub/libcuda.so.1"
exit 0
